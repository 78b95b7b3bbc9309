// What every converter returns: the converted value plus what it could not carry, or a typed
// error the live bridge answers as a JSON-RPC error (-32602 for invalid params).
import type { ConvertError } from "../base/errors.js";

/** A location inside a JSON value: object keys and array indices. */
export type Path = readonly (string | number)[];

/**
 * Something of the SOURCE value the target version cannot express. `path` points into the source.
 * With the stash on, lost data rides in `_meta["acp-bridge"]` and a reverse conversion restores it;
 * with the stash off it is gone, and a round trip differs from the source exactly at these paths.
 */
export interface Loss {
  readonly path: Path;
  readonly reason: string;
}

export interface Converted<T> {
  readonly ok: true;
  readonly value: T;
  readonly lost: readonly Loss[];
}

export interface Failed {
  readonly ok: false;
  readonly error: ConvertError;
}

export type Conv<T> = Converted<T> | Failed;

export function ok<T>(value: T, lost: readonly Loss[] = []): Converted<T> {
  return { ok: true, value, lost };
}

export function fail(error: ConvertError): Failed {
  return { ok: false, error };
}

/** Thrown only inside a converter to unwind to its entry point; never escapes a converter. */
export class ConvertFailure extends Error {
  constructor(readonly error: ConvertError) {
    super(error.message);
  }
}

/** Runs a converter body that may throw `ConvertFailure`; anything else is a bug and rethrown. */
export function attempt<T>(body: () => Converted<T>): Conv<T> {
  try {
    return body();
  } catch (e) {
    if (e instanceof ConvertFailure) return fail(e.error);
    throw e;
  }
}

/** Prefix every loss path with `prefix` (for converters that delegate to sub-converters). */
export function under(prefix: Path, lost: readonly Loss[]): Loss[] {
  return lost.map((l) => ({ path: [...prefix, ...l.path], reason: l.reason }));
}
