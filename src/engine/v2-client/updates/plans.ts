// Direction B's plans toward the v2 client (T §2.6 B↓): a v1 `plan` becomes `plan_update`s, and the
// fast path of one whose v2 form is the default plan of its entries (`planToV2Updates` without a
// layout stash), written from the line's bytes.
import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { planTable } from "../../../../mappings/plan.js";
import type { Obj } from "../../../base/json.js";
import { isPlanEntry, planToV2Updates, recordEmitted } from "../../../convert/plan.js";
import { STASH_KEY_BYTES } from "../../../convert/stash.js";
import { OPEN_ARRAY } from "../../../wire/bytes.js";
import type { ScannedMembers } from "../../../wire/member-scan.js";
import type { Outgoing } from "../../outgoing.js";
import { dropped } from "../../translating.js";
import type { SessionB } from "../session.js";
import { boundary, updatesOf, type UpdateContextB } from "./index.js";
import { withMembers } from "../../../base/json.js";

/** A v1 `plan`: the v2 `plan_update`s of its plans (T §2.6 B↓), after the boundary it is. */
export function planToV2(s: SessionB, update: Obj, ctx: UpdateContextB, meta: unknown): readonly Outgoing[] {
  // A non-user update: the echo window closes (T §1.4-3).
  s.prompts.closeEcho();
  const out = [...boundary(s)];
  const r = planToV2Updates(update as v1.Plan, s.plans, ctx.opts);
  if (dropped(r, ctx, "plan", update)) return out;
  s.plans = recordEmitted(s.plans, r.value);
  return [
    ...out,
    ...updatesOf(
      s,
      r.value.map((p) => withMembers(p, { sessionUpdate: "plan_update" })),
      meta,
    ),
  ];
}

/** `"plan":` and the default plan's content up to its entries, as JSON.stringify writes them. */
const PLAN_HEAD = Buffer.from(
  `"plan":${JSON.stringify({ type: planTable.itemsType, planId: planTable.defaultPlanId }).slice(0, -1)},"entries":`,
);
const PLAN_END = Buffer.from("}");
const META_MEMBER = Buffer.from(',"_meta":');
const TAG_LAST = Buffer.from(',"sessionUpdate":"plan_update"');

/**
 * A v1 `plan` of `entries` and an optional `_meta`, tag first, with no stash in either (no layout
 * of several plans to restore, no entry's original to put back), while no plan but the default one
 * was emitted (none to clear): the full path's one `plan_update` of the default plan, entries as
 * they are (`entryToV2` copies an entry without a stash), `_meta` after the plan, the tag last. The
 * session records it as the full path does; undefined, having changed nothing, for anything else.
 */
export function fastPlan(s: SessionB, m: ScannedMembers): Buffer | undefined {
  if (s.suppressHistory || m.tagAt !== 0) return undefined;
  for (const planId of s.plans.keys()) if (planId !== planTable.defaultPlanId) return undefined;
  const k = m.indexOf("entries");
  const meta = m.indexOf("_meta");
  if (k < 0 || m.count !== (meta < 0 ? 2 : 3)) return undefined;
  if (!m.startsWith(k, OPEN_ARRAY) || m.holds(k, STASH_KEY_BYTES) || !m.isObjectWithout(meta, STASH_KEY_BYTES))
    return undefined;
  const entries = m.value(k);
  if (!Array.isArray(entries) || !entries.every(isPlanEntry)) return undefined;
  // What the full path does first: a boundary (nothing pending to flush: `fastMembersToV2`), the echo window.
  boundary(s);
  s.prompts.closeEcho();
  // The table's type is a string, as `planToV2Updates` builds it: the items variant's.
  const plan = { type: planTable.itemsType, planId: planTable.defaultPlanId, entries } as v2.PlanUpdateContent;
  s.plans = recordEmitted(s.plans, [{ plan }]);
  // The default plan of the entries' bytes, `_meta` after it, the tag last.
  const metaMember = meta < 0 ? [] : [META_MEMBER, m.range(meta)];
  return m.withMembers([PLAN_HEAD, m.range(k), PLAN_END, ...metaMember, TAG_LAST]);
}
