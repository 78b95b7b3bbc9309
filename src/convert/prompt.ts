// Prompt turns (T §1.1; §1.2-1 and §1.4-1 request checks; §1.3 and §1.5 how a turn ends): the v2
// idle `state_update` ⇄ the v1 prompt response, or the JSON-RPC error a failed v1 turn ends with.

import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { stopReasonTable, V1_STOP_REASONS, v1StopReasonOf, ERROR_STOP_REASON } from "../../mappings/prompt.js";
import { contentBlockToV2, expectObject, invalid, prefixLosses, promptBlockToV1, unwrap } from "./content.js";
import { has, isObject, isString, type Obj, setOwn, withMembers, copyMembers } from "../base/json.js";
import { attempt, type Conv, type Converted, type Loss, ok } from "./result.js";
import {
  type ConvertOptions,
  type Envelope,
  hasResidual,
  isSynthetic,
  residualOf,
  setMeta,
  Stash,
  unstash,
} from "./stash.js";

// ---- session/prompt requests ----

function convertPrompt<T>(
  req: unknown,
  opts: ConvertOptions,
  block: (b: never, o: ConvertOptions) => Conv<unknown>,
): Converted<T> {
  const src = expectObject(req, []);
  if (!Array.isArray(src.prompt)) invalid(["prompt"], "expected_array");
  // v2 requires a non-empty prompt (minItems 1): reject rather than invent content (T §1.2-1).
  if (src.prompt.length === 0) invalid(["prompt"], "empty_prompt");
  const lost: Loss[] = [];
  const prompt = src.prompt.map((b: unknown, i) => {
    const r = unwrap(block(b as never, opts), ["prompt", i]);
    lost.push(...prefixLosses(["prompt", i], r.lost));
    return r.value;
  });
  return ok(withMembers(src, { prompt }) as T, lost);
}

/** A↑ `session/prompt` params: blocks per T §3.1; an empty prompt is -32602 (T §1.2-1). */
export function promptRequestToV2(req: v1.PromptRequest, opts: ConvertOptions): Conv<v2.PromptRequest> {
  return attempt(() => convertPrompt<v2.PromptRequest>(req, opts, contentBlockToV2));
}

/** B↑ `session/prompt` params: a block type v1 cannot express is -32602, never rewritten (T §1.4-1). */
export function promptRequestToV1(req: v2.PromptRequest, opts: ConvertOptions): Conv<v1.PromptRequest> {
  return attempt(() => convertPrompt<v1.PromptRequest>(req, opts, promptBlockToV1));
}

// ---- end of turn: A, v2 idle → v1 (T §1.3) ----

/** How a v1 `session/prompt` is answered: a result, or (failed turn) a JSON-RPC error. */
export type PromptOutcomeV1 = { readonly result: v1.PromptResponse } | { readonly error: v1.Error };

export interface TurnEndContext {
  /** The client asked to cancel this prompt (`session/cancel` or `$/cancel_request`). */
  readonly cancelRequested: boolean;
}

/** Keys of a whole `state_update` the idle body may still carry; they are not part of the response. */
const UPDATE_KEYS = ["sessionUpdate", "state"];

function isErrorObject(x: unknown): x is Obj & { code: number; message: string } {
  return isObject(x) && typeof x.code === "number" && Number.isInteger(x.code) && isString(x.message);
}

/**
 * A: the answer to the v1 prompt an idle `state_update` completes (the idle body, or the whole update).
 * `error` becomes a JSON-RPC error unless a cancel was requested; what v1 cannot carry (an unknown
 * or absent stop reason, `background`, the `error` of a cancelled turn) is stashed on the response.
 */
export function idleToPromptResponse(
  idle: v2.IdleStateUpdate,
  ctx: TurnEndContext,
  opts: ConvertOptions,
): Conv<PromptOutcomeV1> {
  return attempt(() => {
    const whole = expectObject(idle, []);
    const src: Obj = {};
    for (const [k, v] of Object.entries(whole)) if (!UPDATE_KEYS.includes(k)) setOwn(src, k, v);
    const { meta, env } = unstash(src._meta, 1);
    // B ended a cancelled turn whose v1 prompt failed: give the v1 client that failure back.
    const v1Error = residualOf(env, "error");
    if (src.stopReason === stopReasonTable.cancelled && isErrorObject(v1Error)) return ok({ error: v1Error });

    const raw = src.stopReason;
    const reason = isString(raw) ? raw : undefined; // D2: a malformed value counts as absent
    if (reason === ERROR_STOP_REASON && !ctx.cancelRequested) return idleErrorToV1(src, meta, opts);

    const out: Obj = {};
    const stash = new Stash(2, opts);
    const lost: Loss[] = [];
    const withError = reason === ERROR_STOP_REASON;
    for (const [k, v] of Object.entries(src)) {
      if (k === "stopReason" || k === "_meta" || k === "background" || (withError && k === "error")) continue;
      setOwn(out, k, v);
    }
    const mapped = reason === undefined ? undefined : v1StopReasonOf(reason);
    if (isString(mapped)) out.stopReason = mapped;
    else {
      out.stopReason = ctx.cancelRequested ? stopReasonTable.cancelled : stopReasonTable.substitute;
      // T §7.2: `null` = none reported (absent); an explicit `null` is flagged to come back exactly.
      stash.keep("stopReason", raw ?? null);
      if (raw === null) stash.keep("stopReasonNull", true);
      lost.push({ path: ["stopReason"], reason: `v1 has no stop reason ${JSON.stringify(raw ?? null)}` });
      if (withError && has(src, "error")) {
        stash.keep("error", src.error);
        lost.push({ path: ["error"], reason: "a cancelled v1 turn ends with a result, not the agent's error" });
      }
    }
    if (has(src, "background")) {
      stash.keep("background", src.background);
      lost.push({ path: ["background"], reason: "v1 has no background work" });
    }
    if (hasResidual(env, "usage")) out.usage = residualOf(env, "usage");
    setMeta(out, stash.into(meta));
    return ok({ result: out as v1.PromptResponse }, lost);
  });
}

/** T §1.3 row `error`: the JSON-RPC error; the rest of the idle rides in the error's `data`. */
function idleErrorToV1(src: Obj, meta: unknown, opts: ConvertOptions): Converted<PromptOutcomeV1> {
  const stash = new Stash(2, opts);
  const lost: Loss[] = [];
  let error: Obj;
  if (isErrorObject(src.error)) error = copyMembers(src.error);
  else {
    error = copyMembers(stopReasonTable.agentError);
    if (has(src, "error")) stash.keep("error", src.error);
    else stash.invented("error");
    lost.push({ path: ["error"], reason: "v1 errors need a code and a message" });
  }
  const rest: Obj = {};
  for (const [k, v] of Object.entries(src)) if (k !== "stopReason" && k !== "error") setOwn(rest, k, v);
  if (meta === undefined) delete rest._meta;
  else rest._meta = meta;
  if (Object.keys(rest).length > 0) {
    stash.keep("idle", rest);
    for (const k of Object.keys(rest)) lost.push({ path: [k], reason: "a failed v1 turn has only the error" });
  }
  // The envelope goes into `data` (T §7.2) when that is an object or absent, else beside it.
  const slot = !has(error, "data") || error.data === null || isObject(error.data) ? "data" : "_meta";
  const carried = stash.into(error[slot]);
  if (carried === undefined) Reflect.deleteProperty(error, slot);
  else error[slot] = carried;
  return ok({ error: error as v1.Error }, lost);
}

// ---- end of turn: B, v1 → v2 idle (T §1.5, §1.4-6) ----

function restoreStopReason(out: Obj, env: Envelope): void {
  const r = residualOf(env, "stopReason");
  if (r === null) {
    if (residualOf(env, "stopReasonNull") === true) out.stopReason = null;
    else delete out.stopReason;
  } else out.stopReason = r;
  if (hasResidual(env, "error")) out.error = residualOf(env, "error");
}

/**
 * B: the idle `state_update` body for a v1 prompt result (T §1.5). The turn's `usage` goes on the
 * idle: no schema has a usage opt-in, v2 unstable defines idle `usage` and the stable schema's open
 * objects accept it (issue 7 item 3a).
 */
export function promptResponseToIdle(resp: v1.PromptResponse): Conv<v2.IdleStateUpdate> {
  return attempt(() => {
    const src = expectObject(resp, []);
    if (!isString(src.stopReason)) invalid(["stopReason"], "expected_string");
    if (!V1_STOP_REASONS.has(src.stopReason)) invalid(["stopReason"], "unknown_variant", { value: src.stopReason });
    const { meta, env } = unstash(src._meta, 2);
    const out: Obj = {};
    for (const [k, v] of Object.entries(src)) if (k !== "_meta" && k !== "usage") setOwn(out, k, v);
    if (env && hasResidual(env, "stopReason")) restoreStopReason(out, env);
    if (hasResidual(env, "background")) out.background = residualOf(env, "background");
    if (has(src, "usage")) out.usage = src.usage;
    setMeta(out, meta);
    return ok(out as v2.IdleStateUpdate);
  });
}

/**
 * B: the idle body for a v1 prompt that failed after the ack (T §1.4-6): `error` with the same
 * code, message and data, or `cancelled` (the error stashed) when a cancel was requested.
 */
export function promptErrorToIdle(err: v1.Error, ctx: TurnEndContext, opts: ConvertOptions): Conv<v2.IdleStateUpdate> {
  return attempt(() => {
    const src = expectObject(err, []);
    if (typeof src.code !== "number" || !Number.isInteger(src.code)) invalid(["code"], "expected_integer");
    if (!isString(src.message)) invalid(["message"], "expected_string");
    // An error A made from a v2 idle carries the rest of that idle (see `idleErrorToV1`).
    for (const slot of ["data", "_meta"] as const) {
      const { meta, env } = unstash(src[slot], 2);
      if (!env) continue;
      const error: Obj = copyMembers(src);
      if (meta === undefined) Reflect.deleteProperty(error, slot);
      else error[slot] = meta;
      const rest = residualOf(env, "idle");
      const out: Obj = withMembers(isObject(rest) ? rest : {}, { stopReason: ERROR_STOP_REASON });
      if (hasResidual(env, "error")) out.error = residualOf(env, "error");
      else if (!isSynthetic(env, "error")) out.error = error;
      return ok(out as v2.IdleStateUpdate);
    }
    if (!ctx.cancelRequested) return ok({ stopReason: ERROR_STOP_REASON, error: { ...src } } as v2.IdleStateUpdate);
    // A v2 agent reports `cancelled`, never `error`, after a cancel (T §1.4-6).
    const out: Obj = { stopReason: stopReasonTable.cancelled };
    setMeta(out, new Stash(1, opts).keep("error", src).into(undefined));
    return ok(out as v2.IdleStateUpdate, [{ path: [], reason: "a cancelled v2 turn ends without the error" }]);
  });
}
