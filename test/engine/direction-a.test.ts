// Direction A (v1 client, v2 agent) on an in-memory bridge: scripted agent messages, exact
// expectations, every message the bridge writes schema-checked (T §9, H §9).
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.js";
import { harness, type Harness } from "../support/harness.js";
import { numRuns } from "../support/properties.js";
import { rawUpdate } from "../support/v2-updates.js";
import { expectValid } from "../support/schema.js";

const S = "s1";
let current: Harness | undefined;

afterEach(() => {
  if (current) expect(current.violations).toEqual([]);
  current = undefined;
});

const v2Caps = {
  session: {
    prompt: { image: {} },
    mcp: { stdio: {}, http: {} },
    delete: {},
    additionalDirectories: {},
  },
};

interface Setup {
  clientCaps?: Record<string, unknown>;
  agentCaps?: Record<string, unknown>;
  options?: Parameters<typeof harness>[0];
  /** The agent answers INIT1 with -32022 (SDK v2-only) or with protocolVersion 2 (old rule). */
  agentRule?: "32022" | "answer2";
}

async function connect(setup: Setup = {}): Promise<Harness> {
  const h = harness(setup.options);
  current = h;
  h.client({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: 1,
      clientCapabilities: setup.clientCaps ?? { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
    },
  });
  await h.settle();
  const [probe1] = h.takeAgent();
  expect(probe1.params.protocolVersion).toBe(1);
  if ((setup.agentRule ?? "32022") === "32022")
    h.agent({
      jsonrpc: "2.0",
      id: probe1.id,
      error: { code: -32022, message: "Unsupported protocol version", data: { requested: 1, supported: [2] } },
    });
  else
    h.agent({
      jsonrpc: "2.0",
      id: probe1.id,
      result: { protocolVersion: 2, info: { name: "a", version: "1" }, capabilities: setup.agentCaps ?? v2Caps },
    });
  await h.settle();
  const [probe2] = h.takeAgent();
  expect(probe2.params.protocolVersion).toBe(2);
  expect(probe2.params.info).toBeDefined();
  h.agent({
    jsonrpc: "2.0",
    id: probe2.id,
    result: {
      protocolVersion: 2,
      info: { name: "agent", version: "1.0" },
      capabilities: setup.agentCaps ?? v2Caps,
      authMethods: [],
    },
  });
  await h.settle();
  const [init] = h.takeClient();
  expect(init.id).toBe(0);
  expect(init.result.protocolVersion).toBe(1);
  expect(h.bridge.mode).toBe("A");
  return h;
}

async function newSession(h: Harness, result: Record<string, unknown> = {}): Promise<void> {
  h.client({ jsonrpc: "2.0", id: "new", method: "session/new", params: { cwd: "/w", mcpServers: [] } });
  const [req] = h.takeAgent();
  expect(req.method).toBe("session/new");
  h.agent({ jsonrpc: "2.0", id: req.id, result: { sessionId: S, ...result } });
  await h.settle();
}

const update = (u: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  method: "session/update",
  params: { sessionId: S, update: u },
});
const text = (t: string) => ({ type: "text", text: t });

/** Sends a v1 prompt and returns the v2 request the agent got. */
function prompt(h: Harness, id: unknown = 7, words = "Fix the failing test"): any {
  h.client({ jsonrpc: "2.0", id, method: "session/prompt", params: { sessionId: S, prompt: [text(words)] } });
  const [req] = h.takeAgent();
  expect(req.method).toBe("session/prompt");
  return req;
}

describe("direction A handshake (H §1.4, §9 case 3)", () => {
  it("falls back to v2 when a v2-only agent answers -32022 and serves the v1 client translated capabilities", async () => {
    const h = harness();
    current = h;
    h.client({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
      },
    });
    await h.settle();
    const [p1] = h.takeAgent();
    h.agent({
      jsonrpc: "2.0",
      id: p1.id,
      error: { code: -32022, message: "Unsupported", data: { requested: 1, supported: [2] } },
    });
    await h.settle();
    const [p2] = h.takeAgent();
    expect(p2.params.protocolVersion).toBe(2);
    // fs/terminal are not offered to a v2 agent (H §2.1), but kept for a chained bridge.
    expect(p2.params.capabilities.fs).toBeUndefined();
    expect(p2.params.capabilities.terminal).toBeUndefined();
    h.agent({
      jsonrpc: "2.0",
      id: p2.id,
      result: { protocolVersion: 2, info: { name: "agent", version: "1.0" }, capabilities: v2Caps, authMethods: [] },
    });
    await h.settle();
    const [init] = h.takeClient();
    expect(init.result).toMatchObject({
      protocolVersion: 1,
      agentInfo: { name: "agent", version: "1.0" },
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: true },
        mcpCapabilities: { http: true, sse: false },
        sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {}, additionalDirectories: {} },
      },
      authMethods: [],
    });
    expect(h.bridge.mode).toBe("A");
  });

  it("re-sends a v2 initialize to an old-rule v2 agent that answered 2 to a v1 body", async () => {
    await connect({ agentRule: "answer2" });
  });

  it("names the client capabilities a v2 agent is not offered at info level, once, and only those the client sent", async () => {
    const lines: string[] = [];
    const h = harness(
      {},
      createLogger("debug", (l) => lines.push(l)),
    );
    current = h;
    h.client({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true }, terminal: true } },
    });
    await h.settle();
    const [probe] = h.takeAgent();
    h.agent({
      jsonrpc: "2.0",
      id: probe.id,
      error: { code: -32022, message: "Unsupported", data: { supported: [2] } },
    });
    await h.settle();
    const [init] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: init.id, result: { protocolVersion: 2, capabilities: v2Caps, authMethods: [] } });
    await h.settle();
    expect(h.takeClient()[0].result.protocolVersion).toBe(1);
    // Nothing at the default level (a v2 agent never has these), nothing about a chained bridge.
    expect(lines.filter((l) => /^acp-bridge (warn|error):/.test(l))).toEqual([]);
    expect(lines.filter((l) => l.includes("not offered"))).toEqual([
      "acp-bridge info: not offered to the v2 agent (v2 has no place for them): clientCapabilities.fs, clientCapabilities.terminal\n",
    ]);
  });
});

describe("direction A sessions (H §4)", () => {
  it("adds type stdio to MCP servers and synthesizes v1 modes from the mode option, then sends the commands", async () => {
    const h = await connect();
    h.client({
      jsonrpc: "2.0",
      id: 1,
      method: "session/new",
      params: { cwd: "/w", mcpServers: [{ name: "fs", command: "/bin/mcp", args: [], env: [] }] },
    });
    const [req] = h.takeAgent();
    expect(req.params.mcpServers).toEqual([{ type: "stdio", name: "fs", command: "/bin/mcp", args: [], env: [] }]);
    h.agent({
      jsonrpc: "2.0",
      id: req.id,
      result: {
        sessionId: S,
        configOptions: [
          {
            configId: "mode",
            name: "Mode",
            category: "mode",
            type: "select",
            currentValue: "ask",
            options: [
              { value: "ask", name: "Ask" },
              { value: "code", name: "Code" },
            ],
          },
        ],
        availableCommands: [
          { type: "command", name: "web", description: "Search", input: { type: "text", hint: "query" } },
        ],
      },
    });
    await h.settle();
    const [res, commands] = h.takeClient();
    expect(res.id).toBe(1);
    expect(res.result.modes).toMatchObject({
      currentModeId: "ask",
      availableModes: [
        { id: "ask", name: "Ask" },
        { id: "code", name: "Code" },
      ],
    });
    expect(res.result.configOptions[0]).toMatchObject({ id: "mode", currentValue: "ask" });
    expect(commands.params.update).toEqual({
      sessionUpdate: "available_commands_update",
      availableCommands: [{ name: "web", description: "Search", input: { hint: "query" } }],
    });
  });

  it("rejects SSE MCP servers with -32602 naming the index", async () => {
    const h = await connect();
    h.client({
      jsonrpc: "2.0",
      id: 1,
      method: "session/new",
      params: { cwd: "/w", mcpServers: [{ type: "sse", name: "x", url: "https://e/x", headers: [] }] },
    });
    expect(h.takeAgent()).toEqual([]);
    const [res] = h.takeClient();
    expect(res.error).toMatchObject({ code: -32602, data: { type: "sse", index: 0 } });
  });

  it("rejects a relative additional directory before the agent sees the request", async () => {
    const h = await connect();
    h.client({
      jsonrpc: "2.0",
      id: 1,
      method: "session/new",
      params: { cwd: "/w", mcpServers: [], additionalDirectories: ["/ok", "docs"] },
    });
    expect(h.takeAgent()).toEqual([]);
    expect(h.takeClient()[0].error).toMatchObject({
      code: -32602,
      data: { field: "additionalDirectories", index: 1, reason: "not_absolute" },
    });
  });

  it("turns session/load into session/resume with replay, converts the replay and swallows the snapshot (H §9 case 5)", async () => {
    const h = await connect();
    h.client({ jsonrpc: "2.0", id: 2, method: "session/load", params: { sessionId: S, cwd: "/w", mcpServers: [] } });
    const [req] = h.takeAgent();
    expect(req.method).toBe("session/resume");
    expect(req.params.replayFrom).toEqual({ type: "start" });
    h.agent(update({ sessionUpdate: "user_message", messageId: "u1", content: [text("hi")] }));
    h.agent(update({ sessionUpdate: "agent_message", messageId: "m1", content: [text("hello")] }));
    h.agent(update({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" }));
    h.agent({ jsonrpc: "2.0", id: req.id, result: { availableCommands: [] } });
    await h.settle();
    const out = h.takeClient();
    expect(out.map((m) => m.params?.update?.sessionUpdate ?? "result")).toEqual([
      "user_message_chunk",
      "agent_message_chunk",
      "result",
      "available_commands_update",
    ]);
    expect(out[0].params.update).toMatchObject({ messageId: "u1", content: text("hi") });
    expect(out[2]).toMatchObject({ id: 2, result: {} });
  });

  it("maps session/set_mode to set_config_option on the bound option (H §5.2)", async () => {
    const h = await connect();
    const modeOption = (v: string) => ({
      configId: "mode",
      name: "Mode",
      category: "mode",
      type: "select",
      currentValue: v,
      options: [
        { value: "ask", name: "Ask" },
        { value: "code", name: "Code" },
      ],
    });
    await newSession(h, { configOptions: [modeOption("ask")] });
    h.takeClient();
    h.client({ jsonrpc: "2.0", id: 3, method: "session/set_mode", params: { sessionId: S, modeId: "code" } });
    const [req] = h.takeAgent();
    expect(req).toMatchObject({
      method: "session/set_config_option",
      params: { sessionId: S, configId: "mode", type: "id", value: "code" },
    });
    h.agent({ jsonrpc: "2.0", id: req.id, result: { configOptions: [modeOption("code")] } });
    await h.settle();
    expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: 3, result: {} }]);
    // The agent switches mode itself: v1 sees the option update and current_mode_update.
    h.agent(update({ sessionUpdate: "config_option_update", configOptions: [modeOption("ask")] }));
    const ups = h.takeClient().map((m) => m.params.update);
    expect(ups.map((u) => u.sessionUpdate)).toEqual(["config_option_update", "current_mode_update"]);
    expect(ups[1]).toMatchObject({ sessionUpdate: "current_mode_update", currentModeId: "ask" });
  });

  describe("what follows a configuration answer (written right after it, before later agent messages)", () => {
    const modeOption = (v: string) => ({
      configId: "mode",
      name: "Mode",
      category: "mode",
      type: "select",
      currentValue: v,
      options: [
        { value: "ask", name: "Ask" },
        { value: "code", name: "Code" },
      ],
    });
    const effort = (v: string) => ({
      configId: "effort",
      name: "Effort",
      type: "select",
      currentValue: v,
      options: [
        { value: "low", name: "Low" },
        { value: "high", name: "High" },
      ],
    });
    const chunk = update({ sessionUpdate: "agent_message_chunk", messageId: "m1", content: text("next") });
    const tags = (out: any[]) =>
      out.map((m) => (m.id !== undefined ? `answer ${m.id}` : m.params.update.sessionUpdate));

    it("set_config_option on the mode option: current_mode_update right after the answer", async () => {
      const h = await connect();
      await newSession(h, { configOptions: [modeOption("ask")] });
      h.takeClient();
      h.client({
        jsonrpc: "2.0",
        id: 3,
        method: "session/set_config_option",
        params: { sessionId: S, configId: "mode", value: "code" },
      });
      const [req] = h.takeAgent();
      expect(req.method).toBe("session/set_config_option");
      // The agent's next message arrives in the same read as its answer.
      h.agent({ jsonrpc: "2.0", id: req.id, result: { configOptions: [modeOption("code")] } });
      h.agent(chunk);
      await h.settle();
      const out = h.takeClient();
      expect(tags(out)).toEqual(["answer 3", "current_mode_update", "agent_message_chunk"]);
      expect(out[1].params.update).toMatchObject({ currentModeId: "code" });
    });

    it("set_mode that changed other options: config_option_update right after the answer, no mode echo", async () => {
      const h = await connect();
      await newSession(h, { configOptions: [modeOption("ask"), effort("low")] });
      h.takeClient();
      h.client({ jsonrpc: "2.0", id: 3, method: "session/set_mode", params: { sessionId: S, modeId: "code" } });
      const [req] = h.takeAgent();
      h.agent({ jsonrpc: "2.0", id: req.id, result: { configOptions: [modeOption("code"), effort("high")] } });
      h.agent(chunk);
      await h.settle();
      const out = h.takeClient();
      expect(tags(out)).toEqual(["answer 3", "config_option_update", "agent_message_chunk"]);
      expect(out[0]).toEqual({ jsonrpc: "2.0", id: 3, result: {} });
    });
  });

  it("answers set_mode with -32602 when the session has no mode option", async () => {
    const h = await connect();
    await newSession(h);
    h.takeClient();
    h.client({ jsonrpc: "2.0", id: 3, method: "session/set_mode", params: { sessionId: S, modeId: "code" } });
    expect(h.takeAgent()).toEqual([]);
    expect(h.takeClient()[0].error).toMatchObject({ code: -32602, data: { reason: "session has no modes" } });
  });
});

describe("direction A prompt lifecycle (T §1.2, §9 cases 1-6)", () => {
  it("answers the v1 prompt once, at the idle that follows its insertion, without the echo (case 1)", async () => {
    const h = await connect();
    await newSession(h);
    h.takeClient();
    const req = prompt(h);
    h.agent({ jsonrpc: "2.0", id: req.id, result: { messageId: "u-9" } });
    h.agent(update({ sessionUpdate: "user_message", messageId: "u-9", content: [text("Fix the failing test")] }));
    h.agent(update({ sessionUpdate: "state_update", state: "running" }));
    h.agent(update({ sessionUpdate: "agent_message_chunk", messageId: "m-1", content: text("Running the tests.") }));
    expect(h.takeClient()).toEqual([
      update({ sessionUpdate: "agent_message_chunk", messageId: "m-1", content: text("Running the tests.") }),
    ]);
    h.agent(update({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" }));
    expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: 7, result: { stopReason: "end_turn" } }]);
    h.agent(update({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" }));
    expect(h.takeClient()).toEqual([]);
  });

  it("ends the turn after its coalesced tool output, which does not carry the idle's _meta", async () => {
    const h = await connect();
    await newSession(h);
    h.takeClient();
    const req = prompt(h);
    h.agent({ jsonrpc: "2.0", id: req.id, result: { messageId: "u-9" } });
    h.agent(update({ sessionUpdate: "state_update", state: "running" }));
    h.agent(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", title: "Run" }));
    h.agent(
      update({
        sessionUpdate: "tool_call_content_chunk",
        toolCallId: "t1",
        content: { type: "content", content: text("a") },
      }),
    );
    expect(h.takeClient().map((m) => m.params.update.sessionUpdate)).toEqual(["tool_call"]);
    // The idle arrives while the chunk waits for its coalescing timer.
    h.agent({
      jsonrpc: "2.0",
      method: "session/update",
      params: {
        sessionId: S,
        update: { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" },
        _meta: { trace: "idle" },
      },
    });
    const out = h.takeClient();
    expect(out.map((m) => m.id ?? m.params.update.sessionUpdate)).toEqual(["tool_call_update", 7]);
    expect(out[0].params._meta).toBeUndefined();
    expect(out[0].params.update.content).toEqual([{ type: "content", content: text("a") }]);
    expect(out[1]).toEqual({ jsonrpc: "2.0", id: 7, result: { stopReason: "end_turn" } });
  });

  it("never completes a prompt with a snapshot idle (case 2)", async () => {
    const h = await connect();
    await newSession(h);
    h.takeClient();
    const req = prompt(h);
    h.agent({ jsonrpc: "2.0", id: req.id, result: { messageId: "u1" } });
    h.agent(update({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" }));
    expect(h.takeClient()).toEqual([]);
    h.agent(update({ sessionUpdate: "state_update", state: "running" }));
    h.agent(update({ sessionUpdate: "state_update", state: "idle", stopReason: "max_tokens" }));
    expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: 7, result: { stopReason: "max_tokens" } }]);
  });

  it("completes a held prompt with its own turn's stop reason, also when the ack comes last (case 4)", async () => {
    for (const ackLast of [false, true]) {
      const h = await connect();
      await newSession(h);
      h.takeClient();
      h.agent(update({ sessionUpdate: "state_update", state: "running" })); // agent-initiated work
      const req = prompt(h);
      const ack = { jsonrpc: "2.0", id: req.id, result: { messageId: "u1" } };
      h.agent(update({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" }));
      if (!ackLast) h.agent(ack);
      h.agent(update({ sessionUpdate: "user_message", messageId: "u1", content: [text("Fix the failing test")] }));
      h.agent(update({ sessionUpdate: "state_update", state: "running" }));
      h.agent(update({ sessionUpdate: "state_update", state: "idle", stopReason: "refusal" }));
      if (ackLast) h.agent(ack);
      expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: 7, result: { stopReason: "refusal" } }]);
      expect(h.violations).toEqual([]);
    }
  });

  it("relays the client's cancelled permission answer, drops the agent's late $/cancel_request and ends cancelled (case 5)", async () => {
    // The stash forced on: the original status is kept for a reader of stashes.
    const h = await connect({ options: { stash: "compact" } });
    await newSession(h);
    h.takeClient();
    const req = prompt(h, 8);
    h.agent({ jsonrpc: "2.0", id: req.id, result: { messageId: "u1" } });
    h.agent(update({ sessionUpdate: "state_update", state: "running" }));
    h.agent(
      update({
        sessionUpdate: "tool_call_update",
        toolCallId: "t2",
        title: "rm -rf build",
        kind: "delete",
        status: "pending",
      }),
    );
    h.agent({
      jsonrpc: "2.0",
      id: 6,
      method: "session/request_permission",
      params: {
        sessionId: S,
        title: "Delete build?",
        subject: { type: "tool_call", toolCall: { toolCallId: "t2" } },
        options: [
          { optionId: "allow", name: "Allow", kind: "allow_once" },
          { optionId: "deny", name: "Deny", kind: "reject_once" },
        ],
      },
    });
    const out = h.takeClient();
    expect(out[0].params.update).toMatchObject({ sessionUpdate: "tool_call", toolCallId: "t2", title: "rm -rf build" });
    const perm = out[1];
    expect(perm.method).toBe("session/request_permission");
    expect(perm.params.toolCall).toEqual({ toolCallId: "t2" });
    h.client({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: S } });
    expect(h.takeAgent()).toEqual([{ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: S } }]);
    h.client({ jsonrpc: "2.0", id: perm.id, result: { outcome: { outcome: "cancelled" } } });
    expect(h.takeAgent()).toEqual([{ jsonrpc: "2.0", id: 6, result: { outcome: { outcome: "cancelled" } } }]);
    h.agent({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 6 } });
    expect(h.takeClient()).toEqual([]);
    h.agent(update({ sessionUpdate: "tool_call_update", toolCallId: "t2", status: "cancelled" }));
    expect(h.takeClient()[0].params.update).toEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: "t2",
      status: "failed",
      _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { status: "cancelled" } } },
    });
    h.agent(update({ sessionUpdate: "state_update", state: "idle", stopReason: "cancelled" }));
    expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: 8, result: { stopReason: "cancelled" } }]);
  });

  it("answers a held prompt withdrawn by the cancel as cancelled (case 5 variant)", async () => {
    const h = await connect();
    await newSession(h);
    h.takeClient();
    const req = prompt(h, 9);
    h.client({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: S } });
    h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: req.id, error: { code: -32800, message: "Request cancelled" } });
    expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: 9, result: { stopReason: "cancelled" } }]);
  });

  it("turns an idle with stopReason error into a JSON-RPC error with the same code and message (case 6)", async () => {
    const h = await connect();
    await newSession(h);
    h.takeClient();
    const req = prompt(h);
    h.agent({ jsonrpc: "2.0", id: req.id, result: { messageId: "u1" } });
    h.agent(update({ sessionUpdate: "state_update", state: "running" }));
    h.agent(
      update({
        sessionUpdate: "state_update",
        state: "idle",
        stopReason: "error",
        error: { code: -32000, message: "Auth required" },
      }),
    );
    expect(h.takeClient()).toMatchObject([{ id: 7, error: { code: -32000, message: "Auth required" } }]);
  });

  it("relays a prompt error response, and the pre-insertion idle that follows completes nothing (case 6)", async () => {
    const h = await connect();
    await newSession(h);
    h.takeClient();
    const req = prompt(h);
    h.agent({ jsonrpc: "2.0", id: req.id, error: { code: -32602, message: "Invalid params", data: { reason: "x" } } });
    h.agent(update({ sessionUpdate: "state_update", state: "running" }));
    h.agent(update({ sessionUpdate: "state_update", state: "idle", stopReason: "error" }));
    expect(h.takeClient()).toEqual([
      { jsonrpc: "2.0", id: 7, error: { code: -32602, message: "Invalid params", data: { reason: "x" } } },
    ]);
  });

  it("fails a pending prompt with -32603 when the agent exits (case 6)", async () => {
    const h = await connect();
    await newSession(h);
    h.takeClient();
    const req = prompt(h);
    h.agent({ jsonrpc: "2.0", id: req.id, result: { messageId: "u1" } });
    h.bridge.agentGone({ code: 3, signal: null });
    expect(h.takeClient()).toMatchObject([
      { id: 7, error: { code: -32603, data: { reason: "agent_exited", exitCode: 3 } } },
    ]);
  });

  it("rejects an empty v1 prompt itself: v2 forbids it (T §1.2-1)", async () => {
    const h = await connect();
    await newSession(h);
    h.takeClient();
    h.client({ jsonrpc: "2.0", id: 5, method: "session/prompt", params: { sessionId: S, prompt: [] } });
    expect(h.takeAgent()).toEqual([]);
    expect(h.takeClient()[0].error.code).toBe(-32602);
  });

  it("completes after the settle time when an agent never reports running (T §1.2-4)", async () => {
    const h = await connect({ options: { idleSettleMs: 20 } });
    await newSession(h);
    h.takeClient();
    const req = prompt(h);
    h.agent({ jsonrpc: "2.0", id: req.id, result: { messageId: "u1" } });
    h.agent(update({ sessionUpdate: "agent_message_chunk", messageId: "m1", content: text("ok") }));
    h.agent(update({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" }));
    expect(h.takeClient()).toHaveLength(1);
    await h.settle(40);
    expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: 7, result: { stopReason: "end_turn" } }]);
  });

  it("in a replay (convert) completes at the idle itself when an agent never reports running: no window, no timer", async () => {
    const h = await connect({ options: { replay: true } });
    await newSession(h);
    h.takeClient();
    const req = prompt(h);
    h.agent({ jsonrpc: "2.0", id: req.id, result: { messageId: "u1" } });
    h.agent(update({ sessionUpdate: "agent_message_chunk", messageId: "m1", content: text("ok") }));
    h.agent(update({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" }));
    expect(h.takeClient()).toEqual([
      expect.objectContaining({ method: "session/update" }),
      { jsonrpc: "2.0", id: 7, result: { stopReason: "end_turn" } },
    ]);
  });

  it("cancels one prompt on $/cancel_request: session/cancel, plus withdrawal when not inserted (T §1.2-6)", async () => {
    const h = await connect();
    await newSession(h);
    h.takeClient();
    const req = prompt(h, "p");
    h.client({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: "p" } });
    expect(h.takeAgent()).toEqual([
      { jsonrpc: "2.0", method: "session/cancel", params: { sessionId: S } },
      { jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: req.id } },
    ]);
    h.agent({ jsonrpc: "2.0", id: req.id, error: { code: -32800, message: "Request cancelled" } });
    expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: "p", result: { stopReason: "cancelled" } }]);
  });
});

describe("direction A updates (T §2, §9 cases 7-10, 13)", () => {
  async function running(setup: Setup = {}): Promise<Harness> {
    const h = await connect(setup);
    await newSession(h);
    h.takeClient();
    return h;
  }

  it("announces a tool call first seen in an update as a v1 tool_call with a fallback title (case 8)", async () => {
    const h = await running({ options: { stash: "compact" } });
    h.agent(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", kind: "read" }));
    const [u] = h.takeClient();
    expect(u.params.update).toMatchObject({
      sessionUpdate: "tool_call",
      toolCallId: "t1",
      title: "Read",
      kind: "read",
    });
    expect(u.params.update._meta["acp-bridge"].synthetic).toEqual(["title"]);
    h.agent(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", kind: null, status: null, content: null }));
    expect(h.takeClient()[0].params.update).toMatchObject({
      sessionUpdate: "tool_call_update",
      toolCallId: "t1",
      kind: "other",
      status: "pending",
      content: [],
    });
  });

  it("coalesces tool-call content chunks into one update carrying the whole content (case 9)", async () => {
    const h = await running({ options: { stash: "compact" } });
    h.agent(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", title: "Run" }));
    h.takeClient();
    for (const t of ["a", "b", "c"])
      h.agent(
        update({
          sessionUpdate: "tool_call_content_chunk",
          toolCallId: "t1",
          content: { type: "content", content: text(t) },
        }),
      );
    expect(h.takeClient()).toEqual([]);
    await h.settle(80);
    const [u] = h.takeClient();
    expect(u.params.update.content).toEqual(["a", "b", "c"].map((t) => ({ type: "content", content: text(t) })));
    expect(u.params.update._meta["acp-bridge"].residual).toMatchObject({ op: "content_chunk", count: 3 });
  });

  it("in a replay (convert) shows each tool-call content chunk as it comes: no coalescing window", async () => {
    const h = await running({ options: { stash: "compact", replay: true } });
    h.agent(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", title: "Run" }));
    h.takeClient();
    for (const t of ["a", "b"])
      h.agent(
        update({
          sessionUpdate: "tool_call_content_chunk",
          toolCallId: "t1",
          content: { type: "content", content: text(t) },
        }),
      );
    const out = h.takeClient();
    expect(out.map((u) => u.params.update.content)).toEqual([
      [{ type: "content", content: text("a") }],
      ["a", "b"].map((t) => ({ type: "content", content: text(t) })),
    ]);
  });

  it("emits pending content chunks before any later update of the session, keeping the agent's order", async () => {
    const h = await running({ options: { stash: "compact" } });
    h.agent(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", title: "Run" }));
    h.takeClient();
    h.agent(
      update({
        sessionUpdate: "tool_call_content_chunk",
        toolCallId: "t1",
        content: { type: "content", content: text("a") },
      }),
    );
    h.agent(
      update({
        sessionUpdate: "tool_call_content_chunk",
        toolCallId: "t1",
        content: { type: "content", content: text("b") },
      }),
    );
    h.agent({
      jsonrpc: "2.0",
      method: "session/update",
      params: {
        sessionId: S,
        update: { sessionUpdate: "agent_message_chunk", messageId: "m", content: text("after") },
        _meta: { trace: "n3" },
      },
    });
    const out = h.takeClient();
    expect(out.map((m) => m.params.update.sessionUpdate)).toEqual(["tool_call_update", "agent_message_chunk"]);
    expect(out[0].params.update._meta["acp-bridge"].residual).toMatchObject({ op: "content_chunk", count: 2 });
    // The later notification's own `_meta` rides on it, not on the chunks it flushed.
    expect(out[0].params._meta).toBeUndefined();
    expect(out[1].params._meta).toEqual({ trace: "n3" });
  });

  it("emits a content chunk that carries its own notification _meta at once, with that _meta", async () => {
    const h = await running();
    h.agent(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", title: "Run" }));
    h.takeClient();
    h.agent(
      update({
        sessionUpdate: "tool_call_content_chunk",
        toolCallId: "t1",
        content: { type: "content", content: text("a") },
      }),
    );
    h.agent({
      jsonrpc: "2.0",
      method: "session/update",
      params: {
        sessionId: S,
        update: {
          sessionUpdate: "tool_call_content_chunk",
          toolCallId: "t1",
          content: { type: "content", content: text("b") },
        },
        _meta: { trace: "t2" },
      },
    });
    const out = h.takeClient();
    expect(out.map((m) => m.params._meta)).toEqual([undefined, { trace: "t2" }]);
    expect(out.map((m) => m.params.update.content.length)).toEqual([1, 2]);
  });

  it("converts the content of compaction summaries for a client that opted in (unknown blocks as placeholders)", async () => {
    const h = await running({ clientCaps: { session: { compaction: {} } } });
    h.agent(
      update({
        sessionUpdate: "compaction_summary_chunk",
        compactionId: "c1",
        content: { type: "_sketch", strokes: [] },
      }),
    );
    const [u] = h.takeClient();
    expect(u.params.update).toMatchObject({
      sessionUpdate: "compaction_summary_chunk",
      compactionId: "c1",
      content: { type: "text", text: "[unsupported content: _sketch]" },
    });
  });

  it("sends the v1 string a chained B stashed for a non-RFC 3339 updatedAt", async () => {
    const h = await running();
    h.agent(
      update({
        sessionUpdate: "session_info_update",
        title: "T",
        _meta: { "acp-bridge": { v: 1, from: 1, hadMeta: false, residual: { updatedAt: "yesterday" } } },
      }),
    );
    expect(h.takeClient()[0].params.update).toEqual({
      sessionUpdate: "session_info_update",
      title: "T",
      updatedAt: "yesterday",
    });
  });

  it("sends only the new suffix when a streamed message is upserted whole (case 10)", async () => {
    const h = await running();
    h.agent(update({ sessionUpdate: "agent_message_chunk", messageId: "m", content: text("Hel") }));
    h.agent(update({ sessionUpdate: "agent_message_chunk", messageId: "m", content: text("lo") }));
    h.agent(update({ sessionUpdate: "agent_message", messageId: "m", content: [text("Hello world")] }));
    const out = h.takeClient().map((m) => m.params.update.content.text);
    expect(out).toEqual(["Hel", "lo", " world"]);
  });

  it("renders a terminal as a transcript, never as a v1 terminal item (case 11)", async () => {
    const h = await running();
    h.agent(
      update({
        sessionUpdate: "tool_call_update",
        toolCallId: "t1",
        title: "cargo test",
        status: "in_progress",
        content: [{ type: "terminal", terminalId: "term1" }],
      }),
    );
    h.agent(update({ sessionUpdate: "terminal_update", terminalId: "term1", command: "cargo test", cwd: "/w" }));
    h.agent(
      update({
        sessionUpdate: "terminal_output_chunk",
        terminalId: "term1",
        data: Buffer.from("test ok \n").toString("base64"),
      }),
    );
    h.agent(update({ sessionUpdate: "terminal_update", terminalId: "term1", exitStatus: { exitCode: 0 } }));
    const out = h.takeClient().map((m) => m.params.update);
    expect(JSON.stringify(out)).not.toContain('"type":"terminal"');
    const last = out[out.length - 1];
    expect(last.content[0].content.text).toBe("```console\n$ cargo test\ntest ok \n```\nExited with code 0");
  });

  describe("the completing tool_call_update, where some v1 clients read a tool's result", () => {
    const output = [{ type: "content", content: text("3 passed") }];
    async function withContent(setup: Setup = {}): Promise<Harness> {
      const h = await running(setup);
      h.agent(
        update({
          sessionUpdate: "tool_call_update",
          toolCallId: "t1",
          title: "npm test",
          kind: "execute",
          status: "in_progress",
          content: output,
        }),
      );
      expect(h.takeClient().map((m) => m.params.update.sessionUpdate)).toEqual(["tool_call"]);
      return h;
    }

    it.each(["completed", "failed"])(
      "repeats the tool call's content on a %s update that carries neither rawOutput nor content",
      async (status) => {
        const h = await withContent();
        h.agent(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", status }));
        expect(h.takeClient().map((m) => m.params)).toEqual([
          { sessionId: S, update: { sessionUpdate: "tool_call_update", toolCallId: "t1", status, content: output } },
        ]);
      },
    );

    it("repeats it on a cancelled one too, which v1 shows as failed", async () => {
      const h = await withContent();
      h.agent(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "cancelled" }));
      expect(h.takeClient()[0].params.update).toEqual({
        sessionUpdate: "tool_call_update",
        toolCallId: "t1",
        status: "failed",
        content: output,
      });
    });

    it("repeats the content as it stands after coalesced chunks and with other fields of the update", async () => {
      const h = await withContent();
      h.agent(
        update({
          sessionUpdate: "tool_call_content_chunk",
          toolCallId: "t1",
          content: { type: "content", content: text("done") },
        }),
      );
      h.agent(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed", title: "npm t" }));
      const [flushed, done] = h.takeClient().map((m) => m.params.update);
      const all = [...output, { type: "content", content: text("done") }];
      expect(flushed).toEqual({ sessionUpdate: "tool_call_update", toolCallId: "t1", content: all });
      expect(done).toEqual({
        sessionUpdate: "tool_call_update",
        toolCallId: "t1",
        status: "completed",
        title: "npm t",
        content: all,
      });
    });

    it("adds nothing to a completion that carries rawOutput or content, or to an update that completes nothing", async () => {
      const h = await withContent();
      h.agent(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", title: "npm test -w" }));
      h.agent(
        update({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed", rawOutput: { code: 0 } }),
      );
      h.agent(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "failed", content: [] }));
      expect(h.takeClient().map((m) => m.params.update)).toEqual([
        { sessionUpdate: "tool_call_update", toolCallId: "t1", title: "npm test -w" },
        { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed", rawOutput: { code: 0 } },
        { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "failed", content: [] },
      ]);
    });

    it("adds nothing for a tool call without content", async () => {
      const h = await running();
      h.agent(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", title: "think", status: "in_progress" }));
      h.agent(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" }));
      expect(h.takeClient().map((m) => m.params.update)).toEqual([
        { sessionUpdate: "tool_call", toolCallId: "t1", title: "think", status: "in_progress" },
        { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" },
      ]);
    });

    it("repeats a terminal as the transcript it shows a client without the convention", async () => {
      const h = await running();
      h.agent(
        update({
          sessionUpdate: "tool_call_update",
          toolCallId: "t1",
          title: "ls",
          content: [{ type: "terminal", terminalId: "term1" }],
        }),
      );
      h.agent(
        update({ sessionUpdate: "terminal_update", terminalId: "term1", command: "ls", exitStatus: { exitCode: 0 } }),
      );
      h.takeClient();
      h.agent(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" }));
      const [done] = h.takeClient().map((m) => m.params.update);
      expect(done).toMatchObject({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" });
      expect(done.content).toEqual([{ type: "content", content: text("```console\n$ ls\n```\nExited with code 0") }]);
    });
  });

  describe("terminals for a client of the `_meta` convention (T §2.5 extension mode)", () => {
    const zed = { clientCaps: { _meta: { terminal_output: true }, terminal: true } };
    const b64 = (s: string | Buffer) => Buffer.from(s).toString("base64");
    const chunk = (data: string | Buffer) =>
      update({ sessionUpdate: "terminal_output_chunk", terminalId: "term1", data: b64(data) });

    it("shows the terminal item with terminal_info on the tool_call, then appends output and the exit", async () => {
      const h = await running(zed);
      h.agent(
        update({
          sessionUpdate: "tool_call_update",
          toolCallId: "t1",
          title: "cargo test",
          kind: "execute",
          status: "in_progress",
          content: [{ type: "terminal", terminalId: "term1" }],
        }),
      );
      h.agent(update({ sessionUpdate: "terminal_update", terminalId: "term1", command: "cargo test", cwd: "/w" }));
      h.agent(chunk("\x1b[32mtest ok\x1b[0m\n"));
      h.agent(update({ sessionUpdate: "terminal_update", terminalId: "term1", exitStatus: { exitCode: 0 } }));
      h.agent(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" }));
      expect(h.takeClient().map((m) => m.params.update)).toEqual([
        {
          sessionUpdate: "tool_call",
          toolCallId: "t1",
          title: "cargo test",
          kind: "execute",
          status: "in_progress",
          content: [{ type: "terminal", terminalId: "term1" }],
          _meta: { terminal_info: { terminal_id: "term1" } },
        },
        {
          sessionUpdate: "tool_call_update",
          toolCallId: "t1",
          _meta: { terminal_output: { terminal_id: "term1", data: "\x1b[32mtest ok\x1b[0m\n" } },
        },
        {
          sessionUpdate: "tool_call_update",
          toolCallId: "t1",
          _meta: { terminal_exit: { terminal_id: "term1", exit_code: 0, signal: null } },
        },
        // The completion carries no result: the content is repeated on it.
        {
          sessionUpdate: "tool_call_update",
          toolCallId: "t1",
          status: "completed",
          content: [{ type: "terminal", terminalId: "term1" }],
        },
      ]);
    });

    it("announces a terminal shown late (after its output) with a full tool_call, then its backlog", async () => {
      const h = await running(zed);
      h.agent(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", title: "ls", status: "in_progress" }));
      h.agent(update({ sessionUpdate: "terminal_update", terminalId: "term1", command: "ls", cwd: "/w" }));
      h.agent(chunk("a\n"));
      h.agent(update({ sessionUpdate: "terminal_update", terminalId: "term1", exitStatus: { signal: "SIGKILL" } }));
      h.agent(
        update({
          sessionUpdate: "tool_call_update",
          toolCallId: "t1",
          status: "failed",
          content: [{ type: "terminal", terminalId: "term1" }],
        }),
      );
      const out = h.takeClient().map((m) => m.params.update);
      expect(out.slice(1)).toEqual([
        {
          sessionUpdate: "tool_call",
          toolCallId: "t1",
          title: "ls",
          status: "failed",
          content: [{ type: "terminal", terminalId: "term1" }],
          _meta: { terminal_info: { terminal_id: "term1", cwd: "/w" } },
        },
        {
          sessionUpdate: "tool_call_update",
          toolCallId: "t1",
          _meta: {
            terminal_output: { terminal_id: "term1", data: "a\n" },
            terminal_exit: { terminal_id: "term1", exit_code: null, signal: "SIGKILL" },
          },
        },
      ]);
    });

    it("joins a UTF-8 character split across chunks, and ends a dangling one as U+FFFD at the exit", async () => {
      const h = await running(zed);
      h.agent(
        update({
          sessionUpdate: "tool_call_update",
          toolCallId: "t1",
          title: "echo",
          content: [{ type: "terminal", terminalId: "term1" }],
        }),
      );
      const e = Buffer.from("é");
      h.agent(chunk(e.subarray(0, 1)));
      h.agent(chunk(Buffer.concat([e.subarray(1), Buffer.from([0xe2, 0x82])])));
      h.agent(update({ sessionUpdate: "terminal_update", terminalId: "term1", exitStatus: { exitCode: 1 } }));
      const data = h
        .takeClient()
        .map((m) => m.params.update._meta?.terminal_output?.data)
        .filter((d) => d !== undefined);
      expect(data).toEqual(["é", "\ufffd"]);
    });

    it("appends what a snapshot adds, and resets the terminal for one that rewrites it", async () => {
      const h = await running(zed);
      h.agent(
        update({
          sessionUpdate: "tool_call_update",
          toolCallId: "t1",
          title: "top",
          content: [{ type: "terminal", terminalId: "term1" }],
        }),
      );
      const snap = (s: string) =>
        update({ sessionUpdate: "terminal_update", terminalId: "term1", output: { data: b64(s) } });
      h.agent(snap("10%"));
      h.agent(snap("10% 50%"));
      h.agent(snap("done"));
      const data = h
        .takeClient()
        .map((m) => m.params.update._meta?.terminal_output?.data)
        .filter((d) => d !== undefined);
      expect(data).toEqual(["10%", " 50%", "\u001bcdone"]);
    });

    it("ends a terminal still running at the end of the turn, unless the agent lists it as background work", async () => {
      const h = await running(zed);
      const req = prompt(h);
      h.agent({ jsonrpc: "2.0", id: req.id, result: { messageId: "u1" } });
      h.agent(update({ sessionUpdate: "state_update", state: "running" }));
      for (const [tool, term] of [
        ["t1", "term1"],
        ["t2", "term2"],
      ])
        h.agent(
          update({
            sessionUpdate: "tool_call_update",
            toolCallId: tool,
            title: "serve",
            content: [{ type: "terminal", terminalId: term }],
          }),
        );
      h.takeClient();
      h.agent(
        update({
          sessionUpdate: "state_update",
          state: "idle",
          stopReason: "end_turn",
          background: [{ type: "terminal", terminalId: "term2" }],
        }),
      );
      const out = h.takeClient();
      expect(out.map((m) => m.params?.update ?? { stopReason: m.result.stopReason })).toEqual([
        {
          sessionUpdate: "tool_call_update",
          toolCallId: "t1",
          _meta: { terminal_exit: { terminal_id: "term1", exit_code: null, signal: null } },
        },
        { stopReason: "end_turn" },
      ]);
      // Its real exit later is not sent twice; the background one still ends when the agent says so.
      h.agent(update({ sessionUpdate: "terminal_update", terminalId: "term1", exitStatus: { exitCode: 0 } }));
      h.agent(update({ sessionUpdate: "terminal_update", terminalId: "term2", exitStatus: { exitCode: 0 } }));
      expect(h.takeClient().map((m) => m.params.update._meta)).toEqual([
        { terminal_exit: { terminal_id: "term2", exit_code: 0, signal: null } },
      ]);
    });

    it.each([
      ["a client of the convention", zed, "terminal_output"],
      ["a client without it (codex-acp's keys)", { clientCaps: {} }, "terminal_output_delta"],
    ] as const)(
      "property: random v2 agent updates give %s a legal stream whose terminals show the agent's bytes",
      async (_label, setup, key) => {
        await fc.assert(
          fc.asyncProperty(fc.array(rawUpdate, { maxLength: 14 }), async (updates) => {
            const h = await running(setup);
            // The agent's bytes per terminal (chunks append, snapshots replace), as its own client would show them.
            const bytes = new Map<string, Buffer>();
            for (const u of updates) {
              h.agent(update(u));
              if (u.sessionUpdate === "terminal_output_chunk")
                bytes.set(
                  u.terminalId,
                  Buffer.concat([bytes.get(u.terminalId) ?? Buffer.alloc(0), Buffer.from(u.data, "base64")]),
                );
              else if (u.sessionUpdate === "terminal_update" && u.output)
                bytes.set(u.terminalId, Buffer.from(u.output.data, "base64"));
            }
            await h.settle(80);
            const shown = new Map<string, string>();
            const exited = new Set<string>();
            const announced = new Set<string>();
            for (const m of h.takeClient()) {
              const u = m.params?.update;
              if (!u) continue;
              const meta = u._meta ?? {};
              // A client of the convention reads terminal_info on a tool_call; any other never gets a tool_call twice.
              if (meta.terminal_info) {
                if (key === "terminal_output") expect(u.sessionUpdate).toBe("tool_call");
                expect(shown.has(meta.terminal_info.terminal_id)).toBe(false);
                shown.set(meta.terminal_info.terminal_id, "");
              }
              if (u.sessionUpdate === "tool_call" && key === "terminal_output_delta") {
                expect(announced.has(u.toolCallId)).toBe(false);
                announced.add(u.toolCallId);
              }
              // A terminal item only once the client has the terminal, and only for a client of the convention.
              for (const c of Array.isArray(u.content) ? u.content : [])
                if (c.type === "terminal") expect(key === "terminal_output" && shown.has(c.terminalId)).toBe(true);
              const other = key === "terminal_output" ? "terminal_output_delta" : "terminal_output";
              expect(meta[other]).toBeUndefined();
              if (meta[key]) {
                const id = meta[key].terminal_id;
                expect(u.sessionUpdate).toBe("tool_call_update");
                expect(shown.has(id)).toBe(true);
                const data: string = meta[key].data;
                const reset = data.lastIndexOf("\u001bc");
                shown.set(id, reset >= 0 ? data.slice(reset + 2) : (shown.get(id) ?? "") + data);
              }
              if (meta.terminal_exit) {
                const id = meta.terminal_exit.terminal_id;
                expect(shown.has(id) && !exited.has(id)).toBe(true);
                exited.add(id);
              }
            }
            for (const [id, text] of shown) expect(text).toBe((bytes.get(id) ?? Buffer.alloc(0)).toString("utf8"));
            expect(h.violations).toEqual([]);
            current = undefined;
          }),
          { numRuns: Math.max(20, Math.floor(numRuns() / 5)) },
        );
      },
      120_000,
    );

    it("announces two terminals of one tool call one by one, each item only once the client has its terminal", async () => {
      const h = await running(zed);
      const items = [
        { type: "terminal", terminalId: "term2" },
        { type: "terminal", terminalId: "term1" },
      ];
      h.agent(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", title: "two", content: items }));
      expect(h.takeClient().map((m) => [m.params.update.content, m.params.update._meta])).toEqual([
        [[items[0]], { terminal_info: { terminal_id: "term2" } }],
        [items, { terminal_info: { terminal_id: "term1" } }],
      ]);
    });

    it("keeps a shown terminal in a permission request's tool call (the request updates what the client shows)", async () => {
      const h = await running(zed);
      const item = { type: "terminal", terminalId: "term1" };
      h.agent(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", title: "rm", content: [item] }));
      h.takeClient();
      const ask = (id: number, terminalId: string) =>
        h.agent({
          jsonrpc: "2.0",
          id,
          method: "session/request_permission",
          params: {
            sessionId: S,
            title: "Run it?",
            subject: {
              type: "tool_call",
              toolCall: { toolCallId: "t1", content: [{ type: "terminal", terminalId }] },
            },
            options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }],
          },
        });
      ask(6, "term1");
      await h.settle();
      expect(h.takeAgent()).toEqual([]);
      const [perm] = h.takeClient();
      expect(perm.params.toolCall.content).toEqual([item]);
      // A terminal the client has not been shown is its transcript.
      ask(7, "term9");
      await h.settle();
      const [other] = h.takeClient();
      expect(other.params.toolCall.content[0].type).toBe("content");
    });

    it("gives a client without the capability the transcript, with codex-acp's keys and never the item", async () => {
      const h = await running({ clientCaps: { _meta: { terminal_output: false } } });
      h.agent(
        update({
          sessionUpdate: "tool_call_update",
          toolCallId: "t1",
          title: "ls",
          content: [{ type: "terminal", terminalId: "term1" }],
        }),
      );
      h.agent(update({ sessionUpdate: "terminal_update", terminalId: "term1", command: "ls", cwd: "/w" }));
      h.agent(chunk("a.txt\n"));
      h.agent(update({ sessionUpdate: "terminal_update", terminalId: "term1", exitStatus: { exitCode: 0 } }));
      const transcript = (body: string) => [{ type: "content", content: text(`\`\`\`console\n${body}\`\`\``) }];
      const out = h.takeClient().map((m) => m.params.update);
      expect(out).toEqual([
        {
          sessionUpdate: "tool_call",
          toolCallId: "t1",
          title: "ls",
          content: transcript(""),
          _meta: { terminal_info: { terminal_id: "term1" } },
        },
        {
          sessionUpdate: "tool_call_update",
          toolCallId: "t1",
          _meta: { terminal_output_delta: { terminal_id: "term1", data: "a.txt\n" } },
        },
        {
          sessionUpdate: "tool_call_update",
          toolCallId: "t1",
          _meta: { terminal_exit: { terminal_id: "term1", exit_code: 0, signal: null } },
        },
        {
          sessionUpdate: "tool_call_update",
          toolCallId: "t1",
          content: [{ type: "content", content: text("```console\n$ ls\na.txt\n```\nExited with code 0") }],
        },
      ]);
      expect(JSON.stringify(out)).not.toContain('"type":"terminal"');
    });

    it("never sends a client without the capability a tool_call twice: a second or a late terminal is named on an update", async () => {
      const h = await running({ clientCaps: {} });
      const items = [
        { type: "terminal", terminalId: "term1" },
        { type: "terminal", terminalId: "term2" },
      ];
      for (const id of ["term1", "term2", "term3"])
        h.agent(update({ sessionUpdate: "terminal_output_chunk", terminalId: id, data: b64(`${id}\n`) }));
      h.agent(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", title: "two", content: items }));
      h.agent(update({ sessionUpdate: "tool_call_update", toolCallId: "t2", title: "late", status: "in_progress" }));
      h.agent(
        update({
          sessionUpdate: "tool_call_update",
          toolCallId: "t2",
          content: [{ type: "terminal", terminalId: "term3" }],
        }),
      );
      const out = h.takeClient().map((m) => m.params.update);
      const transcript = (id: string) => ({ type: "content", content: text(`\`\`\`console\n${id}\n\`\`\``) });
      expect(out).toEqual([
        {
          sessionUpdate: "tool_call",
          toolCallId: "t1",
          title: "two",
          content: [transcript("term1"), transcript("term2")],
          _meta: { terminal_info: { terminal_id: "term1" } },
        },
        {
          sessionUpdate: "tool_call_update",
          toolCallId: "t1",
          _meta: { terminal_output_delta: { terminal_id: "term1", data: "term1\n" } },
        },
        { sessionUpdate: "tool_call_update", toolCallId: "t1", _meta: { terminal_info: { terminal_id: "term2" } } },
        {
          sessionUpdate: "tool_call_update",
          toolCallId: "t1",
          _meta: { terminal_output_delta: { terminal_id: "term2", data: "term2\n" } },
        },
        { sessionUpdate: "tool_call", toolCallId: "t2", title: "late", status: "in_progress" },
        {
          sessionUpdate: "tool_call_update",
          toolCallId: "t2",
          content: [transcript("term3")],
          _meta: { terminal_info: { terminal_id: "term3" } },
        },
        {
          sessionUpdate: "tool_call_update",
          toolCallId: "t2",
          _meta: { terminal_output_delta: { terminal_id: "term3", data: "term3\n" } },
        },
      ]);
    });

    it("ends a plain client's terminal still running at the end of the turn with terminal_exit", async () => {
      const h = await running({ clientCaps: {} });
      const req = prompt(h);
      h.agent({ jsonrpc: "2.0", id: req.id, result: { messageId: "u1" } });
      h.agent(update({ sessionUpdate: "state_update", state: "running" }));
      h.agent(
        update({
          sessionUpdate: "tool_call_update",
          toolCallId: "t1",
          title: "serve",
          content: [{ type: "terminal", terminalId: "term1" }],
        }),
      );
      h.takeClient();
      h.agent(update({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" }));
      expect(h.takeClient().map((m) => m.params?.update ?? { stopReason: m.result.stopReason })).toEqual([
        {
          sessionUpdate: "tool_call_update",
          toolCallId: "t1",
          _meta: { terminal_exit: { terminal_id: "term1", exit_code: null, signal: null } },
        },
        { stopReason: "end_turn" },
      ]);
    });
  });

  it("merges plans into one v1 plan (case 14)", async () => {
    const h = await running();
    h.agent(
      update({
        sessionUpdate: "plan_update",
        plan: { type: "items", planId: "a", entries: [{ content: "one", priority: "high", status: "pending" }] },
      }),
    );
    h.agent(
      update({
        sessionUpdate: "plan_update",
        plan: { type: "items", planId: "b", entries: [{ content: "two", priority: "low", status: "cancelled" }] },
      }),
    );
    const plans = h.takeClient().map((m) => m.params.update);
    expect(plans[1].sessionUpdate).toBe("plan");
    expect(plans[1].entries.map((e: { content: string; status: string }) => [e.content, e.status])).toEqual([
      ["one", "pending"],
      ["two", "completed"],
    ]);
  });

  it("forwards plan_update natively to a v1 client that advertised the unstable plan capability (T §2.6)", async () => {
    const h = await connect({ clientCaps: { plan: {} } });
    await newSession(h);
    h.takeClient();
    h.agent(
      update({
        sessionUpdate: "plan_update",
        plan: { type: "items", planId: "a", entries: [{ content: "one", priority: "high", status: "cancelled" }] },
      }),
    );
    const [u] = h.takeClient();
    expect(u.params.update).toMatchObject({ sessionUpdate: "plan_update", plan: { type: "items", planId: "a" } });
    expect(u.params.update.plan.entries[0].status).toBe("completed");
    // The client opted into the unstable schema: its stable-schema check does not apply here.
    expectValid("v1u", "SessionNotification", u.params);
    h.violations.splice(0);
  });

  it("drops a state_update and unknown variants toward a plain v1 client (T §2.3, §2.11)", async () => {
    const h = await running();
    h.agent(update({ sessionUpdate: "state_update", state: "running" }));
    h.agent(update({ sessionUpdate: "_vendor_thing", x: 1 }));
    expect(h.takeClient()).toEqual([]);
  });

  it("synthesizes a v1 tool call for a command permission subject and finalizes it (case 13)", async () => {
    const h = await running();
    h.agent({
      jsonrpc: "2.0",
      id: 4,
      method: "session/request_permission",
      params: {
        sessionId: S,
        title: "Run make?",
        subject: { type: "command", command: "make", cwd: "/w" },
        options: [{ optionId: "no", name: "No", kind: "reject_once" }],
      },
    });
    const [announce, perm] = h.takeClient();
    expect(announce.params.update).toMatchObject({
      sessionUpdate: "tool_call",
      title: "Run make?",
      kind: "execute",
      status: "pending",
    });
    h.client({ jsonrpc: "2.0", id: perm.id, result: { outcome: { outcome: "selected", optionId: "no" } } });
    const [final] = h.takeClient();
    expect(final.params.update).toMatchObject({ sessionUpdate: "tool_call_update", status: "failed" });
    expect(h.takeAgent()).toEqual([
      { jsonrpc: "2.0", id: 4, result: { outcome: { outcome: "selected", optionId: "no" } } },
    ]);
  });

  it("answers a v2 agent calling a removed v1 client method with -32601", async () => {
    const h = await running();
    h.agent({ jsonrpc: "2.0", id: 11, method: "fs/read_text_file", params: { sessionId: S, path: "/w/a" } });
    expect(h.takeClient()).toEqual([]);
    expect(h.takeAgent()[0]).toMatchObject({ id: 11, error: { code: -32601, data: { method: "fs/read_text_file" } } });
  });

  it("forwards extension methods untouched, unprefixed ones too, and refuses v2 names", async () => {
    const h = await running();
    h.client({ jsonrpc: "2.0", id: 1, method: "_vendor/x", params: { a: 1, _meta: { traceparent: "t" } } });
    expect(h.takeAgent()[0]).toMatchObject({ method: "_vendor/x", params: { a: 1, _meta: { traceparent: "t" } } });
    // No schema defines it: an extension written before the `_` prefix rule.
    h.client({ jsonrpc: "2.0", id: 2, method: "session/frobnicate", params: {} });
    expect(h.takeAgent()[0]).toMatchObject({ method: "session/frobnicate", params: {} });
    // A v2 name from a v1 client is no extension.
    h.client({ jsonrpc: "2.0", id: 3, method: "auth/login", params: { methodId: "m" } });
    expect(h.takeAgent()).toEqual([]);
    expect(h.takeClient()[0]).toMatchObject({ id: 3, error: { code: -32601, data: { method: "auth/login" } } });
  });
});
