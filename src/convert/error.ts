// JSON-RPC error objects crossing versions (H §7.1): passed through, except B's -32002 `data` wrapping,
// plus the errors the bridge itself answers prompts with (T §1.2-9, §1.4-7/11).

import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { isObject, isString, withMembers, copyMembers } from "../base/json.js";
import { type Conv, fail, type Loss, ok } from "./result.js";
import { type ConvertError, ErrorCodes, rpcErrors } from "../base/errors.js";
import { type ConvertOptions, Stash, STASH_KEY, STASH_VERSION, unstash } from "./stash.js";

function badError(err: unknown): ConvertError | undefined {
  if (!isObject(err)) return rpcErrors.invalidParams({ reason: "expected_object" });
  if (typeof err.code !== "number" || !Number.isInteger(err.code))
    return rpcErrors.invalidParams({ field: "code", reason: "expected_integer" });
  if (!isString(err.message)) return rpcErrors.invalidParams({ field: "message", reason: "expected_string" });
  return undefined;
}

export interface ErrorToV2Context {
  /** `sessionId` of the request this error answers, when that request is session-scoped. */
  readonly sessionId?: string | undefined;
}

/**
 * v1 → v2: unchanged, except -32002 on a session-scoped request whose `data` lacks a `sessionId`:
 * v2 gives that error `SessionNotFoundErrorData`, so `data` becomes `{sessionId}` and the original
 * rides in its `_meta` (H §7.1).
 */
export function errorToV2(err: v1.Error, ctx: ErrorToV2Context, opts: ConvertOptions): Conv<v2.Error> {
  const bad = badError(err);
  if (bad) return fail(bad);
  const src: Record<string, unknown> = copyMembers(err);
  // An error an A bridge made from a v2 idle carries that idle in `data` (prompt.ts): not for v2 clients.
  const { meta: own, env: idleEnv } = unstash(src.data, 2);
  if (idleEnv) {
    if (own === undefined) delete src.data;
    else src.data = own;
  }
  if (src.code !== ErrorCodes.resourceNotFound || ctx.sessionId === undefined) return ok(src as v2.Error);
  const has = Object.hasOwn(src, "data");
  const data = src.data;
  if (isObject(data) && isString(data.sessionId)) return ok(src as v2.Error);
  const stash = new Stash(1, opts);
  if (has) stash.keep("data", data);
  else stash.invented("data");
  const wrapped: Record<string, unknown> = { sessionId: ctx.sessionId };
  const meta = stash.into(undefined);
  if (meta !== undefined) wrapped._meta = meta;
  const lost: Loss[] = [{ path: ["data"], reason: "v2 -32002 data must name the session" }];
  return ok(withMembers(src, { data: wrapped }) as v2.Error, lost);
}

/**
 * The error every pending v1 prompt gets when the v2 agent exits (T §1.2-9): the cause in `data`, and
 * the T §7.2 stash of it for a client that reads stashes (a plain client has it in `data` already).
 */
export function agentExitedToV1(exitCode: number | null, opts: ConvertOptions): v1.Error {
  const cause = { reason: "agent_exited", exitCode };
  const stashed = opts.stash !== "off" ? { [STASH_KEY]: { v: STASH_VERSION, ...cause } } : {};
  return { code: ErrorCodes.internalError, message: "Agent connection closed", data: withMembers(cause, stashed) };
}

/** The error of a B turn or queued prompt when the v1 agent exits (T §1.4-11). */
export function agentExitedToV2(exitCode: number | null): v2.Error {
  return {
    code: ErrorCodes.internalError,
    message: "Agent process exited",
    data: { reason: "agent_exited", exitCode },
  };
}
