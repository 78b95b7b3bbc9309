// Direction B: a v2 client in front of a v1 agent. The bridge is a v2 agent toward the client and
// a v1 client toward the agent: it acks prompts at insertion and reports turns with state updates
// (T §1.4), emulates the v2 baseline a v1 agent lacks (H §2.3), and refuses what v2 removed.
import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { BRIDGE_METHOD_PREFIX, type MethodFrom } from "../../../mappings/methods.js";
import type { AgentFlags } from "../../convert/capabilities.js";
import { setConfigOptionRequestToV1, setConfigOptionResponseToV2 } from "../../convert/config-option.js";
import type { Platform } from "../../convert/directories.js";
import { elicitationRequestToV2, elicitationResponseToV1 } from "../../convert/elicitation.js";
import { errorToV2 } from "../../convert/error.js";
import { isObject, jsonEqual } from "../../convert/json.js";
import type { Conv } from "../../convert/result.js";
import { generatedMessageId } from "../../../mappings/message.js";
import { nextGeneratedId } from "../../convert/message.js";
import { modelOptionId, setConfigOptionToSetModel, withCurrentModel } from "../../convert/models.js";
import {
  agentConfigFromResult,
  agentModeBinding,
  setConfigOptionOnSyntheticToSetMode,
  setModeResponseToSetConfigOptionResponse,
  withCurrentMode,
} from "../../convert/mode.js";
import { permissionRequestToV2, permissionResponseToV1 } from "../../convert/permission.js";
import { promptErrorToIdle, promptRequestToV1, promptResponseToIdle } from "../../convert/prompt.js";
import {
  forkSessionRequestToV1,
  listSessionsRequestToV1,
  listSessionsResponseToV2,
  newSessionRequestToV1,
  resumeSessionRequestToV1,
  sessionNotFound,
} from "../../convert/session.js";
import {
  forkSessionResponseToV2,
  loadResponseToResumeResult,
  newSessionResponseToV2,
  resumeSessionResponseToV2,
} from "../../convert/session-result.js";
import {
  isSynthetic,
  optionsToward,
  STASH_KEY,
  unstash,
  type ConvertOptions,
  type StashPolicy,
} from "../../convert/stash.js";
import type { Logger } from "../../log.js";
import type { NotificationMessage, RequestMessage, ResponseMessage, RpcError } from "../../wire/jsonrpc.js";
import { rpcErrors } from "../../wire/jsonrpc.js";
import type { Link } from "../link.js";
import type { Answer, Inbound } from "../relay.js";
import type { ExitInfo } from "../translator.js";
import { failedConv, malformed, objectResult, TranslatingMode } from "../translating.js";
import { SessionB, type HeldPrompt, type Turn } from "./session.js";
import { boundary, diffFilesOfV1, updateToV2, type UpdateContextB } from "./updates.js";

type Obj = Record<string, unknown>;

export const DEFAULT_ACK_GRACE_MS = 100;
export const DEFAULT_CLOSE_DRAIN_MS = 5000;

export interface BConfig {
  /** The level toward each peer is chosen per destination (optionsToward): toClient, toAgent. */
  readonly stash: StashPolicy;
  readonly log: Logger;
  readonly platform: Platform;
  /** T §1.4-2 (c): ack a prompt this long after sending it if the agent said nothing yet. */
  readonly ackGraceMs: number;
  readonly closeDrainMs: number;
  /** Put the v1 turn usage on the idle (T §1.5); else it is stashed. No schema has an opt-in: config.ts decides. */
  readonly clientWantsUsage: boolean;
  /** Largest file read to place a v1 snippet diff in the real file; 0 (or absent) reads none. */
  readonly diffFileMaxBytes?: number;
}

/** Methods a session closed on this connection still answers (the agent keeps it saved). */
const AFTER_CLOSE: ReadonlySet<string> = new Set<MethodFrom<"b", "client", "request">>([
  "session/resume",
  "session/delete",
  "session/close",
  "session/status",
  "session/set_title",
  "session/archive",
  "session/unarchive",
]);

interface LiveInfo {
  readonly title: string | undefined;
  readonly updatedAt: string | undefined;
}

/** The session info the client has, forgotten until the agent (or `resendInfo`) reports it again. */
function takeInfo(s: SessionB): LiveInfo {
  const live = { title: s.title, updatedAt: s.updatedAt };
  s.title = undefined;
  s.updatedAt = undefined;
  return live;
}

/** The legacy model setter of earlier unstable SDKs (its row in mappings/methods.ts). */
const SET_MODEL = "session/set_model";

function emulatedMeta(method: string): Obj {
  return { [STASH_KEY]: { emulated: method } };
}

export class DirectionB extends TranslatingMode {
  readonly mode = "B" as const;
  private readonly sessions = new Map<string, SessionB>();
  private readonly updates: UpdateContextB;
  /** Options of every conversion whose output goes to the v2 client: a stash only if it is a bridge. */
  private readonly toClient: ConvertOptions;
  /** Likewise for the v1 agent. */
  private readonly toAgent: ConvertOptions;

  /** Prompts relayed to an A bridge peer, by the id B sent them under (T §5.5). */
  private readonly peerPrompts = new Map<
    number,
    { entry: Inbound; sessionId: string; acked: boolean; ended: boolean }
  >();

  constructor(
    client: Link,
    agent: Link,
    private readonly config: BConfig,
    private readonly agentFlags: AgentFlags,
    /** The v1 "agent" is an A bridge: lifecycle states and acks come from it (T §5.5). */
    private readonly peer = false,
    /** The v2 "client" is an A bridge (its initialize request carries the marker). */
    private readonly clientIsBridge = false,
  ) {
    super(client, agent, config.log);
    this.toClient = optionsToward(config.stash, clientIsBridge);
    this.toAgent = optionsToward(config.stash, peer);
    this.keepKeyOrder(2, {
      client: clientIsBridge && this.toClient.stash !== "off",
      agent: peer && this.toAgent.stash !== "off",
    });
    this.updates = {
      opts: this.toClient,
      log: config.log,
      diffFileMaxBytes: config.diffFileMaxBytes ?? 0,
      clientIsBridge,
      send: (sessionId, update, meta) => {
        const params: Obj = { sessionId, update };
        if (meta !== undefined && meta !== null) params._meta = meta;
        client.notify("session/update", params);
      },
    };
  }

  private session(sessionId: string): SessionB {
    let s = this.sessions.get(sessionId);
    if (!s) {
      s = new SessionB(sessionId);
      this.sessions.set(sessionId, s);
    }
    return s;
  }

  private emit(s: SessionB, update: Obj): void {
    this.updates.send(s.sessionId, update as v2.SessionUpdate);
  }

  private state(s: SessionB, state: "running" | "requires_action"): void {
    s.reported = state;
    this.emit(s, { sessionUpdate: "state_update", state });
  }

  // ------------------------------------------------------------------ client → agent

  protected clientRequest(msg: RequestMessage): void {
    // v2 request ids are strings or integers, never null (H §7.2).
    if (msg.id === null || (typeof msg.id === "number" && !Number.isInteger(msg.id))) {
      this.client.fail(
        null,
        rpcErrors.invalidRequest("ACP v2 request IDs must be strings or integers", { reason: "invalid_id" }),
      );
      return;
    }
    const method = msg.method;
    const params = isObject(msg.params) ? msg.params : {};
    const sessionId = typeof params.sessionId === "string" ? params.sessionId : undefined;
    if (sessionId !== undefined && this.sessions.get(sessionId)?.closed && !AFTER_CLOSE.has(method))
      return this.invalid(msg, sessionNotFound(sessionId));
    const handle = this.clientRequests.get(method);
    if (handle) handle(msg, params);
    else this.fail(msg, this.unknownMethod(method));
  }

  // Every method the table routes through this engine has its handler here (checked by the
  // compiler against mappings/methods.ts); forwarded and refused methods take the table's default.
  private readonly clientRequests = this.requestRoutes<"b", "client", Obj>("b", "client", {
    initialize: (msg) => this.reinitialize(msg),
    "auth/login": (msg, params) => void this.down.forward(msg, "authenticate", params, objectResult),
    "auth/logout": (msg, params) => this.logout(msg, params),
    "session/new": (msg, params) => this.create(msg, params, "new"),
    "session/fork": (msg, params) => this.create(msg, params, "fork"),
    "session/resume": (msg, params) => this.resume(msg, params),
    "session/list": (msg, params) => this.list(msg, params),
    "session/close": (msg, params) => this.close(msg, params),
    "session/delete": (msg, params) => this.deleteSession(msg, params),
    "session/set_config_option": (msg, params) => this.setConfigOption(msg, params),
    "session/prompt": (msg, params) => this.prompt(msg, params),
    "session/status": (msg, params) => this.status(msg, params),
    "session/set_title": (msg, params) => this.sessionScoped(msg, params),
    "session/archive": (msg, params) => this.sessionScoped(msg, params),
    "session/unarchive": (msg, params) => this.sessionScoped(msg, params),
  });

  private readonly clientNotifications = this.notificationRoutes<"b", "client", Obj>("b", "client", {
    "session/cancel": (_msg, params) => {
      if (typeof params.sessionId === "string") this.cancelSession(params.sessionId, params);
    },
    "$/cancel_request": (_msg, params) => this.down.cancel(params.requestId, params._meta),
  });

  private readonly agentRequests = this.requestRoutes<"b", "agent", Obj>("b", "agent", {
    "session/request_permission": (msg, params) => this.permission(msg, params, this.sessionOf(params)),
    "elicitation/create": (msg, params) => this.elicitation(msg, params, this.sessionOf(params)),
  });

  private readonly agentNotifications = this.notificationRoutes<"b", "agent", Obj>("b", "agent", {
    "session/update": (_msg, params) => this.sessionUpdate(params),
    "$/cancel_request": (_msg, params) => this.up.cancel(params.requestId, params._meta),
  });

  /** Bridge-to-bridge notifications from an A bridge (T §5.5). */
  private readonly peerNotifications = new Map<string, (params: Obj) => void>([
    [
      `${BRIDGE_METHOD_PREFIX}prompt_accepted`,
      (params) => {
        if (this.peer) this.peerAccepted(params);
      },
    ],
    [
      `${BRIDGE_METHOD_PREFIX}session_update`,
      (params) => {
        // From an A bridge: a v2 update with no v1 form, verbatim (T §5.5).
        if (typeof params.sessionId === "string" && isObject(params.update))
          this.updates.send(params.sessionId, params.update as v2.SessionUpdate);
      },
    ],
  ]);

  private logout(msg: RequestMessage, params: Obj): void {
    if (!this.agentFlags.logout)
      return this.fail(
        msg,
        rpcErrors.methodNotFound({ method: msg.method, reason: "v1 agent does not support logout" }),
      );
    this.down.forward(msg, "logout", params, objectResult);
  }

  private deleteSession(msg: RequestMessage, params: Obj): void {
    const sessionId = typeof params.sessionId === "string" ? params.sessionId : undefined;
    this.down.forward(msg, msg.method, params, (resp) => {
      if (!resp.error && sessionId !== undefined) this.sessions.delete(sessionId);
      // A -32002 names the session, as v2 requires (H §7.1).
      return resp.error ? { error: this.errorForClient(resp.error, sessionId) } : objectResult(resp);
    });
  }

  /** Forwarded unchanged; a -32002 names the session, as v2 requires (H §7.1). */
  private sessionScoped(msg: RequestMessage, params: Obj): void {
    const sessionId = typeof params.sessionId === "string" ? params.sessionId : undefined;
    this.down.forward(msg, msg.method, params, (resp) =>
      resp.error ? { error: this.errorForClient(resp.error, sessionId) } : objectResult(resp),
    );
  }

  /** v1 has no foreground state: an `open` session this bridge runs gets its own view (T §1.4). */
  private status(msg: RequestMessage, params: Obj): void {
    const sessionId = params.sessionId;
    this.down.forward(msg, msg.method, params, (resp) => {
      if (resp.error)
        return { error: this.errorForClient(resp.error, typeof sessionId === "string" ? sessionId : undefined) };
      if (!isObject(resp.result)) return malformed(msg.method, resp.result);
      const s = typeof sessionId === "string" ? this.sessions.get(sessionId) : undefined;
      const known = s !== undefined && !s.closed && !this.peer;
      if (!known || resp.result.status !== "open" || isObject(resp.result.state)) return { result: resp.result };
      return { result: { ...resp.result, state: { state: s.reported } } };
    });
  }

  private roots(): { platform: Platform; agentSupportsDirectories: boolean } {
    return { platform: this.config.platform, agentSupportsDirectories: this.agentFlags.addDirs };
  }

  private mcp(): { agentMcp: { stdio: boolean; http: boolean; sse: boolean } } {
    return { agentMcp: { stdio: true, http: this.agentFlags.mcpHttp, sse: this.agentFlags.mcpSse } };
  }

  private record(s: SessionB, params: Obj): void {
    s.params = { cwd: params.cwd, additionalDirectories: params.additionalDirectories, mcpServers: params.mcpServers };
    s.closed = false;
  }

  /** `session/new` and `session/fork`: a session starts; its parameters and modes are recorded. */
  private create(msg: RequestMessage, params: Obj, kind: "new" | "fork"): void {
    const ctx = { ...this.toAgent, ...this.roots(), ...this.mcp() };
    const r: Conv<unknown> =
      kind === "new"
        ? newSessionRequestToV1(params as v2.NewSessionRequest, ctx)
        : forkSessionRequestToV1(params as never, ctx);
    if (failedConv(r)) return this.invalid(msg, r.error);
    const method = `session/${kind}`;
    this.down.forward(msg, method, r.value, (resp) => {
      if (resp.error) return { error: resp.error };
      const conv: Conv<unknown> =
        kind === "new"
          ? newSessionResponseToV2(resp.result, {}, this.toClient)
          : forkSessionResponseToV2(resp.result, {}, this.toClient);
      if (failedConv(conv)) return malformed(method, conv.error.data);
      const sessionId = (conv.value as { sessionId?: unknown }).sessionId;
      if (typeof sessionId === "string") {
        const s = this.session(sessionId);
        this.record(s, params);
        s.config = agentConfigFromResult(resp.result);
        rememberCommands(s, conv.value);
      }
      return { result: conv.value };
    });
  }

  /** H §2.3 and §4.4: forward, load with or without the history, answer locally, or refuse. */
  private resume(msg: RequestMessage, params: Obj): void {
    const sessionId = params.sessionId;
    if (typeof sessionId !== "string")
      return this.fail(msg, rpcErrors.invalidParams({ field: "sessionId", reason: "not_string" }));
    const replayFrom = params.replayFrom;
    const wantsReplay = replayFrom !== undefined && replayFrom !== null;
    const f = this.agentFlags;
    const viaLoad = !wantsReplay && !f.resume && f.load;
    if (wantsReplay && !f.load && isObject(replayFrom) && replayFrom.type === "start")
      return this.fail(msg, rpcErrors.invalidParams({ field: "replayFrom", reason: "replay not supported by agent" }));
    const r = resumeSessionRequestToV1(params as v2.ResumeSessionRequest, {
      ...this.toAgent,
      ...this.roots(),
      ...this.mcp(),
      viaLoad,
    });
    if (failedConv(r)) return this.invalid(msg, r.error);
    const s = this.session(sessionId);
    if (!wantsReplay && !f.resume && !f.load) {
      // Neither: answer locally for a session live on this connection with the same parameters.
      const live = !s.closed && s.params.cwd !== undefined;
      if (!live) return this.invalid(msg, sessionNotFound(sessionId));
      const same =
        jsonEqual(s.params.cwd, params.cwd) &&
        jsonEqual(s.params.additionalDirectories ?? [], params.additionalDirectories ?? []) &&
        jsonEqual(s.params.mcpServers ?? [], params.mcpServers ?? []);
      if (!same) return this.fail(msg, rpcErrors.invalidParams({ reason: "agent cannot re-apply session parameters" }));
      const entry = this.down.local(msg);
      this.snapshot(s);
      const result: Obj = { _meta: emulatedMeta("session/resume") };
      if (s.availableCommands !== undefined) result.availableCommands = s.availableCommands;
      this.down.reply(entry, { result });
      this.resendInfo(s, takeInfo(s));
      return;
    }
    const { method, params: out } = r.value as { method: string; params: unknown };
    // Revived now, so its replay is forwarded; a failed resume leaves it closed.
    const wasClosed = s.closed;
    // What the client had live: whatever the agent does not say again during the resume is re-sent.
    const info = takeInfo(s);
    s.closed = false;
    s.loadInFlight = true;
    if (method === "session/load") {
      boundary(s, this.updates);
      s.resetForReplay();
      s.suppressHistory = !wantsReplay;
    }
    const entry = this.down.local(msg);
    entry.outboundId = this.agent.request(method, out, (resp) => {
      s.loadInFlight = false;
      s.suppressHistory = false;
      boundary(s, this.updates);
      if (entry.answered) return;
      if (resp.error) {
        s.closed = wasClosed;
        s.title ??= info.title;
        s.updatedAt ??= info.updatedAt;
        this.down.reply(entry, { error: this.errorForClient(resp.error, sessionId) });
        this.startNext(s);
        return;
      }
      const ctx = s.availableCommands !== undefined ? { availableCommands: s.availableCommands } : {};
      const conv =
        method === "session/load"
          ? loadResponseToResumeResult(resp.result, ctx, this.toClient)
          : resumeSessionResponseToV2(resp.result, ctx, this.toClient);
      if (failedConv(conv)) {
        this.down.reply(entry, malformed(method, conv.error.data));
        return;
      }
      this.record(s, params);
      s.config = agentConfigFromResult(resp.result);
      rememberCommands(s, conv.value);
      const result = conv.value as Obj;
      if (viaLoad)
        result._meta = { ...(isObject(result._meta) ? result._meta : {}), ...emulatedMeta("session/resume") };
      // A v2 resume response is preceded by a state snapshot (T §1.4-10).
      this.snapshot(s);
      this.down.reply(entry, { result });
      this.resendInfo(s, info);
      this.startNext(s);
    });
  }

  /**
   * After a resume result: the session info (title) the client had live, where the agent did not
   * report it again during the resume (a v1 `session/resume` replays nothing, H §2.3).
   */
  private resendInfo(s: SessionB, live: LiveInfo): void {
    const update: Obj = { sessionUpdate: "session_info_update" };
    if (s.title === undefined && live.title !== undefined) update.title = s.title = live.title;
    if (s.updatedAt === undefined && live.updatedAt !== undefined) update.updatedAt = s.updatedAt = live.updatedAt;
    // An A bridge's v1 client keeps its view through a load, as it would with a direct v1 agent.
    if (Object.keys(update).length > 1 && !this.clientIsBridge) this.emit(s, update);
  }

  private snapshot(s: SessionB): void {
    if (this.peer) return; // the peer forwards the agent's own snapshot
    const state = s.turn ? "running" : "idle";
    s.reported = state;
    this.emit(s, { sessionUpdate: "state_update", state });
  }

  private list(msg: RequestMessage, params: Obj): void {
    const r = listSessionsRequestToV1(params, { ...this.toAgent, ...this.roots() });
    if (failedConv(r)) return this.invalid(msg, r.error);
    const filter = r.value.directoriesFilter;
    const keep = (sessions: Obj[]): Obj[] =>
      filter === undefined ? sessions : sessions.filter((i) => jsonEqual(i.additionalDirectories ?? [], filter));
    if (!this.agentFlags.list) {
      // Emulated from the sessions this bridge has seen: incomplete by nature (H §2.3).
      const cwd = params.cwd;
      const sessions: Obj[] = [];
      for (const s of this.sessions.values()) {
        if (s.closed || typeof s.params.cwd !== "string") continue;
        if (typeof cwd === "string" && s.params.cwd !== cwd) continue;
        const info: Obj = { sessionId: s.sessionId, cwd: s.params.cwd };
        if (Array.isArray(s.params.additionalDirectories) && s.params.additionalDirectories.length > 0)
          info.additionalDirectories = s.params.additionalDirectories;
        if (s.title !== undefined) info.title = s.title;
        if (s.updatedAt !== undefined) info.updatedAt = s.updatedAt;
        sessions.push(info);
      }
      const entry = this.down.local(msg);
      this.down.reply(entry, { result: { sessions: keep(sessions), _meta: emulatedMeta("session/list") } });
      return;
    }
    this.down.forward(msg, "session/list", r.value.params, (resp) => {
      if (resp.error) return { error: resp.error };
      const conv = listSessionsResponseToV2(resp.result as v1.ListSessionsResponse, this.toClient);
      if (failedConv(conv)) return malformed("session/list", conv.error.data);
      const result = conv.value as unknown as Obj;
      if (Array.isArray(result.sessions)) result.sessions = keep(result.sessions as Obj[]);
      return { result };
    });
  }

  /** T §1.4-9 and H §2.3: held prompts -32800, the turn ends cancelled, then the close answer. */
  private close(msg: RequestMessage, params: Obj): void {
    const sessionId = params.sessionId;
    if (typeof sessionId !== "string")
      return this.fail(msg, rpcErrors.invalidParams({ field: "sessionId", reason: "not_string" }));
    const s = this.sessions.get(sessionId);
    if (s) for (const held of s.queue.splice(0)) this.down.reply(held.entry, { error: rpcErrors.cancelled() });
    const entry = this.down.local(msg);
    const finish = (answer: Answer) => {
      if (s) {
        s.closed = true;
        if (s.turn) this.endTurn(s, { stopReason: "cancelled" });
      }
      this.down.reply(entry, answer);
      // Prompts held while the close drained the turn end with the session (T §1.4-9).
      if (s) for (const held of s.queue.splice(0)) this.down.reply(held.entry, { error: rpcErrors.cancelled() });
    };
    const afterTurn = (then: () => void) => {
      if (!s?.turn) return then();
      const turn = s.turn;
      turn.cancelRequested = true;
      const timer = setTimeout(then, this.config.closeDrainMs);
      timer.unref();
      turn.onEnd = () => {
        clearTimeout(timer);
        then();
      };
    };
    if (this.agentFlags.close) {
      entry.outboundId = this.agent.request("session/close", params, (resp) => {
        if (entry.answered) return;
        // Clients treat -32002 on close as success (H §4.7).
        afterTurn(() =>
          finish(
            resp.error ? (resp.error.code !== -32002 ? { error: resp.error } : { result: {} }) : objectResult(resp),
          ),
        );
      });
      return;
    }
    if (s?.turn) this.agent.notify("session/cancel", { sessionId });
    afterTurn(() => finish({ result: { _meta: emulatedMeta("session/close") } }));
  }

  private setConfigOption(msg: RequestMessage, params: Obj): void {
    const sessionId = params.sessionId;
    if (typeof sessionId !== "string")
      return this.fail(msg, rpcErrors.invalidParams({ field: "sessionId", reason: "not_string" }));
    const s = this.session(sessionId);
    const binding = agentModeBinding(s.config);
    if (binding?.kind === "modes" && params.configId === binding.configId) {
      // The synthetic mode option (H §5.3): a v1 session/set_mode, checked before the agent is asked.
      const r = setConfigOptionOnSyntheticToSetMode(params, s.config);
      if (failedConv(r)) return this.invalid(msg, r.error);
      this.down.forward(msg, "session/set_mode", r.value, (resp) => {
        if (resp.error) return { error: resp.error };
        s.config = withCurrentMode(s.config, String((r.value as { modeId: unknown }).modeId));
        const conv = setModeResponseToSetConfigOptionResponse(resp.result ?? {}, s.config, this.toClient);
        if (failedConv(conv)) return malformed("session/set_mode", conv.error.data);
        return { result: conv.value };
      });
      return;
    }
    const models = s.config.models;
    if (models !== undefined && params.configId === modelOptionId(s.config.configOptions)) {
      // The option standing for legacy `models`: the v1 agent's own `session/set_model`.
      const m = setConfigOptionToSetModel(params, models);
      if (failedConv(m)) return this.invalid(msg, m.error);
      this.down.forward(msg, SET_MODEL, m.value, (resp) => {
        if (resp.error) return { error: resp.error };
        s.config = { ...s.config, models: withCurrentModel(models, m.value.modelId) };
        const conv = setModeResponseToSetConfigOptionResponse(resp.result ?? {}, s.config, this.toClient);
        if (failedConv(conv)) return malformed(SET_MODEL, conv.error.data);
        return { result: conv.value };
      });
      return;
    }
    const r = setConfigOptionRequestToV1(params);
    if (failedConv(r)) return this.invalid(msg, r.error);
    this.down.forward(msg, "session/set_config_option", r.value, (resp) => {
      if (resp.error) return { error: resp.error };
      const conv = setConfigOptionResponseToV2(
        resp.result,
        { modes: s.config.modes, models: s.config.models },
        this.toClient,
      );
      if (failedConv(conv)) return malformed("session/set_config_option", conv.error.data);
      if (isObject(resp.result)) s.config = { ...s.config, configOptions: resp.result.configOptions };
      return { result: conv.value };
    });
  }

  // ------------------------------------------------------------------ prompts (T §1.4)

  private prompt(msg: RequestMessage, params: Obj): void {
    const sessionId = params.sessionId;
    if (typeof sessionId !== "string")
      return this.fail(msg, rpcErrors.invalidParams({ field: "sessionId", reason: "not_string" }));
    const r = promptRequestToV1(params as v2.PromptRequest, this.toAgent);
    if (failedConv(r)) return this.invalid(msg, r.error);
    const s = this.session(sessionId);
    const entry = this.down.local(msg);
    if (this.peer) return this.peerPrompt(entry, sessionId, r.value);
    const held: HeldPrompt = { entry, params: r.value };
    entry.onCancel = () => this.cancelPrompt(s, held);
    if (s.turn || s.loadInFlight) {
      s.queue.push(held); // a held v2 prompt: no answer until it is inserted
      return;
    }
    this.startTurn(s, held);
  }

  /**
   * Bridge peer (T §5.5): every prompt goes at once (the real agent holds it), the ack is the peer's
   * `prompt_accepted`, and states, echo and idle arrive on its channel: nothing is synthesized.
   */
  private peerPrompt(entry: Inbound, sessionId: string, params: Obj): void {
    const p = { entry, sessionId, acked: false, ended: false };
    const outboundId = this.agent.request("session/prompt", params, (resp) => {
      p.ended = true;
      this.peerPrompts.delete(outboundId);
      if (p.acked || entry.answered) return;
      // Never inserted: rejected, or withdrawn (the peer answers a withdrawn prompt `cancelled`).
      const result = resp.result as { stopReason?: unknown } | undefined;
      if (resp.error) this.down.reply(entry, { error: this.errorForClient(resp.error, sessionId) });
      else if (result?.stopReason === "cancelled") this.down.reply(entry, { error: rpcErrors.cancelled() });
      else
        this.down.reply(entry, {
          error: rpcErrors.internal("Agent ended a prompt it never accepted", { reason: "not_accepted" }),
        });
    });
    this.peerPrompts.set(outboundId, p);
    // Until inserted, `$/cancel_request` is forwarded under this id (withdrawal); once acked the
    // request is answered and the route drops it, as v2 wants (T §1.4-8).
    entry.outboundId = outboundId;
  }

  private peerAccepted(params: Obj): void {
    const p = typeof params.requestId === "number" ? this.peerPrompts.get(params.requestId) : undefined;
    if (!p || p.acked) return;
    p.acked = true;
    const messageId = typeof params.messageId === "string" ? params.messageId : undefined;
    this.down.reply(p.entry, { result: messageId === undefined ? {} : { messageId } });
  }

  private startTurn(s: SessionB, held: HeldPrompt): void {
    boundary(s, this.updates); // a new prompt starts new messages
    const gen = nextGeneratedId(s.chunkIds, s.sessionId, "user");
    s.chunkIds = gen.state;
    const prompt = Array.isArray(held.params.prompt) ? (held.params.prompt as unknown[]) : [];
    const turn: Turn = {
      entry: held.entry,
      prompt,
      outboundId: 0,
      userMsgId: gen.messageId,
      acked: false,
      echoOpen: false,
      echoCount: 0,
      cancelRequested: false,
      withdrawn: false,
      blockers: 0,
      ackTimer: undefined,
      relayed: new Set(),
      onEnd: undefined,
    };
    s.turn = turn;
    turn.outboundId = this.agent.request("session/prompt", held.params, (resp) => this.promptAnswered(s, turn, resp));
    if (this.config.ackGraceMs <= 0) this.ack(s, turn);
    else {
      turn.ackTimer = setTimeout(() => this.ack(s, turn), this.config.ackGraceMs);
      turn.ackTimer.unref();
    }
  }

  /** T §1.4-2: the ack, the user message and `running`, before anything of the turn. */
  private ack(s: SessionB, turn: Turn, adoptId?: string): void {
    if (turn.acked || turn.withdrawn || s.turn !== turn) return;
    if (turn.ackTimer) clearTimeout(turn.ackTimer);
    turn.ackTimer = undefined;
    if (adoptId !== undefined && adoptId !== turn.userMsgId) {
      // The agent's own id replaces the generated one: give its number back, since a replay (which
      // generates no id for this message) must number the next id-less ones the same way.
      const n = s.chunkIds.counter.user;
      if (turn.userMsgId === generatedMessageId(s.sessionId, "user", n))
        s.chunkIds = { ...s.chunkIds, counter: { ...s.chunkIds.counter, user: n - 1 } };
      turn.userMsgId = adoptId;
    }
    turn.acked = true;
    this.down.reply(turn.entry, { result: { messageId: turn.userMsgId } });
    this.emit(s, { sessionUpdate: "user_message", messageId: turn.userMsgId, content: turn.prompt });
    this.state(s, "running");
    turn.echoOpen = true;
    turn.echoCount = 0;
  }

  /** Trigger (a): any v1 message of the session acks the active prompt first. */
  private trigger(s: SessionB, update?: Obj): void {
    if (this.peer) return;
    const turn = s.turn;
    if (!turn || turn.acked) return;
    const own =
      update?.sessionUpdate === "user_message_chunk" && typeof update.messageId === "string"
        ? update.messageId
        : undefined;
    this.ack(s, turn, own);
    // The adopted id is the echo's own: later echo chunks keep it.
    if (own !== undefined) turn.echoCount = 0;
  }

  private promptAnswered(s: SessionB, turn: Turn, resp: ResponseMessage): void {
    if (turn.ackTimer) clearTimeout(turn.ackTimer);
    if (turn.withdrawn && !turn.acked) {
      // Withdrawn before its ack (T §1.4-8): answered -32800, nothing emitted.
      this.down.reply(turn.entry, { error: rpcErrors.cancelled() });
      this.finishTurn(s, turn);
      return;
    }
    if (resp.error && !turn.acked) {
      // Failed before insertion: the v2 prompt fails the same way, nothing else (T §1.4-6).
      this.down.reply(turn.entry, { error: this.errorForClient(resp.error, s.sessionId) });
      this.finishTurn(s, turn);
      return;
    }
    this.ack(s, turn);
    boundary(s, this.updates);
    const idle = resp.error
      ? promptErrorToIdle(resp.error, { cancelRequested: turn.cancelRequested }, this.toClient)
      : promptResponseToIdle(
          resp.result as v1.PromptResponse,
          { clientWantsUsage: this.config.clientWantsUsage },
          this.toClient,
        );
    if (failedConv(idle)) this.endTurn(s, { stopReason: turn.cancelRequested ? "cancelled" : "end_turn" });
    else {
      const body = idle.value as Obj;
      this.endTurn(
        s,
        turn.cancelRequested && body.stopReason !== "cancelled" && resp.error
          ? { ...body, stopReason: "cancelled", error: undefined }
          : body,
      );
    }
  }

  /** Emit the idle that ends the active turn, then start the next held prompt. */
  private endTurn(s: SessionB, idle: Obj): void {
    const turn = s.turn;
    if (!turn) return;
    const update: Obj = { sessionUpdate: "state_update", state: "idle" };
    for (const [k, v] of Object.entries(idle))
      if (v !== undefined && k !== "sessionUpdate" && k !== "state") update[k] = v;
    s.reported = "idle";
    this.emit(s, update);
    this.finishTurn(s, turn);
  }

  private finishTurn(s: SessionB, turn: Turn): void {
    if (s.turn !== turn) return;
    s.turn = undefined;
    const onEnd = turn.onEnd;
    turn.onEnd = undefined;
    onEnd?.();
    this.startNext(s);
  }

  private startNext(s: SessionB): void {
    if (s.turn || s.loadInFlight || s.closed) return;
    const next = s.queue.shift();
    if (next) this.startTurn(s, next);
  }

  /** `$/cancel_request` on a prompt (T §1.4-8). */
  private cancelPrompt(s: SessionB, held: HeldPrompt): void {
    const i = s.queue.indexOf(held);
    if (i >= 0) {
      s.queue.splice(i, 1);
      this.down.reply(held.entry, { error: rpcErrors.cancelled() });
      return;
    }
    const turn = s.turn;
    if (turn?.entry !== held.entry || turn.acked) return; // acked: ignored
    turn.withdrawn = true;
    if (turn.ackTimer) clearTimeout(turn.ackTimer);
    this.agent.notify("session/cancel", { sessionId: s.sessionId });
  }

  /** v2 `session/cancel` (T §1.4-7). */
  private cancelSession(sessionId: string, params: Obj): void {
    this.agent.notify("session/cancel", params);
    const s = this.sessions.get(sessionId);
    if (!s) return;
    for (const held of s.queue.splice(0)) this.down.reply(held.entry, { error: rpcErrors.cancelled() });
    const turn = s.turn;
    if (!turn) return;
    turn.cancelRequested = true;
    for (const r of [...turn.relayed]) {
      // Answer the v1 agent ourselves, withdraw the request from the v2 client, drop its late answer.
      turn.relayed.delete(r);
      this.up.reply(r.entry, { result: r.onCancel });
      if (r.entry.outboundId !== undefined) this.client.notify("$/cancel_request", { requestId: r.entry.outboundId });
    }
  }

  protected clientNotification(msg: NotificationMessage): void {
    const handle = this.clientNotifications.get(msg.method);
    if (handle) handle(msg, isObject(msg.params) ? msg.params : {}, undefined);
    else this.log.debug(`dropped client notification '${msg.method}': no v1 form`);
  }

  /** B, -32002 on a session-scoped request gets `data.sessionId` (H §7.1). */
  private errorForClient(error: RpcError, sessionId: string | undefined): RpcError {
    const r = errorToV2(error, { sessionId }, this.toClient);
    return r.ok ? r.value : error;
  }

  // ------------------------------------------------------------------ agent → client

  protected agentRequest(msg: RequestMessage): void {
    const params = isObject(msg.params) ? msg.params : {};
    const s = this.sessionOf(params);
    if (s) this.trigger(s);
    const handle = this.agentRequests.get(msg.method);
    if (handle) handle(msg, params);
    else this.agent.fail(msg.id, this.unknownMethod(msg.method));
  }

  private sessionOf(params: Obj): SessionB | undefined {
    return typeof params.sessionId === "string" ? this.sessions.get(params.sessionId) : undefined;
  }

  /** Before relaying a request that blocks the turn: the first one reports `requires_action` (T §1.4-4). */
  private willBlock(s: SessionB | undefined): void {
    const turn = s?.turn;
    if (!this.peer && s && turn?.acked && !turn.withdrawn && turn.blockers === 0 && !turn.cancelRequested)
      this.state(s, "requires_action");
  }

  /** Count a relayed request that blocks the turn; the returned release reports `running` again. */
  private blocking(s: SessionB | undefined, entry: Inbound, onCancel: unknown): () => void {
    const turn = s?.turn;
    if (!s || !turn) return () => undefined;
    const relayed = { entry, onCancel };
    turn.relayed.add(relayed);
    turn.blockers++;
    return () => {
      turn.relayed.delete(relayed);
      if (
        --turn.blockers === 0 &&
        turn.acked &&
        !turn.withdrawn &&
        !turn.cancelRequested &&
        s.turn === turn &&
        !this.peer
      )
        this.state(s, "running");
    };
  }

  private permission(msg: RequestMessage, params: Obj, s: SessionB | undefined): void {
    if (s) boundary(s, this.updates);
    const r = permissionRequestToV2(params as v1.RequestPermissionRequest, {
      opts: this.toClient,
      seen: (id) => s?.tools.peek(id) !== undefined,
      lastTitle: (id) => s?.tools.peek(id)?.title,
      lastKind: (id) => s?.tools.peek(id)?.kind,
      ...(typeof s?.params.cwd === "string" ? { cwd: s.params.cwd } : {}),
      files: diffFilesOfV1(params.toolCall, s, this.updates),
      extensionTerminals: s?.terminals,
    });
    if (failedConv(r)) {
      this.agent.fail(msg.id, r.error);
      return;
    }
    const v = r.value;
    if (v.kind !== "prompt") {
      this.config.log.warn("answered a permission request without options as cancelled: v2 needs at least one option");
      this.agent.respond(msg.id, (v as { response: unknown }).response);
      return;
    }
    for (const u of v.before) if (s) this.emit(s, u);
    // The request's tool call is applied like a tool_call_update (T §4 B↓-1): it is seen now, and
    // what it says is the tool's latest title and kind.
    const tc = isObject(params.toolCall) ? params.toolCall : undefined;
    // A chained A's stand-in for a subject that is no tool call: the v2 client never sees that tool call.
    const standIn = isSynthetic(unstash(params._meta, 2).env, "toolCall");
    if (s && tc && typeof tc.toolCallId === "string" && !standIn) {
      const seen = { ...s.tools.peek(tc.toolCallId) };
      if (typeof tc.title === "string") seen.title = tc.title;
      if (typeof tc.kind === "string") seen.kind = tc.kind;
      s.tools.set(tc.toolCallId, seen);
    }
    let release: () => void = () => undefined;
    this.willBlock(s);
    const entry = this.up.forward(msg, "session/request_permission", v.params, (resp) => {
      release();
      if (resp.error) {
        // After a cancel, an error (e.g. -32800) means cancelled to a v1 agent.
        if (s?.turn?.cancelRequested || resp.error.code === -32800)
          return { result: { outcome: { outcome: "cancelled" } } };
        return { error: resp.error };
      }
      const conv = permissionResponseToV1(resp.result as v2.RequestPermissionResponse, this.toAgent);
      return failedConv(conv) ? { result: { outcome: { outcome: "cancelled" } } } : { result: conv.value };
    });
    // The answer is relayed only after `running` (T §1.4-4), so release before the reply goes out.
    release = this.blocking(s, entry, { outcome: { outcome: "cancelled" } });
  }

  private elicitation(msg: RequestMessage, params: Obj, s: SessionB | undefined): void {
    if (s) boundary(s, this.updates);
    const r = elicitationRequestToV2(params as v1.CreateElicitationRequest, {
      opts: this.toClient,
      requestIdToV2: (id) => {
        for (const sess of this.sessions.values())
          if (sess.turn && sess.turn.outboundId === id)
            return { requestId: sess.turn.entry.id as v2.RequestId, ackedPromptOf: sess.sessionId };
        const entry = this.down.inbound.all().find((e) => e.outboundId === id);
        return entry ? { requestId: entry.id as v2.RequestId } : undefined;
      },
    });
    if (failedConv(r)) {
      this.agent.fail(msg.id, r.error);
      return;
    }
    let release: () => void = () => undefined;
    this.willBlock(s);
    const entry = this.up.forward(msg, "elicitation/create", r.value, (resp) => {
      release();
      if (resp.error) {
        if (s?.turn?.cancelRequested || resp.error.code === -32800) return { result: { action: "cancel" } };
        return { error: resp.error };
      }
      const conv = elicitationResponseToV1(resp.result as v2.CreateElicitationResponse, this.toAgent);
      return failedConv(conv) ? { result: { action: "cancel" } } : { result: conv.value };
    });
    release = this.blocking(s, entry, { action: "cancel" });
  }

  protected agentNotification(msg: NotificationMessage, line: Buffer | undefined): void {
    const params = isObject(msg.params) ? msg.params : {};
    const handle = this.agentNotifications.get(msg.method);
    if (handle) return handle(msg, params, line);
    const peer = this.peerNotifications.get(msg.method);
    if (peer) peer(params);
    else this.log.debug(`dropped agent notification '${msg.method}': no v2 form`);
  }

  private sessionUpdate(params: Obj): void {
    const sessionId = params.sessionId;
    if (typeof sessionId !== "string") {
      this.config.log.warn("dropped a session/update without a sessionId");
      return;
    }
    const s = this.session(sessionId);
    if (s.closed) return;
    this.trigger(s, isObject(params.update) ? params.update : undefined);
    updateToV2(s, params, this.updates);
  }

  agentGone(info: ExitInfo): void {
    // T §1.4-11: an acked turn ends with an error idle; everything else waiting fails.
    const error = {
      code: -32603,
      message: "Agent process exited",
      data: { reason: "agent_exited", exitCode: info.code },
    };
    for (const p of this.peerPrompts.values()) {
      if (!p.acked) this.down.reply(p.entry, { error });
      else if (!p.ended)
        this.emit(this.session(p.sessionId), {
          sessionUpdate: "state_update",
          state: "idle",
          stopReason: "error",
          error,
        });
    }
    this.peerPrompts.clear();
    for (const s of this.sessions.values()) {
      for (const held of s.queue.splice(0)) this.down.reply(held.entry, { error });
      const turn = s.turn;
      if (!turn) continue;
      if (turn.ackTimer) clearTimeout(turn.ackTimer);
      if (turn.acked) this.endTurn(s, { stopReason: "error", error });
      else {
        this.down.reply(turn.entry, { error });
        s.turn = undefined;
      }
    }
  }
}

/** The commands a v2 result gave the client: the session's latest list (H §4.4 reuses it). */
function rememberCommands(s: SessionB, result: unknown): void {
  const commands = isObject(result) ? result.availableCommands : undefined;
  if (Array.isArray(commands)) s.availableCommands = commands;
}
