// Context-window usage, `usage_update` (T §2.9): v2 reads an omitted `cost` as unchanged and `null`
// as cleared; v1 reads every update as a full snapshot. The engine keeps `lastCost` / `costForwarded`.

import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { expectObject, invalid } from "./content.js";
import { has, isObject, isString, type Obj, copyMembers } from "../base/json.js";
import { attempt, type Conv, type Loss, ok } from "./result.js";
import { type ConvertOptions, hasResidual, isSynthetic, residualOf, setMeta, Stash, unstash } from "./stash.js";

/**
 * A↓ `usage_update` (body or whole update), given the last cost sent to v1 (`undefined`: none).
 * An omitted cost re-sends `lastCost`; `null` omits it and clears `lastCost`.
 */
export function usageToV1(
  u: v2.UsageUpdate,
  lastCost: v2.Cost | undefined,
  opts: ConvertOptions,
): Conv<{ update: v1.UsageUpdate; lastCost: v2.Cost | undefined }> {
  return attempt(() => {
    const src = expectObject(u, []);
    checkUsage(src);
    const { meta, env } = unstash(src._meta, 1);
    const out: Obj = copyMembers(src);
    const stash = new Stash(2, opts);
    const lost: Loss[] = [];
    let next = lastCost;
    if (isSynthetic(env, "cost")) {
      // B turned a v1 snapshot without cost into `null`: the v1 original had none.
      Reflect.deleteProperty(out, "cost");
      next = undefined;
    } else if (hasResidual(env, "cost")) {
      out.cost = residualOf(env, "cost");
      next = undefined;
    } else if (src.cost === undefined || (src.cost !== null && !isObject(src.cost))) {
      // Omitted (or malformed, read as omitted, T §0.3): unchanged, so v1 gets the last cost again.
      if (src.cost !== undefined) lost.push({ path: ["cost"], reason: "malformed cost" });
      if (next === undefined) Reflect.deleteProperty(out, "cost");
      else {
        out.cost = next;
        stash.invented("cost");
        lost.push({ path: ["cost"], reason: "v1 reads each usage update whole: the last cost is sent again" });
      }
    } else if (src.cost === null) {
      Reflect.deleteProperty(out, "cost");
      stash.keep("cost", null);
      // After a forwarded cost, B sends `null` for the cost-less v1 snapshot anyway.
      if (next === undefined) lost.push({ path: ["cost"], reason: "v1 has no cleared cost, only none" });
      next = undefined;
    } else next = src.cost as v2.Cost;
    setMeta(out, stash.into(meta));
    return ok({ update: out as v1.UsageUpdate, lastCost: next }, lost);
  });
}

/**
 * B↓ `usage_update` (body or whole update), given whether a cost was forwarded since the last
 * clear: a v1 snapshot without cost then sends `cost:null`.
 */
export function usageToV2(
  u: v1.UsageUpdate,
  costForwarded: boolean,
  opts: ConvertOptions,
): Conv<{ update: v2.UsageUpdate; costForwarded: boolean }> {
  return attempt(() => {
    const src = expectObject(u, []);
    checkUsage(src);
    if (src.cost !== undefined && src.cost !== null && !isObject(src.cost)) invalid(["cost"], "expected_object");
    const { meta, env } = unstash(src._meta, 2);
    const out: Obj = copyMembers(src);
    const stash = new Stash(1, opts);
    const lost: Loss[] = [];
    let forwarded = costForwarded;
    if (isSynthetic(env, "cost")) {
      // A re-sent the last cost for an omitted (unchanged) one.
      Reflect.deleteProperty(out, "cost");
    } else if (hasResidual(env, "cost")) {
      out.cost = residualOf(env, "cost");
      forwarded = isObject(out.cost);
    } else if (!has(src, "cost")) {
      if (forwarded) {
        out.cost = null;
        stash.invented("cost");
      }
      forwarded = false;
    } else if (src.cost === null) {
      stash.keep("cost", null);
      lost.push({ path: ["cost"], reason: "v2 reads a null cost as cleared, v1 as none" });
      forwarded = false;
    } else forwarded = true;
    setMeta(out, stash.into(meta));
    return ok({ update: out as v2.UsageUpdate, costForwarded: forwarded }, lost);
  });
}

/** Copied as they are: `used` and `size` are integers in both versions, a cost has a string currency. */
function checkUsage(src: Record<string, unknown>): void {
  for (const key of ["used", "size"]) {
    const n = src[key];
    // Safe integers only: the schemas' `uint64` / `int64` formats reject what a double cannot hold.
    if (typeof n !== "number" || !Number.isSafeInteger(n)) invalid([key], "expected_integer");
    // v2 counts are unsigned: a negative v1 count has no v2 form.
    if (n < 0) invalid([key], "negative");
  }
  const cost = src.cost;
  if (isObject(cost) && !isCost(cost)) {
    if (typeof cost.amount !== "number") invalid(["cost", "amount"], "expected_number");
    if (!isString(cost.currency)) invalid(["cost", "currency"], "expected_string");
    invalid(["cost", "_meta"], "expected_object");
  }
}

/** A cost both versions copy as it is: a number `amount`, a string `currency`, an object `_meta` if any. */
export function isCost(cost: unknown): cost is v2.Cost {
  return (
    isObject(cost) &&
    typeof cost.amount === "number" &&
    isString(cost.currency) &&
    (cost._meta === undefined || cost._meta === null || isObject(cost._meta))
  );
}
