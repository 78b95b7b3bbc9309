import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import type * as v2u from "@agentclientprotocol/sdk/experimental/v2/unstable";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  applyPlanUpdate,
  plansToV1,
  planToV2Updates,
  planUpdateToV1Native,
  planUpdateToV2Native,
  recordEmitted,
  type PlansMap,
} from "../../src/convert/plan.js";
import type { Conv } from "../../src/convert/result.js";
import type { ConvertOptions } from "../../src/convert/stash.js";
import { defaultOptions } from "../support/conv.js";
import { arb } from "../support/arbitrary.js";
import { convertsLosslessly, diffPaths, norm, numRuns, options } from "../support/properties.js";
import { expectValid, type SchemaVersion } from "../support/schema.js";
import { value, within } from "../support/conv.js";

/** A↓ for a session that had no plan before: what the engine does (apply, then render). */
function planUpdateToV1(update: v2.PlanUpdate, opts: ConvertOptions): Conv<v1.Plan> {
  const map = applyPlanUpdate(new Map(), update);
  return map.ok ? plansToV1(map.value, update, opts) : map;
}

/** One entry, through the plan converters the engine calls. */
function planEntryToV1(e: v2.PlanEntry, opts: ConvertOptions): Conv<v1.PlanEntry> {
  const update = { plan: { type: "items", planId: "main", entries: [e] } } as v2.PlanUpdate;
  return within(planUpdateToV1(update, opts), ["plan", "entries", 0], ["entries", 0]);
}
function planEntryToV2(e: v1.PlanEntry, opts: ConvertOptions = defaultOptions): Conv<v2.PlanEntry> {
  return within(planToV2Updates({ entries: [e] }, new Map(), opts), ["entries", 0], [0, "plan", "entries", 0]);
}

/** The converted value, schema-checked as `def` of `version`. */
function valid<T>(version: SchemaVersion, def: string, r: Conv<T>): T {
  const v = value(r);
  expectValid(version, def, v);
  return v;
}

const entry = (content: string, status: string, priority = "medium") =>
  ({ content, status, priority }) as v1.PlanEntry & v2.PlanEntry;
const items = (planId: string, entries: v2.PlanEntry[]): v2.PlanUpdate => ({
  plan: { type: "items", planId, entries },
});

/** A↓ engine step: apply the update, emit the merged v1 plan. */
function stepA(map: PlansMap, update: v2.PlanUpdate, opts: ConvertOptions = defaultOptions): [PlansMap, v1.Plan] {
  const next = value(applyPlanUpdate(map, update));
  const plan = value(plansToV1(next, update, opts));
  expectValid("v1", "Plan", plan);
  return [next, plan];
}

/** B↓ engine step. */
function stepB(last: PlansMap, plan: v1.Plan, opts: ConvertOptions = defaultOptions): [PlansMap, v2.PlanUpdate[]] {
  const updates = value(planToV2Updates(plan, last, opts));
  for (const u of updates) expectValid("v2", "PlanUpdate", u);
  return [recordEmitted(last, updates), updates];
}

/** Single-plan B↓ for the pair properties (no plan emitted before). */
function planToV2(plan: v1.Plan, opts: ConvertOptions): Conv<v2.PlanUpdate> {
  const r = planToV2Updates(plan, new Map(), opts);
  if (!r.ok) return r;
  if (r.value.length !== 1) throw new Error(`expected one update, got ${JSON.stringify(r.value)}`);
  return { ok: true, value: r.value[0]!, lost: r.lost };
}

describe("T §2.6 A↓: v2 plans merged into the v1 plan", () => {
  it("concatenates every items plan in order of first sight and stashes the layout", () => {
    let map: PlansMap = new Map();
    [map] = stepA(map, items("a", [entry("one", "completed", "high")]));
    const [, plan] = stepA(map, items("b", [entry("two", "in_progress"), entry("three", "pending", "low")]));
    expect(plan).toEqual({
      entries: [entry("one", "completed", "high"), entry("two", "in_progress"), entry("three", "pending", "low")],
      _meta: {
        "acp-bridge": {
          v: 1,
          from: 2,
          hadMeta: false,
          residual: {
            plans: [
              { planId: "a", count: 1 },
              { planId: "b", count: 2 },
            ],
            trigger: "b",
          },
        },
      },
    });
  });

  it("shows a cancelled entry as completed and stashes the original status on the entry", () => {
    const r = planUpdateToV1(items("p", [entry("stop", "cancelled")]), defaultOptions);
    const plan = value(r);
    expectValid("v1", "Plan", plan);
    expect(plan.entries[0]).toEqual({
      content: "stop",
      status: "completed",
      priority: "medium",
      _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { status: "cancelled" } } },
    });
    expect(r.ok && r.lost.map((l) => l.path)).toContainEqual(["plan", "entries", 0, "status"]);
  });

  it("shows unknown statuses as pending and unknown priorities as medium, keeping entry _meta", () => {
    const plan = valid(
      "v1",
      "Plan",
      planUpdateToV1(
        items("p", [{ content: "x", status: "_blocked", priority: "future_urgent", _meta: { k: 1 } }]),
        defaultOptions,
      ),
    );
    expect(plan.entries[0]).toEqual({
      content: "x",
      status: "pending",
      priority: "medium",
      _meta: {
        k: 1,
        "acp-bridge": { v: 1, from: 2, hadMeta: true, residual: { status: "_blocked", priority: "future_urgent" } },
      },
    });
  });

  it("never renders a plan of unknown type but keeps it in opaquePlans", () => {
    let map: PlansMap = new Map();
    [map] = stepA(map, items("a", [entry("one", "pending")]));
    const opaque = { type: "_canvas", planId: "c", svg: "<svg/>" };
    const [, plan] = stepA(map, { plan: opaque as v2.PlanUpdateContent });
    expect(plan.entries).toEqual([entry("one", "pending")]);
    expect((plan._meta as Record<string, { residual: unknown }>)["acp-bridge"]!.residual).toEqual({
      plans: [{ planId: "a", count: 1 }],
      opaquePlans: [opaque],
      trigger: "c",
    });
  });

  it("replaces a plan in place when its planId is updated again", () => {
    let map: PlansMap = new Map();
    [map] = stepA(map, items("a", [entry("a1", "pending")]));
    [map] = stepA(map, items("b", [entry("b1", "pending")]));
    const [next, plan] = stepA(map, items("a", [entry("a1", "completed"), entry("a2", "pending")]));
    expect([...next.keys()]).toEqual(["a", "b"]);
    expect(plan.entries.map((e) => e.content)).toEqual(["a1", "a2", "b1"]);
  });

  it("copies the update's _meta to the v1 plan and keeps per-plan _meta in the stash", () => {
    const update: v2.PlanUpdate = {
      plan: { type: "items", planId: "main", entries: [], _meta: { per: "plan" } },
      _meta: { top: 1 },
    };
    const r = planUpdateToV1(update, defaultOptions);
    expect(valid("v1", "Plan", r)).toEqual({
      entries: [],
      _meta: {
        top: 1,
        "acp-bridge": {
          v: 1,
          from: 2,
          hadMeta: true,
          residual: { plans: [{ planId: "main", count: 0, meta: { per: "plan" } }], trigger: "main" },
        },
      },
    });
    expect(r.ok && r.lost.map((l) => l.path)).toEqual([["plan", "_meta"]]);
  });

  it("writes no stash when it is off but still reports what was lost", () => {
    const r = planUpdateToV1(items("x", [entry("e", "cancelled")]), options("off"));
    expect(valid("v1", "Plan", r)).toEqual({ entries: [entry("e", "completed")] });
    expect(r.ok && r.lost.map((l) => l.path)).toEqual([
      ["plan", "entries", 0, "status"],
      ["plan", "planId"],
    ]);
  });

  it("rejects a plan whose interpreted fields have the wrong type", () => {
    const bad = [
      { plan: { type: 3, planId: "p", entries: [] } },
      { plan: { type: "items", planId: 3, entries: [] } },
      { plan: { type: "items", planId: "p", entries: {} } },
      { plan: { type: "items", planId: "p", entries: [{ content: "c", status: 1, priority: "low" }] } },
      { plan: null },
    ];
    for (const u of bad) {
      const r = planUpdateToV1(u as unknown as v2.PlanUpdate, defaultOptions);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.code).toBe(-32602);
    }
  });
});

describe("T §2.6 B↓: a v1 plan split into v2 plan updates", () => {
  it("gives a plain v1 plan the synthetic planId main, marked as invented", () => {
    const [, updates] = stepB(new Map(), { entries: [entry("one", "pending", "high")], _meta: { a: 1 } });
    expect(updates).toEqual([
      {
        plan: {
          type: "items",
          planId: "main",
          entries: [entry("one", "pending", "high")],
          _meta: { "acp-bridge": { v: 1, from: 1, hadMeta: false, synthetic: ["planId"] } },
        },
        _meta: { a: 1 },
      },
    ]);
  });

  it("gives a plain v1 plan planId main with no _meta when the stash is off", () => {
    const [, updates] = stepB(new Map(), { entries: [] }, options("off"));
    expect(updates).toEqual([{ plan: { type: "items", planId: "main", entries: [] } }]);
  });

  it("re-emits the v1 plan as the same v1 plan through A (chain v1 → B → A → v1)", () => {
    const original: v1.Plan = { entries: [entry("one", "completed", "low")], _meta: { t: true } };
    const [, updates] = stepB(new Map(), original);
    const back = valid("v1", "Plan", planUpdateToV1(updates[0]!, defaultOptions));
    expect(back).toEqual(original);
  });

  it("splits by the stashed counts, restores entry enums, and emits only the trigger and changed plans", () => {
    const updatesIn: v2.PlanUpdate[] = [
      items("a", [entry("a1", "cancelled", "_p")]),
      items("b", [entry("b1", "pending")]),
      items("b", [entry("b1", "completed"), entry("b2", "_wait")]),
    ];
    let mapA: PlansMap = new Map();
    let lastB: PlansMap = new Map();
    const seen: v2.PlanUpdate[][] = [];
    for (const u of updatesIn) {
      let plan: v1.Plan;
      [mapA, plan] = stepA(mapA, u);
      let out: v2.PlanUpdate[];
      [lastB, out] = stepB(lastB, plan);
      seen.push(out);
    }
    expect(seen).toEqual(updatesIn.map((u) => [u]));
  });

  it("clears a planId that disappeared with entries: []", () => {
    const last: PlansMap = new Map([
      ["old", { type: "items", planId: "old", entries: [entry("x", "pending")] }],
      ["main", { type: "items", planId: "main", entries: [] }],
    ]);
    const [, updates] = stepB(last, { entries: [entry("n", "pending")] }, options("off"));
    expect(updates).toEqual([
      { plan: { type: "items", planId: "main", entries: [entry("n", "pending")] } },
      { plan: { type: "items", planId: "old", entries: [] } },
    ]);
  });

  it("clears a plan the agent removed (unstable plan_removed) for a stable v2 client", () => {
    let mapA: PlansMap = new Map();
    let lastB: PlansMap = new Map();
    for (const u of [items("a", [entry("a1", "pending")]), items("b", [entry("b1", "pending")])]) {
      let plan: v1.Plan;
      [mapA, plan] = stepA(mapA, u);
      [lastB] = stepB(lastB, plan);
    }
    const removed = new Map(mapA); // after a plan_removed (unstable v2) for "a"
    removed.delete("a");
    mapA = removed;
    const plan = valid("v1", "Plan", plansToV1(mapA, undefined, defaultOptions));
    expect(plan.entries).toEqual([entry("b1", "pending")]);
    const [, updates] = stepB(lastB, plan);
    expect(updates).toEqual([{ plan: { type: "items", planId: "a", entries: [] } }]);
  });

  it("re-emits opaque plans raw", () => {
    const opaque = { type: "_canvas", planId: "c", svg: "<svg/>", _meta: null };
    const plan = valid(
      "v1",
      "Plan",
      planUpdateToV1({ plan: opaque as v2.PlanUpdateContent, _meta: { z: 0 } }, defaultOptions),
    );
    expect(plan.entries).toEqual([]);
    const [, updates] = stepB(new Map(), plan);
    expect(updates).toEqual([{ plan: opaque, _meta: { z: 0 } }]);
  });

  it("emits a plan the stash lists but the client never got, even when it is not the trigger", () => {
    let mapA: PlansMap = new Map();
    [mapA] = stepA(mapA, items("a", [entry("a1", "pending")]));
    const [, plan] = stepA(mapA, items("b", [entry("b1", "pending")]));
    const [, updates] = stepB(new Map(), plan);
    expect(updates.map((u) => u.plan.planId)).toEqual(["a", "b"]);
  });

  it("ignores a stash whose counts do not match the entries and treats the plan as plain", () => {
    const meta = {
      "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { plans: [{ planId: "a", count: 5 }], trigger: "a" } },
    };
    const [, updates] = stepB(new Map(), { entries: [entry("x", "pending")], _meta: meta }, options("off"));
    expect(updates).toEqual([
      { plan: { type: "items", planId: "main", entries: [entry("x", "pending")] }, _meta: meta },
    ]);
  });

  it("restores a stashed status only while the v1 value is still the one shown", () => {
    const stashed = { "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { status: "cancelled" } } };
    expect(
      valid("v2", "PlanEntry", planEntryToV2({ content: "c", status: "completed", priority: "low", _meta: stashed })),
    ).toEqual({
      content: "c",
      status: "cancelled",
      priority: "low",
    });
    expect(
      valid("v2", "PlanEntry", planEntryToV2({ content: "c", status: "pending", priority: "low", _meta: stashed })),
    ).toEqual({
      content: "c",
      status: "pending",
      priority: "low",
    });
  });

  it("rejects a v1 plan whose entries are not an array", () => {
    const r = planToV2Updates({ entries: "x" } as unknown as v1.Plan, new Map(), defaultOptions);
    expect(r.ok).toBe(false);
  });
});

describe("T §2.6 / §9-14 plan chains (properties)", () => {
  const planUpdate = arb("v2", "PlanUpdate") as fc.Arbitrary<v2.PlanUpdate>;
  const planIds = fc.constantFrom("main", "a", "b", "_x");
  const sequence = fc.array(
    fc.tuple(planUpdate, planIds).map(([u, id]) => ({ ...u, plan: { ...u.plan, planId: id } })),
    { minLength: 1, maxLength: 6 },
  );

  it("v2 agent → A → v1 → B → v2 client reproduces every update exactly, with the stash on", () => {
    fc.assert(
      fc.property(sequence, fc.constantFrom<"compact" | "full">("compact", "full"), (updates, level) => {
        let mapA: PlansMap = new Map();
        let lastB: PlansMap = new Map();
        for (const u of updates) {
          let plan: v1.Plan;
          [mapA, plan] = stepA(mapA, u, options(level));
          let out: v2.PlanUpdate[];
          [lastB, out] = stepB(lastB, plan, options(level));
          expect(norm(out)).toEqual(norm([u]));
        }
      }),
      { numRuns: numRuns() },
    );
  });

  it("with the stash off the v2 client still ends with every entry of every items plan, in order", () => {
    fc.assert(
      fc.property(sequence, (updates) => {
        let mapA: PlansMap = new Map();
        let lastB: PlansMap = new Map();
        for (const u of updates) {
          let plan: v1.Plan;
          [mapA, plan] = stepA(mapA, u, options("off"));
          [lastB] = stepB(lastB, plan, options("off"));
        }
        const contents = (m: PlansMap) =>
          [...m.values()].flatMap((p) =>
            p.type === "items" ? (p as { entries: v2.PlanEntry[] }).entries.map((e) => e.content) : [],
          );
        expect(contents(lastB)).toEqual(contents(mapA));
      }),
      { numRuns: numRuns() },
    );
  });
});

convertsLosslessly<v1.Plan, v2.PlanUpdate>({
  name: "T §2.6 Plan ⇄ PlanUpdate",
  v1: { schema: "v1", def: "Plan" },
  v2: { schema: "v2", def: "PlanUpdate" },
  toV2: planToV2,
  toV1: planUpdateToV1,
  levels: ["compact", "full"],
  interpreted: {
    v1: [["entries"], ["entries", "*"], ["entries", "*", "status"], ["entries", "*", "priority"]],
    v2: [
      ["plan"],
      ["plan", "type"],
      ["plan", "planId"],
      ["plan", "entries"],
      ["plan", "entries", "*", "status"],
      ["plan", "entries", "*", "priority"],
    ],
  },
});

convertsLosslessly<v1.PlanEntry, v2.PlanEntry>({
  name: "T §2.6 PlanEntry",
  v1: { schema: "v1", def: "PlanEntry" },
  v2: { schema: "v2", def: "PlanEntry" },
  toV2: planEntryToV2,
  toV1: planEntryToV1,
  interpreted: { v1: [["status"], ["priority"]], v2: [["status"], ["priority"]] },
});

describe("T §2.6 A↓ / §2.0 v1 clients and agents with the unstable plan capability", () => {
  it("forwards plan_update natively with entry enums downgraded", () => {
    const out = value(planUpdateToV1Native(items("p", [entry("x", "cancelled")]), defaultOptions));
    expectValid("v1u", "PlanUpdate", out);
    expect(out).toEqual({
      plan: {
        type: "items",
        planId: "p",
        entries: [
          {
            ...entry("x", "completed"),
            _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { status: "cancelled" } } },
          },
        ],
      },
    });
    // B forwards a v1 plan_update as it is: a chained v2 client gets this, with the status in the stash.
    expectValid("v2u", "PlanUpdate", out);
  });

  it("passes file and markdown plans, and sends a plan type v1 lacks as an empty plan carrying it", () => {
    const md = { plan: { type: "markdown", planId: "m", content: "# Plan" } } as v2u.PlanUpdate;
    expect(valid("v1u", "PlanUpdate", planUpdateToV1Native(md, defaultOptions))).toEqual(md);
    const odd = { plan: { type: "_canvas", planId: "c", svg: "<svg/>" } } as v2.PlanUpdate;
    const r = planUpdateToV1Native(odd, defaultOptions);
    const out = value(r);
    expectValid("v1u", "PlanUpdate", out);
    expect(out.plan).toEqual({
      type: "items",
      planId: "c",
      entries: [],
      _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { raw: odd.plan } } },
    });
    expect(r.ok && r.lost.map((l) => l.path)).toEqual([["plan"]]);
    expectValid("v2u", "PlanUpdate", out);
  });
});

// v1 `uri` fields are plain strings, v2 ones `format: uri`; the bridge passes them (T §3.1).
const URIS = ["file:///w/plan.md", "https://example.com/p", "urn:x:y"];
const v1uPlanUpdate = arb("v1u", "PlanUpdate", {
  overrides: {
    PlanFile: fc.tuple(arb("v1u", "PlanFile"), fc.constantFrom(...URIS)).map(([p, uri]) => ({ ...(p as object), uri })),
  },
});

// B forwards a valid v1 (unstable) plan_update as it is (planUpdateToV2Native only checks it), so
// the round trip a chain makes is A's leg, then the identity: lossy where v1 lacks a value, reported.
describe("T §2.6 unstable PlanUpdate (native forwarding, properties)", () => {
  it("v2 → A: a valid v1 plan_update, differing only where it reports a loss or stashes", () => {
    fc.assert(
      fc.property(arb("v2u", "PlanUpdate"), (u) => {
        const r = planUpdateToV1Native(u as v2u.PlanUpdate, defaultOptions);
        const out = valid("v1u", "PlanUpdate", r);
        expectValid("v2u", "PlanUpdate", out);
        const lost = r.ok ? r.lost.map((l) => l.path) : [];
        for (const d of diffPaths(norm(omitTag(u)), norm(out))) {
          const reported = lost.some((l) => l.every((k, i) => d[i] === k));
          expect(reported || d.includes("_meta"), JSON.stringify(d)).toBe(true);
        }
      }),
      { numRuns: numRuns() },
    );
  });

  it("v1 → B: the v1 plan_update B forwards is a valid v2 one", () => {
    fc.assert(
      fc.property(v1uPlanUpdate, (u) => {
        expectValid("v1u", "PlanUpdate", u);
        expect(valid("v2u", "PlanUpdate", planUpdateToV2Native(u as never))).toEqual(u);
      }),
      { numRuns: numRuns() },
    );
  });
});

describe("T §2.11 B↓ a v1 agent's plan_update that v2 would reject is refused (issue 19)", () => {
  const cases: [unknown, string, string][] = [
    [{ plan: false }, "plan", "not_object"],
    [{}, "plan", "not_object"],
    [{ plan: { type: "items", entries: [] } }, "plan.planId", "not_string"],
    [{ plan: { type: "items", planId: "p" } }, "plan.entries", "not_array"],
    [
      { plan: { type: "items", planId: "p", entries: [{ content: "c", status: "pending" }] } },
      "plan.entries[0].priority",
      "not_string",
    ],
    [{ plan: { type: "items", planId: "p", entries: [], _meta: 1 } }, "plan._meta", "not_object"],
    [{ plan: { planId: "p" } }, "plan.type", "not_string"],
  ];
  for (const [update, field, reason] of cases)
    it(`-32602 ${reason} at ${field} for ${JSON.stringify(update)}`, () => {
      const r = planUpdateToV2Native(update as never);
      expect(r.ok ? r.value : r.error).toMatchObject({ code: -32602, data: { field, reason } });
    });
});

function omitTag(u: unknown): unknown {
  const o: Record<string, unknown> = { ...(u as Record<string, unknown>) };
  delete o.sessionUpdate;
  return o;
}
