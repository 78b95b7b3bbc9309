// Direction A's agent requests toward the v1 client: `session/request_permission` (the tool calls
// it is about shown first, T §4) and `elicitation/create`.
import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { diffFiles } from "../files.js";
import { rpcErrors } from "../../base/errors.js";
import { elicitationRequestToV1, elicitationResponseToV2 } from "../../convert/elicitation.js";
import { isObject, type Obj } from "../../base/json.js";
import { finalizeSyntheticToolCall, permissionRequestToV1, permissionResponseToV2 } from "../../convert/permission.js";
import type { RequestMessage } from "../../wire/jsonrpc.js";
import { answer, fail, NOTHING, type Outgoing } from "../outgoing.js";
import type { Inbound } from "../relay.js";
import { failedConv } from "../translating.js";
import { clientUpdate, flushSession } from "./updates/index.js";
import { permissionTerminalItem } from "./updates/terminals.js";
import { claimed, isAnnounced, markAnnounced } from "./updates/tool-calls.js";
import type { EngineA } from "./context.js";
import { noteLost, resultKind } from "../observer.js";

/** A permission option as finalizing a synthetic tool call reads it. */
function isOption(x: unknown): x is { optionId: string; kind: string } {
  return isObject(x) && typeof x.optionId === "string" && typeof x.kind === "string";
}

/** A permission request's `tool_call` subject with its id, when it has one. */
function subjectToolCall(subject: unknown): { toolCall: Obj; id: string } | undefined {
  if (!isObject(subject) || subject.type !== "tool_call" || !isObject(subject.toolCall)) return undefined;
  const id = subject.toolCall.toolCallId;
  return typeof id === "string" ? { toolCall: subject.toolCall, id } : undefined;
}

export function permission(a: EngineA, msg: RequestMessage, params: Obj | undefined): readonly Outgoing[] {
  const sessionId = params?.sessionId;
  if (!params || typeof sessionId !== "string")
    return [fail("agent", msg.id, rpcErrors.invalidParams({ field: "sessionId", reason: "not_string" }))];
  const s = a.session(sessionId);
  const flushed = flushSession(s, a.updates);
  const subject = subjectToolCall(params.subject);
  // A tool_call subject is the agent reporting that tool call: it replaces one the bridge invented.
  if (subject) claimed(s, subject.id);
  const r = permissionRequestToV1(params as v2.RequestPermissionRequest, {
    opts: a.toClient,
    v2RequestId: msg.id as v2.RequestId,
    isAnnounced: (id) => isAnnounced(s, id),
    diffRendering: a.config.diffRendering,
    files: subject
      ? diffFiles(subject.toolCall.content, 2, a.updates.diffFileMaxBytes ?? 0, undefined, a.config.observer)
      : undefined,
    renderTerminal: (terminalId) => permissionTerminalItem(s, terminalId, a.updates),
  });
  if (failedConv(r)) return [...flushed, fail("agent", msg.id, r.error)];
  noteLost(a.config.observer, msg.method, "agent", params, r);
  const v = r.value;
  if (v.kind === "cancel") {
    a.config.observer?.emulated(msg.method, "answered cancelled: v1 cannot show the request");
    return [...flushed, answer("agent", a.up.local(msg), { result: v.response })];
  }
  const shown: Outgoing[] = [...flushed];
  for (const u of v.before) {
    markAnnounced(s, u.toolCallId, u, v.syntheticToolCallId === u.toolCallId);
    shown.push(clientUpdate(sessionId, u));
  }
  if (subject) markAnnounced(s, subject.id, subject.toolCall, false);
  const options = Array.isArray(params.options) ? params.options.filter(isOption) : [];
  // The client sees the tool calls the request is about before the request itself.
  a.write(shown);
  a.up.forward(msg, "session/request_permission", v.params, (resp) => {
    if (v.syntheticToolCallId !== undefined) {
      const tc = s.toolCalls.peek(v.syntheticToolCallId);
      if (tc?.synthetic) {
        const outcome = isObject(resp.result) ? (resp.result.outcome as v1.RequestPermissionOutcome) : undefined;
        const final = finalizeSyntheticToolCall(v.syntheticToolCallId, outcome, options, a.toClient);
        a.write([clientUpdate(sessionId, final)]);
      }
    }
    if (resp.error) return { error: resp.error };
    const conv = permissionResponseToV2(resp.result as v1.RequestPermissionResponse);
    if (failedConv(conv)) return { result: { outcome: { outcome: "cancelled" } } };
    noteLost(a.config.observer, resultKind(msg.method), "client", resp.result, conv);
    return { result: conv.value };
  });
  return NOTHING;
}

export function elicitation(a: EngineA, msg: RequestMessage, params: Obj | undefined): readonly Outgoing[] {
  const r = elicitationRequestToV1(params as v2.CreateElicitationRequest, {
    opts: a.toClient,
    requestIdToV1: (id) => {
      const entry = a.down.inbound.all().find((e: Inbound) => e.outboundId === id);
      return entry?.id;
    },
  });
  if (failedConv(r)) return [fail("agent", msg.id, r.error)];
  noteLost(a.config.observer, msg.method, "agent", params, r);
  a.up.forward(msg, "elicitation/create", r.value, (resp) => {
    if (resp.error) return { error: resp.error };
    const conv = elicitationResponseToV2(resp.result as v1.CreateElicitationResponse);
    if (failedConv(conv)) return { result: { action: "cancel" } };
    noteLost(a.config.observer, resultKind(msg.method), "client", resp.result, conv);
    return { result: conv.value };
  });
  return NOTHING;
}
