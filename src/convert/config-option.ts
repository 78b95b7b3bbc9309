// Session config options (H §5.1, §5.4, §7.6; T §2.7): the option and list converters, the
// set_config_option request/response, config_option_update, and (H §5.3) the v2 option a B bridge
// synthesizes from a v1 agent's `modes`. Mode bookkeeping on top of these lives in mode.ts.

import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { configOptionTable, residualKeys as RK, syntheticNames as SN } from "../../mappings/config-option.js";
import { has, isObject, isString, omit, type Obj, setOwn, withMembers, copyMembers } from "../base/json.js";
import { attempt, ok, type Conv, type Loss, type Path } from "./result.js";
import {
  hasResidual,
  isSynthetic,
  residualOf,
  Stash,
  setMeta,
  unstash,
  type ConvertOptions,
  type Envelope,
  type Version,
} from "./stash.js";
import { invalid } from "./check.js";
import { buildModelOption, hasModelOption, isBridgeModelOption, modelOptionId, type LegacyModels } from "./models.js";

export { invalid };

const T = configOptionTable;
const SELECT = T.optionTypes.select;
const BOOLEAN = T.optionTypes.boolean;
const ID = T.valueTypes.id;
const BOOLEAN_VALUE = T.valueTypes.boolean;
const OPTION = T.renames.option;
const GROUP = T.renames.group;

// ---------------------------------------------------------------------------------------------
// Helpers shared with mode.ts and session-result.ts

/** Losses collected while converting, and the options they were converted with. */
export interface Acc {
  readonly opts: ConvertOptions;
  readonly lost: Loss[];
}

export function expectObject(x: unknown, path: Path): Obj {
  if (!isObject(x)) invalid(path, x === undefined ? "missing" : "not_object");
  return x;
}

export function expectString(x: unknown, path: Path): string {
  if (!isString(x)) invalid(path, x === undefined ? "missing" : "not_string");
  return x;
}

export function expectArray(x: unknown, path: Path): unknown[] {
  if (!Array.isArray(x)) invalid(path, x === undefined ? "missing" : "not_array");
  return x as unknown[];
}

/** Copy of `src` with key `from` renamed `to`; an own `to` key of the source goes to `shadowed`. */
function renameKey(src: Obj, from: string, to: string, shadowed: Obj): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(src)) {
    if (k === from) setOwn(out, to, v);
    else if (k === to) shadowed[to] = v;
    else setOwn(out, k, v);
  }
  return out;
}

/**
 * Converts an object whose only structural change is a key rename, handling its own `_meta`:
 * consumes an envelope for `target`, lets `edit` change the copy (and stash), restores keys the
 * reverse rename shadowed, and stashes the keys this rename shadows.
 */
function renamed(
  src: Obj,
  from: string,
  to: string,
  target: Version,
  at: Path,
  acc: Acc,
  edit?: (out: Obj, env: Envelope | undefined, stash: Stash) => void,
): Obj {
  const { meta, env } = unstash(src._meta, target);
  const shadowed: Obj = {};
  const out = renameKey(src, from, to, shadowed);
  const stash = new Stash(target === 1 ? 2 : 1, acc.opts);
  edit?.(out, env, stash);
  const back = residualOf(env, RK.shadowed);
  if (isObject(back)) for (const [k, v] of Object.entries(back)) setOwn(out, k, v);
  if (Object.keys(shadowed).length > 0) {
    stash.keep(RK.shadowed, shadowed);
    acc.lost.push({ path: [...at, to], reason: `"${to}" names another field in v${target}` });
  }
  return setMeta(out, stash.into(meta));
}

// ---------------------------------------------------------------------------------------------
// Single options

export interface ToV1Context {
  /** The v1 client advertised `clientCapabilities.session.configOptions.boolean` (H §5.4). */
  readonly booleanOptions: boolean;
}

/** B wrote this option from a v1 agent's `modes` (H §5.3): a v1 peer gets `modes` back instead. */
export function isBridgeModeOption(option: unknown): option is Obj {
  return isObject(option) && isSynthetic(unstash(option._meta, 1).env, SN.modeOption);
}

/**
 * Select values and groups, copied as they are: a value has a string `value` and `name`, a group
 * a string `name` and its values; `description` a string and `_meta` an object when present.
 */
function checkItems(items: readonly unknown[], groupKey: string, at: Path): void {
  items.forEach((x, j) => {
    const item = expectObject(x, [...at, j]);
    const isGroup = Object.hasOwn(item, groupKey);
    if (!isGroup) expectString(item.value, [...at, j, "value"]);
    expectString(item.name, [...at, j, "name"]);
    if (item.description !== undefined && item.description !== null)
      expectString(item.description, [...at, j, "description"]);
    if (item._meta !== undefined && item._meta !== null) expectObject(item._meta, [...at, j, "_meta"]);
    if (isGroup) checkItems(expectArray(item.options, [...at, j, "options"]), groupKey, [...at, j, "options"]);
  });
}

function groupToV1(group: Obj, at: Path, acc: Acc): Obj {
  expectString(group[GROUP.v2], [...at, GROUP.v2]);
  return renamed(group, GROUP.v2, GROUP.v1, 1, at, acc);
}

function groupToV2(group: Obj, at: Path, acc: Acc): Obj {
  expectString(group[GROUP.v1], [...at, GROUP.v1]);
  return renamed(group, GROUP.v1, GROUP.v2, 2, at, acc);
}

/** A v2 option toward v1; `undefined` for a type v1 does not know (the list omits and stashes it). */
function optionToV1(x: unknown, at: Path, ctx: ToV1Context, acc: Acc): Obj | undefined {
  const src = expectObject(x, at);
  const type = expectString(src.type, [...at, "type"]);
  // Copied as they are: strings and an object (or `null`) in both versions.
  for (const key of ["description", "category"])
    if (src[key] !== undefined && src[key] !== null) expectString(src[key], [...at, key]);
  if (src._meta !== undefined && src._meta !== null) expectObject(src._meta, [...at, "_meta"]);
  expectString(src[OPTION.v2], [...at, OPTION.v2]);
  expectString(src.name, [...at, "name"]); // copied as it is: a string in both versions
  if (type === SELECT) {
    expectString(src.currentValue, [...at, "currentValue"]);
    const items = expectArray(src.options, [...at, "options"]).map((item, j) =>
      expectObject(item, [...at, "options", j]),
    );
    checkItems(items, GROUP.v2, [...at, "options"]);
    return renamed(src, OPTION.v2, OPTION.v1, 1, at, acc, (out, env) => {
      // A B bridge stashed v1 options v2 could not carry (empty select or groups): restore them.
      out.options = hasResidual(env, RK.options)
        ? residualOf(env, RK.options)
        : items.map((item, j) => (has(item, GROUP.v2) ? groupToV1(item, [...at, "options", j], acc) : item));
    });
  }
  if (type === BOOLEAN) {
    const current = src.currentValue;
    if (typeof current !== "boolean")
      invalid([...at, "currentValue"], current === undefined ? "missing" : "not_boolean");
    return renamed(src, OPTION.v2, OPTION.v1, 1, at, acc, (out, _env, stash) => {
      if (ctx.booleanOptions) return;
      const { on, off } = T.booleanAsSelect;
      out.type = SELECT;
      out.currentValue = current ? on.value : off.value;
      if (has(src, "options")) stash.keep(RK.options, src.options);
      out.options = [{ ...on }, { ...off }];
      stash.keep(RK.type, BOOLEAN);
      acc.lost.push({ path: at, reason: "boolean option shown as an On/Off select (v1 client lacks boolean options)" });
    });
  }
  return undefined;
}

/** A v1 option toward v2. */
function optionToV2(x: unknown, at: Path, acc: Acc): Obj {
  const src = expectObject(x, at);
  const type = expectString(src.type, [...at, "type"]);
  // Copied as they are: strings and an object (or `null`) in both versions.
  for (const key of ["description", "category"])
    if (src[key] !== undefined && src[key] !== null) expectString(src[key], [...at, key]);
  if (src._meta !== undefined && src._meta !== null) expectObject(src._meta, [...at, "_meta"]);
  expectString(src[OPTION.v1], [...at, OPTION.v1]);
  expectString(src.name, [...at, "name"]); // copied as it is: a string in both versions
  if (type !== SELECT && type !== BOOLEAN) invalid([...at, "type"], "unknown_variant", { type });
  if (type === BOOLEAN) {
    if (typeof src.currentValue !== "boolean")
      invalid([...at, "currentValue"], src.currentValue === undefined ? "missing" : "not_boolean");
    return renamed(src, OPTION.v1, OPTION.v2, 2, at, acc);
  }
  const current = expectString(src.currentValue, [...at, "currentValue"]);
  const items = expectArray(src.options, [...at, "options"]).map((item, j) =>
    expectObject(item, [...at, "options", j]),
  );
  checkItems(items, GROUP.v1, [...at, "options"]);
  if (isBooleanAsSelect(src)) {
    // An A bridge's boolean shown as a select (H §5.4): the boolean again.
    return renamed(src, OPTION.v1, OPTION.v2, 2, at, acc, (out, env) => {
      out.type = BOOLEAN;
      out.currentValue = current === T.booleanAsSelect.on.value;
      delete out.options;
      if (hasResidual(env, RK.options)) out.options = residualOf(env, RK.options);
    });
  }
  const isGroup = (item: Obj) => has(item, GROUP.v1);
  const emptyGroup = (item: Obj, j: number) => {
    if (!isGroup(item)) return false;
    expectString(item[GROUP.v1], [...at, "options", j, GROUP.v1]);
    return expectArray(item.options, [...at, "options", j, "options"]).length === 0;
  };
  const empties = items.map(emptyGroup);
  return renamed(src, OPTION.v1, OPTION.v2, 2, at, acc, (out, _env, stash) => {
    const options: unknown[] = [];
    items.forEach((item, j) => {
      if (!empties[j]) options.push(isGroup(item) ? groupToV2(item, [...at, "options", j], acc) : item);
    });
    if (items.length === 0 || empties.includes(true)) {
      // v2 selects and groups need at least one value: drop empty groups, keep the v1 list aside.
      stash.keep(RK.options, src.options);
      acc.lost.push({ path: [...at, "options"], reason: "v2 select options and groups cannot be empty" });
      if (options.length === 0) options.push({ value: current, name: current });
    }
    out.options = options;
  });
}

// ---------------------------------------------------------------------------------------------
// Lists

/** A v2 option v1 cannot show, kept on the carrier's `_meta` (`residual.omittedConfigOptions`). */
interface OmittedOption {
  /** Position in the v2 list, not counting a bridge-synthesized mode option. */
  readonly index: number;
  readonly raw: unknown;
}

export interface OptionsToV1 {
  readonly options: v1.SessionConfigOption[];
  readonly omitted: OmittedOption[];
  /** A B bridge's synthetic mode option, taken out of the list: v1 `modes` are rebuilt from it. */
  readonly modeOption: Obj | undefined;
}

/** Throwing form for carriers; `at` is the list's path in the carrier. */
export function listToV1(list: unknown, at: Path, ctx: ToV1Context, acc: Acc): OptionsToV1 {
  const items = expectArray(list, at);
  const options: v1.SessionConfigOption[] = [];
  const omitted: OmittedOption[] = [];
  let modeOption: Obj | undefined;
  let index = 0;
  items.forEach((item, i) => {
    if (modeOption === undefined && isBridgeModeOption(item)) {
      modeOption = item;
      return;
    }
    // A B bridge's stand-in for its agent's legacy `models`, which the result gives back.
    if (isBridgeModelOption(item)) return;
    const out = optionToV1(item, [...at, i], ctx, acc);
    if (out === undefined) omitted.push({ index, raw: item });
    else options.push(out as v1.SessionConfigOption);
    index++;
  });
  if (omitted.length > 0) acc.lost.push({ path: at, reason: "options of a type unknown to v1 are omitted" });
  return { options, omitted, modeOption };
}

/** Throwing form for carriers: converts and puts back the options an A bridge omitted. */
export function listToV2(list: unknown, at: Path, omitted: unknown, acc: Acc): Obj[] {
  const out = expectArray(list, at).map((item, i) => optionToV2(item, [...at, i], acc));
  if (Array.isArray(omitted)) {
    const back = omitted
      .filter(
        (o): o is { index: number; raw: unknown } =>
          isObject(o) && Number.isSafeInteger(o.index) && (o.index as number) >= 0 && has(o, "raw"),
      )
      .sort((a, b) => a.index - b.index);
    for (const o of back) out.splice(Math.min(o.index, out.length), 0, o.raw as Obj);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// B: the synthetic mode option (H §5.3)

/** An A bridge's v2 boolean shown as a select (H §5.4): a boolean again toward v2. */
function isBooleanAsSelect(option: Obj): boolean {
  return option.type === SELECT && residualOf(unstash(option._meta, 2).env, RK.type) === BOOLEAN;
}

/** Index of a v1 list's own mode selector (first `category:"mode"` select), if any. */
export function agentModeOptionIndex(list: unknown): number | undefined {
  if (!Array.isArray(list)) return undefined;
  const i = list.findIndex(
    (o) =>
      isObject(o) &&
      o.type === SELECT &&
      o.category === T.modeCategory &&
      isString(o[OPTION.v1]) &&
      !isBooleanAsSelect(o),
  );
  return i < 0 ? undefined : i;
}

/** `mode` unless a v1 option already has that id, then `acp-bridge.mode` (then `.2`, `.3`...). */
export function syntheticModeOptionId(list: unknown): string {
  const taken = new Set(
    Array.isArray(list) ? list.flatMap((o) => (isObject(o) && isString(o[OPTION.v1]) ? [o[OPTION.v1]] : [])) : [],
  );
  const ids = T.syntheticModeOption.ids;
  const free = ids.find((id) => !taken.has(id));
  if (free !== undefined) return free;
  const base = ids[ids.length - 1] ?? "mode";
  let n = 2;
  while (taken.has(`${base}.${n}`)) n++;
  return `${base}.${n}`;
}

/** A v1 SessionModeState an A bridge synthesized (H §5.2): a v2 peer must not see it. */
export function isBridgeModes(modes: unknown): boolean {
  return isObject(modes) && isSynthetic(unstash(modes._meta, 2).env, SN.modes);
}

/**
 * What becomes of a v1 agent's `modes` toward v2 (H §5.3):
 * `absent`; `bridge` (an A bridge's synthesis: drop); `dual` (the agent also has a mode option:
 * bind to it, stash `modes`); `unusable` (`null` or no modes: stash); `option` (synthesize one).
 * Throws the typed error when `modes` is malformed.
 */
export type ModesRole = "absent" | "bridge" | "dual" | "unusable" | "option";

export function modesRole(modes: unknown, agentList: unknown, at: Path = ["modes"]): ModesRole {
  if (modes === undefined) return "absent";
  let count = 0;
  if (modes !== null) {
    const m = expectObject(modes, at);
    expectString(m.currentModeId, [...at, "currentModeId"]);
    const list = expectArray(m.availableModes, [...at, "availableModes"]);
    list.forEach((mode, i) => {
      const m = expectObject(mode, [...at, "availableModes", i]);
      expectString(m.id, [...at, "availableModes", i, "id"]);
      // Copied into the v2 option standing for the mode, which requires them alike.
      expectString(m.name, [...at, "availableModes", i, "name"]);
      if (m.description !== undefined && m.description !== null)
        expectString(m.description, [...at, "availableModes", i, "description"]);
    });
    if (isBridgeModes(m)) return "bridge";
    count = list.length;
  }
  if (agentModeOptionIndex(agentList) !== undefined) return "dual";
  return count === 0 ? "unusable" : "option";
}

/**
 * The v2 select option standing for v1 `modes` (role `option`), stashed so an A bridge rebuilds
 * `modes` exactly. Losses are reported against `at` (the `modes` object).
 */
export function buildModeOption(modes: Obj, configId: string, at: Path, acc: Acc): Obj {
  const current = expectString(modes.currentModeId, [...at, "currentModeId"]);
  const list = expectArray(modes.availableModes, [...at, "availableModes"]);
  const stash = new Stash(1, acc.opts).invented(SN.modeOption);
  const options: Obj[] = list.map((m, i) => {
    const mode = expectObject(m, [...at, "availableModes", i]);
    const id = expectString(mode.id, [...at, "availableModes", i, "id"]);
    if (has(mode, "value"))
      acc.lost.push({ path: [...at, "availableModes", i, "value"], reason: '"value" names the mode id in v2' });
    return { value: id, ...omit(mode, "id", "value") };
  });
  if (!options.some((o) => o.value === current)) {
    // v2 needs currentValue among the values.
    options.push({ value: current, name: current });
    stash.invented(SN.currentMode);
    acc.lost.push({
      path: [...at, "availableModes"],
      reason: "current mode missing from availableModes: added as a value",
    });
  }
  if (has(modes, "_meta")) {
    stash.keep(RK.modesMeta, modes._meta);
    acc.lost.push({ path: [...at, "_meta"], reason: "SessionModeState has no v2 counterpart" });
  }
  const extra = omit(modes, "currentModeId", "availableModes", "_meta");
  if (Object.keys(extra).length > 0) {
    stash.keep(RK.modesExtra, extra);
    for (const k of Object.keys(extra))
      acc.lost.push({ path: [...at, k], reason: "SessionModeState has no v2 counterpart" });
  }
  const out: Obj = {
    [OPTION.v2]: configId,
    name: T.syntheticModeOption.name,
    category: T.syntheticModeOption.category,
    type: SELECT,
    currentValue: current,
    options,
  };
  return setMeta(out, stash.into(undefined));
}

/**
 * The synthetic option for `modes` beside `agentList` (v1), when `modes` takes that role.
 * @internal Test entry to buildModeOption, which the session results and mergedListToV2 run; exported for the modes properties.
 */
export function syntheticModeOption(
  modes: unknown,
  agentList: unknown,
  opts: ConvertOptions,
): Conv<v2.SessionConfigOption | undefined> {
  return attempt(() => {
    const acc: Acc = { opts, lost: [] };
    if (modesRole(modes, agentList) !== "option") return ok(undefined);
    const option = buildModeOption(modes as Obj, syntheticModeOptionId(agentList), ["modes"], acc);
    return ok(option as v2.SessionConfigOption, acc.lost);
  });
}

/**
 * Throwing form: the v1 list toward v2 with the synthetic mode option first when `modes` asks, then
 * the synthetic model option for legacy `models` (when the list has no model selector of its own).
 */
export function mergedListToV2(
  list: unknown,
  at: Path,
  omitted: unknown,
  modes: unknown,
  acc: Acc,
  models?: LegacyModels,
): Obj[] {
  const out = listToV2(list, at, omitted, acc);
  if (models !== undefined && !hasModelOption(list)) {
    out.unshift(buildModelOption(models, modelOptionId(list), acc.opts));
    acc.lost.push({ path: at, reason: "the v1 agent's legacy models shown as a model option" });
  }
  if (modesRole(modes, list) !== "option") return out;
  // Losses inside `modes` belong to the state, not to this message.
  const option = buildModeOption(modes as Obj, syntheticModeOptionId(list), ["modes"], { opts: acc.opts, lost: [] });
  acc.lost.push({ path: at, reason: "the v1 agent's modes shown as the first option" });
  return [option, ...out];
}

// ---------------------------------------------------------------------------------------------
// Carriers of a required list: set_config_option response, config_option_update

export interface ToV2Context {
  /** B: the v1 agent's current `modes` (raw), merged in as the synthetic mode option (H §5.3). */
  readonly modes?: unknown;
  /** B: the v1 agent's legacy `models`, merged in as the synthetic model option. */
  readonly models?: LegacyModels | undefined;
}

function carrierToV1(x: unknown, ctx: ToV1Context, acc: Acc): Obj {
  const src = expectObject(x, []);
  const { meta } = unstash(src._meta, 1);
  const r = listToV1(src.configOptions, ["configOptions"], ctx, acc);
  const stash = new Stash(2, acc.opts);
  if (r.omitted.length > 0) stash.keep(RK.omittedConfigOptions, r.omitted);
  return setMeta(withMembers(src, { configOptions: r.options }), stash.into(meta));
}

function carrierToV2(x: unknown, ctx: ToV2Context, acc: Acc): Obj {
  const src = expectObject(x, []);
  const { meta, env } = unstash(src._meta, 2);
  const list = mergedListToV2(
    src.configOptions,
    ["configOptions"],
    residualOf(env, RK.omittedConfigOptions),
    ctx.modes,
    acc,
    ctx.models,
  );
  return setMeta(withMembers(src, { configOptions: list }), meta);
}

/** A: v2 `session/set_config_option` result toward v1 (H §5.1, §5.4). */
export function setConfigOptionResponseToV1(
  res: unknown,
  ctx: ToV1Context,
  opts: ConvertOptions,
): Conv<v1.SetSessionConfigOptionResponse> {
  return attempt(() => {
    const acc: Acc = { opts, lost: [] };
    return ok(carrierToV1(res, ctx, acc) as v1.SetSessionConfigOptionResponse, acc.lost);
  });
}

/** B: v1 `session/set_config_option` result toward v2, with the synthetic mode option merged in. */
export function setConfigOptionResponseToV2(
  res: unknown,
  ctx: ToV2Context,
  opts: ConvertOptions,
): Conv<v2.SetSessionConfigOptionResponse> {
  return attempt(() => {
    const acc: Acc = { opts, lost: [] };
    return ok(carrierToV2(res, ctx, acc) as v2.SetSessionConfigOptionResponse, acc.lost);
  });
}

/**
 * A: v2 `config_option_update` (the update object, with or without its `sessionUpdate` tag) toward
 * v1. The engine's stream function is `configOptionUpdateToV1Updates` (mode.ts), which adds the
 * `current_mode_update` and honours a B bridge's stashed one.
 */
export function configOptionUpdateToV1(
  update: unknown,
  ctx: ToV1Context,
  opts: ConvertOptions,
): Conv<v1.ConfigOptionUpdate> {
  return attempt(() => {
    const acc: Acc = { opts, lost: [] };
    return ok(carrierToV1(update, ctx, acc) as v1.ConfigOptionUpdate, acc.lost);
  });
}

/** B: v1 `config_option_update` toward v2, with the synthetic mode option merged in (T §2.7). */
export function configOptionUpdateToV2(
  update: unknown,
  ctx: ToV2Context,
  opts: ConvertOptions,
): Conv<v2.ConfigOptionUpdate> {
  return attempt(() => {
    const acc: Acc = { opts, lost: [] };
    return ok(carrierToV2(update, ctx, acc) as v2.ConfigOptionUpdate, acc.lost);
  });
}

// ---------------------------------------------------------------------------------------------
// session/set_config_option params (H §5.1)

export interface SetConfigOptionToV2Context {
  /** The session's last v2 option list (the engine's cache): finds booleans shown as selects. */
  readonly options?: unknown;
}

function findOption(list: unknown, configId: string): Obj | undefined {
  if (!Array.isArray(list)) return undefined;
  return list.find((o): o is Obj => isObject(o) && o[OPTION.v2] === configId);
}

/**
 * A: v1 params toward v2. A string value gets `type:"id"` (a v1 `type` other than `boolean` is
 * stashed); on an option that is a v2 boolean it becomes `{type:"boolean", value}` (H §5.4).
 */
export function setConfigOptionRequestToV2(
  req: unknown,
  ctx: SetConfigOptionToV2Context,
  opts: ConvertOptions,
): Conv<v2.SetSessionConfigOptionRequest> {
  return attempt(() => {
    const src = expectObject(req, []);
    const configId = expectString(src.configId, ["configId"]);
    const { meta } = unstash(src._meta, 2);
    const out: Obj = copyMembers(src);
    const stash = new Stash(1, opts);
    const lost: Loss[] = [];
    const value = src.value;
    if (src.type === BOOLEAN_VALUE && typeof value === "boolean") {
      // v1's boolean variant is v2's.
    } else if (typeof value === "string") {
      if (findOption(ctx.options, configId)?.type === BOOLEAN) {
        const { on, off } = T.booleanAsSelect;
        if (value !== on.value && value !== off.value)
          invalid(["value"], "not_boolean_choice", { value, allowed: [on.value, off.value] });
        out.type = BOOLEAN_VALUE;
        out.value = value === on.value;
        if (src.type !== BOOLEAN_VALUE)
          lost.push({ path: ["type"], reason: "select value of a boolean option sent as a boolean" });
        lost.push({ path: ["value"], reason: "select value of a boolean option sent as a boolean" });
      } else {
        out.type = ID;
        if (has(src, "type")) {
          stash.keep(RK.type, src.type);
          lost.push({ path: ["type"], reason: 'v2 tags a value id with type "id"' });
        }
      }
    } else {
      invalid(
        ["value"],
        value === undefined ? "missing" : typeof value === "boolean" ? "boolean_without_type" : "not_string",
      );
    }
    return ok(setMeta(out, stash.into(meta)) as v2.SetSessionConfigOptionRequest, lost);
  });
}

/** B: v2 params toward v1: `type:"id"` dropped, booleans kept, other value types -32602 (H §7.6). */
export function setConfigOptionRequestToV1(req: unknown): Conv<v1.SetSessionConfigOptionRequest> {
  // v1 carries every value type it accepts: nothing to stash, so no options.
  return attempt(() => {
    const src = expectObject(req, []);
    const type = expectString(src.type, ["type"]);
    const { meta, env } = unstash(src._meta, 1);
    const out: Obj = copyMembers(src);
    if (type === ID) {
      expectString(src.value, ["value"]);
      delete out.type;
      if (hasResidual(env, RK.type)) out.type = residualOf(env, RK.type);
    } else if (type === BOOLEAN_VALUE) {
      if (typeof src.value !== "boolean") invalid(["value"], src.value === undefined ? "missing" : "not_boolean");
    } else {
      invalid(["type"], "unknown_variant", { type });
    }
    return ok(setMeta(out, meta) as v1.SetSessionConfigOptionRequest);
  });
}
