// Every method of the pinned schemas (issue 7 §4) through both translating modes, as the method
// table routes it: forwarded unchanged (both ways, requests and notifications), translated, or
// refused -32601 with a `data.reason` naming the missing counterpart. Every message the bridge
// writes is checked against the UNSTABLE schema of its side (the harness checks the stable one,
// which lacks most of these methods).
import { afterEach, describe, expect, it } from "vitest";
import { methodTable, refusal, rowsFrom, type Direction, type Sender } from "../../mappings/methods.js";
import { createLogger } from "../../src/log.js";
import { handshakeA, handshakeB, harness, type Harness } from "../support/harness.js";
import { wireProblems } from "../support/wire-schema.js";

const S = "s1";
let current: Harness | undefined;

afterEach(() => {
  if (current) expect(current.violations).toEqual([]);
  current = undefined;
});

/** Direction A: a v1 client, a v2 agent with a session surface. */
async function connectA(): Promise<Harness> {
  const h = harness();
  current = h;
  await handshakeA(h, {}, { session: { delete: {} } });
  expect(h.bridge.mode).toBe("A");
  return h;
}

/** Direction B: a v2 client, a v1 agent with the full v1 session surface. */
async function connectB(): Promise<Harness> {
  const h = harness({ ackGraceMs: 0 });
  current = h;
  await handshakeB(h, { loadSession: true, sessionCapabilities: { list: {}, resume: {}, close: {} } });
  expect(h.bridge.mode).toBe("B");
  return h;
}

const connect = (d: Direction) => (d === "a" ? connectA() : connectB());
const version = (d: Direction, side: Sender): 1 | 2 =>
  d === "a" ? (side === "client" ? 1 : 2) : side === "client" ? 2 : 1;

/** What the bridge wrote to `side`, checked against that side's unstable schema. */
function expectUnstableValid(d: Direction, side: Sender, msg: unknown, method: string): void {
  const problem = wireProblems(version(d, side) === 1 ? "v1u" : "v2u", msg, () => method);
  expect(problem, JSON.stringify(msg)).toBeUndefined();
}

/** A valid request (params and result) for every method the table forwards. */
const REQUESTS: Record<string, { params: Record<string, unknown>; result: Record<string, unknown> }> = {
  "auth/status": {
    params: {},
    result: { state: "authenticated", accounts: [{ label: "me@example.com", active: true }] },
  },
  "providers/list": {
    params: {},
    result: {
      providers: [
        {
          providerId: "main",
          supported: ["anthropic", "openai"],
          required: true,
          current: { apiType: "anthropic", baseUrl: "https://llm.example.com" },
        },
      ],
    },
  },
  "providers/set": {
    params: {
      providerId: "main",
      apiType: "openai",
      baseUrl: "https://llm.example.com/v1",
      headers: { authorization: "Bearer x" },
    },
    result: {},
  },
  "providers/disable": { params: { providerId: "main" }, result: {} },
  "session/set_title": { params: { sessionId: S, title: "Fix CI" }, result: { title: "Fix CI" } },
  "session/archive": { params: { sessionId: S }, result: {} },
  "session/unarchive": { params: { sessionId: S, _meta: { trace: "t" } }, result: { _meta: { kept: true } } },
  "session/status": { params: { sessionId: S }, result: { status: "saved" } },
  "session/delete": { params: { sessionId: S }, result: {} },
  "session/close": { params: { sessionId: S }, result: {} },
  "mcp/message": {
    params: { serverId: "editor-tools", requestId: "r1", method: "tools/list", params: {} },
    result: { result: { tools: [] } },
  },
};

/** A valid notification for every notification the table forwards. */
const NOTIFICATIONS: Record<string, Record<string, unknown>> = {
  "auth/status_update": { state: "unauthenticated" },
  "elicitation/complete": { elicitationId: "e1" },
  "mcp/message": { serverId: "editor-tools", requestId: "r1", method: "notifications/progress", params: { p: 1 } },
};

const other = (s: Sender): Sender => (s === "client" ? "agent" : "client");
const send = (h: Harness, from: Sender, msg: unknown) => (from === "client" ? h.client(msg) : h.agent(msg));
const take = (h: Harness, side: Sender) => (side === "client" ? h.takeClient() : h.takeAgent());

const streams = (["a", "b"] as const).flatMap((d) => (["client", "agent"] as const).map((from) => [d, from] as const));

describe.each(streams)("direction %s, %s → bridge", (d, from) => {
  const to = other(from);
  const forwarded = (kind: "request" | "notification") =>
    [...rowsFrom(d, from, kind)].filter(([, r]) => r[d] === "forward").map(([m]) => m);
  const refused = (kind: "request" | "notification") =>
    [...rowsFrom(d, from, kind)].filter(([, r]) => r[d] === "refuse").map(([m]) => m);

  it.each(forwarded("request"))("forwards request %s unchanged both ways", async (method) => {
    const fixture = REQUESTS[method];
    expect(fixture, `add a fixture for ${method}`).toBeDefined();
    const h = await connect(d);
    send(h, from, { jsonrpc: "2.0", id: 77, method, params: fixture!.params });
    const [req] = take(h, to);
    expect(req).toEqual({ jsonrpc: "2.0", id: req.id, method, params: fixture!.params });
    expectUnstableValid(d, to, req, method);
    send(h, to, { jsonrpc: "2.0", id: req.id, result: fixture!.result });
    await h.settle();
    const [resp] = take(h, from);
    expect(resp).toEqual({ jsonrpc: "2.0", id: 77, result: fixture!.result });
    expectUnstableValid(d, from, resp, method);
    // An error answer goes back as it is.
    send(h, from, { jsonrpc: "2.0", id: 78, method, params: fixture!.params });
    const [again] = take(h, to);
    send(h, to, { jsonrpc: "2.0", id: again.id, error: { code: -32002, message: "Resource not found" } });
    await h.settle();
    // Toward a v2 client, a -32002 on a session-scoped request names the session (H §7.1).
    const named = version(d, from) === 2 && typeof fixture!.params.sessionId === "string";
    const [failed] = take(h, from);
    expect(failed).toMatchObject({ jsonrpc: "2.0", id: 78, error: { code: -32002, message: "Resource not found" } });
    if (named) expect(failed.error.data).toMatchObject({ sessionId: S });
    else expect(failed.error.data).toBeUndefined();
  });

  it.each(forwarded("notification"))("forwards notification %s unchanged", async (method) => {
    const params = NOTIFICATIONS[method];
    expect(params, `add a fixture for ${method}`).toBeDefined();
    const h = await connect(d);
    send(h, from, { jsonrpc: "2.0", method, params });
    const [n] = take(h, to);
    expect(n).toEqual({ jsonrpc: "2.0", method, params });
    expectUnstableValid(d, to, n, method);
    expect(take(h, from)).toEqual([]);
  });

  it.each(refused("request"))("refuses request %s with -32601 and the missing counterpart", async (method) => {
    const h = await connect(d);
    send(h, from, { jsonrpc: "2.0", id: 5, method, params: { sessionId: S } });
    expect(take(h, to)).toEqual([]);
    const [resp] = take(h, from);
    const row = rowsFrom(d, from, "request").get(method)!;
    expect(resp).toEqual({
      jsonrpc: "2.0",
      id: 5,
      error: { code: -32601, message: "Method not found", data: refusal(d, from, row) },
    });
    expect(resp.error.data.reason).toMatch(method.startsWith("proxy/") ? /proxy-chain/ : /has no counterpart for/);
    expectUnstableValid(d, from, resp, method);
  });

  it.each(refused("notification"))("drops notification %s", async (method) => {
    const h = await connect(d);
    send(h, from, { jsonrpc: "2.0", method, params: { method: "session/cancel", params: { sessionId: S } } });
    expect(take(h, to)).toEqual([]);
    expect(take(h, from)).toEqual([]);
  });

  it.each(["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"])(
    "answers %s as an unknown method, and keeps serving",
    async (method) => {
      const h = await connect(d);
      send(h, from, { jsonrpc: "2.0", id: 9, method, params: {} });
      send(h, from, { jsonrpc: "2.0", method, params: {} });
      expect(take(h, to)).toEqual([]);
      const [resp, ...rest] = take(h, from);
      expect(rest).toEqual([]);
      expect(resp).toMatchObject({ id: 9, error: { code: -32601, data: { method } } });
      // Still serving: a forwarded method crosses.
      const [name, fixture] =
        from === "client"
          ? ["session/set_title", REQUESTS["session/set_title"]!]
          : ["mcp/message", REQUESTS["mcp/message"]!];
      send(h, from, { jsonrpc: "2.0", id: 10, method: name, params: fixture.params });
      expect(take(h, to)[0]).toMatchObject({ method: name, params: fixture.params });
    },
  );
});

describe("session/status in direction B", () => {
  async function statusOf(h: Harness, id: number, status: string): Promise<any> {
    h.client({ jsonrpc: "2.0", id, method: "session/status", params: { sessionId: S } });
    const [req] = h.takeAgent();
    expect(req).toMatchObject({ method: "session/status", params: { sessionId: S } });
    h.agent({ jsonrpc: "2.0", id: req.id, result: { status } });
    await h.settle();
    const [resp] = h.takeClient();
    expectUnstableValid("b", "client", resp, "session/status");
    return resp.result;
  }

  it("adds the bridge's own foreground state to an open session it runs, v1 having none", async () => {
    const h = await connectB();
    // Unknown on this connection: the v1 answer as it is.
    expect(await statusOf(h, 1, "open")).toEqual({ status: "open" });
    h.client({ jsonrpc: "2.0", id: "new", method: "session/new", params: { cwd: "/w", mcpServers: [] } });
    const [create] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: create.id, result: { sessionId: S } });
    await h.settle();
    h.takeClient();
    expect(await statusOf(h, 2, "open")).toEqual({ status: "open", state: { state: "idle" } });
    h.client({
      jsonrpc: "2.0",
      id: 3,
      method: "session/prompt",
      params: { sessionId: S, prompt: [{ type: "text", text: "hi" }] },
    });
    h.takeAgent();
    h.takeClient(); // the ack, the user message, running
    expect(await statusOf(h, 4, "open")).toEqual({ status: "open", state: { state: "running" } });
    expect(await statusOf(h, 5, "saved")).toEqual({ status: "saved" });
  });

  it("still reaches the agent for a session closed on this connection (the agent keeps it saved)", async () => {
    const h = await connectB();
    h.client({ jsonrpc: "2.0", id: "new", method: "session/new", params: { cwd: "/w", mcpServers: [] } });
    const [create] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: create.id, result: { sessionId: S } });
    await h.settle();
    h.client({ jsonrpc: "2.0", id: "close", method: "session/close", params: { sessionId: S } });
    const [close] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: close.id, result: {} });
    await h.settle();
    h.takeClient();
    expect(await statusOf(h, 6, "saved")).toEqual({ status: "saved" });
    for (const [method, fixture] of [
      ["session/set_title", REQUESTS["session/set_title"]!],
      ["session/archive", REQUESTS["session/archive"]!],
    ] as const) {
      // One id per request: a request reusing the id of one in flight is refused (issue 10).
      h.client({ jsonrpc: "2.0", id: `7-${method}`, method, params: fixture.params });
      expect(h.takeAgent()[0]).toMatchObject({ method, params: fixture.params });
    }
    // A prompt on it is still refused by the bridge, as before.
    h.client({
      jsonrpc: "2.0",
      id: 8,
      method: "session/prompt",
      params: { sessionId: S, prompt: [{ type: "text", text: "hi" }] },
    });
    expect(h.takeAgent()).toEqual([]);
    expect(h.takeClient()[0]).toMatchObject({ id: 8, error: { code: -32002 } });
  });
});

describe("session/status in direction A", () => {
  it("forwards the v2 agent's answer to the v1 client as it is", async () => {
    const h = await connectA();
    h.client({ jsonrpc: "2.0", id: 1, method: "session/status", params: { sessionId: S } });
    const [req] = h.takeAgent();
    const result = { status: "open", state: { state: "running" } };
    h.agent({ jsonrpc: "2.0", id: req.id, result });
    await h.settle();
    const [resp] = h.takeClient();
    expect(resp).toEqual({ jsonrpc: "2.0", id: 1, result });
    expectUnstableValid("a", "client", resp, "session/status");
  });
});

describe("methods no schema defines, without the `_` prefix (extensions written before the prefix rule)", () => {
  type Mode = "a" | "b" | "pass1" | "pass2";
  /** A bridge in `mode` whose debug lines are kept. */
  async function connectLogged(mode: Mode): Promise<{ h: Harness; lines: string[] }> {
    const lines: string[] = [];
    const h = harness(
      mode === "b" ? { ackGraceMs: 0 } : {},
      createLogger("debug", (l) => lines.push(l)),
    );
    current = h;
    if (mode === "a") await handshakeA(h, {}, { session: {} });
    else if (mode === "b") await handshakeB(h, { loadSession: true });
    else {
      const v = mode === "pass1" ? 1 : 2;
      h.client({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params:
          v === 1
            ? { protocolVersion: 1, clientCapabilities: {} }
            : { protocolVersion: 2, info: { name: "c", version: "1" }, capabilities: {} },
      });
      await h.settle();
      const [probe] = h.takeAgent();
      h.agent({
        jsonrpc: "2.0",
        id: probe.id,
        result:
          v === 1
            ? { protocolVersion: 1, agentCapabilities: {}, authMethods: [] }
            : { protocolVersion: 2, info: { name: "a", version: "1" }, capabilities: {} },
      });
      await h.settle();
      h.takeClient();
    }
    expect(h.bridge.mode).toBe(mode === "a" ? "A" : mode === "b" ? "B" : "pass");
    return { h, lines };
  }

  const cases = (["a", "b", "pass1", "pass2"] as const).flatMap((mode) =>
    (["client", "agent"] as const).map((from) => [mode, from] as const),
  );
  const params = { sessionId: S, items: [1, "two", null], _meta: { trace: "t" } };

  it.each(cases)(
    "%s: a request from the %s crosses unchanged and its answer comes back unchanged",
    async (mode, from) => {
      const { h, lines } = await connectLogged(mode);
      const to = other(from);
      send(h, from, { jsonrpc: "2.0", id: 41, method: "vendor/frobnicate", params });
      const [req] = take(h, to);
      expect(req).toEqual({ jsonrpc: "2.0", id: req.id, method: "vendor/frobnicate", params });
      expect(take(h, from)).toEqual([]);
      // Any JSON answers: no schema says what its result is.
      send(h, to, { jsonrpc: "2.0", id: req.id, result: ["opaque", 1] });
      await h.settle();
      expect(take(h, from)).toEqual([{ jsonrpc: "2.0", id: 41, result: ["opaque", 1] }]);
      send(h, from, { jsonrpc: "2.0", id: 42, method: "vendor/frobnicate", params });
      const [again] = take(h, to);
      send(h, to, { jsonrpc: "2.0", id: again.id, error: { code: -32601, message: "Method not found" } });
      await h.settle();
      expect(take(h, from)).toEqual([{ jsonrpc: "2.0", id: 42, error: { code: -32601, message: "Method not found" } }]);
      // Translating modes say so (pass-through reads no method names).
      if (mode === "a" || mode === "b")
        expect(lines.filter((l) => l.includes("'vendor/frobnicate'"))).toEqual([
          `acp-bridge debug: forwarded ${from} request 'vendor/frobnicate' unchanged: no ACP schema defines it (an extension without the _ prefix)\n`,
          `acp-bridge debug: forwarded ${from} request 'vendor/frobnicate' unchanged: no ACP schema defines it (an extension without the _ prefix)\n`,
        ]);
    },
  );

  it.each(cases)("%s: a notification from the %s crosses as its very bytes", async (mode, from) => {
    const { h, lines } = await connectLogged(mode);
    const to = other(from);
    const line = '{"jsonrpc":"2.0","method":"vendor/progress","params":{ "done" : 3,"_meta":{}}}';
    send(h, from, line);
    const before = h.written[to].length;
    expect(take(h, to)).toEqual([{ jsonrpc: "2.0", method: "vendor/progress", params: { done: 3, _meta: {} } }]);
    expect(h.written[to].slice(before - 1)).toEqual([line]);
    expect(take(h, from)).toEqual([]);
    if (mode === "a" || mode === "b")
      expect(lines.some((l) => l.includes(`forwarded ${from} notification 'vendor/progress' unchanged`))).toBe(true);
  });

  /** Methods only the version `from` does not speak defines, by kind. */
  const otherVersionOnly = (d: Direction, from: Sender, kind: "request" | "notification") => {
    const own = version(d, from) === 1 ? "v1" : "v2";
    const theirs = own === "v1" ? "v2" : "v1";
    const mine = new Set(methodTable.map((r) => r[own]));
    return methodTable
      .filter((r) => r.kind === kind)
      .map((r) => r[theirs])
      .filter((m): m is string => m !== null && !mine.has(m));
  };

  it.each(streams)(
    "direction %s: methods of the other version only, from the %s, keep their refusal",
    async (d, from) => {
      const requests = otherVersionOnly(d, from, "request");
      expect(requests.length).toBeGreaterThan(0);
      const h = await connect(d);
      let id = 100;
      for (const method of requests) {
        send(h, from, { jsonrpc: "2.0", id: ++id, method, params: { sessionId: S } });
        expect(take(h, other(from)), method).toEqual([]);
        expect(take(h, from), method).toMatchObject([{ id, error: { code: -32601, data: { method } } }]);
      }
      for (const method of otherVersionOnly(d, from, "notification")) {
        send(h, from, { jsonrpc: "2.0", method, params: { sessionId: S } });
        expect(take(h, other(from)), method).toEqual([]);
        expect(take(h, from), method).toEqual([]);
      }
    },
  );
});
