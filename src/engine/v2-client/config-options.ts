// Direction B's `session/set_config_option`: the v1 agent's own config options, or the options
// the bridge shows for what v1 sets otherwise (the synthetic mode option through
// `session/set_mode`, H §5.3; the option standing for legacy `models` through `session/set_model`).
import { isObject, type Obj, withMembers } from "../../base/json.js";
import { setConfigOptionRequestToV1, setConfigOptionResponseToV2 } from "../../convert/config-option.js";
import { modelOptionId, setConfigOptionToSetModel, withCurrentModel } from "../../convert/models.js";
import {
  agentModeBinding,
  setConfigOptionOnSyntheticToSetMode,
  setModeResponseToSetConfigOptionResponse,
  withCurrentMode,
} from "../../convert/mode.js";
import type { RequestMessage } from "../../wire/jsonrpc.js";
import { noSessionId, NOTHING, rejected, type Outgoing } from "../outgoing.js";
import { malformed } from "../translating.js";
import type { EngineB } from "./context.js";
import { noteLost, resultKind } from "../observer.js";

/** The legacy model setter of earlier unstable SDKs (its row in mappings/methods.ts). */
const SET_MODEL = "session/set_model";

export function setConfigOption(b: EngineB, msg: RequestMessage, params: Obj): readonly Outgoing[] {
  const sessionId = params.sessionId;
  if (typeof sessionId !== "string") return noSessionId(msg);
  const s = b.session(sessionId);
  const binding = agentModeBinding(s.config);
  if (binding?.kind === "modes" && params.configId === binding.configId) {
    // The synthetic mode option (H §5.3): a v1 session/set_mode, checked before the agent is asked.
    const r = setConfigOptionOnSyntheticToSetMode(params, s.config);
    if (!r.ok) return rejected(msg, r.error);
    noteLost(b.config.observer, msg.method, "client", params, r);
    const modeId = r.value.modeId;
    b.down.forward(msg, "session/set_mode", r.value, (resp) => {
      if (resp.error) return { error: resp.error };
      s.config = withCurrentMode(s.config, modeId);
      const conv = setModeResponseToSetConfigOptionResponse(resp.result ?? {}, s.config, b.toClient);
      if (!conv.ok) return malformed("session/set_mode", conv.error.data);
      noteLost(b.config.observer, resultKind("session/set_mode"), "agent", resp.result, conv);
      return { result: conv.value };
    });
    return NOTHING;
  }
  const models = s.config.models;
  if (models !== undefined && params.configId === modelOptionId(s.config.configOptions)) {
    // The option standing for legacy `models`: the v1 agent's own `session/set_model`.
    const m = setConfigOptionToSetModel(params, models);
    if (!m.ok) return rejected(msg, m.error);
    noteLost(b.config.observer, msg.method, "client", params, m);
    b.down.forward(msg, SET_MODEL, m.value, (resp) => {
      if (resp.error) return { error: resp.error };
      s.config = withMembers(s.config, { models: withCurrentModel(models, m.value.modelId) });
      const conv = setModeResponseToSetConfigOptionResponse(resp.result ?? {}, s.config, b.toClient);
      if (!conv.ok) return malformed(SET_MODEL, conv.error.data);
      noteLost(b.config.observer, resultKind(SET_MODEL), "agent", resp.result, conv);
      return { result: conv.value };
    });
    return NOTHING;
  }
  const r = setConfigOptionRequestToV1(params);
  if (!r.ok) return rejected(msg, r.error);
  noteLost(b.config.observer, msg.method, "client", params, r);
  b.down.forward(msg, "session/set_config_option", r.value, (resp) => {
    if (resp.error) return { error: resp.error };
    const conv = setConfigOptionResponseToV2(
      resp.result,
      { modes: s.config.modes, models: s.config.models },
      b.toClient,
    );
    if (!conv.ok) return malformed("session/set_config_option", conv.error.data);
    noteLost(b.config.observer, resultKind(msg.method), "agent", resp.result, conv);
    if (isObject(resp.result)) s.config = withMembers(s.config, { configOptions: resp.result.configOptions });
    return { result: conv.value };
  });
  return NOTHING;
}
