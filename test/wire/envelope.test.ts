// What the bridge learns of a line without parsing it: nesting depth (before any recursion) and,
// for an oversize line, its kind and top-level id (issue: hostile input, item 1).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EnvelopeScanner, nestsDeeperThan } from "../../src/wire/envelope.js";
import { numRuns } from "../support/properties.js";

function scan(text: string, cuts: number[] = []) {
  const bytes = Buffer.from(text);
  const s = new EnvelopeScanner();
  let at = 0;
  for (const c of [...cuts].sort((a, b) => a - b)) {
    s.push(bytes.subarray(at, c));
    at = c;
  }
  s.push(bytes.subarray(at));
  return s.result();
}

function depthOf(v: unknown): number {
  if (Array.isArray(v)) return 1 + Math.max(0, ...v.map(depthOf));
  if (typeof v === "object" && v !== null) return 1 + Math.max(0, ...Object.values(v).map(depthOf));
  return 0;
}

describe("nesting depth", () => {
  it("refuses a 10,000-level array and accepts ordinary messages", () => {
    expect(nestsDeeperThan(Buffer.from("[".repeat(10_000) + "]".repeat(10_000)), 512)).toBe(true);
    expect(nestsDeeperThan(Buffer.from('{"jsonrpc":"2.0","method":"x","params":{"a":[1,{"b":2}]}}'), 2)).toBe(true);
    expect(nestsDeeperThan(Buffer.from('{"jsonrpc":"2.0","method":"x","params":{"a":[1,{"b":2}]}}'), 4)).toBe(false);
  });

  it("ignores brackets inside strings, escaped quotes included", () => {
    expect(nestsDeeperThan(Buffer.from(`{"a":"${"[{".repeat(50)}\\"${"[".repeat(50)}"}`), 3)).toBe(false);
  });

  it("agrees with the parsed value's depth", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 9 }), (v, max) => {
        const text = Buffer.from(JSON.stringify(v));
        // The short-line shortcut only applies where the answer is certain.
        expect(nestsDeeperThan(text, max)).toBe(depthOf(v) > max);
      }),
      { numRuns: numRuns() },
    );
  });
});

describe("envelope of an unparsed line", () => {
  it("tells requests, notifications and responses apart and keeps the id exactly", () => {
    expect(scan('{"jsonrpc":"2.0","id":12,"method":"session/prompt","params":{}}')).toEqual({
      kind: "request",
      id: 12,
    });
    expect(scan('{"jsonrpc":"2.0","method":"session/update","params":{"id":3}}')).toEqual({ kind: "notification" });
    expect(scan('{"jsonrpc":"2.0","result":{"id":"inner","method":"m"},"id":"r\\"1"}')).toEqual({
      kind: "response",
      id: 'r"1',
    });
    expect(scan('{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}')).toEqual({
      kind: "response",
      id: null,
    });
    expect(scan('{"jsonrpc":"2.0","params":[]}')).toEqual({ kind: "unknown" });
  });

  it("finds the same envelope however the bytes are cut", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
        fc.boolean(),
        fc.jsonValue({ maxDepth: 3 }),
        fc.array(fc.nat(400), { maxLength: 6 }),
        (id, request, payload, cuts) => {
          const msg = request
            ? { jsonrpc: "2.0", params: { id: "decoy", x: payload }, method: "m", id }
            : { jsonrpc: "2.0", result: { x: payload, id: "decoy" }, id };
          const text = JSON.stringify(msg);
          const at = cuts.map((c) => c % (Buffer.byteLength(text) + 1));
          expect(scan(text, at)).toEqual({ kind: request ? "request" : "response", id });
        },
      ),
      { numRuns: numRuns() },
    );
  });
});
