// Hostile input at the connection core: one bad line must never cost an editor its session.
// Each case reproduces a defect found by fuzzing the built CLI (issue "Hostile input and faults").
import { isUtf8 } from "node:buffer";
import { describe, expect, it } from "vitest";
import { Bridge } from "../../src/engine/bridge.js";
import { createBridgeConfig } from "../../src/engine/config.js";
import { silentLogger } from "../support/log.js";
import { baseOptions, handshakeB, harness, type Harness } from "../support/harness.js";

const init1 = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } };

async function passThroughV1() {
  const h = harness();
  h.client(init1);
  await h.settle();
  const [probe] = h.takeAgent() as { id: number }[];
  h.agent({ jsonrpc: "2.0", id: probe!.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
  await h.settle();
  h.takeClient();
  return h;
}

/** A v1 client in front of a v2 agent (direction A). */
async function directionA() {
  const h = harness({ agentProtocol: 2 });
  h.client(init1);
  await h.settle();
  const [probe] = h.takeAgent() as { id: number }[];
  h.agent({
    jsonrpc: "2.0",
    id: probe!.id,
    result: { protocolVersion: 2, info: { name: "a", version: "1" }, capabilities: { session: {} }, authMethods: [] },
  });
  await h.settle();
  h.takeClient();
  expect(h.bridge.mode).toBe("A");
  return h;
}

const deep = (n: number) => "[".repeat(n) + "]".repeat(n);

describe("nesting depth (item 1)", () => {
  it("answers a request nested 10,000 levels deep with -32600 too_deep and keeps serving", async () => {
    const h = await passThroughV1();
    h.client(`{"jsonrpc":"2.0","id":4,"method":"session/new","params":{"cwd":"/w","x":${deep(10_000)}}}`);
    expect(h.takeClient()).toEqual([
      {
        jsonrpc: "2.0",
        id: 4,
        error: { code: -32600, message: "Message nested too deeply", data: { reason: "too_deep", maxDepth: 512 } },
      },
    ]);
    expect(h.takeAgent()).toEqual([]);
    h.client({ jsonrpc: "2.0", id: 5, method: "session/list", params: {} });
    expect(h.takeAgent()).toHaveLength(1);
  });

  it("drops a deep notification without a reply", async () => {
    const h = await passThroughV1();
    h.agent(`{"jsonrpc":"2.0","method":"session/update","params":${deep(10_000)}}`);
    expect(h.takeClient()).toEqual([]);
    expect(h.takeAgent()).toEqual([]);
  });

  it("settles the client's request with -32603 when the agent's answer is too deep", async () => {
    const h = await passThroughV1();
    h.client({ jsonrpc: "2.0", id: "n", method: "session/new", params: { cwd: "/w", mcpServers: [] } });
    const [fwd] = h.takeAgent() as { id: number }[];
    h.agent(`{"jsonrpc":"2.0","id":${fwd!.id},"result":{"sessionId":"s","x":${deep(5000)}}}`);
    expect(h.takeClient()).toMatchObject([{ id: "n", error: { code: -32603, data: { reason: "too_deep" } } }]);
    expect(h.takeAgent()).toEqual([]);
  });

  it("honours a configured depth", () => {
    const h = harness({ maxDepth: 3 });
    h.client('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"a":[[[[1]]]]}}');
    expect(h.takeClient()).toMatchObject([{ id: 1, error: { data: { reason: "too_deep", maxDepth: 3 } } }]);
  });
});

describe("size limit (item 1)", () => {
  it("settles the client's request with -32603 when the agent's answer was over the size limit", async () => {
    const h = await passThroughV1();
    h.client({ jsonrpc: "2.0", id: "n", method: "session/new", params: { cwd: "/w", mcpServers: [] } });
    const [fwd] = h.takeAgent() as { id: number }[];
    h.bridge.oversize("agent", { bytes: 40 << 20, envelope: { kind: "response", id: fwd!.id } });
    expect(h.takeClient()).toMatchObject([
      { id: "n", error: { code: -32603, data: { reason: "message_too_large", bytes: 40 << 20 } } },
    ]);
  });

  it("answers an oversize request whatever its id, and never an oversize notification", async () => {
    const h = await passThroughV1();
    h.bridge.oversize("client", { bytes: 40 << 20, envelope: { kind: "request", id: "late" } });
    h.bridge.oversize("client", { bytes: 40 << 20, envelope: { kind: "notification" } });
    expect(h.takeClient()).toMatchObject([
      { id: "late", error: { code: -32600, data: { reason: "message_too_large" } } },
    ]);
  });
});

describe("malformed answers (item 1: never reply to a response)", () => {
  it("turns the client's malformed answer to a relayed request into an error for its requester", async () => {
    const h = await passThroughV1();
    h.agent({ jsonrpc: "2.0", id: 42, method: "session/request_permission", params: { sessionId: "s" } });
    const [fwd] = h.takeClient() as { id: number }[];
    h.client({ jsonrpc: "2.0", id: fwd!.id, error: "denied" });
    expect(h.takeClient()).toEqual([]);
    expect(h.takeAgent()).toMatchObject([
      { id: 42, error: { code: -32603, data: { reason: "malformed_response", detail: expect.any(String) } } },
    ]);
  });

  it("drops a malformed answer to nothing without replying", async () => {
    const h = await passThroughV1();
    h.client({ jsonrpc: "2.0", id: 99, error: "denied" });
    expect(h.takeClient()).toEqual([]);
    expect(h.takeAgent()).toEqual([]);
  });
});

describe("batches: exactly one answer per request (item 2)", () => {
  it("answers a batch whose only request fails at once with exactly one array", async () => {
    const h = await directionA();
    h.client([{ jsonrpc: "2.0", id: 1, method: "_acp-bridge/x", params: {} }]);
    const out = h.takeClient();
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject([{ id: 1, error: { code: -32601 } }]);
  });

  it("gives a repeated id in one batch its own error entry and answers the first", async () => {
    const h = await passThroughV1();
    h.client([
      { jsonrpc: "2.0", id: null, method: "session/list", params: {} },
      { jsonrpc: "2.0", id: null, method: "session/list", params: {} },
      { jsonrpc: "2.0", id: 2, method: "session/list", params: {} },
    ]);
    const sent = h.takeAgent() as { id: number }[];
    expect(sent).toHaveLength(2);
    for (const m of sent) h.agent({ jsonrpc: "2.0", id: m.id, result: { sessions: [] } });
    const out = h.takeClient();
    expect(out).toHaveLength(1);
    expect(out[0]).toEqual([
      {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: "Duplicate request id", data: { reason: "duplicate_id" } },
      },
      { jsonrpc: "2.0", id: null, result: { sessions: [] } },
      { jsonrpc: "2.0", id: 2, result: { sessions: [] } },
    ]);
  });
});

/** A v2 client in front of a v1 agent (direction B). */
async function directionB() {
  const h = harness();
  await handshakeB(h, { loadSession: true });
  expect(h.bridge.mode).toBe("B");
  return h;
}

async function passThroughV2() {
  const h = harness();
  h.client({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: 2, info: { name: "c", version: "1" }, capabilities: {} },
  });
  await h.settle();
  const [probe] = h.takeAgent() as { id: number }[];
  h.agent({
    jsonrpc: "2.0",
    id: probe!.id,
    result: { protocolVersion: 2, info: { name: "a", version: "1" }, capabilities: {}, authMethods: [] },
  });
  await h.settle();
  h.takeClient();
  expect(h.bridge.mode).toBe("pass");
  return h;
}

const MODES: [string, () => Promise<Harness>][] = [
  ["v1 pass-through", passThroughV1],
  ["v2 pass-through", passThroughV2],
  ["direction A", directionA],
  ["direction B", directionB],
];

/** A client request every mode forwards to the agent as one request. */
const newSession = (id: unknown) => ({
  jsonrpc: "2.0",
  id,
  method: "session/new",
  params: { cwd: "/w", mcpServers: [] },
});
const inFlight = {
  code: -32600,
  message: "Request id already in flight",
  data: { reason: "duplicate_id_in_flight" },
};

describe("a request id reused while a request with that id is in flight (item 2)", () => {
  for (const [mode, connect] of MODES) {
    it(`${mode}: refuses the second single at once and answers the first exactly once`, async () => {
      const h = await connect();
      h.client(newSession("x"));
      const [fwd] = h.takeAgent() as { id: number }[];
      h.client(newSession("x"));
      expect(h.takeAgent()).toEqual([]);
      expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: "x", error: inFlight }]);
      h.agent({ jsonrpc: "2.0", id: fwd!.id, result: { sessionId: "s1" } });
      await h.settle();
      expect(h.takeClient()).toMatchObject([{ id: "x", result: { sessionId: "s1" } }]);
      // Answered: the id is free again.
      h.client(newSession("x"));
      expect(h.takeAgent()).toHaveLength(1);
      expect(h.violations).toEqual([]);
    });

    it(`${mode}: a batch entry reusing a single's id gets its own error entry; neither answer is mixed up`, async () => {
      const h = await connect();
      h.client(newSession("x"));
      const [single] = h.takeAgent() as { id: number }[];
      h.client([newSession("x"), newSession("y")]);
      const fwd = h.takeAgent() as { id: number }[];
      expect(fwd).toHaveLength(1);
      h.agent({ jsonrpc: "2.0", id: fwd[0]!.id, result: { sessionId: "sy" } });
      await h.settle();
      expect(h.takeClient()).toMatchObject([
        [
          { id: "x", error: inFlight },
          { id: "y", result: { sessionId: "sy" } },
        ],
      ]);
      h.agent({ jsonrpc: "2.0", id: single!.id, result: { sessionId: "sx" } });
      await h.settle();
      expect(h.takeClient()).toMatchObject([{ id: "x", result: { sessionId: "sx" } }]);
      expect(h.violations).toEqual([]);
    });

    it(`${mode}: a single reusing the id of a batch entry in flight is refused on its own line`, async () => {
      const h = await connect();
      h.client([newSession("x"), newSession("y")]);
      const fwd = h.takeAgent() as { id: number }[];
      expect(fwd).toHaveLength(2);
      h.client(newSession("x"));
      expect(h.takeAgent()).toEqual([]);
      expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: "x", error: inFlight }]);
      fwd.forEach((f, i) => h.agent({ jsonrpc: "2.0", id: f.id, result: { sessionId: `s${i}` } }));
      await h.settle();
      expect(h.takeClient()).toMatchObject([
        [
          { id: "x", result: { sessionId: "s0" } },
          { id: "y", result: { sessionId: "s1" } },
        ],
      ]);
      expect(h.violations).toEqual([]);
    });
  }

  const options = [{ optionId: "o", name: "Allow", kind: "allow_once" }];
  const asks: [(typeof MODES)[number], unknown][] = [
    [MODES[0]!, { sessionId: "s", toolCall: { toolCallId: "t" }, options }],
    [MODES[2]!, { sessionId: "s", title: "Run", options }],
  ];
  for (const [[mode, connect], params] of asks)
    it(`${mode}: refuses an agent request reusing the id of one the client has not answered`, async () => {
      const h = await connect();
      const ask = { jsonrpc: "2.0", id: 5, method: "session/request_permission", params };
      h.agent(ask);
      // Direction A shows the permission's subject first (a tool call update): the request is last.
      const fwd = h.takeClient().at(-1) as { id: number; method: string };
      expect(fwd.method).toBe("session/request_permission");
      h.agent(ask);
      expect(h.takeClient()).toEqual([]);
      expect(h.takeAgent()).toEqual([{ jsonrpc: "2.0", id: 5, error: inFlight }]);
      h.client({ jsonrpc: "2.0", id: fwd.id, result: { outcome: { outcome: "selected", optionId: "o" } } });
      await h.settle();
      expect(h.takeAgent()).toMatchObject([{ id: 5, result: { outcome: { outcome: "selected", optionId: "o" } } }]);
      expect(h.violations).toEqual([]);
    });
});

describe("a batch holding a request refused for its id (fuzz: v2 client, id 1.5)", () => {
  for (const [mode, connect] of [MODES[1]!, MODES[3]!])
    it(`${mode}: answers the batch with one array, the refused id as a null-id entry`, async () => {
      const h = await connect();
      h.client([newSession("t1"), { jsonrpc: "2.0", id: 1.5, method: "\u0000" }, newSession("t2")]);
      const fwd = h.takeAgent() as { id: number }[];
      expect(fwd).toHaveLength(2);
      expect(h.takeClient()).toEqual([]);
      fwd.forEach((f, i) => h.agent({ jsonrpc: "2.0", id: f.id, result: { sessionId: `s${i}` } }));
      await h.settle();
      expect(h.takeClient()).toMatchObject([
        [
          { id: null, error: { code: -32600, data: { reason: "invalid_id", id: 1.5 } } },
          { id: "t1", result: { sessionId: "s0" } },
          { id: "t2", result: { sessionId: "s1" } },
        ],
      ]);
    });
});

describe("additionalDirectories in pass-through (item 6)", () => {
  async function passThrough(version: 1 | 2, supports: boolean, options: Parameters<typeof harness>[0] = {}) {
    const h = harness(options);
    const session = supports ? { additionalDirectories: {} } : {};
    h.client(
      version === 1
        ? init1
        : {
            jsonrpc: "2.0",
            id: 0,
            method: "initialize",
            params: { protocolVersion: 2, info: { name: "c", version: "1" }, capabilities: {} },
          },
    );
    await h.settle();
    const [probe] = h.takeAgent() as { id: number }[];
    h.agent({
      jsonrpc: "2.0",
      id: probe!.id,
      result:
        version === 1
          ? { protocolVersion: 1, agentCapabilities: { sessionCapabilities: session }, authMethods: [] }
          : { protocolVersion: 2, info: { name: "a", version: "1" }, capabilities: { session }, authMethods: [] },
    });
    await h.settle();
    h.takeClient();
    expect(h.bridge.mode).toBe("pass");
    return h;
  }

  const bad: [string, unknown, string][] = [
    ["null", null, "null"],
    ["a relative path", ["rel/dir"], "not_absolute"],
    ["an empty string", [""], "empty"],
    ["a non-string", [7], "not_string"],
  ];

  for (const version of [1, 2] as const)
    for (const [what, dirs, reason] of bad)
      it(`refuses ${what} in v${version} session/new with -32602 ${reason}, never forwarding it`, async () => {
        const h = await passThrough(version, true);
        h.client({
          jsonrpc: "2.0",
          id: 1,
          method: "session/new",
          params: { cwd: "/w", mcpServers: [], additionalDirectories: dirs },
        });
        expect(h.takeAgent()).toEqual([]);
        expect(h.takeClient()).toMatchObject([
          { id: 1, error: { code: -32602, data: { field: "additionalDirectories", reason } } },
        ]);
      });

  it("refuses roots the agent did not advertise, strips an empty list, forwards valid roots untouched", async () => {
    const h = await passThrough(1, false);
    const params = { sessionId: "s", cwd: "/w", mcpServers: [] };
    h.client({ jsonrpc: "2.0", id: 1, method: "session/load", params: { ...params, additionalDirectories: ["/x"] } });
    expect(h.takeClient()).toMatchObject([{ id: 1, error: { code: -32602, data: { reason: "unsupported" } } }]);
    h.client({ jsonrpc: "2.0", id: 2, method: "session/load", params: { ...params, additionalDirectories: [] } });
    expect(h.takeAgent()).toMatchObject([{ method: "session/load", params }]);
    const ok = await passThrough(1, true);
    const line = `{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":"/w","mcpServers":[],"additionalDirectories":["/x","/y"]}}`;
    ok.client(line);
    expect(ok.takeAgent()).toMatchObject([{ params: { additionalDirectories: ["/x", "/y"] } }]);
  });

  it("forwards anything when the check is turned off", async () => {
    const h = await passThrough(2, true, { passThroughRootsCheck: false });
    h.client({
      jsonrpc: "2.0",
      id: 1,
      method: "session/new",
      params: { cwd: "/w", mcpServers: [], additionalDirectories: null },
    });
    expect(h.takeAgent()).toMatchObject([{ params: { additionalDirectories: null } }]);
  });
});

/** A pass-through bridge whose written lines are kept as the exact strings or bytes it wrote. */
async function rawPassThroughV1() {
  const toClient: (string | Buffer)[] = [];
  const toAgent: (string | Buffer)[] = [];
  const bridge = new Bridge(
    createBridgeConfig({ ...baseOptions }, silentLogger),
    { push: (l) => toClient.push(l) },
    { push: (l) => toAgent.push(l) },
  );
  bridge.clientLine(Buffer.from(JSON.stringify(init1)));
  await new Promise((r) => setImmediate(r));
  const probe = JSON.parse(String(toAgent.shift())) as { id: number };
  bridge.agentLine(
    Buffer.from(
      JSON.stringify({ jsonrpc: "2.0", id: probe.id, result: { protocolVersion: 1, agentCapabilities: {} } }),
    ),
  );
  await new Promise((r) => setImmediate(r));
  toClient.splice(0);
  return { bridge, toClient, toAgent };
}

describe("only valid output (item 3)", () => {
  it("answers an integer id beyond 2^53 with the exact token it came with", async () => {
    const { bridge, toClient, toAgent } = await rawPassThroughV1();
    bridge.clientLine(Buffer.from('{"jsonrpc":"2.0","id":9007199254740993,"method":"session/list","params":{}}'));
    bridge.clientLine(Buffer.from('{"jsonrpc":"2.0","id":9007199254740992,"method":"session/list","params":{}}'));
    const fwd = JSON.parse(String(toAgent.shift())) as { id: number };
    expect(toAgent).toEqual([]);
    expect(JSON.parse(String(toClient.shift()))).toMatchObject({
      id: null,
      error: { data: { reason: "id_collision" } },
    });
    bridge.agentLine(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: fwd.id, result: { sessions: [] } })));
    expect(toClient.map(String)).toEqual(['{"jsonrpc":"2.0","id":9007199254740993,"result":{"sessions":[]}}']);
  });

  it("refuses a batch entry whose id is beyond 2^53 under null, never answering a rounded id", async () => {
    const { bridge, toClient, toAgent } = await rawPassThroughV1();
    bridge.clientLine(
      Buffer.from(
        '[{"jsonrpc":"2.0","id":9007199254740993,"method":"session/list","params":{}},' +
          '{"jsonrpc":"2.0","id":"s","method":"session/list","params":{}}]',
      ),
    );
    const fwd = JSON.parse(String(toAgent.shift())) as { id: number };
    expect(toAgent).toEqual([]);
    bridge.agentLine(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: fwd.id, result: { sessions: [] } })));
    expect(toClient).toHaveLength(1);
    const batch = JSON.parse(String(toClient[0])) as { id: unknown; error?: { data?: { reason?: string } } }[];
    expect(batch).toHaveLength(2);
    expect(batch).toContainEqual(
      expect.objectContaining({
        id: null,
        error: expect.objectContaining({ data: { reason: "inexact_id_in_batch" } }),
      }),
    );
    expect(batch).toContainEqual({ jsonrpc: "2.0", id: "s", result: { sessions: [] } });
    expect(String(toClient[0])).not.toContain("9007199254740992");
  });

  it("refuses null and fractional request ids from a v2 peer in every mode, and serves them from v1 peers", async () => {
    const v2 = await passThroughV2();
    for (const id of [null, 1.5]) {
      v2.client({ jsonrpc: "2.0", id, method: "session/list", params: {} });
      v2.agent({ jsonrpc: "2.0", id, method: "session/request_permission", params: {} });
    }
    expect(v2.takeAgent().map((m) => m.error?.data)).toEqual([
      { reason: "invalid_id", id: null },
      { reason: "invalid_id", id: 1.5 },
    ]);
    expect(v2.takeClient().map((m) => m.error?.data)).toEqual([
      { reason: "invalid_id", id: null },
      { reason: "invalid_id", id: 1.5 },
    ]);
    const a = await directionA();
    a.agent({ jsonrpc: "2.0", id: null, method: "session/request_permission", params: {} });
    expect(a.takeAgent()).toMatchObject([{ id: null, error: { code: -32600, data: { reason: "invalid_id" } } }]);
    expect(a.takeClient()).toEqual([]);
    const v1 = await passThroughV1();
    v1.client({ jsonrpc: "2.0", id: null, method: "session/list", params: {} });
    expect(v1.takeAgent()).toHaveLength(1);
  });

  it("never forwards invalid UTF-8 on the byte-for-byte path: the bytes become U+FFFD", async () => {
    const { bridge, toClient } = await rawPassThroughV1();
    const head = Buffer.from('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"t":"a');
    const tail = Buffer.from('b"}}}');
    bridge.agentLine(Buffer.concat([head, Buffer.from([0xff, 0xc3]), tail]));
    expect(toClient).toHaveLength(1);
    const out = toClient[0]!;
    const bytes = typeof out === "string" ? Buffer.from(out) : out;
    expect(isUtf8(bytes)).toBe(true);
    expect(JSON.parse(bytes.toString("utf8")).params.update.t).toBe("a\uFFFD\uFFFDb");
  });
});

describe("translated garbage (item 3): an input the bridge cannot translate is refused", () => {
  const translating: [string, () => Promise<Harness>][] = [
    ["direction A", directionA],
    ["direction B", directionB],
  ];
  const cancel = (params: unknown) => ({ jsonrpc: "2.0", method: "session/cancel", params });

  for (const [mode, connect] of translating) {
    it(`${mode}: drops a session/cancel whose sessionId is not a string or whose _meta is not an object`, async () => {
      const h = await connect();
      h.client(cancel({ sessionId: 5 }));
      h.client(cancel({ sessionId: "s", _meta: 7 }));
      h.client(cancel({}));
      await h.settle();
      expect(h.takeAgent()).toEqual([]);
      expect(h.takeClient()).toEqual([]);
      h.client(cancel({ sessionId: "s", _meta: null }));
      await h.settle();
      expect(h.takeAgent()).toMatchObject([{ method: "session/cancel", params: { sessionId: "s" } }]);
      expect(h.violations).toEqual([]);
    });

    it(`${mode}: drops an elicitation/complete whose elicitationId is not a string or whose _meta is not an object`, async () => {
      const h = await connect();
      h.agent({ jsonrpc: "2.0", method: "elicitation/complete", params: { elicitationId: ["e"] } });
      h.agent({ jsonrpc: "2.0", method: "elicitation/complete", params: { elicitationId: "e", _meta: "x" } });
      await h.settle();
      expect(h.takeClient()).toEqual([]);
      h.agent({ jsonrpc: "2.0", method: "elicitation/complete", params: { elicitationId: "e" } });
      await h.settle();
      expect(h.takeClient()).toMatchObject([{ method: "elicitation/complete", params: { elicitationId: "e" } }]);
      expect(h.violations).toEqual([]);
    });

    // The guard is shared (translating.ts); B's v1 agent updates reach the client at once.
    it.runIf(mode === "direction B")(
      `${mode}: drops a session/update whose _meta (or its update's) is not an object`,
      async () => {
        const h = await connect();
        h.client(newSession("n"));
        const [create] = h.takeAgent();
        h.agent({ jsonrpc: "2.0", id: create.id, result: { sessionId: "s" } });
        await h.settle();
        h.takeClient();
        const update = {
          sessionUpdate: "available_commands_update",
          availableCommands: [{ name: "a", description: "A" }],
        };
        h.agent({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update, _meta: 1 } });
        h.agent({
          jsonrpc: "2.0",
          method: "session/update",
          params: { sessionId: "s", update: { ...update, _meta: [] } },
        });
        await h.settle(30);
        expect(h.takeClient()).toEqual([]);
        // The same update with a valid _meta goes through.
        h.agent({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update, _meta: {} } });
        await h.settle(100);
        expect(h.takeClient()).toMatchObject([{ method: "session/update", params: { update } }]);
        expect(h.violations).toEqual([]);
      },
    );
  }

  it("direction A: drops a session_info_update whose title or updatedAt is not a string (byte-for-byte path)", async () => {
    const h = await directionA();
    h.client(newSession(1));
    const [create] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: create.id, result: { sessionId: "s" } });
    await h.settle();
    h.takeClient();
    const info = (update: object) => ({
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId: "s", update: { sessionUpdate: "session_info_update", ...update } },
    });
    h.agent(info({ title: {} }));
    h.agent(info({ title: "t", updatedAt: 5 }));
    await h.settle(30);
    expect(h.takeClient()).toEqual([]);
    h.agent(info({ title: "t", updatedAt: null }));
    await h.settle(30);
    expect(h.takeClient()).toMatchObject([{ params: { update: { title: "t", updatedAt: null } } }]);
    expect(h.violations).toEqual([]);
  });

  it("direction B: converts the agent's echo of a prompt, dropping a block v2 cannot carry", async () => {
    const h = await directionB();
    h.client(newSession("n"));
    const [create] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: create.id, result: { sessionId: "s" } });
    await h.settle();
    h.takeClient();
    h.client({
      jsonrpc: "2.0",
      id: 2,
      method: "session/prompt",
      params: { sessionId: "s", prompt: [{ type: "text", text: "hi" }] },
    });
    await h.settle();
    h.takeAgent();
    const echo = (content: object) => ({
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId: "s", update: { sessionUpdate: "user_message_chunk", content } },
    });
    h.agent(echo({ type: "image", data: "d", mimeType: "image/png", annotations: "" }));
    h.agent(echo({ type: "resource_link", name: "n", uri: "not a uri" }));
    await h.settle(30);
    const updates = h.takeClient().filter((m) => m.method === "session/update");
    expect(updates.map((m) => m.params.update.content)).not.toContainEqual(
      expect.objectContaining({ annotations: "" }),
    );
    expect(JSON.stringify(updates)).not.toContain('"uri":"not a uri"');
    expect(h.violations).toEqual([]);
  });

  it("direction A: refuses authenticate with an object methodId, and a nested _meta that is not an object", async () => {
    const h = await directionA();
    h.client({ jsonrpc: "2.0", id: 1, method: "authenticate", params: { methodId: { x: 1 } } });
    h.client({
      jsonrpc: "2.0",
      id: 2,
      method: "session/prompt",
      params: { sessionId: "s", prompt: [{ type: "text", text: "hi", _meta: 1 }] },
    });
    h.client({
      jsonrpc: "2.0",
      id: 3,
      method: "session/set_config_option",
      params: { sessionId: "s", configId: "c", value: "v", _meta: "m" },
    });
    h.client({ jsonrpc: "2.0", id: 4, method: "logout", params: [] });
    expect(h.takeAgent()).toEqual([]);
    expect(h.takeClient().map((m) => [m.id, m.error.code, m.error.data])).toEqual([
      [1, -32602, { field: "methodId", reason: "not_string" }],
      [2, -32602, { field: "prompt[0]._meta", reason: "not_object" }],
      [3, -32602, { field: "_meta", reason: "not_object" }],
      [4, -32602, { field: "params", reason: "not_object" }],
    ]);
    expect(h.violations).toEqual([]);
  });

  it("direction B: refuses auth/login with a numeric methodId and session/delete with a non-string sessionId", async () => {
    const h = await directionB();
    h.client({ jsonrpc: "2.0", id: 1, method: "auth/login", params: { methodId: 1 } });
    h.client({ jsonrpc: "2.0", id: 2, method: "session/delete", params: { sessionId: null } });
    h.client({ jsonrpc: "2.0", id: 3, method: "session/set_config_option", params: { sessionId: "s", configId: 4 } });
    expect(h.takeAgent()).toEqual([]);
    expect(h.takeClient().map((m) => [m.id, m.error.code, m.error.data])).toEqual([
      [1, -32602, { field: "methodId", reason: "not_string" }],
      [2, -32602, { field: "sessionId", reason: "not_string" }],
      [3, -32602, { field: "configId", reason: "not_string" }],
    ]);
    expect(h.violations).toEqual([]);
  });

  it("turns an agent result that is not an object into -32603 malformed_result (renamed and forwarded methods)", async () => {
    const a = await directionA();
    a.client({ jsonrpc: "2.0", id: 1, method: "authenticate", params: { methodId: "m" } });
    const [login] = a.takeAgent();
    a.agent({ jsonrpc: "2.0", id: login.id, result: "garbage" });
    await a.settle();
    expect(a.takeClient()).toMatchObject([
      { id: 1, error: { code: -32603, data: { reason: "malformed_result", field: "", detail: "not_object" } } },
    ]);
    const b = await directionB();
    b.client({ jsonrpc: "2.0", id: 2, method: "session/delete", params: { sessionId: "s" } });
    const [del] = b.takeAgent();
    b.agent({ jsonrpc: "2.0", id: del.id, result: { _meta: 3 } });
    await b.settle();
    expect(b.takeClient()).toMatchObject([
      { id: 2, error: { code: -32603, data: { reason: "malformed_result", field: "_meta" } } },
    ]);
    expect([...a.violations, ...b.violations]).toEqual([]);
  });

  it("direction A: refuses a permission request whose option has a non-string optionId or name", async () => {
    const h = await directionA();
    for (const [id, option] of [
      [1, { optionId: 5, name: "Allow", kind: "allow_once" }],
      [2, { optionId: "o", name: null, kind: "allow_once" }],
    ] as const)
      h.agent({
        jsonrpc: "2.0",
        id,
        method: "session/request_permission",
        params: { sessionId: "s", title: "Run", options: [option] },
      });
    await h.settle();
    expect(h.takeClient().filter((m) => m.method === "session/request_permission")).toEqual([]);
    expect(h.takeAgent().map((m) => [m.id, m.error?.code, m.error?.data?.field])).toEqual([
      [1, -32602, "options[0].optionId"],
      [2, -32602, "options[0].name"],
    ]);
  });
});
