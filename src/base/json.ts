// Raw JSON trees: converters read and build these directly, never through a parsing library
// (the SDK's zod parsers strip unknown keys and coerce values; see docs/decisions.md#parsing).

/** A raw JSON object as a converter reads it: its keys are known, its values not yet checked. */
export type Obj = Record<string, unknown>;

export function isObject(x: unknown): x is Obj {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** The `_meta` of a raw value, if it is an object (a converter's input before any check). */
export function metaOf(x: unknown): unknown {
  return isObject(x) ? x._meta : undefined;
}

export function isString(x: unknown): x is string {
  return typeof x === "string";
}

// Code units, not code points (no `u` flag): a high surrogate with no low one after it, or a low
// one with no high one before it.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * `s` with every lone surrogate replaced by U+FFFD, as a UTF-8 encoder does. `"\ud800"` is valid
 * JSON, so a peer's string may hold one; `encodeURIComponent` throws on it.
 */
export function wellFormed(s: string): string {
  return s.replace(LONE_SURROGATE, "\ufffd");
}

/**
 * `o[key] = value` as JSON.parse makes it: an own `__proto__` key (valid JSON, so a peer may send
 * one) stays a key, where assignment would set the prototype and drop it. For keys a peer chose.
 */
export function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
  else o[key] = value;
}

/**
 * `{ ...o, ...extra }`, built member by member (own enumerable keys, `__proto__` kept as a key).
 * V8 (node 20) gives an object made by a leading spread a hidden class of its own, so each member
 * added to it after the spread costs about a microsecond and leaves a class no other object shares
 * (docs/performance.md, "Spreads that add members"); this costs a tenth of that.
 */
export function withMembers<A extends object, B extends object>(o: A | undefined, extra: B): Omit<A, keyof B> & B {
  const b = extra as Record<string, unknown>;
  const keys = Object.keys(b);
  if (o !== undefined && o !== null && keys.every((k) => Object.hasOwn(o, k))) {
    // Every member is already `o`'s (a tag set again): the spread's copy keeps its class, and
    // costs less than half of a copy member by member.
    const out = { ...o } as Record<string, unknown>;
    for (const k of keys) setOwn(out, k, b[k]);
    return out as Omit<A, keyof B> & B;
  }
  const out = copyMembers(o) as Record<string, unknown>;
  for (const k of keys) setOwn(out, k, b[k]);
  return out as Omit<A, keyof B> & B;
}

/** `{ ...o }` for an object that may gain members afterwards (see `withMembers`). */
export function copyMembers<A extends object>(o: A | undefined): { -readonly [K in keyof A]: A[K] } {
  const out: Record<string, unknown> = {};
  if (o !== undefined && o !== null) {
    const a = o as Record<string, unknown>;
    for (const k of Object.keys(a)) setOwn(out, k, a[k]);
  }
  return out as { -readonly [K in keyof A]: A[K] };
}

/** `Object.hasOwn` that also narrows. */
export function has<K extends string>(o: object, key: K): o is Record<K, unknown> {
  return Object.hasOwn(o, key);
}

/** Structural deep equality of JSON values (key order ignored, `undefined` keys ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  if (ak.length !== bk.length) return false;
  return ak.every((k) => Object.hasOwn(bo, k) && jsonEqual(ao[k], bo[k]));
}

/**
 * Copy of `o` without the listed keys (shallow), its keys in the same order. Built key by key: a
 * spread then a `delete` of any but the last key leaves V8 a slow dictionary-mode object, and every
 * later spread or read of it pays for that.
 */
export function omit<T extends object, K extends string>(o: T, ...keys: K[]): Omit<T, K> {
  const src = o as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(src)) if (!(keys as string[]).includes(k)) setOwn(out, k, src[k]);
  return out as Omit<T, K>;
}

/** The value of the hex digit byte `b` (`lowerOnly`: a-f but not A-F), or -1. */
export function hexValue(b: number | undefined, lowerOnly: boolean): number {
  if (b === undefined) return -1;
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x61 && b <= 0x66) return b - 0x61 + 10;
  if (!lowerOnly && b >= 0x41 && b <= 0x46) return b - 0x41 + 10;
  return -1;
}
