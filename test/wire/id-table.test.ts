// IdTable (src/wire/id-table.ts) against a Map: any sequence of operations on ids of every kind
// (sequential integers as SDKs issue them, colliding slots, strings, odd numbers, null) gives the
// same answers, size and insertion order.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IdTable } from "../../src/wire/id-table.js";
import type { Id } from "../../src/wire/jsonrpc.js";
import { numRuns } from "../support/properties.js";

const id: fc.Arbitrary<Id> = fc.oneof(
  { weight: 6, arbitrary: fc.nat({ max: 40 }) },
  // Integers sharing a slot of the small ring, beyond the ring, and ids a Map keys apart from them.
  { weight: 2, arbitrary: fc.constantFrom(16, 32, 48, 64, 2 ** 31, 2 ** 31 + 16, 2 ** 53 + 2, -16, 1.5, -0) },
  { weight: 2, arbitrary: fc.constantFrom<Id>("0", "16", "a", null) },
);
const op = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(fc.constant("set" as const), id, fc.integer()) },
  { weight: 3, arbitrary: fc.tuple(fc.constant("delete" as const), id, fc.constant(0)) },
  { weight: 2, arbitrary: fc.tuple(fc.constant("get" as const), id, fc.constant(0)) },
  { weight: 1, arbitrary: fc.tuple(fc.constant("clear" as const), id, fc.constant(0)) },
);

describe("IdTable", () => {
  it("answers as a Map does, in the same insertion order", () => {
    fc.assert(
      // Sixteen slots to start: the ids above meet taken slots and growth within a short run.
      fc.property(fc.array(op, { maxLength: 120 }), (ops) => {
        const table = new IdTable<number>(16);
        const model = new Map<Id, number>();
        for (const [kind, k, v] of ops) {
          if (kind === "set") {
            table.set(k, v);
            model.set(k, v);
          } else if (kind === "delete") expect(table.delete(k)).toBe(model.delete(k));
          else if (kind === "clear") {
            table.clear();
            model.clear();
          }
          expect(table.get(k)).toBe(model.get(k));
          expect(table.has(k)).toBe(model.has(k));
          expect(table.size).toBe(model.size);
        }
        expect(table.entries()).toEqual([...model.entries()]);
      }),
      { numRuns: numRuns() },
    );
  });

  it("grows in the arrays it started with, keeping every entry and its order", () => {
    // V8 discarded the optimized request path when a field holding an array was assigned again.
    const table = new IdTable<number>(16);
    const arrays = () => {
      const t = table as unknown as Record<"ids" | "values" | "seqs", unknown[]>;
      return [t.ids, t.values, t.seqs];
    };
    const before = arrays();
    const ids = Array.from({ length: 100 }, (_, i) => (i * 37) % 101);
    for (const id of ids) table.set(id, id * 2);
    expect(arrays().every((a, i) => a === before[i])).toBe(true);
    expect(before[0]!.length).toBeGreaterThanOrEqual(200);
    expect(table.entries()).toEqual(ids.map((id) => [id, id * 2]));
    for (const id of ids) expect(table.get(id)).toBe(id * 2);
  });

  it("keeps a request that outlives ten thousand others, each answered before the next", () => {
    const table = new IdTable<string>();
    table.set(0, "long-lived");
    for (let i = 1; i < 10_000; i++) {
      table.set(i, "x");
      if (i > 1) table.delete(i - 1);
    }
    expect(table.size).toBe(2);
    expect(table.get(0)).toBe("long-lived");
    expect(table.entries()).toEqual([
      [0, "long-lived"],
      [9999, "x"],
    ]);
  });
});
