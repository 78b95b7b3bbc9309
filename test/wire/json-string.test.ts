// `stringEnd` (src/wire/json-string.ts), every byte scanner's string reader, against a plain
// reading of the JSON grammar: for any bytes at any offset, in a line that is a window of a larger
// buffer (as a read's lines are), it ends where JSON.parse would (or, canonical, only where
// JSON.stringify writes those bytes) and says whether it met an escape.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clearNonAscii, lastHadEscape, sawNonAscii, stringEnd } from "../../src/wire/json-string.js";
import { numRuns } from "../support/properties.js";

/** The reading it must equal: one byte at a time, as JSON.parse reads (or, canonical, as JSON.stringify writes). */
function byByte(line: Uint8Array, i: number, canonical: boolean): { end: number; escaped: boolean } {
  let escaped = false;
  for (let j = i + 1; j < line.length;) {
    const c = line[j]!;
    if (c === 0x22) return { end: j + 1, escaped };
    if (c < 0x20) return { end: -1, escaped };
    if (c !== 0x5c) {
      j++;
      continue;
    }
    escaped = true;
    const e = line[j + 1] ?? 0;
    if ('"\\bfnrt'.includes(String.fromCharCode(e)) && e !== 0) j += 2;
    else if (!canonical && e === 0x2f) j += 2;
    else if (e === 0x75) {
      const hex = Buffer.from(line.subarray(j + 2, j + 6)).toString("latin1");
      if (hex.length < 4) return { end: -1, escaped };
      if (!canonical) {
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) return { end: -1, escaped };
      } else {
        // JSON.stringify writes `\u00XX` in lowercase, only for control characters without a short form.
        if (!/^00[01][0-9a-f]$/.test(hex) || [8, 9, 10, 12, 13].includes(parseInt(hex, 16)))
          return { end: -1, escaped };
      }
      j += 6;
    } else return { end: -1, escaped };
  }
  return { end: -1, escaped };
}

/** Bytes a string's body is made of: the ones that end or interrupt it often. */
const byte = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
  { weight: 2, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
  { weight: 1, arbitrary: fc.constantFrom(0x22, 0x5c, 0x00, 0x1f, 0x0a, 0x21, 0x23, 0x5b, 0x5d, 0x7f) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0x1f }) },
);

/** Escapes of every kind, JSON.stringify's and the others JSON.parse reads, and broken ones. */
const escape = fc
  .constantFrom(
    ...["\\n", '\\"', "\\\\", "\\/", "\\b", "\\t", "\\u001f", "\\u0008", "\\u00e9", "\\u00E9"],
    ...["\\uD83D", "\\ud83d", "\\u12", "\\x", "\\u000A", "\\u007f", "\\u0022", "\\u002f", "\\"],
  )
  .map((e) => [...Buffer.from(e, "latin1")]);
const body = fc
  .array(
    fc.oneof(
      byte.map((b) => [b]),
      escape,
    ),
    { maxLength: 48 },
  )
  .map((pieces) => pieces.flat());

describe("stringEnd", () => {
  it("ends where a byte-by-byte reading ends, for any bytes, offset and window", () => {
    fc.assert(
      fc.property(
        body,
        fc.nat(7),
        fc.nat(7),
        fc.nat(7),
        fc.boolean(),
        fc.boolean(),
        (body, before, after, quoteAt, canonical, closed) => {
          // A window of a larger buffer: `before` bytes of it precede the line, `after` follow it.
          // Closed: a quote after the body (where the string ends, unless the body ended it before).
          const bytes = [...Array<number>(quoteAt).fill(0x20), 0x22, ...body, ...(closed ? [0x22, 0x2c] : [])];
          const memory = new Uint8Array(before + bytes.length + after).fill(0x22);
          memory.set(bytes, before);
          const line = memory.subarray(before, before + bytes.length);
          const want = byByte(line, quoteAt, canonical);
          clearNonAscii();
          expect(stringEnd(line, quoteAt, canonical)).toBe(want.end);
          if (want.end >= 0) expect(lastHadEscape()).toBe(want.escaped);
          // A string it proved tells whether it held a byte >= 0x80 (a line's UTF-8 check is skipped without).
          if (want.end >= 0) expect(sawNonAscii()).toBe(line.subarray(quoteAt, want.end).some((b) => b >= 0x80));
        },
      ),
      { numRuns: numRuns() * 20 },
    );
  });

  it("ends where JSON.stringify's string ends, in a Buffer of a shared pool", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 40 }), fc.string({ maxLength: 9 }), (s, lead) => {
        const quoted = JSON.stringify(s);
        const line = Buffer.from(`${JSON.stringify(lead)}:${quoted},`);
        const at = Buffer.byteLength(JSON.stringify(lead)) + 1;
        expect(stringEnd(line, at, true)).toBe(at + Buffer.byteLength(quoted));
        expect(lastHadEscape()).toBe(quoted.includes("\\"));
        // Strings proved since the clear accumulate: the lead's bytes count too, were it skipped first.
        clearNonAscii();
        stringEnd(line, 0, true);
        const leadHigh = sawNonAscii();
        stringEnd(line, at, true);
        expect(sawNonAscii()).toBe(leadHigh || Buffer.byteLength(s) !== s.length);
      }),
      { numRuns: numRuns() * 10 },
    );
  });
});
