// Key-order records (src/wire/key-order.ts): what one bridge records, the bridge that writes the
// message back in its source version restores, byte for byte, whatever happened to key order between.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Link } from "../../src/engine/link.js";
import { KEY_ORDER_KEY, keyOrderOf, recordKeyOrder, restoreKeyOrder } from "../../src/wire/key-order.js";
import { numRuns } from "../support/properties.js";
import type { Obj } from "../../src/base/json.js";

/** Every object's keys in a new order (as converters rebuilding objects do); arrays keep theirs. */
function scramble(value: unknown, pick: (n: number) => number): unknown {
  if (Array.isArray(value)) return value.map((v) => scramble(v, pick));
  if (typeof value !== "object" || value === null) return value;
  const entries = Object.entries(value);
  const out: [string, unknown][] = [];
  while (entries.length > 0) {
    const [k, v] = entries.splice(pick(entries.length), 1)[0]!;
    // The record itself is data for the far bridge, not part of the shape: its insides may move too.
    out.push([k, scramble(v, pick)]);
  }
  return Object.fromEntries(out);
}

const json = fc.jsonValue({ maxDepth: 4 });
const root = fc.dictionary(
  fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom("__proto__", "_meta", "a/b", "~x", "")),
  json,
  { maxKeys: 6 },
);
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

describe("key-order records", () => {
  it("restore the recorded order exactly after any reordering on the way (property)", () => {
    fc.assert(
      fc.property(
        root.filter(
          (p) => p._meta === undefined || p._meta === null || (typeof p._meta === "object" && !Array.isArray(p._meta)),
        ),
        fc.constantFrom<"params" | "result">("params", "result"),
        fc.infiniteStream(fc.nat()),
        (params, field, picks) => {
          const original = {
            jsonrpc: "2.0",
            id: 1,
            ...(field === "params" ? { method: "m", params } : { result: params }),
          };
          const text = JSON.stringify(original);
          const sent = clone(original) as Obj;
          recordKeyOrder(sent, 1);
          const it = picks[Symbol.iterator]();
          const scrambled = { ...sent, [field]: scramble(sent[field], (n) => it.next().value % n) };
          expect(JSON.stringify(restoreKeyOrder(scrambled, 1))).toBe(text);
        },
      ),
      { numRuns: numRuns() },
    );
  });

  it("record nothing when no object has two keys, and nothing in a `_meta` that is not an object or null", () => {
    expect(keyOrderOf({ params: { sessionId: "s" } }, 1)).toBeUndefined();
    expect(keyOrderOf({ params: { a: 1, _meta: 3 } }, 2)).toBeUndefined();
    expect(keyOrderOf({ params: [1, 2] }, 2)).toBeUndefined();
  });

  it("leave a record of the other version for the bridge further on", () => {
    const msg = { jsonrpc: "2.0", method: "m", params: { b: 1, a: 2 } };
    recordKeyOrder(msg, 2);
    expect(restoreKeyOrder(msg, 1)).toBe(msg);
  });

  it("keep `_meta` keys added on the way, and an empty `_meta` the source had", () => {
    const added = { jsonrpc: "2.0", method: "m", params: { b: 1, a: 2 } as Obj };
    recordKeyOrder(added, 1);
    (added.params._meta as Obj).trace = "t";
    expect(JSON.stringify(restoreKeyOrder(added, 1))).toBe(
      '{"jsonrpc":"2.0","method":"m","params":{"b":1,"a":2,"_meta":{"trace":"t"}}}',
    );
    const empty = { jsonrpc: "2.0", method: "m", params: { b: 1, _meta: {}, a: 2 } };
    recordKeyOrder(empty, 1);
    expect(JSON.stringify(restoreKeyOrder(empty, 1))).toBe(
      '{"jsonrpc":"2.0","method":"m","params":{"b":1,"_meta":{},"a":2}}',
    );
  });

  it("strip a malformed record without reordering or throwing", () => {
    const msg = {
      jsonrpc: "2.0",
      method: "m",
      params: { b: 1, a: 2, _meta: { [KEY_ORDER_KEY]: { v: 1, keys: "no" } } },
    };
    expect(restoreKeyOrder(msg, 1)).toEqual({ jsonrpc: "2.0", method: "m", params: { b: 1, a: 2, _meta: {} } });
  });

  it("are applied by a link of the record's version, on send and on a raw send", () => {
    const lines: string[] = [];
    const link = new Link("client", { push: (l) => lines.push(String(l)) });
    link.orderVersion = 1;
    const msg = { jsonrpc: "2.0", method: "m", params: { b: 1, a: 2 } as Obj };
    recordKeyOrder(msg, 1);
    const moved = { ...msg, params: { a: 2, _meta: msg.params._meta, b: 1 } };
    link.send(moved);
    link.sendRaw(Buffer.from(JSON.stringify(moved)), moved);
    link.sendRaw(Buffer.from('{"raw":true}'), { raw: true });
    expect(lines).toEqual([
      '{"jsonrpc":"2.0","method":"m","params":{"b":1,"a":2}}',
      '{"jsonrpc":"2.0","method":"m","params":{"b":1,"a":2}}',
      '{"raw":true}',
    ]);
  });
});
