// Unwrapping converter results in example tests: the value of a success, the error of a failure,
// failing the test (with the other side printed) otherwise.
import type { Conv } from "../../src/convert/result.js";

export function value<T>(r: Conv<T> | { ok: true; value: T } | { ok: false }): T {
  if (!r.ok) throw new Error(`conversion failed: ${JSON.stringify(r)}`);
  return r.value;
}

export function error<T>(r: Conv<T>) {
  if (r.ok) throw new Error(`expected an error, got ${JSON.stringify(r.value)}`);
  return r.error;
}
