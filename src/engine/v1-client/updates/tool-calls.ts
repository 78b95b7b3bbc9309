// Direction A's tool calls toward the v1 client (T §2.4): the materialized view of each tool call,
// its patches and content chunks rendered as v1 `tool_call`/`tool_call_update`, coalesced bursts.
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { isObject, omit, type Obj, withMembers } from "../../../base/json.js";
import { applyToolCallPatch, ToolCallEntry } from "../state/tool-calls.js";
import { contained } from "../../barrier.js";
import { setMeta, unstash } from "../../../convert/stash.js";
import { newTerminal, terminalToV1Item } from "../../../convert/terminal.js";
import {
  isPermissionPreAnnouncement,
  restoresV1ToolCall,
  restoresV1Update,
  toolCallStatusToV1,
  toolCallToV1,
  toolCallUpdateToV1,
  toolKindToV1,
  type ToolCallToV1Context,
} from "../../../convert/tool-call.js";
import { diffStageOf } from "../../../../mappings/diff.js";
import { diffFiles } from "../../files.js";
import { NOTHING, type Outgoing } from "../../outgoing.js";
import { dropped } from "../../translating.js";
import type { SessionA, TerminalEntry, ToolCallView } from "../session.js";
import { NIL } from "../../slot-table.js";
import { limits } from "../../../../mappings/limits.js";
import { SLOT, keySlot, type ScannedUpdate } from "../../../wire/update-scan.js";
import type { ScannedMembers } from "../../../wire/member-scan.js";
import { plainLocations, plainLocationsAt, textItemsAt, toolCallMembers } from "../../text-content.js";
import { QUOTE } from "../../../wire/bytes.js";
import { type UpdateContext, clientUpdate, isToolCallBody } from "./index.js";
import { conventionMode, outputKey, showing, unshownTerminals } from "./terminals.js";

// ---------------------------------------------------------------- tool calls (T §2.4)

const TERMINAL_STATUSES = new Set(["completed", "failed", "cancelled"]);

function toolContext(s: SessionA, ctx: UpdateContext, extra: Partial<ToolCallToV1Context> = {}): ToolCallToV1Context {
  return {
    opts: ctx.opts,
    diffRendering: ctx.diffRendering,
    // Without an observer nobody reads the losses of a tool call's rendering: a diff skips working them out.
    coarseLosses: ctx.observer === undefined,
    shownContent: ctx.shownContent,
    renderTerminal: (terminalId) =>
      conventionMode(ctx) ? { type: "terminal", terminalId } : terminalToV1Item(terminalFor(s, terminalId), ctx.opts),
    ...extra,
  };
}

/**
 * The current text of the files named by the diffs about to be rendered, and what the status says of
 * them; nothing for content the session rendered as it is (`ShownContents`: shown again as it was).
 */
function diffContext(t: ToolCallView, u: v2.ToolCallUpdate, ctx: UpdateContext): Partial<ToolCallToV1Context> {
  const content: unknown = Array.isArray(u.content) ? u.content : t.announced ? undefined : t.view.content;
  if (Array.isArray(content) && ctx.shownContent?.recall(content) !== undefined) return {};
  const files = diffFiles(content, 2, ctx.diffFileMaxBytes ?? 0, undefined, ctx.observer);
  return files ? { files, diffStage: diffStageOf(t.view.status) } : {};
}

export function terminalFor(s: SessionA, terminalId: string): TerminalEntry {
  let t = s.terminals.get(terminalId);
  if (!t) {
    // Members written out: a spread followed by more members costs V8 a new hidden class per object.
    const fresh = newTerminal(terminalId);
    t = { terminalId: fresh.terminalId, bytes: fresh.bytes, room: undefined, refs: new Set(), flushTimer: undefined };
    s.terminals.set(terminalId, t);
  }
  return t;
}

export function referencedTerminals(content: unknown): string[] {
  if (!Array.isArray(content)) return [];
  const ids: string[] = [];
  for (const item of content)
    if (isObject(item) && item.type === "terminal" && typeof item.terminalId === "string") ids.push(item.terminalId);
  return ids;
}

function trackTerminalRefs(s: SessionA, toolCallId: string, content: unknown): void {
  if (!Array.isArray(content)) return;
  for (const id of referencedTerminals(content)) terminalFor(s, id).refs.add(toolCallId);
}

/**
 * The entry for a tool call the agent reports itself. One the bridge invented for a permission
 * (T §4 A↓-2) is replaced: the real one is announced with a full v1 tool_call, and the bridge stops
 * finalizing it.
 */
export function claimed(s: SessionA, toolCallId: string): ToolCallView {
  const t = toolEntry(s, toolCallId);
  if (t.synthetic) {
    t.synthetic = false;
    t.announced = false;
    t.view = { toolCallId };
  }
  return t;
}

function toolEntry(s: SessionA, toolCallId: string): ToolCallView {
  let t = s.toolCalls.get(toolCallId);
  if (!t) {
    t = new ToolCallEntry({ toolCallId }, false);
    s.toolCalls.set(toolCallId, t);
  }
  return t;
}

/**
 * What is pending for a tool call (coalesced content chunks), to go before anything else about it.
 * It carries the chunks' own notification `_meta`, never that of the notification that flushes them.
 */
export function flushToolCall(s: SessionA, t: ToolCallView, ctx: UpdateContext): readonly Outgoing[] {
  if (t.flushTimer) clearTimeout(t.flushTimer);
  t.flushTimer = undefined;
  s.pendingTools.delete(t);
  if (t.pendingChunks.length === 0) return NOTHING;
  const chunks = t.pendingChunks;
  t.pendingChunks = [];
  const meta = t.pendingMeta;
  t.pendingMeta = undefined;
  const body = t.announced ? { toolCallId: t.view.toolCallId, content: t.view.content } : t.view;
  return emitToolCall(s, t, body, ctx, meta, { chunks });
}

/** The v1 rendering of a tool call's change `u`; `meta` is the notification `_meta` it carries. */
export function emitToolCall(
  s: SessionA,
  t: ToolCallView,
  u: Obj,
  ctx: UpdateContext,
  meta: unknown,
  extra: Partial<ToolCallToV1Context> = {},
  /** The whole first sighting as the agent sent it (its nulls too), when the view holds nothing else. */
  creation?: Obj,
): readonly Outgoing[] {
  const view = t.view;
  if (!isToolCallBody(u) || !isToolCallBody(view)) return NOTHING;
  const context = toolContext(s, ctx, withMembers(diffContext(t, u, ctx), extra));
  // A terminal the client has not been shown needs `terminal_info` (T §2.5); a client of the
  // convention reads it on a v1 `tool_call` only, which it gets again for that.
  const unshown = outputKey(ctx) !== undefined ? unshownTerminals(s, t) : [];
  if (unshown.length > 0 && t.announced && conventionMode(ctx)) {
    const r = toolCallToV1(view, context);
    if (dropped(r, ctx, "tool_call_update", view)) return NOTHING;
    return showing(s, view.toolCallId, ctx, { sessionUpdate: "tool_call", ...r.value }, unshown, meta);
  }
  if (!t.announced && restoresV1Update(u)) {
    // A chained B's v1 agent updated a tool call it never announced: the same update goes on.
    const r = toolCallUpdateToV1(u, context);
    if (dropped(r, ctx, "tool_call_update", u)) return NOTHING;
    t.announced = true;
    t.synthetic = false;
    return [clientUpdate(s.sessionId, { sessionUpdate: "tool_call_update", ...r.value }, meta)];
  }
  if (!t.announced || restoresV1ToolCall(u)) {
    // First sighting (or a chained bridge restoring a re-sent v1 tool_call): a v1 `tool_call`.
    const first = creation !== undefined && isToolCallBody(creation) ? creation : view;
    const src = restoresV1ToolCall(u) || t.announced ? u : first;
    const r = restoresV1ToolCall(u) ? toolCallUpdateToV1(u, context) : toolCallToV1(src, context);
    if (dropped(r, ctx, "tool_call_update", src)) return NOTHING;
    t.announced = true;
    t.synthetic = false;
    return showing(s, view.toolCallId, ctx, { sessionUpdate: "tool_call", ...r.value }, unshown, meta);
  }
  const r = toolCallUpdateToV1(u, context);
  if (dropped(r, ctx, "tool_call_update", u)) return NOTHING;
  return showing(s, view.toolCallId, ctx, { sessionUpdate: "tool_call_update", ...r.value }, unshown, meta);
}

export function toolCallUpdate(s: SessionA, u: Obj, ctx: UpdateContext, meta: unknown): readonly Outgoing[] {
  const id = u.toolCallId;
  if (typeof id !== "string") {
    ctx.log.warn("dropped a tool_call_update without a toolCallId");
    return NOTHING;
  }
  const t = claimed(s, id);
  const flushed = flushToolCall(s, t, ctx);
  const patch: Obj = omit(u, "sessionUpdate");
  if (!t.announced && isPermissionPreAnnouncement(patch)) {
    // A chained B announced a v1 permission's tool call the v1 agent never did: known, not shown.
    const { meta: own } = unstash(patch._meta, 1);
    setMeta(patch, own);
    applyToolCallPatch(t.view, patch);
    return flushed;
  }
  // Nothing known of it yet: the patch itself is the first sighting, nulls included (the view drops
  // them), so a chained B gives its client the very update the agent sent.
  const fresh = !t.announced && Object.keys(t.view).length === 1;
  const repeats = repeatsContent(t, patch, ctx);
  applyToolCallPatch(t.view, patch);
  trackTerminalRefs(s, id, t.view.content);
  const rendered = repeats ? withMembers(patch, { content: t.view.content }) : patch;
  const emitted = emitToolCall(s, t, rendered, ctx, meta, {}, fresh ? patch : undefined);
  if (typeof t.view.status === "string" && TERMINAL_STATUSES.has(t.view.status)) {
    // Finished: keep it (a late update still renders), but let the LRU forget it first.
    s.toolCalls.retire(id);
  }
  return flushed.length === 0 ? emitted : [...flushed, ...emitted];
}

/** The content a tool call has, if any. */
function hasContent(t: ToolCallView): boolean {
  return Array.isArray(t.view.content) && t.view.content.length > 0;
}

/**
 * Some v1 clients read a finished tool's result from its completing `tool_call_update` (`rawOutput`,
 * else `content`), which v1 agents fill: a v2 completion (to a status v1 shows as finished) that
 * carries neither repeats the content the tool call has, on an update that could only be a
 * `tool_call_update`. Not toward a bridge, nor from one: there a v1 agent sent the completion.
 */
function repeatsContent(t: ToolCallView, patch: Obj, ctx: UpdateContext): boolean {
  return (
    t.announced &&
    !ctx.flags.bridgePeer &&
    ctx.agentBridge !== true &&
    typeof patch.status === "string" &&
    TERMINAL_STATUSES.has(patch.status) &&
    !Object.hasOwn(patch, "rawOutput") &&
    !Object.hasOwn(patch, "content") &&
    hasContent(t)
  );
}

/**
 * The tool call `id` a fast path may update: its slot (NIL: not seen) and full entry (none for a
 * compact one, which is announced, not synthetic, without content or anything pending); undefined
 * when the full path must take it: a client terminal to show on it or one waiting for its call
 * (H §6.5), or a call not announced, synthetic, or with chunks pending.
 */
function fastTarget(s: SessionA, id: string): { slot: number; known: ToolCallView | undefined } | undefined {
  const editor = s.editorTerminals;
  if (!editor.empty && (editor.unmatched.length > 0 || editor.byToolCall.peek(id) !== undefined)) return undefined;
  const slot = s.toolCalls.find(id);
  const known = slot === NIL ? undefined : s.toolCalls.fullEntry(slot);
  if (known !== undefined && (!known.announced || known.synthetic)) return undefined;
  if (known !== undefined && (known.flushTimer !== undefined || known.pendingChunks.length > 0)) return undefined;
  return { slot, known };
}

/**
 * The fast path of `toolCallUpdate`: a `tool_call_update`, tag first, that only sets `status`,
 * `title` or `kind` to values v1 has. Of an announced tool call, v1 gets it unchanged (T §2.4 A↓-2:
 * `toolCallUpdateToV1` copies such fields, and `clientUpdate` writes the tag first): its original
 * bytes. Of an unknown one with a title, it is the first sighting (A↓-1): the same fields as a v1
 * `tool_call`, the tag's value spliced. The view is patched as the full path patches it. Undefined,
 * having changed nothing, for anything else (content, a permission's tool call, a terminal the
 * convention must show).
 */
export function fastToolCallUpdate(s: SessionA, u: ScannedUpdate, ctx: UpdateContext): Buffer | undefined {
  if (u.keys[0] !== "sessionUpdate" || u.keys.includes("messageId") || u.keys.includes("content")) return undefined;
  const id = u.string(SLOT.toolCallId);
  if (id === undefined) return undefined;
  const target = fastTarget(s, id);
  if (target === undefined) return undefined;
  const { slot, known } = target;
  const calls = s.toolCalls;
  if (slot === NIL && !u.keys.includes("title")) return undefined;
  if (known !== undefined && outputKey(ctx) !== undefined && referencedTerminals(known.view.content).length > 0)
    return undefined;
  const patch: Obj = {};
  for (const k of u.keys) {
    if (k === "sessionUpdate" || k === "content") continue;
    const value = u.string(keySlot(k));
    if (value === undefined) return undefined;
    if (k === "status" && toolCallStatusToV1(value).changed) return undefined;
    // A completion of a tool call with content repeats it (`repeatsContent`).
    if (k === "status" && known !== undefined && TERMINAL_STATUSES.has(value) && hasContent(known)) return undefined;
    if (k === "kind" && toolKindToV1(value).changed) return undefined;
    patch[k] = value;
  }
  const compact = known === undefined ? calls.patchCompact(slot, id, patch) : NIL;
  let status: unknown;
  if (compact === NIL) {
    const t = known ?? claimed(s, id);
    applyToolCallPatch(t.view, patch);
    trackTerminalRefs(s, id, t.view.content);
    t.announced = true;
    t.synthetic = false;
    status = t.view.status;
  } else status = calls.statusOf(compact);
  if (typeof status === "string" && TERMINAL_STATUSES.has(status)) calls.retire(id);
  return slot === NIL ? u.splice(SLOT.sessionUpdate, TOOL_CALL_TAG) : u.line;
}

/** The tag of a v1 first sighting, as the bytes spliced in. */
const TOOL_CALL_TAG = Buffer.from("tool_call");
/** The tags as a relaid line's first member has them (`ScannedMembers.relaid`). */
const TOOL_CALL_VALUE = Buffer.from('"tool_call"');
const TOOL_CALL_UPDATE_VALUE = Buffer.from('"tool_call_update"');
/**
 * The fast path of `toolCallUpdate` for a line `scanMembers` proved canonical, with any members v1
 * carries as they are: `rawInput`, `rawOutput`, `locations` of a path and line, `content` of text
 * items, `title` and `name` strings, a `status` and `kind` v1 has, a `_meta` without a stash, fields
 * v2 may add later (copied as the converter copies them). Its v1 form is the update itself, the tag
 * first and `_meta` last (`clientUpdate`, `bodyToV1`), the tag `tool_call` on a first sighting
 * (T §2.4 A↓-1, A↓-2): the line's bytes, relaid when the agent wrote them in another order. The
 * update's text is deferred on the tool call's entry, which applies it as the full path patches the
 * view when the view is first read (`ToolCallEntry`): nothing is parsed here. Undefined, having changed
 * nothing, for anything else: a null (the null table), diff or terminal content, a stash, a
 * permission's or an unannounced tool call, a completion that repeats the content (`repeatsContent`),
 * terminals, anything pending.
 */
export function fastToolCallMembers(s: SessionA, m: ScannedMembers): Buffer | undefined {
  // v2's null resets a field (the null table's business, `bodyToV1`); v1 has no `capabilities`.
  const at = toolCallMembers(m);
  if (at === undefined) return undefined;
  const meta = at.meta;
  const id = at.id < 0 ? undefined : m.text(at.id);
  if (id === undefined) return undefined;
  const target = fastTarget(s, id);
  if (target === undefined) return undefined;
  const { slot, known } = target;
  // A view with deferred patches references no terminal (`ToolCallEntry.deferring`).
  if (known !== undefined && !known.deferring && referencedTerminals(known.view.content).length > 0) return undefined;
  // `checkToolCallShape`, on the bytes: strings where v1 has them (`toolCallMembers` proved `name`
  // and `status` strings, and no member null), values v1 has as they are (nothing stashed).
  if (at.title >= 0 && !m.startsWith(at.title, QUOTE)) return undefined;
  // A first sighting without a title gets one invented (and stashed).
  if (slot === NIL && at.title < 0) return undefined;
  const status = at.status < 0 ? undefined : m.text(at.status);
  if (status !== undefined && toolCallStatusToV1(status).changed) return undefined;
  if (at.kind >= 0) {
    const kind = m.text(at.kind);
    if (kind === undefined || toolKindToV1(kind).changed) return undefined;
  }
  const content = at.content >= 0;
  if (content && !textItemsAt(m, at.content)) return undefined;
  // `locToV1` copies a path and a line as they are.
  const loc = at.locations;
  if (loc >= 0 && !plainLocationsAt(m, loc, 0) && !plainLocations(m.value(loc), 0, () => true)) return undefined;
  // A completion without a result, of a tool call with content, repeats it (`repeatsContent`).
  const ending = status !== undefined && TERMINAL_STATUSES.has(status);
  if (known !== undefined && ending && !content && at.rawOutput < 0 && hasContent(known)) return undefined;
  // As `toolCallUpdate` records it (the update without its tag is the patch), when the view is read:
  // the content it leaves has no terminal to track (text items, or the content it had).
  const t = claimed(s, id);
  t.defer(m.updateText(), status);
  t.announced = true;
  t.synthetic = false;
  const now = t.status;
  if (typeof now === "string" && TERMINAL_STATUSES.has(now)) s.toolCalls.retire(id);
  const inPlace = m.tagAt === 0 && (meta < 0 || meta === m.count - 1);
  if (inPlace) return slot === NIL ? m.spliceTag(TOOL_CALL_TAG) : m.line;
  return m.relaid(slot === NIL ? TOOL_CALL_VALUE : TOOL_CALL_UPDATE_VALUE, meta);
}

/** A raw `tool_call_content_chunk` body: its id and content item are checked here. */
function isContentChunk(x: Obj): x is Obj & v2.ToolCallContentChunk {
  return typeof x.toolCallId === "string" && isObject(x.content);
}

/** The content item that stands for the items a bounded tool call dropped from its head. */
function omittedNote(n: number): v2.ToolCallContent {
  return {
    type: "content",
    content: {
      type: "text",
      text: `[acp-bridge: ${n} earlier output item${n === 1 ? "" : "s"} of this tool call omitted]`,
    },
  };
}

export function toolCallContentChunk(s: SessionA, src: Obj, ctx: UpdateContext, meta: unknown): readonly Outgoing[] {
  if (!isContentChunk(src)) {
    ctx.log.warn("dropped a malformed tool_call_content_chunk");
    return NOTHING;
  }
  const id = src.toolCallId;
  const t = claimed(s, id);
  // A notification with its own `_meta` is emitted alone, so that `_meta` rides on it (H §7.5).
  const own = meta !== undefined && meta !== null;
  const flushed = own ? flushToolCall(s, t, ctx) : NOTHING;
  let content: unknown[] = Array.isArray(t.view.content) ? Array.from<unknown>(t.view.content) : [];
  content.push(src.content);
  // v1 replaces the whole content on each update, so the bridge keeps what it shows: bounded, the
  // oldest items give way to one visible note of how many were omitted (never a silent loss).
  const max = limits.toolCallContent.default;
  if (content.length > max) {
    // Keep `max` items, the note first; an earlier note is among the dropped, not counted.
    const noted = (t.omittedItems ?? 0) > 0 ? 1 : 0;
    const drop = content.length - max + 1;
    t.omittedItems = (t.omittedItems ?? 0) + drop - noted;
    content = [omittedNote(t.omittedItems), ...content.slice(drop)];
  }
  t.view.content = content;
  trackTerminalRefs(s, id, content);
  const chunk = omit(src, "sessionUpdate") as typeof src;
  t.pendingChunks.push(chunk);
  s.pendingTools.add(t);
  if (own) {
    t.pendingMeta = meta;
    return [...flushed, ...flushToolCall(s, t, ctx)];
  }
  // A replay (no window): each chunk is shown as it comes.
  if (ctx.flushMs === 0) return flushToolCall(s, t, ctx);
  // v1 resends whole arrays: coalesce bursts so N chunks do not cost O(N²) bytes.
  t.flushTimer ??= setTimeout(
    contained(ctx.log, "a tool call's flush", () => ctx.write(flushToolCall(s, t, ctx))),
    ctx.flushMs,
  );
  return NOTHING;
}

/** Every tool call's coalesced chunks, but those of `except` (whose burst goes on). */
export function flushPendingTools(s: SessionA, ctx: UpdateContext, except: unknown): Outgoing[] {
  const out: Outgoing[] = [];
  for (const t of [...s.pendingTools]) if (t.view.toolCallId !== except) out.push(...flushToolCall(s, t, ctx));
  return out;
}

/** An announced tool call's whole content again (v1 replaces it): to show a client terminal added to it (H §6.5). */
export function reshowToolCall(s: SessionA, toolCallId: string, ctx: UpdateContext): readonly Outgoing[] {
  const t = s.toolCalls.peek(toolCallId);
  if (t === undefined || !t.announced) return NOTHING;
  const content: unknown = Array.isArray(t.view.content) ? t.view.content : [];
  // Pending chunks go out with the whole content anyway (and the terminal with it).
  const flushed = flushToolCall(s, t, ctx);
  return flushed.length > 0 ? flushed : emitToolCall(s, t, { toolCallId, content }, ctx, undefined);
}

/** A tool call the v1 client has (for permission requests). */
export function isAnnounced(s: SessionA, toolCallId: string): boolean {
  return s.toolCalls.peek(toolCallId)?.announced ?? false;
}

export function markAnnounced(s: SessionA, toolCallId: string, patch: Obj, synthetic: boolean): void {
  const t = toolEntry(s, toolCallId);
  applyToolCallPatch(t.view, patch);
  t.announced = true;
  t.synthetic = synthetic;
}
