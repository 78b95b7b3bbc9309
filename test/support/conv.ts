// Unwrapping converter results in example tests: the value of a success, the error of a failure,
// failing the test (with the other side printed) otherwise.
import { fieldOf } from "../../src/convert/check.js";
import type { Conv, Path } from "../../src/convert/result.js";
import { DEFAULT_STASH_MAX_BYTES, type ConvertOptions } from "../../src/convert/stash.js";

/** The converter tests' default: a compact stash, the bridge's bound. */
export const defaultOptions: ConvertOptions = { stash: "compact", stashMaxBytes: DEFAULT_STASH_MAX_BYTES };

export function value<T>(r: Conv<T> | { ok: true; value: T } | { ok: false }): T {
  if (!r.ok) throw new Error(`conversion failed: ${JSON.stringify(r)}`);
  return r.value;
}

export function error<T>(r: Conv<T>) {
  if (r.ok) throw new Error(`expected an error, got ${JSON.stringify(r.value)}`);
  return r.error;
}

/**
 * An item converter seen through the public converter that runs it: the item at `valuePath` of the
 * output, with the losses and the error's `field` made relative to `prefix` (the item's place in
 * the source) again. Tests of a module's internals go through what the product calls.
 */
export function within<T>(r: Conv<unknown>, prefix: Path, valuePath: Path = prefix): Conv<T> {
  const head = fieldOf(prefix);
  if (!r.ok) {
    const field = r.error.data.field;
    if (field === undefined || !field.startsWith(head)) return r;
    const rest = field.slice(head.length).replace(/^\./, "");
    const data: Record<string, unknown> = { ...r.error.data };
    if (rest === "") delete data.field;
    else data.field = rest;
    return { ok: false, error: { ...r.error, data: data as typeof r.error.data } };
  }
  let item: unknown = r.value;
  for (const k of valuePath) item = (item as Record<string | number, unknown>)[k];
  const lost = r.lost
    .filter((l) => prefix.every((k, i) => l.path[i] === k))
    .map((l) => ({ path: l.path.slice(prefix.length), reason: l.reason }));
  return { ok: true, value: item as T, lost };
}
