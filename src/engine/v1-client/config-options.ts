// Direction A's session settings: `session/set_config_option`, and v1's `session/set_mode` and
// legacy `session/set_model`, both through the v2 agent's `session/set_config_option` (H §5.3).
import { isObject, type Obj } from "../../base/json.js";
import {
  currentModeUpdateFor,
  modeBinding,
  optionsChangedBeyondMode,
  setConfigOptionResponseToSetModeResponse,
  setModeToSetConfigOption,
} from "../../convert/mode.js";
import { setModelToSetConfigOption } from "../../convert/models.js";
import { setConfigOptionRequestToV2, setConfigOptionResponseToV1 } from "../../convert/config-option.js";
import type { RequestMessage } from "../../wire/jsonrpc.js";
import { noSessionId, NOTHING, rejected, type Outgoing } from "../outgoing.js";
import { failedConv, malformed } from "../translating.js";
import { clientUpdate, updateToV1 } from "./updates/index.js";
import type { EngineA } from "./context.js";
import { noteLost, resultKind } from "../observer.js";

/** A v1 `current_mode_update` (the client just set the mode itself: no echo of it). */
function isModeUpdate(o: Outgoing): boolean {
  return (
    o.kind === "notify" &&
    isObject(o.params) &&
    isObject(o.params.update) &&
    o.params.update.sessionUpdate === "current_mode_update"
  );
}

export function setMode(a: EngineA, msg: RequestMessage, params: Obj | undefined): readonly Outgoing[] {
  const sessionId = params?.sessionId;
  if (typeof sessionId !== "string") return noSessionId(msg);
  const s = a.session(sessionId);
  const r = setModeToSetConfigOption(params, modeBinding(s.configOptions));
  if (failedConv(r)) return rejected(msg, r.error);
  noteLost(a.config.observer, msg.method, "client", params, r);
  a.down.forward(msg, "session/set_config_option", r.value, (resp) => {
    if (resp.error) return { error: resp.error };
    const res = setConfigOptionResponseToSetModeResponse(resp.result);
    if (failedConv(res)) return { result: {} };
    noteLost(a.config.observer, resultKind(msg.method), "agent", resp.result, res);
    const before = s.configOptions;
    s.configOptions = res.value.configOptions;
    if (!optionsChangedBeyondMode(before, res.value.configOptions)) return { result: res.value.response };
    // Other options changed too: v1 gets them right after the answer, without echoing its own mode.
    const update = { sessionUpdate: "config_option_update", configOptions: res.value.configOptions };
    const after = updateToV1(s, { sessionId, update }, undefined, a.updates).filter((o) => !isModeUpdate(o));
    return { result: res.value.response, after };
  });
  return NOTHING;
}

/** Legacy `session/set_model` (a client given `models` back by a chained B bridge). */
export function setModel(a: EngineA, msg: RequestMessage, params: Obj | undefined): readonly Outgoing[] {
  const sessionId = params?.sessionId;
  if (typeof sessionId !== "string") return noSessionId(msg);
  const s = a.session(sessionId);
  const r = setModelToSetConfigOption(params, s.configOptions);
  if (failedConv(r)) return rejected(msg, r.error);
  noteLost(a.config.observer, msg.method, "client", params, r);
  a.down.forward(msg, "session/set_config_option", r.value, (resp) => {
    if (resp.error) return { error: resp.error };
    const res = setConfigOptionResponseToSetModeResponse(resp.result);
    if (failedConv(res)) return { result: {} };
    noteLost(a.config.observer, resultKind(msg.method), "agent", resp.result, res);
    s.configOptions = res.value.configOptions;
    return { result: res.value.response };
  });
  return NOTHING;
}

export function setConfigOption(a: EngineA, msg: RequestMessage, params: Obj | undefined): readonly Outgoing[] {
  const sessionId = params?.sessionId;
  if (typeof sessionId !== "string") return noSessionId(msg);
  const s = a.session(sessionId);
  const r = setConfigOptionRequestToV2(params, { options: s.configOptions }, a.toAgent);
  if (failedConv(r)) return rejected(msg, r.error);
  noteLost(a.config.observer, msg.method, "client", params, r);
  a.down.forward(msg, "session/set_config_option", r.value, (resp) => {
    if (resp.error) return { error: resp.error };
    const conv = setConfigOptionResponseToV1(resp.result, { booleanOptions: a.clientFlags.booleanOptions }, a.toClient);
    if (failedConv(conv)) return malformed("session/set_config_option", conv.error.data);
    noteLost(a.config.observer, resultKind(msg.method), "agent", resp.result, conv);
    const before = s.configOptions;
    s.configOptions = isObject(resp.result) ? resp.result.configOptions : s.configOptions;
    // The mode may have changed through its option: v1 clients track it through current_mode_update,
    // right after the answer.
    const modeUpdate = currentModeUpdateFor(before, s.configOptions, a.toClient);
    return modeUpdate ? { result: conv.value, after: [clientUpdate(sessionId, modeUpdate)] } : { result: conv.value };
  });
  return NOTHING;
}
