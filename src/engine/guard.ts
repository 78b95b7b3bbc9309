// The translating modes' input guard (issue 10, "translated garbage"): a message whose fields the
// bridge would copy or interpret as they are, but that its own schema already rejects, would turn
// into a message the other side's schema rejects. It is refused before any handler runs (-32602
// with `data.field` for a request, dropped with a warning for a notification). Checks come from
// the method table (`strings`, `hot`), never a schema validation: the streaming path
// (`session/update`) gets constant-time checks only.
import type { MethodRow } from "../../mappings/methods.js";
import { fieldOf } from "../convert/check.js";
import type { ErrorData } from "../base/errors.js";
import { isObject } from "../base/json.js";

export interface InputProblem extends ErrorData {
  readonly field: string;
  readonly reason: "missing" | "not_string" | "not_object";
}

/** What makes `params` of a `row` message untranslatable, or `undefined`. */
export function inputProblem(row: MethodRow, params: unknown): InputProblem | undefined {
  const fields = row.strings ?? [];
  // Every ACP params schema is an object (`null` stands for none): an array cannot be translated.
  if (Array.isArray(params)) return { field: "params", reason: "not_object" };
  if (!isObject(params)) {
    // Absent or non-object params are the handlers' business, but a required field is missing.
    const required = fields.find((f) => !f.endsWith("?"));
    return required === undefined ? undefined : { field: required, reason: "missing" };
  }
  for (const spec of fields) {
    const optional = spec.endsWith("?");
    const name = optional ? spec.slice(0, -1) : spec;
    const value = params[name];
    if (value === undefined) {
      if (!optional) return { field: name, reason: "missing" };
    } else if (typeof value !== "string") return { field: name, reason: "not_string" };
  }
  if (row.hot) {
    if (!isMeta(params._meta)) return { field: "_meta", reason: "not_object" };
    const update = params.update;
    if (isObject(update) && !isMeta(update._meta)) return { field: "update._meta", reason: "not_object" };
    return undefined;
  }
  const path = badMeta(params);
  return path === undefined ? undefined : { field: fieldOf(path), reason: "not_object" };
}

/**
 * What makes a peer's `result` unfit to pass on where the schemas want an object (every ACP result
 * but `mcp/message`'s): not an object, or a `_meta` in it that is not one.
 */
export function resultProblem(result: unknown): InputProblem | undefined {
  if (!isObject(result)) return { field: "", reason: "not_object" };
  const path = badMeta(result);
  return path === undefined ? undefined : { field: fieldOf(path), reason: "not_object" };
}

/** `_meta` is an object or `null` in every definition of both schemas (absent: fine). */
function isMeta(x: unknown): boolean {
  return x === undefined || x === null || isObject(x);
}

/**
 * The path of the first `_meta` that is not an object, anywhere in `value` (a `_meta`'s own
 * content is opaque); built only on the way back from a find. Recursion is safe: the core refuses
 * lines nested deeper than its limit.
 */
function badMeta(value: unknown): (string | number)[] | undefined {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = badMeta(value[i]);
      if (p) return [i, ...p];
    }
    return undefined;
  }
  if (!isObject(value)) return undefined;
  for (const key of Object.keys(value)) {
    const child = value[key];
    if (key === "_meta") {
      if (!isMeta(child)) return [key];
      continue;
    }
    if (typeof child === "object" && child !== null) {
      const p = badMeta(child);
      if (p) return [key, ...p];
    }
  }
  return undefined;
}
