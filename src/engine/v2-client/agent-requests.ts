// Direction B, the v1 agent's requests that block a turn (T §4, §5.1): permission requests and
// elicitations, relayed to the v2 client with `requires_action` before and `running` after
// (T §1.4-4); after a cancel the bridge answers the agent itself (T §1.4-7).
import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { elicitationRequestToV2, elicitationResponseToV1 } from "../../convert/elicitation.js";
import { ErrorCodes } from "../../base/errors.js";
import { isObject, type Obj, copyMembers } from "../../base/json.js";
import { permissionRequestToV2, permissionResponseToV1 } from "../../convert/permission.js";
import { isSynthetic, unstash } from "../../convert/stash.js";
import type { RequestMessage, ResponseMessage } from "../../wire/jsonrpc.js";
import { answer, fail, NOTHING, type Outgoing } from "../outgoing.js";
import type { Answer, Inbound } from "../relay.js";
import type { EngineB } from "./context.js";
import { noteLost, resultKind } from "../observer.js";
import type { SessionB } from "./session.js";
import { boundary, clientUpdate } from "./updates/index.js";
import { diffFilesOfV1 } from "./updates/tool-calls.js";

/** What a v1 agent is answered for a request cancelled with its turn. */
const permissionCancelled = () => ({ outcome: { outcome: "cancelled" } });
const elicitationCancelled = () => ({ action: "cancel" });

/**
 * Relay a request that blocks the turn: `before` (and `requires_action`) reach the client first,
 * and `running` goes out before the client's answer is relayed (T §1.4-4).
 */
function relay(
  b: EngineB,
  s: SessionB | undefined,
  msg: RequestMessage,
  before: readonly Outgoing[],
  params: unknown,
  onCancel: () => unknown,
  map: (resp: ResponseMessage) => Answer,
): void {
  b.write([...before, ...(s ? b.turns.willBlock(s) : NOTHING)]);
  let release: () => readonly Outgoing[] = () => NOTHING;
  const entry: Inbound = b.up.forward(msg, msg.method, params, (resp) => {
    b.write(release());
    // After a cancel, an error (e.g. -32800) means cancelled to a v1 agent.
    if (resp.error && (s?.prompts.cancelRequested === true || resp.error.code === ErrorCodes.requestCancelled))
      return { result: onCancel() };
    if (resp.error) return { error: resp.error };
    return map(resp);
  });
  if (s) release = b.turns.blocking(s, entry, onCancel());
}

export function permission(b: EngineB, msg: RequestMessage, params: Obj, s: SessionB | undefined): readonly Outgoing[] {
  const out: Outgoing[] = s ? [...boundary(s)] : [];
  const r = permissionRequestToV2(params as v1.RequestPermissionRequest, {
    opts: b.toClient,
    seen: (id) => s?.tools.peek(id) !== undefined,
    lastTitle: (id) => s?.tools.peek(id)?.title,
    lastKind: (id) => s?.tools.peek(id)?.kind,
    ...(typeof s?.params.cwd === "string" ? { cwd: s.params.cwd } : {}),
    files: diffFilesOfV1(params.toolCall, s, b.updates),
    extensionTerminals: s?.terminals,
  });
  if (!r.ok) return [...out, fail("agent", msg.id, r.error)];
  noteLost(b.config.observer, msg.method, "agent", params, r);
  const v = r.value;
  if (v.kind !== "prompt") {
    b.config.log.warn("answered a permission request without options as cancelled: v2 needs at least one option");
    b.config.observer?.emulated(msg.method, "answered cancelled: v2 needs at least one option");
    return [...out, answer("agent", b.up.local(msg), { result: v.response })];
  }
  if (s) out.push(...v.before.map((u) => clientUpdate(s.sessionId, u)));
  // The request's tool call is applied like a tool_call_update (T §4 B↓-1): it is seen now, and
  // what it says is the tool's latest title and kind.
  const tc = isObject(params.toolCall) ? params.toolCall : undefined;
  // A chained A's stand-in for a subject that is no tool call: the v2 client never sees that tool call.
  const standIn = isSynthetic(unstash(params._meta, 2).env, "toolCall");
  if (s && tc && typeof tc.toolCallId === "string" && !standIn) {
    const seen = copyMembers(s.tools.peek(tc.toolCallId));
    if (typeof tc.title === "string") seen.title = tc.title;
    if (typeof tc.kind === "string") seen.kind = tc.kind;
    s.tools.set(tc.toolCallId, seen);
  }
  relay(b, s, msg, out, v.params, permissionCancelled, (resp) => {
    const conv = permissionResponseToV1(resp.result as v2.RequestPermissionResponse, b.toAgent);
    noteLost(b.config.observer, resultKind(msg.method), "client", resp.result, conv);
    return { result: conv.ok ? conv.value : permissionCancelled() };
  });
  return NOTHING;
}

export function elicitation(
  b: EngineB,
  msg: RequestMessage,
  params: Obj,
  s: SessionB | undefined,
): readonly Outgoing[] {
  const out = s ? boundary(s) : NOTHING;
  const r = elicitationRequestToV2(params as v1.CreateElicitationRequest, {
    opts: b.toClient,
    requestIdToV2: (id) => {
      for (const sess of b.sessions()) {
        const prompt = sess.prompts.promptSentAs(id);
        if (prompt !== undefined) return { requestId: prompt, ackedPromptOf: sess.sessionId };
      }
      const entry = b.down.inbound.all().find((e) => e.outboundId === id);
      // The client's ids are never null in v2 (checked as they arrive).
      return entry && entry.id !== null ? { requestId: entry.id } : undefined;
    },
  });
  if (!r.ok) return [...out, fail("agent", msg.id, r.error)];
  noteLost(b.config.observer, msg.method, "agent", params, r);
  relay(b, s, msg, out, r.value, elicitationCancelled, (resp) => {
    const conv = elicitationResponseToV1(resp.result as v2.CreateElicitationResponse, b.toAgent);
    noteLost(b.config.observer, resultKind(msg.method), "client", resp.result, conv);
    return { result: conv.ok ? conv.value : elicitationCancelled() };
  });
  return NOTHING;
}
