// Client and agent capabilities (H §2.1, §2.2, engine flags §2.4, `_meta` rules H §7.5), driven by the
// rows of mappings/capabilities.ts. Exactness: whatever the reverse conversion would not reproduce is
// stashed (by value for the spec's named fields, else as `absent` paths and exact `values`/`markers`).

import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import {
  capabilityGroups,
  capabilityRows,
  clientSessionBaseline,
  type AgentFlagName,
  type CapabilityRow,
  type CapabilitySynth,
  type ClientFlagName,
} from "../../mappings/capabilities.js";
import { isObject, jsonEqual, type Obj, setOwn, withMembers, copyMembers } from "../base/json.js";
import { fail, ok, type Conv, type Loss } from "./result.js";
import { rpcErrors } from "../base/errors.js";
import { Stash, STASH_KEY, STASH_VERSION, unstash, type ConvertOptions, type Envelope, type Version } from "./stash.js";

type CapsKind = "client" | "agent";

// ---- raw JSON helpers (shared with initialize.ts and auth.ts) -----------------------------------------

/** Deep copy of a JSON value (outputs never share structure with inputs). */
export function cloneJson<T>(x: T): T {
  return x === undefined ? x : structuredClone(x);
}

/** Deep copy of `o` without the listed keys. */
export function copyExcept(o: Obj, keys: readonly string[]): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(o)) if (!keys.includes(k)) setOwn(out, k, cloneJson(v));
  return out;
}

/** Dotted path with `~0` = `~` and `~1` = `.` inside a key, as stashed in `absent`, `values`, `markers`. */
function encodePath(path: readonly string[]): string {
  return path.map((k) => k.replace(/~/g, "~0").replace(/\./g, "~1")).join(".");
}

function decodePath(s: string): string[] {
  return s.split(".").map((k) => k.replace(/~1/g, ".").replace(/~0/g, "~"));
}

function getAt(o: unknown, path: readonly string[]): unknown {
  let cur = o;
  for (const k of path) {
    if (!isObject(cur) || !Object.hasOwn(cur, k)) return undefined;
    cur = cur[k];
  }
  return cur;
}

/** Sets `path` in `o`, creating missing parent objects; gives up where a parent is not an object. */
function setAt(o: Obj, path: readonly string[], value: unknown): void {
  let cur = o;
  for (const k of path.slice(0, -1)) {
    const next = Object.hasOwn(cur, k) ? cur[k] : undefined;
    if (isObject(next)) {
      cur = next;
      continue;
    }
    if (next !== undefined) return;
    const fresh: Obj = {};
    setOwn(cur, k, fresh);
    cur = fresh;
  }
  const last = path.at(-1);
  if (last !== undefined) setOwn(cur, last, value);
}

function deleteAt(o: Obj, path: readonly string[]): void {
  const parent = path.length === 1 ? o : getAt(o, path.slice(0, -1));
  const last = path.at(-1);
  if (isObject(parent) && last !== undefined) Reflect.deleteProperty(parent, last);
}

/**
 * The `_meta` to write: `stash.into(meta)`, plus `extras` (bridge marker, tunnel advert) merged into the
 * envelope. With nothing stashed the extras still get a minimal envelope, so the reverse conversion
 * consumes them and restores `_meta` exactly.
 */
export function metaWith(stash: Stash, meta: unknown, extras?: Obj): unknown {
  const written = stash.into(meta);
  if (extras === undefined || Object.keys(extras).length === 0) return written;
  if (written !== meta && isObject(written) && isObject(written[STASH_KEY])) {
    return withMembers(written, { [STASH_KEY]: { ...written[STASH_KEY], ...extras } });
  }
  const env: Obj = { v: STASH_VERSION, from: stash.from, hadMeta: isObject(meta) };
  if (meta === null) env.metaWasNull = true;
  return withMembers(isObject(meta) ? meta : {}, { [STASH_KEY]: { ...env, ...extras } });
}

// ---- the table engine ----------------------------------------------------------------------------

interface Step {
  readonly row: CapabilityRow;
  readonly src: readonly string[] | null;
  readonly dst: readonly string[] | null;
  /** Keys of a source container that rows of their own map (never copied verbatim). */
  readonly childKeys: readonly string[];
  /** Those of them that have no place in the target version (dropped or one-sided). */
  readonly movedKeys: readonly string[];
}

interface Plan {
  readonly steps: readonly Step[];
  /** Top-level keys of the source version that some row knows. */
  readonly known: ReadonlySet<string>;
  readonly unknownRow: CapabilityRow | undefined;
  /** Source paths of containers (objects whose keys rows map one by one). */
  readonly containers: ReadonlySet<string>;
}

const split = (p: string | null): string[] | null => (p === null ? null : p.split("."));

const plans = new Map<string, Plan>();

/** Rows as seen when converting `kind` capabilities to version `to`, parents before children. */
function planFor(kind: CapsKind, to: Version): Plan {
  const key = `${kind}/${String(to)}`;
  const cached = plans.get(key);
  if (cached) return cached;
  const rows = capabilityRows(kind);
  const unknownRow = rows.find((r) => r.v1 === "*");
  const mapped = rows.filter((r) => r !== unknownRow);
  const srcOf = (r: CapabilityRow) => split(to === 2 ? r.v1 : r.v2);
  // Unstable rows are carried too: a stable peer's open schema accepts (and ignores) them.
  const dstOf = (r: CapabilityRow) => split(to === 2 ? r.v2 : r.v1);
  const allSrc = mapped.map(srcOf).filter((p) => p !== null);
  const children = (src: readonly string[]) =>
    mapped.filter((r) => {
      const p = srcOf(r);
      return p !== null && p.length === src.length + 1 && src.every((k, i) => p[i] === k);
    });
  const steps = mapped
    .map((row): Step => {
      const src = srcOf(row);
      const kids = src === null ? [] : children(src);
      const key = (r: CapabilityRow) => srcOf(r)?.at(-1) ?? "";
      return {
        row,
        src,
        dst: dstOf(row),
        childKeys: kids.map(key),
        movedKeys: kids.filter((r) => dstOf(r) === null).map(key),
      };
    })
    .sort((a, b) => (a.dst?.length ?? 0) - (b.dst?.length ?? 0));
  const containers = new Set(
    steps.filter((st) => st.src !== null && st.childKeys.length > 0).map((st) => encodePath(st.src ?? [])),
  );
  const plan: Plan = { steps, known: new Set(allSrc.map((p) => p[0] ?? "")), unknownRow, containers };
  plans.set(key, plan);
  return plan;
}

/** What the synthesizers need to know. */
interface SynthEnv {
  /** Offer the `_meta` terminal convention to a v1 agent (T §2.5). */
  readonly terminalOutput: boolean;
  /** v1 `auth.logout` is offered (the v1-visible authMethods are non-empty). */
  readonly logout: boolean;
}

function synthesize(s: CapabilitySynth, env: SynthEnv, src: Obj): unknown {
  switch (s) {
    case "fsOffer":
      // Nobody answers a v1 agent's fs/* or terminal/* calls (H §6): never offered.
      return { readTextFile: false, writeTextFile: false };
    case "terminalOffer":
      return false;
    case "terminalOutputOffer":
      return env.terminalOutput ? true : undefined;
    case "sessionBaseline":
      return cloneJson(clientSessionBaseline);
    case "hasSession":
      return isObject(src.session);
    case "emptyIfSession":
      return isObject(src.session) ? {} : undefined;
    case "false":
      return false;
    case "emptyIfAuthMethods":
      return env.logout ? {} : undefined;
    case "empty":
      return {};
  }
}

/**
 * The plain mapping of a capability object to version `to`. `group` is a stash group of version `to`
 * (e.g. `v1ClientCaps` when converting to v1): its by-value keys win over synthesis.
 */
function mapCaps(kind: CapsKind, src: Obj, to: Version, env: SynthEnv, group: Obj | undefined): Obj {
  const out: Obj = {};
  for (const { row, src: from, dst, childKeys, movedKeys } of planFor(kind, to).steps) {
    if (dst === null) continue; // dropped: the stash keeps it
    const synth = to === 1 ? row.synthV1 : row.synthV2;
    if (from === null) {
      // Exists only in the target version: the group's value if it has one, else synthesized.
      const v =
        group !== undefined && row.stashKey !== undefined
          ? getAt(group, row.stashKey.split("."))
          : synth !== undefined
            ? synthesize(synth, env, src)
            : undefined;
      if (v === undefined) deleteAt(out, dst);
      else setAt(out, dst, cloneJson(v));
      continue;
    }
    const v = getAt(src, from);
    if (row.kind === "bool↔marker") {
      if (to === 2 && v === true) setAt(out, dst, {});
      else if (to === 1 && isObject(v)) setAt(out, dst, true);
      else if (to === 1 && v === null) setAt(out, dst, false);
    } else if (childKeys.length > 0) {
      // A container: anything but an object reads as absent (the schemas' default-on-error), and one
      // whose every key moved elsewhere has nothing left to say (v1 `auth: {logout: {}}`, H §2.2).
      const keys = isObject(v) ? Object.keys(v) : [];
      const emptied = keys.length > 0 && keys.every((k) => movedKeys.includes(k));
      if (isObject(v) && !emptied) setAt(out, dst, copyExcept(v, childKeys));
      else if (synth !== undefined) setAt(out, dst, synthesize(synth, env, src));
    } else if (isObject(v) || v === null) {
      // Every copied capability is an object (a marker or `_meta`) in both versions: any other value
      // reads as absent, as the schemas' default-on-error has it, instead of crossing invalid.
      setAt(out, dst, cloneJson(v));
    }
  }
  const unknown = group?.[capabilityGroups.unknown];
  if (isObject(unknown)) for (const [k, v] of Object.entries(unknown)) setOwn(out, k, cloneJson(v));
  return out;
}

/** Applies a group's exact fixups: paths to delete, and exact values at paths. */
function applyFixups(out: Obj, group: Obj, to: Version): void {
  const absent = group[capabilityGroups.absent];
  if (Array.isArray(absent)) for (const p of absent) if (typeof p === "string") deleteAt(out, decodePath(p));
  const values = group[to === 1 ? capabilityGroups.v1Values : capabilityGroups.v2Values];
  if (isObject(values)) for (const [p, v] of Object.entries(values)) setAt(out, decodePath(p), cloneJson(v));
}

interface Diff {
  readonly absent: string[][];
  readonly values: [string[], unknown][];
}

/**
 * Where `candidate` differs from `source`: keys `source` lacks, and source values to put back. Descends
 * only into containers (a marker, `_meta` or unknown value is stashed whole, as in `markers`, H §2).
 */
function diff(
  source: Obj,
  candidate: Obj,
  containers: ReadonlySet<string>,
  at: string[] = [],
  into: Diff = { absent: [], values: [] },
): Diff {
  for (const k of new Set([...Object.keys(source), ...Object.keys(candidate)])) {
    const path = [...at, k];
    if (!Object.hasOwn(source, k)) into.absent.push(path);
    else if (!Object.hasOwn(candidate, k)) into.values.push([path, source[k]]);
    else {
      const s = source[k];
      const c = candidate[k];
      if (isObject(s) && isObject(c) && containers.has(encodePath(path))) diff(s, c, containers, path, into);
      else if (!jsonEqual(s, c)) into.values.push([path, s]);
    }
  }
  return into;
}

/** The source version's by-value group: its one-sided fields with a stash key, and unknown keys. */
function byValue(kind: CapsKind, src: Obj, from: Version): Obj {
  const group: Obj = {};
  const plan = planFor(kind, from === 1 ? 2 : 1);
  for (const { row, src: path } of plan.steps) {
    const other = from === 1 ? row.v2 : row.v1;
    if (path === null || other !== null || row.stashKey === undefined) continue;
    const v = getAt(src, path);
    if (v !== undefined) setAt(group, row.stashKey.split("."), cloneJson(v));
  }
  const unknown = Object.keys(src).filter((k) => !plan.known.has(k));
  if (unknown.length > 0) {
    const u: Obj = {};
    for (const k of unknown) setOwn(u, k, cloneJson(src[k]));
    group[capabilityGroups.unknown] = u;
  }
  return group;
}

function lossReason(kind: CapsKind, from: Version, path: readonly string[], absent: boolean): string {
  const plan = planFor(kind, from === 1 ? 2 : 1);
  let best: CapabilityRow | undefined;
  let depth = 0;
  for (const { row, src } of plan.steps) {
    if (src === null || src.length <= depth || src.length > path.length) continue;
    if (src.every((k, i) => path[i] === k)) {
      best = row;
      depth = src.length;
    }
  }
  const row = best ?? plan.unknownRow;
  if (row === undefined) return "not representable in the other version";
  const direction = (kind === "client") === (from === 1) ? row.a : row.b;
  const what = absent ? `absent, but v${String(from === 1 ? 2 : 1)} would imply it` : "no exact counterpart";
  return `${what}: ${row.kind} (${row.spec}): ${direction}`;
}

interface CapsContext {
  readonly terminalAuth: boolean;
  readonly terminalOutput: boolean;
  /** to 1 (agent): offer v1 `auth.logout`. to 2 (agent): whether the reverse conversion would. */
  readonly logout: boolean;
  /** Write neither stash nor losses (the whole object was absent; the caller records that). */
  readonly quiet: boolean;
  /** Write the group even when the plain reverse would be exact (it differs with the stash on). */
  readonly forceGroup: boolean;
  /** Merged into the envelope on the object's own `_meta` (the bridge marker). */
  readonly extras?: Obj;
}

/**
 * Env of the reverse conversion as the stash assumes it: a bridge that serves nothing itself, and
 * offers the `_meta` terminal convention (which it translates, T §2.5) as B does.
 */
function reverseEnv(ctx: CapsContext): SynthEnv {
  return { terminalOutput: true, logout: ctx.logout };
}

/** Converts one capability object (`kind`) to version `to`, restoring and writing the stash. */
function convertCaps(
  kind: CapsKind,
  raw: Obj,
  to: Version,
  opts: ConvertOptions,
  ctx: CapsContext,
): { value: Obj; lost: Loss[] } {
  const from: Version = to === 2 ? 1 : 2;
  const groups = capabilityGroups[kind];
  // Envelopes of the target version written by the reverse conversion: consume them first.
  const src: Obj = copyMembers(raw);
  const top = unstash(raw._meta, to);
  putMeta(src, top.meta);
  const envs: (Envelope | undefined)[] = [top.env];
  if (kind === "agent" && to === 1 && isObject(raw.session)) {
    const inner = unstash(raw.session._meta, 1);
    const session: Obj = copyMembers(raw.session);
    putMeta(session, inner.meta);
    src.session = session;
    envs.unshift(inner.env);
  }
  const groupKey = to === 1 ? groups.v1 : groups.v2;
  const group = envs.map((e) => e?.residual?.[groupKey]).find(isObject);

  const env: SynthEnv = { terminalOutput: ctx.terminalOutput, logout: ctx.logout };
  const out = mapCaps(kind, src, to, env, group);
  if (group !== undefined) applyFixups(out, group, to);
  if (kind === "client") applyClientPolicy(out, to, ctx);

  const lost: Loss[] = [];
  const stash = new Stash(from, opts);
  if (!ctx.quiet) {
    const back = reverseEnv(ctx);
    const containers = planFor(kind, to).containers;
    const d0 = diff(src, mapCaps(kind, out, from, back, undefined), containers);
    for (const p of d0.absent) lost.push({ path: p, reason: lossReason(kind, from, p, true) });
    for (const [p] of d0.values) lost.push({ path: p, reason: lossReason(kind, from, p, false) });
    if ((lost.length > 0 || ctx.forceGroup) && opts.stash !== "off") {
      const own = byValue(kind, src, from);
      const d1 = diff(src, mapCaps(kind, out, from, back, own), containers);
      if (d1.absent.length > 0) own[capabilityGroups.absent] = d1.absent.map(encodePath);
      if (d1.values.length > 0) {
        const values: Obj = {};
        for (const [p, v] of d1.values) setOwn(values, encodePath(p), cloneJson(v));
        own[from === 1 ? capabilityGroups.v1Values : capabilityGroups.v2Values] = values;
      }
      stash.keep(from === 1 ? groups.v1 : groups.v2, own);
    }
  }
  // B's agent group lives on v2 `session._meta` (H §2.2); everything else on the object's own `_meta`.
  const carrier = kind === "agent" && to === 2 && isObject(out.session) ? out.session : undefined;
  if (carrier !== undefined) {
    putMeta(carrier, stash.into(carrier._meta));
    putMeta(out, metaWith(new Stash(from, opts), out._meta, ctx.extras));
  } else {
    putMeta(out, metaWith(stash, out._meta, ctx.extras));
  }
  return { value: out, lost };
}

function putMeta(o: Obj, meta: unknown): void {
  if (meta === undefined) Reflect.deleteProperty(o, "_meta");
  else o._meta = meta;
}

/** What the bridge can actually honour (H §3.4 terminal auth, H §6 fs/terminal offers). */
function applyClientPolicy(out: Obj, to: Version, ctx: CapsContext): void {
  const auth = out.auth;
  if (!ctx.terminalAuth && isObject(auth)) {
    if (to === 2) Reflect.deleteProperty(auth, "terminal");
    else if (auth.terminal === true) auth.terminal = false;
  }
  if (to === 2) return;
  const fs = out.fs;
  if (isObject(fs)) {
    // Restored from the stash, but nobody would answer the calls: never offer them.
    if (fs.readTextFile === true) fs.readTextFile = false;
    if (fs.writeTextFile === true) fs.writeTextFile = false;
  }
  if (out.terminal === true) out.terminal = false;
}

// ---- public converters -----------------------------------------------------------------------------

export interface ClientCapsContext {
  /** The bridge can relaunch the agent for terminal auth (H §3.4); default true. */
  readonly terminalAuth?: boolean;
}

/** B: what the bridge offers the v1 agent besides the client's own capabilities. */
export interface ClientCapsToV1Context extends ClientCapsContext {
  /** Offer `_meta.terminal_output`: the bridge translates the terminal convention (T §2.5); default true. */
  readonly terminalOutput?: boolean;
}

export interface AgentCapsToV1Context {
  /** The authMethods the v1 client sees are non-empty: offer `auth.logout` (H §3.3). */
  readonly authMethodsNonEmpty: boolean;
}

export interface AgentCapsToV2Context {
  /** Whether converting this result back would give the v1 client authMethods (exact loss report). */
  readonly reverseAuthMethodsNonEmpty?: boolean;
}

/** Internal entry for initialize.ts: absent capabilities are converted `quiet`ly from `{}`. */
export interface CapsOptions {
  readonly quiet?: boolean;
  readonly forceGroup?: boolean;
  readonly extras?: Obj;
}

function fullContext(c: ClientCapsToV1Context & { readonly logout?: boolean }, o: CapsOptions): CapsContext {
  return {
    terminalAuth: c.terminalAuth ?? true,
    terminalOutput: c.terminalOutput ?? true,
    logout: c.logout ?? false,
    quiet: o.quiet ?? false,
    forceGroup: o.forceGroup ?? false,
    ...(o.extras !== undefined ? { extras: o.extras } : {}),
  };
}

function notObject(field: string): Conv<never> {
  return fail(rpcErrors.invalidParams({ field, reason: "not_object" }));
}

/** A: v1 `clientCapabilities` → v2 `capabilities` (H §2.1). */
export function clientCapabilitiesToV2(
  caps: unknown,
  opts: ConvertOptions,
  ctx: ClientCapsContext = {},
  internal: CapsOptions = {},
): Conv<v2.ClientCapabilities> {
  const raw = caps;
  if (!isObject(raw)) return notObject("clientCapabilities");
  const r = convertCaps("client", raw, 2, opts, fullContext(ctx, internal));
  return ok(r.value as v2.ClientCapabilities, r.lost);
}

/** B: v2 `capabilities` → v1 `clientCapabilities` (H §2.1, §6.3-6.4). */
export function clientCapabilitiesToV1(
  caps: unknown,
  opts: ConvertOptions,
  ctx: ClientCapsToV1Context = {},
  internal: CapsOptions = {},
): Conv<v1.ClientCapabilities> {
  const raw = caps;
  if (!isObject(raw)) return notObject("capabilities");
  const r = convertCaps("client", raw, 1, opts, fullContext(ctx, internal));
  return ok(r.value as v1.ClientCapabilities, r.lost);
}

/** A: v2 agent `capabilities` → v1 `agentCapabilities` (H §2.2). */
export function agentCapabilitiesToV1(
  caps: unknown,
  opts: ConvertOptions,
  ctx: AgentCapsToV1Context,
  internal: CapsOptions = {},
): Conv<v1.AgentCapabilities> {
  const raw = caps;
  if (!isObject(raw)) return notObject("capabilities");
  const r = convertCaps(
    "agent",
    raw,
    1,
    opts,
    fullContext(withMembers(ctx, { logout: ctx.authMethodsNonEmpty }), internal),
  );
  return ok(r.value as v1.AgentCapabilities, r.lost);
}

/** B: v1 `agentCapabilities` → v2 agent `capabilities` (H §2.2); `session` is always advertised. */
export function agentCapabilitiesToV2(
  caps: unknown,
  opts: ConvertOptions,
  ctx: AgentCapsToV2Context = {},
  internal: CapsOptions = {},
): Conv<v2.AgentCapabilities> {
  const raw = caps;
  if (!isObject(raw)) return notObject("agentCapabilities");
  const logout = ctx.reverseAuthMethodsNonEmpty ?? false;
  const r = convertCaps("agent", raw, 2, opts, fullContext({ logout }, internal));
  return ok(r.value as v2.AgentCapabilities, r.lost);
}

// ---- engine flags (H §2.4) ---------------------------------------------------------------------------

/** What a client's capabilities tell the engine; each flag is read from its row (mappings/capabilities.ts). */
export type ClientFlags = Readonly<Record<ClientFlagName, boolean>>;
/** What an agent's capabilities (and its `authMethods`) tell the engine, read like ClientFlags. */
export type AgentFlags = Readonly<Record<AgentFlagName, boolean>>;

/**
 * The flags the rows of `caps` read from the capabilities of a peer speaking `version` (anything
 * malformed reads as unsupported, like the SDK). A v2 agent's flag whose row has no v2 path is what
 * the row synthesizes toward v1 (`synthV1`), read as a flag.
 */
function readFlags(caps: CapsKind, version: Version, raw: unknown, authMethods?: unknown): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  const synthesized: [string, CapabilitySynth | undefined][] = [];
  for (const row of capabilityRows(caps))
    for (const f of row.flags) {
      const path = version === 1 ? row.v1 : row.v2;
      const at = path === null ? undefined : getAt(raw, [...path.split("."), ...(f.at?.split(".") ?? [])]);
      if (version === 2) {
        if (path === null) synthesized.push([f.flag, row.synthV1]);
        else out[f.flag] = isObject(at);
      }
      // No v1 reading: the row always synthesizes the field toward v2, so every v1 peer has it.
      else out[f.flag] = f.v1 === undefined || (f.v1 === "true" ? at === true : isObject(at));
    }
  for (const [flag, s] of synthesized)
    out[flag] =
      s === "hasSession" || s === "emptyIfSession"
        ? out.hasSession === true
        : s === "emptyIfAuthMethods" && Array.isArray(authMethods) && authMethods.length > 0;
  return out;
}

/** Flags of a v1 `clientCapabilities`. */
export function clientFlagsFromV1(caps: unknown): ClientFlags {
  return readFlags("client", 1, caps) as ClientFlags;
}

/** Flags of a v1 `agentCapabilities`. */
export function agentFlagsFromV1(caps: unknown): AgentFlags {
  return readFlags("agent", 1, caps) as AgentFlags;
}

/** Flags of a v2 agent `capabilities` and `authMethods`: list/resume/close are baseline with `session`. */
export function agentFlagsFromV2(caps: unknown, authMethods?: unknown): AgentFlags {
  return readFlags("agent", 2, caps, authMethods) as AgentFlags;
}
