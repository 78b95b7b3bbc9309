// scanCall (src/wire/call-scan.ts) against JSON.parse and JSON.stringify: whatever it takes is a
// request or result that JSON.stringify of its parse writes back byte for byte, with the id, method
// and the id's end it reports; and it takes every such line an SDK writes (not a vacuous proof).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { scanCall } from "../../src/wire/call-scan.js";
import { jsonValue } from "../support/arbitrary.js";
import { numRuns } from "../support/properties.js";

const id = fc.oneof(
  fc.nat({ max: 20 }),
  fc.constantFrom(0, 10 ** 14, 10 ** 15 - 1, 10 ** 15, 2 ** 53, -1, 1.5, "7", null),
);
const text = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom("ü", "\u0001", "\\", '"', "\ud800", "é\n"));
const odd = fc.oneof(
  jsonValue,
  text,
  fc.constantFrom(1.5, -0, 1e21, 2 ** 53, -(10 ** 15), 10 ** 15 - 1, 0.1),
  fc.dictionary(fc.oneof(text, fc.constantFrom("1", "01", "__proto__", "-1", "a1")), jsonValue, { maxKeys: 3 }),
);
const params = fc.oneof(fc.dictionary(text, odd, { maxKeys: 4 }), fc.array(odd, { maxLength: 3 }), odd);
const message = fc.oneof(
  fc.record(
    { jsonrpc: fc.constant("2.0"), id, method: fc.oneof(text, fc.constant("_x/ask")), params },
    { requiredKeys: ["jsonrpc", "id", "method"] },
  ),
  fc.record({ jsonrpc: fc.constant("2.0"), id, result: odd }),
  fc.record({ jsonrpc: fc.constant("2.0"), id, error: fc.constant({ code: 1, message: "x" }) }),
  fc.record({ id, jsonrpc: fc.constant("2.0"), method: text }),
);

/** The message's JSON, maybe with a byte edit, a duplicated key, whitespace or trailing bytes. */
const line = fc
  .tuple(
    message,
    fc.option(fc.tuple(fc.nat(), fc.constantFrom("", " ", "}", '"', ",", "\\", "0", "e", "\u00ff"))),
    fc.option(fc.constantFrom(" ", "x", ',"result":1}', ',"id":2}', ',"params":{}}')),
  )
  .map(([m, edit, tail]) => {
    let s = JSON.stringify(m);
    if (edit) {
      const at = edit[0] % s.length;
      s = s.slice(0, at) + edit[1] + s.slice(at + 1);
    }
    if (tail !== null) s = tail.startsWith(",") ? s.slice(0, -1) + tail : s + tail;
    return Buffer.from(s);
  });

function parse(b: Buffer): unknown {
  try {
    return JSON.parse(b.toString("utf8"));
  } catch {
    return undefined;
  }
}

describe("scanCall", () => {
  it("takes only lines JSON.stringify writes back, reporting their id, method and id's end", () => {
    fc.assert(
      fc.property(line, (b) => {
        const call = scanCall(b, 64);
        if (call === undefined) return;
        const v = parse(b) as Record<string, unknown> | undefined;
        expect(v).toBeDefined();
        expect(Buffer.from(JSON.stringify(v))).toEqual(b);
        expect(v?.id).toBe(call.id);
        expect(Number.isSafeInteger(call.id) && call.id >= 0).toBe(true);
        if (call.kind === "request") {
          expect(Object.keys(v ?? {}).slice(0, 3)).toEqual(["jsonrpc", "id", "method"]);
          expect(v?.method).toBe(call.method);
          expect(v?.params === undefined || typeof v.params === "object").toBe(true);
          expect(v?.params).not.toBeNull();
        } else expect(Object.keys(v ?? {})).toEqual(["jsonrpc", "id", "result"]);
        expect(b.subarray(call.idEnd).toString()).toBe(
          JSON.stringify(v).slice(`{"jsonrpc":"2.0","id":${call.id}`.length),
        );
      }),
      { numRuns: numRuns() },
    );
  });

  it("takes every request and result an SDK writes with plain values", () => {
    const plain = fc.dictionary(
      fc.string({ maxLength: 6 }).filter((k) => !/^[0-9]/.test(k)),
      fc.oneof(fc.string({ maxLength: 6 }), fc.integer({ min: -1000, max: 1000 }), fc.boolean(), fc.constant(null)),
      { maxKeys: 4 },
    );
    fc.assert(
      fc.property(
        fc.nat({ max: 10 ** 9 }),
        fc.string({ maxLength: 10 }),
        plain,
        fc.boolean(),
        (n, method, value, isResult) => {
          // A method JSON.stringify writes without an escape (the scan leaves escaped methods alone).
          fc.pre(JSON.stringify(method) === `"${method}"` && !/[\ud800-\udfff]/.test(method));
          const msg = isResult
            ? { jsonrpc: "2.0", id: n, result: value }
            : { jsonrpc: "2.0", id: n, method, params: value };
          const call = scanCall(Buffer.from(JSON.stringify(msg)), 64);
          expect(call?.kind).toBe(isResult ? "result" : "request");
          expect(call?.id).toBe(n);
        },
      ),
      { numRuns: numRuns() },
    );
  });

  it("leaves lines nested deeper than the limit to the full path", () => {
    const deep = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":{"b":[1]}}}');
    expect(scanCall(deep, 4)?.id).toBe(1);
    expect(scanCall(deep, 3)).toBeUndefined();
  });
});
