// Direction A: a v1 client in front of a v2 agent (the main migration case). The bridge is a v1
// agent toward the client and a v2 client toward the agent. Requests are translated by the pure
// converters; this class keeps the state they need (sessions, prompts, tool calls) and routes.
// The handlers live by concern (lifecycle.ts, config-options.ts, prompts.ts, agent-requests.ts,
// updates/), as in direction B (../v2-client/), and share what context.ts describes.
import { NOT_TEXT_ITEMS } from "../text-content.js";
import { clientRequestsWith, methodRow } from "../../../mappings/methods.js";
import { limits } from "../../../mappings/limits.js";
import { ShownContents } from "./state/tool-calls.js";
import { renderingReadsFiles } from "../../convert/diff.js";
import { agentExitedToV1 } from "../../convert/error.js";
import { noSessionSurface, rpcErrors } from "../../base/errors.js";
import { isObject, type Obj } from "../../base/json.js";
import { optionsToward, type ConvertOptions } from "../../convert/stash.js";
import type { NotificationMessage, RequestMessage } from "../../wire/jsonrpc.js";
import type { Link } from "../link.js";
import { fail, NOTHING, type Outgoing } from "../outgoing.js";
import { SessionTable } from "../bounded.js";
import type { ExitInfo } from "../translator.js";
import { noteDropped } from "../observer.js";
import type { ScannedMembers } from "../../wire/member-scan.js";
import { SLOT, type ScannedUpdate } from "../../wire/update-scan.js";
import { objectResult, TranslatingMode } from "../translating.js";
import { SessionA } from "./session.js";
import { EditorGlue, editorTransport } from "./editor.js";
import { elicitation, permission } from "./agent-requests.js";
import { setConfigOption, setMode, setModel } from "./config-options.js";
import type { AConfig, AgentFlagsA, EngineA } from "./context.js";
import { closeOrDelete, lifecycle, list } from "./lifecycle.js";
import { cancelSession, prompt } from "./prompts.js";
import { scanV2Commands, type ScannedCommands } from "../../wire/commands-scan.js";
import {
  fastMembersToV1,
  WRITES_NOTHING,
  fastUpdateToV1,
  flushSession,
  MEMBER_TAGS,
  MEMBER_TAGS_ANYWHERE,
  updateToV1,
  type ClientFlags,
  type UpdateContext,
} from "./updates/index.js";

/** Client requests that make the bridge keep state for a session (admitted against the limit). */
const OPENS_SESSION = clientRequestsWith("a", "opensSession");

export type { AConfig, AgentFlagsA } from "./context.js";

export class DirectionA extends TranslatingMode {
  readonly mode = "A" as const;
  private readonly sessions: SessionTable<SessionA>;
  private readonly connection = { agentReportsBusy: false };
  private readonly updates: UpdateContext;
  /** Options of every conversion whose output goes to the v1 client: a stash only if it is a bridge. */
  private readonly toClient: ConvertOptions;
  /** Likewise for the v2 agent. */
  private readonly toAgent: ConvertOptions;
  /** What the handler modules share (context.ts). */
  private readonly a: EngineA;
  /** The editor's MCP servers offered to the agent (editor.ts), if any. */
  private readonly editor: EditorGlue | undefined;

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
      observer: config.observer,
      shownContent: new ShownContents(limits.shownContents.default, limits.shownContentChars.default),
    };
    config.observer?.stash("client", this.toClient.stash);
    config.observer?.stash("agent", this.toAgent.stash);
    this.keepKeyOrder(1, {
      client: clientFlags.bridgePeer && this.toClient.stash !== "off",
      agent: agentFlags.bridge === true && this.toAgent.stash !== "off",
    });
    const sessions = this.sessions;
    const transport = editorTransport(config.editorTools, clientFlags, agentFlags);
    const editor =
      transport === undefined || config.editorTools === undefined
        ? undefined
        : new EditorGlue(
            transport,
            config.editorTools,
            {
              fsRead: clientFlags.fsRead === true,
              fsWrite: clientFlags.fsWrite === true,
              terminals: clientFlags.terminals === true,
            },
            client,
            agent,
            config.platform,
            config.log,
          );
    if (editor)
      config.log.info(`offering the client's files and terminals to the agent as an MCP server (${transport})`);
    this.editor = editor;
    this.a = {
      config,
      clientFlags,
      agentFlags,
      toClient: this.toClient,
      toAgent: this.toAgent,
      updates: this.updates,
      down: this.down,
      up: this.up,
      agent,
      session: (sessionId) => this.session(sessionId),
      known: (sessionId) => (typeof sessionId === "string" ? sessions.get(sessionId) : undefined),
      write: (out) => this.write(out),
      editor,
    };
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
    "session/new": (msg, params) => this.write(lifecycle(this.a, msg, params, "new")),
    "session/load": (msg, params) => this.write(lifecycle(this.a, msg, params, "load")),
    "session/resume": (msg, params) => this.write(lifecycle(this.a, msg, params, "resume")),
    "session/fork": (msg, params) => this.write(lifecycle(this.a, msg, params, "fork")),
    "session/list": (msg, params) => this.write(list(this.a, msg, params)),
    "session/close": (msg, params) => this.write(closeOrDelete(this.a, msg, params)),
    "session/delete": (msg, params) => this.write(closeOrDelete(this.a, msg, params)),
    "session/set_mode": (msg, params) => this.write(setMode(this.a, msg, params)),
    "session/set_config_option": (msg, params) => this.write(setConfigOption(this.a, msg, params)),
    "session/set_model": (msg, params) => this.write(setModel(this.a, msg, params)),
    "session/prompt": (msg, params) => this.write(prompt(this.a, msg, params)),
  });

  private readonly clientNotifications = this.notificationRoutes<"a", "client", Obj | undefined>("a", "client", {
    "session/cancel": (_msg, params) => this.write(cancelSession(this.a, params)),
    "$/cancel_request": (_msg, params) => this.down.cancel(params?.requestId, params?._meta),
  });

  private readonly agentRequests = this.requestRoutes<"a", "agent", Obj | undefined>("a", "agent", {
    "session/request_permission": (msg, params) => this.write(permission(this.a, msg, params)),
    "elicitation/create": (msg, params) => this.write(elicitation(this.a, msg, params)),
  });

  private readonly agentNotifications = this.notificationRoutes<"a", "agent", Obj | undefined>("a", "agent", {
    "session/update": (msg, params, line) => this.write(this.sessionUpdate(msg, params, line)),
    // Already answered (e.g. the client answered `cancelled` itself): dropped by the route. One for
    // the editor's own MCP server goes to it.
    "$/cancel_request": (_msg, params) => {
      if (!this.editor?.cancel(params?.requestId)) this.up.cancel(params?.requestId, params?._meta);
    },
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

  protected clientNotification(msg: NotificationMessage): void {
    const handle = this.clientNotifications.get(msg.method);
    if (handle) handle(msg, isObject(msg.params) ? msg.params : undefined, undefined);
    else {
      this.log.debug(`dropped client notification '${msg.method}': no v2 form`);
      noteDropped(this.config.observer, msg.method, "client", msg.params, "no v2 form: dropped");
    }
  }

  // ------------------------------------------------------------------ agent → client

  protected agentRequest(msg: RequestMessage): void {
    const method = msg.method;
    // MCP-over-ACP for the editor's server is the bridge's to answer; other servers are the client's.
    if (method === "mcp/message" && msg.id !== null && this.editor?.agentRequest(msg.id, msg.params)) return;
    const handle = this.agentRequests.get(method);
    if (handle) return handle(msg, isObject(msg.params) ? msg.params : undefined);
    const row = methodRow(1, method);
    const reason =
      row && row.v2 === null
        ? "ACP v2 removed this client method; a v2 agent must not call it"
        : "unknown method: it cannot be translated between ACP v1 and v2";
    this.write([fail("agent", msg.id, rpcErrors.methodNotFound({ method, reason }))]);
  }

  protected agentNotification(msg: NotificationMessage, line: Buffer | undefined): void {
    const handle = this.agentNotifications.get(msg.method);
    if (handle) handle(msg, isObject(msg.params) ? msg.params : undefined, line);
    else {
      this.log.debug(`dropped agent notification '${msg.method}': no v1 form`);
      noteDropped(this.config.observer, msg.method, "agent", msg.params, "no v1 form: dropped");
    }
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
    const sessionId = u.string(SLOT.sessionId);
    const s = sessionId === undefined ? undefined : this.sessions.get(sessionId);
    const bytes = s === undefined || s.closed ? undefined : fastUpdateToV1(s, u, this.updates);
    if (bytes === undefined) return false;
    if (bytes !== WRITES_NOTHING) this.client.writeProven(bytes);
    return true;
  }

  readonly fastUserChunks = true;

  readonly memberTags = MEMBER_TAGS;
  readonly memberTagsAnywhere = MEMBER_TAGS_ANYWHERE;
  readonly memberDeclines = NOT_TEXT_ITEMS;

  readonly commandsScan = scanV2Commands;

  /**
   * The fast path of a v2 command list commands-scan.ts proved (`scanV2Commands`): the v1 line the
   * full path writes. Declined where `fastMembers` declines a list (its `fastMembersToV1`).
   */
  fastCommands(c: ScannedCommands): boolean {
    if (this.clientFlags.bridgePeer || !this.client.takesProven) return false;
    const s = this.sessions.get(c.sessionId);
    if (s === undefined || s.closed || s.pendingTools.size > 0) return false;
    this.client.writeProven(c.out);
    return true;
  }

  /** The fast path of an update member-scan.ts proved (fast-lines.ts), like `fastUpdate`. */
  fastMembers(m: ScannedMembers): boolean {
    if (this.clientFlags.bridgePeer || !this.client.takesProven) return false;
    const s = this.sessions.get(m.sessionId());
    const bytes = s === undefined || s.closed ? undefined : fastMembersToV1(s, m, this.updates);
    if (bytes === undefined) return false;
    if (bytes !== WRITES_NOTHING) this.client.writeProven(bytes);
    return true;
  }

  agentGone(info: ExitInfo): void {
    this.editor?.closeAll();
    // T §1.2-9: every pending prompt fails visibly; no invented stop reason.
    const error = agentExitedToV1(info.code, this.toClient);
    for (const s of this.sessions.values()) {
      this.write([...flushSession(s, this.updates), ...s.lifecycle.agentGone(error)]);
      s.dispose();
    }
  }
}
