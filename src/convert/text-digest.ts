// A constant-size stand-in for a text too long to keep (issue 10 item 5): its length and two
// polynomial hashes modulo 31-bit primes, so that "does this text start with what was shown?" is
// answered without the shown text. Appending is incremental and independent of how the text was
// cut into chunks: digest(a + b) = append(digest(a), b). Pure; numbers stay below 2^53.
//
// The bases are drawn once per process, so a peer cannot prepare a collision offline; by chance,
// two different texts of the same length collide with probability about 2^-62.

const P1 = 2147483647; // 2^31 - 1
const P2 = 2147483629;
const base = (): number => 65_537 + Math.floor(Math.random() * (2 ** 21 - 65_537));
const B1 = base();
const B2 = base();

export interface TextDigest {
  /** UTF-16 code units hashed. */
  readonly length: number;
  readonly h1: number;
  readonly h2: number;
}

const emptyDigest: TextDigest = { length: 0, h1: 0, h2: 0 };

/** The digest of `d`'s text followed by `s.slice(0, end)`. */
export function appendDigest(d: TextDigest, s: string, end: number = s.length): TextDigest {
  let h1 = d.h1;
  let h2 = d.h2;
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i) + 1;
    h1 = (h1 * B1 + c) % P1;
    h2 = (h2 * B2 + c) % P2;
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
