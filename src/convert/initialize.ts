// `initialize` (H §1: client-facing version table §1.3, probe helpers §1.4, field mapping §1.5; `_meta`
// H §7.5; conformance H §9 cases 1, 2, 4). Capabilities: capabilities.ts (H §2); authMethods: auth.ts.

import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { authResidual } from "../../mappings/auth.js";
import { capabilityGroups } from "../../mappings/capabilities.js";
import { authMethodsToV1, authMethodsToV2, restoreOmitted, v1Visible } from "./auth.js";
import {
  agentCapabilitiesToV1,
  agentCapabilitiesToV2,
  clientCapabilitiesToV1,
  clientCapabilitiesToV2,
  cloneJson,
  copyExcept,
  metaWith,
  type CapsOptions,
} from "./capabilities.js";
import { has, isObject, isString, type Obj, setOwn } from "../base/json.js";
import { attempt, ConvertFailure, fail, ok, under, type Conv, type Loss } from "./result.js";
import { rpcErrors, unsupportedVersion } from "../base/errors.js";
import {
  hasResidual,
  isSynthetic,
  residualOf,
  setMeta,
  Stash,
  STASH_KEY,
  unstash,
  type ConvertOptions,
  type Envelope,
} from "./stash.js";
import { bad } from "./check.js";

/** `info` the bridge puts in when the source has none (the SDK router's convention, H §1.5). */
const SYNTHETIC_INFO: v2.Implementation = { name: "unknown", version: "unknown" };
/** Versions the bridge speaks toward a client. */
const SUPPORTED_VERSIONS = [1, 2] as const;
const INVALID_VERSION_MESSAGE = "initialize.protocolVersion must be a valid ACP protocol version";
const MAX_PROTOCOL_VERSION = 0xffff;

/** Residual keys on the params/result `_meta` (root level). */
const ROOT = {
  absent: capabilityGroups.absent,
  values: capabilityGroups.v1Values,
  shadowed: authResidual.shadowed,
} as const;
/** Residual key on a synthesized `info`: the malformed or `null` source value it replaced. */
const RAW_INFO = "raw";

// ---- H §1.3 the client-facing version --------------------------------------------------------------

export interface ClientFacing {
  /** The version the bridge speaks to this client (`Vc`) and writes into the result. */
  readonly version: 1 | 2;
  /** Parse leniently (R = 1 and R ≥ 3); R = 2 requires a valid `info` (-32602 otherwise). */
  readonly lenient: boolean;
}

/** H §1.3: the version to speak to a client from its raw `initialize` params. */
export function clientFacingVersion(params: unknown): Conv<ClientFacing> {
  const r = isObject(params) ? params.protocolVersion : undefined;
  if (typeof r !== "number" || !Number.isInteger(r) || r < 0 || r > MAX_PROTOCOL_VERSION) {
    return fail(
      rpcErrors.invalidParams(
        { field: "protocolVersion", reason: "invalid_protocol_version" },
        INVALID_VERSION_MESSAGE,
      ),
    );
  }
  if (r === 0) return fail(unsupportedVersion(0, SUPPORTED_VERSIONS));
  if (r === 1) return ok({ version: 1, lenient: true });
  return ok({ version: 2, lenient: r > 2 });
}

// ---- H §1.4 helpers for the agent-side probes --------------------------------------------------------

/** The version to retry with after an agent's -32022: the highest of its `supported` the bridge speaks. */
export function retryVersionFrom(errorData: unknown): 1 | 2 | undefined {
  const supported = isObject(errorData) ? errorData.supported : undefined;
  if (!Array.isArray(supported)) return undefined;
  if (supported.includes(2)) return 2;
  return supported.includes(1) ? 1 : undefined;
}

/** The agent's answered version when the bridge speaks it, else `undefined` (client gets -32603). */
export function answeredVersion(result: unknown): 1 | 2 | undefined {
  const v = isObject(result) ? result.protocolVersion : undefined;
  return v === 1 || v === 2 ? v : undefined;
}

// ---- bridge identification (T §5.5) ----------------------------------------------------------------

export interface BridgeMarker {
  readonly bridge: { readonly name: string; readonly version: string };
  readonly clientProtocol: 1 | 2;
  readonly agentProtocol: 1 | 2;
}

/** The marker another bridge put in a v1 `initialize` request or result `_meta`, read before converting. */
export function bridgeMarkerOf(meta: unknown): BridgeMarker | undefined {
  const m = isObject(meta) ? meta[STASH_KEY] : undefined;
  if (!isObject(m) || !isObject(m.bridge) || !isString(m.bridge.name) || !isString(m.bridge.version)) return undefined;
  const cp = m.clientProtocol;
  const ap = m.agentProtocol;
  if ((cp !== 1 && cp !== 2) || (ap !== 1 && ap !== 2)) return undefined;
  return { bridge: { name: m.bridge.name, version: m.bridge.version }, clientProtocol: cp, agentProtocol: ap };
}

function markerFields(m: BridgeMarker | undefined): Obj | undefined {
  return m === undefined
    ? undefined
    : {
        bridge: { name: m.bridge.name, version: m.bridge.version },
        clientProtocol: m.clientProtocol,
        agentProtocol: m.agentProtocol,
      };
}

// ---- shared pieces ---------------------------------------------------------------------------------

/** An `Implementation` of both versions: copied as it is, so a `title` must be a string too. */
function isImplementation(x: unknown): x is Obj & { name: string; version: string } {
  return (
    isObject(x) &&
    isString(x.name) &&
    isString(x.version) &&
    (x.title === undefined || x.title === null || isString(x.title))
  );
}

interface Missing {
  readonly key: string;
  readonly raw: unknown;
  readonly reason: string;
  /** Whether the reverse conversion would create `key` from the final output. */
  readonly recreated: (out: Obj) => boolean;
}

const always = (): boolean => true;

/** Root-level bookkeeping: what the reverse conversion must delete or put back at the root. */
class Root {
  private readonly missingKeys: Missing[] = [];
  private readonly shadowed: Obj = {};
  private readonly losses: Loss[] = [];

  constructor(readonly stash: Stash) {}

  lose(...lost: Loss[]): void {
    this.losses.push(...lost);
  }

  /** The source had no usable `key` (absent or malformed, read as absent). */
  missing(key: string, raw: unknown, reason: string, recreated: (out: Obj) => boolean = always): void {
    this.missingKeys.push({ key, raw, reason, recreated });
  }

  /** Keys of the target version's names present in the source as unknown keys: kept aside. */
  shadow(src: Obj, keys: readonly string[]): void {
    for (const k of keys) {
      if (!has(src, k)) continue;
      setOwn(this.shadowed, k, cloneJson(src[k]));
      this.losses.push({ path: [k], reason: `"${k}" is a field name of the other version` });
    }
  }

  /** Judged on the final output (after restoring): writes the root stash into `meta`, returns the losses. */
  finish(out: Obj, meta: unknown, extras?: Obj): Loss[] {
    const absent: string[] = [];
    const values: Obj = {};
    const lost = [...this.losses];
    for (const m of this.missingKeys) {
      if (!m.recreated(out)) continue;
      if (m.raw === undefined) absent.push(m.key);
      else setOwn(values, m.key, cloneJson(m.raw));
      lost.push({ path: [m.key], reason: m.reason });
    }
    if (absent.length > 0) this.stash.keep(ROOT.absent, absent);
    if (Object.keys(values).length > 0) this.stash.keep(ROOT.values, values);
    if (Object.keys(this.shadowed).length > 0) this.stash.keep(ROOT.shadowed, this.shadowed);
    setMeta(out, metaWith(this.stash, meta, extras));
    return lost;
  }
}

/** Applies what the reverse conversion recorded at the root, for the keys `pick` accepts. */
function restoreRoot(out: Obj, env: Envelope | undefined, pick: (key: string) => boolean = () => true): void {
  const absent = residualOf(env, ROOT.absent);
  if (Array.isArray(absent)) for (const k of absent) if (isString(k) && pick(k)) Reflect.deleteProperty(out, k);
  for (const key of [ROOT.values, ROOT.shadowed]) {
    const values = residualOf(env, key);
    if (isObject(values)) for (const [k, v] of Object.entries(values)) if (pick(k)) setOwn(out, k, cloneJson(v));
  }
}

/** v1 `clientInfo`/`agentInfo` → v2 `info` (required): copied, or synthesized and marked (H §1.5). */
function infoToV2(raw: unknown, field: string, opts: ConvertOptions, synthetic: v2.Implementation, root: Root): Obj {
  if (isImplementation(raw)) return cloneJson(raw);
  const stash = new Stash(1, opts).invented("info");
  if (raw !== undefined) stash.keep(RAW_INFO, cloneJson(raw));
  root.lose({ path: [field], reason: "v2 requires info: synthesized (H §1.5)" });
  const info: Obj = cloneJson({ ...synthetic });
  return setMeta(info, stash.into(undefined));
}

/** v2 `info` → v1: copied; a synthesized one is dropped (or its original put back). `undefined` = omit. */
function infoToV1(info: Obj): unknown {
  const { meta, env } = unstash(info._meta, 1);
  if (isSynthetic(env, "info")) return hasResidual(env, RAW_INFO) ? cloneJson(residualOf(env, RAW_INFO)) : undefined;
  return setMeta(cloneJson(info), meta);
}

/** Puts the known keys first, in the order of `keys`, then the rest (key order only reads better). */
function ordered(out: Obj, keys: readonly string[]): Obj {
  const result: Obj = {};
  for (const k of keys) if (has(out, k)) setOwn(result, k, out[k]);
  for (const [k, v] of Object.entries(out)) if (!keys.includes(k)) setOwn(result, k, v);
  return result;
}

// ---- initialize request ---------------------------------------------------------------------------

export interface InitializeRequestToV2Context {
  /** Written into the output (negotiation is the engine's); default 2. */
  readonly protocolVersion?: number;
  /** The bridge can relaunch the agent for terminal auth (H §3.4); default true. */
  readonly terminalAuth?: boolean;
  /** `info` for a v1 client without `clientInfo`; default `SYNTHETIC_INFO`. */
  readonly syntheticInfo?: v2.Implementation;
  /** Identify this bridge to the v2 agent (H §1.5: optional `_meta` marker). */
  readonly bridgeMarker?: BridgeMarker;
}

/** A: the v1 client's `initialize` params → v2 (H §1.5, §2.1). */
export function initializeRequestToV2(
  params: unknown,
  opts: ConvertOptions,
  ctx: InitializeRequestToV2Context = {},
): Conv<v2.InitializeRequest> {
  return attempt(() => {
    const src = params;
    if (!isObject(src)) bad("params", "not_object");
    const { meta, env } = unstash(src._meta, 2);
    const root = new Root(new Stash(1, opts));
    root.shadow(src, ["info", "capabilities"]);
    const out = copyExcept(src, [
      "protocolVersion",
      "clientInfo",
      "clientCapabilities",
      "_meta",
      "info",
      "capabilities",
    ]);
    out.protocolVersion = ctx.protocolVersion ?? 2;
    out.info = infoToV2(src.clientInfo, "clientInfo", opts, ctx.syntheticInfo ?? SYNTHETIC_INFO, root);

    const caps = src.clientCapabilities;
    const capsCtx = ctx.terminalAuth !== undefined ? { terminalAuth: ctx.terminalAuth } : {};
    if (isObject(caps)) {
      const r = clientCapabilitiesToV2(caps, opts, capsCtx);
      if (!r.ok) throw new ConvertFailure(r.error);
      out.capabilities = r.value;
      root.lose(...under(["clientCapabilities"], r.lost));
    } else {
      // v2's default `{}` says the same; the reverse would still invent v1 defaults.
      root.missing("clientCapabilities", caps, "absent or malformed clientCapabilities");
    }
    restoreRoot(out, env);
    const lost = root.finish(out, meta, markerFields(ctx.bridgeMarker));
    return ok(ordered(out, ["protocolVersion", "info", "capabilities"]) as v2.InitializeRequest, lost);
  });
}

export interface InitializeRequestToV1Context {
  /** Written into the output; default 1. */
  readonly protocolVersion?: number;
  /** A missing or malformed `info` is replaced (R ≥ 3) instead of rejected with -32602 (R = 2). */
  readonly lenient?: boolean;
  readonly terminalAuth?: boolean;
  /** Offer `_meta.terminal_output` to the v1 agent (T §2.5); default true. */
  readonly terminalOutput?: boolean;
  /** Identify this bridge to the v1 agent (T §5.5). */
  readonly bridgeMarker?: BridgeMarker;
}

/** B: the v2 client's `initialize` params → v1 (H §1.3, §1.5, §2.1, §6.4). */
export function initializeRequestToV1(
  params: unknown,
  opts: ConvertOptions,
  ctx: InitializeRequestToV1Context = {},
): Conv<v1.InitializeRequest> {
  return attempt(() => {
    const src = params;
    if (!isObject(src)) bad("params", "not_object");
    const { meta, env } = unstash(src._meta, 1);
    const root = new Root(new Stash(2, opts));
    root.shadow(src, ["clientInfo", "clientCapabilities"]);
    const out = copyExcept(src, [
      "protocolVersion",
      "info",
      "capabilities",
      "_meta",
      "clientInfo",
      "clientCapabilities",
    ]);
    out.protocolVersion = ctx.protocolVersion ?? 1;

    const info = src.info;
    if (isImplementation(info)) {
      const v = infoToV1(info);
      if (v !== undefined) out.clientInfo = v;
    } else if (ctx.lenient) {
      root.missing("info", info, "absent or malformed info (lenient, H §1.3)");
    } else if (info === undefined) {
      bad("info", "missing");
    } else if (!isObject(info)) {
      bad("info", "not_object");
    } else {
      bad(!isString(info.name) ? "info.name" : !isString(info.version) ? "info.version" : "info.title", "not_string");
    }

    const caps = src.capabilities;
    const capsCtx = { terminalAuth: ctx.terminalAuth ?? true, terminalOutput: ctx.terminalOutput ?? true };
    if (!isObject(caps)) {
      root.missing("capabilities", caps, "absent or malformed capabilities", (o) => isObject(o.clientCapabilities));
    }
    const r = clientCapabilitiesToV1(isObject(caps) ? caps : {}, opts, capsCtx, { quiet: !isObject(caps) });
    if (!r.ok) throw new ConvertFailure(r.error);
    out.clientCapabilities = r.value;
    root.lose(...under(["capabilities"], r.lost));

    restoreRoot(out, env);
    const lost = root.finish(out, meta, markerFields(ctx.bridgeMarker));
    return ok(ordered(out, ["protocolVersion", "clientInfo", "clientCapabilities"]) as v1.InitializeRequest, lost);
  });
}

// ---- initialize result ----------------------------------------------------------------------------

export interface InitializeResponseToV1Context {
  /** Written into the output; default 1. */
  readonly protocolVersion?: number;
  /** Identify this bridge to the v1 client (T §5.5). */
  readonly bridgeMarker?: BridgeMarker;
}

/** A: the v2 agent's `initialize` result → v1 (H §1.5, §2.2, §3.2-3.3). */
export function initializeResponseToV1(
  result: unknown,
  opts: ConvertOptions,
  ctx: InitializeResponseToV1Context = {},
): Conv<v1.InitializeResponse> {
  return attempt(() => {
    const src = result;
    if (!isObject(src)) bad("result", "not_object");
    const { meta, env } = unstash(src._meta, 1);
    const root = new Root(new Stash(2, opts));
    root.shadow(src, ["agentInfo", "agentCapabilities"]);
    const out = copyExcept(src, [
      "protocolVersion",
      "info",
      "capabilities",
      "authMethods",
      "_meta",
      "agentInfo",
      "agentCapabilities",
    ]);
    out.protocolVersion = ctx.protocolVersion ?? 1;

    const info = src.info;
    if (isImplementation(info)) {
      const v = infoToV1(info);
      if (v !== undefined) out.agentInfo = v;
    } else {
      root.missing("info", info, "absent or malformed info");
    }

    // v1 `authMethods` defaults to [] and is always sent (H §3.3).
    const list = src.authMethods;
    let methods: unknown[] = [];
    if (Array.isArray(list)) {
      const r = authMethodsToV1(list, opts);
      methods = r.value.methods;
      root.lose(...under(["authMethods"], r.lost));
      if (r.value.omitted.length > 0) root.stash.keep(authResidual.omitted, r.value.omitted);
    } else {
      root.missing("authMethods", list, "absent or malformed authMethods: v1 gets []", (o) =>
        Array.isArray(o.authMethods),
      );
    }
    out.authMethods = restoreOmitted(methods, residualOf(env, authResidual.omitted));
    restoreRoot(out, env, (k) => k !== "agentCapabilities");

    const caps = src.capabilities;
    if (!isObject(caps)) root.missing("capabilities", caps, "absent or malformed capabilities");
    const visible = Array.isArray(out.authMethods) && out.authMethods.length > 0;
    const r = agentCapabilitiesToV1(
      isObject(caps) ? caps : {},
      opts,
      { authMethodsNonEmpty: visible },
      { quiet: !isObject(caps) },
    );
    if (!r.ok) throw new ConvertFailure(r.error);
    out.agentCapabilities = r.value;
    root.lose(...under(["capabilities"], r.lost));

    restoreRoot(out, env, (k) => k === "agentCapabilities");
    const lost = root.finish(out, meta, markerFields(ctx.bridgeMarker));
    return ok(
      ordered(out, ["protocolVersion", "agentInfo", "agentCapabilities", "authMethods"]) as v1.InitializeResponse,
      lost,
    );
  });
}

export interface InitializeResponseToV2Context {
  /** Written into the output; default 2. */
  readonly protocolVersion?: number;
  /** `info` for a v1 agent without `agentInfo`; default `SYNTHETIC_INFO`. */
  readonly syntheticInfo?: v2.Implementation;
  /** Identify this bridge to the v2 client (as A does toward v1 clients, T §5.5). */
  readonly bridgeMarker?: BridgeMarker;
}

/** B: the v1 agent's `initialize` result → v2 (H §1.5, §2.2, §3.2-3.3). */
export function initializeResponseToV2(
  result: unknown,
  opts: ConvertOptions,
  ctx: InitializeResponseToV2Context = {},
): Conv<v2.InitializeResponse> {
  return attempt(() => {
    const src = result;
    if (!isObject(src)) bad("result", "not_object");
    const { meta, env } = unstash(src._meta, 2);
    const root = new Root(new Stash(1, opts));
    root.shadow(src, ["info", "capabilities"]);
    const out = copyExcept(src, [
      "protocolVersion",
      "agentInfo",
      "agentCapabilities",
      "authMethods",
      "_meta",
      "info",
      "capabilities",
    ]);
    out.protocolVersion = ctx.protocolVersion ?? 2;
    out.info = infoToV2(src.agentInfo, "agentInfo", opts, ctx.syntheticInfo ?? SYNTHETIC_INFO, root);

    const list = src.authMethods;
    if (Array.isArray(list)) {
      const r = authMethodsToV2(list, opts);
      out.authMethods = restoreOmitted(r.value.methods, residualOf(env, authResidual.omitted));
      root.lose(...under(["authMethods"], r.lost));
      if (r.value.omitted.length > 0) root.stash.keep(authResidual.omitted, r.value.omitted);
    } else {
      // v2 may omit it; the reverse would send v1 its default [].
      root.missing("authMethods", list, "absent or malformed authMethods");
    }
    restoreRoot(out, env, (k) => k !== "capabilities");

    // Whether a v1 client sees authMethods after the reverse conversion, without and with the stash
    // (an entry of a v1-only type is visible only through its stash): decides `auth.logout` (H §3.3).
    const v2Methods = Array.isArray(out.authMethods) ? out.authMethods : [];
    const seenPlain = v2Methods.some(
      (m) => isObject(m) && (m.type === "agent" || m.type === "terminal") && v1Visible(m, opts),
    );
    const seenOn = v2Methods.some((m) => v1Visible(m, opts));
    const caps = src.agentCapabilities;
    if (!isObject(caps)) root.missing("agentCapabilities", caps, "absent or malformed agentCapabilities");
    const internal: CapsOptions = {
      quiet: !isObject(caps),
      ...(seenOn !== seenPlain ? { forceGroup: true } : {}),
    };
    const r = agentCapabilitiesToV2(
      isObject(caps) ? caps : {},
      opts,
      { reverseAuthMethodsNonEmpty: seenPlain },
      internal,
    );
    if (!r.ok) throw new ConvertFailure(r.error);
    out.capabilities = r.value;
    root.lose(...under(["agentCapabilities"], r.lost));

    restoreRoot(out, env, (k) => k === "capabilities");
    const lost = root.finish(out, meta, markerFields(ctx.bridgeMarker));
    return ok(ordered(out, ["protocolVersion", "info", "capabilities", "authMethods"]) as v2.InitializeResponse, lost);
  });
}
