// Direction B, agent → client: every v1 `session/update` variant rendered for a v2 client (T §2):
// message ids synthesized, tool calls turned into upserts, plans, modes as a config option.
import type * as v1 from "@agentclientprotocol/sdk";
import type * as v1u from "@agentclientprotocol/sdk/unstable";
import { messageTable } from "../../../../mappings/message.js";
import { availableCommandsToV2 } from "../../../convert/command.js";
import { configOptionUpdateToV2 } from "../../../convert/config-option.js";
import { isObject, jsonEqual, type Obj, withMembers } from "../../../base/json.js";
import { isSynthetic, STASH_KEY_BYTES, unstash } from "../../../convert/stash.js";
import { isRfc3339 } from "../../../convert/rfc3339.js";
import type { ScannedMembers } from "../../../wire/member-scan.js";
import { OPEN_OBJECT } from "../../../wire/bytes.js";
import { syntheticNames as SN } from "../../../../mappings/config-option.js";
import { closeOpenMessage, flushPendingUpsert } from "../../../convert/message.js";
import { currentModeUpdateToConfigOptionUpdate } from "../../../convert/mode.js";
import { compactionSummaryChunkToV2, compactionUpdateToV2, noticeToV2 } from "../../../convert/notice.js";
import { planUpdateToV2Native } from "../../../convert/plan.js";
import { sessionInfoToV2 } from "../../../convert/session-info.js";
import type { ConvertOptions } from "../../../convert/stash.js";
import { isCost, usageToV2 } from "../../../convert/usage.js";
import type { Logger } from "../../../log.js";
import { notify, NOTHING, type Outgoing } from "../../outgoing.js";
import { dropped } from "../../translating.js";
import { noteDropped, updateKind, type BridgeObserver } from "../../observer.js";
import type { SessionB } from "../session.js";
import { SLOT, type ScannedUpdate } from "../../../wire/update-scan.js";
import { fastChunkKind, TOOL_CALL_UPDATE } from "../../fast-lines.js";
import { chunk, chunkKind, fastChunk } from "./messages.js";
import { fastToolCallMembers, fastToolCallUpdate, toolCall } from "./tool-calls.js";
import { fastPlan, planToV2 } from "./plans.js";

export interface UpdateContextB {
  readonly opts: ConvertOptions;
  readonly log: Logger;
  /** Largest file read to place a v1 snippet diff (0 or absent: none). */
  readonly diffFileMaxBytes?: number;
  /** The v2 client is an A bridge: the `_meta` terminal convention rides on to its v1 client as sent. */
  readonly clientIsBridge?: boolean;
  /** Told what the conversions lost (`--report`); absent: nobody asks. */
  readonly observer?: BridgeObserver | undefined;
}

/** A v2 `session/update` to the client; `meta` is the v1 notification's `_meta`, carried over. */
export function clientUpdate(sessionId: string, update: unknown, meta?: unknown): Outgoing {
  const params: Obj = { sessionId, update };
  if (meta !== undefined && meta !== null) params._meta = meta;
  return notify("client", "session/update", params);
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

/** Kept while a resume is answered through `session/load` (H §2.3): the rest is history. */
const KEPT_DURING_SUPPRESSED_REPLAY = new Set([
  "available_commands_update",
  "config_option_update",
  "current_mode_update",
  "session_info_update",
  "usage_update",
]);

export function updatesOf(s: SessionB, updates: readonly unknown[], meta?: unknown): Outgoing[] {
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
    case "plan":
      return planToV2(s, update, ctx, meta);
    case "current_mode_update": {
      const r = currentModeUpdateToConfigOptionUpdate(update, s.config, ctx.opts);
      if (dropped(r, ctx, "current_mode_update", update)) return NOTHING;
      s.config = r.value.config;
      return r.value.update ? [clientUpdate(s.sessionId, r.value.update, meta)] : NOTHING;
    }
    case "config_option_update": {
      const r = configOptionUpdateToV2(update, { modes: s.config.modes, models: s.config.models }, ctx.opts);
      if (dropped(r, ctx, "config_option_update", update)) return NOTHING;
      s.config = withMembers(s.config, { configOptions: update.configOptions });
      return [clientUpdate(s.sessionId, withMembers(r.value, { sessionUpdate: "config_option_update" }), meta)];
    }
    case "available_commands_update": {
      const r = availableCommandsToV2(update as v1.AvailableCommandsUpdate, ctx.opts);
      if (dropped(r, ctx, "available_commands_update", update)) return NOTHING;
      const list = r.value.availableCommands;
      // A chained A bridge's follow-up to a session result (H §4.1): the client has this very list
      // in the result it got (restored from the stash), and a direct v2 agent sends no such update.
      const { meta: own, env } = unstash(meta, 2);
      const followUp = isSynthetic(env, SN.commandsFollowUp);
      const known = followUp && s.availableCommands !== undefined && jsonEqual(s.availableCommands, list);
      s.availableCommands = list;
      if (known) return NOTHING;
      return [
        clientUpdate(
          s.sessionId,
          withMembers(r.value, { sessionUpdate: "available_commands_update" }),
          followUp ? own : meta,
        ),
      ];
    }
    case "session_info_update": {
      const r = sessionInfoToV2(update, ctx.opts);
      if (dropped(r, ctx, "session_info_update", update)) return NOTHING;
      const { title, updatedAt } = r.value;
      if (typeof title === "string") s.title = title;
      if (typeof updatedAt === "string") s.updatedAt = updatedAt;
      return [clientUpdate(s.sessionId, withMembers(r.value, { sessionUpdate: "session_info_update" }), meta)];
    }
    case "usage_update": {
      const r = usageToV2(update as v1.UsageUpdate, s.costForwarded, ctx.opts);
      if (dropped(r, ctx, "usage_update", update)) return NOTHING;
      s.costForwarded = r.value.costForwarded;
      return [clientUpdate(s.sessionId, withMembers(r.value.update, { sessionUpdate: "usage_update" }), meta)];
    }
    case "notice": {
      const r = noticeToV2(update as v1.Notice);
      if (dropped(r, ctx, "notice", update)) return NOTHING;
      return [clientUpdate(s.sessionId, withMembers(r.value, { sessionUpdate: "notice" }), meta)];
    }
    case "compaction_update": {
      const r = compactionUpdateToV2(update as v1.CompactionUpdate, ctx.opts);
      if (dropped(r, ctx, "compaction_update", update)) return NOTHING;
      return [clientUpdate(s.sessionId, withMembers(r.value, { sessionUpdate: "compaction_update" }), meta)];
    }
    case "compaction_summary_chunk": {
      const r = compactionSummaryChunkToV2(update as v1.CompactionSummaryChunk, ctx.opts);
      if (dropped(r, ctx, "compaction_summary_chunk", update)) return NOTHING;
      return [clientUpdate(s.sessionId, withMembers(r.value, { sessionUpdate: "compaction_summary_chunk" }), meta)];
    }
    case "plan_update": {
      // v1 unstable, and a variant v2 knows: it passes as it is when v2 accepts its content.
      const r = planUpdateToV2Native(update as unknown as v1u.PlanUpdate);
      if (dropped(r, ctx, "plan_update", update)) return NOTHING;
      return [clientUpdate(s.sessionId, r.value, meta)];
    }
    default:
      if (V2_ONLY_VARIANTS.has(tag)) {
        ctx.log.warn(`dropped a session/update '${tag}' from the v1 agent: no v1 variant has that name`);
        noteDropped(ctx.observer, updateKind(tag), "agent", update, "a v2-only variant from a v1 agent: dropped");
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
  if (u.is(SLOT.sessionUpdate, TOOL_CALL_UPDATE)) return fastToolCallUpdate(s, u) ? u.line : undefined;
  const kind = fastChunkKind(u);
  return kind === undefined ? undefined : fastChunk(s, u, kind);
}

/** The tags `fastMembersToV2` renders, as `scanMembers` compares them: the index is the tag's. */
export const MEMBER_TAGS: readonly Buffer[] = [
  Buffer.from("usage_update"),
  Buffer.from("session_info_update"),
  Buffer.from("tool_call"),
  Buffer.from("tool_call_update"),
  Buffer.from("plan"),
];
const USAGE = 0;
const SESSION_INFO = 1;
const TOOL_CALL = 2;
const TOOL_CALL_UPDATE_TAG = 3;
const PLAN = 4;
/** The tags of `MEMBER_TAGS` taken at any place too: Claude's adapter writes a tool call's tag after its `_meta` and id. */
export const MEMBER_TAGS_ANYWHERE: readonly Buffer[] = MEMBER_TAGS.slice(TOOL_CALL, PLAN);

/** The member `usageToV2` adds to clear a cost it forwarded. */
const COST_CLEARED = Buffer.from(',"cost":null');

/**
 * The fast path's share of `updateToV2` for an update `scanMembers` proved canonical, whose v2 form
 * is its own bytes (T §2.9), or a plan's (`fastPlan`): a `usage_update` with a cost object, or without a cost (after a
 * forwarded one, with the null `usageToV2` adds to clear it), a `session_info_update` whose `updatedAt` is RFC 3339 already
 * (`sessionInfoToV2` stashes nothing); a `_meta` without a stash (the converters keep it where it
 * is); a tool call of members v2 has as they are (`fastToolCallMembers`). The state is recorded as
 * the full path records it; undefined, having changed nothing, for anything else
 * (test/engine/fast-updates-b.test.ts proves the bytes equal).
 */
export function fastMembersToV2(s: SessionB, m: ScannedMembers, ctx: UpdateContextB): Buffer | undefined {
  if (s.pendingUpsert !== undefined) return undefined;
  if (m.tag === TOOL_CALL || m.tag === TOOL_CALL_UPDATE_TAG) return fastToolCallMembers(s, m, m.tag === TOOL_CALL, ctx);
  if (m.tag === PLAN) return fastPlan(s, m);
  const meta = m.indexOf("_meta");
  if (!m.isObjectWithout(meta, STASH_KEY_BYTES)) return undefined;
  if (m.tag === SESSION_INFO) {
    const title = m.indexOf("title");
    const at = m.indexOf("updatedAt");
    if (!m.isTextOrNull(title) || !m.isTextOrNull(at)) return undefined;
    const updatedAt = at < 0 ? undefined : m.text(at);
    if (updatedAt !== undefined && !isRfc3339(updatedAt)) return undefined;
    const text = title < 0 ? undefined : m.text(title);
    if (text !== undefined) s.title = text;
    if (updatedAt !== undefined) s.updatedAt = updatedAt;
    return m.line;
  }
  // `checkUsage`: both counts present and safe non-negative integers.
  if (m.tag !== USAGE || !m.isCount(m.indexOf("used")) || !m.isCount(m.indexOf("size"))) return undefined;
  const c = m.indexOf("cost");
  if (c < 0) {
    // Without a cost, while none was forwarded: nothing to clear. After one, `usageToV2` clears it
    // with a null added last (its stash mark is nothing here: the fast path runs with the stash off).
    if (!s.costForwarded) return m.line;
    s.costForwarded = false;
    return m.withLastMember(COST_CLEARED);
  }
  // A cost object goes as it is, and is forwarded from now on; a null (stashed) takes the full path.
  if (!m.startsWith(c, OPEN_OBJECT) || !isCost(m.value(c))) return undefined;
  s.costForwarded = true;
  return m.line;
}
