// The byte helpers of the scanners (src/wire/bytes.ts): `indexWithin` finds a needle wholly within
// a range as a native search of that range would, whether it loops (a short range) or calls one;
// a `Needle` finds itself by its anchor byte where a native search of all its bytes does.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Needle, indexWithin } from "../../src/wire/bytes.js";
import { numRuns } from "../support/properties.js";

/** The reference: a native search of the range alone. */
function reference(line: Buffer, needle: Uint8Array, start: number, end: number): number {
  if (start < 0 || end - start < needle.length) return -1;
  const at = line.subarray(start, end).indexOf(needle);
  return at < 0 ? -1 : start + at;
}

// Few distinct bytes, so that needles occur, partly match and straddle a range's ends.
const bytes = (max: number) => fc.uint8Array({ min: 0x61, max: 0x63, maxLength: max });

describe("indexWithin", () => {
  it("finds a needle within a range as a search of that range alone, short or long", () => {
    fc.assert(
      fc.property(bytes(400), bytes(4), fc.nat(420), fc.nat(420), (l, needle, a, b) => {
        const line = Buffer.from(l);
        const [start, end] = [Math.min(a, b, line.length), Math.min(Math.max(a, b), line.length)];
        expect(indexWithin(line, needle, start, end)).toBe(reference(line, needle, start, end));
      }),
      { numRuns: numRuns() * 10 },
    );
  });

  it("does not find a needle that starts within a range and ends past it", () => {
    const line = Buffer.from("xx_meta_yy");
    expect(indexWithin(line, Buffer.from("_yy"), 0, 9)).toBe(-1);
    expect(indexWithin(line, Buffer.from("_yy"), 0, 10)).toBe(7);
    // A long range: the native search finds it past the range's end, which does not count.
    const long = Buffer.concat([Buffer.alloc(200, 0x61), Buffer.from("key")]);
    expect(indexWithin(long, Buffer.from("key"), 0, 202)).toBe(-1);
    expect(indexWithin(long, Buffer.from("key"), 0, 203)).toBe(200);
  });
});

describe("Needle", () => {
  it("finds itself from any index as a native search of its bytes does, whichever byte anchors it", () => {
    const text = fc.string({ unit: fc.constantFrom("a", "b", "["), minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(bytes(300), text, fc.nat(3), fc.integer({ min: -2, max: 310 }), (l, t, pick, from) => {
        const line = Buffer.from(l.map((x) => (x === 0x63 ? 0x5b : x)));
        const needle = new Needle(t, t[pick % t.length] ?? "a");
        expect(needle.in(line, from)).toBe(line.indexOf(needle.bytes, Math.max(from, 0)));
      }),
      { numRuns: numRuns() * 10 },
    );
  });

  it("finds the tag's key and a content list of real lines, anchored on their rare bytes", () => {
    const line = Buffer.from(
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"_meta":{"U":"[U"},' +
        '"toolCallId":"t","content":[{"type":"text"}],"sessionUpdate":"tool_call_update"}}}',
    );
    for (const [text, anchor] of [
      ['"sessionUpdate":"', "U"],
      ['"content":[', "["],
    ] as const)
      expect(new Needle(text, anchor).in(line, 0)).toBe(line.indexOf(text));
    expect(() => new Needle('"content":[', "]")).toThrow();
  });
});
