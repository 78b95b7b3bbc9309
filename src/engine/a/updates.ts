// Direction A, agent → client: every v2 `session/update` variant rendered for a v1 client (T §2),
// with the state each needs (message ids, tool calls, terminals, plans, config, cost). Each function
// returns what the client gets, in order (engine/outgoing.ts); the notification `_meta` a message
// carries is an explicit argument. Only coalescing timers write, through the engine core's writer.
import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { availableCommandsToV1 } from "../../convert/command.js";
import { gatedUpdateToV1 } from "../../convert/notice.js";
import { noticeMessageId } from "../../../mappings/message.js";
import { sessionInfoToV1 } from "../../convert/session-info.js";
import { isObject, type Obj, setOwn } from "../../base/json.js";
import { contained } from "../barrier.js";
import { chunkToV1, plainTextChunkState, upsertToV1Chunks, type MessageKind } from "../../convert/message.js";
import { configOptionUpdateToV1Updates } from "../../convert/mode.js";
import { applyPlanUpdate, planUpdateToV1Native, plansToV1 } from "../../convert/plan.js";
import { setMeta, unstash, type ConvertOptions } from "../../convert/stash.js";
import {
  appendOutput,
  decodeBase64,
  newTerminal,
  replaceOutput,
  snapshotToAppend,
  TERMINAL_RESET,
  terminalExitMeta,
  terminalInfoMeta,
  terminalOutputMeta,
  terminalToV1Item,
} from "../../convert/terminal.js";
import {
  isPermissionPreAnnouncement,
  restoresV1ToolCall,
  restoresV1Update,
  toolCallStatusToV1,
  toolCallToV1,
  toolCallUpdateToV1,
  toolKindToV1,
  type ToolCallToV1Context,
} from "../../convert/tool-call.js";
import { usageToV1 } from "../../convert/usage.js";
import type { DiffRendering } from "../../convert/diff-options.js";
import { diffStageOf } from "../../../mappings/diff.js";
import { diffFiles } from "../files.js";
import { BRIDGE_METHOD_PREFIX } from "../../../mappings/methods.js";
import type { Logger } from "../../log.js";
import { NOTHING, notify, raw, type Outgoing } from "../outgoing.js";
import { dropped } from "../translating.js";
import type { SessionA, TerminalEntry, ToolCallView } from "./session.js";
import { keepNewest } from "../bounded.js";
import { NIL } from "../slot-table.js";
import { limits } from "../../../mappings/limits.js";
import type { ScannedUpdate } from "../../wire/update-scan.js";
import { fastChunkKind, TEXT, TOOL_CALL_UPDATE } from "../fast-lines.js";

export const DEFAULT_FLUSH_MS = 50;
export const DEFAULT_TERMINAL_FLUSH_MS = 100;

/** What the v1 client advertised that changes how updates are rendered (T §7.1). */
export interface ClientFlags {
  readonly booleanOptions: boolean;
  readonly notices: boolean;
  readonly compaction: boolean;
  /** The client advertised the unstable `plan` capability: plans go natively (T §2.6). */
  readonly plan: boolean;
  /** The client is another acp-bridge (B side): use the ext channel of T §5.5. */
  readonly bridgePeer: boolean;
  /** The client renders the `_meta` terminal convention (`_meta.terminal_output`, T §2.5). */
  readonly terminalOutput?: boolean;
}

export interface UpdateContext {
  readonly opts: ConvertOptions;
  readonly flags: ClientFlags;
  /**
   * The agent is a B bridge: what it sends is a v1 agent's, restored for the client as that agent
   * sent it, with nothing a v1 agent's v2 build would add (a chain's far ends see each other's bytes).
   */
  readonly agentBridge?: boolean;
  readonly log: Logger;
  readonly diffRendering: DiffRendering;
  /** Largest file read for a diff's exact texts (0 or absent: none, e.g. for renderings that read none). */
  readonly diffFileMaxBytes?: number;
  readonly redactionNotice: boolean;
  readonly flushMs: number;
  readonly terminalFlushMs: number;
  readonly terminalMaxBytes: number;
  /**
   * The engine core's writer (TranslatingMode.write), for what a coalescing timer flushes: every
   * other emission is returned to the caller.
   */
  readonly write: (out: readonly Outgoing[]) => void;
}

const MESSAGE_KINDS: Record<string, { kind: MessageKind; whole: boolean }> = {
  user_message_chunk: { kind: "user", whole: false },
  agent_message_chunk: { kind: "agent", whole: false },
  agent_thought_chunk: { kind: "thought", whole: false },
  user_message: { kind: "user", whole: true },
  agent_message: { kind: "agent", whole: true },
  agent_thought: { kind: "thought", whole: true },
};

/** The original line of a notification and its parsed message (to forward it untouched). */
export interface Original {
  readonly line: Buffer;
  readonly msg: object;
}

/**
 * A v1 `session/update` for the client. `meta` is the notification-level `_meta` of the v2
 * notification it renders (H §7.5), absent for what the bridge emits on its own (flushes, finals).
 */
export function clientUpdate(sessionId: string, update: object, meta?: unknown): Outgoing {
  const params: Obj = { sessionId, update };
  if (meta !== undefined && meta !== null) params._meta = meta;
  return notify("client", "session/update", params);
}

/** Bridge peers only: a v2 update that has no v1 form, on the ext channel (T §5.5). */
function extUpdate(sessionId: string, update: unknown): Outgoing {
  return notify("client", `${BRIDGE_METHOD_PREFIX}session_update`, { sessionId, update });
}

/** A v2 update variant by its tag. */
type V2Update<T extends string> = Extract<v2.SessionUpdate, { sessionUpdate: T }>;

/** A raw update of one of the variants `tags`: the tag is checked here, the rest by its converter. */
function isUpdate<T extends string>(update: Obj, ...tags: T[]): update is Obj & V2Update<T> {
  return tags.some((t) => t === update.sessionUpdate);
}

/** A string, `null` or absent: what both versions take for `session_info_update`'s fields. */
function isTextOrNull(x: unknown): boolean {
  return x === undefined || x === null || typeof x === "string";
}

/** A raw tool-call body (patch or view): its id is checked here, the rest by the converters. */
function isToolCallBody(x: unknown): x is v2.ToolCallUpdate {
  return isObject(x) && typeof x.toolCallId === "string";
}

/**
 * The fast path's share of `updateToV1` (engine/fast-lines.ts), for an update the scan proved: a
 * plain text chunk of an agent message or thought (the bulk of a stream), or a string-only tool call
 * update (`fastToolCallUpdate`), with no tool call's content waiting to be flushed before it.
 * Returns the bytes the client gets, having recorded the update exactly as the full path records
 * it; undefined, having changed nothing, and the full path takes it.
 */
export function fastUpdateToV1(s: SessionA, u: ScannedUpdate, ctx: UpdateContext): Buffer | undefined {
  if (s.pendingTools.size > 0) return undefined;
  // Tags compared as bytes: nothing decoded for the test.
  if (u.is("sessionUpdate", TOOL_CALL_UPDATE)) return fastToolCallUpdate(s, u, ctx);
  const kind = fastChunkKind(u);
  if (kind === undefined || u.keys.length !== 3 || u.contentKeys.length !== 2 || !u.is("content.type", TEXT))
    return undefined;
  const id = u.string("messageId");
  const text = u.string("content.text");
  if (id === undefined || text === undefined || !takePlainChunk(s, kind, id, text)) return undefined;
  return u.line;
}

/** The message variant a tag names (an own key only: `toString` is no variant). */
function messageKind(tag: string | undefined): { kind: MessageKind; whole: boolean } | undefined {
  return tag !== undefined && Object.hasOwn(MESSAGE_KINDS, tag) ? MESSAGE_KINDS[tag] : undefined;
}

/**
 * One `session/update` notification from the v2 agent: what the client gets for it, in order. The
 * coalesced chunks it flushes first keep their own `_meta`; what renders this notification carries its.
 */
export function updateToV1(
  s: SessionA,
  params: Obj,
  line: Original | undefined,
  ctx: UpdateContext,
): readonly Outgoing[] {
  const update = params.update;
  if (!isObject(update) || typeof update.sessionUpdate !== "string") {
    ctx.log.warn("dropped a session/update without an update variant");
    return NOTHING;
  }
  // Coalescing a tool's content chunks must not move them past anything the agent sent later.
  const flushed =
    s.pendingTools.size > 0
      ? flushPendingTools(s, ctx, update.sessionUpdate === "tool_call_content_chunk" ? update.toolCallId : undefined)
      : NOTHING;
  const rendered = renderUpdate(s, update, update.sessionUpdate, params, line, ctx);
  return flushed.length === 0 ? rendered : [...flushed, ...rendered];
}

function renderUpdate(
  s: SessionA,
  update: Obj,
  tag: string,
  params: Obj,
  line: Original | undefined,
  ctx: UpdateContext,
): readonly Outgoing[] {
  // The notification's own `_meta` (trace context...) rides on whatever it becomes (H §7.5).
  const meta = params._meta;
  const lc = s.lifecycle;
  const message = messageKind(tag);
  if (message) {
    if (message.kind === "user") {
      const id = typeof update.messageId === "string" ? update.messageId : undefined;
      const decision = lc.userMessage(update, id, () => messageToV1(s, update, message, line, ctx, params));
      return decision === "forward" ? messageToV1(s, update, message, line, ctx, params) : NOTHING;
    }
    return messageToV1(s, update, message, line, ctx, params);
  }
  switch (tag) {
    case "state_update": {
      noteBackground(s, update);
      const answered = lc.stateUpdate(update);
      return ctx.flags.bridgePeer ? [...answered, extUpdate(s.sessionId, update)] : answered;
    }
    case "tool_call_update":
      return toolCallUpdate(s, update, ctx, meta);
    case "tool_call_content_chunk":
      return toolCallContentChunk(s, update, ctx, meta);
    case "terminal_update":
    case "terminal_output_chunk": {
      const out = terminalUpdate(s, update, ctx, meta);
      return ctx.flags.bridgePeer ? [...out, extUpdate(s.sessionId, update)] : out;
    }
    case "plan_update": {
      if (!isUpdate(update, "plan_update")) return NOTHING;
      if (ctx.flags.plan) {
        const native = planUpdateToV1Native(update, ctx.opts);
        if (dropped(native, ctx.log, "plan_update")) return NOTHING;
        return [clientUpdate(s.sessionId, { ...native.value, sessionUpdate: "plan_update" }, meta)];
      }
      const next = applyPlanUpdate(s.plans, update);
      if (dropped(next, ctx.log, "plan_update")) return NOTHING;
      // Plan ids are the agent's: the oldest plans go beyond the bound (mappings/limits.ts).
      s.plans = keepNewest(next.value, limits.plans.default);
      const plan = plansToV1(s.plans, update, ctx.opts);
      if (dropped(plan, ctx.log, "plan_update")) return NOTHING;
      return [clientUpdate(s.sessionId, { sessionUpdate: "plan", ...plan.value }, meta)];
    }
    case "available_commands_update": {
      if (!isUpdate(update, "available_commands_update")) return NOTHING;
      const r = availableCommandsToV1(update, ctx.opts);
      if (dropped(r, ctx.log, "available_commands_update")) return NOTHING;
      return [clientUpdate(s.sessionId, { ...r.value, sessionUpdate: "available_commands_update" }, meta)];
    }
    case "config_option_update": {
      const r = configOptionUpdateToV1Updates(
        update,
        s.configOptions,
        { booleanOptions: ctx.flags.booleanOptions },
        ctx.opts,
      );
      if (dropped(r, ctx.log, "config_option_update")) return NOTHING;
      s.configOptions = update.configOptions;
      if (r.value.modesChanged)
        ctx.log.warnOnce(`modes-${s.sessionId}`, "the agent changed the set of modes: v1 clients cannot be told");
      return r.value.updates.map((u) => clientUpdate(s.sessionId, u, meta));
    }
    case "session_info_update": {
      // Same shape in both versions (T §2.9): the original bytes, unless a chained B stashed something.
      // The original bytes only when the copied fields already have v1's types (constant-time check).
      if (line && !isObject(update._meta) && isTextOrNull(update.title) && isTextOrNull(update.updatedAt))
        return [raw("client", line.line, line.msg)];
      if (!isUpdate(update, "session_info_update")) return NOTHING;
      const r = sessionInfoToV1(update);
      if (dropped(r, ctx.log, "session_info_update")) return NOTHING;
      return [clientUpdate(s.sessionId, r.value, meta)];
    }
    case "usage_update": {
      if (!isUpdate(update, "usage_update")) return NOTHING;
      const r = usageToV1(update, s.lastCost, ctx.opts);
      if (dropped(r, ctx.log, "usage_update")) return NOTHING;
      s.lastCost = r.value.lastCost;
      return [clientUpdate(s.sessionId, r.value.update, meta)];
    }
    case "notice":
    case "compaction_update":
    case "compaction_summary_chunk": {
      // Content blocks inside are converted like any other (T §3.1); the client's opt-ins gate them.
      // A notice the client did not opt into is shown as the agent's own v1 build shows it: a message.
      if (!isUpdate(update, tag)) return NOTHING;
      const fallbackMessageId = tag === "notice" ? noticeMessageId(s.sessionId, s.noticeCount + 1) : undefined;
      const r = gatedUpdateToV1(
        update,
        {
          notices: ctx.flags.notices,
          compaction: ctx.flags.compaction,
          noticeFallback: "agent_message",
          fallbackMessageId,
        },
        ctx.opts,
      );
      if (dropped(r, ctx.log, tag)) return NOTHING;
      if (r.value === null) {
        ctx.log.debug(`dropped ${tag}: the v1 client did not opt into it (session.notices / session.compaction)`);
        return NOTHING;
      }
      if (r.value.sessionUpdate === "agent_message_chunk") s.noticeCount++;
      return [clientUpdate(s.sessionId, r.value, meta)];
    }
    default:
      // An extension or future variant: v1's union is closed (T §2.11).
      if (ctx.flags.bridgePeer) return [extUpdate(s.sessionId, update)];
      ctx.log.warnOnce(`update-${tag}`, `dropped session/update '${tag}': it has no v1 form`);
      return NOTHING;
  }
}

/** A plain text chunk: `{sessionUpdate, messageId, content: {type: "text", text}}`, nothing else. */
function plainText(params: Obj, update: Obj): string | undefined {
  const content = update.content;
  if (!isObject(content) || content.type !== "text" || typeof content.text !== "string") return undefined;
  return keyCount(content) === 2 && keyCount(update) === 3 && keyCount(params) === 2 ? content.text : undefined;
}

/** Own keys of a parsed JSON object, without allocating an array (hot path). */
function keyCount(o: Obj): number {
  let n = 0;
  for (const k in o) if (Object.hasOwn(o, k)) n++;
  return n;
}

/** The kind the message id `id` was first seen with (recorded now if this is its first sighting). */
function firstKindOf(s: SessionA, id: string, kind: MessageKind): MessageKind {
  const first = s.idKind.get(id);
  if (first !== undefined) return first;
  s.idKind.set(id, kind);
  return kind;
}

/**
 * A chunk of plain text (`{type:"text",text}` content, no other member, no `_meta`) that v1 shows
 * unchanged: recorded as shown and true, and its original bytes go to the client. False when it
 * needs rendering, and nothing changed but the id's first kind (recorded as the full path would).
 * The full path and the fast path (`fastUpdateToV1`) both take chunks through here.
 */
function takePlainChunk(s: SessionA, kind: MessageKind, id: string, text: string): boolean {
  const firstKind = firstKindOf(s, id, kind);
  if (firstKind === kind && s.sent.appendText(kind, id, text)) return true;
  const next = plainTextChunkState(id, text, s.sent.get(kind, id), { kind, firstKind });
  if (!next) return false;
  s.sent.set(kind, id, next);
  return true;
}

function messageToV1(
  s: SessionA,
  update: Obj,
  message: { kind: MessageKind; whole: boolean },
  original: Original | undefined,
  ctx: UpdateContext,
  params: Obj,
): readonly Outgoing[] {
  const id = update.messageId;
  if (typeof id !== "string") {
    ctx.log.warn("dropped a message update without a messageId");
    return NOTHING;
  }
  // The bulk of the traffic: a plain text chunk v1 sees unchanged goes out as the very bytes that
  // came in, no serialization (docs/decisions.md#performance-budget).
  const text = !message.whole && original ? plainText(params, update) : undefined;
  if (text !== undefined && original && takePlainChunk(s, message.kind, id, text))
    return [raw("client", original.line, original.msg)];
  const firstKind = firstKindOf(s, id, message.kind);
  const sent = s.sent.get(message.kind, id);
  const meta = params._meta;
  if (message.whole) {
    if (!isUpdate(update, "user_message", "agent_message", "agent_thought")) return NOTHING;
    const r = upsertToV1Chunks(
      update,
      sent,
      { kind: message.kind, firstKind, redactionNotice: ctx.redactionNotice },
      ctx.opts,
    );
    if (dropped(r, ctx.log, update.sessionUpdate)) return NOTHING;
    s.sent.set(message.kind, id, r.value.sent);
    return r.value.chunks.map((c) => clientUpdate(s.sessionId, c, meta));
  }
  if (!isUpdate(update, "user_message_chunk", "agent_message_chunk", "agent_thought_chunk")) return NOTHING;
  const r = chunkToV1(update, sent, { kind: message.kind, firstKind }, ctx.opts);
  if (dropped(r, ctx.log, update.sessionUpdate)) return NOTHING;
  s.sent.set(message.kind, id, r.value.sent);
  return [clientUpdate(s.sessionId, r.value.update, meta)];
}

// ---------------------------------------------------------------- tool calls (T §2.4)

const TERMINAL_STATUSES = new Set(["completed", "failed", "cancelled"]);

function toolContext(s: SessionA, ctx: UpdateContext, extra: Partial<ToolCallToV1Context> = {}): ToolCallToV1Context {
  return {
    opts: ctx.opts,
    diffRendering: ctx.diffRendering,
    renderTerminal: (terminalId) =>
      conventionMode(ctx) ? { type: "terminal", terminalId } : terminalToV1Item(terminalFor(s, terminalId), ctx.opts),
    ...extra,
  };
}

/** The current text of the files named by the diffs about to be rendered, and what the status says of them. */
function diffContext(t: ToolCallView, u: v2.ToolCallUpdate, ctx: UpdateContext): Partial<ToolCallToV1Context> {
  const content: unknown = Array.isArray(u.content) ? u.content : t.announced ? undefined : t.view.content;
  const files = diffFiles(content, 2, ctx.diffFileMaxBytes ?? 0);
  return files ? { files, diffStage: diffStageOf(t.view.status) } : {};
}

function terminalFor(s: SessionA, terminalId: string): TerminalEntry {
  let t = s.terminals.get(terminalId);
  if (!t) {
    t = { ...newTerminal(terminalId), refs: new Set(), flushTimer: undefined };
    s.terminals.set(terminalId, t);
  }
  return t;
}

/** Apply a v2 tool-call patch to the materialized view (omit = unchanged, null = reset, T §2.4). */
function applyToolCallPatch(view: Obj, patch: Obj): void {
  // Own keys in `Object.entries` order, without building the entries (once per tool call update).
  for (const k in patch) {
    if (!Object.hasOwn(patch, k) || k === "sessionUpdate") continue;
    const v = patch[k];
    if (k === "_meta") {
      if (v === null) delete view._meta;
      else if (isObject(v)) {
        const meta: Obj = isObject(view._meta) ? { ...view._meta } : {};
        for (const [mk, mv] of Object.entries(v)) {
          if (mv === null) Reflect.deleteProperty(meta, mk);
          else setOwn(meta, mk, mv);
        }
        view._meta = meta;
      }
      continue;
    }
    if (v === null) Reflect.deleteProperty(view, k);
    else view[k] = v;
  }
}

function referencedTerminals(content: unknown): string[] {
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
    t = {
      view: { toolCallId },
      announced: false,
      synthetic: false,
      pendingChunks: [],
      pendingMeta: undefined,
      flushTimer: undefined,
    };
    s.toolCalls.set(toolCallId, t);
  }
  return t;
}

/**
 * What is pending for a tool call (coalesced content chunks), to go before anything else about it.
 * It carries the chunks' own notification `_meta`, never that of the notification that flushes them.
 */
function flushToolCall(s: SessionA, t: ToolCallView, ctx: UpdateContext): readonly Outgoing[] {
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
function emitToolCall(
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
  const context = toolContext(s, ctx, { ...diffContext(t, u, ctx), ...extra });
  // A terminal the client has not been shown needs `terminal_info` (T §2.5); a client of the
  // convention reads it on a v1 `tool_call` only, which it gets again for that.
  const unshown = outputKey(ctx) !== undefined ? unshownTerminals(s, t) : [];
  if (unshown.length > 0 && t.announced && conventionMode(ctx)) {
    const r = toolCallToV1(view, context);
    if (dropped(r, ctx.log, "tool_call_update")) return NOTHING;
    return showing(s, view.toolCallId, ctx, { sessionUpdate: "tool_call", ...r.value }, unshown, meta);
  }
  if (!t.announced && restoresV1Update(u)) {
    // A chained B's v1 agent updated a tool call it never announced: the same update goes on.
    const r = toolCallUpdateToV1(u, context);
    if (dropped(r, ctx.log, "tool_call_update")) return NOTHING;
    t.announced = true;
    t.synthetic = false;
    return [clientUpdate(s.sessionId, { sessionUpdate: "tool_call_update", ...r.value }, meta)];
  }
  if (!t.announced || restoresV1ToolCall(u)) {
    // First sighting (or a chained bridge restoring a re-sent v1 tool_call): a v1 `tool_call`.
    const first = creation !== undefined && isToolCallBody(creation) ? creation : view;
    const r = restoresV1ToolCall(u) ? toolCallUpdateToV1(u, context) : toolCallToV1(t.announced ? u : first, context);
    if (dropped(r, ctx.log, "tool_call_update")) return NOTHING;
    t.announced = true;
    t.synthetic = false;
    return showing(s, view.toolCallId, ctx, { sessionUpdate: "tool_call", ...r.value }, unshown, meta);
  }
  const r = toolCallUpdateToV1(u, context);
  if (dropped(r, ctx.log, "tool_call_update")) return NOTHING;
  return showing(s, view.toolCallId, ctx, { sessionUpdate: "tool_call_update", ...r.value }, unshown, meta);
}

function toolCallUpdate(s: SessionA, u: Obj, ctx: UpdateContext, meta: unknown): readonly Outgoing[] {
  const id = u.toolCallId;
  if (typeof id !== "string") {
    ctx.log.warn("dropped a tool_call_update without a toolCallId");
    return NOTHING;
  }
  const t = claimed(s, id);
  const flushed = flushToolCall(s, t, ctx);
  const patch: Obj = { ...u };
  delete patch.sessionUpdate;
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
  const rendered = repeats ? { ...patch, content: t.view.content } : patch;
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
 * The fast path of `toolCallUpdate`: a `tool_call_update`, tag first, that only sets `status`,
 * `title` or `kind` to values v1 has. Of an announced tool call, v1 gets it unchanged (T §2.4 A↓-2:
 * `toolCallUpdateToV1` copies such fields, and `clientUpdate` writes the tag first): its original
 * bytes. Of an unknown one with a title, it is the first sighting (A↓-1): the same fields as a v1
 * `tool_call`, the tag's value spliced. The view is patched as the full path patches it. Undefined,
 * having changed nothing, for anything else (content, a permission's tool call, a terminal the
 * convention must show).
 */
function fastToolCallUpdate(s: SessionA, u: ScannedUpdate, ctx: UpdateContext): Buffer | undefined {
  if (u.keys[0] !== "sessionUpdate" || u.keys.includes("messageId") || u.keys.includes("content")) return undefined;
  const id = u.string("toolCallId");
  if (id === undefined) return undefined;
  const calls = s.toolCalls;
  const slot = calls.find(id);
  // A compact entry is announced, not synthetic, without content or anything pending.
  const known = slot === NIL ? undefined : calls.fullEntry(slot);
  if (slot === NIL && !u.keys.includes("title")) return undefined;
  if (known !== undefined && (!known.announced || known.synthetic)) return undefined;
  if (known !== undefined && (known.flushTimer !== undefined || known.pendingChunks.length > 0)) return undefined;
  if (known !== undefined && outputKey(ctx) !== undefined && referencedTerminals(known.view.content).length > 0)
    return undefined;
  const patch: Obj = {};
  for (const k of u.keys) {
    if (k === "sessionUpdate" || k === "content") continue;
    const value = u.string(k);
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
  return slot === NIL ? u.splice("sessionUpdate", TOOL_CALL_TAG) : u.line;
}

/** The tag of a v1 first sighting, as the bytes spliced in. */
const TOOL_CALL_TAG = Buffer.from("tool_call");

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

function toolCallContentChunk(s: SessionA, src: Obj, ctx: UpdateContext, meta: unknown): readonly Outgoing[] {
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
  const chunk = { ...src };
  delete chunk.sessionUpdate;
  t.pendingChunks.push(chunk);
  s.pendingTools.add(t);
  if (own) {
    t.pendingMeta = meta;
    return [...flushed, ...flushToolCall(s, t, ctx)];
  }
  // v1 resends whole arrays: coalesce bursts so N chunks do not cost O(N²) bytes.
  t.flushTimer ??= setTimeout(
    contained(ctx.log, "a tool call's flush", () => ctx.write(flushToolCall(s, t, ctx))),
    ctx.flushMs,
  );
  return NOTHING;
}

// ---------------------------------------------------------------- terminals (T §2.5)

function terminalUpdate(s: SessionA, update: Obj, ctx: UpdateContext, meta: unknown): readonly Outgoing[] {
  const id = update.terminalId;
  if (typeof id !== "string") {
    ctx.log.warn("dropped a terminal update without a terminalId");
    return NOTHING;
  }
  const t = terminalFor(s, id);
  const change = applyTerminalUpdate(t, update, ctx);
  const key = outputKey(ctx);
  // What is new on the terminal, through the convention's keys, once the client was shown it.
  const shown = key === undefined ? NOTHING : conventionOutput(s, t, change, key, ctx, meta);
  if (conventionMode(ctx)) return shown;
  const rendered = transcriptUpdate(s, t, update, ctx, meta);
  return shown.length === 0 ? rendered : [...shown, ...rendered];
}

/** The terminal's state after a v2 terminal update, and what a client that only appends is sent for it. */
function applyTerminalUpdate(
  t: TerminalEntry,
  update: Obj,
  ctx: UpdateContext,
): { append: Uint8Array; reset: boolean } {
  const max = ctx.terminalMaxBytes;
  let append: Uint8Array = new Uint8Array(0);
  let reset = false;
  if (update.sessionUpdate === "terminal_output_chunk") {
    const data = decodeBase64(update.data);
    if (data) {
      if (t.bytes.length + data.length > max) t.trimmed = true;
      appendOutput(t, data, max);
      append = data;
    }
  } else {
    if (typeof update.command === "string") t.command = update.command;
    if (typeof update.cwd === "string") t.cwd = update.cwd;
    if (isObject(update.output)) {
      const data = decodeBase64(update.output.data);
      if (data) {
        const next = snapshotToAppend(t.bytes, t.trimmed !== true, data);
        ({ reset, append } = next);
        t.trimmed = data.length > max;
        replaceOutput(t, data, max);
      }
    }
    if (isObject(update.exitStatus)) t.exitStatus = update.exitStatus;
    if (isObject(update.size)) t.size = update.size as TerminalEntry["size"];
  }
  return { append, reset };
}

/** The transcript of a terminal, re-rendered into each tool call showing it (coalesced; an exit at once). */
function transcriptUpdate(
  s: SessionA,
  t: TerminalEntry,
  update: Obj,
  ctx: UpdateContext,
  meta: unknown,
): readonly Outgoing[] {
  if (t.refs.size === 0) return NOTHING; // rendered once a tool call references it
  // Each tool call showing the terminal, re-rendered; a timer's flush carries the `_meta` of the
  // notification that started it.
  const flush = (): readonly Outgoing[] => {
    t.flushTimer = undefined;
    const out: Outgoing[] = [];
    for (const toolCallId of t.refs) {
      const tc = s.toolCalls.peek(toolCallId);
      if (!tc?.announced) continue;
      out.push(...flushToolCall(s, tc, ctx));
      out.push(...emitToolCall(s, tc, { toolCallId, content: tc.view.content }, ctx, meta, { rerender: true }));
    }
    return out;
  };
  // An exit is final: render it now; output is coalesced.
  if (update.exitStatus !== undefined) {
    if (t.flushTimer) clearTimeout(t.flushTimer);
    return flush();
  }
  t.flushTimer ??= setTimeout(
    contained(ctx.log, "a terminal's flush", () => ctx.write(flush())),
    ctx.terminalFlushMs,
  );
  return NOTHING;
}

/** Every tool call's coalesced chunks, but those of `except` (whose burst goes on). */
function flushPendingTools(s: SessionA, ctx: UpdateContext, except: unknown): Outgoing[] {
  const out: Outgoing[] = [];
  for (const t of [...s.pendingTools]) if (t.view.toolCallId !== except) out.push(...flushToolCall(s, t, ctx));
  return out;
}

/** Every coalesced emission of a session, now (before a turn ends, so the order holds). */
export function flushSession(s: SessionA, ctx: UpdateContext): readonly Outgoing[] {
  const out = flushPendingTools(s, ctx, undefined);
  for (const term of s.terminals.values()) {
    if (!term.flushTimer) continue;
    clearTimeout(term.flushTimer);
    term.flushTimer = undefined;
    for (const toolCallId of term.refs) {
      const tc = s.toolCalls.peek(toolCallId);
      if (tc?.announced)
        out.push(...emitToolCall(s, tc, { toolCallId, content: tc.view.content }, ctx, undefined, { rerender: true }));
    }
  }
  return out;
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

// ---------------------------------------------------------------- the `_meta` terminal convention (T §2.5)

/** The client renders the convention; a bridge peer gets the v2 updates on its channel instead. */
function conventionMode(ctx: UpdateContext): boolean {
  return ctx.flags.terminalOutput === true && !ctx.flags.bridgePeer;
}

/**
 * The key the client gets terminal output under, with `terminal_info` and `terminal_exit`: the
 * convention's own for a client of it; for any other, `terminal_output_delta`, as codex-acp's v1
 * build sends it to a client that did not opt in (some read it), alongside the transcript. None
 * toward a bridge peer: the v2 updates go on its channel.
 */
function outputKey(ctx: UpdateContext): "output" | "outputDelta" | undefined {
  if (ctx.flags.bridgePeer) return undefined;
  return ctx.flags.terminalOutput === true ? "output" : "outputDelta";
}

/** Terminals the tool call's content references that the client has no display terminal for yet. */
function unshownTerminals(s: SessionA, t: ToolCallView): TerminalEntry[] {
  const ids = [...new Set(referencedTerminals(t.view.content))];
  return ids.map((id) => terminalFor(s, id)).filter((term) => term.carrier === undefined);
}

/**
 * A v1 `tool_call` (or `tool_call_update`), with `terminal_info` for the first terminal it shows,
 * then what each terminal already has (output retained so far, its exit). One key per message: a
 * client of the convention gets the same tool_call again for each further terminal; any other, which
 * may show a repeated tool_call twice (codex-acp never sends one), an update with just the key.
 */
function showing(
  s: SessionA,
  toolCallId: string,
  ctx: UpdateContext,
  toolCall: Obj,
  unshown: TerminalEntry[],
  meta: unknown,
): readonly Outgoing[] {
  const key = outputKey(ctx);
  if (unshown.length === 0 || key === undefined) return [clientUpdate(s.sessionId, toolCall, meta)];
  const own = isObject(toolCall._meta) ? toolCall._meta : {};
  const out: Outgoing[] = [];
  unshown.forEach((term, i) => {
    term.carrier = toolCallId;
    let msg: Obj;
    if (i === 0 || key === "output") {
      // Items of terminals not announced yet wait for their own tool_call (the client must know each one).
      const content = Array.isArray(toolCall.content)
        ? toolCall.content.filter((c) => !(isObject(c) && c.type === "terminal" && !isShown(s, c.terminalId)))
        : toolCall.content;
      msg = { ...toolCall, _meta: { ...own, ...terminalInfoMeta(term) } };
      if (content !== undefined) msg.content = content;
    } else msg = { sessionUpdate: "tool_call_update", toolCallId, _meta: terminalInfoMeta(term) };
    out.push(clientUpdate(s.sessionId, msg, meta));
    term.decoder = new TextDecoder("utf-8", { fatal: false });
    if (term.trimmed)
      ctx.log.warn(`terminal ${term.terminalId}: output before the last ${term.bytes.length} bytes is not shown`);
    out.push(...conventionUpdate(s, term, term.bytes, false, key, meta));
  });
  return out;
}

/**
 * A terminal in a permission request's tool call: the terminal itself for a client of the convention
 * that has it (the request updates the tool call it shows), else its transcript.
 */
export function permissionTerminalItem(s: SessionA, terminalId: string, ctx: UpdateContext): v1.ToolCallContent {
  if (conventionMode(ctx) && isShown(s, terminalId)) return { type: "terminal", terminalId };
  return terminalToV1Item(s.terminals.peek(terminalId) ?? newTerminal(terminalId), ctx.opts);
}

function isShown(s: SessionA, terminalId: unknown): boolean {
  return typeof terminalId === "string" && s.terminals.peek(terminalId)?.carrier !== undefined;
}

/** One `tool_call_update` on the terminal's carrier: appended text (after a reset) and the exit once. */
function conventionUpdate(
  s: SessionA,
  term: TerminalEntry,
  bytes: Uint8Array,
  reset: boolean,
  key: "output" | "outputDelta",
  meta: unknown,
): readonly Outgoing[] {
  const carrier = term.carrier;
  const decoder = term.decoder;
  if (carrier === undefined || decoder === undefined) return NOTHING;
  const exiting = term.exitStatus !== undefined && term.exitSent !== true;
  let text = reset ? TERMINAL_RESET : "";
  if (bytes.length > 0) text += decoder.decode(bytes, { stream: true });
  // An exit ends the stream: a sequence still split is shown as U+FFFD, never left out.
  if (exiting) text += decoder.decode();
  const own: Obj = {};
  if (text.length > 0) Object.assign(own, terminalOutputMeta(term.terminalId, text, key));
  if (exiting) {
    Object.assign(own, terminalExitMeta(term.terminalId, term.exitStatus));
    term.exitSent = true;
  }
  if (Object.keys(own).length === 0) return NOTHING;
  return [clientUpdate(s.sessionId, { sessionUpdate: "tool_call_update", toolCallId: carrier, _meta: own }, meta)];
}

/** What a v2 terminal update adds to a terminal the client was shown, through the convention's keys. */
function conventionOutput(
  s: SessionA,
  t: TerminalEntry,
  change: { append: Uint8Array; reset: boolean },
  key: "output" | "outputDelta",
  ctx: UpdateContext,
  meta: unknown,
): readonly Outgoing[] {
  if (t.carrier === undefined) return NOTHING; // sent once a tool call shows it
  if (change.reset) {
    ctx.log.warnOnce(
      `terminal-reset-${t.terminalId}`,
      `terminal ${t.terminalId}: a v2 output snapshot replaced the output; the v1 client gets a terminal reset and the snapshot`,
    );
    t.decoder = new TextDecoder("utf-8", { fatal: false });
  }
  return conventionUpdate(s, t, change.append, change.reset, key, meta);
}

/** Record the terminals an idle `state_update` lists as still running in the background. */
function noteBackground(s: SessionA, update: Obj): void {
  if (update.state !== "idle") return;
  const ids = new Set<string>();
  if (Array.isArray(update.background))
    for (const b of update.background)
      if (isObject(b) && b.type === "terminal" && typeof b.terminalId === "string") ids.add(b.terminalId);
  s.backgroundTerminals = ids;
}

/**
 * The turn is over: a v1 client never sees a terminal outlive its turn (v1 agents wait for their
 * commands), so each shown terminal still running gets `terminal_exit` with neither code nor signal,
 * as the adapters send for an interrupted command. One the agent lists as background work stays
 * open. Later output still reaches the client; a later exit is not sent twice.
 */
export function endTurnTerminals(s: SessionA, ctx: UpdateContext): readonly Outgoing[] {
  const key = outputKey(ctx);
  if (key === undefined) return NOTHING;
  const out: Outgoing[] = [];
  for (const term of s.terminals.values()) {
    if (term.carrier === undefined || term.exitSent === true || term.exitStatus !== undefined) continue;
    if (s.backgroundTerminals.has(term.terminalId)) continue;
    const meta: Obj = {};
    const rest = term.decoder?.decode() ?? "";
    if (rest.length > 0) Object.assign(meta, terminalOutputMeta(term.terminalId, rest, key));
    Object.assign(meta, terminalExitMeta(term.terminalId, undefined));
    term.exitSent = true;
    out.push(clientUpdate(s.sessionId, { sessionUpdate: "tool_call_update", toolCallId: term.carrier, _meta: meta }));
  }
  return out;
}
