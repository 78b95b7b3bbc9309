// Message chunks and whole-message upserts (T §2.1, §2.2): collision renames, B's id synthesis and
// its markers, and fanning v2 upserts out into v1 chunks given what v1 was already shown.
// Stateful parts are pure functions of the per-message state the engine keeps (T §7.1).

import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import {
  collisionId,
  generatedMessageId,
  kindInfo,
  messageTable,
  type MessageKind,
  replacementId,
} from "../../mappings/message.js";
import {
  contentBlockToV1,
  contentBlockToV2,
  expectObject,
  expectString,
  invalid,
  prefixLosses,
  unwrap,
} from "./content.js";
import { has, isObject, isString, jsonEqual, type Obj, setOwn, withMembers, copyMembers } from "../base/json.js";
import { limits } from "../../mappings/limits.js";
import { appendDigest, digestOf, sameDigest, startsWithDigest, type TextDigest } from "./text-digest.js";
import { attempt, type Conv, type Converted, type Loss, ok } from "./result.js";
import {
  type ConvertOptions,
  type Envelope,
  hasResidual,
  isSynthetic,
  residualOf,
  setMeta,
  Stash,
  unstash,
} from "./stash.js";

export type { MessageKind } from "../../mappings/message.js";

/** Marker ops on the first v1 chunk of a fanned-out upsert (T §2.2, T §7.2 `op`). */
type Op = "upsert" | "replace" | "clear" | "meta";
const OPS: ReadonlySet<string> = new Set<Op>(["upsert", "replace", "clear", "meta"]);

/** Synthetic name of a chunk the bridge added for the v1 user only (the redaction notice). */
const NOTICE = "notice";

/** The empty text block a marker chunk carries (T §2.2 A↓-5/6). */
function markerBlock(): v1.ContentBlock {
  return { type: "text", text: "" };
}

// ============================== A↓ (v2 → v1) ==============================

/** `sent[kind,id]` (T §2.2): what the v1 client has been shown of one v2 message. */
export interface SentMessage {
  /** The id v1 sees it under now; `undefined` = none (the ID-less v1 stream B's marker restores). */
  readonly v1Id: string | undefined;
  /**
   * Blocks as v1 has them, adjacent plain text merged (what v1 clients concatenate), while they
   * stay within `shownMaxChars`; beyond it `[]`, and `digest` stands for them (bounded memory).
   */
  readonly blocks: readonly v1.ContentBlock[];
  /** Characters of `blocks` (texts, other blocks serialized); absent: not counted yet. */
  readonly size?: number | undefined;
  /** What v1 was shown, once too long to keep (see ShownDigest). */
  readonly digest?: ShownDigest | undefined;
  /** Something was emitted for it ("ID already sent"). */
  readonly started: boolean;
  /** Replacements so far: the current `v1Id` ends in `~r<rev>` when > 0. */
  readonly rev: number;
  /** `_meta` of content-less upserts before the first chunk, materialized (T §2.2 A↓-3). */
  readonly deferredMeta?: Readonly<Obj> | undefined;
  /**
   * The content-less upserts before the first chunk (T §2.2 A↓-3): the one as it came (its
   * `content` and `_meta` members, when present), so a chained B restores it exactly; `several`
   * past one (then `deferredMeta` stands for them).
   */
  readonly deferred?: Readonly<Obj> | "several" | undefined;
}

/**
 * A message shown beyond the bound, in constant size: how many (merged) blocks, a digest of all but
 * the last, and the last one's digest (its text when plain text, which later chunks extend). An
 * upsert is proved to extend it exactly as `suffixOf` proves it on the blocks themselves.
 */
interface ShownDigest {
  readonly count: number;
  readonly head: TextDigest;
  readonly last: { readonly text: TextDigest } | { readonly other: TextDigest };
}

export interface MessageToV1Context {
  /** The kind of this update (from its `sessionUpdate`). */
  readonly kind: MessageKind;
  /** Characters of one message kept verbatim (default `limits.shownTextChars`); beyond, a digest. */
  readonly shownMaxChars?: number | undefined;
  /**
   * The engine's `idKind[messageId]`: the kind first seen under this v2 id in the session (record
   * the kind when it is `undefined`). Another kind than `kind` renames the id (T §2.1 A↓).
   */
  readonly firstKind: MessageKind | undefined;
}

export interface UpsertToV1Context extends MessageToV1Context {
  /** `config.redactionNotice` (default on): tell the v1 user a shown message was replaced or cleared. */
  readonly redactionNotice: boolean;
}

/** Synthetic on a B chunk: the v1 agent used its id for another kind of message too. */
const SHARED_ID = "sharedMessageId";

function freshSent(id: string, ctx: MessageToV1Context, idless: boolean): SentMessage {
  const renamed = ctx.firstKind !== undefined && ctx.firstKind !== ctx.kind;
  return {
    v1Id: idless ? undefined : renamed ? collisionId(id, ctx.kind) : id,
    blocks: [],
    size: 0,
    started: false,
    rev: 0,
  };
}

// ---- what v1 was shown, bounded (issue 10 item 5)

type Shown = Pick<SentMessage, "blocks" | "size" | "digest">;

/** Characters of one message kept verbatim: beyond them, its length and digests (`shownOf`). */
export function maxChars(ctx: MessageToV1Context): number {
  return ctx.shownMaxChars ?? limits.shownTextChars.default;
}

function blockSize(b: v1.ContentBlock): number {
  return isPlainText(b) ? b.text.length : JSON.stringify(b).length;
}

/** Serialization with sorted keys and no `undefined`: equal strings exactly when `jsonEqual`. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (isObject(v)) {
    const keys = Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`;
  }
  return JSON.stringify(v);
}

function blockDigest(b: v1.ContentBlock): ShownDigest["last"] {
  return isPlainText(b) ? { text: digestOf(b.text) } : { other: digestOf(canonical(b)) };
}

/** `head` followed by one closed block (its kind and digest: constant size whatever its length). */
function foldBlock(head: TextDigest, last: ShownDigest["last"]): TextDigest {
  const d = "text" in last ? last.text : last.other;
  return appendDigest(head, `${"text" in last ? "t" : "o"}${d.length}:${d.h1}:${d.h2};`);
}

/** `d`, whose last block is the text digested as `last`, with `text` appended to that block. */
function extendLastText(d: ShownDigest, last: TextDigest, text: string): ShownDigest {
  return { count: d.count, head: d.head, last: { text: appendDigest(last, text) } };
}

function digestAppend(d: ShownDigest | undefined, more: readonly v1.ContentBlock[]): ShownDigest | undefined {
  for (const b of more) {
    if (d !== undefined && "text" in d.last && isPlainText(b)) d = extendLastText(d, d.last.text, b.text);
    else if (d === undefined) d = { count: 1, head: digestOf(""), last: blockDigest(b) };
    else d = { count: d.count + 1, head: foldBlock(d.head, d.last), last: blockDigest(b) };
  }
  return d;
}

/** What to keep of `blocks` (merged), shown as a whole. */
function shownOf(blocks: readonly v1.ContentBlock[], max: number): Shown {
  let size = 0;
  for (const b of blocks) size += blockSize(b);
  if (size <= max) return { blocks, size, digest: undefined };
  return { blocks: [], size, digest: digestAppend(undefined, blocks) };
}

/** What to keep once `more` is shown after what `s` was shown. */
function appendShown(s: SentMessage, more: readonly v1.ContentBlock[], max: number): Shown {
  let size = s.size ?? s.blocks.reduce((n, b) => n + blockSize(b), 0);
  for (const b of more) size += blockSize(b);
  if (s.digest !== undefined) return { blocks: [], size, digest: digestAppend(s.digest, more) };
  const blocks = appendMerged(s.blocks, more);
  if (size <= max) return { blocks, size, digest: undefined };
  return { blocks: [], size, digest: digestAppend(undefined, blocks) };
}

/** What a message not started yet (`s`) keeps once `blocks` are its first shown (T §2.2 A↓-2). */
function firstShownState(s: SentMessage, blocks: readonly v1.ContentBlock[], ctx: MessageToV1Context): SentMessage {
  return { v1Id: s.v1Id, ...shownOf(appendMerged([], blocks), maxChars(ctx)), started: true, rev: s.rev };
}

/**
 * `upsertToV1Chunks`' state for the first sighting of message `id` whose content is one text block
 * `block` (already v1's, as `contentBlockToV1` renders it): the fast path's (engine/v1-client/updates/messages.ts).
 */
export function firstUpsertState(id: string, block: v1.ContentBlock, ctx: MessageToV1Context): SentMessage {
  return firstShownState(freshSent(id, ctx, false), [block], ctx);
}

function shownNothing(s: SentMessage): boolean {
  return s.blocks.length === 0 && s.digest === undefined;
}

/** `suffixOf` against a digest: the same answer, from constant-size state. */
function suffixOfDigest(shown: ShownDigest, next: readonly v1.ContentBlock[]): v1.ContentBlock[] | undefined {
  if (next.length < shown.count) return undefined;
  let head = digestOf("");
  for (const b of next.slice(0, shown.count - 1)) head = foldBlock(head, blockDigest(b));
  if (!sameDigest(head, shown.head)) return undefined;
  const b = next[shown.count - 1];
  if (b === undefined) return undefined;
  const out: v1.ContentBlock[] = [];
  if ("text" in shown.last) {
    const d = shown.last.text;
    if (!isPlainText(b) || !startsWithDigest(b.text, d)) return undefined;
    if (b.text.length > d.length) out.push({ type: "text", text: b.text.slice(d.length) });
  } else if (!sameDigest(digestOf(canonical(b)), shown.last.other)) return undefined;
  return [...out, ...next.slice(shown.count)];
}

function isPlainText(b: unknown): b is { type: "text"; text: string } {
  if (!isObject(b) || b.type !== "text" || !isString(b.text)) return false;
  for (const k in b) if (k !== "type" && k !== "text") return false;
  return true;
}

/** Appends `more` to `blocks`, merging adjacent plain text blocks. */
function appendMerged(blocks: readonly v1.ContentBlock[], more: readonly v1.ContentBlock[]): v1.ContentBlock[] {
  const out = [...blocks];
  for (const b of more) {
    const last = out[out.length - 1];
    if (isPlainText(last) && isPlainText(b)) out[out.length - 1] = { type: "text", text: last.text + b.text };
    else out.push(b);
  }
  return out;
}

/** A patch applied to stored `_meta` (v2 upsert semantics: `null` clears, `null` values remove keys). */
function applyMetaPatch(base: Readonly<Obj> | undefined, patch: unknown): Obj {
  if (!isObject(patch)) return patch === null ? {} : { ...base };
  const out: Obj = copyMembers(base);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) Reflect.deleteProperty(out, k);
    else setOwn(out, k, v);
  }
  return out;
}

/** Blocks of `next` not yet shown, when `next` extends `shown` (both merged); else `undefined`. */
function suffixOf(shown: readonly v1.ContentBlock[], next: readonly v1.ContentBlock[]): v1.ContentBlock[] | undefined {
  if (next.length < shown.length) return undefined;
  const out: v1.ContentBlock[] = [];
  for (let i = 0; i < shown.length; i++) {
    const a = shown[i];
    const b = next[i];
    if (jsonEqual(a, b)) continue;
    // Only the last shown text block may have grown.
    if (i === shown.length - 1 && isPlainText(a) && isPlainText(b) && b.text.startsWith(a.text)) {
      out.push({ type: "text", text: b.text.slice(a.text.length) });
      continue;
    }
    return undefined;
  }
  return [...out, ...next.slice(shown.length)];
}

interface ChunkOut {
  readonly block: v1.ContentBlock;
  readonly v1Id: string | undefined;
  readonly v2Id: string;
  readonly stash: Stash;
  readonly extra?: Obj | undefined;
}

/** A v1 chunk update; names the v2 id in the stash when v1 sees another one. */
function v1Chunk(kind: MessageKind, c: ChunkOut): v1.SessionUpdate {
  const out: Obj = withMembers(c.extra, { sessionUpdate: kindInfo(kind).chunk, content: c.block });
  if (c.v1Id !== undefined) out.messageId = c.v1Id;
  if (c.v1Id !== undefined && c.v1Id !== c.v2Id && !has(c.stash.residual, "target")) c.stash.keep("messageId", c.v2Id);
  setMeta(out, c.stash.into(undefined));
  return out as v1.SessionUpdate;
}

/**
 * The fast path of `chunkToV1` for the most common chunk, a plain text block under an id v1 sees
 * unchanged: `undefined` when it does not apply (then `chunkToV1` must run), else the new state.
 * The v1 chunk is then exactly the v2 one, so the engine can forward its original bytes.
 */
export function plainTextChunkState(
  messageId: string,
  text: string,
  sent: SentMessage | undefined,
  ctx: MessageToV1Context,
): SentMessage | undefined {
  if (ctx.firstKind !== undefined && ctx.firstKind !== ctx.kind) return undefined;
  const s = sent ?? freshSent(messageId, ctx, false);
  if (s.v1Id !== messageId || (!s.started && (s.deferredMeta !== undefined || s.deferred !== undefined)))
    return undefined;
  const d = s.digest;
  if (d !== undefined && "text" in d.last && s.size !== undefined)
    // The hot path of a stream (the digest is the default): `appendShown` of one text block, built
    // without its intermediate objects.
    return {
      v1Id: s.v1Id,
      blocks: s.blocks,
      size: s.size + text.length,
      digest: extendLastText(d, d.last.text, text),
      started: true,
      rev: s.rev,
    };
  return { v1Id: s.v1Id, ...appendShown(s, [{ type: "text", text }], maxChars(ctx)), started: true, rev: s.rev };
}

/**
 * A↓ one v2 chunk (T §2.1), given the message's `sent` state (`undefined` on first sight).
 * Returns the v1 chunk and the new state. Forwarded as is, except: the id of a kind collision or a
 * replacement, no id for a message B marked `synthetic:["messageId"]`, and the `_meta` deferred
 * from content-less upserts (op `upsert`).
 */
export function chunkToV1(
  chunk: v2.ContentChunk,
  sent: SentMessage | undefined,
  ctx: MessageToV1Context,
  opts: ConvertOptions,
): Conv<{ update: v1.ContentChunk; sent: SentMessage }> {
  return attempt(() => {
    const src = expectObject(chunk, []);
    const id = expectString(src.messageId, ["messageId"]);
    const { meta, env } = unstash(src._meta, 1);
    const marked = isSynthetic(env, "messageId");
    // A v1 agent's own id shared across kinds (marked by B) is not renamed: its v1 client expects it.
    let s =
      sent ?? freshSent(id, isSynthetic(env, SHARED_ID) ? withMembers(ctx, { firstKind: undefined }) : ctx, marked);
    const block = unwrap(contentBlockToV1(src.content as v2.ContentBlock, opts), ["content"]);
    const lost = prefixLosses(["content"], block.lost);
    const out: Obj = withMembers(src, { content: block.value });
    const stash = new Stash(2, opts);
    // B's marker: the v1 chunk had no id (a later chunk of a started message: this chunk only).
    const v1Id = marked ? undefined : s.v1Id;
    if (v1Id === undefined) {
      if (hasResidual(env, "messageId")) out.messageId = residualOf(env, "messageId");
      else delete out.messageId;
    } else out.messageId = v1Id;
    if (v1Id !== undefined && v1Id !== id) {
      stash.keep("messageId", id);
      lost.push({ path: ["messageId"], reason: "the v2 id is shown to v1 under another id" });
    }
    if (!s.started && s.deferred !== undefined) {
      // Count 0: the upsert had no block; this chunk follows it (T §2.2 A↓-3).
      stash.keep("op", "upsert").keep("count", 0);
      const one = s.deferred === "several" ? undefined : s.deferred;
      if (one !== undefined && has(one, "content")) stash.keep("content", one.content);
      if (one !== undefined && has(one, "meta")) stash.keep("meta", one.meta);
      else if (s.deferredMeta !== undefined) stash.keep("meta", s.deferredMeta);
    }
    setMeta(out, stash.into(meta));
    s = { v1Id: s.v1Id, ...appendShown(s, [block.value], maxChars(ctx)), started: true, rev: s.rev };
    return ok({ update: out as v1.ContentChunk, sent: s }, lost);
  });
}

/**
 * A↓ a whole-message upsert (`user_message` / `agent_message` / `agent_thought`, T §2.2) as the v1
 * chunks that bring the v1 client to the same content, given the message's `sent` state: the
 * blocks of a new message (op `upsert`), only the new suffix of an extended one, a replacement under
 * `<id>~r<rev>` (op `replace`), or a marker chunk for a clear (op `clear`) or a `_meta` patch (op
 * `meta`). Emits nothing for a content-less new message; its `_meta` waits in `deferredMeta`.
 */
export function upsertToV1Chunks(
  upsert: v2.UserMessage | v2.AgentMessage | v2.AgentThought,
  sent: SentMessage | undefined,
  ctx: UpsertToV1Context,
  opts: ConvertOptions,
): Conv<{ chunks: v1.SessionUpdate[]; sent: SentMessage }> {
  return attempt(() => {
    const src = expectObject(upsert, []);
    const id = expectString(src.messageId, ["messageId"]);
    const content = src.content;
    if (content !== undefined && content !== null && !Array.isArray(content)) invalid(["content"], "expected_array");
    // `_meta` here is a patch of the message's stored metadata (`null` clears it).
    const { meta } = unstash(src._meta, 1);
    const hasMeta = meta !== undefined;
    const extra: Obj = {};
    for (const [k, v] of Object.entries(src)) {
      if (k !== "sessionUpdate" && k !== "messageId" && k !== "content" && k !== "_meta") setOwn(extra, k, v);
    }
    const lost: Loss[] = [];
    const blocks = (content ?? []).map((b: unknown, i) => {
      const r = unwrap(contentBlockToV1(b as v2.ContentBlock, opts), ["content", i]);
      lost.push(...prefixLosses(["content", i], r.lost));
      return r.value;
    });
    const s = sent ?? freshSent(id, ctx, false);
    const chunks: v1.SessionUpdate[] = [];
    const metaLost = (): void => {
      if (hasMeta) lost.push({ path: ["_meta"], reason: "v1 messages have no metadata" });
    };
    // Unknown keys of the upsert ride on its first chunk; lost when none is sent.
    let pendingExtra: Obj | undefined = Object.keys(extra).length > 0 ? extra : undefined;
    const emit = (block: v1.ContentBlock, v1Id: string | undefined, stash: Stash): void => {
      chunks.push(v1Chunk(ctx.kind, { block, v1Id, v2Id: id, stash, extra: pendingExtra }));
      pendingExtra = undefined;
    };
    const marker = (op: Op): Stash => {
      const stash = new Stash(2, opts).keep("op", op).keep("target", id);
      if (hasMeta) stash.keep("meta", meta);
      return stash;
    };
    const notice = (): void => {
      if (!ctx.redactionNotice || shownNothing(s)) return;
      const block: v1.ContentBlock = { type: "text", text: messageTable.redactionNotice };
      chunks.push(v1Chunk(ctx.kind, { block, v1Id: s.v1Id, v2Id: id, stash: new Stash(2, opts).invented(NOTICE) }));
    };
    let next: SentMessage;

    if (!s.started) {
      if (blocks.length === 0) {
        // T §2.2 A↓-3: nothing to show yet; the metadata waits for the first real chunk.
        const deferredMeta = hasMeta ? applyMetaPatch(s.deferredMeta, meta) : s.deferredMeta;
        for (const k of Object.keys(extra))
          lost.push({ path: [k], reason: "nothing is sent to v1 for an empty message" });
        const one: Obj = {};
        if (has(src, "content")) one.content = content;
        if (hasMeta) one.meta = meta;
        const deferred = s.deferred === undefined ? one : "several";
        return ok({ chunks, sent: withMembers(s, { deferredMeta, deferred }) }, lost);
      }
      // T §2.2 A↓-2: one chunk per block; the first carries the upsert's metadata.
      const stash = new Stash(2, opts).keep("op", "upsert").keep("count", blocks.length);
      if (s.deferredMeta === undefined) {
        if (hasMeta) stash.keep("meta", meta);
      } else stash.keep("meta", hasMeta ? applyMetaPatch(s.deferredMeta, meta) : s.deferredMeta);
      metaLost();
      blocks.forEach((b, i) => {
        emit(b, s.v1Id, i === 0 ? stash : new Stash(2, opts));
      });
      next = firstShownState(s, blocks, ctx);
    } else if (content === undefined) {
      // T §2.2 A↓-6: a metadata patch alone.
      if (hasMeta) emit(markerBlock(), s.v1Id, marker("meta"));
      metaLost();
      next = s;
    } else if (blocks.length === 0) {
      // T §2.2 A↓-5: cleared. v1 cannot retract: a marker, and the notice.
      const stash = marker("clear");
      if (Array.isArray(content)) stash.keep("content", content);
      emit(markerBlock(), s.v1Id, stash);
      notice();
      metaLost();
      lost.push({ path: ["content"], reason: "v1 cannot clear a message it has shown" });
      next = withMembers(s, { blocks: [], size: 0, digest: undefined });
    } else {
      const merged = appendMerged([], blocks);
      const suffix = s.digest !== undefined ? suffixOfDigest(s.digest, merged) : suffixOf(s.blocks, merged);
      if (suffix) {
        // T §2.2 A↓-4 prefix case: only what v1 has not seen yet.
        for (const b of suffix) emit(b, s.v1Id, new Stash(2, opts));
        if (hasMeta) emit(markerBlock(), s.v1Id, marker("meta"));
        metaLost();
        next = withMembers(s, shownOf(merged, maxChars(ctx)));
      } else {
        // T §2.2 A↓-4 replacement: the new content as a new v1 message `<id>~r<rev>`.
        notice();
        const rev = s.rev + 1;
        const base =
          s.v1Id === undefined || s.rev === 0 ? (s.v1Id ?? id) : s.v1Id.slice(0, -replacementId("", s.rev).length);
        const v1Id = replacementId(base, rev);
        const stash = marker("replace").keep("count", blocks.length);
        blocks.forEach((b, i) => {
          emit(b, v1Id, i === 0 ? stash : new Stash(2, opts));
        });
        metaLost();
        lost.push({ path: ["content"], reason: "v1 cannot replace a message it has shown; sent as a new one" });
        next = { v1Id, ...shownOf(merged, maxChars(ctx)), started: true, rev };
      }
    }
    if (pendingExtra)
      for (const k of Object.keys(pendingExtra)) lost.push({ path: [k], reason: "no v1 chunk carries it" });
    return ok({ chunks, sent: next }, lost);
  });
}

// ============================== B↓ (v1 → v2) ==============================

/** `open[kind]` and `counter[kind]` of T §2.1 B↓ (at most one message is open: kinds are boundaries). */
export interface ChunkIdState {
  readonly open: { readonly kind: MessageKind; readonly messageId: string; readonly generated: boolean } | undefined;
  readonly counter: Readonly<Record<MessageKind, number>>;
}

export const initialChunkIds: ChunkIdState = { open: undefined, counter: { user: 0, agent: 0, thought: 0 } };

/** `gen(kind)`: the next generated id of the session (T §2.1 B↓-5), e.g. for B's `userMsgId`. */
export function nextGeneratedId(
  state: ChunkIdState,
  sessionId: string,
  kind: MessageKind,
): { messageId: string; state: ChunkIdState } {
  const n = state.counter[kind] + 1;
  return {
    messageId: generatedMessageId(sessionId, kind, n),
    state: withMembers(state, { counter: { ...state.counter, [kind]: n } }),
  };
}

/**
 * B↓ the v2 id of a v1 chunk of `kind` whose own id is `v1Id` (see `v1ChunkMessageId`, after the
 * `alias` map), T §2.1 B↓-1..5. `synthetic`: mark the chunk (`ChunkToV2Context.synthetic`).
 */
export function assignChunkId(
  state: ChunkIdState,
  sessionId: string,
  kind: MessageKind,
  v1Id: string | undefined,
): { messageId: string; synthetic: boolean; state: ChunkIdState } {
  const open = state.open;
  if (v1Id !== undefined) {
    // A chunk of the open message leaves the state as it is (the per-chunk hot path builds nothing).
    const same = open?.kind === kind && open.messageId === v1Id && !open.generated;
    return {
      messageId: v1Id,
      synthetic: false,
      state: same ? state : { open: { kind, messageId: v1Id, generated: false }, counter: state.counter },
    };
  }
  // An ID-less chunk continues the open message of its kind; one inheriting a v1 agent's id is marked.
  if (open?.kind === kind) return { messageId: open.messageId, synthetic: !open.generated, state };
  const g = nextGeneratedId(state, sessionId, kind);
  return {
    messageId: g.messageId,
    synthetic: true,
    state: withMembers(g.state, { open: { kind, messageId: g.messageId, generated: true } }),
  };
}

/** A boundary (T §2.1 B↓-3: another kind, tool call, plan, permission, turn end, replay) closes it. */
export function closeOpenMessage(state: ChunkIdState): ChunkIdState {
  return state.open === undefined ? state : { open: undefined, counter: state.counter };
}

/** B↓ the v2 id a v1 chunk names: the original A stashed, a marker's target, or its own `messageId`. */
export function v1ChunkMessageId(chunk: v1.ContentChunk): string | undefined {
  if (!isObject(chunk)) return undefined;
  const { env } = unstash(chunk._meta, 2);
  const stashed = residualOf(env, "messageId");
  if (isString(stashed)) return stashed;
  const target = residualOf(env, "target");
  if (isString(target) && OPS.has(residualOf(env, "op") as string)) return target;
  return isString(chunk.messageId) ? chunk.messageId : undefined;
}

export interface ChunkToV2Context {
  readonly kind: MessageKind;
  /** The v2 id the engine assigned (see `assignChunkId`). */
  readonly messageId: string;
  /**
   * The v1 chunk had no id and this one was supplied: the first chunk of a message with a generated
   * id, or a chunk inheriting the open message's v1 id. Marked `synthetic:["messageId"]` so an A
   * bridge downstream restores the ID-less chunk (T §2.1 B↓-5).
   */
  readonly synthetic: boolean;
  /**
   * The v1 agent already used this id for a message of another kind. v1 clients cope with that (it is
   * their agent's doing), so an A bridge downstream keeps the id instead of renaming it (T §2.1 A↓).
   */
  readonly sharedId?: boolean;
}

function plainChunkToV2(
  chunk: unknown,
  ctx: ChunkToV2Context,
  opts: ConvertOptions,
  meta: unknown,
): Converted<v2.ContentChunk> {
  const src = expectObject(chunk, []);
  if (src.messageId !== undefined && src.messageId !== null && !isString(src.messageId))
    invalid(["messageId"], "expected_string");
  const block = unwrap(contentBlockToV2(src.content as v1.ContentBlock, opts), ["content"]);
  const out: Obj = withMembers(src, { messageId: ctx.messageId, content: block.value });
  const stash = new Stash(1, opts);
  const lost = prefixLosses(["content"], block.lost);
  // An A bridge downstream drops the supplied id again (and restores an explicit `null`).
  if (ctx.synthetic && (src.messageId === undefined || src.messageId === null)) stash.invented("messageId");
  if (src.messageId === null) stash.keep("messageId", null);
  if (ctx.sharedId === true) stash.invented(SHARED_ID);
  if (src.messageId !== ctx.messageId) lost.push({ path: ["messageId"], reason: "v2 chunks need a message id" });
  setMeta(out, stash.into(meta));
  return ok(out as v2.ContentChunk, lost);
}

/** A v2 upsert B is rebuilding from the `count` v1 chunks A fanned it out into (T §2.2 B↓). */
export interface PendingUpsert {
  readonly kind: MessageKind;
  /** The v1 `messageId` the remaining chunks arrive under (`undefined`: none). */
  readonly v1Id: string | undefined;
  readonly remaining: number;
  readonly update: Readonly<Obj>;
}

/** B↓ the updates of an interrupted `PendingUpsert` (call before any other update is emitted). */
export function flushPendingUpsert(pending: PendingUpsert | undefined): v2.SessionUpdate[] {
  return pending ? [pending.update as v2.SessionUpdate] : [];
}

function rawV1Id(src: Obj): string | undefined {
  return isString(src.messageId) ? src.messageId : undefined;
}

/**
 * B↓ one v1 chunk, restoring what an A bridge upstream marked (T §2.2 B↓ restore): op `upsert` /
 * `replace` (with `count`: the next chunks are gathered into one upsert, see `pending`), `clear`,
 * `meta`, a dropped redaction notice, or a v2 update A rendered as a chunk (`raw`). A plain chunk
 * converts on its own (`plainChunkToV2`). `pending` is the upsert under reconstruction (`undefined` when none).
 */
export function v1ChunkToV2Updates(
  chunk: v1.ContentChunk,
  pending: PendingUpsert | undefined,
  ctx: ChunkToV2Context,
  opts: ConvertOptions,
): Conv<{ updates: v2.SessionUpdate[]; pending: PendingUpsert | undefined }> {
  return attempt<{ updates: v2.SessionUpdate[]; pending: PendingUpsert | undefined }>(() => {
    const src = expectObject(chunk, []);
    const { meta, env } = unstash(src._meta, 2);
    const op = residualOf(env, "op");
    const updates: v2.SessionUpdate[] = [];
    if (pending) {
      if (pending.kind === ctx.kind && rawV1Id(src) === pending.v1Id && op === undefined) {
        const block = unwrap(contentBlockToV2(src.content as v1.ContentBlock, opts), ["content"]);
        const content = [...(pending.update.content as unknown[]), block.value];
        const update = withMembers(pending.update, { content });
        // The count is the peer's: beyond the bound what was gathered goes out, and the message's
        // remaining chunks extend it as plain chunks (the same content for the client).
        if (pending.remaining <= 1 || content.length >= limits.gatheredBlocks.default)
          return ok({ updates: [update as v2.SessionUpdate], pending: undefined }, block.lost);
        return ok({ updates, pending: withMembers(pending, { remaining: pending.remaining - 1, update }) }, block.lost);
      }
      updates.push(...flushPendingUpsert(pending));
    }
    const tag = kindInfo(ctx.kind);
    if (isSynthetic(env, NOTICE)) return ok({ updates, pending: undefined });
    const raw = residualOf(env, "raw");
    if (isObject(raw) && isString(raw.sessionUpdate))
      return ok({ updates: [...updates, raw as v2.SessionUpdate], pending: undefined });
    const count = residualOf(env, "count");
    if (op === "upsert" && count === 0) {
      // Content-less upserts went before this chunk (T §2.2 A↓-3): they come back, then the chunk.
      const upsert: Obj = { sessionUpdate: tag.upsert, messageId: ctx.messageId };
      if (hasResidual(env, "content")) upsert.content = residualOf(env, "content");
      if (hasResidual(env, "meta")) upsert._meta = residualOf(env, "meta");
      const plain = plainChunkToV2(src, ctx, opts, meta);
      const out = withMembers(plain.value, { sessionUpdate: tag.chunk }) as v2.SessionUpdate;
      return ok({ updates: [...updates, upsert as v2.SessionUpdate, out], pending: undefined }, plain.lost);
    }
    if (env && isString(op) && OPS.has(op)) {
      const update: Obj = {};
      for (const [k, v] of Object.entries(src))
        if (k !== "messageId" && k !== "content" && k !== "_meta") setOwn(update, k, v);
      update.sessionUpdate = tag.upsert;
      update.messageId = ctx.messageId;
      const lost = restoreOp(update, op as Op, env, src, opts);
      const remaining = typeof count === "number" && Number.isInteger(count) ? count - 1 : 0;
      if ((op === "upsert" || op === "replace") && remaining > 0)
        return ok({ updates, pending: { kind: ctx.kind, v1Id: rawV1Id(src), remaining, update } }, lost);
      return ok({ updates: [...updates, update as v2.SessionUpdate], pending: undefined }, lost);
    }
    const plain = plainChunkToV2(src, ctx, opts, meta);
    const out = withMembers(plain.value, { sessionUpdate: tag.chunk }) as v2.SessionUpdate;
    return ok({ updates: [...updates, out], pending: undefined }, plain.lost);
  });
}

/** Rebuilds the upsert a marker chunk stands for; the marker block of `clear` / `meta` is dropped. */
function restoreOp(update: Obj, op: Op, env: Envelope, src: Obj, opts: ConvertOptions): readonly Loss[] {
  let lost: readonly Loss[] = [];
  if (op === "upsert" || op === "replace") {
    const block = unwrap(contentBlockToV2(src.content as v1.ContentBlock, opts), ["content"]);
    update.content = [block.value];
    lost = prefixLosses(["content"], block.lost);
  } else if (op === "clear") update.content = hasResidual(env, "content") ? residualOf(env, "content") : null;
  if (hasResidual(env, "meta")) update._meta = residualOf(env, "meta");
  return lost;
}
