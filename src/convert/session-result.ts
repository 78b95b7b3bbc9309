// Results of session/new, session/load ⇄ session/resume, session/resume and session/fork
// (H §4.1, §4.3, §4.4, §4.9): config options (H §5.1, §5.4), modes (H §5.2, §5.3), availableCommands.

import type * as v1 from "@agentclientprotocol/sdk";
import type * as v1u from "@agentclientprotocol/sdk/unstable";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import type * as v2u from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { residualKeys as RK, syntheticNames as SN } from "../../mappings/config-option.js";
import {
  agentModeOptionIndex,
  buildModeOption,
  expectArray,
  expectObject,
  expectString,
  listToV1,
  listToV2,
  modesRole,
  syntheticModeOptionId,
  type Acc,
  type ToV1Context,
} from "./config-option.js";
import { has, jsonEqual, omit, type Obj, withMembers } from "../base/json.js";
import { synthesizeModes } from "./mode.js";
import { buildModelOption, hasModelOption, legacyModels, modelOptionId } from "./models.js";
import { attempt, ok, type Conv } from "./result.js";
import { hasResidual, isSynthetic, residualOf, Stash, setMeta, unstash, type ConvertOptions } from "./stash.js";

/** A: what the engine needs besides the v1 result. */
export interface ResultToV1<T> {
  readonly result: T;
  /**
   * The v2 `availableCommands` (raw, as the agent sent them), when present: v1 results cannot carry
   * them, so the engine sends a v1 `available_commands_update` right after the result (H §4.1).
   */
  readonly availableCommands: unknown[] | undefined;
}

export interface ResultToV2Context {
  /** B: the session's last known v2 `availableCommands` (e.g. on resume, H §4.4), used when the result has none. */
  readonly availableCommands?: readonly unknown[];
}

/** The carrier-level keys the target version cannot carry are stashed and restored verbatim. */
function resultToV1(
  x: unknown,
  sessionIdRequired: boolean,
  ctx: ToV1Context,
  opts: ConvertOptions,
): Conv<ResultToV1<Obj>> {
  return attempt(() => {
    const acc: Acc = { opts, lost: [] };
    const src = !sessionIdRequired && (x === null || x === undefined) ? {} : expectObject(x, []);
    if (sessionIdRequired) expectString(src.sessionId, ["sessionId"]);
    const { meta, env } = unstash(src._meta, 1);
    const stash = new Stash(2, opts);
    const out: Obj = omit(src, "availableCommands", "_meta");

    let availableCommands: unknown[] | undefined;
    if (isSynthetic(env, SN.availableCommands)) {
      // B filled it from its cache: the v1 agent never put it in this result.
    } else if (Object.hasOwn(src, "availableCommands")) {
      // v2 receivers read `null` as omitted.
      if (src.availableCommands !== null) availableCommands = expectArray(src.availableCommands, ["availableCommands"]);
      stash.keep(RK.availableCommands, src.availableCommands);
      acc.lost.push({
        path: ["availableCommands"],
        reason: "v1 results have no availableCommands (sent as available_commands_update)",
      });
    }

    let modeOption: Obj | undefined;
    if (src.configOptions !== undefined && src.configOptions !== null) {
      const r = listToV1(src.configOptions, ["configOptions"], ctx, acc);
      out.configOptions = r.options;
      if (r.omitted.length > 0) stash.keep(RK.omittedConfigOptions, r.omitted);
      modeOption = r.modeOption;
    }

    // modes: a B bridge's stash wins (its agent's own modes, or none at all), then its synthetic
    // option, then the agent's mode option.
    const modes = hasResidual(env, RK.modes)
      ? residualOf(env, RK.modes)
      : isSynthetic(env, SN.modes)
        ? undefined
        : synthesizeModes(modeOption ? [modeOption] : src.configOptions, ["configOptions"], opts);
    if (modes !== undefined) {
      if (has(src, "modes")) {
        // A v2 agent's own (unknown to v2) `modes` key, overwritten here.
        stash.keep(RK.modes, src.modes);
        acc.lost.push({ path: ["modes"], reason: "modes are derived from the mode config option" });
      }
      out.modes = modes;
    }

    // A B bridge's agent sent legacy `models` (shown to v2 as the option dropped above).
    if (hasResidual(env, RK.models)) out.models = residualOf(env, RK.models);
    if (hasResidual(env, RK.configOptions)) out.configOptions = residualOf(env, RK.configOptions);
    else if (isSynthetic(env, SN.configOptions) && Array.isArray(out.configOptions) && out.configOptions.length === 0)
      delete out.configOptions;

    return ok({ result: setMeta(out, stash.into(meta)), availableCommands }, acc.lost);
  });
}

function resultToV2(x: unknown, sessionIdRequired: boolean, ctx: ResultToV2Context, opts: ConvertOptions): Conv<Obj> {
  return attempt(() => {
    const acc: Acc = { opts, lost: [] };
    const src = !sessionIdRequired && (x === null || x === undefined) ? {} : expectObject(x, []);
    // Copied as it is: both versions require the new session's id.
    if (sessionIdRequired) expectString(src.sessionId, ["sessionId"]);
    const { meta, env } = unstash(src._meta, 2);
    const stash = new Stash(1, opts);
    const out: Obj = omit(src, "modes", "_meta");

    const rawList = src.configOptions;
    // Legacy `models` (earlier unstable SDKs): a synthetic model option, after the mode option.
    const models = rawList !== null && !hasModelOption(rawList) ? legacyModels(src.models) : undefined;
    if (models !== undefined) {
      delete out.models;
      stash.keep(RK.models, src.models);
      acc.lost.push({ path: ["models"], reason: "legacy models are shown as a model config option" });
    }
    let list: Obj[] | undefined;
    if (rawList === null) {
      // v2 lists are never null (H §5.1).
      delete out.configOptions;
      stash.keep(RK.configOptions, null);
      acc.lost.push({ path: ["configOptions"], reason: "configOptions: null is omitted in v2" });
    } else if (rawList !== undefined) {
      list = listToV2(rawList, ["configOptions"], residualOf(env, RK.omittedConfigOptions), acc);
    }

    let modeAdded = false;
    if (!has(src, "modes") && agentModeOptionIndex(rawList) !== undefined) {
      // An A bridge would derive modes from the agent's mode option: the agent sent none.
      stash.invented(SN.modes);
      acc.lost.push({ path: ["modes"], reason: "no modes beside a mode config option" });
    } else if (has(src, "modes")) {
      const modes = src.modes;
      switch (modesRole(modes, rawList)) {
        case "bridge": // an A bridge's synthesis (H §5.2): the v2 agent never had it
        case "absent":
          break;
        case "dual": {
          // The agent also has a mode option: bind to it; v1 peers get `modes` back from the stash.
          stash.keep(RK.modes, modes);
          const plain = synthesizeModes(list, ["configOptions"], withMembers(opts, { stash: "off" }));
          if (!jsonEqual(plain, modes)) acc.lost.push({ path: ["modes"], reason: "modes beside a mode config option" });
          break;
        }
        case "unusable":
          stash.keep(RK.modes, modes);
          acc.lost.push({ path: ["modes"], reason: "no modes to show as a config option" });
          break;
        case "option": {
          const option = buildModeOption(modes as Obj, syntheticModeOptionId(rawList), ["modes"], acc);
          if (rawList === undefined) stash.invented(SN.configOptions);
          if (rawList !== null)
            acc.lost.push({ path: ["configOptions"], reason: "the mode option is added to the list" });
          list = [option, ...(list ?? [])];
          modeAdded = true;
          break;
        }
      }
    }
    if (models !== undefined) {
      const option = buildModelOption(models, modelOptionId(rawList), opts);
      if (rawList === undefined && !modeAdded) stash.invented(SN.configOptions);
      const rest = list ?? [];
      list = modeAdded ? [...rest.slice(0, 1), option, ...rest.slice(1)] : [option, ...rest];
    }
    if (list !== undefined) out.configOptions = list;

    if (hasResidual(env, RK.availableCommands)) {
      out.availableCommands = residualOf(env, RK.availableCommands);
    } else if (ctx.availableCommands !== undefined && !has(src, "availableCommands")) {
      // From B's cache, not from this result: marked so a chained A bridge does not announce it again.
      out.availableCommands = [...ctx.availableCommands];
      stash.invented(SN.availableCommands);
    }
    if (hasResidual(env, RK.modes)) out.modes = residualOf(env, RK.modes);

    return ok(setMeta(out, stash.into(meta)), acc.lost);
  });
}

function typed<T>(r: Conv<ResultToV1<Obj>>): Conv<ResultToV1<T>> {
  return r as Conv<ResultToV1<T>>;
}

/** A: v2 `session/new` result → v1 (H §4.1). */
export function newSessionResponseToV1(
  res: unknown,
  ctx: ToV1Context,
  opts: ConvertOptions,
): Conv<ResultToV1<v1.NewSessionResponse>> {
  return typed(resultToV1(res, true, ctx, opts));
}

/** A: v2 `session/resume` result (sent for a v1 `session/load`) → v1 `LoadSessionResponse` (H §4.3). */
export function resumeResultToLoadResponse(
  res: unknown,
  ctx: ToV1Context,
  opts: ConvertOptions,
): Conv<ResultToV1<v1.LoadSessionResponse>> {
  return typed(resultToV1(res, false, ctx, opts));
}

/** A: v2 `session/resume` result → v1 (H §4.4). */
export function resumeSessionResponseToV1(
  res: unknown,
  ctx: ToV1Context,
  opts: ConvertOptions,
): Conv<ResultToV1<v1.ResumeSessionResponse>> {
  return typed(resultToV1(res, false, ctx, opts));
}

/** A: v2 `session/fork` result → v1 (unstable, H §4.9). */
export function forkSessionResponseToV1(
  res: unknown,
  ctx: ToV1Context,
  opts: ConvertOptions,
): Conv<ResultToV1<v1u.ForkSessionResponse>> {
  return typed(resultToV1(res, true, ctx, opts));
}

/** B: v1 `session/new` result → v2 (H §4.1). Keep `agentConfigFromResult(res)` as the session's mode state. */
export function newSessionResponseToV2(
  res: unknown,
  ctx: ResultToV2Context,
  opts: ConvertOptions,
): Conv<v2.NewSessionResponse> {
  return resultToV2(res, true, ctx, opts) as Conv<v2.NewSessionResponse>;
}

/** B: v1 `session/load` result (for a v2 resume with replay) → v2 `ResumeSessionResponse` (H §4.4, §2.3). */
export function loadResponseToResumeResult(
  res: unknown,
  ctx: ResultToV2Context,
  opts: ConvertOptions,
): Conv<v2.ResumeSessionResponse> {
  return resultToV2(res, false, ctx, opts);
}

/** B: v1 `session/resume` result → v2 (H §4.4). */
export function resumeSessionResponseToV2(
  res: unknown,
  ctx: ResultToV2Context,
  opts: ConvertOptions,
): Conv<v2.ResumeSessionResponse> {
  return resultToV2(res, false, ctx, opts);
}

/** B: v1 `session/fork` result → v2 (unstable, H §4.9). */
export function forkSessionResponseToV2(
  res: unknown,
  ctx: ResultToV2Context,
  opts: ConvertOptions,
): Conv<v2u.ForkSessionResponse> {
  return resultToV2(res, true, ctx, opts) as Conv<v2u.ForkSessionResponse>;
}
