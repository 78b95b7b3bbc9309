// Plans (T §2.6, §6 rows PlanEntryStatus/Priority/PlanUpdateContent.type, §7.2 keys plans, opaquePlans,
// status, priority, + trigger): v2 has many plans by planId, v1 one per session; A merges, B splits.

import type * as v1 from "@agentclientprotocol/sdk";
import type * as v1u from "@agentclientprotocol/sdk/unstable";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import type * as v2u from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { downgrade, planTable } from "../../mappings/plan.js";
import { has, isObject, isString, jsonEqual, omit, type Obj, withMembers, copyMembers } from "../base/json.js";
import { attempt, ok, under, type Conv, type Converted, type Loss } from "./result.js";
import { isSynthetic, Stash, STASH_KEY, setMeta, unstash, type ConvertOptions } from "./stash.js";
import { bad } from "./check.js";

/** A↓ state: every plan the agent reported, by planId, in order of first sight. */
export type PlansMap = ReadonlyMap<string, v2.PlanUpdateContent>;

/** An entry `checkEntry` takes: string `status`, `priority` and `content`, an object `_meta` if any. */
export function isPlanEntry(entry: unknown): entry is v1.PlanEntry & v2.PlanEntry {
  return (
    isObject(entry) &&
    isString(entry.status) &&
    isString(entry.priority) &&
    isString(entry.content) &&
    (entry._meta === undefined || entry._meta === null || isObject(entry._meta))
  );
}

/**
 * An entry v1 gets as it is (`entryToV1`): v1's own status and priority, a `_meta` without a stash
 * key (none to restore, none to add).
 */
export function isV1PlanEntry(entry: unknown): entry is v1.PlanEntry {
  return (
    isPlanEntry(entry) &&
    planTable.entryStatus.v1.includes(entry.status) &&
    planTable.entryPriority.v1.includes(entry.priority) &&
    !(isObject(entry._meta) && Object.hasOwn(entry._meta, STASH_KEY))
  );
}

function checkEntry(entry: unknown, field: string): Obj {
  if (!isObject(entry)) bad(field, "not_object");
  if (!isString(entry.status)) bad(`${field}.status`, "not_string");
  if (!isString(entry.priority)) bad(`${field}.priority`, "not_string");
  // Copied as they are: both versions want a string content and an object `_meta`.
  if (!isString(entry.content)) bad(`${field}.content`, "not_string");
  if (entry._meta !== undefined && entry._meta !== null && !isObject(entry._meta)) bad(`${field}._meta`, "not_object");
  return entry;
}

/** Validates what the plan converters interpret in a v2 plan content (type, planId, entries). */
function checkContent(plan: unknown, field: string): Obj & { type: string; planId: string } {
  if (!isObject(plan)) bad(field, "not_object");
  if (!isString(plan.type)) bad(`${field}.type`, "not_string");
  if (!isString(plan.planId)) bad(`${field}.planId`, "not_string");
  if (plan.type === planTable.itemsType) {
    if (!Array.isArray(plan.entries)) bad(`${field}.entries`, "not_array");
    plan.entries.forEach((e, i) => checkEntry(e, `${field}.entries[${i}]`));
    if (plan._meta !== undefined && plan._meta !== null && !isObject(plan._meta)) bad(`${field}._meta`, "not_object");
  }
  return plan as Obj & { type: string; planId: string };
}

function entryToV1(entry: unknown, opts: ConvertOptions, field: string): Converted<v1.PlanEntry> {
  const e = checkEntry(entry, field);
  const { meta } = unstash(e._meta, 1);
  const out: Obj = copyMembers(e);
  const stash = new Stash(2, opts);
  const lost: Loss[] = [];
  for (const [key, table] of [
    ["status", planTable.entryStatus],
    ["priority", planTable.entryPriority],
  ] as const) {
    const value = e[key] as string;
    const d = downgrade(table, value);
    if (d.changed) {
      out[key] = d.value;
      stash.keep(key, value);
      lost.push({ path: [key], reason: `${key} "${value}" does not exist in v1; shown as "${d.value}"` });
    }
  }
  return ok(setMeta(out, stash.into(meta)) as unknown as v1.PlanEntry, lost);
}

/** v1 entries fit v2 as they are: nothing to stash, only a stash from A to restore. */
function entryToV2(entry: unknown, field: string): Converted<v2.PlanEntry> {
  const e = checkEntry(entry, field);
  const { meta, env } = unstash(e._meta, 2);
  const out: Obj = copyMembers(e);
  for (const [key, table] of [
    ["status", planTable.entryStatus],
    ["priority", planTable.entryPriority],
  ] as const) {
    const original = env?.residual?.[key];
    // Restore only while the v1 value is still the one the original was shown as.
    if (isString(original) && downgrade(table, original).value === e[key]) out[key] = original;
  }
  return ok(setMeta(out, meta) as unknown as v2.PlanEntry);
}

/**
 * A↓ state transition: the plans map after a `plan_update` (the content replaces that planId's,
 * keeping its position; a new planId goes last). Validates the update.
 */
export function applyPlanUpdate(plans: PlansMap, update: v2.PlanUpdate): Conv<Map<string, v2.PlanUpdateContent>> {
  return attempt(() => {
    if (!isObject(update)) bad("update", "not_object");
    const content = checkContent(update.plan, "plan");
    const next = new Map(plans);
    next.set(content.planId, content as unknown as v2.PlanUpdateContent);
    return ok(next);
  });
}

/**
 * A↓: the v1 `plan` (without its `sessionUpdate` tag) to emit after `trigger` was applied to
 * `plans` (see `applyPlanUpdate`; `undefined` after a plan was removed): all `items` plans' entries
 * concatenated in map order, the layout stashed as `plans`, unknown plan types as `opaquePlans`.
 * Losses point into `trigger`.
 */
export function plansToV1(plans: PlansMap, trigger: v2.PlanUpdate | undefined, opts: ConvertOptions): Conv<v1.Plan> {
  return attempt(() => {
    if (trigger !== undefined && !isObject(trigger)) bad("update", "not_object");
    const triggerId = trigger === undefined ? undefined : checkContent(trigger.plan, "plan").planId;
    const entries: v1.PlanEntry[] = [];
    const lost: Loss[] = [];
    const records: Obj[] = [];
    const opaque: unknown[] = [];
    const list = [...plans.values()].map((p, i) => checkContent(p, `plans[${i}]`));
    // A lone plan B invented for a v1 plan (planId "main" marked synthetic) needs no layout.
    let inventedOnly = false;
    for (const content of list) {
      const isTrigger = content.planId === triggerId;
      if (content.type !== planTable.itemsType) {
        opaque.push(content);
        if (isTrigger) lost.push({ path: ["plan"], reason: `plan type "${content.type}" cannot be shown in v1` });
        continue;
      }
      const items = content.entries as unknown[];
      items.forEach((e, j) => {
        const r = entryToV1(e, opts, isTrigger ? `plan.entries[${j}]` : `plans.${content.planId}.entries[${j}]`);
        entries.push(r.value);
        if (isTrigger) lost.push(...under(["plan", "entries", j], r.lost));
      });
      const extra = omit(content, "type", "planId", "entries", "_meta");
      const record: Obj = { planId: content.planId, count: items.length };
      if (has(content, "_meta")) record.meta = content._meta;
      if (Object.keys(extra).length > 0) record.extra = extra;
      records.push(record);
      if (list.length === 1) {
        const { meta, env } = unstash(content._meta, 1);
        inventedOnly =
          isSynthetic(env, "planId") &&
          content.planId === planTable.defaultPlanId &&
          meta === undefined &&
          Object.keys(extra).length === 0;
      }
      if (isTrigger && !inventedOnly) {
        if (content.planId !== planTable.defaultPlanId)
          lost.push({ path: ["plan", "planId"], reason: "v1 has a single plan without an id" });
        if (has(content, "_meta")) lost.push({ path: ["plan", "_meta"], reason: "v1 has no per-plan _meta" });
        for (const k of Object.keys(extra)) lost.push({ path: ["plan", k], reason: "v1 has no per-plan fields" });
      }
    }
    const stash = new Stash(2, opts);
    if (!inventedOnly) {
      stash.keep("plans", records);
      if (opaque.length > 0) stash.keep("opaquePlans", opaque);
      if (triggerId !== undefined) stash.keep("trigger", triggerId);
    }
    const { meta } = unstash(trigger?._meta, 1);
    const out: Obj = withMembers(trigger ? omit(trigger, "plan", "_meta", "sessionUpdate") : {}, { entries });
    return ok(setMeta(out, stash.into(meta)) as unknown as v1.Plan, lost);
  });
}

interface PlanLayout {
  readonly plans: readonly { planId: string; count: number; meta?: unknown; hasMeta: boolean; extra: Obj }[];
  readonly opaque: readonly (Obj & { planId: string })[];
  readonly trigger: string | undefined;
}

/** The `plans` / `opaquePlans` / `trigger` stash, or `undefined` when absent or malformed. */
function readLayout(
  residual: Readonly<Record<string, unknown>> | undefined,
  entryCount: number,
): PlanLayout | undefined {
  if (!residual) return undefined;
  const { plans, opaquePlans = [], trigger } = residual;
  if (!Array.isArray(plans) || !Array.isArray(opaquePlans)) return undefined;
  if (trigger !== undefined && !isString(trigger)) return undefined;
  const ids = new Set<string>();
  const out: PlanLayout["plans"][number][] = [];
  let total = 0;
  for (const r of plans as unknown[]) {
    if (!isObject(r) || !isString(r.planId) || ids.has(r.planId)) return undefined;
    if (typeof r.count !== "number" || !Number.isSafeInteger(r.count) || r.count < 0) return undefined;
    if (r.extra !== undefined && !isObject(r.extra)) return undefined;
    ids.add(r.planId);
    total += r.count;
    out.push({ planId: r.planId, count: r.count, meta: r.meta, hasMeta: has(r, "meta"), extra: r.extra ?? {} });
  }
  for (const o of opaquePlans as unknown[]) {
    if (!isObject(o) || !isString(o.planId) || !isString(o.type) || ids.has(o.planId)) return undefined;
    if (o.type === planTable.itemsType) return undefined;
    ids.add(o.planId);
  }
  if (total !== entryCount || (trigger !== undefined && !ids.has(trigger))) return undefined;
  return { plans: out, opaque: opaquePlans as PlanLayout["opaque"], trigger };
}

/**
 * B↓: the v2 `plan_update`s (without their `sessionUpdate` tag) for a v1 `plan`, given the plan
 * contents last emitted per planId. Without a layout stash the v1 plan is planId "main"; with one,
 * one update per plan that is the trigger or changed. A planId that disappeared gets `entries: []`.
 * Record what was emitted with `recordEmitted`.
 */
export function planToV2Updates(plan: v1.Plan, lastEmitted: PlansMap, opts: ConvertOptions): Conv<v2.PlanUpdate[]> {
  return attempt(() => {
    if (!isObject(plan)) bad("update", "not_object");
    if (!Array.isArray(plan.entries)) bad("entries", "not_array");
    const lost: Loss[] = [];
    const entries = (plan.entries as unknown[]).map((e, i) => {
      const r = entryToV2(e, `entries[${i}]`);
      lost.push(...under(["entries", i], r.lost));
      return r.value;
    });
    const { meta, env } = unstash(plan._meta, 2);
    const layout = readLayout(env?.residual, entries.length);
    const contents: Obj[] = [];
    let trigger: string | undefined;
    let topMeta: unknown;
    if (layout) {
      let k = 0;
      for (const p of layout.plans) {
        const content: Obj = {
          ...p.extra,
          type: planTable.itemsType,
          planId: p.planId,
          entries: entries.slice(k, k + p.count),
        };
        if (p.hasMeta) content._meta = p.meta;
        contents.push(content);
        k += p.count;
      }
      contents.push(...layout.opaque);
      trigger = layout.trigger;
      topMeta = meta;
    } else {
      const stash = new Stash(1, opts).invented("planId");
      const content: Obj = { type: planTable.itemsType, planId: planTable.defaultPlanId, entries };
      contents.push(setMeta(content, stash.into(undefined)));
      trigger = planTable.defaultPlanId;
      // A malformed envelope is left as it was (T §0.2-5).
      topMeta = env ? plan._meta : meta;
    }
    const updates: Obj[] = [];
    const present = new Set<unknown>();
    for (const content of contents) {
      present.add(content.planId);
      if (content.planId === trigger) {
        updates.push(setMeta(withMembers(omit(plan, "entries", "_meta", "sessionUpdate"), { plan: content }), topMeta));
      } else if (!jsonEqual(lastEmitted.get(content.planId as string), content)) {
        updates.push({ plan: content });
      }
    }
    for (const [planId, last] of lastEmitted) {
      if (present.has(planId)) continue;
      const cleared = { type: planTable.itemsType, planId, entries: [] };
      if (!jsonEqual(last, cleared)) updates.push({ plan: cleared });
    }
    return ok(updates as unknown as v2.PlanUpdate[], lost);
  });
}

/** B state: `lastEmitted` after sending `updates`. */
export function recordEmitted(
  lastEmitted: PlansMap,
  updates: readonly v2.PlanUpdate[],
): Map<string, v2.PlanUpdateContent> {
  const next = new Map(lastEmitted);
  for (const u of updates) next.set(u.plan.planId, u.plan);
  return next;
}

// ---- v1 clients and agents with the unstable `plan` capability (T §2.6 A↓, §2.0 "v1 unstable") ----

/**
 * A↓ for a v1 client that advertised the unstable `clientCapabilities.plan`: `plan_update` forwarded
 * as a v1 (unstable) `plan_update`, entries downgraded. A plan type v1 lacks becomes an empty items
 * plan (it still replaces that planId's content) carrying the original as stash `raw`.
 */
export function planUpdateToV1Native(
  update: v2.PlanUpdate | v2u.PlanUpdate,
  opts: ConvertOptions,
): Conv<v1u.PlanUpdate> {
  return attempt(() => {
    if (!isObject(update)) bad("update", "not_object");
    const content = checkContent(update.plan, "plan");
    const lost: Loss[] = [];
    let plan: Obj;
    if (content.type === planTable.itemsType) {
      const entries = (content.entries as unknown[]).map((e, j) => {
        const r = entryToV1(e, opts, `plan.entries[${j}]`);
        lost.push(...under(["plan", "entries", j], r.lost));
        return r.value;
      });
      plan = withMembers(content, { entries });
    } else if (planTable.v1UnstableTypes.includes(content.type)) {
      plan = copyMembers(content);
    } else {
      plan = { type: planTable.itemsType, planId: content.planId, entries: [] };
      setMeta(plan, new Stash(2, opts).keep("raw", content).into(undefined));
      lost.push({ path: ["plan"], reason: `plan type "${content.type}" does not exist in v1; sent as an empty plan` });
    }
    const { meta } = unstash(update._meta, 1);
    return ok(setMeta(withMembers(omit(update, "sessionUpdate"), { plan }), meta) as unknown as v1u.PlanUpdate, lost);
  });
}

/**
 * B↓ a v1 agent's unstable `plan_update`, which passes through under its name (T §2.11): v2 knows
 * that variant, so its content must already be one v2 accepts.
 */
export function planUpdateToV2Native(update: v1u.PlanUpdate): Conv<v2.PlanUpdate> {
  return attempt(() => {
    if (!isObject(update)) bad("update", "not_object");
    checkContent(update.plan, "plan");
    return ok(update as unknown as v2.PlanUpdate);
  });
}
