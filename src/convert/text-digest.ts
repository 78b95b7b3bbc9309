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

/** The digest of `d`'s text followed by `s.slice(0, end)`. */
export function appendDigest(d: TextDigest, s: string, end: number = s.length): TextDigest {
  let h1 = d.h1;
  let h2 = d.h2;
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  return { length: d.length + end, h1, h2 };
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
