// Direction A: a v1 client in front of a v2 agent (the main migration case). The bridge is a v1
// agent toward the client and a v2 client toward the agent. Requests are translated by the pure
// converters; this class keeps the state they need (sessions, prompts, tool calls) and routes.
import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { BRIDGE_METHOD_PREFIX, clientRequestsWith, methodRow } from "../../../mappings/methods.js";
import { limits } from "../../../mappings/limits.js";
import type { Platform } from "../../convert/directories.js";
import { renderingReadsFiles } from "../../convert/diff.js";
import type { DiffRendering } from "../../convert/diff-options.js";
import { diffFiles } from "../files.js";
import { agentExitedToV1 } from "../../convert/error.js";
import { ErrorCodes, noSessionSurface, rpcErrors } from "../../base/errors.js";
import { elicitationRequestToV1, elicitationResponseToV2 } from "../../convert/elicitation.js";
import { isObject, isString, type Obj } from "../../base/json.js";
import type { Conv } from "../../convert/result.js";
import type { McpSupport } from "../../convert/mcp.js";
import {
  currentModeUpdateFor,
  modeBinding,
  optionsChangedBeyondMode,
  setConfigOptionResponseToSetModeResponse,
  setModeToSetConfigOption,
} from "../../convert/mode.js";
import { setModelToSetConfigOption } from "../../convert/models.js";
import { finalizeSyntheticToolCall, permissionRequestToV1, permissionResponseToV2 } from "../../convert/permission.js";
import { idleToPromptResponse, promptRequestToV2 } from "../../convert/prompt.js";
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
import { setConfigOptionRequestToV2, setConfigOptionResponseToV1 } from "../../convert/config-option.js";
import { filterSessionsByDirectories } from "../../convert/directories.js";
import { optionsToward, Stash, type ConvertOptions, type StashPolicy } from "../../convert/stash.js";
import { syntheticNames as SN } from "../../../mappings/config-option.js";
import type { Logger } from "../../log.js";
import type { NotificationMessage, RequestMessage, ResponseMessage, RpcError } from "../../wire/jsonrpc.js";
import type { Link } from "../link.js";
import { answer, fail, noSessionId, NOTHING, notify, rejected, type Outgoing } from "../outgoing.js";
import { SessionTable } from "../bounded.js";
import type { Answer, Inbound } from "../relay.js";
import type { ExitInfo } from "../translator.js";
import type { ScannedUpdate } from "../../wire/update-scan.js";
import { failedConv, malformed, objectResult, TranslatingMode } from "../translating.js";
import { SessionA } from "./session.js";
import {
  claimed,
  clientUpdate,
  endTurnTerminals,
  fastUpdateToV1,
  flushSession,
  isAnnounced,
  markAnnounced,
  permissionTerminalItem,
  updateToV1,
  type ClientFlags,
  type UpdateContext,
} from "./updates.js";

export interface AConfig {
  /** The level toward each peer is chosen per destination (optionsToward): toClient, toAgent. */
  readonly stash: StashPolicy;
  readonly log: Logger;
  readonly mcpUnsupported: "reject" | "drop";
  readonly platform: Platform;
  readonly idleSettleMs: number;
  readonly forwardPromptEcho: boolean;
  readonly redactionNotice: boolean;
  readonly diffRendering: DiffRendering;
  /** Largest file read to give a v1 client a diff's exact full texts; 0 reads none. */
  readonly diffFileMaxBytes: number;
  readonly flushMs: number;
  readonly terminalFlushMs: number;
  readonly terminalMaxBytes: number;
  /** Sessions tracked at once (`--max-sessions`, mappings/limits.ts). */
  readonly maxSessions?: number;
}

/** What the v2 agent advertised that the translation depends on (H §2.4). */
export interface AgentFlagsA {
  readonly hasSession: boolean;
  readonly additionalDirectories: boolean;
  readonly mcp: McpSupport;
  /** The v2 "agent" is a B bridge (its initialize result carries the marker, T §5.5). */
  readonly bridge?: boolean;
}

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

/** A v1 `current_mode_update` (the client just set the mode itself: no echo of it). */
function isModeUpdate(o: Outgoing): boolean {
  return (
    o.kind === "notify" &&
    isObject(o.params) &&
    isObject(o.params.update) &&
    o.params.update.sessionUpdate === "current_mode_update"
  );
}

/** Client requests that make the bridge keep state for a session (admitted against the limit). */
const OPENS_SESSION = clientRequestsWith("a", "opensSession");

export class DirectionA extends TranslatingMode {
  readonly mode = "A" as const;
  private readonly sessions: SessionTable<SessionA>;
  private readonly connection = { agentReportsBusy: false };
  private readonly updates: UpdateContext;
  /** Options of every conversion whose output goes to the v1 client: a stash only if it is a bridge. */
  private readonly toClient: ConvertOptions;
  /** Likewise for the v2 agent. */
  private readonly toAgent: ConvertOptions;

  constructor(
    client: Link,
    agent: Link,
    private readonly config: AConfig,
    private readonly clientFlags: ClientFlags,
    private readonly agentFlags: AgentFlagsA,
  ) {
    super(client, agent, config.log);
    this.sessions = new SessionTable<SessionA>(
      config.maxSessions ?? limits.sessions.default,
      (s) => !s.lifecycle.hasPending && !s.lifecycle.resumeInFlight,
      (s) => s.closed,
      (s) => {
        // Forgotten idle: what it still owes the client goes out first (coalesced chunks).
        this.write(flushSession(s, this.updates));
        s.dispose();
      },
    );
    this.toClient = optionsToward(config.stash, clientFlags.bridgePeer);
    this.toAgent = optionsToward(config.stash, agentFlags.bridge === true);
    this.updates = {
      opts: this.toClient,
      flags: clientFlags,
      agentBridge: agentFlags.bridge === true,
      log: config.log,
      diffRendering: config.diffRendering,
      diffFileMaxBytes: renderingReadsFiles(config.diffRendering) ? config.diffFileMaxBytes : 0,
      redactionNotice: config.redactionNotice,
      flushMs: config.flushMs,
      terminalFlushMs: config.terminalFlushMs,
      terminalMaxBytes: config.terminalMaxBytes,
      write: (out) => this.write(out),
    };
    this.keepKeyOrder(1, {
      client: clientFlags.bridgePeer && this.toClient.stash !== "off",
      agent: agentFlags.bridge === true && this.toAgent.stash !== "off",
    });
  }

  private session(sessionId: string): SessionA {
    return this.sessions.obtain(
      sessionId,
      () =>
        new SessionA(sessionId, {
          idleSettleMs: this.config.idleSettleMs,
          connection: this.connection,
          forwardPromptEcho: this.config.forwardPromptEcho || this.clientFlags.bridgePeer,
          write: (out) => this.write(out),
          log: this.log,
        }),
    );
  }

  // ------------------------------------------------------------------ client → agent

  // Every method the table routes through this engine has its handler here (checked by the
  // compiler against mappings/methods.ts); forwarded and refused methods take the table's default.
  // A handler returns the messages it produces, the table writes them (engine core); a request it
  // re-issues goes through its route (RequestRoute.forward), whose answer mapper gives the answer.
  private readonly clientRequests = this.requestRoutes<"a", "client", Obj | undefined>("a", "client", {
    initialize: (msg) => this.reinitialize(msg),
    authenticate: (msg) => this.renamed(msg),
    logout: (msg) => this.renamed(msg),
    "session/new": (msg, params) => this.write(this.lifecycle(msg, params, "new")),
    "session/load": (msg, params) => this.write(this.lifecycle(msg, params, "load")),
    "session/resume": (msg, params) => this.write(this.lifecycle(msg, params, "resume")),
    "session/fork": (msg, params) => this.write(this.lifecycle(msg, params, "fork")),
    "session/list": (msg, params) => this.write(this.list(msg, params)),
    "session/close": (msg, params) => this.write(this.closeOrDelete(msg, params)),
    "session/delete": (msg, params) => this.write(this.closeOrDelete(msg, params)),
    "session/set_mode": (msg, params) => this.write(this.setMode(msg, params)),
    "session/set_config_option": (msg, params) => this.write(this.setConfigOption(msg, params)),
    "session/set_model": (msg, params) => this.write(this.setModel(msg, params)),
    "session/prompt": (msg, params) => this.write(this.prompt(msg, params)),
  });

  private readonly clientNotifications = this.notificationRoutes<"a", "client", Obj | undefined>("a", "client", {
    "session/cancel": (_msg, params) => this.write(this.cancelSession(params)),
    "$/cancel_request": (_msg, params) => this.down.cancel(params?.requestId, params?._meta),
  });

  private readonly agentRequests = this.requestRoutes<"a", "agent", Obj | undefined>("a", "agent", {
    "session/request_permission": (msg, params) => this.write(this.permission(msg, params)),
    "elicitation/create": (msg, params) => this.write(this.elicitation(msg, params)),
  });

  private readonly agentNotifications = this.notificationRoutes<"a", "agent", Obj | undefined>("a", "agent", {
    "session/update": (msg, params, line) => this.write(this.sessionUpdate(msg, params, line)),
    // Already answered (e.g. the client answered `cancelled` itself): dropped by the route.
    "$/cancel_request": (_msg, params) => this.up.cancel(params?.requestId, params?._meta),
  });

  protected clientRequest(msg: RequestMessage): void {
    const method = msg.method;
    const params = isObject(msg.params) ? msg.params : undefined;
    if (method.startsWith("session/") && !this.agentFlags.hasSession) {
      this.fail(msg, noSessionSurface(method));
      return;
    }
    const opens = OPENS_SESSION.get(method);
    if (opens !== undefined) {
      // Room for its state (mappings/limits.ts): an idle session may be forgotten, a busy one never.
      const id = typeof params?.sessionId === "string" && opens === "named" ? params.sessionId : undefined;
      if (!this.sessions.admit(id, true)) return this.fail(msg, rpcErrors.limit(limits.sessions, this.sessions.limit));
    }
    const handle = this.clientRequests.get(method);
    if (handle) handle(msg, params);
    else this.fail(msg, this.unknownMethod(method));
  }

  /** Identical payloads under new names (H §3.1). */
  private renamed(msg: RequestMessage): void {
    const row = methodRow(1, msg.method);
    this.down.forward(msg, row?.v2 ?? msg.method, msg.params ?? {}, objectResult);
  }

  private lifecycle(
    msg: RequestMessage,
    params: Obj | undefined,
    kind: "new" | "load" | "resume" | "fork",
  ): readonly Outgoing[] {
    const raw = params ?? {};
    // The converters validate `additionalDirectories` on these raw params first (H §4.10).
    const ctx = {
      ...this.toAgent,
      agentMcp: this.agentFlags.mcp,
      onUnsupported: this.config.mcpUnsupported,
      agentSupportsDirectories: this.agentFlags.additionalDirectories,
      platform: this.config.platform,
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
    const { params: out, droppedMcpServers } = converted.value;
    for (const d of droppedMcpServers)
      this.config.log.warn(`dropped MCP server '${d.name}': the agent does not support its transport`, d);
    const method = kind === "load" || kind === "resume" ? "session/resume" : `session/${kind}`;
    const existing = typeof raw.sessionId === "string" && kind !== "fork" ? this.session(raw.sessionId) : undefined;
    if (existing) {
      if (kind === "load") existing.resetForReplay();
      existing.lifecycle.resumeStarted();
    }
    const entry = this.down.local(msg);
    entry.outboundId = this.agent.request(method, out, (resp) => {
      // A turn the reload found ended is answered first (T §1.2-8), whatever becomes of the request.
      if (existing) this.write(existing.lifecycle.resumeEnded(!resp.error));
      if (entry.answered) return;
      this.down.reply(entry, this.lifecycleAnswer(raw, kind, method, resp));
    });
    return NOTHING;
  }

  /** The client's answer to a session lifecycle request, and the update v1 gets after it. */
  private lifecycleAnswer(
    raw: Obj,
    kind: "new" | "load" | "resume" | "fork",
    method: string,
    resp: ResponseMessage,
  ): Answer {
    if (resp.error) return { error: resp.error };
    const ctx1 = { booleanOptions: this.clientFlags.booleanOptions };
    const r: Conv<ResultToV1<unknown>> =
      kind === "new"
        ? newSessionResponseToV1(resp.result, ctx1, this.toClient)
        : kind === "load"
          ? resumeResultToLoadResponse(resp.result, ctx1, this.toClient)
          : kind === "resume"
            ? resumeSessionResponseToV1(resp.result, ctx1, this.toClient)
            : forkSessionResponseToV1(resp.result, ctx1, this.toClient);
    if (failedConv(r)) {
      this.config.log.warn(`the agent's ${method} result is malformed`, r.error.data);
      return malformed(method, r.error.data);
    }
    const result = r.value.result;
    const sessionId =
      isObject(result) && typeof result.sessionId === "string"
        ? result.sessionId
        : typeof raw.sessionId === "string"
          ? raw.sessionId
          : undefined;
    const s = sessionId !== undefined ? this.session(sessionId) : undefined;
    if (!s) return { result };
    s.closed = false;
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
    if (this.toClient.stash !== "off")
      params._meta = new Stash(2, this.toClient).invented(SN.commandsFollowUp).into(undefined);
    return { result, after: updateToV1(s, params, undefined, this.updates) };
  }

  private list(msg: RequestMessage, params: Obj | undefined): readonly Outgoing[] {
    const ctx = {
      ...this.toAgent,
      platform: this.config.platform,
      agentSupportsDirectories: this.agentFlags.additionalDirectories,
    };
    const r = listSessionsRequestToV2(params ?? {}, ctx);
    if (failedConv(r)) return rejected(msg, r.error);
    const { params: out, directoriesFilter: filter } = r.value;
    this.down.forward(msg, "session/list", out, (resp) => {
      if (resp.error) return { error: resp.error };
      const conv = listSessionsResponseToV1(resp.result, this.toClient);
      if (failedConv(conv)) return malformed("session/list", conv.error.data);
      const result = conv.value;
      if (filter !== undefined && Array.isArray(result.sessions))
        result.sessions = filterSessionsByDirectories(result.sessions, filter);
      return { result };
    });
    return NOTHING;
  }

  private closeOrDelete(msg: RequestMessage, params: Obj | undefined): readonly Outgoing[] {
    const sessionId = params?.sessionId;
    if (typeof sessionId !== "string") return noSessionId(msg);
    this.down.forward(msg, msg.method, params, (resp) => {
      const s = this.sessions.get(sessionId);
      // Clients treat -32002 on close/delete as success; either way the session is over for us.
      if (s && (!resp.error || resp.error.code === ErrorCodes.resourceNotFound)) {
        // What the session still owes the client goes before the answer: its updates, its prompts' answers.
        this.write([...flushSession(s, this.updates), ...s.lifecycle.closed()]);
        s.closed = true;
        s.dispose();
      }
      return objectResult(resp);
    });
    return NOTHING;
  }

  private setMode(msg: RequestMessage, params: Obj | undefined): readonly Outgoing[] {
    const sessionId = params?.sessionId;
    if (typeof sessionId !== "string") return noSessionId(msg);
    const s = this.session(sessionId);
    const r = setModeToSetConfigOption(params, modeBinding(s.configOptions));
    if (failedConv(r)) return rejected(msg, r.error);
    this.down.forward(msg, "session/set_config_option", r.value, (resp) => {
      if (resp.error) return { error: resp.error };
      const res = setConfigOptionResponseToSetModeResponse(resp.result);
      if (failedConv(res)) return { result: {} };
      const before = s.configOptions;
      s.configOptions = res.value.configOptions;
      if (!optionsChangedBeyondMode(before, res.value.configOptions)) return { result: res.value.response };
      // Other options changed too: v1 gets them right after the answer, without echoing its own mode.
      const update = { sessionUpdate: "config_option_update", configOptions: res.value.configOptions };
      const after = updateToV1(s, { sessionId, update }, undefined, this.updates).filter((o) => !isModeUpdate(o));
      return { result: res.value.response, after };
    });
    return NOTHING;
  }

  /** Legacy `session/set_model` (a client given `models` back by a chained B bridge). */
  private setModel(msg: RequestMessage, params: Obj | undefined): readonly Outgoing[] {
    const sessionId = params?.sessionId;
    if (typeof sessionId !== "string") return noSessionId(msg);
    const s = this.session(sessionId);
    const r = setModelToSetConfigOption(params, s.configOptions);
    if (failedConv(r)) return rejected(msg, r.error);
    this.down.forward(msg, "session/set_config_option", r.value, (resp) => {
      if (resp.error) return { error: resp.error };
      const res = setConfigOptionResponseToSetModeResponse(resp.result);
      if (failedConv(res)) return { result: {} };
      s.configOptions = res.value.configOptions;
      return { result: res.value.response };
    });
    return NOTHING;
  }

  private setConfigOption(msg: RequestMessage, params: Obj | undefined): readonly Outgoing[] {
    const sessionId = params?.sessionId;
    if (typeof sessionId !== "string") return noSessionId(msg);
    const s = this.session(sessionId);
    const r = setConfigOptionRequestToV2(params, { options: s.configOptions }, this.toAgent);
    if (failedConv(r)) return rejected(msg, r.error);
    this.down.forward(msg, "session/set_config_option", r.value, (resp) => {
      if (resp.error) return { error: resp.error };
      const conv = setConfigOptionResponseToV1(
        resp.result,
        { booleanOptions: this.clientFlags.booleanOptions },
        this.toClient,
      );
      if (failedConv(conv)) return malformed("session/set_config_option", conv.error.data);
      const before = s.configOptions;
      s.configOptions = isObject(resp.result) ? resp.result.configOptions : s.configOptions;
      // The mode may have changed through its option: v1 clients track it through current_mode_update,
      // right after the answer.
      const modeUpdate = currentModeUpdateFor(before, s.configOptions, this.toClient);
      return modeUpdate ? { result: conv.value, after: [clientUpdate(sessionId, modeUpdate)] } : { result: conv.value };
    });
    return NOTHING;
  }

  // ------------------------------------------------------------------ prompts (T §1.2)

  private prompt(msg: RequestMessage, params: Obj | undefined): readonly Outgoing[] {
    const r = promptRequestToV2((params ?? {}) as v1.PromptRequest, this.toAgent);
    if (failedConv(r)) return rejected(msg, r.error);
    const sessionId = params?.sessionId;
    if (typeof sessionId !== "string") return noSessionId(msg);
    const s = this.session(sessionId);
    const entry = this.down.local(msg);
    // The turn's last updates and terminal exits, then the answer.
    const finish = (a: Answer): readonly Outgoing[] => [
      ...flushSession(s, this.updates),
      ...endTurnTerminals(s, this.updates),
      answer("client", entry, a),
    ];
    const handle = {
      answerIdle: (idle: v2.IdleStateUpdate, cancelRequested: boolean) => {
        const out = idleToPromptResponse(idle, { cancelRequested }, this.toClient);
        if (failedConv(out)) return finish({ result: { stopReason: cancelRequested ? "cancelled" : "end_turn" } });
        const v = out.value;
        return finish("error" in v ? { error: v.error } : { result: v.result });
      },
      answerError: (error: RpcError) => finish({ error }),
      answerCancelled: () => finish({ result: { stopReason: "cancelled" } }),
    };
    const outboundId = this.agent.request("session/prompt", r.value, (resp) => {
      const out = s.lifecycle.answered(outboundId, resp.result, resp.error);
      if (!resp.error && this.clientFlags.bridgePeer) {
        const messageId = isObject(resp.result) ? resp.result.messageId : undefined;
        const accepted = { sessionId, requestId: msg.id, messageId };
        this.write([...out, notify("client", `${BRIDGE_METHOD_PREFIX}prompt_accepted`, accepted)]);
      } else this.write(out);
    });
    // $/cancel_request on a prompt (T §1.2-6): cancel the turn, withdraw it if not inserted yet.
    entry.onCancel = () => {
      const state = s.lifecycle.cancelOne(outboundId);
      if (!state.found) return;
      const cancel = notify("agent", "session/cancel", { sessionId });
      this.write(state.acked ? [cancel] : [cancel, notify("agent", "$/cancel_request", { requestId: outboundId })]);
    };
    s.lifecycle.sent(handle, outboundId, r.value.prompt);
    return NOTHING;
  }

  protected clientNotification(msg: NotificationMessage): void {
    const handle = this.clientNotifications.get(msg.method);
    if (handle) handle(msg, isObject(msg.params) ? msg.params : undefined, undefined);
    else this.log.debug(`dropped client notification '${msg.method}': no v2 form`);
  }

  private cancelSession(params: Obj | undefined): readonly Outgoing[] {
    const sessionId = params?.sessionId;
    if (typeof sessionId === "string") this.sessions.get(sessionId)?.lifecycle.cancelAll();
    return [notify("agent", "session/cancel", params ?? {})];
  }

  // ------------------------------------------------------------------ agent → client

  protected agentRequest(msg: RequestMessage): void {
    const method = msg.method;
    const handle = this.agentRequests.get(method);
    if (handle) return handle(msg, isObject(msg.params) ? msg.params : undefined);
    const row = methodRow(1, method);
    const reason =
      row && row.v2 === null
        ? "ACP v2 removed this client method; a v2 agent must not call it"
        : "unknown method: it cannot be translated between ACP v1 and v2";
    this.write([fail("agent", msg.id, rpcErrors.methodNotFound({ method, reason }))]);
  }

  private permission(msg: RequestMessage, params: Obj | undefined): readonly Outgoing[] {
    const sessionId = params?.sessionId;
    if (!params || typeof sessionId !== "string")
      return [fail("agent", msg.id, rpcErrors.invalidParams({ field: "sessionId", reason: "not_string" }))];
    const s = this.session(sessionId);
    const flushed = flushSession(s, this.updates);
    const subject = subjectToolCall(params.subject);
    // A tool_call subject is the agent reporting that tool call: it replaces one the bridge invented.
    if (subject) claimed(s, subject.id);
    const r = permissionRequestToV1(params as v2.RequestPermissionRequest, {
      opts: this.toClient,
      v2RequestId: msg.id as v2.RequestId,
      isAnnounced: (id) => isAnnounced(s, id),
      diffRendering: this.config.diffRendering,
      files: subject ? diffFiles(subject.toolCall.content, 2, this.updates.diffFileMaxBytes ?? 0) : undefined,
      renderTerminal: (terminalId) => permissionTerminalItem(s, terminalId, this.updates),
    });
    if (failedConv(r)) return [...flushed, fail("agent", msg.id, r.error)];
    const v = r.value;
    if (v.kind === "cancel") return [...flushed, answer("agent", this.up.local(msg), { result: v.response })];
    const shown: Outgoing[] = [...flushed];
    for (const u of v.before) {
      markAnnounced(s, u.toolCallId, u, v.syntheticToolCallId === u.toolCallId);
      shown.push(clientUpdate(sessionId, u));
    }
    if (subject) markAnnounced(s, subject.id, subject.toolCall, false);
    const options = Array.isArray(params.options) ? params.options.filter(isOption) : [];
    // The client sees the tool calls the request is about before the request itself.
    this.write(shown);
    this.up.forward(msg, "session/request_permission", v.params, (resp) => {
      if (v.syntheticToolCallId !== undefined) {
        const tc = s.toolCalls.peek(v.syntheticToolCallId);
        if (tc?.synthetic) {
          const outcome = isObject(resp.result) ? (resp.result.outcome as v1.RequestPermissionOutcome) : undefined;
          const final = finalizeSyntheticToolCall(v.syntheticToolCallId, outcome, options, this.toClient);
          this.write([clientUpdate(sessionId, final)]);
        }
      }
      if (resp.error) return { error: resp.error };
      const conv = permissionResponseToV2(resp.result as v1.RequestPermissionResponse);
      if (failedConv(conv)) return { result: { outcome: { outcome: "cancelled" } } };
      return { result: conv.value };
    });
    return NOTHING;
  }

  private elicitation(msg: RequestMessage, params: Obj | undefined): readonly Outgoing[] {
    const r = elicitationRequestToV1(params as v2.CreateElicitationRequest, {
      opts: this.toClient,
      requestIdToV1: (id) => {
        const entry = this.down.inbound.all().find((e: Inbound) => e.outboundId === id);
        return entry?.id;
      },
    });
    if (failedConv(r)) return [fail("agent", msg.id, r.error)];
    this.up.forward(msg, "elicitation/create", r.value, (resp) => {
      if (resp.error) return { error: resp.error };
      const conv = elicitationResponseToV2(resp.result as v1.CreateElicitationResponse);
      if (failedConv(conv)) return { result: { action: "cancel" } };
      return { result: conv.value };
    });
    return NOTHING;
  }

  protected agentNotification(msg: NotificationMessage, line: Buffer | undefined): void {
    const handle = this.agentNotifications.get(msg.method);
    if (handle) handle(msg, isObject(msg.params) ? msg.params : undefined, line);
    else this.log.debug(`dropped agent notification '${msg.method}': no v1 form`);
  }

  private sessionUpdate(
    msg: NotificationMessage,
    params: Obj | undefined,
    line: Buffer | undefined,
  ): readonly Outgoing[] {
    const sessionId = params?.sessionId;
    if (typeof sessionId !== "string" || !params) {
      this.config.log.warn("dropped a session/update without a sessionId");
      return NOTHING;
    }
    if (!this.sessions.fits(sessionId) && !this.sessions.admit(sessionId, true)) {
      this.config.log.warn(`dropped a session/update for an unknown session: ${this.sessions.limit} are busy`);
      return NOTHING;
    }
    const s = this.session(sessionId);
    if (s.closed) return NOTHING; // nothing more for a closed session (H §4.7)
    return updateToV1(s, params, line ? { line, msg } : undefined, this.updates);
  }

  /** The fast path (fast-lines.ts): what updates.ts proves v1 gets unchanged goes out as its bytes. */
  fastUpdate(u: ScannedUpdate): boolean {
    // A bridge client gets key-order records and ext updates: always the full path.
    if (this.clientFlags.bridgePeer || !this.client.takesProven) return false;
    const sessionId = u.string("sessionId");
    const s = sessionId === undefined ? undefined : this.sessions.get(sessionId);
    const bytes = s === undefined || s.closed ? undefined : fastUpdateToV1(s, u, this.updates);
    if (bytes === undefined) return false;
    this.client.writeProven(bytes);
    return true;
  }

  agentGone(info: ExitInfo): void {
    // T §1.2-9: every pending prompt fails visibly; no invented stop reason.
    const error = agentExitedToV1(info.code, this.toClient);
    for (const s of this.sessions.values()) {
      this.write([...flushSession(s, this.updates), ...s.lifecycle.agentGone(error)]);
      s.dispose();
    }
  }
}
