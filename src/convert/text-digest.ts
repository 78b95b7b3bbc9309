// A constant-size stand-in for a text too long to keep (issue 10 item 5): its length and two
// 32-bit hashes, so that "does this text start with what was shown?" is answered without the shown
// text. Each hash is a left fold over the UTF-16 code units (xor, multiply, shift: FNV and
// Murmur-like lanes), so appending is incremental and independent of how the text was cut into
// chunks: digest(a + b) = append(digest(a), b). Pure; integer operations only (the hot path of a
// long message: about 1 ns per character).
//
// The seeds are drawn once per process; two different texts of the same length collide by chance
// with probability about 2^-64. The hashes are not cryptographic: an agent could craft a collision,
// and would only mislead its own user, which it can do by sending any text.

import { hexValue } from "../base/json.js";

const seed = (): number => Math.floor(Math.random() * 2 ** 32) | 0;
const SEED1 = seed();
const SEED2 = seed();

export interface TextDigest {
  /** UTF-16 code units hashed. */
  readonly length: number;
  readonly h1: number;
  readonly h2: number;
}

const emptyDigest: TextDigest = { length: 0, h1: SEED1, h2: SEED2 };

/** The FNV-like lane folded over one more UTF-16 code unit. */
function lane1(h: number, unit: number): number {
  return Math.imul(h ^ unit, 0x01000193);
}

/** The Murmur-like lane folded over one more UTF-16 code unit. */
function lane2(h: number, unit: number): number {
  const m = Math.imul(h ^ unit, 0x5bd1e995);
  return m ^ (m >>> 15);
}

/** The digest of `d`'s text followed by `s.slice(0, end)`. */
export function appendDigest(d: TextDigest, s: string, end: number = s.length): TextDigest {
  let h1 = d.h1;
  let h2 = d.h2;
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i);
    h1 = lane1(h1, c);
    h2 = lane2(h2, c);
  }
  return { length: d.length + end, h1, h2 };
}

const BACKSLASH = 0x5c;
/** What each JSON escape letter stands for (`u` is read apart); 0: not an escape. */
const ESCAPED = new Uint8Array(128);
for (const [letter, unit] of [
  ['"', 0x22],
  ["\\", 0x5c],
  ["/", 0x2f],
  ["b", 0x08],
  ["f", 0x0c],
  ["n", 0x0a],
  ["r", 0x0d],
  ["t", 0x09],
] as const)
  ESCAPED[letter.charCodeAt(0)] = unit;

/**
 * The digest of `d`'s text followed by the text of a JSON string's bytes `b[start, end)` (between
 * its quotes, valid UTF-8: what a scanner proved), read as JSON.parse reads it, without building
 * the string: the hot path of a streamed chunk. Undefined for bytes that are no JSON string body.
 */
export function appendDigestJson(d: TextDigest, b: Uint8Array, start: number, end: number): TextDigest | undefined {
  let h1 = d.h1;
  let h2 = d.h2;
  let n = 0;
  let i = start;
  while (i < end) {
    const c = b[i] ?? 0;
    let unit: number;
    // A second code unit: the low surrogate of a 4-byte character, else -1.
    let low = -1;
    if (c < 0x80) {
      if (c !== BACKSLASH) {
        unit = c;
        i++;
      } else {
        const e = b[i + 1] ?? 0;
        if (e === 0x75) {
          const h = (hexValue(b[i + 2], false) << 12) | (hexValue(b[i + 3], false) << 8);
          const l = (hexValue(b[i + 4], false) << 4) | hexValue(b[i + 5], false);
          // A digit of -1 makes the value negative.
          unit = h | l;
          if (unit < 0 || i + 6 > end) return undefined;
          i += 6;
        } else {
          unit = e < 128 ? (ESCAPED[e] ?? 0) : 0;
          if (unit === 0 || i + 2 > end) return undefined;
          i += 2;
        }
      }
    } else if (c < 0xe0) {
      unit = ((c & 0x1f) << 6) | ((b[i + 1] ?? 0) & 0x3f);
      i += 2;
    } else if (c < 0xf0) {
      unit = ((c & 0x0f) << 12) | (((b[i + 1] ?? 0) & 0x3f) << 6) | ((b[i + 2] ?? 0) & 0x3f);
      i += 3;
    } else {
      const cp =
        (((c & 0x07) << 18) |
          (((b[i + 1] ?? 0) & 0x3f) << 12) |
          (((b[i + 2] ?? 0) & 0x3f) << 6) |
          ((b[i + 3] ?? 0) & 0x3f)) -
        0x10000;
      unit = 0xd800 + (cp >> 10);
      low = 0xdc00 + (cp & 0x3ff);
      i += 4;
    }
    h1 = lane1(h1, unit);
    h2 = lane2(h2, unit);
    n++;
    if (low >= 0) {
      h1 = lane1(h1, low);
      h2 = lane2(h2, low);
      n++;
    }
  }
  return i === end ? { length: d.length + n, h1, h2 } : undefined;
}

export function digestOf(s: string, end: number = s.length): TextDigest {
  return appendDigest(emptyDigest, s, end);
}

export function sameDigest(a: TextDigest, b: TextDigest): boolean {
  return a.length === b.length && a.h1 === b.h1 && a.h2 === b.h2;
}

/** `text` starts with the text `d` stands for (checked on the first `d.length` code units). */
export function startsWithDigest(text: string, d: TextDigest): boolean {
  return text.length >= d.length && sameDigest(digestOf(text, d.length), d);
}
