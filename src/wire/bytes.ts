// The JSON bytes the byte-level scanners (envelope.ts, scan.ts, update-scan.ts, call-scan.ts) look
// for, named once, the two tests they all make, and their decoder; LF ends every line (ndjson.ts,
// writer.ts).
import { isUtf8 } from "node:buffer";

export const LF = 0x0a;
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;
export const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;
export const COLON = 0x3a;
export const COMMA = 0x2c;
export const MINUS = 0x2d;
const PLUS = 0x2b;
export const DOT = 0x2e;
export const ZERO = 0x30;
/** The first byte of `null`: a canonical value starting with it is `null`. */
export const NULL_START = 0x6e;
const NINE = 0x39;

export function isDigit(b: number | undefined): boolean {
  return b !== undefined && b >= ZERO && b <= NINE;
}

/**
 * How every SDK starts a `session/update` notification, up to its session id's opening quote: the
 * update scans (update-scan.ts, member-scan.ts, commands-scan.ts) and the tag route (update-tag.ts)
 * read a line from there.
 */
export const UPDATE_HEAD = Buffer.from('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":');
/** After the session id: the update's opening, and the key of its tag (the SDKs write it first). */
export const UPDATE_OPEN = Buffer.from(',"update":{');
export const TAG_KEY = Buffer.from('"sessionUpdate":"');
/** A `type` key, as an object's members are compared on the bytes. */
export const TYPE_KEY = Buffer.from('"type"');

/** `line[start, end)` is ASCII (checked here), or valid UTF-8 (one native check). */
export function asciiOrUtf8(line: Buffer, start: number, end: number): boolean {
  for (let j = start; j < end; j++) if ((line[j] ?? 0) >= 0x80) return isUtf8(line.subarray(start, end));
  return true;
}

/** The bytes `line[start, end)` are `bytes`. */
export function bytesAre(line: Buffer, start: number, end: number, bytes: Uint8Array): boolean {
  return end - start === bytes.length && line.compare(bytes, 0, bytes.length, start, end) === 0;
}

/** `i` at a number's first byte: the index after the JSON number there (its grammar only), or -1. */
export function numberEnd(line: Uint8Array, i: number): number {
  if (line[i] === MINUS) i++;
  if (line[i] === ZERO) i++;
  else if (isDigit(line[i])) while (isDigit(line[i])) i++;
  else return -1;
  if (line[i] === DOT) {
    i++;
    if (!isDigit(line[i])) return -1;
    while (isDigit(line[i])) i++;
  }
  if (line[i] === 0x65 || line[i] === 0x45) {
    i++;
    if (line[i] === PLUS || line[i] === MINUS) i++;
    if (!isDigit(line[i])) return -1;
    while (isDigit(line[i])) i++;
  }
  return i;
}

/** The bytes `text` at `i` of `line`: the index after them, or -1. */
export function literalEnd(line: Uint8Array, i: number, text: Uint8Array): number {
  if (i + text.length > line.length) return -1;
  for (let k = 0; k < text.length; k++) if (line[i + k] !== text[k]) return -1;
  return i + text.length;
}

/** Ranges this short are searched by a loop: a native search's fixed cost is more than their look. */
const SHORT_SEARCH = 128;

/** The first index of `needle` wholly within `line[start, end)`, or -1. */
export function indexWithin(line: Buffer, needle: Uint8Array, start: number, end: number): number {
  const last = end - needle.length;
  if (start < 0 || last < start) return -1;
  if (end - start > SHORT_SEARCH) {
    const at = line.indexOf(needle, start);
    return at >= 0 && at <= last ? at : -1;
  }
  const first = needle[0];
  if (first === undefined) return start;
  next: for (let i = start; i <= last; i++) {
    if (line[i] !== first) continue;
    for (let k = 1; k < needle.length; k++) if (line[i + k] !== needle[k]) continue next;
    return i;
  }
  return -1;
}

/**
 * A needle searched from `from` of `line` by its byte `anchor`, one that is rare in a JSON line
 * (`[` of `"content":[`, `U` of `"sessionUpdate":"`): a native search of one byte, then a look at
 * the others where it is. Node's search of several bytes costs about ten times that of one.
 */
export class Needle {
  readonly bytes: Uint8Array;
  private readonly anchor: number;
  private readonly anchorByte: number;

  constructor(text: string, anchor: string) {
    this.bytes = Buffer.from(text, "latin1");
    this.anchor = text.indexOf(anchor);
    if (anchor.length !== 1 || this.anchor < 0) throw new Error(`no anchor "${anchor}" in ${text}`);
    this.anchorByte = this.bytes[this.anchor] ?? 0;
  }

  get length(): number {
    return this.bytes.length;
  }

  /** The first index at or after `from` where the needle is wholly in `line`, or -1 (`line.indexOf`). */
  in(line: Buffer, from: number): number {
    const bytes = this.bytes;
    const n = bytes.length;
    const start = Math.max(from, 0);
    for (let j = line.indexOf(this.anchorByte, start + this.anchor); j >= 0; j = line.indexOf(this.anchorByte, j + 1)) {
      const i = j - this.anchor;
      if (i + n > line.length) return -1;
      let k = 0;
      while (k < n && line[i + k] === bytes[k]) k++;
      if (k === n) return i;
    }
    return -1;
  }
}

/**
 * Node's own decoder behind `toString("utf8", start, end)`, without its argument handling (a fifth
 * of a short string's decoding); `toString` where a runtime lacks it.
 */
export const utf8: (line: Buffer, start: number, end: number) => string =
  typeof (Buffer.prototype as Partial<FastSlices>).utf8Slice === "function"
    ? (line, start, end) => (line as unknown as FastSlices).utf8Slice(start, end)
    : (line, start, end) => line.toString("utf8", start, end);

interface FastSlices {
  utf8Slice(start: number, end: number): string;
}
