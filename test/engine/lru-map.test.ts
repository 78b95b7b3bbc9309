// LruMap (src/engine/bounded.ts) and SlotTable (src/engine/slot-table.ts, the keys and order of
// direction A's tool calls and messages) against a model: two arrays in write order (retired, live),
// the oldest forgotten first, retired before live. Any sequence of operations leaves the same
// entries, values and order in the model and in each.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LruMap } from "../../src/engine/bounded.js";
import { NIL, SlotTable } from "../../src/engine/slot-table.js";
import { numRuns } from "../support/properties.js";

/** The operations both tables offer, for the model test. */
interface Table {
  set(key: string, value: number): void;
  retire(key: string): void;
  get(key: string): number | undefined;
  clear(): void;
  values(): Iterable<number>;
  readonly size: number;
}

/** A SlotTable keeping a number per slot; keys carry a tag after a `|` (0 when none). */
class SlotMap extends SlotTable implements Table {
  private readonly data: (number | undefined)[] = [];
  protected resize(capacity: number): void {
    this.data.length = capacity;
  }
  protected release(slot: number): void {
    this.data[slot] = undefined;
  }
  private static split(key: string): [string, number] {
    const [k, tag] = key.split("|");
    return [k!, Number(tag ?? 0)];
  }
  set(key: string, value: number): void {
    const [k, tag] = SlotMap.split(key);
    let slot = this.find(k, tag);
    if (slot === NIL) slot = this.add(k, tag);
    else this.touch(slot);
    this.data[slot] = value;
  }
  retire(key: string): void {
    const slot = this.find(...SlotMap.split(key));
    if (slot !== NIL) this.retireSlot(slot);
  }
  get(key: string): number | undefined {
    const slot = this.find(...SlotMap.split(key));
    return slot === NIL ? undefined : this.data[slot];
  }
  values(): number[] {
    return this.slots().map((s) => this.data[s]!);
  }
  keys(): string[] {
    return this.slots().map((s) => (this.tagOf(s) === 0 ? this.keyOf(s) : `${this.keyOf(s)}|${this.tagOf(s)}`));
  }
}

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

// Long keys (kept as strings by SlotTable) and tags among the short ones; many keys, so that the slot
// table grows, forgets, and its index shifts cells back.
const KEYS = ["a", "b", "c", "d", "e", "f", "a|1", "a|2", "k".repeat(40), "k".repeat(41), "é€😀".repeat(20)];
const manyKeys = [...KEYS, ...Array.from({ length: 30 }, (_, i) => `key-${i}`)];
const key = fc.constantFrom(...manyKeys);
const op = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(fc.constant("set" as const), key, fc.integer()) },
  { weight: 1, arbitrary: fc.tuple(fc.constant("retire" as const), key, fc.constant(0)) },
  { weight: 1, arbitrary: fc.tuple(fc.constant("delete" as const), key, fc.constant(0)) },
  { weight: 1, arbitrary: fc.tuple(fc.constant("get" as const), key, fc.constant(0)) },
  { weight: 1, arbitrary: fc.tuple(fc.constant("clear" as const), key, fc.constant(0)) },
);

const tables = [
  { name: "LruMap", make: (limit: number) => new LruMap<string, number>(limit) },
  { name: "SlotTable", make: (limit: number) => new SlotMap(limit) },
];

describe.each(tables)("$name", ({ make }) => {
  it("keeps what an exact least-recently-written model keeps, in the same order", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.array(op, { maxLength: 200 }), (limit, ops) => {
        const m: Table = make(limit);
        let model = new Model(limit);
        for (const [name, k, v] of ops) {
          if (name === "set") {
            m.set(k, v);
            model.set(k, v);
          } else if (name === "retire") {
            m.retire(k);
            model.retire(k);
          } else if (name === "delete") {
            // SlotTable's owners never delete one entry.
            if (!(m instanceof LruMap)) continue;
            m.delete(k);
            model.delete(k);
          } else if (name === "clear") {
            m.clear();
            model = new Model(limit);
          } else expect(m.get(k)).toBe(model.get(k));
          expect([...m.values()]).toEqual(model.values());
          expect(m.size).toBe(model.values().length);
          for (const x of manyKeys) expect(m.get(x)).toBe(model.get(x));
          if (m instanceof SlotMap) expect(m.keys()).toEqual([...model.retired, ...model.live].map(([x]) => x));
        }
      }),
      { numRuns: numRuns() },
    );
  });
});

describe("LruMap", () => {
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
