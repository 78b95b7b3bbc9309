// Direction A, agent → client: every v2 `session/update` variant rendered for a v1 client (T §2),
// with the state each needs (message ids, tool calls, terminals, plans, config, cost). Each function
// returns what the client gets, in order (engine/outgoing.ts); the notification `_meta` a message
// carries is an explicit argument. Only coalescing timers write, through the engine core's writer.
import type { ShownContent } from "../../../convert/tool-call.js";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { availableCommandsToV1 } from "../../../convert/command.js";
import { gatedUpdateToV1 } from "../../../convert/notice.js";
import { kindInfo, noticeMessageId } from "../../../../mappings/message.js";
import { sessionInfoToV1 } from "../../../convert/session-info.js";
import { isObject, type Obj, withMembers } from "../../../base/json.js";
import { configOptionUpdateToV1Updates } from "../../../convert/mode.js";
import { STASH_KEY_BYTES, type ConvertOptions } from "../../../convert/stash.js";
import { isCost, usageToV1 } from "../../../convert/usage.js";
import type { DiffRendering } from "../../../convert/diff-options.js";
import { BRIDGE_METHOD_PREFIX } from "../../../../mappings/methods.js";
import type { Logger } from "../../../log.js";
import { NOTHING, notify, raw, type Outgoing } from "../../outgoing.js";
import { dropped } from "../../translating.js";
import { noteDropped, updateKind, type BridgeObserver } from "../../observer.js";
import type { SessionA } from "../session.js";
import { SLOT, type ScannedUpdate } from "../../../wire/update-scan.js";
import { objectMembers, type ScannedMembers } from "../../../wire/member-scan.js";
import { COMMAND, TEXT as TEXT_VALUE, withoutRanges } from "../../../wire/commands-scan.js";
import {
  CLOSE_ARRAY,
  COMMA,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
  NULL_START,
  TYPE_KEY,
  bytesAre,
} from "../../../wire/bytes.js";
import { fastChunkKind, TEXT, TOOL_CALL_UPDATE, USER_CHUNK } from "../../fast-lines.js";
import {
  fastUserMessage,
  messageKind,
  messageToV1,
  takePlainChunk,
  takePlainChunkBytes,
  userMessageAtOnce,
} from "./messages.js";
import type { MessageKind } from "../../../convert/message.js";
import { noteBackground, terminalUpdate } from "./terminals.js";
import { fastPlanUpdate, planUpdateToV1 } from "./plans.js";
import {
  emitToolCall,
  fastToolCallMembers,
  fastToolCallUpdate,
  flushPendingTools,
  toolCallContentChunk,
  toolCallUpdate,
} from "./tool-calls.js";

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
  /** The client serves `fs/read_text_file`, `fs/write_text_file`, `terminal/*` (the editor's tools, H §6.5). */
  readonly fsRead?: boolean;
  readonly fsWrite?: boolean;
  readonly terminals?: boolean;
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
  /** Told what the conversions lost (`--report`); absent: nobody asks. */
  readonly observer?: BridgeObserver | undefined;
  /** The connection's content renderings with a diff, to repeat on a completion as shown (`ShownContents`). */
  readonly shownContent?: ShownContent | undefined;
}

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
export function isUpdate<T extends string>(update: Obj, ...tags: T[]): update is Obj & V2Update<T> {
  return tags.some((t) => t === update.sessionUpdate);
}

/** A string, `null` or absent: what both versions take for `session_info_update`'s fields. */
function isTextOrNull(x: unknown): boolean {
  return x === undefined || x === null || typeof x === "string";
}

/** A raw tool-call body (patch or view): its id is checked here, the rest by the converters. */
export function isToolCallBody(x: unknown): x is v2.ToolCallUpdate {
  return isObject(x) && typeof x.toolCallId === "string";
}

/**
 * The fast path's share of `updateToV1` (engine/fast-lines.ts), for an update the scan proved: a
 * plain text chunk of an agent message or thought (the bulk of a stream), or of a user's where the
 * prompt lifecycle decides at once, or a string-only tool call update (`fastToolCallUpdate`), with
 * no tool call's content waiting to be flushed before it.
 * Returns the bytes the client gets, having recorded the update exactly as the full path records
 * it; undefined, having changed nothing, and the full path takes it.
 */
export function fastUpdateToV1(s: SessionA, u: ScannedUpdate, ctx: UpdateContext): Buffer | undefined {
  if (s.pendingTools.size > 0) return undefined;
  // Tags compared as bytes: nothing decoded for the test.
  if (u.is(SLOT.sessionUpdate, TOOL_CALL_UPDATE)) return fastToolCallUpdate(s, u, ctx);
  const kind = fastChunkKind(u) ?? (u.is(SLOT.sessionUpdate, USER_CHUNK) ? "user" : undefined);
  if (kind === undefined || u.keys.length !== 3 || u.contentKeys.length !== 2 || !u.is(SLOT["content.type"], TEXT))
    return undefined;
  const id = u.string(SLOT.messageId);
  if (id === undefined) return undefined;
  if (kind !== "user") return takeChunk(s, kind, id, u) ? u.line : undefined;
  // A user's chunk goes where the prompt lifecycle sends it (`renderUpdate`): here only where it
  // decides at once, and a chunk it forwards only where it is taken plain.
  const decision = userMessageAtOnce(s, id, () => takeChunk(s, kind, id, u));
  return decision === undefined ? undefined : decision === "forward" ? u.line : WRITES_NOTHING;
}

/** `takePlainChunk` of a proven plain text chunk, read from the bytes where it can be. */
function takeChunk(s: SessionA, kind: MessageKind, id: string, u: ScannedUpdate): boolean {
  // A message kept as numbers needs no string of the text: its digest is read from the bytes.
  if (takePlainChunkBytes(s, kind, id, u)) return true;
  const text = u.string(SLOT["content.text"]);
  return text !== undefined && takePlainChunk(s, kind, id, text);
}

/** The tags `fastMembersToV1` renders, as `scanMembers` compares them: the index is the tag's. */
export const MEMBER_TAGS: readonly Buffer[] = [
  Buffer.from("usage_update"),
  Buffer.from("session_info_update"),
  Buffer.from("available_commands_update"),
  Buffer.from("tool_call_update"),
  Buffer.from("state_update"),
  Buffer.from("plan_update"),
  Buffer.from(kindInfo("user").upsert),
];
const USAGE = 0;
const SESSION_INFO = 1;
const COMMANDS = 2;
const TOOL_CALL = 3;
const STATE = 4;
const PLAN = 5;
const USER_MESSAGE = 6;
/** The tags of `MEMBER_TAGS` taken at any place too: Claude's adapter writes a tool call's tag after its members. */
export const MEMBER_TAGS_ANYWHERE: readonly Buffer[] = MEMBER_TAGS.slice(TOOL_CALL, TOOL_CALL + 1);

/** Member `k` is absent, or an object without the stash's key at any depth (`unstash` finds nothing). */
function plainMeta(m: ScannedMembers, k: number): boolean {
  return m.isObjectWithout(k, STASH_KEY_BYTES);
}

/**
 * The fast path's share of `updateToV1` for an update `scanMembers` proved canonical: a
 * `usage_update` or `session_info_update` whose v1 form is its own bytes (T §2.9), a usage update
 * that gets the last cost again (`usageToV1`: the cost member added last), a command list, or a
 * `tool_call_update` of the members v1 carries unchanged (`fastToolCallMembers`). Undefined, having
 * changed nothing, for anything the full path must decide (a cost, a stash, a field of the wrong type).
 */
export function fastMembersToV1(s: SessionA, m: ScannedMembers, ctx: UpdateContext): Buffer | undefined {
  if (s.pendingTools.size > 0) return undefined;
  if (m.tag === TOOL_CALL) return fastToolCallMembers(s, m);
  if (m.tagAt !== 0) return undefined;
  if (m.tag === STATE) return fastStateUpdate(s, m);
  if (m.tag === PLAN) return fastPlanUpdate(s, m, ctx);
  if (m.tag === USER_MESSAGE) return fastUserMessage(s, m, ctx);
  if (m.tag === SESSION_INFO) {
    // `sessionInfoToV1` copies every member, `_meta` unstashed (nothing to unstash here).
    if (!m.isTextOrNull(m.indexOf("title")) || !m.isTextOrNull(m.indexOf("updatedAt"))) return undefined;
    return plainMeta(m, m.indexOf("_meta")) ? m.line : undefined;
  }
  if (m.tag === COMMANDS) {
    const k = m.indexOf("availableCommands");
    if (k < 0 || !plainMeta(m, m.indexOf("_meta"))) return undefined;
    return commandsToV1Bytes(m.line, m.starts[k] ?? -1);
  }
  if (m.tag !== USAGE || !plainMeta(m, m.indexOf("_meta"))) return undefined;
  // `checkUsage`: safe non-negative integers (a canonical integer has at most 15 digits, no sign).
  for (const key of ["used", "size"]) {
    const k = m.indexOf(key);
    if (!m.isCount(k)) return undefined;
  }
  const c = m.indexOf("cost");
  if (c >= 0) {
    // A cost object goes as it is and is the last cost from now on (`usageToV1`); a null (stashed)
    // or anything `checkUsage` refuses takes the full path.
    if (!m.startsWith(c, OPEN_OBJECT)) return undefined;
    const given = m.value(c);
    if (!isCost(given)) return undefined;
    s.lastCost = given;
    return m.line;
  }
  const cost = s.lastCost;
  if (cost === undefined) return m.line;
  // The last cost again, invented: a stash would mark it (Stash.invented), so only with none.
  if (ctx.opts.stash !== "off") return undefined;
  if (cost !== costShown.cost) costShown = { cost, bytes: Buffer.from(`,"cost":${JSON.stringify(cost)}`) };
  return m.withLastMember(costShown.bytes);
}

/** What a fast path returns for an update it took that the v1 client gets nothing for. */
export const WRITES_NOTHING = Buffer.alloc(0);

/** The busy states, as their canonical bytes: what the v1 client gets for them is nothing. */
const BUSY_STATES = [Buffer.from('"running"'), Buffer.from('"requires_action"')] as const;
const BUSY_STATE_NAMES = ["running", "requires_action"] as const;

/**
 * The fast path of a `state_update` to a busy state (T §1.2 rules 3 and 4): the prompt lifecycle
 * notes it, as the full path's `stateUpdate` does, from an update of the same state (the only
 * member it and `noteBackground` read of an update that is not idle), and the v1 client gets
 * nothing (toward a bridge, an extension update: `fastMembers` declines a bridge client). An idle
 * state, or any other, takes the full path.
 */
function fastStateUpdate(s: SessionA, m: ScannedMembers): Buffer | undefined {
  const k = m.indexOf("state");
  if (k < 0) return undefined;
  const state = BUSY_STATE_NAMES[BUSY_STATES.findIndex((bytes) => m.valueIs(k, bytes))];
  if (state === undefined) return undefined;
  // A busy state answers no prompt: nothing comes back to write.
  s.lifecycle.stateUpdate({ sessionUpdate: "state_update", state });
  return WRITES_NOTHING;
}

/** The member last added for a cost (the same cost object, held by a session, goes on many updates). */
let costShown: { cost: unknown; bytes: Buffer } = { cost: undefined, bytes: Buffer.alloc(0) };

const NAME_KEY = Buffer.from('"name"');
const DESCRIPTION_KEY = Buffer.from('"description"');
const META_KEY = Buffer.from('"_meta"');
const INPUT_KEY = Buffer.from('"input"');
const HINT_KEY = Buffer.from('"hint"');

/**
 * `availableCommandsToV1` on the bytes of a proven list (at `at`): every command of type `command`
 * loses its `type` member, and its text input (of a string `hint`) the input's; the rest is copied
 * in order (T §2.8 A↓), `_meta` too when it holds no stash key. The line with those members cut, or
 * undefined for anything else (another type, a field of the wrong type, a stash): the full path.
 */
function commandsToV1Bytes(line: Buffer, at: number): Buffer | undefined {
  if (line[at] !== OPEN_ARRAY) return undefined;
  // Byte ranges to cut, in order.
  const cuts: number[] = [];
  const ms: number[] = [];
  for (let i = at + 1; line[i] !== CLOSE_ARRAY;) {
    while (ms.length > 0) ms.pop();
    const end = objectMembers(line, i, ms);
    if (end < 0) return undefined;
    // Proven canonical: a comma or the list's end after each item.
    i = line[end] === COMMA ? end + 1 : end;
    let type = -1;
    let name = false;
    let description = false;
    let input = -1;
    for (let k = 0; k < ms.length; k += 3) {
      const key = ms[k] ?? -1;
      const value = ms[k + 1] ?? -1;
      const end = ms[k + 2] ?? -1;
      const keyEnd = value - 1;
      if (bytesAre(line, key, keyEnd, TYPE_KEY)) {
        if (!bytesAre(line, value, end, COMMAND)) return undefined;
        type = k;
      } else if (bytesAre(line, key, keyEnd, NAME_KEY)) name = line[value] === QUOTE;
      else if (bytesAre(line, key, keyEnd, DESCRIPTION_KEY)) description = line[value] === QUOTE;
      else if (bytesAre(line, key, keyEnd, META_KEY)) {
        if (line[value] !== NULL_START && !(line[value] === OPEN_OBJECT && !holdsStash(line, value, end)))
          return undefined;
      } else if (bytesAre(line, key, keyEnd, INPUT_KEY) && line[value] !== NULL_START) input = k;
    }
    if (type < 0 || !name || !description) return undefined;
    cutMember(ms, type, cuts);
    if (input >= 0) {
      const ins: number[] = [];
      if (objectMembers(line, ms[input + 1] ?? -1, ins) < 0) return undefined;
      let inputType = -1;
      let hint = false;
      for (let k = 0; k < ins.length; k += 3) {
        const key = ins[k] ?? -1;
        const value = ins[k + 1] ?? -1;
        const end = ins[k + 2] ?? -1;
        const keyEnd = value - 1;
        if (bytesAre(line, key, keyEnd, TYPE_KEY)) {
          if (!bytesAre(line, value, end, TEXT_VALUE)) return undefined;
          inputType = k;
        } else if (bytesAre(line, key, keyEnd, HINT_KEY)) hint = line[value] === QUOTE;
        else if (bytesAre(line, key, keyEnd, META_KEY) && line[value] !== NULL_START && line[value] !== OPEN_OBJECT)
          return undefined;
      }
      if (inputType < 0 || !hint) return undefined;
      // The input comes after the command's type or before it: its cut joins the list in order.
      const inputCuts: number[] = [];
      cutMember(ins, inputType, inputCuts);
      if (input < type) cuts.splice(cuts.length - 2, 0, ...inputCuts);
      else cuts.push(...inputCuts);
    }
  }
  return cuts.length === 0 ? line : withoutRanges(line, cuts);
}

/** The bytes of member `k` (of `members`, triples) and one comma beside it, as a cut range. */
function cutMember(members: readonly number[], k: number, cuts: number[]): void {
  const count = members.length / 3;
  const index = k / 3;
  if (index + 1 < count) cuts.push(members[k] ?? 0, members[k + 3] ?? 0);
  else if (index > 0) cuts.push(members[k - 1] ?? 0, members[k + 2] ?? 0);
  // The only member: `{}` is left.
  else cuts.push(members[k] ?? 0, members[k + 2] ?? 0);
}

function holdsStash(line: Buffer, start: number, end: number): boolean {
  const at = line.indexOf(STASH_KEY_BYTES, start);
  return at >= 0 && at + STASH_KEY_BYTES.length <= end;
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
    case "plan_update":
      return isUpdate(update, "plan_update") ? planUpdateToV1(s, update, ctx, meta) : NOTHING;
    case "available_commands_update": {
      if (!isUpdate(update, "available_commands_update")) return NOTHING;
      const r = availableCommandsToV1(update, ctx.opts);
      if (dropped(r, ctx, "available_commands_update", update)) return NOTHING;
      return [clientUpdate(s.sessionId, withMembers(r.value, { sessionUpdate: "available_commands_update" }), meta)];
    }
    case "config_option_update": {
      const r = configOptionUpdateToV1Updates(
        update,
        s.configOptions,
        { booleanOptions: ctx.flags.booleanOptions },
        ctx.opts,
      );
      if (dropped(r, ctx, "config_option_update", update)) return NOTHING;
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
      if (dropped(r, ctx, "session_info_update", update)) return NOTHING;
      return [clientUpdate(s.sessionId, r.value, meta)];
    }
    case "usage_update": {
      if (!isUpdate(update, "usage_update")) return NOTHING;
      const r = usageToV1(update, s.lastCost, ctx.opts);
      if (dropped(r, ctx, "usage_update", update)) return NOTHING;
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
      if (dropped(r, ctx, tag, update)) return NOTHING;
      if (r.value === null) {
        ctx.log.debug(`dropped ${tag}: the v1 client did not opt into it (session.notices / session.compaction)`);
        noteDropped(ctx.observer, updateKind(tag), "agent", update, "the v1 client did not opt into it: dropped");
        return NOTHING;
      }
      if (r.value.sessionUpdate === "agent_message_chunk") s.noticeCount++;
      return [clientUpdate(s.sessionId, r.value, meta)];
    }
    default:
      // An extension or future variant: v1's union is closed (T §2.11).
      if (ctx.flags.bridgePeer) return [extUpdate(s.sessionId, update)];
      ctx.log.warnOnce(`update-${tag}`, `dropped session/update '${tag}': it has no v1 form`);
      noteDropped(ctx.observer, updateKind(tag), "agent", update, "no v1 form: dropped");
      return NOTHING;
  }
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
