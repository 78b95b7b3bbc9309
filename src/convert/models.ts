// Legacy model selection (issue 7 item 3c): `models: {availableModels: [{modelId, name, description?}],
// currentModelId}` in v1 session results, changed with `session/set_model {sessionId, modelId}`. The
// pinned schemas dropped it for a config option of category `model`, yet v1 builds of Codex's adapter
// and Gemini CLI still send it. B shows it to a v2 client as a synthetic model select option.

import { configOptionTable, syntheticNames as SN } from "../../mappings/config-option.js";
import { invalid } from "./check.js";
import { isObject, isString, omit, type Obj, withMembers } from "../base/json.js";
import { attempt, ok, type Conv } from "./result.js";
import { isSynthetic, Stash, setMeta, unstash, type ConvertOptions } from "./stash.js";

const T = configOptionTable;
const SELECT = T.optionTypes.select;
const ID = T.valueTypes.id;
const OPTION = T.renames.option;

/** A well-formed legacy `SessionModelState` (anything else is left alone: an unknown field). */
export interface LegacyModels extends Obj {
  readonly currentModelId: string;
  readonly availableModels: readonly (Obj & { readonly modelId: string; readonly name: string })[];
}

export function legacyModels(x: unknown): LegacyModels | undefined {
  if (!isObject(x) || !isString(x.currentModelId) || !Array.isArray(x.availableModels)) return undefined;
  const ok = x.availableModels.every((m) => isObject(m) && isString(m.modelId) && isString(m.name));
  return ok ? (x as LegacyModels) : undefined;
}

/** Whether a (v1 or v2) option list has its own model selector: then no synthetic one is added. */
export function hasModelOption(list: unknown): boolean {
  return (
    Array.isArray(list) &&
    list.some((o) => isObject(o) && o.type === SELECT && o.category === T.syntheticModelOption.category)
  );
}

/** `model` unless an option (or the synthetic mode option) already has that id, then `acp-bridge.model`... */
export function modelOptionId(list: unknown, taken: readonly string[] = []): string {
  const ids = new Set<unknown>(taken);
  if (Array.isArray(list)) for (const o of list) if (isObject(o)) ids.add(o[OPTION.v1] ?? o[OPTION.v2]);
  const free = T.syntheticModelOption.ids.find((id) => !ids.has(id));
  if (free !== undefined) return free;
  const base = T.syntheticModelOption.ids.at(-1) ?? "model";
  let n = 2;
  while (ids.has(`${base}.${n}`)) n++;
  return `${base}.${n}`;
}

/** The v2 select option standing for legacy `models`, marked `synthetic:["modelOption"]`. */
export function buildModelOption(models: LegacyModels, configId: string, opts: ConvertOptions): Obj {
  const options: Obj[] = models.availableModels.map((m) => {
    const o: Obj = { value: m.modelId, name: m.name };
    if (isString(m.description)) o.description = m.description;
    return o;
  });
  // v2 needs currentValue among the values.
  if (!options.some((o) => o.value === models.currentModelId))
    options.push({ value: models.currentModelId, name: models.currentModelId });
  const out: Obj = {
    [OPTION.v2]: configId,
    name: T.syntheticModelOption.name,
    category: T.syntheticModelOption.category,
    type: SELECT,
    currentValue: models.currentModelId,
    options,
  };
  return setMeta(out, new Stash(1, opts).invented(SN.modelOption).into(undefined));
}

/** A B bridge's synthetic model option (a chained A drops it and restores `models` instead). */
export function isBridgeModelOption(option: unknown): boolean {
  return isObject(option) && isSynthetic(unstash(option._meta, 1).env, SN.modelOption);
}

/** B: the state after the model became `modelId`. */
export function withCurrentModel(models: LegacyModels, modelId: string): LegacyModels {
  return { ...models, currentModelId: modelId };
}

/** The v2 option a v1 `session/set_model` sets: a B bridge's stand-in, else the first model select. */
function modelOption(options: unknown): Obj | undefined {
  if (!Array.isArray(options)) return undefined;
  const selects = options.filter(
    (o): o is Obj =>
      isObject(o) && o.type === SELECT && o.category === T.syntheticModelOption.category && isString(o[OPTION.v2]),
  );
  return selects.find(isBridgeModelOption) ?? selects[0];
}

/**
 * A: a v1 client's legacy `session/set_model` (it got `models` back from a B bridge's stash) →
 * v2 `set_config_option` on the session's model option (`options`: the engine's v2 list cache).
 */
export function setModelToSetConfigOption(req: unknown, options: unknown): Conv<Obj> {
  return attempt(() => {
    if (!isObject(req)) invalid([], "not_object");
    const modelId = req.modelId;
    if (!isString(modelId)) invalid(["modelId"], modelId === undefined ? "missing" : "not_string");
    const option = modelOption(options);
    if (option === undefined) invalid(["modelId"], "session has no model option");
    return ok(withMembers(omit(req, "modelId"), { [OPTION.v2]: option[OPTION.v2], type: ID, value: modelId }));
  });
}

/**
 * B: v2 `set_config_option` on the synthetic model option → legacy `session/set_model`. `type` must
 * be `"id"` and `value` one of the models, else -32602 (the agent is not called).
 */
export function setConfigOptionToSetModel(req: unknown, models: LegacyModels): Conv<Obj & { modelId: string }> {
  return attempt(() => {
    if (!isObject(req)) invalid([], "not_object");
    if (req.type !== ID) invalid(["type"], "type_mismatch", { type: req.type, expected: ID });
    const value = req.value;
    if (!isString(value)) invalid(["value"], "not_string");
    const ids = [models.currentModelId, ...models.availableModels.map((m) => m.modelId)];
    if (!ids.includes(value)) invalid(["value"], "unknown_model", { value });
    return ok(withMembers(omit(req, OPTION.v2, "type", "value"), { modelId: value }));
  });
}
