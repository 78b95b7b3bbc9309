// appendDigestJson (src/convert/text-digest.ts): the digest of a JSON string's bytes, read as
// JSON.parse reads them, is the digest of the decoded string: for every kind of text (escapes,
// controls, lone surrogates, characters of every UTF-8 length) and every spelling JSON allows
// (JSON.stringify's, and escapes it would not write); bytes that are no string body give undefined.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { appendDigest, appendDigestJson, digestOf } from "../../src/convert/text-digest.js";
import { anyString } from "../support/arbitrary.js";
import { numRuns } from "../support/properties.js";

const text = fc.oneof(
  anyString,
  fc.string({ unit: "grapheme" }),
  fc.constantFrom("", 'say "hi"\n', "a\\b/c", "\u0000\u001f\u007f", "\ud800", "\udfff x", "é€🙂", "\u2028"),
);

/** JSON bodies of `s` (between the quotes): JSON.stringify's, or with escapes it would not write. */
function spellings(s: string): string[] {
  const canonical = JSON.stringify(s).slice(1, -1);
  const allEscaped = Array.from({ length: s.length }, (_, k) => `\\u${s.charCodeAt(k).toString(16).padStart(4, "0")}`);
  return [
    canonical,
    allEscaped.join(""),
    allEscaped.join("").toUpperCase().replaceAll("\\U", "\\u"),
    canonical.replaceAll("/", "\\/"),
  ];
}

describe("appendDigestJson", () => {
  it("digests a JSON string's bytes as the string JSON.parse reads from them", () => {
    fc.assert(
      fc.property(text, text, fc.nat(3), (before, s, how) => {
        const d = digestOf(before);
        const body = spellings(s)[how] ?? "";
        const bytes = Buffer.from(`x"${body}"y`);
        expect(JSON.parse(`"${body}"`)).toBe(s);
        expect(appendDigestJson(d, bytes, 2, bytes.length - 2)).toEqual(appendDigest(d, s));
      }),
      { numRuns: numRuns() * 4 },
    );
  });

  it("gives undefined for bytes no string body holds: a bad escape, a cut one", () => {
    const d = digestOf("");
    for (const body of ["\\x", "\\u12", "\\u12g4", "\\", "a\\"]) {
      const bytes = Buffer.from(body);
      expect(appendDigestJson(d, bytes, 0, bytes.length), body).toBeUndefined();
    }
  });
});
