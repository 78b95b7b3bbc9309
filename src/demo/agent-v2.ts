// A v2-only ACP agent on the official SDK (`@agentclientprotocol/sdk/experimental/v2`) for the
// bridge's end-to-end tests and demo: turns are scripted by prompt tags (see scenario.ts).
import { randomUUID } from "node:crypto";
import { isAbsolute } from "node:path";
import * as acp from "@agentclientprotocol/sdk/experimental/v2";
import {
  CRASH_EXIT_CODE,
  type DemoOptions,
  demoOptions,
  type FileChange,
  gitPatch,
  idGenerator,
  isEntry,
  type PermissionAnswer,
  planTurn,
  promptText,
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

export const AGENT_INFO = { name: "acp-bridge-demo-agent-v2", title: "acp-bridge demo agent (v2)", version: "1.0.0" };
export const LOGIN_METHOD_ID = "demo-login";

const CAPABILITIES = {
  session: {
    prompt: { image: {}, embeddedContext: {} },
    mcp: { stdio: {}, http: {} },
    delete: {},
    additionalDirectories: {},
  },
  auth: {},
} satisfies acp.AgentCapabilities;

const AUTH_METHODS: acp.AuthMethod[] = [
  { type: "agent", methodId: LOGIN_METHOD_ID, name: "Demo login", description: "Signs in without credentials." },
];

const COMMANDS: acp.AvailableCommand[] = [
  { type: "command", name: "test", description: "Run the tests", input: { type: "text", hint: "test name filter" } },
  { type: "command", name: "plan", description: "Write a plan for the task" },
];

const DEFAULT_CONFIG = { mode: "ask", model: "fast" } as const;
const CONFIG_VALUES: Record<string, readonly string[]> = { mode: ["ask", "code"], model: ["fast", "smart"] };

function configOptions(config: Record<string, string>): acp.SessionConfigOption[] {
  return [
    {
      configId: "mode",
      name: "Mode",
      description: "How much the agent may do on its own",
      category: "mode",
      type: "select",
      currentValue: config.mode ?? DEFAULT_CONFIG.mode,
      options: [
        { value: "ask", name: "Ask", description: "Ask before changing anything" },
        { value: "code", name: "Code", description: "Edit files and run commands" },
      ],
    },
    {
      configId: "model",
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

/** What a session retains for replay: one entry per message, tool call and plan, in first-seen order. */
type Entity =
  | {
      readonly kind: "user_message" | "agent_message" | "agent_thought";
      readonly messageId: string;
      content: acp.ContentBlock[];
    }
  | { readonly kind: "tool_call"; readonly toolCallId: string; state: acp.ToolCallUpdate }
  | { readonly kind: "plan"; readonly planId: string; entries: acp.PlanEntry[] };

interface Turn {
  readonly abort: AbortController;
  readonly done: Promise<void>;
  readonly finish: () => void;
}

interface Held {
  readonly start: (turn: Turn) => void;
  readonly cancel: () => void;
}

interface Live {
  readonly stored: StoredSession<Entity>;
  mcpServers: { name: string; type: string }[];
  open: boolean;
  turn: Turn | undefined;
  held: Held[];
}

/** Builds the agent app; `options` come from the environment when run as a program. */
export function demoAgentV2(options: DemoOptions = demoOptions()): acp.AgentApp {
  const store = new SessionStore<Entity>(options.store);
  const sessions = new Map<string, Live>();
  const nextId = idGenerator();
  let authenticated = !options.requireAuth;

  const requireAuth = (): void => {
    if (!authenticated) throw acp.RequestError.authRequired({ methodIds: [LOGIN_METHOD_ID] });
  };

  const openSession = (sessionId: string): Live => {
    const live = sessions.get(sessionId);
    if (!live?.open) throw acp.RequestError.sessionNotFound(sessionId);
    return live;
  };

  const activate = (stored: StoredSession<Entity>, mcpServers: readonly acp.McpServer[] | undefined): Live => {
    const summary = (mcpServers ?? []).map((s) => ({ name: String((s as { name?: unknown }).name), type: s.type }));
    const existing = sessions.get(stored.sessionId);
    if (existing) {
      existing.open = true;
      existing.mcpServers = summary;
      return existing;
    }
    const live: Live = { stored, mcpServers: summary, open: true, turn: undefined, held: [] };
    sessions.set(stored.sessionId, live);
    return live;
  };

  const newTurn = (): Turn => {
    let finish = (): void => undefined;
    const done = new Promise<void>((resolve) => (finish = resolve));
    return { abort: new AbortController(), done, finish };
  };

  const endTurn = (live: Live, turn: Turn): void => {
    turn.finish();
    const next = live.held.shift();
    if (next) {
      live.turn = newTurn();
      next.start(live.turn);
    } else {
      live.turn = undefined;
    }
  };

  /** Waits until the session is free (v2 held prompt); -32800 when cancelled first. */
  const hold = (live: Live, signal: AbortSignal): Promise<Turn> =>
    new Promise<Turn>((resolve, reject) => {
      const held: Held = {
        start: (turn) => {
          signal.removeEventListener("abort", onAbort);
          resolve(turn);
        },
        cancel: () => {
          signal.removeEventListener("abort", onAbort);
          reject(acp.RequestError.requestCancelled());
        },
      };
      const onAbort = (): void => {
        live.held = live.held.filter((h) => h !== held);
        held.cancel();
      };
      signal.addEventListener("abort", onAbort, { once: true });
      live.held.push(held);
    });

  const cancelHeld = (live: Live): void => {
    const held = live.held;
    live.held = [];
    for (const h of held) h.cancel();
  };

  const record = (live: Live, update: acp.SessionUpdate): void => {
    const h = live.stored.history;
    switch (update.sessionUpdate) {
      case "user_message": {
        const u = update as acp.UserMessage;
        h.push({ kind: "user_message", messageId: u.messageId, content: [...(u.content ?? [])] });
        break;
      }
      case "agent_message_chunk":
      case "agent_thought_chunk": {
        const c = update as acp.ContentChunk;
        const kind = update.sessionUpdate === "agent_message_chunk" ? "agent_message" : "agent_thought";
        const entity = h.find((e) => e.kind === kind && e.messageId === c.messageId);
        if (entity?.kind === kind) appendBlock(entity.content, c.content);
        else h.push({ kind, messageId: c.messageId, content: [c.content] });
        break;
      }
      case "tool_call_update": {
        const patch: acp.ToolCallUpdate = { ...(update as acp.ToolCallUpdate) };
        delete (patch as { sessionUpdate?: string }).sessionUpdate;
        const entity = h.find((e) => e.kind === "tool_call" && e.toolCallId === patch.toolCallId);
        if (entity?.kind === "tool_call") entity.state = { ...entity.state, ...patch };
        else h.push({ kind: "tool_call", toolCallId: patch.toolCallId, state: patch });
        break;
      }
      case "plan_update": {
        const plan = (update as acp.PlanUpdate).plan as acp.PlanItems;
        const entity = h.find((e) => e.kind === "plan" && e.planId === plan.planId);
        if (entity?.kind === "plan") entity.entries = plan.entries;
        else h.push({ kind: "plan", planId: plan.planId, entries: plan.entries });
        break;
      }
      default:
        return;
    }
    live.stored.updatedAt = new Date().toISOString();
    store.save(live.stored);
  };

  const send = async (client: acp.AgentContext, live: Live, update: acp.SessionUpdate): Promise<void> => {
    record(live, update);
    await client.notify(acp.methods.client.session.update, { sessionId: live.stored.sessionId, update });
  };

  const host = (client: acp.AgentContext, live: Live): TurnHost => ({
    async say(role, messageId, chunks) {
      for (const [i, text] of chunks.entries()) {
        if (i > 0 && options.chunkDelayMs) await sleep(options.chunkDelayMs, new AbortController().signal);
        const content: acp.ContentBlock = { type: "text", text };
        await send(
          client,
          live,
          role === "agent"
            ? { sessionUpdate: "agent_message_chunk", messageId, content }
            : { sessionUpdate: "agent_thought_chunk", messageId, content },
        );
      }
    },
    async plan(planId, entries) {
      await send(client, live, {
        sessionUpdate: "plan_update",
        plan: { type: "items", planId, entries: [...entries] },
      });
    },
    async toolAnnounce(tool) {
      await send(client, live, {
        sessionUpdate: "tool_call_update",
        toolCallId: tool.toolCallId,
        title: tool.title,
        kind: tool.kind,
        status: "pending",
        rawInput: tool.rawInput,
        ...(tool.locations.length ? { locations: tool.locations.map((path) => ({ path })) } : {}),
      });
    },
    async toolProgress(tool) {
      await send(client, live, {
        sessionUpdate: "tool_call_update",
        toolCallId: tool.toolCallId,
        status: "in_progress",
        ...(tool.terminal ? { content: [{ type: "terminal", terminalId: tool.toolCallId }] } : {}),
      });
      if (!tool.terminal) return;
      // An agent-owned display terminal: its state, then its bytes (T §2.5).
      const terminalId = tool.toolCallId;
      await send(client, live, {
        sessionUpdate: "terminal_update",
        terminalId,
        command: tool.rawInput.command ?? tool.title,
        cwd: tool.terminal.cwd,
      });
      const data = Buffer.from(tool.output, "utf8").toString("base64");
      await send(client, live, { sessionUpdate: "terminal_output_chunk", terminalId, data });
    },
    async toolFinish(tool, result) {
      if (tool.terminal && result.status === "completed") {
        await send(client, live, {
          sessionUpdate: "terminal_update",
          terminalId: tool.toolCallId,
          exitStatus: { exitCode: 0 },
        });
        await send(client, live, {
          sessionUpdate: "tool_call_update",
          toolCallId: tool.toolCallId,
          status: "completed",
        });
        return;
      }
      await send(client, live, { sessionUpdate: "tool_call_update", ...toolResult(tool, result) });
    },
    async askPermission(tool, signal) {
      const sessionId = live.stored.sessionId;
      await send(client, live, { sessionUpdate: "state_update", state: "requires_action" });
      let answer: PermissionAnswer;
      try {
        // On session/cancel or close the signal aborts: the SDK sends $/cancel_request and stops waiting.
        const response = await client.request(
          acp.methods.client.session.requestPermission,
          {
            sessionId,
            title: `${tool.title}?`,
            description: `The agent wants to run \`${tool.rawInput.command ?? tool.title}\`.`,
            subject: {
              type: "tool_call",
              toolCall: { toolCallId: tool.toolCallId, title: tool.title, kind: tool.kind },
            },
            options: [
              { optionId: "allow", name: "Allow", kind: "allow_once" },
              { optionId: "reject", name: "Reject", kind: "reject_once" },
            ],
          },
          { cancellationSignal: signal, stopWaitingOnCancel: true },
        );
        answer = permissionAnswer(response.outcome);
      } catch (e) {
        if (!(e instanceof acp.RequestError) || e.code !== -32800) throw e;
        answer = "cancelled";
      }
      if (answer !== "cancelled" && !signal.aborted)
        await send(client, live, { sessionUpdate: "state_update", state: "running" });
      return answer;
    },
    crash: () => exitAfterFlush(CRASH_EXIT_CODE),
  });

  const runTurn = async (
    client: acp.AgentContext,
    live: Live,
    turn: Turn,
    prompt: acp.ContentBlock[],
    userMessageId: string,
  ): Promise<void> => {
    let outcome: TurnOutcome | undefined;
    try {
      await send(client, live, { sessionUpdate: "user_message", messageId: userMessageId, content: prompt });
      await send(client, live, { sessionUpdate: "state_update", state: "running" });
      const text = promptText(prompt);
      if (live.stored.title === null) {
        live.stored.title = titleFrom(text);
        await send(client, live, {
          sessionUpdate: "session_info_update",
          title: live.stored.title,
          updatedAt: new Date().toISOString(),
        });
      }
      const script = planTurn(text, {
        cwd: live.stored.cwd,
        additionalDirectories: live.stored.additionalDirectories,
        mcpServers: live.mcpServers,
        nextId,
        ...(options.slowMs === undefined ? {} : { slowMs: options.slowMs }),
      });
      outcome = await runScript(script, host(client, live), turn.abort.signal);
    } catch (e) {
      process.stderr.write(`agent-v2: turn failed: ${String(e)}\n`);
      outcome = {
        stopReason: "error",
        error: { code: -32603, message: "Internal error", data: { reason: String(e) } },
      };
    }
    try {
      await send(client, live, idleUpdate(outcome));
    } catch (e) {
      process.stderr.write(`agent-v2: cannot report idle: ${String(e)}\n`);
    } finally {
      endTurn(live, turn);
    }
  };

  const closeLive = async (live: Live): Promise<void> => {
    live.open = false;
    cancelHeld(live);
    const turn = live.turn;
    if (turn) {
      turn.abort.abort();
      await turn.done;
    }
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

  return acp
    .agent({ name: AGENT_INFO.name })
    .onRequest(acp.methods.agent.initialize, () => ({
      protocolVersion: acp.PROTOCOL_VERSION,
      info: AGENT_INFO,
      capabilities: CAPABILITIES,
      authMethods: AUTH_METHODS,
    }))
    .onRequest(acp.methods.agent.auth.login, ({ params }) => {
      if (params.methodId !== LOGIN_METHOD_ID)
        throw acp.RequestError.invalidParams({ field: "methodId", reason: "unknown auth method" });
      authenticated = true;
      return {};
    })
    .onRequest(acp.methods.agent.auth.logout, () => {
      authenticated = !options.requireAuth;
      return {};
    })
    .onRequest(acp.methods.agent.session.new, ({ params }) => {
      requireAuth();
      checkRoots(params.cwd, params.additionalDirectories);
      acp.assertSupportedMcpServers(params.mcpServers, CAPABILITIES.session.mcp);
      const stored: StoredSession<Entity> = {
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
      return { sessionId: stored.sessionId, configOptions: configOptions(stored.config), availableCommands: COMMANDS };
    })
    .onRequest(acp.methods.agent.session.resume, async ({ params, client }) => {
      requireAuth();
      const stored = store.get(params.sessionId);
      if (!stored) throw acp.RequestError.sessionNotFound(params.sessionId);
      const replay = params.replayFrom ?? null;
      if (replay !== null && replay.type !== "start") {
        throw acp.RequestError.invalidParams({
          field: "replayFrom",
          reason: `unsupported replay cursor ${JSON.stringify(replay.type)}`,
        });
      }
      checkRoots(params.cwd, params.additionalDirectories);
      acp.assertSupportedMcpServers(params.mcpServers, CAPABILITIES.session.mcp);
      stored.cwd = params.cwd;
      stored.additionalDirectories = [...(params.additionalDirectories ?? [])];
      const live = activate(stored, params.mcpServers);
      const sessionId = stored.sessionId;
      if (replay !== null) {
        for (const update of replayOf(stored.history))
          await client.notify(acp.methods.client.session.update, { sessionId, update });
      }
      // Mandatory snapshot after replay and before the response.
      const snapshot: acp.SessionUpdate = live.turn
        ? { sessionUpdate: "state_update", state: "running" }
        : { sessionUpdate: "state_update", state: "idle" };
      await client.notify(acp.methods.client.session.update, { sessionId, update: snapshot });
      return { configOptions: configOptions(stored.config), availableCommands: COMMANDS };
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
    })
    .onRequest(acp.methods.agent.session.setConfigOption, async ({ params, client }) => {
      const live = openSession(params.sessionId);
      const allowed = CONFIG_VALUES[params.configId];
      if (!allowed)
        throw acp.RequestError.invalidParams({ field: "configId", reason: `unknown config option ${params.configId}` });
      const { type, value } = params as { type: string; value: unknown };
      if (type !== "id" || typeof value !== "string" || !allowed.includes(value)) {
        throw acp.RequestError.invalidParams({
          field: "value",
          reason: `expected one of ${allowed.join(", ")} (type "id")`,
        });
      }
      live.stored.config[params.configId] = value;
      store.save(live.stored);
      const list = configOptions(live.stored.config);
      await client.notify(acp.methods.client.session.update, {
        sessionId: params.sessionId,
        update: { sessionUpdate: "config_option_update", configOptions: list },
      });
      return { configOptions: list };
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client, signal }) => {
      const live = openSession(params.sessionId);
      const turn = live.turn ? await hold(live, signal) : (live.turn = newTurn());
      const messageId = nextId("u");
      // Start after this handler returns, so the response (insertion) precedes the turn's updates.
      setImmediate(() => void runTurn(client, live, turn, params.prompt, messageId));
      return { messageId };
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      const live = sessions.get(params.sessionId);
      if (!live) return;
      cancelHeld(live);
      live.turn?.abort.abort();
    });
}

function appendBlock(content: acp.ContentBlock[], block: acp.ContentBlock): void {
  const last = content.at(-1);
  if (last?.type === "text" && block.type === "text") {
    content[content.length - 1] = { ...last, text: (last as acp.TextContent).text + (block as acp.TextContent).text };
  } else {
    content.push(block);
  }
}

/** The whole-entity upserts a `replayFrom:{type:"start"}` resume sends. */
export function replayOf(history: readonly Entity[]): acp.SessionUpdate[] {
  return history.map((e): acp.SessionUpdate => {
    switch (e.kind) {
      case "user_message":
        return { sessionUpdate: "user_message", messageId: e.messageId, content: e.content };
      case "agent_message":
        return { sessionUpdate: "agent_message", messageId: e.messageId, content: e.content };
      case "agent_thought":
        return { sessionUpdate: "agent_thought", messageId: e.messageId, content: e.content };
      case "tool_call":
        return { sessionUpdate: "tool_call_update", ...e.state };
      case "plan":
        return { sessionUpdate: "plan_update", plan: { type: "items", planId: e.planId, entries: e.entries } };
    }
  });
}

function permissionAnswer(outcome: acp.RequestPermissionOutcome): PermissionAnswer {
  if (outcome.outcome === "cancelled") return "cancelled";
  if (outcome.outcome === "selected")
    return (outcome as acp.SelectedPermissionOutcome).optionId === "allow" ? "allow" : "reject";
  return "reject";
}

function diffContent(changes: readonly FileChange[]): acp.ToolCallContent {
  return {
    type: "diff",
    changes: changes.map((c): acp.DiffChange =>
      c.oldText === null
        ? { operation: "add", path: c.path, fileType: "text" }
        : { operation: "modify", path: c.path, fileType: "text" },
    ),
    patch: { format: "git_patch", text: gitPatch(changes) },
  };
}

function toolResult(tool: ToolSpec, result: ToolResult): acp.ToolCallUpdate {
  const base = { toolCallId: tool.toolCallId, status: result.status };
  if (result.status === "cancelled") return base;
  const text: acp.ToolCallContent = { type: "content", content: { type: "text", text: result.text } };
  if (result.status === "failed") return { ...base, content: [text] };
  return {
    ...base,
    content: tool.diff ? [text, diffContent(tool.diff)] : [text],
    rawOutput: { exitCode: 0, output: result.text },
  };
}

function idleUpdate(outcome: TurnOutcome): acp.SessionUpdate {
  if (outcome.stopReason === "error") {
    return { sessionUpdate: "state_update", state: "idle", stopReason: "error", error: outcome.error };
  }
  return outcome.stopReason === "cancelled"
    ? { sessionUpdate: "state_update", state: "idle", stopReason: "cancelled" }
    : { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" };
}

/** Runs the agent on this process's stdio until the client goes away. */
export function main(): void {
  const options = demoOptions();
  const { output, input } = stdioStreams(wireLogSink(options.wireLog));
  const connection = demoAgentV2(options).connect(inArrivalOrder(acp.ndJsonStream(output, input)));
  void connection.closed.then(() => {
    // Whatever still runs (a slow turn's timer) must not keep a client-less agent alive.
    setTimeout(() => process.exit(0), 200).unref();
  });
}

if (isEntry(import.meta.url)) main();
