// Direction A's session lifecycle requests: `session/new`, `session/load` (through the v2 agent's
// `session/resume`, H §4.4), `session/resume`, `session/fork`, `session/list`, `session/close` and
// `session/delete`.
import type * as v1 from "@agentclientprotocol/sdk";
import { ErrorCodes } from "../../base/errors.js";
import { isObject, isString, type Obj, withMembers } from "../../base/json.js";
import type { Conv } from "../../convert/result.js";
import {
  listSessionsRequestToV2,
  listSessionsResponseToV1,
  loadSessionRequestToV2,
  newSessionRequestToV2,
  resumeSessionRequestToV2,
  forkSessionRequestToV2,
} from "../../convert/session.js";
import {
  forkSessionResponseToV1,
  newSessionResponseToV1,
  resumeResultToLoadResponse,
  resumeSessionResponseToV1,
  type ResultToV1,
} from "../../convert/session-result.js";
import { filterSessionsByDirectories } from "../../convert/directories.js";
import { Stash } from "../../convert/stash.js";
import { syntheticNames as SN } from "../../../mappings/config-option.js";
import type { RequestMessage, ResponseMessage } from "../../wire/jsonrpc.js";
import { noSessionId, NOTHING, rejected, type Outgoing } from "../outgoing.js";
import { relayedIf, type Answer } from "../relay.js";
import { failedConv, malformed, objectResult } from "../translating.js";
import { flushSession, updateToV1 } from "./updates/index.js";
import { reshowToolCall } from "./updates/tool-calls.js";
import { editorTerminalCreated } from "./editor.js";
import { contained } from "../barrier.js";
import { noteLost, resultKind } from "../observer.js";
import type { EditorSession } from "../../editor/host.js";
import type { EngineA } from "./context.js";

export function lifecycle(
  a: EngineA,
  msg: RequestMessage,
  params: Obj | undefined,
  kind: "new" | "load" | "resume" | "fork",
): readonly Outgoing[] {
  const raw = params ?? {};
  // The converters validate `additionalDirectories` on these raw params first (H §4.10).
  const ctx = {
    ...a.toAgent,
    agentMcp: a.agentFlags.mcp,
    onUnsupported: a.config.mcpUnsupported,
    agentSupportsDirectories: a.agentFlags.additionalDirectories,
    platform: a.config.platform,
  };
  const converted: Conv<{ params: unknown; droppedMcpServers: readonly { name: string }[] }> =
    kind === "new"
      ? newSessionRequestToV2(raw as v1.NewSessionRequest, ctx)
      : kind === "load"
        ? loadSessionRequestToV2(raw as v1.LoadSessionRequest, ctx)
        : kind === "resume"
          ? resumeSessionRequestToV2(raw as v1.ResumeSessionRequest, ctx)
          : forkSessionRequestToV2(raw as never, ctx);
  if (failedConv(converted)) return rejected(msg, converted.error);
  noteLost(a.config.observer, msg.method, "client", raw, converted);
  const { params: out, droppedMcpServers } = converted.value;
  for (const d of droppedMcpServers)
    a.config.log.warn(`dropped MCP server '${d.name}': the agent does not support its transport`, d);
  const method = kind === "load" || kind === "resume" ? "session/resume" : `session/${kind}`;
  const existing = typeof raw.sessionId === "string" && kind !== "fork" ? a.session(raw.sessionId) : undefined;
  if (existing) {
    if (kind === "load") existing.resetForReplay();
    existing.lifecycle.resumeStarted();
  }
  const entry = a.down.local(msg);
  const send = (editor: EditorSession | undefined): void => {
    entry.outboundId = a.agent.request(method, editor ? withServer(out, editor.declaration) : out, (resp) => {
      // A turn the reload found ended is answered first (T §1.2-8), whatever becomes of the request.
      if (existing) a.write(existing.lifecycle.resumeEnded(!resp.error));
      if (entry.answered) return editor?.close();
      a.down.reply(entry, relayedIf(resp, lifecycleAnswer(a, raw, kind, method, resp, editor)));
    });
  };
  // The editor's MCP server (H §6.5) is declared with the request: it listens before the agent learns of it.
  if (a.editor === undefined) send(undefined);
  else void a.editor.open(raw).then((editor) => contained(a.config.log, `the ${method} request`, () => send(editor))());
  return NOTHING;
}

/** The converted params with the editor's server after the client's own (H §6.5). */
function withServer(params: unknown, declaration: Obj): unknown {
  if (!isObject(params)) return params;
  const servers: unknown[] = Array.isArray(params.mcpServers) ? params.mcpServers : [];
  return withMembers(params, { mcpServers: [...servers, declaration] });
}

/** The client's answer to a session lifecycle request, and the update v1 gets after it. */
function lifecycleAnswer(
  a: EngineA,
  raw: Obj,
  kind: "new" | "load" | "resume" | "fork",
  method: string,
  resp: ResponseMessage,
  editor?: EditorSession,
): Answer {
  // The editor's server lives as long as the session it was declared for (H §6.5).
  const answer = lifecycleAnswerFor(a, raw, kind, method, resp, editor);
  if (editor && !editor.attached) editor.close();
  return answer;
}

function lifecycleAnswerFor(
  a: EngineA,
  raw: Obj,
  kind: "new" | "load" | "resume" | "fork",
  method: string,
  resp: ResponseMessage,
  editor: EditorSession | undefined,
): Answer {
  if (resp.error) return { error: resp.error };
  const ctx1 = { booleanOptions: a.clientFlags.booleanOptions };
  const r: Conv<ResultToV1<unknown>> =
    kind === "new"
      ? newSessionResponseToV1(resp.result, ctx1, a.toClient)
      : kind === "load"
        ? resumeResultToLoadResponse(resp.result, ctx1, a.toClient)
        : kind === "resume"
          ? resumeSessionResponseToV1(resp.result, ctx1, a.toClient)
          : forkSessionResponseToV1(resp.result, ctx1, a.toClient);
  if (failedConv(r)) {
    a.config.log.warn(`the agent's ${method} result is malformed`, r.error.data);
    return malformed(method, r.error.data);
  }
  noteLost(a.config.observer, resultKind(`session/${kind}`), "agent", resp.result, r);
  const result = r.value.result;
  const sessionId =
    isObject(result) && typeof result.sessionId === "string"
      ? result.sessionId
      : typeof raw.sessionId === "string"
        ? raw.sessionId
        : undefined;
  const s = sessionId !== undefined ? a.session(sessionId) : undefined;
  if (!s) return { result };
  s.closed = false;
  if (editor) {
    s.attachEditor(editor);
    editor.onTerminal = (t) =>
      contained(a.config.log, "showing an editor terminal", () =>
        a.write(editorTerminalCreated(s, t, (id) => reshowToolCall(s, id, a.updates))),
      )();
  }
  s.configOptions = isObject(resp.result) ? resp.result.configOptions : undefined;
  s.cwd = typeof raw.cwd === "string" ? raw.cwd : s.cwd;
  // Validated by the request's converter: strings only.
  s.roots = Array.isArray(raw.additionalDirectories) ? raw.additionalDirectories.filter(isString) : [];
  const commands = r.value.availableCommands;
  if (commands === undefined) return { result };
  // v1 results cannot carry them: a follow-up notification (H §4.1). Marked as invented (stash
  // on), so a chained B bridge, whose client has the list in its result, drops it.
  const params: Obj = {
    sessionId: s.sessionId,
    update: { sessionUpdate: "available_commands_update", availableCommands: commands },
  };
  if (a.toClient.stash !== "off") params._meta = new Stash(2, a.toClient).invented(SN.commandsFollowUp).into(undefined);
  return { result, after: updateToV1(s, params, undefined, a.updates) };
}

export function list(a: EngineA, msg: RequestMessage, params: Obj | undefined): readonly Outgoing[] {
  const ctx = {
    ...a.toAgent,
    platform: a.config.platform,
    agentSupportsDirectories: a.agentFlags.additionalDirectories,
  };
  const r = listSessionsRequestToV2(params ?? {}, ctx);
  if (failedConv(r)) return rejected(msg, r.error);
  noteLost(a.config.observer, "session/list", "client", params, r);
  const { params: out, directoriesFilter: filter } = r.value;
  a.down.forward(msg, "session/list", out, (resp) => {
    if (resp.error) return { error: resp.error };
    const conv = listSessionsResponseToV1(resp.result, a.toClient);
    if (failedConv(conv)) return malformed("session/list", conv.error.data);
    noteLost(a.config.observer, resultKind("session/list"), "agent", resp.result, conv);
    const result = conv.value;
    if (filter !== undefined && Array.isArray(result.sessions))
      result.sessions = filterSessionsByDirectories(result.sessions, filter);
    return { result };
  });
  return NOTHING;
}

export function closeOrDelete(a: EngineA, msg: RequestMessage, params: Obj | undefined): readonly Outgoing[] {
  const sessionId = params?.sessionId;
  if (typeof sessionId !== "string") return noSessionId(msg);
  a.down.forward(msg, msg.method, params, (resp) => {
    const s = a.known(sessionId);
    // Clients treat -32002 on close/delete as success; either way the session is over for us.
    if (s && (!resp.error || resp.error.code === ErrorCodes.resourceNotFound)) {
      // What the session still owes the client goes before the answer: its updates, its prompts' answers.
      a.write([...flushSession(s, a.updates), ...s.lifecycle.closed()]);
      s.closed = true;
      s.dispose();
    }
    return objectResult(resp);
  });
  return NOTHING;
}
