// Session roots: `additionalDirectories` validation on the raw params of every lifecycle request in
// both directions (H §4.10, seed 000), `cwd` checks, and the seed-000 list filter (H §4.5).

import { directoryReasons as R, type DirectoryReason } from "../../mappings/session.js";
import { isObject, copyMembers } from "../base/json.js";
import { fail, ok, type Conv } from "./result.js";
import { rpcErrors, type ConvertError } from "../base/errors.js";
import { isAbsoluteOn } from "./paths.js";

export type Platform = "posix" | "windows";

export interface DirectoriesContext {
  /** The agent advertised `additionalDirectories` (v1 `sessionCapabilities`, v2 `session`). */
  readonly agentSupports: boolean;
  /** Path rules of the machine the agent runs on. */
  readonly platform: Platform;
}

const FIELD = "additionalDirectories";

function invalid(field: string, index: number | null, reason: DirectoryReason, value?: unknown): ConvertError {
  return rpcErrors.invalidParams(
    typeof value === "string" ? { field, index, reason, value } : { field, index, reason },
  );
}

/** The reason an entry is not a usable root, or `undefined` when it is one. */
function entryProblem(entry: unknown, platform: Platform): DirectoryReason | undefined {
  if (typeof entry !== "string") return R.notString;
  if (entry === "") return R.empty;
  if (!isAbsoluteOn(entry, platform)) return R.notAbsolute;
  return undefined;
}

/** Rules 1-5 on a raw list value: the error, or the list of strings. */
function checkList(value: unknown, field: string, platform: Platform): { error: ConvertError } | { list: string[] } {
  if (value === null) return { error: invalid(field, null, R.null) };
  if (!Array.isArray(value)) return { error: invalid(field, null, R.notArray, value) };
  for (const [i, entry] of (value as unknown[]).entries()) {
    const reason = entryProblem(entry, platform);
    if (reason) return { error: invalid(field, i, reason, entry) };
  }
  return { list: value as string[] };
}

/**
 * A path field the bridge interprets (`cwd`): a non-empty absolute string, else -32602 with
 * `data.{field, index: null, reason, value?}`.
 */
export function checkPathField(value: unknown, field: string, platform: Platform): ConvertError | undefined {
  const reason = entryProblem(value, platform);
  return reason ? invalid(field, null, reason, value) : undefined;
}

/**
 * Validate `additionalDirectories` on the RAW params of new/load/resume/fork (H §4.10): rules 1-6
 * give -32602 `{field, index, reason, value?}`; rule 7 (`[]` without the capability) strips the key.
 * Never injects or drops a root.
 */
export function validateAdditionalDirectories(
  rawParams: unknown,
  ctx: DirectoriesContext,
): Conv<Record<string, unknown>> {
  if (!isObject(rawParams))
    return fail(rpcErrors.invalidParams({ field: "params", index: null, reason: "not_object" }));
  if (!Object.hasOwn(rawParams, FIELD)) return ok(rawParams);
  const checked = checkList(rawParams[FIELD], FIELD, ctx.platform);
  if ("error" in checked) return fail(checked.error);
  const { list } = checked;
  if (list.length === 0 && !ctx.agentSupports) {
    const out: Record<string, unknown> = copyMembers(rawParams);
    Reflect.deleteProperty(out, FIELD);
    return ok(out, [{ path: [FIELD], reason: "empty additionalDirectories stripped: the agent lacks the capability" }]);
  }
  if (!ctx.agentSupports) return fail(invalid(FIELD, null, R.unsupported));
  return ok(rawParams);
}

/** The session/list request with the seed-000 filter taken out, and the filter itself. */
export interface ListFilterSplit<T> {
  readonly params: T;
  /** Exact ordered additional-root list to keep; `undefined` = no filter. */
  readonly directoriesFilter: readonly string[] | undefined;
}

/**
 * The seed-000 `session/list` `additionalDirectories` filter (H §4.5): validated like §4.10 (rules
 * 1-5), -32602 `unsupported` when the agent lacks the capability (even for `[]`), else stripped
 * before forwarding so the engine filters each page with `filterSessionsByDirectories`.
 */
export function takeListDirectoriesFilter(
  rawParams: unknown,
  ctx: Pick<DirectoriesContext, "agentSupports" | "platform">,
): Conv<ListFilterSplit<Record<string, unknown>>> {
  if (!isObject(rawParams))
    return fail(rpcErrors.invalidParams({ field: "params", index: null, reason: "not_object" }));
  if (!Object.hasOwn(rawParams, FIELD)) return ok({ params: rawParams, directoriesFilter: undefined });
  const checked = checkList(rawParams[FIELD], FIELD, ctx.platform);
  if ("error" in checked) return fail(checked.error);
  if (!ctx.agentSupports) return fail(invalid(FIELD, null, R.unsupported));
  const params: Record<string, unknown> = copyMembers(rawParams);
  Reflect.deleteProperty(params, FIELD);
  return ok({ params, directoriesFilter: [...checked.list] });
}

/**
 * Keep the sessions whose reported additional roots equal `filter` element-wise (string equality,
 * order significant; omitted/null ≡ `[]`, a malformed list never matches). `undefined` keeps all.
 */
export function filterSessionsByDirectories<S>(sessions: readonly S[], filter: readonly string[] | undefined): S[] {
  if (filter === undefined) return [...sessions];
  return sessions.filter((s) => {
    const dirs = isObject(s) ? (s[FIELD] ?? []) : undefined;
    return Array.isArray(dirs) && dirs.length === filter.length && dirs.every((d, i) => d === filter[i]);
  });
}
