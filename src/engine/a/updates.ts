// Direction A, agent → client: every v2 `session/update` variant rendered for a v1 client (T §2),
// with the state each needs (message ids, tool calls, terminals, plans, config, cost).
import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { availableCommandsToV1 } from "../../convert/command.js";
import { gatedUpdateToV1 } from "../../convert/notice.js";
import { noticeMessageId } from "../../../mappings/message.js";
import { sessionInfoToV1 } from "../../convert/session-info.js";
import { isObject } from "../../convert/json.js";
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
  toolCallToV1,
  toolCallUpdateToV1,
  type ToolCallToV1Context,
} from "../../convert/tool-call.js";
import { usageToV1 } from "../../convert/usage.js";
import type { DiffRendering } from "../../convert/diff.js";
import { diffStageOf } from "../../../mappings/diff.js";
import { diffFiles } from "../files.js";
import type { Logger } from "../../log.js";
import { dropped } from "../translating.js";
import type { SessionA, TerminalEntry, ToolCallView } from "./session.js";

type Obj = Record<string, unknown>;

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
  readonly log: Logger;
  readonly diffRendering: DiffRendering;
  /** Largest file read for a diff's exact texts (0 or absent: none, e.g. for renderings that read none). */
  readonly diffFileMaxBytes?: number;
  readonly redactionNotice: boolean;
  readonly flushMs: number;
  readonly terminalFlushMs: number;
  readonly terminalMaxBytes: number;
  /** Send a v1 `session/update` for the session. */
  send(sessionId: string, update: v1.SessionUpdate, meta?: unknown): void;
  /** Send the original notification line unchanged (the translation is the identity). */
  sendRaw(line: Buffer, parsed: unknown): void;
  /** Bridge peers only: a v2 update that has no v1 form (T §5.5). */
  sendExt(sessionId: string, update: unknown): void;
  /** This context without the current notification's `_meta` default: for emitting earlier work. */
  readonly plain?: UpdateContext;
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
  readonly msg: unknown;
}

/** One `session/update` notification from the v2 agent. */
export function updateToV1(s: SessionA, params: Obj, line: Original | undefined, base: UpdateContext): void {
  // The notification's own `_meta` (trace context...) rides on whatever it becomes (H §7.5).
  const meta = params._meta;
  const ctx: UpdateContext =
    meta === undefined || meta === null
      ? base
      : { ...base, plain: base.plain ?? base, send: (id, u, m) => base.send(id, u, m ?? meta) };
  const update = params.update;
  if (!isObject(update) || typeof update.sessionUpdate !== "string") {
    ctx.log.warn("dropped a session/update without an update variant");
    return;
  }
  const tag = update.sessionUpdate;
  // Coalescing a tool's content chunks must not move them past anything the agent sent later.
  if (s.pendingTools.size > 0)
    flushPendingTools(s, ctx, tag === "tool_call_content_chunk" ? update.toolCallId : undefined);
  const lc = s.lifecycle;
  const message = MESSAGE_KINDS[tag];
  if (message) {
    if (message.kind === "user") {
      const id = typeof update.messageId === "string" ? update.messageId : undefined;
      const decision = lc.userMessage(update as v2.SessionUpdate, id, () =>
        messageToV1(s, update, message, line, ctx, params),
      );
      if (decision === "forward") messageToV1(s, update, message, line, ctx, params);
      return;
    }
    lc.tick();
    messageToV1(s, update, message, line, ctx, params);
    return;
  }
  switch (tag) {
    case "state_update":
      noteBackground(s, update);
      lc.stateUpdate(update as v2.StateUpdate);
      if (ctx.flags.bridgePeer) ctx.sendExt(s.sessionId, update);
      return;
    case "tool_call_update":
      lc.tick();
      toolCallUpdate(s, update as v2.ToolCallUpdate, ctx);
      return;
    case "tool_call_content_chunk":
      lc.tick();
      toolCallContentChunk(s, update as v2.ToolCallContentChunk, ctx, meta);
      return;
    case "terminal_update":
    case "terminal_output_chunk":
      lc.tick();
      terminalUpdate(s, update, ctx);
      if (ctx.flags.bridgePeer) ctx.sendExt(s.sessionId, update);
      return;
    case "plan_update": {
      lc.tick();
      if (ctx.flags.plan) {
        const native = planUpdateToV1Native(update as v2.PlanUpdate, ctx.opts);
        if (dropped(native, ctx.log, "plan_update")) return;
        ctx.send(s.sessionId, { ...native.value, sessionUpdate: "plan_update" } as unknown as v1.SessionUpdate);
        return;
      }
      const next = applyPlanUpdate(s.plans, update as v2.PlanUpdate);
      if (dropped(next, ctx.log, "plan_update")) return;
      s.plans = next.value;
      const plan = plansToV1(s.plans, update as v2.PlanUpdate, ctx.opts);
      if (dropped(plan, ctx.log, "plan_update")) return;
      ctx.send(s.sessionId, { sessionUpdate: "plan", ...plan.value });
      return;
    }
    case "available_commands_update": {
      const r = availableCommandsToV1(update as v2.AvailableCommandsUpdate, ctx.opts);
      if (dropped(r, ctx.log, "available_commands_update")) return;
      ctx.send(s.sessionId, { ...r.value, sessionUpdate: "available_commands_update" });
      return;
    }
    case "config_option_update": {
      const r = configOptionUpdateToV1Updates(
        update,
        s.configOptions,
        { booleanOptions: ctx.flags.booleanOptions },
        ctx.opts,
      );
      if (dropped(r, ctx.log, "config_option_update")) return;
      s.configOptions = update.configOptions;
      if (r.value.modesChanged)
        ctx.log.warnOnce(`modes-${s.sessionId}`, "the agent changed the set of modes: v1 clients cannot be told");
      for (const u of r.value.updates) ctx.send(s.sessionId, u);
      return;
    }
    case "session_info_update": {
      // Same shape in both versions (T §2.9): the original bytes, unless a chained B stashed something.
      if (line && !isObject(update._meta)) {
        ctx.sendRaw(line.line, line.msg);
        return;
      }
      const r = sessionInfoToV1(update);
      if (dropped(r, ctx.log, "session_info_update")) return;
      ctx.send(s.sessionId, r.value as v1.SessionUpdate, params._meta);
      return;
    }
    case "usage_update": {
      const r = usageToV1(update as v2.UsageUpdate, s.lastCost as v2.Cost | undefined, ctx.opts);
      if (dropped(r, ctx.log, "usage_update")) return;
      s.lastCost = r.value.lastCost;
      ctx.send(s.sessionId, r.value.update as v1.SessionUpdate, params._meta);
      return;
    }
    case "notice":
    case "compaction_update":
    case "compaction_summary_chunk": {
      // Content blocks inside are converted like any other (T §3.1); the client's opt-ins gate them.
      // A notice the client did not opt into is shown as the agent's own v1 build shows it: a message.
      const fallbackMessageId = tag === "notice" ? noticeMessageId(s.sessionId, s.noticeCount + 1) : undefined;
      const r = gatedUpdateToV1(
        update as v2.SessionUpdate,
        {
          notices: ctx.flags.notices,
          compaction: ctx.flags.compaction,
          noticeFallback: "agent_message",
          fallbackMessageId,
        },
        ctx.opts,
      );
      if (dropped(r, ctx.log, tag)) return;
      if (r.value === null)
        ctx.log.debug(`dropped ${tag}: the v1 client did not opt into it (session.notices / session.compaction)`);
      else {
        if (r.value.sessionUpdate === "agent_message_chunk") s.noticeCount++;
        ctx.send(s.sessionId, r.value, params._meta);
      }
      return;
    }
    default:
      // An extension or future variant: v1's union is closed (T §2.11).
      if (ctx.flags.bridgePeer) ctx.sendExt(s.sessionId, update);
      else ctx.log.warnOnce(`update-${tag}`, `dropped session/update '${tag}': it has no v1 form`);
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

function messageToV1(
  s: SessionA,
  update: Obj,
  message: { kind: MessageKind; whole: boolean },
  original: Original | undefined,
  ctx: UpdateContext,
  params?: Obj,
): void {
  const id = update.messageId;
  if (typeof id !== "string") {
    ctx.log.warn("dropped a message update without a messageId");
    return;
  }
  const key = `${message.kind}:${id}`;
  let firstKind = s.idKind.get(id);
  if (firstKind === undefined) {
    firstKind = message.kind;
    s.idKind.set(id, firstKind);
  }
  const sent = s.sent.get(key);
  // Fast path (the bulk of the traffic): a plain text chunk v1 sees unchanged goes out as the very
  // bytes that came in, no serialization (performance budget, spec README).
  const text = !message.whole && original && params ? plainText(params, update) : undefined;
  if (text !== undefined && original) {
    const next = plainTextChunkState(id, text, sent, { kind: message.kind, firstKind });
    if (next) {
      s.sent.set(key, next);
      ctx.sendRaw(original.line, original.msg);
      return;
    }
  }
  if (message.whole) {
    const r = upsertToV1Chunks(
      update as v2.UserMessage,
      sent,
      { kind: message.kind, firstKind, redactionNotice: ctx.redactionNotice },
      ctx.opts,
    );
    if (dropped(r, ctx.log, String(update.sessionUpdate))) return;
    s.sent.set(key, r.value.sent);
    for (const c of r.value.chunks) ctx.send(s.sessionId, c);
    return;
  }
  const r = chunkToV1(update as v2.ContentChunk, sent, { kind: message.kind, firstKind }, ctx.opts);
  if (dropped(r, ctx.log, String(update.sessionUpdate))) return;
  s.sent.set(key, r.value.sent);
  ctx.send(s.sessionId, r.value.update as v1.SessionUpdate);
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
  for (const [k, v] of Object.entries(patch)) {
    if (k === "sessionUpdate") continue;
    if (k === "_meta") {
      if (v === null) delete view._meta;
      else if (isObject(v)) {
        const meta: Obj = isObject(view._meta) ? { ...view._meta } : {};
        for (const [mk, mv] of Object.entries(v)) {
          if (mv === null) Reflect.deleteProperty(meta, mk);
          else meta[mk] = mv;
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

/** Emit what is pending for a tool call (coalesced content chunks) before anything else about it. */
function flushToolCall(s: SessionA, t: ToolCallView, ctx: UpdateContext): void {
  if (t.flushTimer) clearTimeout(t.flushTimer);
  t.flushTimer = undefined;
  s.pendingTools.delete(t);
  if (t.pendingChunks.length === 0) return;
  const chunks = t.pendingChunks;
  t.pendingChunks = [];
  // The chunks' own notification `_meta`, never that of the notification that triggered the flush.
  const plain = ctx.plain ?? ctx;
  const meta = t.pendingMeta;
  t.pendingMeta = undefined;
  const own: UpdateContext =
    meta === undefined ? plain : { ...plain, send: (id, u, m) => plain.send(id, u, m ?? meta) };
  const body = { toolCallId: t.view.toolCallId, content: t.view.content } as v2.ToolCallUpdate;
  emitToolCall(s, t, t.announced ? body : (t.view as v2.ToolCallUpdate), own, { chunks });
}

function emitToolCall(
  s: SessionA,
  t: ToolCallView,
  u: v2.ToolCallUpdate,
  ctx: UpdateContext,
  extra: Partial<ToolCallToV1Context> = {},
  /** The whole first sighting as the agent sent it (its nulls too), when the view holds nothing else. */
  creation?: v2.ToolCallUpdate,
): void {
  const context = toolContext(s, ctx, { ...diffContext(t, u, ctx), ...extra });
  // A terminal the client has not been shown needs `terminal_info` on a v1 `tool_call` (T §2.5).
  const unshown = conventionMode(ctx) ? unshownTerminals(s, t) : [];
  if (unshown.length > 0 && t.announced) {
    const r = toolCallToV1(t.view as v2.ToolCallUpdate, context);
    if (dropped(r, ctx.log, "tool_call_update")) return;
    sendShowing(s, t, ctx, { sessionUpdate: "tool_call", ...r.value }, unshown);
    return;
  }
  if (!t.announced && restoresV1Update(u)) {
    // A chained B's v1 agent updated a tool call it never announced: the same update goes on.
    const r = toolCallUpdateToV1(u, context);
    if (dropped(r, ctx.log, "tool_call_update")) return;
    t.announced = true;
    t.synthetic = false;
    ctx.send(s.sessionId, { sessionUpdate: "tool_call_update", ...r.value });
    return;
  }
  if (!t.announced || restoresV1ToolCall(u)) {
    // First sighting (or a chained bridge restoring a re-sent v1 tool_call): a v1 `tool_call`.
    const first = creation ?? (t.view as v2.ToolCallUpdate);
    const r = restoresV1ToolCall(u) ? toolCallUpdateToV1(u, context) : toolCallToV1(t.announced ? u : first, context);
    if (dropped(r, ctx.log, "tool_call_update")) return;
    t.announced = true;
    t.synthetic = false;
    sendShowing(s, t, ctx, { sessionUpdate: "tool_call", ...r.value }, unshown);
    return;
  }
  const r = toolCallUpdateToV1(u, context);
  if (dropped(r, ctx.log, "tool_call_update")) return;
  ctx.send(s.sessionId, { sessionUpdate: "tool_call_update", ...r.value });
}

function toolCallUpdate(s: SessionA, u: v2.ToolCallUpdate, ctx: UpdateContext): void {
  const id = (u as Obj).toolCallId;
  if (typeof id !== "string") {
    ctx.log.warn("dropped a tool_call_update without a toolCallId");
    return;
  }
  const t = claimed(s, id);
  flushToolCall(s, t, ctx);
  const patch: Obj = { ...(u as Obj) };
  delete patch.sessionUpdate;
  if (!t.announced && isPermissionPreAnnouncement(patch)) {
    // A chained B announced a v1 permission's tool call the v1 agent never did: known, not shown.
    const { meta } = unstash(patch._meta, 1);
    setMeta(patch, meta);
    applyToolCallPatch(t.view, patch);
    return;
  }
  // Nothing known of it yet: the patch itself is the first sighting, nulls included (the view drops
  // them), so a chained B gives its client the very update the agent sent.
  const fresh = !t.announced && Object.keys(t.view).length === 1;
  applyToolCallPatch(t.view, patch);
  trackTerminalRefs(s, id, t.view.content);
  emitToolCall(s, t, patch as v2.ToolCallUpdate, ctx, {}, fresh ? (patch as v2.ToolCallUpdate) : undefined);
  if (typeof t.view.status === "string" && TERMINAL_STATUSES.has(t.view.status)) {
    // Finished: keep it (a late update still renders), but let the LRU forget it first.
    s.toolCalls.delete(id);
    s.toolCalls.set(id, t);
  }
}

function toolCallContentChunk(s: SessionA, c: v2.ToolCallContentChunk, ctx: UpdateContext, meta: unknown): void {
  const src = c as Obj;
  const id = src.toolCallId;
  if (typeof id !== "string" || !isObject(src.content)) {
    ctx.log.warn("dropped a malformed tool_call_content_chunk");
    return;
  }
  const t = claimed(s, id);
  // A notification with its own `_meta` is emitted alone, so that `_meta` rides on it (H §7.5).
  const own = meta !== undefined && meta !== null;
  if (own) flushToolCall(s, t, ctx);
  const content = Array.isArray(t.view.content) ? [...(t.view.content as unknown[])] : [];
  content.push(src.content);
  t.view.content = content;
  trackTerminalRefs(s, id, content);
  const chunk: Obj = { ...src };
  delete chunk.sessionUpdate;
  t.pendingChunks.push(chunk as v2.ToolCallContentChunk);
  s.pendingTools.add(t);
  if (own) {
    t.pendingMeta = meta;
    flushToolCall(s, t, ctx);
    return;
  }
  // v1 resends whole arrays: coalesce bursts so N chunks do not cost O(N²) bytes.
  t.flushTimer ??= setTimeout(() => flushToolCall(s, t, ctx), ctx.flushMs);
}

// ---------------------------------------------------------------- terminals (T §2.5)

function terminalUpdate(s: SessionA, update: Obj, ctx: UpdateContext): void {
  const id = update.terminalId;
  if (typeof id !== "string") {
    ctx.log.warn("dropped a terminal update without a terminalId");
    return;
  }
  const t = terminalFor(s, id);
  if (conventionMode(ctx)) {
    terminalToConvention(s, t, update, ctx);
    return;
  }
  if (update.sessionUpdate === "terminal_output_chunk") {
    const data = decodeBase64(update.data);
    if (data) appendOutput(t, data, ctx.terminalMaxBytes);
  } else {
    if (typeof update.command === "string") t.command = update.command;
    if (typeof update.cwd === "string") t.cwd = update.cwd;
    if (isObject(update.output)) {
      const data = decodeBase64(update.output.data);
      if (data) replaceOutput(t, data, ctx.terminalMaxBytes);
    }
    if (isObject(update.exitStatus)) t.exitStatus = update.exitStatus;
    if (isObject(update.size)) t.size = update.size as TerminalEntry["size"];
  }
  if (t.refs.size === 0) return; // rendered once a tool call references it
  const flush = () => {
    t.flushTimer = undefined;
    for (const toolCallId of t.refs) {
      const tc = s.toolCalls.peek(toolCallId);
      if (!tc?.announced) continue;
      flushToolCall(s, tc, ctx);
      emitToolCall(s, tc, { toolCallId, content: tc.view.content } as v2.ToolCallUpdate, ctx, { rerender: true });
    }
  };
  // An exit is final: render it now; output is coalesced.
  if (update.exitStatus !== undefined) {
    if (t.flushTimer) clearTimeout(t.flushTimer);
    flush();
  } else t.flushTimer ??= setTimeout(flush, ctx.terminalFlushMs);
}

/** Flush every coalesced emission of a session now (before a turn ends, so the order holds). */
/** Emit every tool call's coalesced chunks, but those of `except` (whose burst goes on). */
function flushPendingTools(s: SessionA, ctx: UpdateContext, except: unknown): void {
  for (const t of [...s.pendingTools]) if (t.view.toolCallId !== except) flushToolCall(s, t, ctx);
}

export function flushSession(s: SessionA, ctx: UpdateContext): void {
  flushPendingTools(s, ctx, undefined);
  for (const term of s.terminals.values()) {
    if (!term.flushTimer) continue;
    clearTimeout(term.flushTimer);
    term.flushTimer = undefined;
    for (const toolCallId of term.refs) {
      const tc = s.toolCalls.peek(toolCallId);
      if (tc?.announced)
        emitToolCall(s, tc, { toolCallId, content: tc.view.content } as v2.ToolCallUpdate, ctx, { rerender: true });
    }
  }
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

/** Terminals the tool call's content references that the client has no display terminal for yet. */
function unshownTerminals(s: SessionA, t: ToolCallView): TerminalEntry[] {
  const ids = [...new Set(referencedTerminals(t.view.content))];
  return ids.map((id) => terminalFor(s, id)).filter((term) => term.carrier === undefined);
}

/**
 * Send a v1 `tool_call`, with `terminal_info` for the first terminal it shows (one key per message:
 * each further terminal gets the same tool_call again with its own), then what each terminal already
 * has (output retained so far, its exit).
 */
function sendShowing(s: SessionA, t: ToolCallView, ctx: UpdateContext, toolCall: Obj, unshown: TerminalEntry[]): void {
  if (unshown.length === 0) {
    ctx.send(s.sessionId, toolCall as v1.SessionUpdate);
    return;
  }
  const own = isObject(toolCall._meta) ? toolCall._meta : {};
  for (const term of unshown) {
    term.carrier = t.view.toolCallId as string;
    // Items of terminals not announced yet wait for their own tool_call (the client must know each one).
    const content = Array.isArray(toolCall.content)
      ? toolCall.content.filter((c) => !(isObject(c) && c.type === "terminal" && !isShown(s, c.terminalId)))
      : toolCall.content;
    const msg: Obj = { ...toolCall, _meta: { ...own, ...terminalInfoMeta(term) } };
    if (content !== undefined) msg.content = content;
    ctx.send(s.sessionId, msg as v1.SessionUpdate);
    term.decoder = new TextDecoder("utf-8", { fatal: false });
    if (term.trimmed)
      ctx.log.warn(`terminal ${term.terminalId}: output before the last ${term.bytes.length} bytes is not shown`);
    sendConvention(s, term, ctx, term.bytes, false);
  }
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
function sendConvention(s: SessionA, term: TerminalEntry, ctx: UpdateContext, bytes: Uint8Array, reset: boolean): void {
  const carrier = term.carrier;
  const decoder = term.decoder;
  if (carrier === undefined || decoder === undefined) return;
  const exiting = term.exitStatus !== undefined && term.exitSent !== true;
  let text = reset ? TERMINAL_RESET : "";
  if (bytes.length > 0) text += decoder.decode(bytes, { stream: true });
  // An exit ends the stream: a sequence still split is shown as U+FFFD, never left out.
  if (exiting) text += decoder.decode();
  const meta: Obj = {};
  if (text.length > 0) Object.assign(meta, terminalOutputMeta(term.terminalId, text));
  if (exiting) {
    Object.assign(meta, terminalExitMeta(term.terminalId, term.exitStatus));
    term.exitSent = true;
  }
  if (Object.keys(meta).length > 0)
    ctx.send(s.sessionId, { sessionUpdate: "tool_call_update", toolCallId: carrier, _meta: meta });
}

/** A v2 terminal update for a client of the convention: state kept, what is new sent if shown. */
function terminalToConvention(s: SessionA, t: TerminalEntry, update: Obj, ctx: UpdateContext): void {
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
  if (t.carrier === undefined) return; // sent once a tool call shows it
  if (reset) {
    ctx.log.warnOnce(
      `terminal-reset-${t.terminalId}`,
      `terminal ${t.terminalId}: a v2 output snapshot replaced the output; the v1 client gets a terminal reset and the snapshot`,
    );
    t.decoder = new TextDecoder("utf-8", { fatal: false });
  }
  sendConvention(s, t, ctx, append, reset);
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
export function endTurnTerminals(s: SessionA, ctx: UpdateContext): void {
  if (!conventionMode(ctx)) return;
  for (const term of s.terminals.values()) {
    if (term.carrier === undefined || term.exitSent === true || term.exitStatus !== undefined) continue;
    if (s.backgroundTerminals.has(term.terminalId)) continue;
    const meta: Obj = {};
    const rest = term.decoder?.decode() ?? "";
    if (rest.length > 0) Object.assign(meta, terminalOutputMeta(term.terminalId, rest));
    Object.assign(meta, terminalExitMeta(term.terminalId, undefined));
    term.exitSent = true;
    ctx.send(s.sessionId, {
      sessionUpdate: "tool_call_update",
      toolCallId: term.carrier,
      _meta: meta,
    });
  }
}
