// Direction B's session lifecycle requests the v1 agent has itself: `session/new` and
// `session/fork` (a session starts; its parameters and modes are recorded), `session/delete`,
// `session/status` and the session-scoped requests forwarded unchanged. What a v1 agent lacks
// (resume, list, close) is emulated (emulation.ts).
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { isObject, type Obj, withMembers } from "../../base/json.js";
import { agentConfigFromResult } from "../../convert/mode.js";
import { forkSessionRequestToV1, newSessionRequestToV1 } from "../../convert/session.js";
import { forkSessionResponseToV2, newSessionResponseToV2 } from "../../convert/session-result.js";
import type { RequestMessage } from "../../wire/jsonrpc.js";
import { NOTHING, rejected, type Outgoing } from "../outgoing.js";
import { malformed, objectResult } from "../translating.js";
import { mcp, roots, type EngineB } from "./context.js";
import { noteLost, resultKind } from "../observer.js";

/** `session/new` and `session/fork`: a session starts; its parameters and modes are recorded. */
export function create(b: EngineB, msg: RequestMessage, params: Obj, kind: "new" | "fork"): readonly Outgoing[] {
  const ctx = withMembers(b.toAgent, { ...roots(b), ...mcp(b) });
  const r =
    kind === "new"
      ? newSessionRequestToV1(params as v2.NewSessionRequest, ctx)
      : forkSessionRequestToV1(params as never, ctx);
  if (!r.ok) return rejected(msg, r.error);
  noteLost(b.config.observer, msg.method, "client", params, r);
  const method = `session/${kind}`;
  b.down.forward(msg, method, r.value, (resp) => {
    if (resp.error) return { error: resp.error };
    const conv =
      kind === "new"
        ? newSessionResponseToV2(resp.result, {}, b.toClient)
        : forkSessionResponseToV2(resp.result, {}, b.toClient);
    if (!conv.ok) return malformed(method, conv.error.data);
    noteLost(b.config.observer, resultKind(method), "agent", resp.result, conv);
    const sessionId = conv.value.sessionId;
    if (typeof sessionId === "string") {
      const s = b.session(sessionId);
      s.record(params);
      s.config = agentConfigFromResult(resp.result);
      s.rememberCommands(conv.value);
    }
    return { result: conv.value };
  });
  return NOTHING;
}

export function deleteSession(b: EngineB, msg: RequestMessage, params: Obj): void {
  const sessionId = typeof params.sessionId === "string" ? params.sessionId : undefined;
  b.down.forward(msg, msg.method, params, (resp) => {
    if (!resp.error && sessionId !== undefined) b.forget(sessionId);
    // A -32002 names the session, as v2 requires (H §7.1).
    return resp.error ? { error: b.errorForClient(resp.error, sessionId) } : objectResult(resp);
  });
}

/** Forwarded unchanged; a -32002 names the session, as v2 requires (H §7.1). */
export function sessionScoped(b: EngineB, msg: RequestMessage, params: Obj): void {
  const sessionId = typeof params.sessionId === "string" ? params.sessionId : undefined;
  b.down.forward(msg, msg.method, params, (resp) =>
    resp.error ? { error: b.errorForClient(resp.error, sessionId) } : objectResult(resp),
  );
}

/** v1 has no foreground state: an `open` session this bridge runs gets its own view (T §1.4). */
export function status(b: EngineB, msg: RequestMessage, params: Obj): void {
  const sessionId = typeof params.sessionId === "string" ? params.sessionId : undefined;
  b.down.forward(msg, msg.method, params, (resp) => {
    if (resp.error) return { error: b.errorForClient(resp.error, sessionId) };
    if (!isObject(resp.result)) return malformed(msg.method, resp.result);
    // Both versions require the status: v2 must not get an answer without one.
    if (typeof resp.result.status !== "string") return malformed(msg.method, { field: "status", reason: "not_string" });
    const s = b.known(sessionId);
    const state = s && !s.closed ? b.turns.state(s) : undefined;
    if (state === undefined || resp.result.status !== "open" || isObject(resp.result.state))
      return { result: resp.result };
    return { result: withMembers(resp.result, { state: { state } }) };
  });
}
