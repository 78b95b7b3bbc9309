// Direction B: a v2 client in front of a v1 agent. The bridge is a v2 agent toward the client and
// a v1 client toward the agent: it acks prompts at insertion and reports turns with state updates
// (prompt-lifecycle.ts, T §1.4; peer.ts behind an A bridge, T §5.5), emulates the v2 baseline a v1
// agent lacks (emulation.ts, H §2.3), and refuses what v2 removed. Handlers return what they
// produce; the engine core writes it.
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { BRIDGE_METHOD_PREFIX, clientRequestsWith } from "../../../mappings/methods.js";
import { limits } from "../../../mappings/limits.js";
import type { AgentFlags } from "../../convert/capabilities.js";
import { setConfigOptionRequestToV1, setConfigOptionResponseToV2 } from "../../convert/config-option.js";
import { errorToV2 } from "../../convert/error.js";
import { isObject, type Obj } from "../../base/json.js";
import { modelOptionId, setConfigOptionToSetModel, withCurrentModel } from "../../convert/models.js";
import {
  agentConfigFromResult,
  agentModeBinding,
  setConfigOptionOnSyntheticToSetMode,
  setModeResponseToSetConfigOptionResponse,
  withCurrentMode,
} from "../../convert/mode.js";
import { promptRequestToV1 } from "../../convert/prompt.js";
import { agentExitedToV2 } from "../../convert/error.js";
import { logoutUnsupported, rpcErrors, sessionNotFound } from "../../base/errors.js";
import { forkSessionRequestToV1, newSessionRequestToV1 } from "../../convert/session.js";
import { forkSessionResponseToV2, newSessionResponseToV2 } from "../../convert/session-result.js";
import { optionsToward, type ConvertOptions } from "../../convert/stash.js";
import type { NotificationMessage, RequestMessage, RpcError } from "../../wire/jsonrpc.js";
import { SessionTable } from "../bounded.js";
import type { Link } from "../link.js";
import { noSessionId, NOTHING, notify, rejected, type Outgoing } from "../outgoing.js";
import type { ExitInfo } from "../translator.js";
import { malformed, objectResult, TranslatingMode } from "../translating.js";
import { elicitation, permission } from "./agent-requests.js";
import { mcp, refused, roots, type BConfig, type EngineB } from "./context.js";
import { close, list, resume } from "./emulation.js";
import { PeerTurns } from "./peer.js";
import type { TurnIO } from "./prompt-lifecycle.js";
import { SessionB } from "./session.js";
import { LocalTurns, type TurnStrategy } from "./turns.js";
import { clientUpdate, fastUpdateToV2, updateToV2, type UpdateContextB } from "./updates.js";
import type { ScannedUpdate } from "../../wire/update-scan.js";

export { DEFAULT_CLOSE_DRAIN_MS, type BConfig } from "./context.js";

type RequestHandler = (msg: RequestMessage, params: Obj) => readonly Outgoing[];
type NotificationHandler = (params: Obj) => readonly Outgoing[];

/** Client requests that make the bridge keep state for a session (admitted against the limit). */
const OPENS_SESSION = clientRequestsWith("b", "opensSession");

/** Methods a session closed on this connection still answers (the agent keeps it saved). */
const AFTER_CLOSE = clientRequestsWith("b", "afterClose");

/** The legacy model setter of earlier unstable SDKs (its row in mappings/methods.ts). */
const SET_MODEL = "session/set_model";

export class DirectionB extends TranslatingMode {
  readonly mode = "B" as const;
  private readonly sessions: SessionTable<SessionB>;
  private readonly io: TurnIO;
  /** What the handler modules share (context.ts). */
  private readonly b: EngineB;
  /**
   * The fast path is off for a bridge on either side (stashes, key-order records, lifecycle states
   * from the peer) and whenever the client gets a stash (its marks ride on what the fast path copies).
   */
  private readonly fastOff: boolean;

  constructor(
    client: Link,
    agent: Link,
    config: BConfig,
    flags: AgentFlags,
    /** The v1 "agent" is an A bridge: lifecycle states and acks come from it (T §5.5). */
    peer = false,
    /** The v2 "client" is an A bridge (its initialize request carries the marker). */
    clientIsBridge = false,
  ) {
    super(client, agent, config.log);
    this.sessions = new SessionTable<SessionB>(
      config.maxSessions ?? limits.sessions.default,
      (s) => s.prompts.quiet,
      (s) => s.closed,
    );
    const toClient: ConvertOptions = optionsToward(config.stash, clientIsBridge);
    const toAgent: ConvertOptions = optionsToward(config.stash, peer);
    this.fastOff = peer || clientIsBridge || toClient.stash !== "off";
    this.keepKeyOrder(2, {
      client: clientIsBridge && toClient.stash !== "off",
      agent: peer && toAgent.stash !== "off",
    });
    const updates: UpdateContextB = {
      opts: toClient,
      log: config.log,
      diffFileMaxBytes: config.diffFileMaxBytes ?? 0,
      clientIsBridge,
    };
    const write = (out: readonly Outgoing[]) => this.write(out);
    const errorForClient = (error: RpcError, sessionId: string | undefined) => this.errorForClient(error, sessionId);
    this.io = {
      ackGraceMs: config.ackGraceMs,
      toClient,
      write,
      errorForClient,
      log: config.log,
    };
    // The strategy is chosen once, here: the agent's initialize result said whether it is a bridge.
    const turns: TurnStrategy = peer ? new PeerTurns(this.io) : new LocalTurns();
    const sessions = this.sessions;
    this.b = {
      config,
      flags,
      toClient,
      toAgent,
      clientIsBridge,
      updates,
      turns,
      down: this.down,
      up: this.up,
      session: (sessionId) => this.session(sessionId),
      known: (sessionId) => (typeof sessionId === "string" ? sessions.get(sessionId) : undefined),
      sessions: () => sessions.values(),
      write,
      errorForClient,
    };
  }

  /** The one place a session is made: on first sight of its id. */
  private session(sessionId: string): SessionB {
    return this.sessions.obtain(sessionId, () => new SessionB(sessionId, this.io));
  }

  /** B, -32002 on a session-scoped request gets `data.sessionId` (H §7.1). */
  private errorForClient(error: RpcError, sessionId: string | undefined): RpcError {
    const r = errorToV2(error, { sessionId }, this.b.toClient);
    return r.ok ? r.value : error;
  }

  /** Core tables take handlers that write; B's return what they produce, written here. */
  private writes(h: RequestHandler): (msg: RequestMessage, params: Obj) => void {
    return (msg, params) => this.write(h(msg, params));
  }

  // ------------------------------------------------------------------ client → agent

  protected clientRequest(msg: RequestMessage): void {
    // v2 request ids (strings or integers, H §7.2) are checked by the bridge before any translator.
    const method = msg.method;
    const params = isObject(msg.params) ? msg.params : {};
    const s = this.b.known(params.sessionId);
    if (s?.closed && !AFTER_CLOSE.has(method)) return this.write(rejected(msg, sessionNotFound(s.sessionId)));
    // Room for its state (mappings/limits.ts): an idle session may be forgotten, a busy one never.
    const sessionId = typeof params.sessionId === "string" ? params.sessionId : undefined;
    const opens = OPENS_SESSION.get(method);
    if (opens !== undefined && !this.sessions.admit(opens === "named" ? sessionId : undefined, true))
      return this.fail(msg, rpcErrors.limit(limits.sessions, this.sessions.limit));
    const handle = this.clientRequests.get(method);
    if (handle) handle(msg, params);
    else this.fail(msg, this.unknownMethod(method));
  }

  // Every method the table routes through this engine has its handler here (checked by the
  // compiler against mappings/methods.ts); forwarded and refused methods take the table's default.
  // A handler returns what it produces (`writes`); one that only re-issues the request produces
  // nothing itself: its route answers.
  private readonly clientRequests = this.requestRoutes<"b", "client", Obj>("b", "client", {
    initialize: (msg) => this.reinitialize(msg),
    "auth/login": (msg, params) => void this.down.forward(msg, "authenticate", params, objectResult),
    "auth/logout": this.writes((msg, params) => this.logout(msg, params)),
    "session/new": this.writes((msg, params) => this.create(msg, params, "new")),
    "session/fork": this.writes((msg, params) => this.create(msg, params, "fork")),
    "session/resume": this.writes((msg, params) => resume(this.b, msg, params)),
    "session/list": this.writes((msg, params) => list(this.b, msg, params)),
    "session/close": this.writes((msg, params) => close(this.b, msg, params)),
    "session/delete": (msg, params) => this.deleteSession(msg, params),
    "session/set_config_option": this.writes((msg, params) => this.setConfigOption(msg, params)),
    "session/prompt": this.writes((msg, params) => this.prompt(msg, params)),
    "session/status": (msg, params) => this.status(msg, params),
    "session/set_title": (msg, params) => this.sessionScoped(msg, params),
    "session/archive": (msg, params) => this.sessionScoped(msg, params),
    "session/unarchive": (msg, params) => this.sessionScoped(msg, params),
  });

  private readonly clientNotifications = this.notificationRoutes<"b", "client", Obj>("b", "client", {
    "session/cancel": (_msg, params) => this.write(this.cancel(params)),
    "$/cancel_request": (_msg, params) => this.down.cancel(params.requestId, params._meta),
  });

  private readonly agentRequests = this.requestRoutes<"b", "agent", Obj>("b", "agent", {
    "session/request_permission": this.writes((msg, params) =>
      permission(this.b, msg, params, this.b.known(params.sessionId)),
    ),
    "elicitation/create": this.writes((msg, params) =>
      elicitation(this.b, msg, params, this.b.known(params.sessionId)),
    ),
  });

  private readonly agentNotifications = this.notificationRoutes<"b", "agent", Obj>("b", "agent", {
    "session/update": (_msg, params) => this.write(this.sessionUpdate(params)),
    "$/cancel_request": (_msg, params) => this.up.cancel(params.requestId, params._meta),
  });

  /** Bridge-to-bridge notifications from an A bridge (T §5.5). */
  private readonly peerNotifications = new Map<string, NotificationHandler>([
    [`${BRIDGE_METHOD_PREFIX}prompt_accepted`, (params) => this.b.turns.accepted(params)],
    [
      `${BRIDGE_METHOD_PREFIX}session_update`,
      // From an A bridge: a v2 update with no v1 form, verbatim (T §5.5).
      (params) =>
        typeof params.sessionId === "string" && isObject(params.update)
          ? [clientUpdate(params.sessionId, params.update)]
          : NOTHING,
    ],
  ]);

  private logout(msg: RequestMessage, params: Obj): readonly Outgoing[] {
    if (!this.b.flags.logout) return refused(msg, logoutUnsupported());
    this.down.forward(msg, "logout", params, objectResult);
    return NOTHING;
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
    const sessionId = typeof params.sessionId === "string" ? params.sessionId : undefined;
    this.down.forward(msg, msg.method, params, (resp) => {
      if (resp.error) return { error: this.errorForClient(resp.error, sessionId) };
      if (!isObject(resp.result)) return malformed(msg.method, resp.result);
      // Both versions require the status: v2 must not get an answer without one.
      if (typeof resp.result.status !== "string")
        return malformed(msg.method, { field: "status", reason: "not_string" });
      const s = this.b.known(sessionId);
      const state = s && !s.closed ? this.b.turns.state(s) : undefined;
      if (state === undefined || resp.result.status !== "open" || isObject(resp.result.state))
        return { result: resp.result };
      return { result: { ...resp.result, state: { state } } };
    });
  }

  /** `session/new` and `session/fork`: a session starts; its parameters and modes are recorded. */
  private create(msg: RequestMessage, params: Obj, kind: "new" | "fork"): readonly Outgoing[] {
    const ctx = { ...this.b.toAgent, ...roots(this.b), ...mcp(this.b) };
    const r =
      kind === "new"
        ? newSessionRequestToV1(params as v2.NewSessionRequest, ctx)
        : forkSessionRequestToV1(params as never, ctx);
    if (!r.ok) return rejected(msg, r.error);
    const method = `session/${kind}`;
    this.down.forward(msg, method, r.value, (resp) => {
      if (resp.error) return { error: resp.error };
      const conv =
        kind === "new"
          ? newSessionResponseToV2(resp.result, {}, this.b.toClient)
          : forkSessionResponseToV2(resp.result, {}, this.b.toClient);
      if (!conv.ok) return malformed(method, conv.error.data);
      const sessionId = conv.value.sessionId;
      if (typeof sessionId === "string") {
        const s = this.session(sessionId);
        s.record(params);
        s.config = agentConfigFromResult(resp.result);
        s.rememberCommands(conv.value);
      }
      return { result: conv.value };
    });
    return NOTHING;
  }

  private setConfigOption(msg: RequestMessage, params: Obj): readonly Outgoing[] {
    const sessionId = params.sessionId;
    if (typeof sessionId !== "string") return noSessionId(msg);
    const s = this.session(sessionId);
    const binding = agentModeBinding(s.config);
    if (binding?.kind === "modes" && params.configId === binding.configId) {
      // The synthetic mode option (H §5.3): a v1 session/set_mode, checked before the agent is asked.
      const r = setConfigOptionOnSyntheticToSetMode(params, s.config);
      if (!r.ok) return rejected(msg, r.error);
      const modeId = r.value.modeId;
      this.down.forward(msg, "session/set_mode", r.value, (resp) => {
        if (resp.error) return { error: resp.error };
        s.config = withCurrentMode(s.config, modeId);
        const conv = setModeResponseToSetConfigOptionResponse(resp.result ?? {}, s.config, this.b.toClient);
        if (!conv.ok) return malformed("session/set_mode", conv.error.data);
        return { result: conv.value };
      });
      return NOTHING;
    }
    const models = s.config.models;
    if (models !== undefined && params.configId === modelOptionId(s.config.configOptions)) {
      // The option standing for legacy `models`: the v1 agent's own `session/set_model`.
      const m = setConfigOptionToSetModel(params, models);
      if (!m.ok) return rejected(msg, m.error);
      this.down.forward(msg, SET_MODEL, m.value, (resp) => {
        if (resp.error) return { error: resp.error };
        s.config = { ...s.config, models: withCurrentModel(models, m.value.modelId) };
        const conv = setModeResponseToSetConfigOptionResponse(resp.result ?? {}, s.config, this.b.toClient);
        if (!conv.ok) return malformed(SET_MODEL, conv.error.data);
        return { result: conv.value };
      });
      return NOTHING;
    }
    const r = setConfigOptionRequestToV1(params);
    if (!r.ok) return rejected(msg, r.error);
    this.down.forward(msg, "session/set_config_option", r.value, (resp) => {
      if (resp.error) return { error: resp.error };
      const conv = setConfigOptionResponseToV2(
        resp.result,
        { modes: s.config.modes, models: s.config.models },
        this.b.toClient,
      );
      if (!conv.ok) return malformed("session/set_config_option", conv.error.data);
      if (isObject(resp.result)) s.config = { ...s.config, configOptions: resp.result.configOptions };
      return { result: conv.value };
    });
    return NOTHING;
  }

  // ------------------------------------------------------------------ prompts (T §1.4, §5.5)

  private prompt(msg: RequestMessage, params: Obj): readonly Outgoing[] {
    const sessionId = params.sessionId;
    if (typeof sessionId !== "string") return noSessionId(msg);
    const r = promptRequestToV1(params as v2.PromptRequest, this.b.toAgent);
    if (!r.ok) return rejected(msg, r.error);
    const s = this.session(sessionId);
    return this.b.turns.prompt(s, this.down.local(msg), r.value);
  }

  /** v2 `session/cancel` (T §1.4-7): forwarded, and the session's turn is cancelled. */
  private cancel(params: Obj): readonly Outgoing[] {
    const forwarded = notify("agent", "session/cancel", params);
    const s = this.b.known(params.sessionId);
    return s ? [forwarded, ...s.prompts.cancel()] : [forwarded];
  }

  protected clientNotification(msg: NotificationMessage): void {
    const handle = this.clientNotifications.get(msg.method);
    if (handle) handle(msg, isObject(msg.params) ? msg.params : {}, undefined);
    else this.log.debug(`dropped client notification '${msg.method}': no v1 form`);
  }

  // ------------------------------------------------------------------ agent → client

  protected agentRequest(msg: RequestMessage): void {
    const params = isObject(msg.params) ? msg.params : {};
    // T §1.4-2 (a): a request naming the session acks its prompt before it is relayed.
    const s = this.b.known(params.sessionId);
    if (s) this.write(this.b.turns.heard(s));
    const handle = this.agentRequests.get(msg.method);
    if (handle) handle(msg, params);
    else this.agent.fail(msg.id, this.unknownMethod(msg.method));
  }

  protected agentNotification(msg: NotificationMessage, line: Buffer | undefined): void {
    const params = isObject(msg.params) ? msg.params : {};
    const handle = this.agentNotifications.get(msg.method);
    if (handle) return handle(msg, params, line);
    const peer = this.peerNotifications.get(msg.method);
    if (peer) this.write(peer(params));
    else this.log.debug(`dropped agent notification '${msg.method}': no v2 form`);
  }

  private sessionUpdate(params: Obj): readonly Outgoing[] {
    const sessionId = params.sessionId;
    if (typeof sessionId !== "string") {
      this.log.warn("dropped a session/update without a sessionId");
      return NOTHING;
    }
    if (!this.sessions.fits(sessionId) && !this.sessions.admit(sessionId, true)) {
      this.log.warn(`dropped a session/update for an unknown session: ${this.sessions.limit} are busy`);
      return NOTHING;
    }
    const s = this.session(sessionId);
    if (s.closed) return NOTHING;
    // T §1.4-2 (a): the update acks the session's prompt before it is translated; written first, so
    // a translation that throws (the crash barrier drops the update) cannot take the ack with it.
    this.write(this.b.turns.heard(s, isObject(params.update) ? params.update : undefined));
    return updateToV2(s, params, this.b.updates);
  }

  /** The fast path (fast-lines.ts): what updates.ts proves the full path writes, written as bytes. */
  fastUpdate(u: ScannedUpdate): boolean {
    if (this.fastOff || !this.client.takesProven) return false;
    const sessionId = u.string("sessionId");
    const s = sessionId === undefined ? undefined : this.sessions.get(sessionId);
    // T §1.4-2 (a): an update that acks a prompt takes the full path.
    if (s === undefined || s.closed || s.prompts.awaitsAck) return false;
    const bytes = fastUpdateToV2(s, u);
    if (bytes === undefined) return false;
    this.client.writeProven(bytes);
    return true;
  }

  agentGone(info: ExitInfo): void {
    // T §1.4-11: an acked turn ends with an error idle; everything else waiting fails.
    const error = agentExitedToV2(info.code);
    this.write(this.b.turns.agentGone(this.sessions.values(), error));
  }
}
