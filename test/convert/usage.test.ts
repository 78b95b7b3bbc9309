import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { StashLevel } from "../../src/convert/stash.js";
import { usageToV1, usageToV2 } from "../../src/convert/usage.js";
import { arb } from "../support/arbitrary.js";
import { convertsLosslessly, norm, numRuns, options } from "../support/properties.js";
import { expectValid } from "../support/schema.js";
import { value } from "../support/conv.js";

const opts = options("compact");
const cost = { amount: 0.42, currency: "USD" };

describe("usage_update (T §2.9, T §9 case 14)", () => {
  it("re-attaches the last cost toward v1 when v2 omits it (unchanged)", () => {
    const r = value(usageToV1({ used: 10, size: 100 }, cost, opts));
    expect(r.update).toEqual({
      used: 10,
      size: 100,
      cost,
      _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, synthetic: ["cost"] } },
    });
    expect(r.lastCost).toEqual(cost);
    expectValid("v1", "UsageUpdate", r.update);
  });

  it("remembers a sent cost as the last cost", () => {
    const r = value(usageToV1({ used: 1, size: 2, cost }, undefined, opts));
    expect(r.update).toEqual({ used: 1, size: 2, cost });
    expect(r.lastCost).toEqual(cost);
  });

  it("omits a cleared (null) cost toward v1 and forgets the last cost", () => {
    const r = value(usageToV1({ used: 1, size: 2, cost: null }, cost, options("off")));
    expect(r.update).toEqual({ used: 1, size: 2 });
    expect(r.lastCost).toBeUndefined();
    expectValid("v1", "UsageUpdate", r.update);
  });

  it("sends nothing for an omitted cost when none was sent before", () => {
    const r = value(usageToV1({ used: 1, size: 2 }, undefined, opts));
    expect(r.update).toEqual({ used: 1, size: 2 });
  });

  it("turns a v1 snapshot without cost into cost:null after a forwarded cost", () => {
    const r = value(usageToV2({ used: 5, size: 9 }, true, opts));
    expect(r.update).toEqual({
      used: 5,
      size: 9,
      cost: null,
      _meta: { "acp-bridge": { v: 1, from: 1, hadMeta: false, synthetic: ["cost"] } },
    });
    expect(r.costForwarded).toBe(false);
    expectValid("v2", "UsageUpdate", r.update);
  });

  it("passes a v1 cost toward v2 and records that one was forwarded", () => {
    const r = value(usageToV2({ used: 5, size: 9, cost }, false, opts));
    expect(r.update).toEqual({ used: 5, size: 9, cost });
    expect(r.costForwarded).toBe(true);
  });

  it("leaves a v1 snapshot without cost alone when no cost was forwarded", () => {
    const r = value(usageToV2({ used: 5, size: 9 }, false, opts));
    expect(r.update).toEqual({ used: 5, size: 9 });
  });

  it("answers a malformed v1 cost with the typed error", () => {
    const r = usageToV2({ used: 5, size: 9, cost: "free" } as never, false, opts);
    expect(r.ok).toBe(false);
  });

  it("restores through a chain: the stash undoes the re-attached cost", () => {
    const a = value(usageToV1({ used: 1, size: 2, _meta: { t: 1 } }, cost, opts));
    const b = value(usageToV2(a.update, true, opts));
    expect(b.update).toEqual({ used: 1, size: 2, _meta: { t: 1 } });
    expect(b.costForwarded).toBe(true);
  });
});

// The stateless pair, under the two consistent states of a chain (A's lastCost set ⇔ B forwarded one).
convertsLosslessly({
  name: "UsageUpdate (no cost so far)",
  v1: { schema: "v1", def: "UsageUpdate" },
  v2: { schema: "v2", def: "UsageUpdate" },
  toV2: (x, o) => {
    const r = usageToV2(x as never, false, o);
    return r.ok ? { ...r, value: r.value.update } : r;
  },
  toV1: (x, o) => {
    const r = usageToV1(x, undefined, o);
    return r.ok ? { ...r, value: r.value.update } : r;
  },
  interpreted: { v1: [["cost"]] },
});

convertsLosslessly({
  name: "UsageUpdate (after a cost)",
  v1: { schema: "v1", def: "UsageUpdate" },
  v2: { schema: "v2", def: "UsageUpdate" },
  toV2: (x, o) => {
    const r = usageToV2(x as never, true, o);
    return r.ok ? { ...r, value: r.value.update } : r;
  },
  toV1: (x, o) => {
    const r = usageToV1(x, cost, o);
    return r.ok ? { ...r, value: r.value.update } : r;
  },
  interpreted: { v1: [["cost"]] },
});

/** The cost a v2 client holds after each update (omitted = unchanged, null = none). */
function v2Costs(updates: readonly Record<string, unknown>[]): unknown[] {
  let current: unknown = undefined;
  return updates.map((u) => {
    if (Object.hasOwn(u, "cost")) current = u.cost ?? undefined;
    return norm(current);
  });
}

/** The cost a v1 client shows after each update (each one whole; null = none). */
function v1Costs(updates: readonly Record<string, unknown>[]): unknown[] {
  return updates.map((u) => norm(u.cost ?? undefined));
}

function throughA(seq: readonly unknown[], level: StashLevel): Record<string, unknown>[] {
  let last: unknown = undefined;
  return seq.map((u) => {
    const r = value(usageToV1(u as never, last as never, options(level)));
    expectValid("v1", "UsageUpdate", r.update);
    last = r.lastCost;
    return r.update;
  });
}

function throughB(seq: readonly unknown[], level: StashLevel): Record<string, unknown>[] {
  let forwarded = false;
  return seq.map((u) => {
    const r = value(usageToV2(u as never, forwarded, options(level)));
    expectValid("v2", "UsageUpdate", r.update);
    forwarded = r.costForwarded;
    return r.update;
  });
}

describe("usage_update streams through chained bridges (T §2.9, properties)", () => {
  const v2Seq = fc.array(arb("v2", "UsageUpdate"), { maxLength: 8 });
  const v1Seq = fc.array(arb("v1", "UsageUpdate"), { maxLength: 8 });

  it("v2 → A → B gives back the same stream with the stash on", () => {
    fc.assert(
      fc.property(v2Seq, (seq) => {
        expect(norm(throughB(throughA(seq, "compact"), "compact"))).toEqual(norm(seq));
      }),
      { numRuns: numRuns() },
    );
  });

  it("v2 → A → B keeps the cost a v2 client holds with the stash off", () => {
    fc.assert(
      fc.property(v2Seq, (seq) => {
        const back = throughB(throughA(seq, "off"), "off");
        expect(v2Costs(back)).toEqual(v2Costs(seq as Record<string, unknown>[]));
      }),
      { numRuns: numRuns() },
    );
  });

  it("v1 → B → A gives back the same stream with the stash on", () => {
    fc.assert(
      fc.property(v1Seq, (seq) => {
        expect(norm(throughA(throughB(seq, "compact"), "compact"))).toEqual(norm(seq));
      }),
      { numRuns: numRuns() },
    );
  });

  it("v1 → B → A keeps the cost a v1 client shows with the stash off", () => {
    fc.assert(
      fc.property(v1Seq, (seq) => {
        const back = throughA(throughB(seq, "off"), "off");
        expect(v1Costs(back)).toEqual(v1Costs(seq as Record<string, unknown>[]));
      }),
      { numRuns: numRuns() },
    );
  });
});
