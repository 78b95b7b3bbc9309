// Direction A's message chunks toward the v1 client (T §2.1): the kind each message id was first
// seen with, plain text chunks taken whole, and the fast path's text chunk.
import { SLOT, type ScannedUpdate } from "../../../wire/update-scan.js";
import { isObject, type Obj } from "../../../base/json.js";
import {
  chunkToV1,
  firstUpsertState,
  maxChars,
  plainTextChunkState,
  upsertToV1Chunks,
  type MessageKind,
} from "../../../convert/message.js";
import { contentBlockToV1 } from "../../../convert/content.js";
import { kindInfo } from "../../../../mappings/message.js";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { objectMembers, type ScannedMembers } from "../../../wire/member-scan.js";
import { CLOSE_ARRAY, OPEN_ARRAY, QUOTE, TYPE_KEY, bytesAre, utf8 } from "../../../wire/bytes.js";
import { TEXT } from "../../../wire/commands-scan.js";
import { NOTHING, raw, type Outgoing } from "../../outgoing.js";
import { dropped } from "../../translating.js";
import type { SessionA } from "../session.js";
import { type Original, type UpdateContext, WRITES_NOTHING, clientUpdate, isUpdate } from "./index.js";

const MESSAGE_KINDS: Record<string, { kind: MessageKind; whole: boolean }> = {
  user_message_chunk: { kind: "user", whole: false },
  agent_message_chunk: { kind: "agent", whole: false },
  agent_thought_chunk: { kind: "thought", whole: false },
  user_message: { kind: "user", whole: true },
  agent_message: { kind: "agent", whole: true },
  agent_thought: { kind: "thought", whole: true },
};

/** The message variant a tag names (an own key only: `toString` is no variant). */
export function messageKind(tag: string | undefined): { kind: MessageKind; whole: boolean } | undefined {
  return tag !== undefined && Object.hasOwn(MESSAGE_KINDS, tag) ? MESSAGE_KINDS[tag] : undefined;
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
 * `takePlainChunk`'s hot path for a chunk the update scan proved, straight from the line's bytes
 * (`u`'s `content.text`): the text appended to a message kept as numbers, or a new message's first
 * text recorded as numbers. False, having changed nothing but the id's first kind, where the text is
 * needed as a string (the caller decodes it and takes `takePlainChunk`).
 */
export function takePlainChunkBytes(s: SessionA, kind: MessageKind, id: string, u: ScannedUpdate): boolean {
  const start = u.start(SLOT["content.text"]);
  if (start < 0 || firstKindOf(s, id, kind) !== kind) return false;
  const end = u.end(SLOT["content.text"]);
  // A message's first chunk is recorded from the bytes too, as `plainTextChunkState` records it
  // (in the context `takePlainChunk` gives it).
  return (
    s.sent.appendTextJson(kind, id, u.line, start, end) ||
    s.sent.startTextJson(kind, id, u.line, start, end, maxChars({ kind, firstKind: kind }))
  );
}

/**
 * A chunk of plain text (`{type:"text",text}` content, no other member, no `_meta`) that v1 shows
 * unchanged: recorded as shown and true, and its original bytes go to the client. False when it
 * needs rendering, and nothing changed but the id's first kind (recorded as the full path would).
 * The full path and the fast path (`fastUpdateToV1`) both take chunks through here.
 */
export function takePlainChunk(s: SessionA, kind: MessageKind, id: string, text: string): boolean {
  const firstKind = firstKindOf(s, id, kind);
  if (firstKind === kind && s.sent.appendText(kind, id, text)) return true;
  const next = plainTextChunkState(id, text, s.sent.get(kind, id), { kind, firstKind });
  if (!next) return false;
  s.sent.set(kind, id, next);
  return true;
}

export function messageToV1(
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
    if (dropped(r, ctx, update.sessionUpdate, update)) return NOTHING;
    s.sent.set(message.kind, id, r.value.sent);
    return r.value.chunks.map((c) => clientUpdate(s.sessionId, c, meta));
  }
  if (!isUpdate(update, "user_message_chunk", "agent_message_chunk", "agent_thought_chunk")) return NOTHING;
  const r = chunkToV1(update, sent, { kind: message.kind, firstKind }, ctx.opts);
  if (dropped(r, ctx, update.sessionUpdate, update)) return NOTHING;
  s.sent.set(message.kind, id, r.value.sent);
  return [clientUpdate(s.sessionId, r.value.update, meta)];
}

/** What a decision made at once reads of a user's message: nothing (`userMessageAtOnce`). */
const NO_UPDATE: Obj = Object.freeze({});
/** What such a decision releases later: nothing (it holds nothing). */
const RELEASES_NOTHING = (): readonly Outgoing[] => NOTHING;

/**
 * The prompt lifecycle's decision on user message `id` where it decides at once
 * (`userMessageAtOnce`), recorded as `userMessage` records it: "drop", or "forward" once `take` (the
 * rendering's record) succeeded. Undefined, nothing recorded by either, where the full path must
 * decide or `take` declined.
 */
export function userMessageAtOnce(s: SessionA, id: string, take: () => boolean): "forward" | "drop" | undefined {
  const lc = s.lifecycle;
  const decision = lc.userMessageAtOnce(id);
  if (decision === undefined || (decision === "forward" && !take())) return undefined;
  lc.userMessage(NO_UPDATE, id, RELEASES_NOTHING);
  return decision;
}

/** A whole user message's v1 chunk, around its block and id (`v1Chunk`'s members, in its order). */
const USER_CHUNK_HEAD = Buffer.from(`"sessionUpdate":${JSON.stringify(kindInfo("user").chunk)},"content":`);
const MESSAGE_ID_KEY = Buffer.from(',"messageId":');
const blockMembers: number[] = [];

/**
 * The range of the one block of a proven `content` list at `[start, end)` when it is a text block of
 * a `type` and a `text` member alone (in either order), and the range of its text between the
 * quotes; undefined otherwise.
 */
function soleTextBlock(
  line: Buffer,
  start: number,
  end: number,
): readonly [number, number, number, number] | undefined {
  if (line[start] !== OPEN_ARRAY) return undefined;
  blockMembers.length = 0;
  const blockEnd = objectMembers(line, start + 1, blockMembers);
  if (blockEnd < 0 || line[blockEnd] !== CLOSE_ARRAY || blockEnd + 1 !== end || blockMembers.length !== 6)
    return undefined;
  let type = false;
  let text = -1;
  let textEnd = -1;
  for (let k = 0; k < 6; k += 3) {
    const key = blockMembers[k] ?? 0;
    const value = blockMembers[k + 1] ?? 0;
    const valueEnd = blockMembers[k + 2] ?? 0;
    // `"text"` names the key as it spells the type's value.
    if (bytesAre(line, key, value - 1, TYPE_KEY)) type = bytesAre(line, value, valueEnd, TEXT);
    else if (bytesAre(line, key, value - 1, TEXT) && line[value] === QUOTE) {
      text = value + 1;
      textEnd = valueEnd - 1;
    }
  }
  return type && text >= 0 ? [start + 1, blockEnd, text, textEnd] : undefined;
}

/** A user's message, as the converters' context names it. */
const USER_MESSAGE = { kind: "user", firstKind: "user" } as const;

/**
 * The fast path of a `user_message` (T §2.2 A↓-2) proven by the member scan, the tag first: the
 * first sighting of its id, one plain text block, nothing else, no stash to write. The prompt
 * lifecycle decides at once (`userMessageAtOnce`) or the full path takes it; forwarded, the client
 * gets the one chunk `upsertToV1Chunks` renders, the block's own bytes in it, and the message is
 * recorded as that renders it. Undefined, having changed nothing, for anything else.
 */
export function fastUserMessage(s: SessionA, m: ScannedMembers, ctx: UpdateContext): Buffer | undefined {
  if (ctx.opts.stash !== "off" || m.count !== 3) return undefined;
  const idAt = m.indexOf("messageId");
  const contentAt = m.indexOf("content");
  if (idAt < 0 || contentAt < 0) return undefined;
  const id = m.text(idAt);
  if (id === undefined || s.idKind.get(id) !== undefined || s.sent.get("user", id) !== undefined) return undefined;
  const block = soleTextBlock(m.line, m.starts[contentAt] ?? 0, m.ends[contentAt] ?? 0);
  if (block === undefined) return undefined;
  const decision = userMessageAtOnce(s, id, () => {
    // A block of a type and a text alone is v1's as it is (`contentBlockToV1`): recorded from its
    // text's bytes as `firstUpsertState` records it (one text block, as its length and digests),
    // but for a text the converters keep verbatim, which takes the converter.
    if (!s.sent.startTextJson("user", id, m.line, block[2], block[3], maxChars(USER_MESSAGE))) {
      const r = contentBlockToV1(JSON.parse(utf8(m.line, block[0], block[1])) as v2.ContentBlock, ctx.opts);
      if (!r.ok || r.lost.length > 0) return false;
      s.sent.set("user", id, firstUpsertState(id, r.value, USER_MESSAGE));
    }
    s.idKind.set(id, "user");
    return true;
  });
  if (decision === undefined) return undefined;
  return decision === "drop"
    ? WRITES_NOTHING
    : m.withMembers([USER_CHUNK_HEAD, [block[0], block[1]], MESSAGE_ID_KEY, m.range(idAt)]);
}
