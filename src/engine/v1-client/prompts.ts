// Direction A's `session/prompt` and `session/cancel` (T §1.2): the turn itself is followed by the
// session's lifecycle (prompt-lifecycle.ts).
import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { BRIDGE_METHOD_PREFIX } from "../../../mappings/methods.js";
import { isObject, type Obj } from "../../base/json.js";
import { idleToPromptResponse, promptRequestToV2 } from "../../convert/prompt.js";
import type { RequestMessage, RpcError } from "../../wire/jsonrpc.js";
import { answer, noSessionId, NOTHING, notify, rejected, type Outgoing } from "../outgoing.js";
import type { Answer } from "../relay.js";
import { failedConv } from "../translating.js";
import { flushSession } from "./updates/index.js";
import { endTurnTerminals } from "./updates/terminals.js";
import type { EngineA } from "./context.js";
import { isBridgeMade, noteLost, updateKind } from "../observer.js";

export function prompt(a: EngineA, msg: RequestMessage, params: Obj | undefined): readonly Outgoing[] {
  const r = promptRequestToV2((params ?? {}) as v1.PromptRequest, a.toAgent);
  if (failedConv(r)) return rejected(msg, r.error);
  noteLost(a.config.observer, msg.method, "client", params, r);
  const sessionId = params?.sessionId;
  if (typeof sessionId !== "string") return noSessionId(msg);
  const s = a.session(sessionId);
  const entry = a.down.local(msg);
  // The turn's last updates and terminal exits, then the answer.
  const finish = (answered: Answer): readonly Outgoing[] => [
    ...flushSession(s, a.updates),
    ...endTurnTerminals(s, a.updates),
    answer("client", entry, answered),
  ];
  const handle = {
    answerIdle: (idle: v2.IdleStateUpdate, cancelRequested: boolean) => {
      const out = idleToPromptResponse(idle, { cancelRequested }, a.toClient);
      if (failedConv(out)) return finish({ result: { stopReason: cancelRequested ? "cancelled" : "end_turn" } });
      noteLost(a.config.observer, updateKind("state_update"), "agent", idle, out);
      const v = out.value;
      return finish("error" in v ? { error: v.error } : { result: v.result });
    },
    answerError: (error: RpcError, relayed = false) => finish({ error, relayed: relayed && !bridgeMadeAnswer }),
    answerCancelled: () => finish({ result: { stopReason: "cancelled" } }),
  };
  /** The answer being handled is the bridge's own (the agent left): its error is not the agent's. */
  let bridgeMadeAnswer = false;
  const outboundId = a.agent.request("session/prompt", r.value, (resp) => {
    bridgeMadeAnswer = isBridgeMade(resp);
    const out = s.lifecycle.answered(outboundId, resp.result, resp.error);
    if (!resp.error && a.clientFlags.bridgePeer) {
      const messageId = isObject(resp.result) ? resp.result.messageId : undefined;
      const accepted = { sessionId, requestId: msg.id, messageId };
      a.write([...out, notify("client", `${BRIDGE_METHOD_PREFIX}prompt_accepted`, accepted)]);
    } else a.write(out);
  });
  // $/cancel_request on a prompt (T §1.2-6): cancel the turn, withdraw it if not inserted yet.
  entry.onCancel = () => {
    const state = s.lifecycle.cancelOne(outboundId);
    if (!state.found) return;
    const cancel = notify("agent", "session/cancel", { sessionId });
    a.write(state.acked ? [cancel] : [cancel, notify("agent", "$/cancel_request", { requestId: outboundId })]);
  };
  s.lifecycle.sent(handle, outboundId, r.value.prompt);
  return NOTHING;
}

export function cancelSession(a: EngineA, params: Obj | undefined): readonly Outgoing[] {
  const sessionId = params?.sessionId;
  if (typeof sessionId === "string") a.known(sessionId)?.lifecycle.cancelAll();
  return [notify("agent", "session/cancel", params ?? {})];
}
