// Authentication (H §3): `authenticate` ⇄ `auth/login` and `logout` ⇄ `auth/logout` (same payloads),
// AuthMethod descriptors (H §3.2-3.3, H §7.6 row AuthMethod.type; EnvVariable `_meta`, H §7.5 rule 3).

import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { authMethodTable, authResidual, v1TypeOf } from "../../mappings/auth.js";
import { cloneJson, copyExcept } from "./capabilities.js";
import { has, isObject, isString, jsonEqual, type Obj, setOwn } from "../base/json.js";
import { attempt, ConvertFailure, ok, under, type Conv, type Converted, type Loss } from "./result.js";
import { rpcErrors, type ConvertError } from "../base/errors.js";
import { hasResidual, residualOf, setMeta, Stash, unstash, type ConvertOptions, type Envelope } from "./stash.js";
import { bad } from "./check.js";

const { envType } = authMethodTable;
const ENV = authMethodTable.env;

const kindOf = (x: unknown): string => (x === undefined ? "missing" : x === null ? "null" : "not_string");

function requireString(m: Obj, key: string): void {
  if (!isString(m[key])) bad(key, kindOf(m[key]));
}

/** Both versions type an auth method's `description` as a string or null. */
function optionalString(m: Obj, key: string): void {
  if (m[key] !== undefined && m[key] !== null && !isString(m[key])) bad(key, "not_string");
}

/** Renamed keys: source name → target name, for the conversion to version `to`. */
function renames(to: 1 | 2): [string, string][] {
  return authMethodTable.renames.map((r) => (to === 2 ? [r.v1, r.v2] : [r.v2, r.v1]));
}

/**
 * Shared part of both directions: copy, rename (a source extra key that has the target's name is
 * kept aside in the stash instead of being overwritten), and restore what the reverse kept aside.
 */
function renamed(m: Obj, to: 1 | 2, env: Envelope | undefined, stash: Stash, lost: Loss[]): Obj {
  const pairs = renames(to);
  const out = copyExcept(m, [...pairs.map(([from]) => from), "type", "_meta"]);
  const shadowed: Obj = {};
  for (const [from, target] of pairs) {
    if (has(m, target)) {
      setOwn(shadowed, target, cloneJson(m[target]));
      lost.push({ path: [target], reason: `"${target}" is a field name of the other version` });
    }
    out[target] = m[from];
  }
  if (Object.keys(shadowed).length > 0) stash.keep(authResidual.shadowed, shadowed);
  const back = residualOf(env, authResidual.shadowed);
  if (isObject(back)) for (const [k, v] of Object.entries(back)) if (!has(out, k)) setOwn(out, k, cloneJson(v));
  return out;
}

function envList(map: Obj): Obj[] {
  return Object.entries(map).map(([name, value]) => ({ [ENV.name]: name, [ENV.value]: value }));
}

function envMap(list: readonly Obj[]): Obj {
  return Object.fromEntries(list.map((e) => [e[ENV.name], e[ENV.value]])) as Obj;
}

function methodToV2(m: unknown, opts: ConvertOptions): Converted<Obj> {
  if (!isObject(m)) bad("authMethod", "not_object");
  requireString(m, "id");
  requireString(m, "name");
  optionalString(m, "description");
  const { meta, env } = unstash(m._meta, 2);
  const stash = new Stash(1, opts);
  const lost: Loss[] = [];
  const out = renamed(m, 2, env, stash, lost);
  const type = m.type;
  if (type === envType) {
    out.type = envType;
    if (has(m, ENV.field)) {
      const map = m[ENV.field];
      if (!isObject(map) || !Object.values(map).every(isString)) bad(ENV.field, "not_string_map");
      // The reverse kept the exact v2 list when the map could not reproduce it: use it while it still fits.
      const kept = residualOf(env, authResidual.env);
      const fits = Array.isArray(kept) && kept.every(isEnvVariable) && jsonEqual(envMap(kept), map);
      out[ENV.field] = fits ? cloneJson(kept) : envList(map);
    } else if (residualOf(env, authResidual.env) === null) {
      out[ENV.field] = null;
    }
    if (!has(m, "args") && hasResidual(env, authResidual.args)) out.args = residualOf(env, authResidual.args);
  } else if (type === undefined) {
    out.type = "agent";
  } else {
    // An explicit `agent`, an unknown or a non-string tag: v1 reads all of them as agent auth. An
    // unknown string stays (v2's union is open); the stash marks the entry as v1-visible.
    out.type = isString(type) && type !== "agent" ? type : "agent";
    stash.keep(authResidual.type, cloneJson(type));
    const known = isString(type) && v1TypeOf(type) !== undefined;
    lost.push({
      path: known || !isString(type) ? ["type"] : [],
      reason: "v1 auth method type without a v2 counterpart; a v1 client treats it as agent auth (H §3.2)",
    });
  }
  return ok(setMeta(out, stash.into(meta)), lost);
}

function isEnvVariable(e: unknown): e is Obj {
  return isObject(e) && isString(e[ENV.name]) && isString(e[ENV.value]);
}

function methodToV1(m: unknown, opts: ConvertOptions): Converted<Obj> {
  if (!isObject(m)) bad("authMethod", "not_object");
  requireString(m, "type");
  requireString(m, "methodId");
  requireString(m, "name");
  optionalString(m, "description");
  const type = m.type as string;
  const { meta, env } = unstash(m._meta, 1);
  const restoredType = hasResidual(env, authResidual.type);
  const v1Type = v1TypeOf(type);
  if (v1Type === undefined && !restoredType) {
    throw new ConvertFailure(unknownAuthMethodType(type));
  }
  const stash = new Stash(2, opts);
  const lost: Loss[] = [];
  const out = renamed(m, 1, env, stash, lost);
  if (restoredType) out.type = cloneJson(residualOf(env, authResidual.type));
  else if (v1Type !== null && v1Type !== undefined) out.type = v1Type;
  if (type === envType && !restoredType) {
    if (has(m, ENV.field)) {
      const list = m[ENV.field];
      if (list === null) {
        Reflect.deleteProperty(out, ENV.field);
        stash.keep(authResidual.env, null);
        lost.push({ path: [ENV.field], reason: "v1 has no null env" });
      } else {
        if (!Array.isArray(list)) bad(ENV.field, "not_array");
        list.forEach((e, i) => {
          if (!isEnvVariable(e)) bad(`${ENV.field}[${String(i)}]`, "not_env_variable");
        });
        const entries = list as Obj[];
        const map = envMap(entries);
        out[ENV.field] = map;
        // Duplicates (last wins), EnvVariable `_meta`, or an order a map cannot keep: stash the list.
        if (!jsonEqual(envList(map), entries)) {
          stash.keep(authResidual.env, cloneJson(entries));
          lost.push({
            path: [ENV.field],
            reason: "v1 env is a map: duplicate names, order and EnvVariable _meta are lost",
          });
        }
      }
    }
    if (m.args === null) {
      Reflect.deleteProperty(out, "args");
      stash.keep(authResidual.args, null);
      lost.push({ path: ["args"], reason: "v1 has no null args" });
    }
  }
  return ok(setMeta(out, stash.into(meta)), lost);
}

/** The error for a v2 auth method a v1 client cannot be shown (H §7.6). */
function unknownAuthMethodType(type: string): ConvertError {
  return rpcErrors.invalidParams({ field: "type", reason: "unknown_variant", type });
}

/**
 * B: one v1 AuthMethod → v2 (`id`→`methodId`, `type:"agent"` added, env map → list, H §3.2).
 * @internal Runs inside authMethodsToV2; exported for its property test.
 */
export function authMethodToV2(method: v1.AuthMethod, opts: ConvertOptions): Conv<v2.AuthMethod> {
  return attempt(() => {
    const r = methodToV2(method, opts);
    return ok(r.value as v2.AuthMethod, r.lost);
  });
}

/**
 * A: one v2 AuthMethod → v1 (`methodId`→`id`, `type:"agent"` dropped, env list → map). A type v1 does
 * not know gives -32602 `unknown_variant` (lists omit such entries, see `authMethodsToV1`).
 * @internal Runs inside authMethodsToV1; exported for its property test.
 */
export function authMethodToV1(method: v2.AuthMethod, opts: ConvertOptions): Conv<v1.AuthMethod> {
  return attempt(() => {
    const r = methodToV1(method, opts);
    return ok(r.value as v1.AuthMethod, r.lost);
  });
}

/** An entry left out of a converted list, with its index in the source list. */
interface OmittedAuthMethod {
  readonly index: number;
  readonly entry: unknown;
}

export interface AuthMethodList<T> {
  readonly methods: T[];
  /** Stash these at the result's `_meta` residual `authMethods` (H §3.2). */
  readonly omitted: OmittedAuthMethod[];
}

function convertList<T>(
  list: readonly unknown[],
  one: (x: unknown) => Conv<T>,
  why: (e: ConvertError) => string,
): Converted<AuthMethodList<T>> {
  const methods: T[] = [];
  const omitted: OmittedAuthMethod[] = [];
  const lost: Loss[] = [];
  list.forEach((entry, index) => {
    const r = one(entry);
    if (r.ok) {
      methods.push(r.value);
      lost.push(...under([index], r.lost));
    } else {
      omitted.push({ index, entry: cloneJson(entry) });
      lost.push({ path: [index], reason: why(r.error) });
    }
  });
  return ok({ methods, omitted }, lost);
}

/** A: a v2 `authMethods` list → v1, omitting unknown types (and invalid entries) with their indices. */
export function authMethodsToV1(
  list: readonly unknown[],
  opts: ConvertOptions,
): Converted<AuthMethodList<v1.AuthMethod>> {
  return convertList(
    list,
    (x) => authMethodToV1(x as v2.AuthMethod, opts),
    (e) =>
      e.data.reason === "unknown_variant"
        ? "auth method type unknown to v1: a v1 client would call it as agent auth (H §3.2, §7.6)"
        : `invalid auth method (${e.data.reason})`,
  );
}

/** B: a v1 `authMethods` list → v2, omitting invalid entries (v1 skips them too) with their indices. */
export function authMethodsToV2(
  list: readonly unknown[],
  opts: ConvertOptions,
): Converted<AuthMethodList<v2.AuthMethod>> {
  return convertList(
    list,
    (x) => authMethodToV2(x as v1.AuthMethod, opts),
    (e) => `invalid auth method (${e.data.reason})`,
  );
}

/** Puts entries a previous conversion omitted back at their indices (a malformed stash is ignored). */
export function restoreOmitted(list: readonly unknown[], omitted: unknown): unknown[] {
  const out = [...list];
  if (!Array.isArray(omitted)) return out;
  const items = omitted
    .filter(
      (o): o is { index: number; entry: unknown } =>
        isObject(o) && Number.isInteger(o.index) && (o.index as number) >= 0 && has(o, "entry"),
    )
    .sort((a, b) => a.index - b.index);
  for (const { index, entry } of items) out.splice(Math.min(index, out.length), 0, cloneJson(entry));
  return out;
}

/** Whether a v1 client would see `method` (a v2 entry): known type, or a v1 entry restored by the stash. */
export function v1Visible(method: unknown, opts: ConvertOptions): boolean {
  return authMethodToV1(method as v2.AuthMethod, opts).ok;
}
