// Direction A's plans toward the v1 client (T §2.6 A↓): a v2 `plan_update` replaces its plan's
// content, and the v1 client gets all plans as one `plan` (natively a `plan_update`, to a client of
// the unstable `plan` capability); the fast path of one whose entries v1 gets as they are.
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { limits } from "../../../../mappings/limits.js";
import { planTable } from "../../../../mappings/plan.js";
import { isObject, withMembers } from "../../../base/json.js";
import {
  applyPlanUpdate,
  isV1PlanEntry,
  planUpdateToV1Native,
  plansToV1,
  type PlansMap,
} from "../../../convert/plan.js";
import { STASH_KEY_BYTES } from "../../../convert/stash.js";
import { CLOSE_ARRAY, OPEN_ARRAY, OPEN_OBJECT, utf8 } from "../../../wire/bytes.js";
import { objectMembers, type LineRange, type ScannedMembers } from "../../../wire/member-scan.js";
import { keepNewest } from "../../bounded.js";
import { NOTHING, type Outgoing } from "../../outgoing.js";
import { dropped } from "../../translating.js";
import type { SessionA } from "../session.js";
import { clientUpdate, type UpdateContext } from "./index.js";

/** A v2 `plan_update`: what the v1 client gets for it (T §2.6 A↓). */
export function planUpdateToV1(
  s: SessionA,
  update: v2.PlanUpdate,
  ctx: UpdateContext,
  meta: unknown,
): readonly Outgoing[] {
  if (ctx.flags.plan) {
    const native = planUpdateToV1Native(update, ctx.opts);
    if (dropped(native, ctx, "plan_update", update)) return NOTHING;
    return [clientUpdate(s.sessionId, withMembers(native.value, { sessionUpdate: "plan_update" }), meta)];
  }
  const next = applyPlanUpdate(s.plans, update);
  if (dropped(next, ctx, "plan_update", update)) return NOTHING;
  // Plan ids are the agent's: the oldest plans go beyond the bound (mappings/limits.ts).
  s.plans = keepNewest(next.value, limits.plans.default);
  const plan = plansToV1(s.plans, update, ctx.opts);
  if (dropped(plan, ctx, "plan_update", update)) return NOTHING;
  return [clientUpdate(s.sessionId, { sessionUpdate: "plan", ...plan.value }, meta)];
}

const PLAN_HEAD = Buffer.from('"sessionUpdate":"plan","entries":[');
const LIST_END = Buffer.from("]");
const META_MEMBER = Buffer.from('],"_meta":');
const ENTRIES_KEY = Buffer.from('"entries"');

/** The v1 entries of each plan content, as JSON (without brackets), or null when v1 changes them. */
const v1Entries = new WeakMap<object, string | null>();

/** A plan's entries as v1 gets them, written (the list's inside), or null when v1 gets them otherwise. */
function v1EntriesOf(content: v2.PlanUpdateContent): string | null {
  let known = v1Entries.get(content);
  if (known === undefined) {
    const entries = content.type === planTable.itemsType && "entries" in content ? content.entries : undefined;
    known = Array.isArray(entries) && entries.every(isV1PlanEntry) ? JSON.stringify(entries).slice(1, -1) : null;
    v1Entries.set(content, known);
  }
  return known;
}

/**
 * The fast path of a `plan_update` the member scan proved, tag first, of `plan` and an optional
 * `_meta` without a stash, toward a client without the native plan and without a stash: an items
 * plan whose entries v1 gets as they are, while every plan kept is one (`plansToV1` then stashes
 * nothing and writes every plan's entries in the map's order, then the update's `_meta`). The
 * session records the plan as `applyPlanUpdate` does; undefined, having changed nothing, for
 * anything else.
 */
export function fastPlanUpdate(s: SessionA, m: ScannedMembers, ctx: UpdateContext): Buffer | undefined {
  if (ctx.flags.plan || ctx.opts.stash !== "off" || m.tagAt !== 0) return undefined;
  const k = m.indexOf("plan");
  const meta = m.indexOf("_meta");
  if (k < 0 || m.count !== (meta < 0 ? 2 : 3) || !m.startsWith(k, OPEN_OBJECT)) return undefined;
  if (meta >= 0 && (!m.startsWith(meta, OPEN_OBJECT) || m.holds(meta, STASH_KEY_BYTES))) return undefined;
  const content = m.value(k);
  if (!isObject(content) || typeof content.planId !== "string" || content.type !== planTable.itemsType)
    return undefined;
  // `checkContent`: a plan's `_meta` is an object if any (v1 has none per plan: it is dropped).
  if (content._meta !== undefined && content._meta !== null && !isObject(content._meta)) return undefined;
  const plan = content as v2.PlanUpdateContent;
  const entries: unknown = content.entries;
  if (!Array.isArray(entries) || !entries.every(isV1PlanEntry)) return undefined;
  // The entries as v1 gets them are their bytes in the line (canonical: proven by the scan).
  const list = entriesRange(m, k);
  if (list === undefined) return undefined;
  const own = utf8(m.line, list[0], list[1]);
  const next = new Map(s.plans);
  next.set(content.planId, plan);
  const plans: PlansMap = keepNewest(next, limits.plans.default);
  const parts: string[] = [];
  for (const p of plans.values()) {
    const text = p === plan ? own : v1EntriesOf(p);
    if (text === null) return undefined;
    if (text !== "") parts.push(text);
  }
  // The others' entries are their remembered text; a lone plan's list is copied as it lies.
  v1Entries.set(plan, own);
  s.plans = plans;
  const all = parts.length === 1 && parts[0] === own ? list : Buffer.from(parts.join(","));
  const end = meta < 0 ? [LIST_END] : [META_MEMBER, m.range(meta)];
  return m.withMembers([PLAN_HEAD, all, ...end]);
}

/** The byte range of the entries list inside member `k` (a plan object), brackets excluded. */
function entriesRange(m: ScannedMembers, k: number): LineRange | undefined {
  const members: number[] = [];
  if (objectMembers(m.line, m.starts[k] ?? -1, members) < 0) return undefined;
  for (let j = 0; j < members.length; j += 3) {
    const key = members[j] ?? 0;
    const value = members[j + 1] ?? 0;
    if (
      value - 1 - key === ENTRIES_KEY.length &&
      m.line.compare(ENTRIES_KEY, 0, ENTRIES_KEY.length, key, value - 1) === 0
    ) {
      const end = members[j + 2] ?? 0;
      return m.line[value] === OPEN_ARRAY && m.line[end - 1] === CLOSE_ARRAY ? [value + 1, end - 1] : undefined;
    }
  }
  return undefined;
}
