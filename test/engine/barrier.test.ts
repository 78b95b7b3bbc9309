// The crash barrier (issue 19): an exception thrown while the bridge handles one message never
// ends the process. The message is refused as malformed input is (a request gets -32603
// `translation_failed` naming its method, a response settles its request so, a notification is
// dropped with a warning) and the bridge keeps serving. First the defect that showed the need: a
// `uri` holding a lone surrogate (valid JSON) made `encodeURIComponent` throw.
import { afterEach, describe, expect, it, vi } from "vitest";
import { contentBlockToV2 } from "../../src/convert/content.js";
import { initializeResponseToV1 } from "../../src/convert/initialize.js";
import { idleToPromptResponse, promptRequestToV2 } from "../../src/convert/prompt.js";
import { newSessionResponseToV1 } from "../../src/convert/session-result.js";
import { DirectionA } from "../../src/engine/v1-client/engine.js";
import { RequestRoute } from "../../src/engine/relay.js";
import { createLogger } from "../../src/log.js";
import { handshakeA, handshakeB, harness, type Harness } from "../support/harness.js";

// The converters the engines import, each wrapped so that a test can make one call throw: the
// seam costs production nothing. Every other call runs the real converter.
vi.mock("../../src/convert/prompt.js", async (real: () => Promise<Record<string, unknown>>) => wrapped(await real()));
vi.mock("../../src/convert/content.js", async (real: () => Promise<Record<string, unknown>>) => wrapped(await real()));
vi.mock("../../src/convert/session-result.js", async (real: () => Promise<Record<string, unknown>>) =>
  wrapped(await real()),
);
vi.mock("../../src/convert/initialize.js", async (real: () => Promise<Record<string, unknown>>) =>
  wrapped(await real()),
);

function wrapped(module: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(module))
    out[name] = typeof value === "function" ? vi.fn(value as (...args: unknown[]) => unknown) : value;
  return out;
}

/** The next call of `converter` throws, as a converter with a bug would. */
function throwsOnce(converter: (...args: never[]) => unknown): void {
  vi.mocked(converter).mockImplementationOnce(() => {
    throw new TypeError("injected");
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

/** A harness whose warnings and errors are kept. */
function logged(): { lines: string[]; h: Harness } {
  const lines: string[] = [];
  return {
    lines,
    h: harness(
      {},
      createLogger("warn", (l) => lines.push(l)),
    ),
  };
}

const failure = (method: string) => ({
  code: -32603,
  message: `acp-bridge failed to translate '${method}'`,
  data: { reason: "translation_failed", method, detail: "TypeError: injected" },
});

const bad = "not a uri \ud800";
const blocks = [
  { type: "resource_link", name: "n", uri: bad },
  { type: "resource", resource: { uri: bad, text: "t" } },
  { type: "image", data: "aGk=", mimeType: "image/png", uri: bad },
];

async function directionA(h: Harness = harness()): Promise<Harness> {
  await handshakeA(h, {}, { session: {}, promptCapabilities: { image: true, embeddedContext: true } });
  h.client({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/w", mcpServers: [] } });
  const [create] = h.takeAgent();
  h.agent({ jsonrpc: "2.0", id: create.id, result: { sessionId: "s" } });
  await h.settle();
  h.takeClient();
  expect(h.bridge.mode).toBe("A");
  return h;
}

async function directionB(h: Harness = harness()): Promise<Harness> {
  await handshakeB(h, { promptCapabilities: { image: true, embeddedContext: true } });
  h.client({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/w", mcpServers: [] } });
  const [create] = h.takeAgent();
  h.agent({ jsonrpc: "2.0", id: create.id, result: { sessionId: "s" } });
  await h.settle();
  h.takeClient();
  expect(h.bridge.mode).toBe("B");
  return h;
}

describe("a uri holding a lone surrogate (the defect)", () => {
  it("direction A: a v1 client's prompt with such resource_link, resource and image blocks reaches the agent with stand-in URIs", async () => {
    const h = await directionA();
    h.client({ jsonrpc: "2.0", id: 2, method: "session/prompt", params: { sessionId: "s", prompt: blocks } });
    await h.settle();
    const [sent] = h.takeAgent();
    expect(sent.method).toBe("session/prompt");
    const uris = (sent.params.prompt as { uri?: string; resource?: { uri: string } }[]).map(
      (b) => b.uri ?? b.resource?.uri,
    );
    expect(uris).toEqual(Array(3).fill("urn:acp-bridge:invalid-uri:not%20a%20uri%20%EF%BF%BD"));
    expect(h.takeClient()).toEqual([]);
    expect(h.violations).toEqual([]);
  });

  const updates: [string, object][] = [
    ...blocks.map((content): [string, object] => [
      `agent_message_chunk (${content.type})`,
      { sessionUpdate: "agent_message_chunk", content },
    ]),
    [
      "tool_call content",
      {
        sessionUpdate: "tool_call",
        toolCallId: "t",
        title: "read",
        content: blocks.map((content) => ({ type: "content", content })),
      },
    ],
  ];
  for (const [what, update] of updates)
    it(`direction B: a v1 agent's ${what} with such a block reaches the v2 client with a stand-in URI`, async () => {
      const h = await directionB();
      h.agent({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update } });
      await h.settle(30);
      const out = h.takeClient();
      expect(out.length).toBeGreaterThan(0);
      expect(JSON.stringify(out)).toContain("urn:acp-bridge:invalid-uri:not%20a%20uri%20%EF%BF%BD");
      expect(h.violations).toEqual([]);
      // Still serving.
      h.client({ jsonrpc: "2.0", id: 9, method: "session/new", params: { cwd: "/w", mcpServers: [] } });
      expect(h.takeAgent()).toMatchObject([{ method: "session/new" }]);
    });
});

describe("the crash barrier: a converter that throws costs one message, never the bridge", () => {
  const prompt = (id: number) => ({
    jsonrpc: "2.0",
    id,
    method: "session/prompt",
    params: { sessionId: "s", prompt: [{ type: "text", text: "hi" }] },
  });

  it("answers the request whose translation threw with -32603 translation_failed and its method, then serves the next", async () => {
    const { h, lines } = logged();
    await directionA(h);
    throwsOnce(promptRequestToV2);
    h.client(prompt(2));
    expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: 2, error: failure("session/prompt") }]);
    expect(h.takeAgent()).toEqual([]);
    expect(lines.join("")).toContain("warn: dropped a request 'session/prompt' from the client");
    h.client(prompt(3));
    expect(h.takeAgent()).toMatchObject([{ method: "session/prompt", params: { sessionId: "s" } }]);
    expect(h.violations).toEqual([]);
  });

  it("drops a notification whose translation threw with a warning, and translates the next", async () => {
    const { h, lines } = logged();
    await directionB(h);
    const chunk = {
      jsonrpc: "2.0",
      method: "session/update",
      params: {
        sessionId: "s",
        update: {
          sessionUpdate: "agent_message_chunk",
          content: { type: "resource_link", name: "n", uri: "file:///a" },
        },
      },
    };
    throwsOnce(contentBlockToV2);
    h.agent(chunk);
    await h.settle(30);
    expect(h.takeClient()).toEqual([]);
    expect(lines.join("")).toContain("warn: dropped a notification 'session/update' from the agent");
    h.agent(chunk);
    await h.settle(30);
    expect(h.takeClient()).toMatchObject([{ method: "session/update" }]);
    expect(h.violations).toEqual([]);
  });

  it("direction B: still acks the client's prompt when the agent's first update, the ack's trigger, threw", async () => {
    const h = await directionB(harness({ ackGraceMs: 60_000 }));
    h.client(prompt(2));
    const [sent] = h.takeAgent();
    throwsOnce(contentBlockToV2);
    const chunk = (uri: string) => ({
      jsonrpc: "2.0",
      method: "session/update",
      params: {
        sessionId: "s",
        update: { sessionUpdate: "agent_message_chunk", content: { type: "resource_link", name: "n", uri } },
      },
    });
    h.agent(chunk("file:///a"));
    await h.settle();
    // The ack (the v2 answer to session/prompt) went out before the update's translation threw.
    expect(h.takeClient()).toContainEqual(expect.objectContaining({ id: 2, result: expect.anything() }));
    h.agent({ jsonrpc: "2.0", id: sent.id, result: { stopReason: "end_turn" } });
    await h.settle();
    expect(h.takeClient()).toContainEqual(
      expect.objectContaining({
        params: expect.objectContaining({ update: expect.objectContaining({ state: "idle" }) }),
      }),
    );
    expect(h.violations).toEqual([]);
  });

  it("settles the request a response answers with -32603 when translating the response threw", async () => {
    const h = await directionA();
    throwsOnce(newSessionResponseToV1);
    h.client({ jsonrpc: "2.0", id: 5, method: "session/new", params: { cwd: "/w", mcpServers: [] } });
    const [create] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: create.id, result: { sessionId: "s2" } });
    expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: 5, error: failure("session/new") }]);
    h.client({ jsonrpc: "2.0", id: 6, method: "session/new", params: { cwd: "/w", mcpServers: [] } });
    const [again] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: again.id, result: { sessionId: "s3" } });
    await h.settle();
    expect(h.takeClient()).toMatchObject([{ id: 6, result: { sessionId: "s3" } }]);
    expect(h.violations).toEqual([]);
  });

  it("answers each request of a batch once, the one whose translation threw with -32603", async () => {
    const h = await directionA();
    throwsOnce(promptRequestToV2);
    h.client(
      JSON.stringify([
        prompt(2),
        { jsonrpc: "2.0", id: 3, method: "session/new", params: { cwd: "/w", mcpServers: [] } },
      ]),
    );
    const [create] = h.takeAgent();
    expect(create).toMatchObject({ method: "session/new" });
    h.agent({ jsonrpc: "2.0", id: create.id, result: { sessionId: "s2" } });
    await h.settle();
    expect(h.takeClient()).toEqual([
      [
        { jsonrpc: "2.0", id: 2, error: failure("session/prompt") },
        { jsonrpc: "2.0", id: 3, result: expect.objectContaining({ sessionId: "s2" }) },
      ],
    ]);
  });

  it("drops a line a fast path threw on with a warning, and takes the next", async () => {
    const { h, lines } = logged();
    // Before the handshake: the fast path is bound then.
    const fast = vi.spyOn(DirectionA.prototype, "fastUpdate");
    await directionA(h);
    const chunk = JSON.stringify({
      jsonrpc: "2.0",
      method: "session/update",
      params: {
        sessionId: "s",
        update: { sessionUpdate: "agent_message_chunk", messageId: "m", content: { type: "text", text: "a" } },
      },
    });
    fast.mockImplementationOnce(() => {
      throw new TypeError("injected");
    });
    h.agent(chunk);
    expect(h.takeClient()).toEqual([]);
    expect(lines.join("")).toContain("warn: dropped a notification 'session/update' from the agent");
    h.agent(chunk);
    expect(h.takeClient()).toMatchObject([{ method: "session/update" }]);
    expect(h.violations).toEqual([]);
  });

  it("withdraws the far-side request a request had caused before its handling threw (pass-through)", async () => {
    const h = harness();
    h.client({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
    await h.settle();
    const [probe] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: probe.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
    await h.settle();
    h.takeClient();
    const { forward } = RequestRoute.prototype as { forward: (...args: unknown[]) => unknown };
    vi.spyOn(RequestRoute.prototype, "forward").mockImplementationOnce(function (this: RequestRoute, ...args) {
      forward.apply(this, args);
      throw new TypeError("injected");
    });
    h.client({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/w", mcpServers: [] } });
    const [create, cancel] = h.takeAgent();
    expect(cancel).toEqual({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: create.id } });
    expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: 1, error: failure("session/new") }]);
    // Its late answer finds the request answered.
    h.agent({ jsonrpc: "2.0", id: create.id, result: { sessionId: "s" } });
    expect(h.takeClient()).toEqual([]);
    h.client({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: "/w", mcpServers: [] } });
    const [again] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: again.id, result: { sessionId: "s2" } });
    expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: 2, result: { sessionId: "s2" } }]);
    expect(h.violations).toEqual([]);
  });

  it("refuses the client's initialize when the handshake threw, and accepts a new one", async () => {
    const h = harness();
    throwsOnce(initializeResponseToV1);
    const answer = await handshakeA(h, {}, { session: {} });
    expect(answer).toEqual({ jsonrpc: "2.0", id: 0, error: failure("initialize") });
    expect((await handshakeA(h, {}, { session: {} })).result.protocolVersion).toBe(1);
  });

  it("logs what a timer threw instead of ending the process (idle settle, T §1.2-4)", async () => {
    const lines: string[] = [];
    const h = harness(
      { idleSettleMs: 5 },
      createLogger("warn", (l) => lines.push(l)),
    );
    await directionA(h);
    h.client(prompt(2));
    const [sent] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: sent.id, result: { messageId: "u1" } });
    throwsOnce(idleToPromptResponse);
    h.agent({
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId: "s", update: { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" } },
    });
    await h.settle(30);
    expect(lines.join("")).toContain("error: a prompt's idle settle failed, the bridge goes on: TypeError: injected");
    h.client({ jsonrpc: "2.0", id: 9, method: "session/new", params: { cwd: "/w", mcpServers: [] } });
    expect(h.takeAgent()).toMatchObject([{ method: "session/new" }]);
  });
});
