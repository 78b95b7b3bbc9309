// A v1-only ACP agent on the official SDK (`@agentclientprotocol/sdk`) for the bridge's end-to-end
// tests and demo: the same scripted turns as agent-v2 (scenario.ts), with the v1 lifecycle.
import { randomUUID } from "node:crypto";
import { isAbsolute } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import {
  CRASH_EXIT_CODE,
  type DemoOptions,
  demoOptions,
  idGenerator,
  isEntry,
  type PermissionAnswer,
  planTurn,
  promptText,
  raceAbort,
  runScript,
  SessionStore,
  sleep,
  type StoredSession,
  titleFrom,
  type ToolResult,
  type ToolSpec,
  type TurnHost,
  type TurnOutcome,
} from "./scenario.js";
import { exitAfterFlush, inArrivalOrder, stdioStreams, wireLogSink } from "./stdio.js";

export const AGENT_INFO = { name: "acp-bridge-demo-agent-v1", title: "acp-bridge demo agent (v1)", version: "1.0.0" };
export const LOGIN_METHOD_ID = "demo-login";

const AUTH_METHODS: acp.AuthMethod[] = [
  { id: LOGIN_METHOD_ID, name: "Demo login", description: "Signs in without credentials." },
];

const COMMANDS: acp.AvailableCommand[] = [
  { name: "test", description: "Run the tests", input: { hint: "test name filter" } },
  { name: "plan", description: "Write a plan for the task" },
];

const MODES = [
  { id: "ask", name: "Ask", description: "Ask before changing anything" },
  { id: "code", name: "Code", description: "Edit files and run commands" },
] as const;
const MODELS = ["fast", "smart"] as const;
const DEFAULT_CONFIG = { mode: "ask", model: "fast" } as const;

function capabilities(full: boolean): acp.AgentCapabilities {
  return {
    loadSession: true,
    promptCapabilities: { image: true, audio: false, embeddedContext: true },
    mcpCapabilities: { http: true, sse: false },
    sessionCapabilities: full ? { list: {}, close: {}, resume: {}, delete: {}, additionalDirectories: {} } : {},
    ...(full ? { auth: { logout: {} } } : {}),
  };
}

function modes(config: Record<string, string>): acp.SessionModeState {
  return { currentModeId: config.mode ?? DEFAULT_CONFIG.mode, availableModes: MODES.map((m) => ({ ...m })) };
}

function configOptions(config: Record<string, string>): acp.SessionConfigOption[] {
  return [
    {
      id: "model",
      name: "Model",
      category: "model",
      type: "select",
      currentValue: config.model ?? DEFAULT_CONFIG.model,
      options: [
        { value: "fast", name: "Fast" },
        { value: "smart", name: "Smart" },
      ],
    },
  ];
}

interface Live {
  readonly stored: StoredSession<acp.SessionUpdate>;
  mcpServers: { name: string; type: string }[];
  open: boolean;
  /** One controller per prompt not yet answered; session/cancel aborts them all. */
  readonly pending: Set<AbortController>;
  /** Prompts run one after another. */
  chain: Promise<void>;
}

/** Builds the agent app; `options` come from the environment when run as a program. */
export function demoAgentV1(options: DemoOptions = demoOptions()): acp.AgentApp {
  const store = new SessionStore<acp.SessionUpdate>(options.store);
  const sessions = new Map<string, Live>();
  const nextId = idGenerator();
  const full = options.v1Full;
  let authenticated = !options.requireAuth;

  const requireAuth = (): void => {
    if (!authenticated) throw acp.RequestError.authRequired({ methodIds: [LOGIN_METHOD_ID] });
  };

  const openSession = (sessionId: string): Live => {
    const live = sessions.get(sessionId);
    if (!live?.open) throw acp.RequestError.sessionNotFound(sessionId);
    return live;
  };

  const activate = (
    stored: StoredSession<acp.SessionUpdate>,
    mcpServers: readonly acp.McpServer[] | undefined,
  ): Live => {
    const summary = (mcpServers ?? []).map((s) => ({ name: s.name, type: "type" in s ? s.type : "stdio" }));
    const existing = sessions.get(stored.sessionId);
    if (existing) {
      existing.open = true;
      existing.mcpServers = summary;
      return existing;
    }
    const live: Live = { stored, mcpServers: summary, open: true, pending: new Set(), chain: Promise.resolve() };
    sessions.set(stored.sessionId, live);
    return live;
  };

  const checkRoots = (cwd: string, dirs: readonly string[] | undefined): void => {
    if (!isAbsolute(cwd)) throw acp.RequestError.invalidParams({ field: "cwd", reason: "must be an absolute path" });
    (dirs ?? []).forEach((d, index) => {
      if (!isAbsolute(d))
        throw acp.RequestError.invalidParams({
          field: "additionalDirectories",
          index,
          reason: "must be an absolute path",
        });
    });
  };

  const record = (live: Live, update: acp.SessionUpdate): void => {
    if (
      ![
        "user_message_chunk",
        "agent_message_chunk",
        "agent_thought_chunk",
        "tool_call",
        "tool_call_update",
        "plan",
      ].includes(update.sessionUpdate)
    ) {
      return;
    }
    live.stored.history.push(update);
    live.stored.updatedAt = new Date().toISOString();
    store.save(live.stored);
  };

  const send = async (client: acp.AgentContext, live: Live, update: acp.SessionUpdate): Promise<void> => {
    record(live, update);
    await client.notify(acp.methods.client.session.update, { sessionId: live.stored.sessionId, update });
  };

  /** v1 agents commonly omit message ids; the full variant sends them (newer v1). */
  const withId = (messageId: string): { messageId?: string } => (full ? { messageId } : {});

  const host = (client: acp.AgentContext, live: Live): TurnHost => ({
    async say(role, messageId, chunks) {
      for (const [i, text] of chunks.entries()) {
        if (i > 0 && options.chunkDelayMs) await sleep(options.chunkDelayMs, new AbortController().signal);
        const content: acp.ContentBlock = { type: "text", text };
        await send(
          client,
          live,
          role === "agent"
            ? { sessionUpdate: "agent_message_chunk", content, ...withId(messageId) }
            : { sessionUpdate: "agent_thought_chunk", content, ...withId(messageId) },
        );
      }
    },
    async plan(_planId, entries) {
      await send(client, live, { sessionUpdate: "plan", entries: entries.map((e) => ({ ...e })) });
    },
    async toolAnnounce(tool) {
      const id = tool.toolCallId;
      await send(client, live, {
        sessionUpdate: "tool_call",
        toolCallId: id,
        title: tool.title,
        kind: tool.kind,
        status: "pending",
        rawInput: tool.rawInput,
        ...(tool.locations.length ? { locations: tool.locations.map((path) => ({ path })) } : {}),
        // The `_meta` terminal convention, sent whether or not the client asked (as codex-acp does).
        ...(tool.terminal
          ? {
              content: [{ type: "terminal", terminalId: id }],
              _meta: { terminal_info: { cwd: tool.terminal.cwd, terminal_id: id } },
            }
          : {}),
      });
    },
    async toolProgress(tool) {
      const id = tool.toolCallId;
      await send(client, live, {
        sessionUpdate: "tool_call_update",
        toolCallId: id,
        status: "in_progress",
        ...(tool.terminal ? { _meta: { terminal_output: { data: tool.output, terminal_id: id } } } : {}),
      });
    },
    async toolFinish(tool, result) {
      if (tool.terminal && result.status === "completed") {
        const exit = { exit_code: 0, signal: null, terminal_id: tool.toolCallId };
        await send(client, live, {
          sessionUpdate: "tool_call_update",
          toolCallId: tool.toolCallId,
          status: "completed",
          _meta: { terminal_exit: exit },
        });
        return;
      }
      await send(client, live, { sessionUpdate: "tool_call_update", ...toolResult(tool, result) });
    },
    async askPermission(tool, signal) {
      // v1: the client answers `cancelled` itself after session/cancel; the turn does not wait for it.
      const request = client.request(acp.methods.client.session.requestPermission, {
        sessionId: live.stored.sessionId,
        toolCall: {
          toolCallId: tool.toolCallId,
          title: tool.title,
          kind: tool.kind,
          status: "pending",
          rawInput: tool.rawInput,
        },
        options: [
          { optionId: "allow", name: "Allow", kind: "allow_once" },
          { optionId: "reject", name: "Reject", kind: "reject_once" },
        ],
      });
      request.catch(() => undefined);
      const response = await raceAbort<acp.RequestPermissionResponse | undefined>(request, signal, undefined);
      return response ? permissionAnswer(response.outcome) : "cancelled";
    },
    async readTextFile(path) {
      try {
        const r = await client.request(acp.methods.client.fs.readTextFile, { sessionId: live.stored.sessionId, path });
        return { ok: true, content: r.content };
      } catch (e) {
        if (e instanceof acp.RequestError) return { ok: false, code: e.code, message: e.message };
        throw e;
      }
    },
    crash: () => exitAfterFlush(CRASH_EXIT_CODE),
  });

  const runTurn = async (
    client: acp.AgentContext,
    live: Live,
    prompt: acp.ContentBlock[],
    signal: AbortSignal,
  ): Promise<TurnOutcome> => {
    const text = promptText(prompt);
    const script = planTurn(text, {
      cwd: live.stored.cwd,
      additionalDirectories: live.stored.additionalDirectories,
      mcpServers: live.mcpServers,
      nextId,
      ...(options.slowMs === undefined ? {} : { slowMs: options.slowMs }),
    });
    // The prompt itself is history for session/load; it goes on the wire only with [echo].
    const userId = nextId("u");
    for (const content of prompt) {
      const chunk: acp.SessionUpdate = { sessionUpdate: "user_message_chunk", content, ...withId(userId) };
      if (script.tags.has("echo")) await send(client, live, chunk);
      else record(live, chunk);
    }
    if (live.stored.title === null) {
      live.stored.title = titleFrom(text);
      await send(client, live, {
        sessionUpdate: "session_info_update",
        title: live.stored.title,
        updatedAt: new Date().toISOString(),
      });
    }
    return runScript(script, host(client, live), signal);
  };

  const closeLive = (live: Live): Promise<void> => {
    live.open = false;
    for (const c of live.pending) c.abort();
    return live.chain;
  };

  const sessionResult = (stored: StoredSession<acp.SessionUpdate>) => ({
    modes: modes(stored.config),
    configOptions: configOptions(stored.config),
  });

  const announceCommands = (client: acp.AgentContext, sessionId: string): void => {
    // After the response, so the client knows the session.
    setImmediate(() => {
      client
        .notify(acp.methods.client.session.update, {
          sessionId,
          update: { sessionUpdate: "available_commands_update", availableCommands: COMMANDS },
        })
        .catch(() => undefined);
    });
  };

  let app = acp
    .agent({ name: AGENT_INFO.name })
    // v1 rule: answer with the agent's own latest version whatever was requested.
    .onRequest(acp.methods.agent.initialize, () => ({
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: capabilities(full),
      authMethods: AUTH_METHODS,
      agentInfo: AGENT_INFO,
    }))
    .onRequest(acp.methods.agent.authenticate, ({ params }) => {
      if (params.methodId !== LOGIN_METHOD_ID)
        throw acp.RequestError.invalidParams({ field: "methodId", reason: "unknown auth method" });
      authenticated = true;
      return {};
    })
    .onRequest(acp.methods.agent.session.new, ({ params, client }) => {
      requireAuth();
      checkRoots(params.cwd, params.additionalDirectories);
      const stored: StoredSession<acp.SessionUpdate> = {
        sessionId: `sess-${randomUUID()}`,
        cwd: params.cwd,
        additionalDirectories: [...(params.additionalDirectories ?? [])],
        title: null,
        updatedAt: new Date().toISOString(),
        config: { ...DEFAULT_CONFIG },
        history: [],
      };
      store.save(stored);
      activate(stored, params.mcpServers);
      announceCommands(client, stored.sessionId);
      return { sessionId: stored.sessionId, ...sessionResult(stored) };
    })
    .onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
      requireAuth();
      const stored = store.get(params.sessionId);
      if (!stored) throw acp.RequestError.sessionNotFound(params.sessionId);
      checkRoots(params.cwd, params.additionalDirectories);
      stored.cwd = params.cwd;
      stored.additionalDirectories = [...(params.additionalDirectories ?? [])];
      activate(stored, params.mcpServers);
      for (const update of stored.history) {
        await client.notify(acp.methods.client.session.update, { sessionId: stored.sessionId, update });
      }
      announceCommands(client, stored.sessionId);
      return sessionResult(stored);
    })
    .onRequest(acp.methods.agent.session.setMode, async ({ params, client }) => {
      const live = openSession(params.sessionId);
      if (!MODES.some((m) => m.id === params.modeId)) {
        throw acp.RequestError.invalidParams({ field: "modeId", reason: `unknown mode ${params.modeId}` });
      }
      live.stored.config.mode = params.modeId;
      store.save(live.stored);
      await client.notify(acp.methods.client.session.update, {
        sessionId: params.sessionId,
        update: { sessionUpdate: "current_mode_update", currentModeId: params.modeId },
      });
      return {};
    })
    .onRequest(acp.methods.agent.session.setConfigOption, async ({ params, client }) => {
      const live = openSession(params.sessionId);
      if (params.configId !== "model")
        throw acp.RequestError.invalidParams({ field: "configId", reason: `unknown config option ${params.configId}` });
      const { type, value } = params as { type?: string; value: unknown };
      if (type !== undefined || typeof value !== "string" || !(MODELS as readonly string[]).includes(value)) {
        throw acp.RequestError.invalidParams({ field: "value", reason: `expected one of ${MODELS.join(", ")}` });
      }
      live.stored.config.model = value;
      store.save(live.stored);
      const list = configOptions(live.stored.config);
      await client.notify(acp.methods.client.session.update, {
        sessionId: params.sessionId,
        update: { sessionUpdate: "config_option_update", configOptions: list },
      });
      return { configOptions: list };
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
      const live = openSession(params.sessionId);
      const ctl = new AbortController();
      live.pending.add(ctl);
      const previous = live.chain;
      let release = (): void => undefined;
      live.chain = new Promise<void>((resolve) => (release = resolve));
      try {
        await previous;
        if (ctl.signal.aborted) return { stopReason: "cancelled" };
        const outcome = await runTurn(client, live, params.prompt, ctl.signal);
        // v1 convention for a failed turn: the prompt gets a JSON-RPC error.
        if (outcome.stopReason === "error")
          throw new acp.RequestError(outcome.error.code, outcome.error.message, outcome.error.data);
        return { stopReason: outcome.stopReason };
      } finally {
        live.pending.delete(ctl);
        release();
      }
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      for (const c of sessions.get(params.sessionId)?.pending ?? []) c.abort();
    });

  if (full) {
    app = app
      .onRequest(acp.methods.agent.logout, () => {
        authenticated = !options.requireAuth;
        return {};
      })
      .onRequest(acp.methods.agent.session.resume, ({ params, client }) => {
        requireAuth();
        const stored = store.get(params.sessionId);
        if (!stored) throw acp.RequestError.sessionNotFound(params.sessionId);
        checkRoots(params.cwd, params.additionalDirectories);
        stored.cwd = params.cwd;
        stored.additionalDirectories = [...(params.additionalDirectories ?? [])];
        activate(stored, params.mcpServers);
        announceCommands(client, stored.sessionId);
        return sessionResult(stored);
      })
      .onRequest(acp.methods.agent.session.list, ({ params }) => {
        requireAuth();
        const page = store.page(params.cwd, params.cursor);
        if (!page) throw acp.RequestError.invalidParams({ field: "cursor", reason: "unknown cursor" });
        return page;
      })
      .onRequest(acp.methods.agent.session.close, async ({ params }) => {
        await closeLive(openSession(params.sessionId));
        return {};
      })
      .onRequest(acp.methods.agent.session.delete, async ({ params }) => {
        const live = sessions.get(params.sessionId);
        if (live?.open) await closeLive(live);
        sessions.delete(params.sessionId);
        if (!store.delete(params.sessionId)) throw acp.RequestError.sessionNotFound(params.sessionId);
        return {};
      });
  }
  return app;
}

function permissionAnswer(outcome: acp.RequestPermissionOutcome): PermissionAnswer {
  if (outcome.outcome === "cancelled") return "cancelled";
  return outcome.optionId === "allow" ? "allow" : "reject";
}

function toolResult(tool: ToolSpec, result: ToolResult): acp.ToolCallUpdate {
  // v1 has no `cancelled` tool status: a cancelled call is `failed`.
  if (result.status === "cancelled") return { toolCallId: tool.toolCallId, status: "failed" };
  const text: acp.ToolCallContent = { type: "content", content: { type: "text", text: result.text } };
  if (result.status === "failed") return { toolCallId: tool.toolCallId, status: "failed", content: [text] };
  const diffs = (tool.diff ?? []).map((c): acp.ToolCallContent => ({
    type: "diff",
    path: c.path,
    ...(c.oldText === null ? {} : { oldText: c.oldText }),
    newText: c.newText,
  }));
  return {
    toolCallId: tool.toolCallId,
    status: "completed",
    content: [text, ...diffs],
    rawOutput: { exitCode: 0, output: result.text },
  };
}

/** Runs the agent on this process's stdio until the client goes away. */
export function main(): void {
  const options = demoOptions();
  const { output, input } = stdioStreams(wireLogSink(options.wireLog));
  const connection = demoAgentV1(options).connect(inArrivalOrder(acp.ndJsonStream(output, input)));
  void connection.closed.then(() => {
    // Whatever still runs (a slow turn's timer) must not keep a client-less agent alive.
    setTimeout(() => process.exit(0), 200).unref();
  });
}

if (isEntry(import.meta.url)) main();
