// What a direction-A session remembers of what the v1 client was shown of each message (T §2.2,
// limits.messages), in a slot table (memory budget, issue 9: one stream's messages outlive young
// collections). A shown message in its usual form (its own id, shown beyond the verbatim bound,
// nothing deferred) is kept as numbers: its size and digests. Any other form is kept as the object.
import type { MessageKind } from "../../../../mappings/message.js";
import type { SentMessage } from "../../../convert/message.js";
import { appendDigest, appendDigestJson, digestOf, type TextDigest } from "../../../convert/text-digest.js";
import { NIL, SlotTable, extended } from "../../slot-table.js";
import { kindAt, kindCode } from "../../message-kinds.js";

const NO_BLOCKS: SentMessage["blocks"] = Object.freeze([]);
/** The digest of no text: a first block's is its text's, the head before it this one. */
const EMPTY_DIGEST = digestOf("");

/** `sent[kind, id]` (T §2.2). */
export class SentMessages extends SlotTable {
  /** The object of a slot kept as one; undefined: kept as the numbers below. */
  private objects: (SentMessage | undefined)[] = [];
  private shownSize = new Float64Array(0);
  private blockCount = new Int32Array(0);
  /** Digests: length, h1, h2 of the head and of the last text block. */
  private headLength = new Float64Array(0);
  private headH1 = new Int32Array(0);
  private headH2 = new Int32Array(0);
  private lastLength = new Float64Array(0);
  private lastH1 = new Int32Array(0);
  private lastH2 = new Int32Array(0);

  protected resize(capacity: number): void {
    this.objects.length = capacity;
    this.shownSize = extended(this.shownSize, new Float64Array(capacity));
    this.blockCount = extended(this.blockCount, new Int32Array(capacity));
    this.headLength = extended(this.headLength, new Float64Array(capacity));
    this.headH1 = extended(this.headH1, new Int32Array(capacity));
    this.headH2 = extended(this.headH2, new Int32Array(capacity));
    this.lastLength = extended(this.lastLength, new Float64Array(capacity));
    this.lastH1 = extended(this.lastH1, new Int32Array(capacity));
    this.lastH2 = extended(this.lastH2, new Int32Array(capacity));
  }

  protected release(slot: number): void {
    this.objects[slot] = undefined;
  }

  /** A read: no refresh. */
  get(kind: MessageKind, id: string): SentMessage | undefined {
    const slot = this.find(id, kindCode(kind));
    return slot === NIL ? undefined : (this.objects[slot] ?? this.rebuild(slot, id));
  }

  /** A write: the message becomes the most recent. */
  set(kind: MessageKind, id: string, sent: SentMessage): void {
    const tag = kindCode(kind);
    let slot = this.find(id, tag);
    if (slot === NIL) slot = this.add(id, tag);
    else this.touch(slot);
    const d = sent.digest;
    if (
      sent.v1Id === id &&
      sent.blocks.length === 0 &&
      sent.size !== undefined &&
      d !== undefined &&
      "text" in d.last &&
      sent.started &&
      sent.rev === 0 &&
      sent.deferredMeta === undefined &&
      plain(sent)
    )
      this.keepNumbers(slot, sent.size, d.count, d.head, d.last.text);
    else this.objects[slot] = sent;
  }

  /** Slot `slot` kept as numbers: the shown size, the block count, the head's and last text's digests. */
  private keepNumbers(slot: number, size: number, count: number, head: TextDigest, last: TextDigest): void {
    this.objects[slot] = undefined;
    this.shownSize[slot] = size;
    this.blockCount[slot] = count;
    this.headLength[slot] = head.length;
    this.headH1[slot] = head.h1;
    this.headH2[slot] = head.h2;
    this.lastLength[slot] = last.length;
    this.lastH1[slot] = last.h1;
    this.lastH2[slot] = last.h2;
  }

  /**
   * `plainTextChunkState`'s hot path, on a message kept as numbers, without its objects: `text`
   * appended to the last text block shown, and the message written. False, having changed nothing,
   * for a message kept otherwise or unknown (the caller takes the converter).
   */
  appendText(kind: MessageKind, id: string, text: string): boolean {
    const slot = this.find(id, kindCode(kind));
    if (slot === NIL || this.objects[slot] !== undefined) return false;
    const last = appendDigest(
      { length: this.lastLength[slot] ?? 0, h1: this.lastH1[slot] ?? 0, h2: this.lastH2[slot] ?? 0 },
      text,
    );
    this.shownSize[slot] = (this.shownSize[slot] ?? 0) + text.length;
    this.lastLength[slot] = last.length;
    this.lastH1[slot] = last.h1;
    this.lastH2[slot] = last.h2;
    this.touch(slot);
    return true;
  }

  /**
   * `appendText` of the text a JSON string's bytes `line[start, end)` hold (between its quotes, as a
   * scanner proved them), read from the bytes without building the string: the chunk fast path's.
   */
  appendTextJson(kind: MessageKind, id: string, line: Uint8Array, start: number, end: number): boolean {
    const slot = this.find(id, kindCode(kind));
    if (slot === NIL || this.objects[slot] !== undefined) return false;
    const length = this.lastLength[slot] ?? 0;
    const last = appendDigestJson({ length, h1: this.lastH1[slot] ?? 0, h2: this.lastH2[slot] ?? 0 }, line, start, end);
    if (last === undefined) return false;
    this.shownSize[slot] = (this.shownSize[slot] ?? 0) + (last.length - length);
    this.lastLength[slot] = last.length;
    this.lastH1[slot] = last.h1;
    this.lastH2[slot] = last.h2;
    this.touch(slot);
    return true;
  }

  /**
   * A message's first text, from the bytes of a JSON string between its quotes (`line[start, end)`,
   * as a scanner proved them), recorded as `set` records `plainTextChunkState` of it on first sight:
   * one text block shown, kept as numbers. False, having changed nothing, for a message already
   * recorded, or a text of at most `maxChars` (kept verbatim: the caller takes the converter).
   */
  startTextJson(
    kind: MessageKind,
    id: string,
    line: Uint8Array,
    start: number,
    end: number,
    maxChars: number,
  ): boolean {
    const tag = kindCode(kind);
    if (this.find(id, tag) !== NIL) return false;
    const last = appendDigestJson(EMPTY_DIGEST, line, start, end);
    if (last === undefined || last.length <= maxChars) return false;
    this.keepNumbers(this.add(id, tag), last.length, 1, EMPTY_DIGEST, last);
    return true;
  }

  toJSON(): [MessageKind, string, SentMessage][] {
    return this.slots().map((s) => [
      kindAt(this.tagOf(s)),
      this.keyOf(s),
      this.objects[s] ?? this.rebuild(s, this.keyOf(s)),
    ]);
  }

  /** The object a slot kept as numbers stands for, its keys in the order the converters write them. */
  private rebuild(slot: number, id: string): SentMessage {
    return {
      v1Id: id,
      blocks: NO_BLOCKS,
      size: this.shownSize[slot] ?? 0,
      digest: {
        count: this.blockCount[slot] ?? 0,
        head: { length: this.headLength[slot] ?? 0, h1: this.headH1[slot] ?? 0, h2: this.headH2[slot] ?? 0 },
        last: { text: { length: this.lastLength[slot] ?? 0, h1: this.lastH1[slot] ?? 0, h2: this.lastH2[slot] ?? 0 } },
      },
      started: true,
      rev: 0,
    };
  }
}

const SENT_KEYS = new Set(["v1Id", "blocks", "size", "digest", "started", "rev", "deferredMeta", "deferred"]);

/** No key beyond those `rebuild` writes (an undefined `deferredMeta` is none). */
function plain(sent: SentMessage): boolean {
  for (const k in sent) if (!SENT_KEYS.has(k)) return false;
  return true;
}
