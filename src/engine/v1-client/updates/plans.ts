// Direction A's plans toward the v1 client (T §2.6 A↓): a v2 `plan_update` replaces its plan's
// content, and the v1 client gets all plans as one `plan` (natively a `plan_update`, to a client of
// the unstable `plan` capability).
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { limits } from "../../../../mappings/limits.js";
import { applyPlanUpdate, planUpdateToV1Native, plansToV1 } from "../../../convert/plan.js";
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
    return [clientUpdate(s.sessionId, { ...native.value, sessionUpdate: "plan_update" }, meta)];
  }
  const next = applyPlanUpdate(s.plans, update);
  if (dropped(next, ctx, "plan_update", update)) return NOTHING;
  // Plan ids are the agent's: the oldest plans go beyond the bound (mappings/limits.ts).
  s.plans = keepNewest(next.value, limits.plans.default);
  const plan = plansToV1(s.plans, update, ctx.opts);
  if (dropped(plan, ctx, "plan_update", update)) return NOTHING;
  return [clientUpdate(s.sessionId, { sessionUpdate: "plan", ...plan.value }, meta)];
}
