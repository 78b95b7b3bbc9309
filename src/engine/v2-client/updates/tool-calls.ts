// Direction B's tool calls toward the v2 client (T §2.4 B↓): each v1 `tool_call`/`tool_call_update`
// translated against what the session has seen of it, and the fast path's string-only update.
import { isObject, type Obj } from "../../../base/json.js";
import {
  isPermissionAnnouncement,
  toolCallMessageToV2,
  toolContentToV2,
  type ToolCallMessageToV2Context,
  type V1ToolCallMessage,
  type V2ToolCallMessage,
} from "../../../convert/tool-call.js";
import type { FileTexts } from "../../../convert/diff.js";
import { diffStageOf } from "../../../../mappings/diff.js";
import { diffFiles } from "../../files.js";
import { NOTHING, type Outgoing } from "../../outgoing.js";
import { dropped } from "../../translating.js";
import type { SessionB, ToolSeen } from "../session.js";
import { SLOT, type ScannedUpdate } from "../../../wire/update-scan.js";
import type { ScannedMembers } from "../../../wire/member-scan.js";
import { plainLocations, textItemsOnly, toolCallMembers } from "../../text-content.js";
import { resolvePath } from "../../../convert/paths.js";
import { type UpdateContextB, boundary, updatesOf } from "./index.js";
import { terminalConvention } from "./terminals.js";

/** The current text of the files named by a v1 tool call's diffs (to place snippets, T §3.3 B↓). */
export function diffFilesOfV1(toolCall: unknown, s: SessionB | undefined, ctx: UpdateContextB): FileTexts | undefined {
  if (!isObject(toolCall)) return undefined;
  const cwd = typeof s?.params.cwd === "string" ? s.params.cwd : undefined;
  return diffFiles(toolCall.content, 1, ctx.diffFileMaxBytes ?? 0, cwd, ctx.observer);
}

/**
 * A v1 `tool_call_update` of string fields only (`toolCallId`, `status`, `title`, `kind`), tag
 * first: v2 gets it unchanged (`toolCallMessageToV2` copies such fields, tag first; its mark of an
 * unseen tool call is a stash, which this client does not get), the tool call known or not.
 */
export function fastToolCallUpdate(s: SessionB, u: ScannedUpdate): boolean {
  if (u.keys[0] !== "sessionUpdate" || u.keys.includes("content") || u.keys.includes("messageId")) return false;
  const id = u.string(SLOT.toolCallId);
  if (id === undefined) return false;
  const title = u.keys.includes("title") ? u.string(SLOT.title) : undefined;
  const kind = u.keys.includes("kind") ? u.string(SLOT.kind) : undefined;
  // What the full path does: the boundary (nothing to flush, checked), the echo window, the record.
  boundary(s);
  s.prompts.closeEcho();
  // `rememberTool` of these strings, in the table's columns when the entry is compact.
  if (s.tools.patchStrings(id, title, kind)) return true;
  const src: Obj = { sessionUpdate: "tool_call_update" };
  if (title !== undefined) src.title = title;
  if (kind !== undefined) src.kind = kind;
  rememberTool(s, id, s.tools.get(id), src, NOTHING_EMITTED);
  return true;
}

/** A string-only update emits no content: nothing for `rememberTool` to take from it. */
const NOTHING_EMITTED: readonly V2ToolCallMessage[] = [];

export function toolCall(s: SessionB, original: Obj, ctx: UpdateContextB, meta: unknown): readonly Outgoing[] {
  const id = original.toolCallId;
  if (typeof id !== "string") {
    ctx.log.warn("dropped a tool call without a toolCallId");
    return NOTHING;
  }
  s.prompts.closeEcho();
  const out: Outgoing[] = [];
  const src = terminalConvention(s, original, id, meta, ctx.clientIsBridge === true, out);
  if (src === undefined) return out;
  const m = src as unknown as V1ToolCallMessage;
  const seen = s.tools.get(id);
  const r = toolCallMessageToV2(m, conversionContext(s, src, seen, ctx));
  if (dropped(r, ctx, String(src.sessionUpdate), src)) return out;
  // A chained A's announcement for a permission subject emits nothing, yet the tool is known.
  const known = r.value.length > 0 || isPermissionAnnouncement(m);
  if (known) rememberTool(s, id, seen, src, r.value);
  return [...out, ...updatesOf(s, r.value, meta)];
}

/** What v1 tool call `src` (its tag, kind, status and content) is converted with; `seen`: what the session has of it. */
function conversionContext(
  s: SessionB,
  src: Obj,
  seen: ToolSeen | undefined,
  ctx: UpdateContextB,
): ToolCallMessageToV2Context {
  return {
    opts: ctx.opts,
    seen: seen !== undefined,
    extensionTerminals: s.terminals,
    ...(typeof s.params.cwd === "string" ? { cwd: s.params.cwd } : {}),
    toolKind: typeof src.kind === "string" ? src.kind : seen?.kind,
    lastContent: seen?.lastContent,
    files: diffFilesOfV1(src, s, ctx),
    // A v1 tool_call without a status is pending (the v1 default); an update without one tells nothing.
    diffStage: diffStageOf(src.status ?? (src.sessionUpdate === "tool_call" ? "pending" : undefined)),
    // Without an observer nobody reads the losses: a diff skips working them out.
    coarseLosses: ctx.observer === undefined,
  };
}

/**
 * What the session keeps of tool call `id` (`seen`: what it had) once `emitted` went out for the
 * v1 `src`. The full path and the fast path (`fastToolCallUpdate`) both record through here.
 */
function rememberTool(
  s: SessionB,
  id: string,
  seen: ToolSeen | undefined,
  src: Obj,
  emitted: readonly V2ToolCallMessage[],
): void {
  const state: ToolSeen = seen ?? {};
  // A v1 tool_call replaces the whole tool call: what it omits is gone (T §2.4 B↓-1).
  const whole = src.sessionUpdate === "tool_call";
  if (typeof src.title === "string" || whole) state.title = typeof src.title === "string" ? src.title : undefined;
  if (typeof src.kind === "string" || whole) state.kind = typeof src.kind === "string" ? src.kind : undefined;
  for (const u of emitted) {
    if (u.sessionUpdate === "tool_call_update" && Array.isArray(u.content)) state.lastContent = u.content;
    else if (u.sessionUpdate === "tool_call_update" && u.content === null) state.lastContent = [];
    else if (u.sessionUpdate === "tool_call_content_chunk")
      state.lastContent = [...(state.lastContent ?? []), u.content];
  }
  // A v1 tool_call says everything: without content, the content is none, so later chunks restore.
  if (whole && state.lastContent === undefined && !Array.isArray(src.content)) state.lastContent = [];
  s.tools.set(id, state);
}

/** The tags as a relaid line's first member has them (`ScannedMembers.relaid`), and as spliced. */
const TOOL_CALL_UPDATE_VALUE = Buffer.from('"tool_call_update"');
const TOOL_CALL_UPDATE_TAG = Buffer.from("tool_call_update");
/** What a `_meta` holding the terminal convention's keys (`terminal_info`...) has among its bytes. */
const CONVENTION_KEY_BYTES = Buffer.from('"terminal_');
/** A path the session cwd leaves as it is (absolute, or one no cwd resolves). */
function resolvedAsIs(cwd: string | undefined, path: string): boolean {
  const resolved = resolvePath(cwd, path);
  return resolved === undefined || resolved === path;
}

/**
 * The fast path of `toolCall` for a line `scanMembers` proved canonical (the tag at any place, as
 * Claude's adapter writes it after `_meta` and the id): a v1 `tool_call` of an unseen tool call or a
 * `tool_call_update`, with any members v2 carries as they are: `rawInput`, `rawOutput`, `locations`
 * of an absolute path and a line, `content` of text items, `title`, `name`, `kind` and `status`
 * strings, a `_meta` without a stash or the terminal convention, fields v1 may add later. Its v2
 * form is the update itself as a `tool_call_update`, the tag first and `_meta` last
 * (`toolCallMessageToV2`, `setMeta`): the line's bytes, its tag spliced or its members relaid.
 * Other content (a v1 agent's diffs, which the replay of recorded turns has on 9% of its lines) is
 * converted as `toolCallMessageToV2` converts it (`toolContentToV2`, with the full path's context)
 * and laid in place of the list's bytes, the other members still as theirs; not when an observer
 * reads the conversion's losses. The session records it as the full path records it
 * (`rememberTool`). Undefined, having changed nothing, for anything else: a null (v1 "unchanged"),
 * content the converter refuses, a terminal first in the list (the scan declines it), a re-sent
 * `tool_call` (v2 clears what it omits), the input of a terminal the tool call runs, a suppressed replay.
 */
export function fastToolCallMembers(
  s: SessionB,
  m: ScannedMembers,
  tagIsToolCall: boolean,
  ctx: UpdateContextB,
): Buffer | undefined {
  if (s.suppressHistory) return undefined;
  // v1's null means "unchanged" (the full path drops it and notes it); `capabilities` rides in a stash.
  const at = toolCallMembers(m, true);
  if (at === undefined) return undefined;
  const { meta, content, locations, title, kind } = at;
  // The terminal convention's keys: the full path's (a terminal update for the client).
  if (meta >= 0 && m.holds(meta, CONVENTION_KEY_BYTES)) return undefined;
  const id = at.id < 0 ? undefined : m.text(at.id);
  if (id === undefined) return undefined;
  const titleText = title < 0 ? undefined : m.text(title);
  const kindText = kind < 0 ? undefined : m.text(kind);
  if ((title >= 0 && titleText === undefined) || (kind >= 0 && kindText === undefined)) return undefined;
  const seen = s.tools.get(id);
  // A v1 tool_call requires a title; a re-sent one replaces the tool call (absent fields cleared).
  if (tagIsToolCall && (titleText === undefined || seen !== undefined)) return undefined;
  // The command of a terminal this tool call runs (its `rawInput`'s) goes to the client as a terminal
  // update (`terminalConvention`); an update without a `rawInput` has none to send.
  if (s.terminalOfTool.peek(id) !== undefined && m.indexOf("rawInput") >= 0) return undefined;
  const list = content < 0 ? undefined : m.value(content);
  const asItIs = list === undefined || textItemsOnly(list);
  // Other content (diffs) is converted as the full path converts it, when no observer reads losses.
  if (!asItIs && (!Array.isArray(list) || ctx.observer !== undefined)) return undefined;
  const cwd = typeof s.params.cwd === "string" ? s.params.cwd : undefined;
  // `locToV2` copies a path no session cwd resolves anew, and a line, as they are.
  if (locations >= 0 && !plainLocations(m.value(locations), 1, (path) => resolvedAsIs(cwd, path))) return undefined;
  const src: Obj = { sessionUpdate: tagIsToolCall ? "tool_call" : "tool_call_update" };
  if (titleText !== undefined) src.title = titleText;
  if (kindText !== undefined) src.kind = kindText;
  if (list !== undefined) src.content = list;
  let converted: unknown[] | undefined;
  if (!asItIs) {
    // The status says whether an edit is still to come (`diffStage`); `toolCallMembers` proved it a string.
    if (at.status >= 0) src.status = m.text(at.status);
    const r = toolContentToV2(list as unknown[], conversionContext(s, src, seen, ctx));
    // What the full path drops (and warns of), it takes itself.
    if (!r.ok) return undefined;
    converted = r.value;
  }
  // What the full path does: the boundary (nothing to flush, checked), the echo window, the record.
  boundary(s);
  s.prompts.closeEcho();
  const shown = converted ?? list;
  const emitted: V2ToolCallMessage =
    shown === undefined
      ? { sessionUpdate: "tool_call_update", toolCallId: id }
      : { sessionUpdate: "tool_call_update", toolCallId: id, content: shown };
  rememberTool(s, id, seen, src, [emitted]);
  if (converted !== undefined)
    return m.relaidWith(TOOL_CALL_UPDATE_VALUE, meta, content, Buffer.from(JSON.stringify(converted)));
  const inPlace = m.tagAt === 0 && (meta < 0 || meta === m.count - 1);
  if (!inPlace) return m.relaid(TOOL_CALL_UPDATE_VALUE, meta);
  return tagIsToolCall ? m.spliceTag(TOOL_CALL_UPDATE_TAG) : m.line;
}
