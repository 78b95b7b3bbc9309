// Direction B, agent → client: every v1 `session/update` variant rendered for a v2 client (T §2):
// message ids synthesized, tool calls turned into upserts, plans, modes as a config option.
import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { availableCommandsToV2 } from "../../convert/command.js";
import { configOptionUpdateToV2 } from "../../convert/config-option.js";
import { isObject, jsonEqual } from "../../convert/json.js";
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
import { generatedMessageId } from "../../../mappings/message.js";
import { currentModeUpdateToConfigOptionUpdate } from "../../convert/mode.js";
import { compactionSummaryChunkToV2, compactionUpdateToV2, noticeToV2 } from "../../convert/notice.js";
import { planToV2Updates, recordEmitted } from "../../convert/plan.js";
import { sessionInfoToV2 } from "../../convert/session-info.js";
import type { ConvertOptions } from "../../convert/stash.js";
import { commandOf, conventionOf, conventionToV2Updates, type ConventionEvent } from "../../convert/terminal.js";
import { isPermissionAnnouncement, toolCallMessageToV2, type V1ToolCallMessage } from "../../convert/tool-call.js";
import { usageToV2 } from "../../convert/usage.js";
import type { FileTexts } from "../../convert/diff.js";
import { diffStageOf } from "../../../mappings/diff.js";
import { diffFiles } from "../files.js";
import type { Logger } from "../../log.js";
import { dropped } from "../translating.js";
import type { SessionB } from "./session.js";

type Obj = Record<string, unknown>;

export interface UpdateContextB {
  readonly opts: ConvertOptions;
  readonly log: Logger;
  /** Largest file read to place a v1 snippet diff (0 or absent: none). */
  readonly diffFileMaxBytes?: number;
  /** The v2 client is an A bridge: the `_meta` terminal convention rides on to its v1 client as sent. */
  readonly clientIsBridge?: boolean;
  /** Send a v2 `session/update`. */
  send(sessionId: string, update: v2.SessionUpdate, meta?: unknown): void;
}

const CHUNK_KINDS: Record<string, MessageKind> = {
  user_message_chunk: "user",
  agent_message_chunk: "agent",
  agent_thought_chunk: "thought",
};

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

function sendAll(s: SessionB, ctx: UpdateContextB, updates: readonly v2.SessionUpdate[], meta?: unknown): void {
  for (const u of updates) ctx.send(s.sessionId, u, meta);
}

/** A boundary closes the open message and flushes a half-rebuilt upsert (T §2.1 B↓-3). */
export function boundary(s: SessionB, ctx: UpdateContextB): void {
  s.chunkIds = closeOpenMessage(s.chunkIds);
  if (s.pendingUpsert) {
    sendAll(s, ctx, flushPendingUpsert(s.pendingUpsert));
    s.pendingUpsert = undefined;
  }
}

/** One v1 `session/update` (params) → zero or more v2 updates. */
export function updateToV2(s: SessionB, params: Obj, ctx: UpdateContextB): void {
  const update = params.update;
  if (!isObject(update) || typeof update.sessionUpdate !== "string") {
    ctx.log.warn("dropped a session/update without an update variant");
    return;
  }
  const tag = update.sessionUpdate;
  if (s.suppressHistory && !KEPT_DURING_SUPPRESSED_REPLAY.has(tag)) return;
  const meta = params._meta;
  const kind = CHUNK_KINDS[tag];
  if (kind) return chunk(s, update as v1.ContentChunk & { sessionUpdate: string }, kind, ctx, meta);
  switch (tag) {
    case "tool_call":
    case "tool_call_update":
      boundary(s, ctx);
      return toolCall(s, update as V1ToolCallMessage, ctx, meta);
    case "plan": {
      // A non-user update: the echo window closes (T §1.4-3).
      if (s.turn) s.turn.echoOpen = false;
      boundary(s, ctx);
      const r = planToV2Updates(update as v1.Plan, s.plans, ctx.opts);
      if (dropped(r, ctx.log, "plan")) return;
      s.plans = recordEmitted(s.plans, r.value);
      sendAll(
        s,
        ctx,
        r.value.map((p) => ({ ...p, sessionUpdate: "plan_update" })),
        meta,
      );
      return;
    }
    case "current_mode_update": {
      const r = currentModeUpdateToConfigOptionUpdate(update, s.config, ctx.opts);
      if (dropped(r, ctx.log, "current_mode_update")) return;
      s.config = r.value.config;
      if (r.value.update) ctx.send(s.sessionId, r.value.update, meta);
      return;
    }
    case "config_option_update": {
      const r = configOptionUpdateToV2(update, { modes: s.config.modes, models: s.config.models }, ctx.opts);
      if (dropped(r, ctx.log, "config_option_update")) return;
      s.config = { ...s.config, configOptions: update.configOptions };
      ctx.send(s.sessionId, { ...r.value, sessionUpdate: "config_option_update" }, meta);
      return;
    }
    case "available_commands_update": {
      const r = availableCommandsToV2(update as v1.AvailableCommandsUpdate, ctx.opts);
      if (dropped(r, ctx.log, "available_commands_update")) return;
      const list = (r.value as { availableCommands: unknown[] }).availableCommands;
      // A chained A bridge's follow-up to a session result (H §4.1): the client has this very list
      // in the result it got (restored from the stash), and a direct v2 agent sends no such update.
      const { meta: own, env } = unstash(meta, 2);
      const followUp = isSynthetic(env, SN.commandsFollowUp);
      const known = followUp && s.availableCommands !== undefined && jsonEqual(s.availableCommands, list);
      s.availableCommands = list;
      if (!known)
        ctx.send(s.sessionId, { ...r.value, sessionUpdate: "available_commands_update" }, followUp ? own : meta);
      return;
    }
    case "session_info_update": {
      const r = sessionInfoToV2(update, ctx.opts);
      if (dropped(r, ctx.log, "session_info_update")) return;
      const v = r.value as { title?: unknown; updatedAt?: unknown };
      if (typeof v.title === "string") s.title = v.title;
      if (typeof v.updatedAt === "string") s.updatedAt = v.updatedAt;
      ctx.send(s.sessionId, { ...r.value, sessionUpdate: "session_info_update" }, meta);
      return;
    }
    case "usage_update": {
      const r = usageToV2(update as v1.UsageUpdate, s.costForwarded, ctx.opts);
      if (dropped(r, ctx.log, "usage_update")) return;
      s.costForwarded = r.value.costForwarded;
      ctx.send(s.sessionId, { ...r.value.update, sessionUpdate: "usage_update" }, meta);
      return;
    }
    case "notice": {
      const r = noticeToV2(update as v1.Notice);
      if (dropped(r, ctx.log, "notice")) return;
      ctx.send(s.sessionId, { ...r.value, sessionUpdate: "notice" }, meta);
      return;
    }
    case "compaction_update": {
      const r = compactionUpdateToV2(update as v1.CompactionUpdate, ctx.opts);
      if (dropped(r, ctx.log, "compaction_update")) return;
      ctx.send(s.sessionId, { ...r.value, sessionUpdate: "compaction_update" }, meta);
      return;
    }
    case "compaction_summary_chunk": {
      const r = compactionSummaryChunkToV2(update as v1.CompactionSummaryChunk, ctx.opts);
      if (dropped(r, ctx.log, "compaction_summary_chunk")) return;
      ctx.send(s.sessionId, { ...r.value, sessionUpdate: "compaction_summary_chunk" }, meta);
      return;
    }
    default:
      // v1 unstable variants keep their names in v2 (T §2.11); v2 peers treat unknown ones as such.
      ctx.send(s.sessionId, update as v2.SessionUpdate, meta);
  }
}

function chunk(
  s: SessionB,
  update: v1.ContentChunk & { sessionUpdate: string },
  kind: MessageKind,
  ctx: UpdateContextB,
  meta: unknown,
): void {
  const turn = s.turn;
  // The echo window (T §1.4-3): the agent's rendering of the prompt it was just given.
  if (turn?.echoOpen && kind === "user") {
    const own = v1ChunkMessageId(update);
    if (own !== undefined && own !== turn.userMsgId) s.alias.set(own, turn.userMsgId);
    const body: Obj = { ...update };
    delete body.sessionUpdate;
    const content = body.content;
    delete body.messageId;
    const first = turn.echoCount++ === 0;
    const out = first
      ? { ...body, sessionUpdate: "user_message", messageId: turn.userMsgId, content: [content] }
      : { ...body, sessionUpdate: "user_message_chunk", messageId: turn.userMsgId, content };
    ctx.send(s.sessionId, out as v2.SessionUpdate, meta);
    return;
  }
  if (turn) turn.echoOpen = false;
  const raw = v1ChunkMessageId(update);
  const v1Id = raw !== undefined ? (s.alias.get(raw) ?? raw) : undefined;
  if (v1Id !== undefined) s.chunkIds = countGenerated(s.chunkIds, s.sessionId, kind, v1Id);
  if (s.chunkIds.open && s.chunkIds.open.kind !== kind) boundary(s, ctx);
  const id = assignChunkId(s.chunkIds, s.sessionId, kind, v1Id);
  s.chunkIds = id.state;
  let sharedId = false;
  // The agent's own id (not one an A bridge upstream restored from its stash, nor an alias).
  if (raw !== undefined && v1Id === raw && update.messageId === raw) {
    const first = s.v1IdKinds.get(raw);
    if (first === undefined) s.v1IdKinds.set(raw, kind);
    else sharedId = first !== kind;
  }
  const r = v1ChunkToV2Updates(
    update,
    s.pendingUpsert,
    { kind, messageId: id.messageId, synthetic: id.synthetic, sharedId },
    ctx.opts,
  );
  if (dropped(r, ctx.log, update.sessionUpdate)) return;
  s.pendingUpsert = r.value.pending;
  sendAll(s, ctx, r.value.updates, meta);
}

/**
 * A replayed message whose id is one the bridge generated (reached through the echo alias) takes
 * its number: later id-less messages then get the numbers they had live (T §2.1 B↓-5).
 */
function countGenerated(state: ChunkIdState, sessionId: string, kind: MessageKind, id: string): ChunkIdState {
  const prefix = generatedMessageId(sessionId, kind, 0).slice(0, -1);
  if (!id.startsWith(prefix)) return state;
  const n = Number(id.slice(prefix.length));
  if (!Number.isInteger(n) || n <= state.counter[kind]) return state;
  return { ...state, counter: { ...state.counter, [kind]: n } };
}

function toolCall(s: SessionB, original: V1ToolCallMessage, ctx: UpdateContextB, meta: unknown): void {
  const id = (original as unknown as Obj).toolCallId;
  if (typeof id !== "string") {
    ctx.log.warn("dropped a tool call without a toolCallId");
    return;
  }
  if (s.turn) s.turn.echoOpen = false;
  const src = terminalConvention(s, original, id, ctx, meta);
  if (src === undefined) return;
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
  if (dropped(r, ctx.log, String(src.sessionUpdate))) return;
  const state: {
    title?: string | undefined;
    kind?: string | undefined;
    lastContent?: v2.ToolCallContent[] | undefined;
  } = seen ?? {};
  // A v1 tool_call replaces the whole tool call: what it omits is gone (T §2.4 B↓-1).
  const whole = src.sessionUpdate === "tool_call";
  if (typeof src.title === "string" || whole) state.title = typeof src.title === "string" ? src.title : undefined;
  if (typeof src.kind === "string" || whole) state.kind = typeof src.kind === "string" ? src.kind : undefined;
  for (const u of r.value) {
    const body = u as unknown as Obj;
    if (body.sessionUpdate === "tool_call_update" && Array.isArray(body.content))
      state.lastContent = body.content as v2.ToolCallContent[];
    else if (body.sessionUpdate === "tool_call_update" && body.content === null) state.lastContent = [];
    else if (body.sessionUpdate === "tool_call_content_chunk")
      state.lastContent = [...(state.lastContent ?? []), body.content as v2.ToolCallContent];
  }
  // A v1 tool_call says everything: without content, the content is none, so later chunks restore.
  // A chained A's announcement for a permission subject emits nothing, yet the tool is known.
  const known = r.value.length > 0 || isPermissionAnnouncement(m);
  if (whole && state.lastContent === undefined && known && !Array.isArray(src.content)) state.lastContent = [];
  if (known) s.tools.set(id, state);
  sendAll(s, ctx, r.value, meta);
}

// ---------------------------------------------------------------- terminals (T §2.5 B↓-1)

/**
 * The `_meta` terminal convention on a v1 tool call (asked for in `initialize`, or sent unasked as
 * codex-acp does) becomes v2 `terminal_update` / `terminal_output_chunk`, sent before the tool call
 * that shows the terminal. Returns the tool call without the convention's keys, or undefined when
 * nothing else is left of an update (an output-only `tool_call_update`).
 */
function terminalConvention(
  s: SessionB,
  src: Obj,
  toolCallId: string,
  ctx: UpdateContextB,
  meta: unknown,
): Obj | undefined {
  if (ctx.clientIsBridge === true) return src;
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
    for (const u of conventionToV2Updates(e, fresh)) ctx.send(s.sessionId, u, meta);
  }
  if (events.length === 0) return src;
  const out: Obj = { ...src };
  if (rest === undefined) delete out._meta;
  else out._meta = rest;
  const fields = Object.keys(out).filter((k) => k !== "sessionUpdate" && k !== "toolCallId");
  return fields.length > 0 || out.sessionUpdate === "tool_call" ? out : undefined;
}
