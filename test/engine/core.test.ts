// The connection core: framing-level errors, pre-initialize rules, batches (H §1.3, §7.7), and the
// pass-through mode (ids remapped, nothing else touched).
import { describe, expect, it } from "vitest";
import { MAX_EARLY_NOTIFICATIONS } from "../../src/engine/bridge.js";
import { harness } from "../support/harness.js";

const init1 = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } };

async function passThroughV1() {
  const h = harness();
  h.client(init1);
  await h.settle();
  const [probe] = h.takeAgent() as { id: number; params: unknown }[];
  h.agent({ jsonrpc: "2.0", id: probe!.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
  await h.settle();
  expect(h.takeClient()).toEqual([
    { jsonrpc: "2.0", id: 0, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } },
  ]);
  return h;
}

describe("connection core (H §1.3, §7.7)", () => {
  it("answers invalid JSON with a parse error and keeps serving", async () => {
    const h = harness();
    h.client("{not json");
    expect(h.takeClient()).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error", data: { reason: "invalid_json" } } },
    ]);
    h.client(init1);
    await h.settle();
    expect(h.takeAgent()).toHaveLength(1);
  });

  it("answers a request before initialize with -32600 naming the method", () => {
    const h = harness();
    h.client({ jsonrpc: "2.0", id: 5, method: "session/new", params: { cwd: "/w", mcpServers: [] } });
    const [reply] = h.takeClient() as { error: { code: number; message: string } }[];
    expect(reply!.error.code).toBe(-32600);
    expect(reply!.error.message).toBe("ACP connection must be initialized before 'session/new'");
    expect(h.takeAgent()).toEqual([]);
  });

  it("drops notifications before initialize", () => {
    const h = harness();
    h.client({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "s" } });
    expect(h.takeClient()).toEqual([]);
    expect(h.takeAgent()).toEqual([]);
  });

  describe("agent notifications sent while the handshake runs", () => {
    // Codex's adapter sends `_auth/status_update` right after its initialize answer: it used to
    // be dropped behind the bridge (the direct client gets it).
    const status = (n = 0) => ({
      jsonrpc: "2.0",
      method: "_auth/status_update",
      params: { authStatus: { kind: "gateway", label: "Custom model gateway", detail: `mock ${n}` } },
    });

    it("follow the client's initialize answer (pass-through)", async () => {
      const h = harness();
      h.client(init1);
      await h.settle();
      const [probe] = h.takeAgent() as { id: number }[];
      h.agent({
        jsonrpc: "2.0",
        id: probe!.id,
        result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] },
      });
      h.agent(status());
      await h.settle();
      expect(h.takeClient()).toEqual([
        { jsonrpc: "2.0", id: 0, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } },
        status(),
      ]);
      expect(h.violations).toEqual([]);
    });

    it("follow it across versions too (v2 client, v1 agent), and are bounded", async () => {
      const h = harness({ agentProtocol: 1 });
      h.client({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: 2, info: { name: "zed", version: "1" }, capabilities: {} },
      });
      await h.settle();
      const [probe] = h.takeAgent() as { id: number; params: { protocolVersion: number } }[];
      expect(probe!.params.protocolVersion).toBe(1);
      h.agent({
        jsonrpc: "2.0",
        id: probe!.id,
        result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] },
      });
      for (let i = 0; i < MAX_EARLY_NOTIFICATIONS + 3; i++) h.agent(status(i));
      await h.settle();
      const out = h.takeClient();
      expect(out[0]).toMatchObject({ id: 0, result: { protocolVersion: 2 } });
      expect(out.slice(1)).toEqual(Array.from({ length: MAX_EARLY_NOTIFICATIONS }, (_, i) => status(i)));
      expect(h.bridge.mode).toBe("B");
      expect(h.violations).toEqual([]);
    });

    it("are dropped when the handshake fails", async () => {
      const h = harness({ agentProtocol: 1 });
      h.client(init1);
      await h.settle();
      const [probe] = h.takeAgent() as { id: number }[];
      h.agent({ jsonrpc: "2.0", id: probe!.id, error: { code: -32603, message: "Internal error" } });
      h.agent(status());
      await h.settle();
      expect(h.takeClient()).toMatchObject([{ id: 0, error: { code: -32603 } }]);
    });
  });

  it("answers a message that is no JSON-RPC object with -32600 and its id", () => {
    const h = harness();
    h.client({ jsonrpc: "1.0", id: 9, method: "x" });
    h.client(17);
    expect(h.takeClient()).toMatchObject([
      { id: 9, error: { code: -32600 } },
      { id: null, error: { code: -32600 } },
    ]);
  });

  it("answers protocol version 0 with -32022 listing the versions it speaks", async () => {
    const h = harness();
    h.client({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 0 } });
    await h.settle();
    expect(h.takeClient()).toMatchObject([
      {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32022, message: "Unsupported protocol version", data: { requested: 0, supported: [1, 2] } },
      },
    ]);
    expect(h.takeAgent()).toEqual([]);
  });

  it("rejects a protocol version that is not a uint16 with -32602", async () => {
    const h = harness();
    h.client({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "1" } });
    await h.settle();
    expect(h.takeClient()).toMatchObject([{ id: 1, error: { code: -32602 } }]);
  });

  it("answers an empty batch with a single -32600", () => {
    const h = harness();
    h.client("[]");
    expect(h.takeClient()).toMatchObject([{ id: null, error: { code: -32600 } }]);
  });

  it("answers a batch with one array of its requests' answers and -32600 for bad entries", async () => {
    const h = await passThroughV1();
    h.client([
      { jsonrpc: "2.0", id: "a", method: "session/new", params: { cwd: "/w", mcpServers: [] } },
      { jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "s" } },
      17,
    ]);
    const sent = h.takeAgent() as { id?: number; method: string }[];
    expect(sent.map((m) => m.method)).toEqual(["session/new", "session/cancel"]);
    expect(h.takeClient()).toEqual([]);
    h.agent({ jsonrpc: "2.0", id: sent[0]!.id, result: { sessionId: "s1" } });
    const out = h.takeClient();
    expect(out).toHaveLength(1);
    expect(out[0]).toEqual([
      {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: "Invalid Request", data: { reason: "a JSON-RPC message must be an object" } },
      },
      { jsonrpc: "2.0", id: "a", result: { sessionId: "s1" } },
    ]);
  });

  it("sends no reply at all for a batch of notifications", async () => {
    const h = await passThroughV1();
    h.client([{ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "s" } }]);
    expect(h.takeClient()).toEqual([]);
    expect(h.takeAgent()).toHaveLength(1);
  });

  it("never sends a batch to the other peer", async () => {
    const h = await passThroughV1();
    h.client([
      { jsonrpc: "2.0", id: 1, method: "session/list", params: {} },
      { jsonrpc: "2.0", id: 2, method: "session/list", params: {} },
    ]);
    const sent = h.takeAgent();
    expect(sent).toHaveLength(2);
    expect(sent.some((m) => Array.isArray(m))).toBe(false);
  });
});

describe("pass-through (same version both sides)", () => {
  it("remaps request ids and restores the client's exact id, including null and fractions", async () => {
    const h = await passThroughV1();
    for (const id of [null, 1.5, "a", 7]) {
      h.client({ jsonrpc: "2.0", id, method: "session/new", params: { cwd: "/w", mcpServers: [] } });
      const [fwd] = h.takeAgent() as { id: number }[];
      expect(typeof fwd!.id).toBe("number");
      h.agent({ jsonrpc: "2.0", id: fwd!.id, result: { sessionId: "s" } });
      expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id, result: { sessionId: "s" } }]);
    }
  });

  it("forwards notifications byte for byte", async () => {
    const h = await passThroughV1();
    const raw =
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hé"}},"_meta":{"traceparent":"x"}}}';
    h.agent(raw);
    expect(h.takeClient()).toEqual([JSON.parse(raw)]);
  });

  it("rewrites $/cancel_request through the id map and drops it for unknown ids", async () => {
    const h = await passThroughV1();
    h.client({ jsonrpc: "2.0", id: "p1", method: "session/prompt", params: { sessionId: "s", prompt: [] } });
    const [fwd] = h.takeAgent() as { id: number }[];
    h.client({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: "p1" } });
    h.client({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: "nope" } });
    expect(h.takeAgent()).toEqual([{ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: fwd!.id } }]);
  });

  it("relays agent requests to the client under the bridge's ids and back", async () => {
    const h = await passThroughV1();
    h.agent({ jsonrpc: "2.0", id: 42, method: "session/request_permission", params: { sessionId: "s" } });
    const [fwd] = h.takeClient() as { id: number }[];
    h.client({ jsonrpc: "2.0", id: fwd!.id, result: { outcome: { outcome: "cancelled" } } });
    expect(h.takeAgent()).toEqual([{ jsonrpc: "2.0", id: 42, result: { outcome: { outcome: "cancelled" } } }]);
  });

  it("answers every pending client request with -32603 when the agent exits", async () => {
    const h = await passThroughV1();
    h.client({ jsonrpc: "2.0", id: 3, method: "session/prompt", params: { sessionId: "s", prompt: [] } });
    h.takeAgent();
    h.bridge.agentGone({ code: 3, signal: null });
    expect(h.takeClient()).toEqual([
      {
        jsonrpc: "2.0",
        id: 3,
        error: { code: -32603, message: "Agent connection closed", data: { reason: "agent_exited", exitCode: 3 } },
      },
    ]);
  });

  it("withdraws the agent's unanswered requests to the client when the agent exits", async () => {
    const h = await passThroughV1();
    h.agent({ jsonrpc: "2.0", id: 42, method: "session/request_permission", params: { sessionId: "s" } });
    const [fwd] = h.takeClient() as { id: number }[];
    h.bridge.agentGone({ code: 1, signal: null });
    expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: fwd!.id } }]);
  });
});
