// Issue 7 item 3, "carry what the other side has a place for", on an in-memory bridge: turn usage,
// capabilities, the session title on resume, tool calls re-announced in a v1 replay, notices, models.
// Every message the bridge writes is schema-checked (harness).
import { afterEach, describe, expect, it } from "vitest";
import { handshakeA, handshakeB, harness, type Harness } from "../support/harness.js";
import { expectValid } from "../support/schema.js";
import { newSessionResponseToV2 } from "../../src/convert/session-result.js";
import { options } from "../support/properties.js";

const S = "s1";
let current: Harness | undefined;

afterEach(() => {
  if (current) expect(current.violations).toEqual([]);
  current = undefined;
});

const text = (t: string) => ({ type: "text", text: t });
const update = (u: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  method: "session/update",
  params: { sessionId: S, update: u },
});
const updates = (msgs: any[]) => msgs.filter((m) => m.method === "session/update").map((m) => m.params.update);

/** A v2 client in front of a v1 agent (direction B). */
async function connectB(
  agentCaps: Record<string, unknown> = { loadSession: true },
  clientMeta?: Record<string, unknown>,
): Promise<Harness> {
  const h = harness({ ackGraceMs: 0 });
  current = h;
  const init = await handshakeB(h, agentCaps, clientMeta);
  expect(init.result.protocolVersion).toBe(2);
  expect(h.bridge.mode).toBe("B");
  return h;
}

/** A v1 client in front of a v2 agent (direction A). */
async function connectA(clientCaps: Record<string, unknown> = {}): Promise<Harness> {
  const h = harness();
  current = h;
  const init = await handshakeA(h, clientCaps, { session: { mcp: { stdio: {} } } });
  expect(init.result.protocolVersion).toBe(1);
  expect(h.bridge.mode).toBe("A");
  return h;
}

async function newSessionB(h: Harness, result: Record<string, unknown> = {}): Promise<any> {
  h.client({ jsonrpc: "2.0", id: "new", method: "session/new", params: { cwd: "/w" } });
  const [req] = h.takeAgent();
  h.agent({ jsonrpc: "2.0", id: req.id, result: { sessionId: S, ...result } });
  await h.settle();
  return h.takeClient()[0];
}

async function newSessionA(h: Harness, result: Record<string, unknown> = {}): Promise<any> {
  h.client({ jsonrpc: "2.0", id: "new", method: "session/new", params: { cwd: "/w", mcpServers: [] } });
  const [req] = h.takeAgent();
  h.agent({ jsonrpc: "2.0", id: req.id, result: { sessionId: S, ...result } });
  await h.settle();
  return h.takeClient();
}

const USAGE = { totalTokens: 30, inputTokens: 10, outputTokens: 20, cachedReadTokens: 4 };

describe("turn usage both ways (issue 7 item 3a)", () => {
  it("B: the v1 prompt response's usage reaches the v2 client on the idle", async () => {
    const h = await connectB();
    await newSessionB(h);
    h.client({ jsonrpc: "2.0", id: 3, method: "session/prompt", params: { sessionId: S, prompt: [text("hi")] } });
    const [req] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: req.id, result: { stopReason: "end_turn", usage: USAGE } });
    await h.settle();
    const idle = updates(h.takeClient()).at(-1);
    expect(idle).toEqual({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn", usage: USAGE });
    expectValid("v2u", "SessionUpdate", idle);
  });

  it("A: the v2 agent's idle usage reaches the v1 client's prompt response", async () => {
    const h = await connectA();
    await newSessionA(h);
    h.client({ jsonrpc: "2.0", id: 7, method: "session/prompt", params: { sessionId: S, prompt: [text("hi")] } });
    const [req] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: req.id, result: { messageId: "u1" } });
    h.agent(update({ sessionUpdate: "state_update", state: "running" }));
    h.agent(update({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn", usage: USAGE }));
    await h.settle();
    const [resp] = h.takeClient();
    expect(resp).toEqual({ jsonrpc: "2.0", id: 7, result: { stopReason: "end_turn", usage: USAGE } });
    expectValid("v1u", "PromptResponse", resp.result);
  });
});

describe("notices toward a v1 client (issue 7 item 3d)", () => {
  it("A: a client without session.notices gets the notice as its own agent message, in Claude's v1 form", async () => {
    const h = await connectA();
    await newSessionA(h);
    h.agent(
      update({ sessionUpdate: "notice", severity: "info", title: "Task stopped by user", description: "Build." }),
    );
    h.agent(update({ sessionUpdate: "notice", severity: "warning", title: "Rate limited" }));
    const [first, second] = updates(h.takeClient());
    expect(first).toMatchObject({
      sessionUpdate: "agent_message_chunk",
      messageId: `acpb:${S}:notice:1`,
      content: text("**Task stopped by user:** Build."),
    });
    expect(second).toMatchObject({ messageId: `acpb:${S}:notice:2`, content: text("**Rate limited**") });
  });

  it("A: a client that opted in gets the notice itself", async () => {
    const h = await connectA({ session: { notices: {} } });
    await newSessionA(h);
    const notice = { sessionUpdate: "notice", severity: "error", title: "Quota exceeded" };
    h.agent(update(notice));
    expect(updates(h.takeClient())).toEqual([notice]);
  });
});

describe("replay after session/load to a v1 client (issue 7 item 3f)", () => {
  it("A: announces a tool call the client saw live with tool_call again in the replay", async () => {
    const h = await connectA();
    await newSessionA(h);
    const call = { toolCallId: "t1", title: "Read a.txt", kind: "read", status: "completed" };
    h.agent(update({ sessionUpdate: "tool_call_update", ...call }));
    expect(updates(h.takeClient())).toMatchObject([{ sessionUpdate: "tool_call", ...call }]);
    h.client({ jsonrpc: "2.0", id: 2, method: "session/load", params: { sessionId: S, cwd: "/w", mcpServers: [] } });
    const [req] = h.takeAgent();
    expect(req.method).toBe("session/resume");
    h.agent(update({ sessionUpdate: "tool_call_update", ...call }));
    h.agent({ jsonrpc: "2.0", id: req.id, result: {} });
    await h.settle();
    const out = h.takeClient();
    expect(updates(out)).toMatchObject([{ sessionUpdate: "tool_call", ...call }]);
    expect(out.at(-1)).toMatchObject({ id: 2, result: {} });
  });
});

describe("session title on resume (issue 7 item 3e)", () => {
  it("B: a v2 client resuming gets the title it had live after the result, once", async () => {
    const h = await connectB({ loadSession: true, sessionCapabilities: { resume: {} } });
    await newSessionB(h);
    h.agent(
      update({ sessionUpdate: "session_info_update", title: "Fix the tests", updatedAt: "2026-01-02T03:04:05Z" }),
    );
    expect(updates(h.takeClient())).toEqual([
      { sessionUpdate: "session_info_update", title: "Fix the tests", updatedAt: "2026-01-02T03:04:05Z" },
    ]);
    h.client({ jsonrpc: "2.0", id: 5, method: "session/resume", params: { sessionId: S, cwd: "/w" } });
    const [req] = h.takeAgent();
    expect(req.method).toBe("session/resume");
    h.agent({ jsonrpc: "2.0", id: req.id, result: {} });
    await h.settle();
    const out = h.takeClient();
    expect(out.map((m) => m.params?.update?.sessionUpdate ?? m.id)).toEqual(["state_update", 5, "session_info_update"]);
    expect(out[2].params.update).toEqual({
      sessionUpdate: "session_info_update",
      title: "Fix the tests",
      updatedAt: "2026-01-02T03:04:05Z",
    });
    // Reported by the agent during a resume through session/load: not sent twice.
    h.client({
      jsonrpc: "2.0",
      id: 6,
      method: "session/resume",
      params: { sessionId: S, cwd: "/w", replayFrom: { type: "start" } },
    });
    const [load] = h.takeAgent();
    expect(load.method).toBe("session/load");
    h.agent(update({ sessionUpdate: "session_info_update", title: "Renamed" }));
    h.agent({ jsonrpc: "2.0", id: load.id, result: {} });
    await h.settle();
    const again = updates(h.takeClient()).filter((u) => u.sessionUpdate === "session_info_update");
    expect(again).toEqual([
      { sessionUpdate: "session_info_update", title: "Renamed" },
      { sessionUpdate: "session_info_update", updatedAt: "2026-01-02T03:04:05Z" },
    ]);
  });

  it("B: an A bridge as the client gets no re-sent title (its v1 client keeps its view, as directly)", async () => {
    const marker = {
      "acp-bridge": {
        v: 1,
        from: 1,
        hadMeta: false,
        bridge: { name: "acp-bridge", version: "9" },
        clientProtocol: 1,
        agentProtocol: 2,
      },
    };
    const h = await connectB({ loadSession: true, sessionCapabilities: { resume: {} } }, marker);
    await newSessionB(h);
    h.agent(update({ sessionUpdate: "session_info_update", title: "T" }));
    h.takeClient();
    h.client({ jsonrpc: "2.0", id: 5, method: "session/resume", params: { sessionId: S, cwd: "/w" } });
    const [req] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: req.id, result: {} });
    await h.settle();
    expect(updates(h.takeClient()).filter((u) => u.sessionUpdate === "session_info_update")).toEqual([]);
  });

  it("B: a resume answered by the bridge itself also re-sends the title", async () => {
    const h = await connectB({});
    await newSessionB(h);
    h.agent(update({ sessionUpdate: "session_info_update", title: "Local" }));
    h.takeClient();
    h.client({ jsonrpc: "2.0", id: 5, method: "session/resume", params: { sessionId: S, cwd: "/w" } });
    expect(h.takeAgent()).toEqual([]);
    const out = h.takeClient();
    expect(out.at(-1).params.update).toEqual({ sessionUpdate: "session_info_update", title: "Local" });
  });
});

const MODELS = {
  currentModelId: "gpt-5",
  availableModels: [
    { modelId: "gpt-5", name: "GPT-5", description: "Default" },
    { modelId: "gpt-5-mini", name: "GPT-5 mini" },
  ],
};

describe("legacy models toward a v2 client (issue 7 item 3c)", () => {
  it("B: shows a v1 agent's models as a model select option and sets it with session/set_model", async () => {
    const h = await connectB();
    const res = await newSessionB(h, {
      models: MODELS,
      modes: { currentModeId: "ask", availableModes: [{ id: "ask", name: "Ask" }] },
    });
    expect(res.result.models).toBeUndefined();
    expect(res.result.configOptions.map((o: any) => [o.configId, o.category])).toEqual([
      ["mode", "mode"],
      ["model", "model"],
    ]);
    expect(res.result.configOptions[1]).toMatchObject({
      name: "Model",
      type: "select",
      currentValue: "gpt-5",
      options: [
        { value: "gpt-5", name: "GPT-5", description: "Default" },
        { value: "gpt-5-mini", name: "GPT-5 mini" },
      ],
    });
    h.client({
      jsonrpc: "2.0",
      id: 8,
      method: "session/set_config_option",
      params: { sessionId: S, configId: "model", type: "id", value: "o3" },
    });
    expect(h.takeAgent()).toEqual([]);
    expect(h.takeClient()[0].error).toMatchObject({ code: -32602, data: { reason: "unknown_model" } });
    h.client({
      jsonrpc: "2.0",
      id: 9,
      method: "session/set_config_option",
      params: { sessionId: S, configId: "model", type: "id", value: "gpt-5-mini" },
    });
    const [req] = h.takeAgent();
    expect(req).toMatchObject({ method: "session/set_model", params: { sessionId: S, modelId: "gpt-5-mini" } });
    h.agent({ jsonrpc: "2.0", id: req.id, result: {} });
    await h.settle();
    const [answer] = h.takeClient();
    expect(answer.result.configOptions.map((o: any) => o.currentValue)).toEqual(["ask", "gpt-5-mini"]);
    // The agent's later option updates keep the model option, with the model it is on now.
    h.agent(update({ sessionUpdate: "current_mode_update", currentModeId: "ask" }));
    h.agent(update({ sessionUpdate: "config_option_update", configOptions: [] }));
    const ups = updates(h.takeClient());
    expect(ups.at(-1).configOptions.map((o: any) => [o.configId, o.currentValue])).toEqual([
      ["mode", "ask"],
      ["model", "gpt-5-mini"],
    ]);
  });

  it("B: forwards set_config_option as is when the v1 agent has a model option of its own", async () => {
    const h = await connectB();
    const own = {
      id: "model",
      name: "Model",
      category: "model",
      type: "select",
      currentValue: "a",
      options: [{ value: "a", name: "A" }],
    };
    const res = await newSessionB(h, { models: MODELS, configOptions: [own] });
    expect(res.result.configOptions).toHaveLength(1);
    h.client({
      jsonrpc: "2.0",
      id: 9,
      method: "session/set_config_option",
      params: { sessionId: S, configId: "model", type: "id", value: "a" },
    });
    expect(h.takeAgent()[0].method).toBe("session/set_config_option");
  });
});

describe("legacy models toward a v1 client (issue 7 item 3c, direction A)", () => {
  it("A: behind a chained B, the v1 client gets models back and its session/set_model sets the model option", async () => {
    const h = await connectA();
    // What a B bridge in front of a legacy v1 agent answers (stash kept for a bridge peer).
    const fromB = newSessionResponseToV2({ sessionId: S, models: MODELS }, {}, options("compact"));
    if (!fromB.ok) throw new Error("B result");
    h.client({ jsonrpc: "2.0", id: "new", method: "session/new", params: { cwd: "/w", mcpServers: [] } });
    const [req] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: req.id, result: fromB.value });
    await h.settle();
    const [res] = h.takeClient();
    expect(res.result).toEqual({ sessionId: S, models: MODELS });
    h.client({ jsonrpc: "2.0", id: 4, method: "session/set_model", params: { sessionId: S, modelId: "gpt-5-mini" } });
    const [set] = h.takeAgent();
    expect(set).toMatchObject({
      method: "session/set_config_option",
      params: { sessionId: S, configId: "model", type: "id", value: "gpt-5-mini" },
    });
    h.agent({ jsonrpc: "2.0", id: set.id, result: { configOptions: fromB.value.configOptions } });
    await h.settle();
    expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: 4, result: {} }]);
  });

  it("A: session/set_model on a session without a model option is -32602, the agent not asked", async () => {
    const h = await connectA();
    await newSessionA(h);
    h.client({ jsonrpc: "2.0", id: 4, method: "session/set_model", params: { sessionId: S, modelId: "x" } });
    expect(h.takeAgent()).toEqual([]);
    expect(h.takeClient()[0].error).toMatchObject({ code: -32602, data: { reason: "session has no model option" } });
  });
});
