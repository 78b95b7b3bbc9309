// Direction B's `session/prompt` and `session/cancel` (T §1.4, §5.5): the turn itself is run by
// the session's strategy (turns.ts, peer.ts) and its lifecycle (prompt-lifecycle.ts).
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import type { Obj } from "../../base/json.js";
import { promptRequestToV1 } from "../../convert/prompt.js";
import type { RequestMessage } from "../../wire/jsonrpc.js";
import { noSessionId, notify, rejected, type Outgoing } from "../outgoing.js";
import type { EngineB } from "./context.js";
import { noteLost } from "../observer.js";

export function prompt(b: EngineB, msg: RequestMessage, params: Obj): readonly Outgoing[] {
  const sessionId = params.sessionId;
  if (typeof sessionId !== "string") return noSessionId(msg);
  const r = promptRequestToV1(params as v2.PromptRequest, b.toAgent);
  if (!r.ok) return rejected(msg, r.error);
  noteLost(b.config.observer, msg.method, "client", params, r);
  const s = b.session(sessionId);
  return b.turns.prompt(s, b.down.local(msg), r.value);
}

/** v2 `session/cancel` (T §1.4-7): forwarded, and the session's turn is cancelled. */
export function cancel(b: EngineB, params: Obj): readonly Outgoing[] {
  const forwarded = notify("agent", "session/cancel", params);
  const s = b.known(params.sessionId);
  return s ? [forwarded, ...s.prompts.cancel()] : [forwarded];
}
