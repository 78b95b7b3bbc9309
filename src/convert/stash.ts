// The stash: `_meta["acp-bridge"]`, where a converter keeps what the target version cannot carry
// (residual) and names what it invented (synthetic), so a reverse conversion, e.g. a second bridge
// in a chain, restores the source exactly. Spec: H §0 (envelope), T §0.2 (rules), T §7.2 (keys).

import { isObject, setOwn, withMembers, copyMembers } from "../base/json.js";

export const STASH_KEY = "acp-bridge";
/** The stash's key as a JSON key's bytes: a scanned value holding them may carry a stash (the fast paths). */
export const STASH_KEY_BYTES = Buffer.from(JSON.stringify(STASH_KEY));
export const STASH_VERSION = 1;

export type Version = 1 | 2;
/** Part of ConvertOptions; the level chosen toward each peer is what `--report` shows of the stash. */
export type StashLevel = "off" | "compact" | "full";

export interface ConvertOptions {
  /** `off` writes no stash, `compact` all but large payloads, `full` those too (T §0.2-4). */
  readonly stash: StashLevel;
  /** Largest payload stashed at `full` (bytes of its JSON text). */
  readonly stashMaxBytes: number;
}

export const DEFAULT_STASH_MAX_BYTES = 256 * 1024;

/**
 * The `--stash` setting. `auto`: a stash only toward a peer that named itself a bridge in `initialize`,
 * at `full` (exact diff texts and terminal bytes included: what it needs to restore the source exactly),
 * none toward a plain peer, which cannot use it. A level forces that level toward every peer (debugging).
 */
export type StashSetting = "auto" | StashLevel;

export interface StashPolicy {
  readonly setting: StashSetting;
  /** Largest payload stashed at `full`. */
  readonly maxBytes: number;
}

/**
 * The options of every conversion whose output goes to one peer. `bridge`: whether that peer named
 * itself a bridge in `initialize`; `undefined` while that is unknown, which is only the case for the
 * `initialize` request itself: it carries this bridge's marker to every agent anyway (H §1.5), and it
 * is the only chance to hand a chained bridge the client's original, so it gets the bridge level.
 */
export function optionsToward(policy: StashPolicy, bridge: boolean | undefined): ConvertOptions {
  const stash: StashLevel = policy.setting !== "auto" ? policy.setting : bridge === false ? "off" : "full";
  return { stash, stashMaxBytes: policy.maxBytes };
}

export interface Envelope {
  readonly v: 1;
  /** The version the data came from: a conversion TO this version restores it. */
  readonly from: Version;
  /** Whether the carrier object had `_meta` before the stash was added. */
  readonly hadMeta: boolean;
  /** The carrier's `_meta` was `null` (v2: ≡ absent, but kept exact for round trips). */
  readonly metaWasNull?: true;
  readonly residual?: Readonly<Record<string, unknown>>;
  readonly synthetic?: readonly string[];
}

function isEnvelope(x: unknown): x is Envelope {
  if (!isObject(x) || x.v !== STASH_VERSION) return false;
  if (x.from !== 1 && x.from !== 2) return false;
  if (typeof x.hadMeta !== "boolean") return false;
  if (x.residual !== undefined && !isObject(x.residual)) return false;
  if (x.synthetic !== undefined && !(Array.isArray(x.synthetic) && x.synthetic.every((s) => typeof s === "string")))
    return false;
  return true;
}

/** Collects what one target object must carry; `into` writes it onto that object's `_meta`. */
export class Stash {
  readonly residual: Record<string, unknown> = {};
  readonly synthetic: string[] = [];

  constructor(
    readonly from: Version,
    readonly opts: ConvertOptions,
  ) {}

  /** Keep source data the target cannot express. */
  keep(key: string, value: unknown): this {
    this.residual[key] = value;
    return this;
  }

  /**
   * Keep a large payload: only at `full`, and only up to `stashMaxBytes`; `make` builds it only
   * then (a payload may cost its encoding). Returns whether kept.
   */
  keepLarge(key: string, make: () => unknown): boolean {
    if (this.opts.stash !== "full") return false;
    const value = make();
    if (JSON.stringify(value).length > this.opts.stashMaxBytes) return false;
    this.residual[key] = value;
    return true;
  }

  /**
   * Keep a payload a chained bridge needs to restore the source exactly (exact diff texts): at
   * `compact` and `full`, up to `stashMaxBytes`. Returns whether kept.
   */
  keepBounded(key: string, value: unknown): boolean {
    if (this.opts.stash === "off") return false;
    if (JSON.stringify(value).length > this.opts.stashMaxBytes) return false;
    this.residual[key] = value;
    return true;
  }

  /** Name something the converter invented, so the reverse conversion deletes it. */
  invented(name: string): this {
    if (!this.synthetic.includes(name)) this.synthetic.push(name);
    return this;
  }

  get empty(): boolean {
    return this.synthetic.length === 0 && Object.keys(this.residual).length === 0;
  }

  /**
   * The `_meta` value for the target object, given the source object's own `_meta` (copied as is).
   * Returns `undefined` when the key should be omitted. Writes nothing when off or empty (H §0).
   */
  into(meta: unknown): unknown {
    if (this.opts.stash === "off" || this.empty) return meta;
    const env: Record<string, unknown> = { v: STASH_VERSION, from: this.from, hadMeta: isObject(meta) };
    if (meta === null) env.metaWasNull = true;
    if (Object.keys(this.residual).length > 0) env.residual = copyMembers(this.residual);
    if (this.synthetic.length > 0) env.synthetic = [...this.synthetic];
    const base = isObject(meta) ? meta : {};
    return withMembers(base, { [STASH_KEY]: env });
  }
}

export interface Unstashed {
  /** The `_meta` to put on the restored object (`undefined`: omit the key). */
  readonly meta: unknown;
  /** The envelope, when there was one for this target version. */
  readonly env: Envelope | undefined;
}

/**
 * Split a consumed envelope off `meta` when converting TO version `to` (H §0 reverse rule).
 * An envelope from the other version, of an unknown `v`, or malformed, is left untouched.
 */
export function unstash(meta: unknown, to: Version): Unstashed {
  if (!isObject(meta)) return { meta, env: undefined };
  const env = meta[STASH_KEY];
  if (!isEnvelope(env) || env.from !== to) return { meta, env: undefined };
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(meta)) if (k !== STASH_KEY) setOwn(rest, k, v);
  if (!env.hadMeta && Object.keys(rest).length === 0) return { meta: env.metaWasNull ? null : undefined, env };
  return { meta: rest, env };
}

export function residualOf(env: Envelope | undefined, key: string): unknown {
  return env?.residual?.[key];
}

export function hasResidual(env: Envelope | undefined, key: string): boolean {
  return env?.residual !== undefined && Object.hasOwn(env.residual, key);
}

export function isSynthetic(env: Envelope | undefined, name: string): boolean {
  return env?.synthetic?.includes(name) ?? false;
}

/** Set `obj._meta` to `meta`, omitting the key for `undefined`. */
export function setMeta<T extends object>(obj: T, meta: unknown): T {
  if (meta === undefined) Reflect.deleteProperty(obj, "_meta");
  else (obj as Record<string, unknown>)._meta = meta;
  return obj;
}
