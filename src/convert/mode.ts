// Session modes ⇄ the mode config option (H §5.2 direction A, §5.3 direction B, §5.5; T §2.7).
// A: v1 `modes` come from the v2 agent's first mode select option; B: a v1 agent's `modes` are shown
// as a synthetic option. Pure: the engine passes its cached lists and mode state in.

import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { configOptionTable, residualKeys as RK, syntheticNames as SN } from "../../mappings/config-option.js";
import {
  agentModeOptionIndex,
  configOptionUpdateToV1,
  expectArray,
  expectObject,
  expectString,
  invalid,
  isBridgeModeOption,
  isBridgeModes,
  mergedListToV2,
  modesRole,
  syntheticModeOptionId,
  type Acc,
  type ToV1Context,
} from "./config-option.js";
import { has, isObject, isString, jsonEqual, omit, type Obj, withMembers } from "../base/json.js";
import { hasModelOption, legacyModels, type LegacyModels } from "./models.js";
import { attempt, ConvertFailure, ok, type Conv, type Loss, type Path } from "./result.js";
import { rpcErrors } from "../base/errors.js";
import { hasResidual, isSynthetic, residualOf, Stash, setMeta, unstash, type ConvertOptions } from "./stash.js";

const T = configOptionTable;
const SELECT = T.optionTypes.select;
const ID = T.valueTypes.id;
const OPTION = T.renames.option;
const GROUP = T.renames.group;

/** The message a v1 `session/set_mode` gets when the session has no mode option (H §5.2). */
const NO_MODES_REASON = "session has no modes";

// ---------------------------------------------------------------------------------------------
// Direction A (v1 client, v2 agent)

/** The option v1 modes stand for: the first `category:"mode"` select of a v2 list (H §5.2). */
export interface ModeBinding {
  readonly configId: string;
  /** Its position in the list it was found in. */
  readonly index: number;
}

export function modeBinding(options: unknown): ModeBinding | undefined {
  if (!Array.isArray(options)) return undefined;
  const index = options.findIndex(
    (o) => isObject(o) && o.type === SELECT && o.category === T.modeCategory && isString(o[OPTION.v2]),
  );
  if (index < 0) return undefined;
  return { configId: (options[index] as Obj)[OPTION.v2] as string, index };
}

/** A select value as a v1 mode: `value` → `id`, everything else kept. */
function valueToMode(item: Obj, at: Path): Obj {
  const id = expectString(item.value, [...at, "value"]);
  return { id, ...omit(item, "value", "id") };
}

/** Exact v1 modes from a B bridge's synthetic option (H §5.3 reverse). */
function modesFromBridgeOption(option: Obj, at: Path): Obj {
  const { env } = unstash(option._meta, 1);
  const current = expectString(option.currentValue, [...at, "currentValue"]);
  let items = expectArray(option.options, [...at, "options"]);
  if (isSynthetic(env, SN.currentMode)) items = items.slice(0, -1);
  const availableModes = items.map((item, i) =>
    valueToMode(expectObject(item, [...at, "options", i]), [...at, "options", i]),
  );
  const extra = residualOf(env, RK.modesExtra);
  const modes: Obj = withMembers(isObject(extra) ? extra : {}, { currentModeId: current, availableModes });
  if (hasResidual(env, RK.modesMeta)) modes._meta = residualOf(env, RK.modesMeta);
  return modes;
}

/** Throwing form of `modesFromOptions`; `at` = the list's path (for error fields). */
export function synthesizeModes(options: unknown, at: Path, opts: ConvertOptions): Obj | undefined {
  if (!Array.isArray(options)) return undefined;
  const bridged = options.findIndex(isBridgeModeOption);
  if (bridged >= 0) return modesFromBridgeOption(options[bridged] as Obj, [...at, bridged]);
  const binding = modeBinding(options);
  if (!binding) return undefined;
  const option = options[binding.index] as Obj;
  const base: Path = [...at, binding.index];
  const current = expectString(option.currentValue, [...base, "currentValue"]);
  const availableModes: Obj[] = [];
  expectArray(option.options, [...base, "options"]).forEach((x, j) => {
    const item = expectObject(x, [...base, "options", j]);
    if (!has(item, GROUP.v2)) {
      availableModes.push(valueToMode(item, [...base, "options", j]));
      return;
    }
    // Groups flatten in order; each mode remembers its group header (H §5.2).
    const group = omit(item, "options");
    expectArray(item.options, [...base, "options", j, "options"]).forEach((y, k) => {
      const at2: Path = [...base, "options", j, "options", k];
      const mode = valueToMode(expectObject(y, at2), at2);
      availableModes.push(setMeta(mode, new Stash(2, opts).keep(RK.group, group).into(mode._meta)));
    });
  });
  return setMeta({ currentModeId: current, availableModes }, new Stash(2, opts).invented(SN.modes).into(undefined));
}

/**
 * A: the v1 `modes` for a v2 option list (H §5.2): from the first mode select option, flattened,
 * marked `synthetic:["modes"]`; rebuilt exactly from a B bridge's synthetic option. `undefined`
 * when the list has no mode option.
 * @internal Runs inside the A session results and mode updates; exported for the modes properties.
 */
export function modesFromOptions(options: unknown, opts: ConvertOptions): Conv<v1.SessionModeState | undefined> {
  return attempt(() => ok(synthesizeModes(options, ["configOptions"], opts) as v1.SessionModeState | undefined));
}

/** A: v1 `session/set_mode` → v2 `session/set_config_option` on the bound option (H §5.2). */
export function setModeToSetConfigOption(
  req: unknown,
  binding: ModeBinding | undefined,
): Conv<v2.SetSessionConfigOptionRequest> {
  return attempt(() => {
    const src = expectObject(req, []);
    if (!binding) throw new ConvertFailure(rpcErrors.invalidParams({ reason: NO_MODES_REASON }));
    const modeId = expectString(src.modeId, ["modeId"]);
    const out = withMembers(omit(src, "modeId"), { [OPTION.v2]: binding.configId, type: ID, value: modeId });
    return ok(out as v2.SetSessionConfigOptionRequest);
  });
}

export interface SetModeResult {
  /** What the v1 client gets for its `session/set_mode`. */
  readonly response: v1.SetSessionModeResponse;
  /** The agent's new option list (raw v2): the engine's cache for this session. */
  readonly configOptions: unknown[];
}

/** A: the v2 `set_config_option` result answering a translated `set_mode` (H §5.2). */
export function setConfigOptionResponseToSetModeResponse(res: unknown): Conv<SetModeResult> {
  return attempt(() => {
    const src = expectObject(res, []);
    const configOptions = expectArray(src.configOptions, ["configOptions"]);
    const { meta } = unstash(src._meta, 1);
    const response = setMeta(omit(src, "configOptions"), meta) as v1.SetSessionModeResponse;
    return ok({ response, configOptions });
  });
}

function boundOption(list: unknown, configId: string): Obj | undefined {
  if (!Array.isArray(list)) return undefined;
  return list.find(
    (o): o is Obj => isObject(o) && o[OPTION.v2] === configId && o.type === SELECT && o.category === T.modeCategory,
  );
}

/** The mode values of a select option, flattened (for comparisons). */
function modeValues(option: Obj | undefined): unknown[] {
  const items: unknown[] = option && Array.isArray(option.options) ? option.options : [];
  return items.flatMap((o): unknown[] =>
    isObject(o) && has(o, GROUP.v2) && Array.isArray(o.options) ? o.options : [o],
  );
}

/**
 * A: the v1 `current_mode_update` a new v2 list calls for: when the bound option's `currentValue`
 * differs from the cached list's (T §2.7). Marked `synthetic:["currentModeUpdate"]`.
 */
export function currentModeUpdateFor(prev: unknown, next: unknown, opts: ConvertOptions): v1.SessionUpdate | undefined {
  const binding = modeBinding(next);
  if (!binding || !Array.isArray(next)) return undefined;
  const now = (next[binding.index] as Obj).currentValue;
  const before = boundOption(prev, binding.configId);
  if (!before || !isString(now) || before.currentValue === now) return undefined;
  const update = { sessionUpdate: "current_mode_update", currentModeId: now };
  return setMeta(update, new Stash(2, opts).invented(SN.currentModeUpdate).into(undefined)) as v1.SessionUpdate;
}

/** A: the set of modes changed between two v2 lists (v1 cannot be told: log it, H §5.5). */
function modeSetChanged(prev: unknown, next: unknown): boolean {
  const a = modeBinding(prev);
  const b = modeBinding(next);
  if (!a || !b) return a !== b;
  return (
    !jsonEqual(modeValues((prev as Obj[])[a.index]), modeValues((next as Obj[])[b.index])) || a.configId !== b.configId
  );
}

/**
 * A: whether a new v2 list differs from the cached one beyond the bound option's `currentValue`
 * (after a translated `set_mode`, the engine then sends the v1 client a `config_option_update`).
 */
export function optionsChangedBeyondMode(prev: unknown, next: unknown): boolean {
  const binding = modeBinding(next);
  const strip = (list: unknown): unknown =>
    Array.isArray(list) && binding
      ? (list as unknown[]).map((o) => (isObject(o) && o[OPTION.v2] === binding.configId ? omit(o, "currentValue") : o))
      : list;
  return !jsonEqual(strip(prev), strip(next));
}

export interface ModeStreamContext extends ToV1Context {
  /** `false` when the v1 client got no `modes` for this session: no `current_mode_update` then. */
  readonly sessionHasModes?: boolean;
}

export interface ModeUpdatesToV1 {
  /** v1 updates to send, in order. */
  readonly updates: v1.SessionUpdate[];
  /** The bound option's set of modes changed: v1 cannot be told (log it, H §5.5). */
  readonly modesChanged: boolean;
}

/**
 * A: a v2 `config_option_update` → v1 updates (T §2.7): the renamed `config_option_update`, then a
 * `current_mode_update` when the bound option's value changed against `prev` (the cached list). A
 * B bridge's translation of a v1 `current_mode_update` becomes that update again.
 */
export function configOptionUpdateToV1Updates(
  update: unknown,
  prev: unknown,
  ctx: ModeStreamContext,
  opts: ConvertOptions,
): Conv<ModeUpdatesToV1> {
  const src = update;
  if (isObject(src)) {
    const raw = residualOf(unstash(src._meta, 1).env, RK.currentModeUpdate);
    if (isObject(raw)) return ok({ updates: [raw as v1.SessionUpdate], modesChanged: false });
  }
  const r = configOptionUpdateToV1(src, ctx, opts);
  if (!r.ok) return r;
  const first = withMembers(r.value, { sessionUpdate: "config_option_update" }) as v1.SessionUpdate;
  const updates: v1.SessionUpdate[] = [first];
  const next = (src as Obj).configOptions;
  const mode = ctx.sessionHasModes === false ? undefined : currentModeUpdateFor(prev, next, opts);
  if (mode) updates.push(mode);
  return ok({ updates, modesChanged: modeSetChanged(prev, next) }, r.lost);
}

// ---------------------------------------------------------------------------------------------
// Direction B (v2 client, v1 agent)

/** What a B engine keeps about a v1 agent's configuration for one session (raw v1 values). */
export interface AgentConfig {
  /** The agent's latest `configOptions` (v1 list; `null`/absent when it has none). */
  readonly configOptions?: unknown;
  /** The agent's `modes` (v1 SessionModeState), `currentModeId` kept current. */
  readonly modes?: unknown;
  /** The agent's legacy `models`, `currentModelId` kept current (absent beside its own model option). */
  readonly models?: LegacyModels | undefined;
}

/** B: the state after a v1 session result (new/load/resume/fork). */
export function agentConfigFromResult(res: unknown): AgentConfig {
  if (!isObject(res)) return {};
  const modes = isBridgeModes(res.modes) ? undefined : res.modes;
  const models = hasModelOption(res.configOptions) ? undefined : legacyModels(res.models);
  return { configOptions: res.configOptions, modes, ...(models !== undefined ? { models } : {}) };
}

/**
 * B: how a v2 client sets the mode (H §5.3): `option` = the agent's own mode option (forward
 * `set_config_option`); `modes` = the synthetic option (translate to `session/set_mode`).
 */
export type AgentModeBinding =
  { readonly kind: "option"; readonly configId: string } | { readonly kind: "modes"; readonly configId: string };

function roleOf(cfg: AgentConfig): ReturnType<typeof modesRole> | undefined {
  try {
    return modesRole(cfg.modes, cfg.configOptions);
  } catch (e) {
    if (e instanceof ConvertFailure) return undefined;
    throw e;
  }
}

/** The agent's own mode option in a v1 list. */
function agentModeOption(list: unknown): Obj | undefined {
  const i = agentModeOptionIndex(list);
  return i === undefined ? undefined : (list as Obj[])[i];
}

export function agentModeBinding(cfg: AgentConfig): AgentModeBinding | undefined {
  const own = agentModeOption(cfg.configOptions);
  if (own !== undefined) return { kind: "option", configId: own[OPTION.v1] as string };
  if (roleOf(cfg) === "option") return { kind: "modes", configId: syntheticModeOptionId(cfg.configOptions) };
  return undefined;
}

/** B: the state after the mode became `modeId` (set_mode success or `current_mode_update`). */
export function withCurrentMode(cfg: AgentConfig, modeId: string): AgentConfig {
  const own = agentModeOptionIndex(cfg.configOptions);
  const configOptions =
    own === undefined
      ? cfg.configOptions
      : (cfg.configOptions as unknown[]).map((o, i) =>
          i === own ? withMembers(o as Obj, { currentValue: modeId }) : o,
        );
  const modes = isObject(cfg.modes) ? withMembers(cfg.modes, { currentModeId: modeId }) : cfg.modes;
  return withMembers(cfg, { configOptions, modes });
}

function listOf(cfg: AgentConfig, acc: Acc): Obj[] {
  const list = cfg.configOptions === undefined || cfg.configOptions === null ? [] : cfg.configOptions;
  return mergedListToV2(list, ["configOptions"], undefined, cfg.modes, acc, cfg.models);
}

/**
 * B: v2 `set_config_option` on the synthetic mode option → v1 `session/set_mode` (H §5.3). `type`
 * must be `"id"` and `value` one of the modes, else -32602 (the agent is not called).
 */
export function setConfigOptionOnSyntheticToSetMode(req: unknown, cfg: AgentConfig): Conv<v1.SetSessionModeRequest> {
  return attempt(() => {
    const src = expectObject(req, []);
    const binding = agentModeBinding(cfg);
    if (binding?.kind !== "modes" || src[OPTION.v2] !== binding.configId) invalid([OPTION.v2], "not_mode_option");
    if (src.type !== ID) invalid(["type"], "type_mismatch", { type: src.type, expected: ID });
    const value = expectString(src.value, ["value"]);
    const modes = cfg.modes as Obj;
    const ids = [modes.currentModeId, ...(modes.availableModes as Obj[]).map((m) => m.id)];
    if (!ids.includes(value)) invalid(["value"], "unknown_mode", { value });
    return ok(withMembers(omit(src, OPTION.v2, "type", "value"), { modeId: value }) as v1.SetSessionModeRequest);
  });
}

/**
 * B: the v2 answer to a `set_config_option` that went out as `session/set_mode` (H §5.3): the v1
 * result's `_meta` plus the full list. `cfg` is the state AFTER `withCurrentMode`.
 */
export function setModeResponseToSetConfigOptionResponse(
  res: unknown,
  cfg: AgentConfig,
  opts: ConvertOptions,
): Conv<v2.SetSessionConfigOptionResponse> {
  return attempt(() => {
    const src = res === null || res === undefined ? {} : expectObject(res, []);
    const acc: Acc = { opts, lost: [] };
    return ok(withMembers(src, { configOptions: listOf(cfg, acc) }) as v2.SetSessionConfigOptionResponse, acc.lost);
  });
}

export interface ModeUpdateToV2 {
  /** The v2 update to send, if any. */
  readonly update: v2.SessionUpdate | undefined;
  /** The session's new state. */
  readonly config: AgentConfig;
}

/**
 * B: v1 `current_mode_update` (also `modeId`, the docs' name) → v2 `config_option_update` with the
 * full merged list (T §2.7). With the agent's own mode option, only when its value changes. The
 * v1 update rides in the stash, so an A bridge gives it back as it was.
 */
export function currentModeUpdateToConfigOptionUpdate(
  update: unknown,
  cfg: AgentConfig,
  opts: ConvertOptions,
): Conv<ModeUpdateToV2> {
  return attempt<ModeUpdateToV2>(() => {
    const src = expectObject(update, []);
    const modeId = isString(src.currentModeId) ? src.currentModeId : isString(src.modeId) ? src.modeId : undefined;
    if (modeId === undefined) invalid(["currentModeId"], src.currentModeId === undefined ? "missing" : "not_string");
    const { meta, env } = unstash(src._meta, 2);
    const binding = agentModeBinding(cfg);
    const config = withCurrentMode(cfg, modeId);
    const lost: Loss[] = [{ path: [], reason: "v2 has no current_mode_update" }];
    // An A bridge's own echo of a config_option_update it already sent.
    if (isSynthetic(env, SN.currentModeUpdate)) return ok({ update: undefined, config });
    if (!binding) return ok({ update: undefined, config }, lost);
    if (binding.kind === "option" && agentModeOption(cfg.configOptions)?.currentValue === modeId)
      return ok({ update: undefined, config });
    const acc: Acc = { opts, lost: [] };
    const out = { sessionUpdate: "config_option_update", configOptions: listOf(config, acc) };
    const stash = new Stash(1, opts).keep(RK.currentModeUpdate, src);
    return ok({ update: setMeta(out, stash.into(meta)) as v2.SessionUpdate, config }, [...lost, ...acc.lost]);
  });
}
