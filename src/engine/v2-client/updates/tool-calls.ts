// Direction B's tool calls toward the v2 client (T §2.4 B↓): each v1 `tool_call`/`tool_call_update`
// translated against what the session has seen of it, and the fast path's string-only update.
import { isObject, type Obj } from "../../../base/json.js";
import {
  isPermissionAnnouncement,
  toolCallMessageToV2,
  type V1ToolCallMessage,
  type V2ToolCallMessage,
} from "../../../convert/tool-call.js";
import type { FileTexts } from "../../../convert/diff.js";
import { diffStageOf } from "../../../../mappings/diff.js";
import { diffFiles } from "../../files.js";
import { NOTHING, type Outgoing } from "../../outgoing.js";
import { dropped } from "../../translating.js";
import type { SessionB, ToolSeen } from "../session.js";
import type { ScannedUpdate } from "../../../wire/update-scan.js";
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
  const id = u.string("toolCallId");
  if (id === undefined) return false;
  const title = u.keys.includes("title") ? u.string("title") : undefined;
  const kind = u.keys.includes("kind") ? u.string("kind") : undefined;
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
  const r = toolCallMessageToV2(m, {
    opts: ctx.opts,
    seen: seen !== undefined,
    extensionTerminals: s.terminals,
    ...(typeof s.params.cwd === "string" ? { cwd: s.params.cwd } : {}),
    toolKind: typeof src.kind === "string" ? src.kind : seen?.kind,
    lastContent: seen?.lastContent,
    files: diffFilesOfV1(src, s, ctx),
    // A v1 tool_call without a status is pending (the v1 default); an update without one tells nothing.
    diffStage: diffStageOf(src.status ?? (src.sessionUpdate === "tool_call" ? "pending" : undefined)),
  });
  if (dropped(r, ctx, String(src.sessionUpdate), src)) return out;
  // A chained A's announcement for a permission subject emits nothing, yet the tool is known.
  const known = r.value.length > 0 || isPermissionAnnouncement(m);
  if (known) rememberTool(s, id, seen, src, r.value);
  return [...out, ...updatesOf(s, r.value, meta)];
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
