// LruMap (src/engine/bounded.ts) against a model: two arrays in write order (retired, live), the
// oldest forgotten first, retired before live. Any sequence of operations leaves the same entries,
// values and order in both.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LruMap } from "../../src/engine/bounded.js";
import { numRuns } from "../support/properties.js";

class Model {
  live: [string, number][] = [];
  retired: [string, number][] = [];
  constructor(readonly limit: number) {}

  private drop(key: string): void {
    this.live = this.live.filter(([k]) => k !== key);
    this.retired = this.retired.filter(([k]) => k !== key);
  }

  set(key: string, value: number): void {
    this.drop(key);
    this.live.push([key, value]);
    while (this.live.length + this.retired.length > this.limit) {
      if (this.retired.length > 0) this.retired.shift();
      else this.live.shift();
    }
  }

  retire(key: string): void {
    const e = this.live.find(([k]) => k === key);
    if (!e) return;
    this.drop(key);
    this.retired.push(e);
  }

  delete(key: string): void {
    this.drop(key);
  }

  get(key: string): number | undefined {
    return [...this.live, ...this.retired].find(([k]) => k === key)?.[1];
  }

  values(): number[] {
    return [...this.retired, ...this.live].map(([, v]) => v);
  }
}

const key = fc.constantFrom("a", "b", "c", "d", "e", "f");
const op = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(fc.constant("set" as const), key, fc.integer()) },
  { weight: 1, arbitrary: fc.tuple(fc.constant("retire" as const), key, fc.constant(0)) },
  { weight: 1, arbitrary: fc.tuple(fc.constant("delete" as const), key, fc.constant(0)) },
  { weight: 1, arbitrary: fc.tuple(fc.constant("get" as const), key, fc.constant(0)) },
  { weight: 1, arbitrary: fc.tuple(fc.constant("clear" as const), key, fc.constant(0)) },
);

describe("LruMap", () => {
  it("keeps what an exact least-recently-written model keeps, in the same order", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(op, { maxLength: 60 }), (limit, ops) => {
        const m = new LruMap<string, number>(limit);
        let model = new Model(limit);
        for (const [name, k, v] of ops) {
          if (name === "set") {
            m.set(k, v);
            model.set(k, v);
          } else if (name === "retire") {
            m.retire(k);
            model.retire(k);
          } else if (name === "delete") {
            m.delete(k);
            model.delete(k);
          } else if (name === "clear") {
            m.clear();
            model = new Model(limit);
          } else expect(m.get(k)).toBe(model.get(k));
          expect([...m.values()]).toEqual(model.values());
          expect(m.size).toBe(model.values().length);
          for (const x of ["a", "b", "c", "d", "e", "f"]) expect(m.has(x)).toBe(model.get(x) !== undefined);
        }
      }),
      { numRuns: numRuns() },
    );
  });

  it("lets its values be walked while it is written", () => {
    const m = new LruMap<string, number>(3);
    m.set("a", 1);
    m.set("b", 2);
    m.set("c", 3);
    const seen: number[] = [];
    for (const v of m.values()) {
      seen.push(v);
      m.set(`n${v}`, v * 10);
    }
    expect(seen).toEqual([1, 2, 3]);
    expect([...m.values()]).toEqual([10, 20, 30]);
  });
});
