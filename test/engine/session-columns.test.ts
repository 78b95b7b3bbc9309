// The session columns of mappings/methods.ts drive both engines: `opensSession` decides which
// client requests are admitted against --max-sessions, `afterClose` which ones still reach a session
// closed on this connection. Each method of the table is sent; every message the bridge writes is
// schema-checked by the harness.
import { afterEach, describe, expect, it } from "vitest";
import { rowsFrom, type Direction } from "../../mappings/methods.js";
import { harness, handshakeA, handshakeB, type Harness } from "../support/harness.js";

let current: Harness | undefined;
afterEach(() => {
  if (current) expect(current.violations).toEqual([]);
  current = undefined;
});

const S = "s1";
const OTHER = "s-other";
const text = (t: string) => ({ type: "text", text: t });

/** Valid params of each session request a client can send, for the session `sessionId`. */
function paramsOf(method: string, sessionId: string): Record<string, unknown> | undefined {
  const cwd = "/w";
  const byMethod: Record<string, Record<string, unknown>> = {
    "session/new": { cwd, mcpServers: [] },
    "session/load": { sessionId, cwd, mcpServers: [] },
    "session/resume": { sessionId, cwd, mcpServers: [] },
    "session/fork": { sessionId, cwd, mcpServers: [] },
    "session/close": { sessionId },
    "session/delete": { sessionId },
    "session/status": { sessionId },
    "session/set_title": { sessionId, title: "t" },
    "session/archive": { sessionId },
    "session/unarchive": { sessionId },
    "session/set_mode": { sessionId, modeId: "m" },
    "session/set_model": { sessionId, modelId: "m" },
    "session/set_config_option": { sessionId, configId: "c", value: "v" },
    "session/prompt": { sessionId, prompt: [text("hi")] },
  };
  return Object.hasOwn(byMethod, method) ? byMethod[method] : undefined;
}

/** The client requests of direction `d` that name or create a session, with their row's columns. */
function sessionRequests(d: Direction) {
  return [...rowsFrom(d, "client", "request")]
    .filter(([method, row]) => method.startsWith("session/") && method !== "session/list" && row[d] !== "refuse")
    .map(([method, row]) => ({ method, opens: row.opensSession, afterClose: row.afterClose === true }));
}

const isLimit = (m: any, id: string) => m.id === id && m.error?.data?.reason === "max_sessions";

describe("the opensSession column (--max-sessions)", () => {
  async function busySessionA(): Promise<Harness> {
    const h = harness({ maxSessions: 1 });
    current = h;
    await handshakeA(h, {}, { session: { mcp: { stdio: {} } } });
    h.client({ jsonrpc: "2.0", id: "new", method: "session/new", params: { cwd: "/w", mcpServers: [] } });
    const [req] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: req.id, result: { sessionId: S } });
    await h.settle();
    h.client({ jsonrpc: "2.0", id: "p", method: "session/prompt", params: { sessionId: S, prompt: [text("hi")] } });
    await h.settle();
    h.takeClient();
    h.takeAgent();
    return h;
  }

  async function busySessionB(): Promise<Harness> {
    const h = harness({ maxSessions: 1, ackGraceMs: 0 });
    current = h;
    await handshakeB(h, { loadSession: true, sessionCapabilities: { resume: {}, close: {}, list: {} } });
    h.client({ jsonrpc: "2.0", id: "new", method: "session/new", params: { cwd: "/w", mcpServers: [] } });
    const [req] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: req.id, result: { sessionId: S } });
    await h.settle();
    h.client({ jsonrpc: "2.0", id: "p", method: "session/prompt", params: { sessionId: S, prompt: [text("hi")] } });
    await h.settle();
    h.takeClient();
    h.takeAgent();
    return h;
  }

  it.each([
    ["a", busySessionA],
    ["b", busySessionB],
  ] as const)(
    "direction %s refuses exactly the requests the table says open a session when the one allowed is busy",
    async (d, busy) => {
      const requests = sessionRequests(d);
      expect(requests.filter((r) => r.opens !== undefined).length).toBeGreaterThan(2);
      for (const { method, opens } of requests) {
        const h = await busy();
        const params = paramsOf(method, OTHER);
        expect(params, `params of ${method}`).toBeDefined();
        h.client({ jsonrpc: "2.0", id: "x", method, params });
        await h.settle();
        expect(
          h.takeClient().some((m) => isLimit(m, "x")),
          method,
        ).toBe(opens !== undefined);
        current = undefined;
        expect(h.violations, method).toEqual([]);
      }
    },
  );
});

describe("the afterClose column (direction B, emulated session/close)", () => {
  it("answers -32002 for a closed session to exactly the requests the table does not let through", async () => {
    // The requests that name a session (session/new makes one).
    const requests = sessionRequests("b").filter((r) => paramsOf(r.method, S)?.sessionId !== undefined);
    expect(requests.filter((r) => r.afterClose).length).toBeGreaterThan(2);
    expect(requests.filter((r) => !r.afterClose).length).toBeGreaterThan(1);
    for (const { method, afterClose } of requests) {
      const h = harness({ ackGraceMs: 0 });
      await handshakeB(h, { loadSession: true });
      h.client({ jsonrpc: "2.0", id: "new", method: "session/new", params: { cwd: "/w", mcpServers: [] } });
      const [req] = h.takeAgent();
      h.agent({ jsonrpc: "2.0", id: req.id, result: { sessionId: S } });
      await h.settle();
      h.client({ jsonrpc: "2.0", id: "close", method: "session/close", params: { sessionId: S } });
      await h.settle();
      expect(h.takeClient().find((m) => m.id === "close")?.result).toBeDefined();
      const params = paramsOf(method, S);
      expect(params, `params of ${method}`).toBeDefined();
      h.client({ jsonrpc: "2.0", id: "x", method, params });
      await h.settle();
      const notFound = h
        .takeClient()
        .some((m) => m.id === "x" && m.error?.code === -32002 && m.error?.data?.sessionId === S);
      expect(notFound, method).toBe(!afterClose);
      expect(h.violations, method).toEqual([]);
    }
  });
});
