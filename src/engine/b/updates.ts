// Direction B, agent → client: every v1 `session/update` variant rendered for a v2 client (T §2):
// message ids synthesized, tool calls turned into upserts, plans, modes as a config option.
import type * as v1 from "@agentclientprotocol/sdk";
import type * as v1u from "@agentclientprotocol/sdk/unstable";
import { availableCommandsToV2 } from "../../convert/command.js";
import { configOptionUpdateToV2 } from "../../convert/config-option.js";
import { contentBlockToV2 } from "../../convert/content.js";
import { isObject, jsonEqual, type Obj } from "../../base/json.js";
import { isSynthetic, unstash } from "../../convert/stash.js";
import { syntheticNames as SN } from "../../../mappings/config-option.js";
import {
  assignChunkId,
  closeOpenMessage,
  flushPendingUpsert,
  v1ChunkMessageId,
  v1ChunkToV2Updates,
  type ChunkIdState,
  type MessageKind,
} from "../../convert/message.js";
import { generatedMessageId, messageTable } from "../../../mappings/message.js";
import { currentModeUpdateToConfigOptionUpdate } from "../../convert/mode.js";
import { compactionSummaryChunkToV2, compactionUpdateToV2, noticeToV2 } from "../../convert/notice.js";
import { planToV2Updates, planUpdateToV2Native, recordEmitted } from "../../convert/plan.js";
import { sessionInfoToV2 } from "../../convert/session-info.js";
import type { ConvertOptions } from "../../convert/stash.js";
import { commandOf, conventionOf, conventionToV2Updates, type ConventionEvent } from "../../convert/terminal.js";
import {
  isPermissionAnnouncement,
  toolCallMessageToV2,
  type V1ToolCallMessage,
  type V2ToolCallMessage,
} from "../../convert/tool-call.js";
import { usageToV2 } from "../../convert/usage.js";
import type { FileTexts } from "../../convert/diff.js";
import { diffStageOf } from "../../../mappings/diff.js";
import { diffFiles } from "../files.js";
import type { Logger } from "../../log.js";
import { notify, NOTHING, type Outgoing } from "../outgoing.js";
import { dropped } from "../translating.js";
import type { SessionB, ToolSeen } from "./session.js";
import type { ScannedUpdate } from "../../wire/update-scan.js";
import { fastChunkKind, TEXT, TOOL_CALL_UPDATE } from "../fast-lines.js";

export interface UpdateContextB {
  readonly opts: ConvertOptions;
  readonly log: Logger;
  /** Largest file read to place a v1 snippet diff (0 or absent: none). */
  readonly diffFileMaxBytes?: number;
  /** The v2 client is an A bridge: the `_meta` terminal convention rides on to its v1 client as sent. */
  readonly clientIsBridge?: boolean;
}

/** A v2 `session/update` to the client; `meta` is the v1 notification's `_meta`, carried over. */
export function clientUpdate(sessionId: string, update: unknown, meta?: unknown): Outgoing {
  const params: Obj = { sessionId, update };
  if (meta !== undefined && meta !== null) params._meta = meta;
  return notify("client", "session/update", params);
}

const CHUNK_KINDS: Record<string, MessageKind> = {
  user_message_chunk: "user",
  agent_message_chunk: "agent",
  agent_thought_chunk: "thought",
};

/** The message kind a chunk tag names (an own key only: `constructor` is no chunk). */
function chunkKind(tag: string | undefined): MessageKind | undefined {
  return tag !== undefined && Object.hasOwn(CHUNK_KINDS, tag) ? CHUNK_KINDS[tag] : undefined;
}

/**
 * v2 variants that no v1 schema has: from a v1 agent they are invalid input, and passed on under
 * their names (T §2.11) a v2 client would read them as those variants, which they are not.
 */
const V2_ONLY_VARIANTS = new Set([
  ...messageTable.kinds.map((k) => k.upsert),
  "state_update",
  "tool_call_content_chunk",
  "terminal_update",
  "terminal_output_chunk",
]);

/** How every generated id starts, whatever its session and kind (`generatedMessageId`). */
const GENERATED_HEAD = messageTable.generatedIdPrefix + messageTable.generatedIdSeparator;

/** Kept while a resume is answered through `session/load` (H §2.3): the rest is history. */
const KEPT_DURING_SUPPRESSED_REPLAY = new Set([
  "available_commands_update",
  "config_option_update",
  "current_mode_update",
  "session_info_update",
  "usage_update",
]);

/** The current text of the files named by a v1 tool call's diffs (to place snippets, T §3.3 B↓). */
export function diffFilesOfV1(toolCall: unknown, s: SessionB | undefined, ctx: UpdateContextB): FileTexts | undefined {
  if (!isObject(toolCall)) return undefined;
  const cwd = typeof s?.params.cwd === "string" ? s.params.cwd : undefined;
  return diffFiles(toolCall.content, 1, ctx.diffFileMaxBytes ?? 0, cwd);
}

function updatesOf(s: SessionB, updates: readonly unknown[], meta?: unknown): Outgoing[] {
  return updates.map((u) => clientUpdate(s.sessionId, u, meta));
}

/** A boundary closes the open message and flushes a half-rebuilt upsert (T §2.1 B↓-3). */
export function boundary(s: SessionB): readonly Outgoing[] {
  s.chunkIds = closeOpenMessage(s.chunkIds);
  const pending = s.pendingUpsert;
  if (!pending) return NOTHING;
  s.pendingUpsert = undefined;
  return updatesOf(s, flushPendingUpsert(pending));
}

/** One v1 `session/update` (params) → zero or more v2 updates. */
export function updateToV2(s: SessionB, params: Obj, ctx: UpdateContextB): readonly Outgoing[] {
  const update = params.update;
  if (!isObject(update) || typeof update.sessionUpdate !== "string") {
    ctx.log.warn("dropped a session/update without an update variant");
    return NOTHING;
  }
  const tag = update.sessionUpdate;
  if (s.suppressHistory && !KEPT_DURING_SUPPRESSED_REPLAY.has(tag)) return NOTHING;
  const meta = params._meta;
  const kind = chunkKind(tag);
  if (kind) return chunk(s, update as v1.ContentChunk & { sessionUpdate: string }, kind, ctx, meta);
  switch (tag) {
    case "tool_call":
    case "tool_call_update":
      return [...boundary(s), ...toolCall(s, update, ctx, meta)];
    case "plan": {
      // A non-user update: the echo window closes (T §1.4-3).
      s.prompts.closeEcho();
      const out = [...boundary(s)];
      const r = planToV2Updates(update as v1.Plan, s.plans, ctx.opts);
      if (dropped(r, ctx.log, "plan")) return out;
      s.plans = recordEmitted(s.plans, r.value);
      return [
        ...out,
        ...updatesOf(
          s,
          r.value.map((p) => ({ ...p, sessionUpdate: "plan_update" })),
          meta,
        ),
      ];
    }
    case "current_mode_update": {
      const r = currentModeUpdateToConfigOptionUpdate(update, s.config, ctx.opts);
      if (dropped(r, ctx.log, "current_mode_update")) return NOTHING;
      s.config = r.value.config;
      return r.value.update ? [clientUpdate(s.sessionId, r.value.update, meta)] : NOTHING;
    }
    case "config_option_update": {
      const r = configOptionUpdateToV2(update, { modes: s.config.modes, models: s.config.models }, ctx.opts);
      if (dropped(r, ctx.log, "config_option_update")) return NOTHING;
      s.config = { ...s.config, configOptions: update.configOptions };
      return [clientUpdate(s.sessionId, { ...r.value, sessionUpdate: "config_option_update" }, meta)];
    }
    case "available_commands_update": {
      const r = availableCommandsToV2(update as v1.AvailableCommandsUpdate, ctx.opts);
      if (dropped(r, ctx.log, "available_commands_update")) return NOTHING;
      const list = r.value.availableCommands;
      // A chained A bridge's follow-up to a session result (H §4.1): the client has this very list
      // in the result it got (restored from the stash), and a direct v2 agent sends no such update.
      const { meta: own, env } = unstash(meta, 2);
      const followUp = isSynthetic(env, SN.commandsFollowUp);
      const known = followUp && s.availableCommands !== undefined && jsonEqual(s.availableCommands, list);
      s.availableCommands = list;
      if (known) return NOTHING;
      return [
        clientUpdate(s.sessionId, { ...r.value, sessionUpdate: "available_commands_update" }, followUp ? own : meta),
      ];
    }
    case "session_info_update": {
      const r = sessionInfoToV2(update, ctx.opts);
      if (dropped(r, ctx.log, "session_info_update")) return NOTHING;
      const { title, updatedAt } = r.value;
      if (typeof title === "string") s.title = title;
      if (typeof updatedAt === "string") s.updatedAt = updatedAt;
      return [clientUpdate(s.sessionId, { ...r.value, sessionUpdate: "session_info_update" }, meta)];
    }
    case "usage_update": {
      const r = usageToV2(update as v1.UsageUpdate, s.costForwarded, ctx.opts);
      if (dropped(r, ctx.log, "usage_update")) return NOTHING;
      s.costForwarded = r.value.costForwarded;
      return [clientUpdate(s.sessionId, { ...r.value.update, sessionUpdate: "usage_update" }, meta)];
    }
    case "notice": {
      const r = noticeToV2(update as v1.Notice);
      if (dropped(r, ctx.log, "notice")) return NOTHING;
      return [clientUpdate(s.sessionId, { ...r.value, sessionUpdate: "notice" }, meta)];
    }
    case "compaction_update": {
      const r = compactionUpdateToV2(update as v1.CompactionUpdate, ctx.opts);
      if (dropped(r, ctx.log, "compaction_update")) return NOTHING;
      return [clientUpdate(s.sessionId, { ...r.value, sessionUpdate: "compaction_update" }, meta)];
    }
    case "compaction_summary_chunk": {
      const r = compactionSummaryChunkToV2(update as v1.CompactionSummaryChunk, ctx.opts);
      if (dropped(r, ctx.log, "compaction_summary_chunk")) return NOTHING;
      return [clientUpdate(s.sessionId, { ...r.value, sessionUpdate: "compaction_summary_chunk" }, meta)];
    }
    case "plan_update": {
      // v1 unstable, and a variant v2 knows: it passes as it is when v2 accepts its content.
      const r = planUpdateToV2Native(update as unknown as v1u.PlanUpdate);
      if (dropped(r, ctx.log, "plan_update")) return NOTHING;
      return [clientUpdate(s.sessionId, r.value, meta)];
    }
    default:
      if (V2_ONLY_VARIANTS.has(tag)) {
        ctx.log.warn(`dropped a session/update '${tag}' from the v1 agent: no v1 variant has that name`);
        return NOTHING;
      }
      // v1 unstable variants keep their names in v2 (T §2.11); v2 peers treat unknown ones as such.
      return [clientUpdate(s.sessionId, update, meta)];
  }
}

/**
 * The fast path's share of `updateToV2` (engine/fast-lines.ts), for an update the scan proved and
 * a client that gets no stash (the engine checks that, and that nothing acks a prompt first): a
 * plain text chunk of an agent message or thought (`fastChunk`), or a string-only
 * `tool_call_update` (`fastToolCallUpdate`), with no gathered upsert to flush before it. The bytes
 * the full path would write, with the state recorded as it records it; undefined, having changed
 * nothing, and the full path takes it.
 */
export function fastUpdateToV2(s: SessionB, u: ScannedUpdate): Buffer | undefined {
  if (s.suppressHistory || s.pendingUpsert !== undefined) return undefined;
  // Tags are compared as bytes: decoding one per line costs more than the rest of the fast path.
  if (u.is("sessionUpdate", TOOL_CALL_UPDATE)) return fastToolCallUpdate(s, u) ? u.line : undefined;
  const kind = fastChunkKind(u);
  return kind === undefined ? undefined : fastChunk(s, u, kind);
}

/**
 * A v1 chunk `{sessionUpdate, messageId?, content:{type:"text",text}}` (keys in any order) of an
 * agent message or thought: v2 gets it unchanged (`plainChunkToV2` copies it; a text block has
 * nothing to convert), with `messageId` appended when it has none. The echo window closes, as
 * `chunk` closes it for a non-user chunk. An id the echo aliased is renamed: the full path's.
 */
function fastChunk(s: SessionB, u: ScannedUpdate, kind: MessageKind): Buffer | undefined {
  const n = u.keys.length;
  if (!u.keys.includes("content") || n !== (u.keys.includes("messageId") ? 3 : 2)) return undefined;
  if (u.contentKeys.length !== 2 || !u.is("content.type", TEXT)) return undefined;
  const raw = u.string("messageId");
  if (raw !== undefined && s.alias.has(raw)) return undefined;
  s.prompts.closeEcho();
  const id = takeChunkId(s, kind, raw, true);
  // `plainChunkToV2` sets the id on a copy of the chunk: it comes last, before the closing brace.
  return raw !== undefined ? u.line : u.withLastMember(idMember(id.messageId));
}

/** The last `,"messageId":…` member spliced (id-less chunks of one message repeat it). */
let lastMember: { readonly id: string; readonly bytes: Buffer } = { id: "", bytes: Buffer.alloc(0) };

function idMember(id: string): Buffer {
  if (lastMember.id !== id || lastMember.bytes.length === 0)
    lastMember = { id, bytes: Buffer.from(`,"messageId":${JSON.stringify(id)}`) };
  return lastMember.bytes;
}

/**
 * A v1 `tool_call_update` of string fields only (`toolCallId`, `status`, `title`, `kind`), tag
 * first: v2 gets it unchanged (`toolCallMessageToV2` copies such fields, tag first; its mark of an
 * unseen tool call is a stash, which this client does not get), the tool call known or not.
 */
function fastToolCallUpdate(s: SessionB, u: ScannedUpdate): boolean {
  if (u.keys[0] !== "sessionUpdate" || u.keys.includes("content") || u.keys.includes("messageId")) return false;
  const id = u.string("toolCallId");
  if (id === undefined) return false;
  const src: Obj = { sessionUpdate: "tool_call_update" };
  for (const k of u.keys) if (k === "title" || k === "kind") src[k] = u.string(k);
  // What the full path does: the boundary (nothing to flush, checked), the echo window, the record.
  boundary(s);
  s.prompts.closeEcho();
  rememberTool(s, id, s.tools.get(id), src, NOTHING_EMITTED);
  return true;
}

/** A string-only update emits no content: nothing for `rememberTool` to take from it. */
const NOTHING_EMITTED: readonly V2ToolCallMessage[] = [];

function chunk(
  s: SessionB,
  update: v1.ContentChunk & { sessionUpdate: string },
  kind: MessageKind,
  ctx: UpdateContextB,
  meta: unknown,
): readonly Outgoing[] {
  // The echo window (T §1.4-3): the agent's rendering of the prompt it was just given.
  const echo = s.prompts.echo(kind === "user");
  if (echo) {
    const own = v1ChunkMessageId(update);
    if (own !== undefined && own !== echo.messageId) s.alias.set(own, echo.messageId);
    // The echo is the agent's block, not the client's: converted like any other (or dropped).
    const conv = contentBlockToV2(update.content, ctx.opts);
    if (dropped(conv, ctx.log, update.sessionUpdate)) return NOTHING;
    const body: Obj = { ...update };
    delete body.sessionUpdate;
    const content = conv.value;
    delete body.messageId;
    const out = echo.first
      ? { ...body, sessionUpdate: "user_message", messageId: echo.messageId, content: [content] }
      : { ...body, sessionUpdate: "user_message_chunk", messageId: echo.messageId, content };
    return [clientUpdate(s.sessionId, out, meta)];
  }
  const raw = v1ChunkMessageId(update);
  const id = takeChunkId(s, kind, raw, update.messageId === raw);
  const r = v1ChunkToV2Updates(
    update,
    s.pendingUpsert,
    { kind, messageId: id.messageId, synthetic: id.synthetic, sharedId: id.sharedId },
    ctx.opts,
  );
  if (dropped(r, ctx.log, update.sessionUpdate)) return id.flushed;
  s.pendingUpsert = r.value.pending;
  return [...id.flushed, ...updatesOf(s, r.value.updates, meta)];
}

/**
 * The v2 id of a non-echo chunk of `kind` whose v1 id is `raw` (`own`: the chunk's own
 * `messageId`, not one restored from a stash), recorded as the session's open message (T §2.1
 * B↓-1..5); `flushed` is what the boundary of a change of kind emitted. The full path and the fast
 * path (`fastUpdateToV2`) both take chunks through here.
 */
function takeChunkId(
  s: SessionB,
  kind: MessageKind,
  raw: string | undefined,
  own: boolean,
): { messageId: string; synthetic: boolean; sharedId: boolean; flushed: readonly Outgoing[] } {
  const v1Id = raw !== undefined ? (s.alias.get(raw) ?? raw) : undefined;
  if (v1Id !== undefined) s.chunkIds = countGenerated(s.chunkIds, s.sessionId, kind, v1Id);
  const flushed = s.chunkIds.open && s.chunkIds.open.kind !== kind ? boundary(s) : NOTHING;
  const id = assignChunkId(s.chunkIds, s.sessionId, kind, v1Id);
  s.chunkIds = id.state;
  let sharedId = false;
  // The agent's own id (not one an A bridge upstream restored from its stash, nor an alias).
  if (raw !== undefined && v1Id === raw && own) {
    const first = s.v1IdKinds.get(raw);
    if (first === undefined) s.v1IdKinds.set(raw, kind);
    else sharedId = first !== kind;
  }
  return { messageId: id.messageId, synthetic: id.synthetic, sharedId, flushed };
}

/**
 * A replayed message whose id is one the bridge generated (reached through the echo alias) takes
 * its number: later id-less messages then get the numbers they had live (T §2.1 B↓-5).
 */
function countGenerated(state: ChunkIdState, sessionId: string, kind: MessageKind, id: string): ChunkIdState {
  // Most ids are the agent's own: rejected before any id is built (the per-chunk hot path).
  if (!id.startsWith(GENERATED_HEAD)) return state;
  const prefix = generatedMessageId(sessionId, kind, 0).slice(0, -1);
  if (!id.startsWith(prefix)) return state;
  const n = Number(id.slice(prefix.length));
  if (!Number.isInteger(n) || n <= state.counter[kind]) return state;
  return { ...state, counter: { ...state.counter, [kind]: n } };
}

function toolCall(s: SessionB, original: Obj, ctx: UpdateContextB, meta: unknown): readonly Outgoing[] {
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
  if (dropped(r, ctx.log, String(src.sessionUpdate))) return out;
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

// ---------------------------------------------------------------- terminals (T §2.5 B↓-1)

/**
 * The `_meta` terminal convention on a v1 tool call (asked for in `initialize`, or sent unasked as
 * codex-acp does) becomes v2 `terminal_update` / `terminal_output_chunk`, sent before the tool call
 * that shows the terminal (appended to `emitted`). Returns the tool call without the convention's
 * keys, or undefined when nothing else is left of an update (an output-only `tool_call_update`).
 */
function terminalConvention(
  s: SessionB,
  src: Obj,
  toolCallId: string,
  meta: unknown,
  clientIsBridge: boolean,
  emitted: Outgoing[],
): Obj | undefined {
  if (clientIsBridge) return src;
  const { events, rest } = conventionOf(src._meta);
  for (const e of events) if (e.info !== undefined) s.terminalOfTool.set(toolCallId, e.terminalId);
  // The command of a terminal is its tool call's `rawInput.command`, which may come later (streamed input).
  const own = s.terminalOfTool.peek(toolCallId);
  const command = commandOf(src.rawInput);
  const all: ConventionEvent[] = [...events];
  if (own !== undefined && command !== undefined && !all.some((e) => e.terminalId === own))
    all.unshift({ terminalId: own });
  if (all.length === 0) return src;
  for (const e of all) {
    const term = s.terminals.get(e.terminalId) ?? {};
    const fresh = e.terminalId === own && command !== undefined && command !== term.command ? command : undefined;
    if (fresh !== undefined) term.command = fresh;
    s.terminals.set(e.terminalId, term);
    emitted.push(...updatesOf(s, conventionToV2Updates(e, fresh), meta));
  }
  if (events.length === 0) return src;
  const out: Obj = { ...src };
  if (rest === undefined) delete out._meta;
  else out._meta = rest;
  const fields = Object.keys(out).filter((k) => k !== "sessionUpdate" && k !== "toolCallId");
  return fields.length > 0 || out.sessionUpdate === "tool_call" ? out : undefined;
}
