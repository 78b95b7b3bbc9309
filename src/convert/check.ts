// Validation helpers shared by the converters: a converter body throws `ConvertFailure` with the
// typed -32602 and `attempt` turns it into a result, so checks read as straight-line code.
import { ConvertFailure, type Conv, type Converted, type Loss, type Path } from "./result.js";
import { rpcErrors, type ConvertError } from "../base/errors.js";
import { withMembers } from "../base/json.js";

/** `a.b[2].c` for a path inside the converted value (the `field` of an error). */
export function fieldOf(path: Path): string {
  let s = "";
  for (const p of path) s += typeof p === "number" ? `[${p}]` : s === "" ? p : `.${p}`;
  return s;
}

/** Throws the typed -32602 for a field at `path` of the converted value. */
export function invalid(path: Path, reason: string, extra: Record<string, unknown> = {}): never {
  throw new ConvertFailure(rpcErrors.invalidParams(withMembers(extra, { reason, field: fieldOf(path) })));
}

/** Throws the typed -32602 for a field named by its dotted name. */
export function bad(field: string, reason: string, extra: Record<string, unknown> = {}): never {
  throw new ConvertFailure(rpcErrors.invalidParams({ field, reason, ...extra }));
}

/** Rethrows a failed sub-conversion with its `field` placed under `prefix`. */
export function unwrap<T>(r: Conv<T>, prefix: Path): Converted<T> {
  if (r.ok) return r;
  throw new ConvertFailure(prefixError(r.error, prefix));
}

function prefixError(e: ConvertError, prefix: Path): ConvertError {
  if (prefix.length === 0) return e;
  const head = fieldOf(prefix);
  const field = e.data.field;
  const joined = field === undefined || field === "" ? head : field.startsWith("[") ? head + field : `${head}.${field}`;
  return withMembers(e, { data: { ...e.data, field: joined } });
}

export function prefixLosses(prefix: Path, lost: readonly Loss[]): Loss[] {
  return lost.map((l) => ({ path: [...prefix, ...l.path], reason: l.reason }));
}
