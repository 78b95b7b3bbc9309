// Direction B's message chunks toward the v2 client (T §2.1 B↓): the kind each chunk tag names,
// the message id each chunk gets (assigned or generated), and the fast path's chunk.
import type * as v1 from "@agentclientprotocol/sdk";
import { contentBlockToV2 } from "../../../convert/content.js";
import type { Obj } from "../../../base/json.js";
import {
  assignChunkId,
  v1ChunkMessageId,
  v1ChunkToV2Updates,
  type ChunkIdState,
  type MessageKind,
} from "../../../convert/message.js";
import { generatedMessageId, messageTable } from "../../../../mappings/message.js";
import { NOTHING, type Outgoing } from "../../outgoing.js";
import { dropped } from "../../translating.js";
import type { SessionB } from "../session.js";
import { SLOT, type ScannedUpdate } from "../../../wire/update-scan.js";
import { TEXT } from "../../fast-lines.js";
import { type UpdateContextB, boundary, clientUpdate, updatesOf } from "./index.js";
import { withMembers, copyMembers } from "../../../base/json.js";

const CHUNK_KINDS: Record<string, MessageKind> = {
  user_message_chunk: "user",
  agent_message_chunk: "agent",
  agent_thought_chunk: "thought",
};

/** The message kind a chunk tag names (an own key only: `constructor` is no chunk). */
export function chunkKind(tag: string | undefined): MessageKind | undefined {
  return tag !== undefined && Object.hasOwn(CHUNK_KINDS, tag) ? CHUNK_KINDS[tag] : undefined;
}

/** How every generated id starts, whatever its session and kind (`generatedMessageId`). */
const GENERATED_HEAD = messageTable.generatedIdPrefix + messageTable.generatedIdSeparator;

/**
 * A v1 chunk `{sessionUpdate, messageId?, content:{type:"text",text}}` (keys in any order) of an
 * agent message or thought: v2 gets it unchanged (`plainChunkToV2` copies it; a text block has
 * nothing to convert), with `messageId` appended when it has none. The echo window closes, as
 * `chunk` closes it for a non-user chunk. An id the echo aliased is renamed: the full path's.
 */
export function fastChunk(s: SessionB, u: ScannedUpdate, kind: MessageKind): Buffer | undefined {
  const n = u.keys.length;
  if (!u.keys.includes("content") || n !== (u.keys.includes("messageId") ? 3 : 2)) return undefined;
  if (u.contentKeys.length !== 2 || !u.is(SLOT["content.type"], TEXT)) return undefined;
  const raw = u.string(SLOT.messageId);
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

export function chunk(
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
    if (dropped(conv, ctx, update.sessionUpdate, update.content)) return NOTHING;
    const body: Obj = copyMembers(update);
    delete body.sessionUpdate;
    const content = conv.value;
    delete body.messageId;
    const out = echo.first
      ? withMembers(body, { sessionUpdate: "user_message", messageId: echo.messageId, content: [content] })
      : withMembers(body, { sessionUpdate: "user_message_chunk", messageId: echo.messageId, content });
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
  if (dropped(r, ctx, update.sessionUpdate, update)) return id.flushed;
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
  return withMembers(state, { counter: { ...state.counter, [kind]: n } });
}
