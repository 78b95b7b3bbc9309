// Direction B: a v2 client in front of a v1 agent. The bridge is a v2 agent toward the client and
// a v1 client toward the agent: it acks prompts at insertion and reports turns with state updates
// (prompt-lifecycle.ts, T §1.4; peer.ts behind an A bridge, T §5.5), emulates the v2 baseline a v1
// agent lacks (emulation.ts, H §2.3), and refuses what v2 removed. Handlers return what they
// produce; the engine core writes it. This class holds the handler tables and routes: the handlers
// live by concern (lifecycle.ts, config-options.ts, prompts.ts, agent-requests.ts, updates/), as
// in direction A (../v1-client/), and share what context.ts describes.
import { NOT_TEXT_OR_DIFF_ITEMS } from "../text-content.js";
import { BRIDGE_METHOD_PREFIX, clientRequestsWith } from "../../../mappings/methods.js";
import { limits } from "../../../mappings/limits.js";
import type { AgentFlags } from "../../convert/capabilities.js";
import { errorToV2 } from "../../convert/error.js";
import { isObject, type Obj } from "../../base/json.js";
import { agentExitedToV2 } from "../../convert/error.js";
import { logoutUnsupported, rpcErrors, sessionNotFound } from "../../base/errors.js";
import { optionsToward, type ConvertOptions } from "../../convert/stash.js";
import type { NotificationMessage, RequestMessage, RpcError } from "../../wire/jsonrpc.js";
import { SessionTable } from "../bounded.js";
import type { Link } from "../link.js";
import { NOTHING, rejected, type Outgoing } from "../outgoing.js";
import type { ExitInfo } from "../translator.js";
import { noteDropped, noteLost } from "../observer.js";
import { objectResult, TranslatingMode } from "../translating.js";
import { elicitation, permission } from "./agent-requests.js";
import { refused, type BConfig, type EngineB } from "./context.js";
import { setConfigOption } from "./config-options.js";
import { close, list, resume } from "./emulation.js";
import { create, deleteSession, sessionScoped, status } from "./lifecycle.js";
import { cancel, prompt } from "./prompts.js";
import { PeerTurns } from "./peer.js";
import type { TurnIO } from "./prompt-lifecycle.js";
import { SessionB } from "./session.js";
import { LocalTurns, type TurnStrategy } from "./turns.js";
import {
  clientUpdate,
  fastMembersToV2,
  fastUpdateToV2,
  MEMBER_TAGS,
  MEMBER_TAGS_ANYWHERE,
  updateToV2,
  type UpdateContextB,
} from "./updates/index.js";
import type { ScannedMembers } from "../../wire/member-scan.js";
import { SLOT, type ScannedUpdate } from "../../wire/update-scan.js";
import { scanCommands, type ScannedCommands } from "../../wire/commands-scan.js";

export { DEFAULT_CLOSE_DRAIN_MS, type BConfig } from "./context.js";

type RequestHandler = (msg: RequestMessage, params: Obj) => readonly Outgoing[];
type NotificationHandler = (params: Obj) => readonly Outgoing[];

/** Client requests that make the bridge keep state for a session (admitted against the limit). */
const OPENS_SESSION = clientRequestsWith("b", "opensSession");

/** Methods a session closed on this connection still answers (the agent keeps it saved). */
const AFTER_CLOSE = clientRequestsWith("b", "afterClose");

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
      observer: config.observer,
    };
    config.observer?.stash("client", toClient.stash);
    config.observer?.stash("agent", toAgent.stash);
    const write = (out: readonly Outgoing[]) => this.write(out);
    const errorForClient = (error: RpcError, sessionId: string | undefined) => this.errorForClient(error, sessionId);
    this.io = {
      ackGraceMs: config.ackGraceMs,
      toClient,
      write,
      errorForClient,
      log: config.log,
      observer: config.observer,
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
      forget: (sessionId) => sessions.delete(sessionId),
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
    noteLost(this.b.config.observer, "(error)", "agent", error, r);
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
    "session/new": this.writes((msg, params) => create(this.b, msg, params, "new")),
    "session/fork": this.writes((msg, params) => create(this.b, msg, params, "fork")),
    "session/resume": this.writes((msg, params) => resume(this.b, msg, params)),
    "session/list": this.writes((msg, params) => list(this.b, msg, params)),
    "session/close": this.writes((msg, params) => close(this.b, msg, params)),
    "session/delete": (msg, params) => deleteSession(this.b, msg, params),
    "session/set_config_option": this.writes((msg, params) => setConfigOption(this.b, msg, params)),
    "session/prompt": this.writes((msg, params) => prompt(this.b, msg, params)),
    "session/status": (msg, params) => status(this.b, msg, params),
    "session/set_title": (msg, params) => sessionScoped(this.b, msg, params),
    "session/archive": (msg, params) => sessionScoped(this.b, msg, params),
    "session/unarchive": (msg, params) => sessionScoped(this.b, msg, params),
  });

  private readonly clientNotifications = this.notificationRoutes<"b", "client", Obj>("b", "client", {
    "session/cancel": (_msg, params) => this.write(cancel(this.b, params)),
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

  protected clientNotification(msg: NotificationMessage): void {
    const handle = this.clientNotifications.get(msg.method);
    if (handle) handle(msg, isObject(msg.params) ? msg.params : {}, undefined);
    else {
      this.log.debug(`dropped client notification '${msg.method}': no v1 form`);
      noteDropped(this.b.config.observer, msg.method, "client", msg.params, "no v1 form: dropped");
    }
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
    else {
      this.log.debug(`dropped agent notification '${msg.method}': no v2 form`);
      noteDropped(this.b.config.observer, msg.method, "agent", msg.params, "no v2 form: dropped");
    }
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
    const s = this.fastSession(u.string(SLOT.sessionId));
    if (s === undefined) return false;
    const bytes = fastUpdateToV2(s, u);
    if (bytes === undefined) return false;
    this.client.writeProven(bytes);
    return true;
  }

  /**
   * The fast path of a v1 `available_commands_update` (commands-scan.ts): the line the full path
   * writes, and the list it records (kept as its text until read: a list is rarely read again).
   */
  readonly commandsScan = scanCommands;

  fastCommands(c: ScannedCommands): boolean {
    const s = this.fastSession(c.sessionId);
    // A list during a suppressed replay, and a chained A's follow-up (it has a `_meta`), take the full path.
    if (s === undefined || s.suppressHistory) return false;
    s.rememberCommandsText(c.list);
    this.client.writeProven(c.out);
    return true;
  }

  readonly memberTags = MEMBER_TAGS;
  readonly memberTagsAnywhere = MEMBER_TAGS_ANYWHERE;
  readonly memberDeclines = NOT_TEXT_OR_DIFF_ITEMS;

  /** The fast path of an update member-scan.ts proved (fast-lines.ts), like `fastUpdate`. */
  fastMembers(m: ScannedMembers): boolean {
    const s = this.fastSession(m.sessionId());
    const bytes = s === undefined ? undefined : fastMembersToV2(s, m, this.b.updates);
    if (bytes === undefined) return false;
    this.client.writeProven(bytes);
    return true;
  }

  /** The session of an update a fast path may take: known, open, its prompt's ack not pending. */
  private fastSession(sessionId: string | undefined): SessionB | undefined {
    if (this.fastOff || !this.client.takesProven) return undefined;
    const s = sessionId === undefined ? undefined : this.sessions.get(sessionId);
    // T §1.4-2 (a): an update that acks a prompt takes the full path.
    if (s === undefined || s.closed || s.prompts.awaitsAck) return undefined;
    return s;
  }

  agentGone(info: ExitInfo): void {
    // T §1.4-11: an acked turn ends with an error idle; everything else waiting fails.
    const error = agentExitedToV2(info.code);
    this.write(this.b.turns.agentGone(this.sessions.values(), error));
  }
}
