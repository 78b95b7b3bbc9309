// Direction B (v2 client, v1 agent) on an in-memory bridge: scripted agent messages, exact
// expectations, every message the bridge writes schema-checked (T §9 cases 15-19, H §9).
import { afterEach, describe, expect, it } from "vitest";
import { harness, type Harness } from "../support/harness.js";
import { expectValid } from "../support/schema.js";

const S = "s1";
let current: Harness | undefined;

afterEach(() => {
  if (current) expect(current.violations).toEqual([]);
  current = undefined;
});

interface Setup {
  agentCaps?: Record<string, unknown>;
  options?: Parameters<typeof harness>[0];
}

const FULL = { loadSession: true, sessionCapabilities: { list: {}, resume: {}, close: {} }, auth: { logout: {} } };

async function connect(setup: Setup = {}): Promise<Harness> {
  const h = harness({ ackGraceMs: 0, ...setup.options });
  current = h;
  h.client({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: 2, info: { name: "zed", version: "1" }, capabilities: {} },
  });
  await h.settle();
  const [probe2] = h.takeAgent();
  expect(probe2.params.protocolVersion).toBe(2);
  // A v1 agent answers its own version (v1 rule) to a v2 body: the bridge re-initializes in v1.
  h.agent({ jsonrpc: "2.0", id: probe2.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
  await h.settle();
  const [probe1] = h.takeAgent();
  expect(probe1.params).toMatchObject({ protocolVersion: 1, clientInfo: { name: "zed", version: "1" } });
  expect(probe1.params.clientCapabilities).toMatchObject({
    fs: { readTextFile: false, writeTextFile: false },
    terminal: false,
  });
  h.agent({
    jsonrpc: "2.0",
    id: probe1.id,
    result: { protocolVersion: 1, agentCapabilities: setup.agentCaps ?? FULL, authMethods: [] },
  });
  await h.settle();
  const [init] = h.takeClient();
  expect(init.result.protocolVersion).toBe(2);
  expect(h.bridge.mode).toBe("B");
  return h;
}

const update = (u: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  method: "session/update",
  params: { sessionId: S, update: u },
});
const text = (t: string) => ({ type: "text", text: t });
const kinds = (msgs: any[]) =>
  msgs.map((m) =>
    m.method === "session/update" ? m.params.update.sessionUpdate : (m.method ?? (m.error ? "error" : "result")),
  );

async function newSession(h: Harness, result: Record<string, unknown> = {}) {
  h.client({ jsonrpc: "2.0", id: "new", method: "session/new", params: { cwd: "/w" } });
  const [req] = h.takeAgent();
  expect(req.params).toMatchObject({ cwd: "/w", mcpServers: [] });
  h.agent({ jsonrpc: "2.0", id: req.id, result: { sessionId: S, ...result } });
  await h.settle();
  return h.takeClient()[0];
}

function prompt(h: Harness, id: unknown = 3, words = "Fix the failing test"): any {
  h.client({ jsonrpc: "2.0", id, method: "session/prompt", params: { sessionId: S, prompt: [text(words)] } });
  const [req] = h.takeAgent();
  expect(req).toMatchObject({ method: "session/prompt", params: { sessionId: S, prompt: [text(words)] } });
  return req;
}

describe("direction B handshake and sessions (H §1.4, §2.2, §9 case 2)", () => {
  it("serves a v2 client a v1 agent's capabilities: baseline session, markers, info synthesized", async () => {
    const h = harness();
    current = h;
    h.client({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: 2, info: { name: "zed", version: "1" }, capabilities: {} },
    });
    await h.settle();
    const [p2] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: p2.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
    await h.settle();
    const [p1] = h.takeAgent();
    h.agent({
      jsonrpc: "2.0",
      id: p1.id,
      result: {
        protocolVersion: 1,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true },
          mcpCapabilities: { http: true, sse: true },
        },
        authMethods: [{ id: "agent-login", name: "Agent login" }],
      },
    });
    await h.settle();
    const [init] = h.takeClient();
    expect(init.result).toMatchObject({
      protocolVersion: 2,
      info: { name: "unknown", version: "unknown" },
      capabilities: { session: { prompt: { image: {} }, mcp: { stdio: {}, http: {} } } },
      authMethods: [{ methodId: "agent-login", type: "agent", name: "Agent login" }],
    });
  });

  it("answers auth/logout with -32601 when the v1 agent has no logout (H §3.1)", async () => {
    const h = await connect({ agentCaps: { loadSession: true } });
    h.client({ jsonrpc: "2.0", id: 5, method: "auth/logout", params: {} });
    expect(h.takeAgent()).toEqual([]);
    expect(h.takeClient()[0].error).toMatchObject({ code: -32601, data: { method: "auth/logout" } });
  });

  it("renames auth/login to authenticate", async () => {
    const h = await connect();
    h.client({ jsonrpc: "2.0", id: 5, method: "auth/login", params: { methodId: "m" } });
    const [req] = h.takeAgent();
    expect(req).toMatchObject({ method: "authenticate", params: { methodId: "m" } });
    h.agent({ jsonrpc: "2.0", id: req.id, result: null });
    expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: 5, result: {} }]);
  });

  it("synthesizes a mode config option and maps set_config_option on it to session/set_mode (H §9 case 12)", async () => {
    const h = await connect();
    const res = await newSession(h, {
      modes: {
        currentModeId: "ask",
        availableModes: [
          { id: "ask", name: "Ask" },
          { id: "code", name: "Code" },
        ],
      },
    });
    expect(res.result.configOptions[0]).toMatchObject({
      configId: "mode",
      category: "mode",
      type: "select",
      currentValue: "ask",
    });
    h.client({
      jsonrpc: "2.0",
      id: 9,
      method: "session/set_config_option",
      params: { sessionId: S, configId: "mode", type: "id", value: "nope" },
    });
    expect(h.takeAgent()).toEqual([]);
    expect(h.takeClient()[0].error.code).toBe(-32602);
    h.client({
      jsonrpc: "2.0",
      id: 10,
      method: "session/set_config_option",
      params: { sessionId: S, configId: "mode", type: "id", value: "code" },
    });
    const [req] = h.takeAgent();
    expect(req).toMatchObject({ method: "session/set_mode", params: { sessionId: S, modeId: "code" } });
    h.agent({ jsonrpc: "2.0", id: req.id, result: {} });
    const [answer] = h.takeClient();
    expect(answer.result.configOptions[0]).toMatchObject({ configId: "mode", currentValue: "code" });
    h.agent(update({ sessionUpdate: "current_mode_update", currentModeId: "ask" }));
    const [u] = h.takeClient();
    expect(u.params.update.sessionUpdate).toBe("config_option_update");
    expect(u.params.update.configOptions[0]).toMatchObject({ configId: "mode", currentValue: "ask" });
  });

  it("resumes with replay through session/load, with deterministic ids and the idle snapshot first (case 19, H §9 case 6)", async () => {
    const h = await connect();
    const ids: string[][] = [];
    for (let round = 0; round < 2; round++) {
      h.client({
        jsonrpc: "2.0",
        id: `r${round}`,
        method: "session/resume",
        params: { sessionId: S, cwd: "/w", replayFrom: { type: "start" } },
      });
      const [req] = h.takeAgent();
      expect(req).toMatchObject({ method: "session/load", params: { sessionId: S, cwd: "/w", mcpServers: [] } });
      h.agent(update({ sessionUpdate: "user_message_chunk", content: text("hi") }));
      h.agent(update({ sessionUpdate: "agent_message_chunk", content: text("hel") }));
      h.agent(update({ sessionUpdate: "agent_message_chunk", content: text("lo") }));
      h.agent({ jsonrpc: "2.0", id: req.id, result: {} });
      await h.settle();
      const out = h.takeClient();
      expect(kinds(out)).toEqual([
        "user_message_chunk",
        "agent_message_chunk",
        "agent_message_chunk",
        "state_update",
        "result",
      ]);
      expect(out[3].params.update).toEqual({ sessionUpdate: "state_update", state: "idle" });
      ids.push(out.slice(0, 3).map((m) => m.params.update.messageId));
    }
    expect(ids[0]).toEqual(ids[1]);
    expect(ids[0]![1]).toBe(ids[0]![2]);
  });

  it("refuses a replay when the v1 agent cannot load sessions (H §2.3)", async () => {
    const h = await connect({ agentCaps: {} });
    h.client({
      jsonrpc: "2.0",
      id: 1,
      method: "session/resume",
      params: { sessionId: S, cwd: "/w", replayFrom: { type: "start" } },
    });
    expect(h.takeAgent()).toEqual([]);
    expect(h.takeClient()[0].error).toMatchObject({ code: -32602, data: { reason: "replay not supported by agent" } });
  });

  it("resumes without replay through session/load, suppressing the history (H §9 case 7)", async () => {
    const h = await connect({ agentCaps: { loadSession: true } });
    h.client({ jsonrpc: "2.0", id: 1, method: "session/resume", params: { sessionId: S, cwd: "/w" } });
    const [req] = h.takeAgent();
    expect(req.method).toBe("session/load");
    h.agent(update({ sessionUpdate: "agent_message_chunk", content: text("old") }));
    h.agent(update({ sessionUpdate: "tool_call", toolCallId: "t", title: "x" }));
    h.agent(update({ sessionUpdate: "available_commands_update", availableCommands: [] }));
    h.agent({ jsonrpc: "2.0", id: req.id, result: {} });
    await h.settle();
    expect(kinds(h.takeClient())).toEqual(["available_commands_update", "state_update", "result"]);
  });

  it("emulates session/list and session/close for a v1 agent without them (H §9 case 8)", async () => {
    const h = await connect({ agentCaps: { loadSession: true } });
    await newSession(h);
    h.client({ jsonrpc: "2.0", id: 7, method: "session/list", params: { cwd: "/w" } });
    h.client({ jsonrpc: "2.0", id: 8, method: "session/list", params: { cwd: "/other" } });
    expect(h.takeAgent()).toEqual([]);
    const [all, none] = h.takeClient();
    expect(all.result.sessions).toEqual([{ sessionId: S, cwd: "/w" }]);
    expect(all.result._meta["acp-bridge"].emulated).toBe("session/list");
    expect(none.result.sessions).toEqual([]);
    h.client({ jsonrpc: "2.0", id: 9, method: "session/close", params: { sessionId: S } });
    await h.settle();
    expect(h.takeClient()[0]).toMatchObject({
      id: 9,
      result: { _meta: { "acp-bridge": { emulated: "session/close" } } },
    });
    h.agent(update({ sessionUpdate: "agent_message_chunk", content: text("late") }));
    expect(h.takeClient()).toEqual([]);
    h.client({ jsonrpc: "2.0", id: 10, method: "session/prompt", params: { sessionId: S, prompt: [text("x")] } });
    expect(h.takeClient()[0].error).toMatchObject({ code: -32002, data: { sessionId: S } });
  });
});

describe("direction B prompt lifecycle (T §1.4, §9 cases 15-18)", () => {
  it("acks on the first agent message: ack, user_message, running, then the translated chunk (case 15)", async () => {
    const h = await connect({ options: { ackGraceMs: 1000 } });
    await newSession(h);
    const req = prompt(h);
    expect(h.takeClient()).toEqual([]);
    h.agent(update({ sessionUpdate: "agent_message_chunk", content: text("Running the tests.") }));
    const out = h.takeClient();
    expect(out[0]).toEqual({ jsonrpc: "2.0", id: 3, result: { messageId: `acpb:${S}:u:1` } });
    expect(out[1].params.update).toEqual({
      sessionUpdate: "user_message",
      messageId: `acpb:${S}:u:1`,
      content: [text("Fix the failing test")],
    });
    expect(out[2].params.update).toEqual({ sessionUpdate: "state_update", state: "running" });
    expect(out[3].params.update).toMatchObject({
      sessionUpdate: "agent_message_chunk",
      messageId: `acpb:${S}:a:1`,
      content: text("Running the tests."),
    });
    h.agent(
      update({ sessionUpdate: "tool_call", toolCallId: "t1", title: "cargo test", kind: "execute", status: "pending" }),
    );
    expect(h.takeClient()[0].params.update).toEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: "t1",
      title: "cargo test",
      kind: "execute",
      status: "pending",
    });
    h.agent(update({ sessionUpdate: "agent_message_chunk", content: text("Done.") }));
    expect(h.takeClient()[0].params.update.messageId).toBe(`acpb:${S}:a:2`);
    h.agent({ jsonrpc: "2.0", id: req.id, result: { stopReason: "end_turn" } });
    expect(h.takeClient().map((m) => m.params.update)).toEqual([
      { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" },
    ]);
  });

  it("fails the v2 prompt itself when the v1 agent errs before the ack, and reports an error idle after it (case 16)", async () => {
    const h = await connect({ options: { ackGraceMs: 100 } });
    await newSession(h);
    const req = prompt(h);
    h.agent({ jsonrpc: "2.0", id: req.id, error: { code: -32000, message: "Auth required" } });
    expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: 3, error: { code: -32000, message: "Auth required" } }]);
    const req2 = prompt(h, 4);
    await h.settle(150);
    expect(kinds(h.takeClient())).toEqual(["result", "user_message", "state_update"]);
    h.agent({ jsonrpc: "2.0", id: req2.id, error: { code: -32000, message: "Auth required" } });
    expect(h.takeClient()[0].params.update).toMatchObject({
      sessionUpdate: "state_update",
      state: "idle",
      stopReason: "error",
      error: { code: -32000, message: "Auth required" },
    });
  });

  it("holds a second prompt until the first turn's idle; $/cancel_request and session/cancel answer held ones -32800 (case 17)", async () => {
    const h = await connect();
    await newSession(h);
    const first = prompt(h, 4);
    h.takeClient();
    h.client({ jsonrpc: "2.0", id: 5, method: "session/prompt", params: { sessionId: S, prompt: [text("second")] } });
    h.client({ jsonrpc: "2.0", id: 6, method: "session/prompt", params: { sessionId: S, prompt: [text("third")] } });
    expect(h.takeAgent()).toEqual([]);
    expect(h.takeClient()).toEqual([]);
    h.client({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 6 } });
    expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: 6, error: { code: -32800, message: "Request cancelled" } }]);
    h.agent({ jsonrpc: "2.0", id: first.id, result: { stopReason: "end_turn" } });
    expect(kinds(h.takeClient())).toEqual(["state_update", "result", "user_message", "state_update"]);
    const [second] = h.takeAgent();
    expect(second.params.prompt).toEqual([text("second")]);
    h.client({ jsonrpc: "2.0", id: 7, method: "session/prompt", params: { sessionId: S, prompt: [text("fourth")] } });
    h.client({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: S } });
    expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: 7, error: { code: -32800, message: "Request cancelled" } }]);
    expect(h.takeAgent()).toEqual([{ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: S } }]);
    h.agent({ jsonrpc: "2.0", id: second.id, result: { stopReason: "cancelled" } });
    expect(h.takeClient()[0].params.update).toEqual({
      sessionUpdate: "state_update",
      state: "idle",
      stopReason: "cancelled",
    });
  });

  it("brackets a permission with requires_action and running, and cancels it for the v1 agent on session/cancel (case 18)", async () => {
    const h = await connect();
    await newSession(h);
    const req = prompt(h);
    h.takeClient();
    h.agent(
      update({ sessionUpdate: "tool_call", toolCallId: "t1", title: "cargo test", kind: "execute", status: "pending" }),
    );
    h.agent({
      jsonrpc: "2.0",
      id: 44,
      method: "session/request_permission",
      params: {
        sessionId: S,
        toolCall: { toolCallId: "t1" },
        options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }],
      },
    });
    const out = h.takeClient();
    expect(kinds(out)).toEqual(["tool_call_update", "state_update", "session/request_permission"]);
    expect(out[1].params.update.state).toBe("requires_action");
    expect(out[2].params).toMatchObject({
      title: "cargo test",
      subject: { type: "tool_call", toolCall: { toolCallId: "t1" } },
    });
    h.client({ jsonrpc: "2.0", id: out[2].id, result: { outcome: { outcome: "selected", optionId: "allow" } } });
    expect(h.takeClient().map((m) => m.params.update)).toEqual([{ sessionUpdate: "state_update", state: "running" }]);
    expect(h.takeAgent()).toEqual([
      { jsonrpc: "2.0", id: 44, result: { outcome: { outcome: "selected", optionId: "allow" } } },
    ]);
    // A second permission, cancelled by the client's session/cancel.
    h.agent({
      jsonrpc: "2.0",
      id: 45,
      method: "session/request_permission",
      params: {
        sessionId: S,
        toolCall: { toolCallId: "t1" },
        options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }],
      },
    });
    const perm = h.takeClient().find((m) => m.method === "session/request_permission");
    h.client({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: S } });
    expect(h.takeAgent()).toEqual([
      { jsonrpc: "2.0", method: "session/cancel", params: { sessionId: S } },
      { jsonrpc: "2.0", id: 45, result: { outcome: { outcome: "cancelled" } } },
    ]);
    expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: perm.id } }]);
    h.client({ jsonrpc: "2.0", id: perm.id, result: { outcome: { outcome: "cancelled" } } });
    expect(h.takeAgent()).toEqual([]);
    h.agent({ jsonrpc: "2.0", id: req.id, result: { stopReason: "cancelled" } });
    expect(h.takeClient().map((m) => m.params.update)).toEqual([
      { sessionUpdate: "state_update", state: "idle", stopReason: "cancelled" },
    ]);
  });

  it("ends an acked turn with an error idle when the v1 agent exits, and fails held prompts (T §1.4-11)", async () => {
    const h = await connect();
    await newSession(h);
    prompt(h);
    h.client({ jsonrpc: "2.0", id: 8, method: "session/prompt", params: { sessionId: S, prompt: [text("held")] } });
    h.takeClient();
    h.bridge.agentGone({ code: 1, signal: null });
    const out = h.takeClient();
    expect(out).toContainEqual({
      jsonrpc: "2.0",
      id: 8,
      error: { code: -32603, message: "Agent process exited", data: { reason: "agent_exited", exitCode: 1 } },
    });
    expect(out.find((m) => m.method === "session/update").params.update).toMatchObject({
      state: "idle",
      stopReason: "error",
      error: { code: -32603 },
    });
  });

  it("answers a v1 agent calling fs/read_text_file with -32601 while the turn goes on (H §9 case 14)", async () => {
    const h = await connect();
    await newSession(h);
    const req = prompt(h);
    h.takeClient();
    h.agent({ jsonrpc: "2.0", id: 50, method: "fs/read_text_file", params: { sessionId: S, path: "/w/a" } });
    expect(h.takeAgent()[0]).toMatchObject({ id: 50, error: { code: -32601, data: { method: "fs/read_text_file" } } });
    h.agent({ jsonrpc: "2.0", id: req.id, result: { stopReason: "end_turn" } });
    expect(h.takeClient()[0].params.update).toMatchObject({ state: "idle", stopReason: "end_turn" });
  });

  it("rejects a v2 prompt with a content type v1 cannot express (T §1.4-1)", async () => {
    const h = await connect();
    await newSession(h);
    h.client({
      jsonrpc: "2.0",
      id: 3,
      method: "session/prompt",
      params: { sessionId: S, prompt: [{ type: "_widget", x: 1 }] },
    });
    expect(h.takeAgent()).toEqual([]);
    expect(h.takeClient()[0].error.code).toBe(-32602);
  });

  it("rejects v2 request ids that are null or fractional (H §7.2)", async () => {
    const h = await connect();
    h.client({ jsonrpc: "2.0", id: 1.5, method: "session/list", params: {} });
    expect(h.takeClient()[0]).toMatchObject({ id: null, error: { code: -32600 } });
  });
});

describe("direction B: the `_meta` terminal convention of v1 agents (T §2.5 B↓-1)", () => {
  const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
  const updates = (h: Harness) => h.takeClient().map((m) => m.params.update);

  it("offers `_meta.terminal_output: true` to the v1 agent", async () => {
    const h = harness({ ackGraceMs: 0 });
    current = h;
    h.client({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: 2, info: { name: "zed", version: "1" }, capabilities: {} },
    });
    await h.settle();
    const [p2] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: p2.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
    await h.settle();
    const [p1] = h.takeAgent();
    expect(p1.params.clientCapabilities._meta).toEqual({ terminal_output: true });
  });

  it("turns codex-acp's terminal (info + content on tool_call, deltas, exit) into v2 terminal updates", async () => {
    const h = await connect();
    await newSession(h);
    h.agent(
      update({
        sessionUpdate: "tool_call",
        toolCallId: "call_1",
        title: "ls",
        kind: "execute",
        status: "in_progress",
        rawInput: { command: ["bash", "-lc", "ls"] },
        content: [{ type: "terminal", terminalId: "call_1" }],
        _meta: { terminal_info: { cwd: "/w", terminal_id: "call_1" } },
      }),
    );
    h.agent(
      update({
        sessionUpdate: "tool_call_update",
        toolCallId: "call_1",
        _meta: { terminal_output_delta: { data: "a.txt\n", terminal_id: "call_1" } },
      }),
    );
    h.agent(
      update({
        sessionUpdate: "tool_call_update",
        toolCallId: "call_1",
        status: "completed",
        _meta: { terminal_exit: { exit_code: 0, signal: null, terminal_id: "call_1" } },
      }),
    );
    expect(updates(h)).toEqual([
      { sessionUpdate: "terminal_update", terminalId: "call_1", command: "bash -lc ls", cwd: "/w" },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "call_1",
        title: "ls",
        kind: "execute",
        status: "in_progress",
        rawInput: { command: ["bash", "-lc", "ls"] },
        content: [{ type: "terminal", terminalId: "call_1" }],
      },
      { sessionUpdate: "terminal_output_chunk", terminalId: "call_1", data: b64("a.txt\n") },
      { sessionUpdate: "terminal_update", terminalId: "call_1", exitStatus: { exitCode: 0 } },
      { sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "completed" },
    ]);
  });

  it("turns claude-agent-acp's terminal (info first, command later, output then exit with content) into v2", async () => {
    const h = await connect();
    await newSession(h);
    h.agent(
      update({
        sessionUpdate: "tool_call",
        toolCallId: "tu_1",
        title: "Terminal",
        kind: "execute",
        status: "pending",
        rawInput: {},
        _meta: { claudeCode: { toolName: "Bash" }, terminal_info: { terminal_id: "tu_1" } },
      }),
    );
    h.agent(
      update({
        sessionUpdate: "tool_call_update",
        toolCallId: "tu_1",
        title: "`npm test`",
        rawInput: { command: "npm test" },
      }),
    );
    h.agent(
      update({
        sessionUpdate: "tool_call_update",
        toolCallId: "tu_1",
        _meta: { terminal_output: { terminal_id: "tu_1", data: "ok ✓\n" } },
      }),
    );
    h.agent(
      update({
        sessionUpdate: "tool_call_update",
        toolCallId: "tu_1",
        status: "completed",
        content: [{ type: "terminal", terminalId: "tu_1" }],
        _meta: {
          claudeCode: { toolName: "Bash" },
          terminal_exit: { terminal_id: "tu_1", exit_code: null, signal: null },
        },
      }),
    );
    expect(updates(h)).toEqual([
      { sessionUpdate: "terminal_update", terminalId: "tu_1" },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "tu_1",
        title: "Terminal",
        kind: "execute",
        status: "pending",
        rawInput: {},
        _meta: { claudeCode: { toolName: "Bash" } },
      },
      { sessionUpdate: "terminal_update", terminalId: "tu_1", command: "npm test" },
      { sessionUpdate: "tool_call_update", toolCallId: "tu_1", title: "`npm test`", rawInput: { command: "npm test" } },
      { sessionUpdate: "terminal_output_chunk", terminalId: "tu_1", data: b64("ok ✓\n") },
      { sessionUpdate: "terminal_update", terminalId: "tu_1", exitStatus: {} },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "tu_1",
        status: "completed",
        content: [{ type: "terminal", terminalId: "tu_1" }],
        _meta: { claudeCode: { toolName: "Bash" } },
      },
    ]);
  });

  it("still shows a v1 terminal item without the convention as text (a client-owned terminal)", async () => {
    const h = await connect();
    await newSession(h);
    h.agent(
      update({
        sessionUpdate: "tool_call",
        toolCallId: "t1",
        title: "x",
        content: [{ type: "terminal", terminalId: "term-9" }],
      }),
    );
    const [u] = updates(h);
    expect(JSON.stringify(u)).toContain("[terminal term-9: output not available]");
    expect(u.content.map((c: { type: string }) => c.type)).toEqual(["content"]);
  });
});

describe("MCP-over-ACP servers toward a v1 agent (B)", () => {
  const acpServer = { type: "acp", name: "tools", serverId: "srv-1" };

  it("passes a v2 client's acp server on to a v1 agent that advertises mcpCapabilities.acp", async () => {
    const h = await connect({ agentCaps: { ...FULL, mcpCapabilities: { acp: true } } });
    h.client({ jsonrpc: "2.0", id: "new", method: "session/new", params: { cwd: "/w", mcpServers: [acpServer] } });
    const [req] = h.takeAgent();
    expect(req.params.mcpServers).toEqual([acpServer]);
    // Valid under the unstable v1 schema the agent's `mcpCapabilities.acp` speaks (the harness checks
    // the stable one).
    expectValid("v1u", "NewSessionRequest", req.params);
    expect(h.violations.every((v) => v.includes("session/new params"))).toBe(true);
    current = undefined;
  });

  it("refuses it, naming the server, toward a v1 agent that does not", async () => {
    const h = await connect();
    h.client({ jsonrpc: "2.0", id: "new", method: "session/new", params: { cwd: "/w", mcpServers: [acpServer] } });
    await h.settle();
    expect(h.takeAgent()).toEqual([]);
    const [answer] = h.takeClient();
    expect(answer.error).toMatchObject({ code: -32602, data: { type: "acp", name: "tools" } });
  });
});
