// Bounded state at its limits (issue 8 item 4): sessions, pending requests, the bridge's own
// requests, remembered tool calls. Small limits set through the options; each at limit-1 and at the
// limit. Every message the bridge writes is schema-checked by the harness.
import { afterEach, describe, expect, it } from "vitest";
import { limits } from "../../mappings/limits.js";
import { Link } from "../../src/engine/link.js";
import { harness, handshakeA, handshakeB, type Harness } from "../support/harness.js";

let current: Harness | undefined;
afterEach(() => {
  if (current) expect(current.violations).toEqual([]);
  current = undefined;
});

const v2Caps = { session: { mcp: { stdio: {} } } };
const text = (t: string) => ({ type: "text", text: t });
const update = (sessionId: string, u: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  method: "session/update",
  params: { sessionId, update: u },
});

async function connectA(options: Parameters<typeof harness>[0]): Promise<Harness> {
  const h = harness(options);
  current = h;
  await handshakeA(h, {}, v2Caps);
  return h;
}

async function newSessionA(h: Harness, id: string): Promise<void> {
  h.client({ jsonrpc: "2.0", id: `new-${id}`, method: "session/new", params: { cwd: "/w", mcpServers: [] } });
  const [req] = h.takeAgent();
  expect(req.method).toBe("session/new");
  h.agent({ jsonrpc: "2.0", id: req.id, result: { sessionId: id } });
  await h.settle();
  expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: `new-${id}`, result: { sessionId: id } }]);
}

describe("pending requests (--max-pending-requests)", () => {
  async function passThrough(max: number): Promise<Harness> {
    const h = harness({ maxPendingRequests: max });
    current = h;
    h.client({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
    await h.settle();
    const [probe] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: probe.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
    await h.settle();
    h.takeClient();
    return h;
  }

  it("forwards up to the limit, refuses the next at once naming the limit, and accepts again once one is answered", async () => {
    const h = await passThrough(3);
    for (const id of [1, 2, 3]) h.client({ jsonrpc: "2.0", id, method: "_x/slow", params: {} });
    const forwarded = h.takeAgent();
    expect(forwarded).toHaveLength(3);
    h.client({ jsonrpc: "2.0", id: 4, method: "_x/slow", params: {} });
    expect(h.takeAgent()).toEqual([]);
    expect(h.takeClient()).toEqual([
      {
        jsonrpc: "2.0",
        id: 4,
        error: {
          code: -32603,
          message: "Bridge limit reached: max_pending_requests (3)",
          data: { reason: "max_pending_requests", limit: 3, option: "--max-pending-requests" },
        },
      },
    ]);
    h.agent({ jsonrpc: "2.0", id: forwarded[0].id, result: {} });
    expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: 1, result: {} }]);
    h.client({ jsonrpc: "2.0", id: 5, method: "_x/slow", params: {} });
    expect(h.takeAgent()).toHaveLength(1);
    expect(h.takeClient()).toEqual([]);
  });

  it("counts the agent's requests apart from the client's (translating mode)", async () => {
    const h = await connectA({ maxPendingRequests: 2 });
    for (const id of [1, 2]) h.agent({ jsonrpc: "2.0", id, method: "_x/ask", params: {} });
    expect(h.takeClient()).toHaveLength(2);
    h.agent({ jsonrpc: "2.0", id: 3, method: "_x/ask", params: {} });
    expect(h.takeClient()).toEqual([]);
    expect(h.takeAgent()).toEqual([
      {
        jsonrpc: "2.0",
        id: 3,
        error: expect.objectContaining({
          code: -32603,
          data: expect.objectContaining({ reason: "max_pending_requests", limit: 2 }),
        }),
      },
    ]);
    // The client's side has its own budget.
    h.client({ jsonrpc: "2.0", id: 9, method: "_x/q", params: {} });
    expect(h.takeAgent()).toHaveLength(1);
  });

  it("answers a refused request of a batch inside the batch's array", async () => {
    const h = await passThrough(1);
    h.client(
      JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "_x/slow" },
        { jsonrpc: "2.0", id: 2, method: "_x/slow" },
      ]),
    );
    const [fwd] = h.takeAgent();
    expect(h.takeClient()).toEqual([]);
    h.agent({ jsonrpc: "2.0", id: fwd.id, result: { ok: true } });
    const [batch] = h.takeClient();
    expect(batch).toHaveLength(2);
    expect(batch[0]).toMatchObject({ id: 2, error: { code: -32603, data: { reason: "max_pending_requests" } } });
    expect(batch[1]).toEqual({ jsonrpc: "2.0", id: 1, result: { ok: true } });
  });
});

describe("the bridge's own requests (limits.bridgeRequests)", () => {
  it("answers a call past the cap with the limit's error, after the call returned, and writes nothing", async () => {
    const lines: string[] = [];
    const link = new Link("agent", { push: (l) => lines.push(String(l)) });
    link.maxPending = 2;
    const answers: unknown[] = [];
    link.request("a", {}, (r) => answers.push(r));
    link.request("b", {}, (r) => answers.push(r));
    expect(lines).toHaveLength(2);
    expect(answers).toEqual([]);
    expect(link.request("c", {}, (r) => answers.push(r))).toBe(0);
    expect(answers).toEqual([]);
    await Promise.resolve();
    expect(lines).toHaveLength(2);
    expect(answers).toEqual([
      {
        jsonrpc: "2.0",
        id: 0,
        error: {
          code: -32603,
          message: "Bridge limit reached: max_bridge_requests (2)",
          data: { reason: "max_bridge_requests", limit: 2 },
        },
      },
    ]);
    expect(limits.bridgeRequests.default).toBeGreaterThan(limits.pendingRequests.default);
  });
});

describe("sessions (--max-sessions), v1 client and v2 agent", () => {
  it("admits sessions up to the limit, then refuses a new one while every session has a turn in flight", async () => {
    const h = await connectA({ maxSessions: 2 });
    await newSessionA(h, "s1");
    await newSessionA(h, "s2");
    for (const s of ["s1", "s2"])
      h.client({
        jsonrpc: "2.0",
        id: `p-${s}`,
        method: "session/prompt",
        params: { sessionId: s, prompt: [text("hi")] },
      });
    expect(h.takeAgent().map((m) => m.method)).toEqual(["session/prompt", "session/prompt"]);
    h.client({ jsonrpc: "2.0", id: "new-3", method: "session/new", params: { cwd: "/w", mcpServers: [] } });
    expect(h.takeAgent()).toEqual([]);
    expect(h.takeClient()).toEqual([
      {
        jsonrpc: "2.0",
        id: "new-3",
        error: {
          code: -32603,
          message: "Bridge limit reached: max_sessions (2)",
          data: { reason: "max_sessions", limit: 2, option: "--max-sessions" },
        },
      },
    ]);
    // A notification for a third session cannot be given state either: dropped.
    h.agent(update("s9", { sessionUpdate: "agent_message_chunk", messageId: "m", content: text("x") }));
    expect(h.takeClient()).toEqual([]);
    // Known sessions go on.
    h.agent(update("s1", { sessionUpdate: "agent_message_chunk", messageId: "m", content: text("x") }));
    expect(h.takeClient()).toHaveLength(1);
  });

  it("forgets the least recently used idle session to admit another: its state only", async () => {
    const h = await connectA({ maxSessions: 2 });
    await newSessionA(h, "s1");
    h.agent(update("s1", { sessionUpdate: "tool_call_update", toolCallId: "t1", title: "Read", status: "pending" }));
    expect(h.takeClient().map((m) => m.params.update.sessionUpdate)).toEqual(["tool_call"]);
    await newSessionA(h, "s2");
    h.agent(update("s1", { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "in_progress" }));
    // Remembered: an update.
    expect(h.takeClient().map((m) => m.params.update.sessionUpdate)).toEqual(["tool_call_update"]);
    await newSessionA(h, "s3"); // s1 is the least recently used by the client: forgotten
    h.agent(update("s1", { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" }));
    // Forgotten: announced again (a schema-valid v1 tool_call), and s1 is tracked again (s2 forgotten).
    const [again] = h.takeClient();
    expect(again.params.update).toMatchObject({ sessionUpdate: "tool_call", toolCallId: "t1", status: "completed" });
  });
});

describe("sessions (--max-sessions), a forgotten session's debts", () => {
  it("writes the coalesced tool output a forgotten idle session still owes, before forgetting it", async () => {
    const h = await connectA({ maxSessions: 2 });
    await newSessionA(h, "s1");
    h.agent(update("s1", { sessionUpdate: "tool_call_update", toolCallId: "t1", title: "Run", status: "pending" }));
    h.agent(
      update("s1", {
        sessionUpdate: "tool_call_content_chunk",
        toolCallId: "t1",
        content: { type: "content", content: text("out") },
      }),
    );
    // The chunk waits for its coalescing timer.
    expect(h.takeClient().map((m) => m.params.update.sessionUpdate)).toEqual(["tool_call"]);
    await newSessionA(h, "s2");
    h.client({ jsonrpc: "2.0", id: "new-s3", method: "session/new", params: { cwd: "/w", mcpServers: [] } });
    const [req] = h.takeAgent();
    // Admitting the third session forgets s1, which first writes what it owed.
    const owed = h.takeClient();
    expect(owed).toHaveLength(1);
    expect(owed[0].params).toMatchObject({
      sessionId: "s1",
      update: { sessionUpdate: "tool_call_update", toolCallId: "t1", content: [{ type: "content" }] },
    });
    h.agent({ jsonrpc: "2.0", id: req.id, result: { sessionId: "s3" } });
    await h.settle();
    expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: "new-s3", result: { sessionId: "s3" } }]);
  });
});

describe("sessions (--max-sessions), v2 client and v1 agent", () => {
  it("refuses a new session while the only one allowed has a turn in flight", async () => {
    const h = harness({ maxSessions: 1, ackGraceMs: 0 });
    current = h;
    await handshakeB(h, {});
    h.client({ jsonrpc: "2.0", id: "new", method: "session/new", params: { cwd: "/w" } });
    const [req] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: req.id, result: { sessionId: "s1" } });
    await h.settle();
    h.takeClient();
    h.client({ jsonrpc: "2.0", id: "p", method: "session/prompt", params: { sessionId: "s1", prompt: [text("hi")] } });
    expect(h.takeAgent().map((m) => m.method)).toEqual(["session/prompt"]);
    h.client({ jsonrpc: "2.0", id: "new-2", method: "session/new", params: { cwd: "/w" } });
    expect(h.takeAgent()).toEqual([]);
    expect(h.takeClient().filter((m) => m.id === "new-2")).toEqual([
      {
        jsonrpc: "2.0",
        id: "new-2",
        error: expect.objectContaining({
          code: -32603,
          data: { reason: "max_sessions", limit: 1, option: "--max-sessions" },
        }),
      },
    ]);
  });
});

describe("tool calls remembered per session (limits.toolCalls)", () => {
  it("forgets finished tool calls first: a running one outlives thousands of finished ones, a finished one is forgotten", async () => {
    const h = await connectA({});
    await newSessionA(h, "s1");
    const tc = (id: string, status: string, title?: string) =>
      update("s1", { sessionUpdate: "tool_call_update", toolCallId: id, status, ...(title ? { title } : {}) });
    h.agent(tc("first-done", "completed", "Done early"));
    h.agent(tc("running", "in_progress", "Long job"));
    const n = limits.toolCalls.default + 200;
    for (let i = 0; i < n; i++) {
      h.agent(tc(`t${i}`, "in_progress", "Read"));
      h.agent(tc(`t${i}`, "completed"));
    }
    h.takeClient();
    h.agent(tc("running", "completed"));
    expect(h.takeClient().map((m) => m.params.update.sessionUpdate)).toEqual(["tool_call_update"]);
    // A late update of a forgotten call is announced again: a valid v1 tool_call with a fallback title.
    h.agent(tc("first-done", "failed"));
    const [late] = h.takeClient();
    expect(late.params.update).toMatchObject({
      sessionUpdate: "tool_call",
      toolCallId: "first-done",
      status: "failed",
    });
    expect(typeof late.params.update.title).toBe("string");
  });
});

/** A tool call streaming `n` content items to the v1 client, then completing: its last content. */
function streamTool(h: Harness, n: number): { content: { text: string } }[] {
  h.agent(update("s1", { sessionUpdate: "tool_call_update", toolCallId: "t", title: "Build", status: "in_progress" }));
  for (let i = 0; i < n; i++)
    h.agent(
      update("s1", {
        sessionUpdate: "tool_call_content_chunk",
        toolCallId: "t",
        content: { type: "content", content: text(`line ${i}`) },
      }),
    );
  h.agent(update("s1", { sessionUpdate: "tool_call_update", toolCallId: "t", status: "completed" }));
  return lastContent(h.takeClient());
}

/** The content of the last update that carries one (a v1 update replaces the whole content). */
function lastContent(out: { params: { update: { content?: unknown } } }[]): { content: { text: string } }[] {
  const withContent = out.filter((m) => Array.isArray(m.params.update.content));
  return withContent.at(-1)!.params.update.content as { content: { text: string } }[];
}

describe("content kept per streamed tool call (limits.toolCallContent)", () => {
  it("keeps the newest items and one note of how many earlier ones it omitted", async () => {
    const h = await connectA({});
    await newSessionA(h, "s1");
    const max = limits.toolCallContent.default;
    const n = max + 88;
    const content = streamTool(h, n);
    expect(content).toHaveLength(max);
    expect(content[0]!.content.text).toBe(
      `[acp-bridge: ${n - max + 1} earlier output items of this tool call omitted]`,
    );
    expect(content[1]!.content.text).toBe(`line ${n - max + 1}`);
    expect(content.at(-1)!.content.text).toBe(`line ${n - 1}`);
  });

  it("keeps everything up to the limit", async () => {
    const h = await connectA({});
    await newSessionA(h, "s1");
    const max = limits.toolCallContent.default;
    const content = streamTool(h, max);
    expect(content).toHaveLength(max);
    expect(content[0]!.content.text).toBe("line 0");
  });
});

describe("user messages held while a prompt awaits its ack (limits.heldUserMessages)", () => {
  it("holds up to the limit, then forwards at once", async () => {
    const h = await connectA({});
    await newSessionA(h, "s1");
    h.client({ jsonrpc: "2.0", id: "p", method: "session/prompt", params: { sessionId: "s1", prompt: [text("hi")] } });
    expect(h.takeAgent().map((m) => m.method)).toEqual(["session/prompt"]);
    const chunk = (i: number) =>
      update("s1", { sessionUpdate: "user_message_chunk", messageId: `u${i}`, content: text(`m${i}`) });
    for (let i = 0; i < limits.heldUserMessages.default; i++) h.agent(chunk(i));
    expect(h.takeClient()).toEqual([]);
    h.agent(chunk(limits.heldUserMessages.default));
    expect(h.takeClient().map((m) => m.params.update.messageId)).toEqual([`u${limits.heldUserMessages.default}`]);
  });
});
