// The scan behind the translating modes' fast paths (performance budget, issue 9): one pass over a
// `session/update` line that proves what JSON.parse would read from it, and what JSON.stringify of
// that reading would write back, without building the message. Only the dominant shape is taken:
// `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":…,"update":{…}}}` in that key
// order (the one every SDK writes and the bridge's own notifications have), no whitespace, an
// update whose members are canonical strings from a short list and at most one `content` object
// of canonical strings. Anything else (a `_meta`, a number, an escape JSON.stringify would not
// write, a repeated key) returns undefined, and the full path decides.
import { isUtf8 } from "node:buffer";
import { CLOSE_OBJECT, COMMA, OPEN_OBJECT, QUOTE, UPDATE_HEAD, UPDATE_OPEN, literalEnd, utf8 } from "./bytes.js";
import { clearNonAscii, lastHadEscape, sawNonAscii, stringEnd } from "./json-string.js";
import { splicedLine } from "./writer.js";

/** The update members a fast path may read (each a string), and `content`. */
const UPDATE_KEYS = ["sessionUpdate", "messageId", "toolCallId", "status", "title", "kind", "content"] as const;
export type UpdateKey = (typeof UPDATE_KEYS)[number];
const CONTENT_KEYS = ["type", "text"] as const;

/**
 * Every string a scan records, by slot: `sessionId`, the update's members, `content`'s. Callers
 * name a slot by its number (`SLOT.toolCallId`): a name looked up per call was a megamorphic load.
 */
export const SLOT = {
  sessionId: 0,
  sessionUpdate: 1,
  messageId: 2,
  toolCallId: 3,
  status: 4,
  title: 5,
  kind: 6,
  "content.type": 7,
  "content.text": 8,
} as const;
type StringName = keyof typeof SLOT;
export type Slot = (typeof SLOT)[StringName];
const SLOT_COUNT = Object.keys(SLOT).length;
/**
 * The slot of an update member's string, by the key's index in `UPDATE_KEYS` (a name looked up in
 * `SLOT` per call is a megamorphic load).
 */
export function keySlot(key: Exclude<UpdateKey, "content">): Slot {
  return UPDATE_KEY_SLOTS[UPDATE_KEYS.indexOf(key)] as Slot;
}

/** Strings this short are remembered per slot: ids and tags repeat from line to line. */
const REMEMBERED_BYTES = 64;
/** Per slot, whether its value repeats from line to line (ids, tags; not a title or a text). */
const REMEMBERED: readonly boolean[] = Object.entries(SLOT)
  .sort(([, a], [, b]) => a - b)
  .map(([name]) => name !== "title" && name !== "content.text");

/**
 * What the scan proved of a line; strings are decoded on demand. One instance serves every scan
 * (the fast path consumes it before the next line is read): a line costs no allocation but its
 * strings'.
 */
export class ScannedUpdate {
  line: Buffer = Buffer.alloc(0);
  /** The update's keys in the order they come (a template's own list, when one proved the line). */
  keys: readonly UpdateKey[] = [];
  /** The content object's keys in order (empty without `content`). */
  contentKeys: readonly ("type" | "text")[] = [];
  /** @internal The lists a fresh scan fills. */
  readonly scannedKeys: UpdateKey[] = [];
  readonly scannedContentKeys: ("type" | "text")[] = [];
  /** Index of the update object's closing brace (where `withLastMember` adds one). */
  updateClose = -1;
  /** Per slot: start (after the opening quote; -1: absent), end (at the closing quote), escaped. */
  private readonly starts: number[] = new Array<number>(SLOT_COUNT).fill(-1);
  private readonly ends: number[] = new Array<number>(SLOT_COUNT).fill(-1);
  private readonly escapes: boolean[] = new Array<boolean>(SLOT_COUNT).fill(false);
  /** The last short value decoded per slot, and its bytes. */
  private readonly lastBytes: (Buffer | undefined)[] = new Array<Buffer | undefined>(SLOT_COUNT).fill(undefined);
  private readonly lastValue: string[] = new Array<string>(SLOT_COUNT).fill("");

  /** @internal Starts a scan of `line`. */
  reset(line: Buffer): void {
    this.line = line;
    // Pops and a loop: `length = 0` and `fill` are calls into the runtime, a fifth of a scan.
    const keys = this.scannedKeys;
    while (keys.length > 0) keys.pop();
    const contentKeys = this.scannedContentKeys;
    while (contentKeys.length > 0) contentKeys.pop();
    this.keys = keys;
    this.contentKeys = contentKeys;
    this.updateClose = -1;
    const starts = this.starts;
    for (let k = 0; k < SLOT_COUNT; k++) starts[k] = -1;
  }

  /** @internal Where the value of `slot` starts (-1: absent) and ends. */
  startOf(slot: number): number {
    return this.starts[slot] ?? -1;
  }

  /** @internal */
  endOf(slot: number): number {
    return this.ends[slot] ?? -1;
  }

  /** @internal What the scan proved of this line, kept as a template. */
  copyTo(t: Template): void {
    copyInto(t.keys, this.keys);
    copyInto(t.contentKeys, this.contentKeys);
    copyInto(t.starts, this.starts);
    copyInto(t.ends, this.ends);
    copyInto(t.escapes, this.escapes);
    t.updateClose = this.updateClose;
  }

  /**
   * @internal The template's proof for `line`, whose text ends `shift` bytes later than the
   * template's and has an escape if `textEscaped`.
   */
  copyFrom(t: Template, line: Buffer, shift: number, textEscaped: boolean): void {
    this.line = line;
    // The template's lists, not copies: read until the next line, and a template changes only
    // when a fresh scan (which points these back at its own lists first) replaces it.
    this.keys = t.keys;
    this.contentKeys = t.contentKeys;
    const textEnd = t.textEnd;
    for (let k = 0; k < SLOT_COUNT; k++) {
      const start = t.starts[k] ?? -1;
      const moved = start > textEnd ? shift : 0;
      this.starts[k] = start < 0 ? -1 : start + moved;
      this.ends[k] = (t.ends[k] ?? -1) + moved;
      this.escapes[k] = t.escapes[k] === true;
    }
    this.ends[TEXT_SLOT] = textEnd + shift;
    this.escapes[TEXT_SLOT] = textEscaped;
    this.updateClose = t.updateClose + shift;
  }

  /** @internal The scan records each string member it proved. */
  put(slot: number, start: number, end: number, hasEscape: boolean): void {
    this.starts[slot] = start;
    this.ends[slot] = end;
    this.escapes[slot] = hasEscape;
  }

  /** The line with the bytes of a string member's value (between its quotes) replaced by `bytes`. */
  splice(slot: Slot, bytes: Uint8Array): Buffer {
    const start = this.starts[slot] ?? -1;
    if (start < 0) throw new Error(`splice: no string in slot ${slot} of the scanned line`);
    return this.replaced(start, this.ends[slot] ?? start, bytes);
  }

  /** The line with `member` (`,"key":value`) added as the update's last member. */
  withLastMember(member: Uint8Array): Buffer {
    return this.replaced(this.updateClose, this.updateClose, member);
  }

  private replaced(start: number, end: number, bytes: Uint8Array): Buffer {
    return splicedLine(this.line, start, end, bytes);
  }

  /**
   * Whether a member is present with the value `literal`, compared as bytes (nothing decoded or
   * copied: the per-line test of a tag).
   */
  is(slot: Slot, literal: Literal): boolean {
    const start = this.starts[slot] ?? -1;
    return start >= 0 && sameBytes(literal.bytes, this.line, start, this.ends[slot] ?? start);
  }

  /** Where a string member's bytes start (after its opening quote), or -1; `end` where they end. */
  start(slot: Slot): number {
    return this.starts[slot] ?? -1;
  }

  end(slot: Slot): number {
    return this.ends[slot] ?? -1;
  }

  /** A member's decoded value: `sessionId`, an update key's, or `content.type` / `content.text`. */
  string(slot: Slot): string | undefined {
    const start = this.starts[slot] ?? -1;
    if (start < 0) return undefined;
    const end = this.ends[slot] ?? start;
    const line = this.line;
    // With escapes, JSON.parse of the quoted bytes is both exact and the fastest decoder.
    if (this.escapes[slot] === true) return JSON.parse(line.toString("utf8", start - 1, end + 1)) as string;
    const short = REMEMBERED[slot] === true && end - start <= REMEMBERED_BYTES;
    if (short) {
      const last = this.lastBytes[slot];
      if (last !== undefined && sameBytes(last, line, start, end)) return this.lastValue[slot];
    }
    const value = utf8(line, start, end);
    if (short) {
      this.lastBytes[slot] = Buffer.from(line.subarray(start, end));
      this.lastValue[slot] = value;
    }
    return value;
  }
}

/**
 * A value to test a member against without decoding it (`ScannedUpdate.is`): the bytes
 * JSON.stringify writes between its quotes. A scanned string is canonical, and the canonical form
 * of a string is unique, so equal bytes mean an equal value.
 */
export class Literal {
  readonly bytes: Buffer;
  constructor(readonly value: string) {
    this.bytes = Buffer.from(JSON.stringify(value).slice(1, -1));
  }
}

function sameBytes(a: Uint8Array, line: Buffer, start: number, end: number): boolean {
  if (a.length !== end - start) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== line[start + k]) return false;
  return true;
}

const scanned = new ScannedUpdate();

/** `to` made a copy of `from`, without allocating once it has grown to its size. */
function copyInto<T>(to: T[], from: readonly T[]): void {
  while (to.length > from.length) to.pop();
  for (let k = 0; k < from.length; k++) to[k] = from[k] as T;
}

/** `i` at a string's opening quote: the index after it, or -1 unless JSON.stringify of its value writes these bytes. */
function skipCanonicalString(line: Buffer, i: number): number {
  return stringEnd(line, i, true);
}

const HEAD = UPDATE_HEAD;
const UPDATE = UPDATE_OPEN;

const UPDATE_KEY_BYTES = UPDATE_KEYS.map((k) => Buffer.from(`"${k}":`));
/** Each update key's slot by its index in `UPDATE_KEYS` (`content` has none). */
const UPDATE_KEY_SLOTS: readonly number[] = UPDATE_KEYS.map((k) => (k === "content" ? -1 : SLOT[k]));
const CONTENT_KEY_BYTES = CONTENT_KEYS.map((k) => Buffer.from(`"${k}":`));

/** Which of `keys` (each `"name":`, bytes) starts at `i`: its index, or -1. */
function keyAt(line: Buffer, i: number, keys: readonly Buffer[]): number {
  for (let k = 0; k < keys.length; k++) {
    const bytes = keys[k];
    if (bytes !== undefined && line[i + 1] === bytes[1] && literalEnd(line, i, bytes) >= 0) return k;
  }
  return -1;
}

/** The content object at `i` (its `{`): the index after it, or -1. */
function content(line: Buffer, i: number, out: ScannedUpdate): number {
  i++;
  for (;;) {
    const k = keyAt(line, i, CONTENT_KEY_BYTES);
    const name = CONTENT_KEYS[k];
    if (name === undefined || out.scannedContentKeys.includes(name)) return -1;
    const at = i + (CONTENT_KEY_BYTES[k]?.length ?? 0);
    const end = line[at] === QUOTE ? skipCanonicalString(line, at) : -1;
    if (end < 0) return -1;
    out.scannedContentKeys.push(name);
    out.put(name === "type" ? SLOT["content.type"] : SLOT["content.text"], at + 1, end - 1, lastHadEscape());
    if (line[end] === CLOSE_OBJECT) return end + 1;
    if (line[end] !== COMMA) return -1;
    i = end + 1;
  }
}

/**
 * The last lines proven with a `content.text`, as templates for the next: an agent streams a
 * message as chunks whose bytes differ only in their text (same session, tag, content head and
 * message id). A line that has a template's bytes before the text and after it is proven by
 * scanning its text alone: the scan reads left to right, and what it decides before the text and
 * after it depends on those bytes only (the text's own bytes end it, and set its slot and escape
 * flag). Its slots are the template's, shifted past the text by the change in its length. A few are
 * kept, the last used first: thoughts and message chunks, or chunks and tool updates, interleave.
 */
class Template {
  bytes: Buffer = Buffer.alloc(0);
  /** Where the text starts (after its opening quote) and ends (at its closing quote), in `bytes`. */
  textStart = -1;
  textEnd = -1;
  readonly keys: UpdateKey[] = [];
  readonly contentKeys: ("type" | "text")[] = [];
  readonly starts: number[] = [];
  readonly ends: number[] = [];
  readonly escapes: boolean[] = [];
  updateClose = -1;
  /** Positions of the head compared one by one first: a line of another shape misses without a native call. */
  readonly probes: number[] = [];
}

/** How many bytes of a template's head are compared first, spread over what follows the line's fixed head. */
const PROBES = 6;

/** How many templates are kept: message chunks with and without a message id, and thoughts, interleave. */
const TEMPLATES = 4;
/**
 * @internal The longest line kept as a template (each is a copy): a streamed chunk is far shorter,
 * and a longer line kept would hold its memory until four other texts had come.
 */
export const TEMPLATE_MAX_BYTES = 64 * 1024;
/** The templates, the last used first. */
const templates: Template[] = Array.from({ length: TEMPLATES }, () => new Template());
const TEXT_SLOT = SLOT["content.text"];

/** Moves the template at `k` to the front (the last used). */
function toFront(k: number): Template {
  const t = templates[k] as Template;
  for (let j = k; j > 0; j--) templates[j] = templates[j - 1] as Template;
  templates[0] = t;
  return t;
}

/** Keep the line `out` proved as the newest template (when it has a text; else the templates stay). */
function keepTemplate(out: ScannedUpdate): void {
  const start = out.startOf(TEXT_SLOT);
  if (start < 0 || out.line.length > TEMPLATE_MAX_BYTES) return;
  // The least recently used one is overwritten.
  const t = toFront(TEMPLATES - 1);
  t.bytes = Buffer.from(out.line);
  t.textStart = start;
  t.textEnd = out.endOf(TEXT_SLOT);
  out.copyTo(t);
  // From the text's opening quote back to the session id: where chunks of another message or kind differ.
  const from = HEAD.length;
  for (let k = 0; k < PROBES; k++) t.probes[k] = start - 1 - Math.floor(((start - 1 - from) * k) / PROBES);
}

/** A template's proof of `line` (above), into `out`; false when the line fits none. */
function fromTemplate(line: Buffer, out: ScannedUpdate): boolean {
  for (let k = 0; k < TEMPLATES; k++) {
    if (!fits(templates[k] as Template, line, out)) continue;
    if (k > 0) toFront(k);
    return true;
  }
  return false;
}

function fits(t: Template, line: Buffer, out: ScannedUpdate): boolean {
  const start = t.textStart;
  if (start < 0 || line.length < start + 1) return false;
  const bytes = t.bytes;
  const probes = t.probes;
  for (let k = 0; k < PROBES; k++) {
    const at = probes[k] ?? 0;
    if (line[at] !== bytes[at]) return false;
  }
  const tail = bytes.length - t.textEnd;
  if (line.compare(bytes, 0, start, 0, start) !== 0) return false;
  clearNonAscii();
  const after = stringEnd(line, start - 1, true);
  // `after` is past the closing quote: the tail (from that quote) must be the template's.
  if (after < 0 || line.length - (after - 1) !== tail) return false;
  if (!sameTail(line, after - 1, bytes, t.textEnd, tail)) return false;
  // The rest is the template's bytes (checked when it was scanned): an ASCII text needs no check.
  if (sawNonAscii() && !isUtf8(line)) return false;
  out.copyFrom(t, line, after - 1 - t.textEnd, lastHadEscape());
  return true;
}

/** The longest tail compared byte by byte: a native compare costs more than a short loop. */
const SHORT_TAIL = 16;

/** Whether `n` bytes of `line` from `at` are those of `bytes` from `from`. */
function sameTail(line: Buffer, at: number, bytes: Buffer, from: number, n: number): boolean {
  if (n > SHORT_TAIL) return line.compare(bytes, from, from + n, at, at + n) === 0;
  for (let k = 0; k < n; k++) if (line[at + k] !== bytes[from + k]) return false;
  return true;
}

/** @internal `scanUpdate` without the template, for the property that proves it (test/wire/update-scan-template.test.ts). */
export function scanUpdateFresh(line: Buffer, maxDepth: number): ScannedUpdate | undefined {
  return maxDepth < 4 ? undefined : fullScan(line);
}

/**
 * The `session/update` a line holds, if the scan proves it has the fast paths' shape (above) and is
 * valid UTF-8 nested within `maxDepth`; undefined otherwise (which says nothing of the line).
 */
export function scanUpdate(line: Buffer, maxDepth: number): ScannedUpdate | undefined {
  return scanUpdateByTemplate(line, maxDepth) ?? scanUpdateAfresh(line, maxDepth);
}

/**
 * `scanUpdate` of a line one of the last templates fits (a chunk of a message being streamed, most
 * lines of a stream), else undefined without scanning: a few byte probes decide most other lines.
 */
export function scanUpdateByTemplate(line: Buffer, maxDepth: number): ScannedUpdate | undefined {
  // Four levels: the message, params, the update, its content.
  return maxDepth >= 4 && fromTemplate(line, scanned) ? scanned : undefined;
}

/** `scanUpdate` of a line no template fits: the full scan (whose result becomes a template). */
export function scanUpdateAfresh(line: Buffer, maxDepth: number): ScannedUpdate | undefined {
  if (maxDepth < 4) return undefined;
  const out = fullScan(line);
  if (out !== undefined) keepTemplate(out);
  return out;
}

function fullScan(line: Buffer): ScannedUpdate | undefined {
  let i = literalEnd(line, 0, HEAD);
  if (i < 0 || line[i] !== QUOTE) return undefined;
  const out = scanned;
  out.reset(line);
  clearNonAscii();
  let end = skipCanonicalString(line, i);
  if (end < 0) return undefined;
  out.put(SLOT.sessionId, i + 1, end - 1, lastHadEscape());
  i = literalEnd(line, end, UPDATE);
  if (i < 0) return undefined;
  for (;;) {
    // A key is one of the list, spelled plainly (an escaped spelling matches none: not proven).
    const k = keyAt(line, i, UPDATE_KEY_BYTES);
    const name = UPDATE_KEYS[k];
    if (name === undefined || out.scannedKeys.includes(name)) return undefined;
    out.scannedKeys.push(name);
    const at = i + (UPDATE_KEY_BYTES[k]?.length ?? 0);
    if (name === "content") end = line[at] === OPEN_OBJECT ? content(line, at, out) : -1;
    else {
      end = line[at] === QUOTE ? skipCanonicalString(line, at) : -1;
      if (end >= 0) out.put(UPDATE_KEY_SLOTS[k] ?? -1, at + 1, end - 1, lastHadEscape());
    }
    if (end < 0) return undefined;
    if (line[end] === CLOSE_OBJECT) {
      out.updateClose = end;
      i = end + 1;
      break;
    }
    if (line[end] !== COMMA) return undefined;
    i = end + 1;
  }
  // The update, then params and the message close; nothing after.
  if (line[i] !== CLOSE_OBJECT || line[i + 1] !== CLOSE_OBJECT || i + 2 !== line.length) return undefined;
  if (!out.keys.includes("sessionUpdate")) return undefined;
  // Bytes >= 0x80 passed the string loops (everything else is an ASCII literal or a structural
  // byte): one native check of the whole line covers them, when there were any.
  if (sawNonAscii() && !isUtf8(line)) return undefined;
  return out;
}
