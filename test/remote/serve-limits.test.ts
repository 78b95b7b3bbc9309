// `acp-bridge serve`'s limits (issue 22): connections at once (503, no agent started), request body
// and WebSocket message size (413, close 1009), a WebSocket client that stops reading (disconnected
// after --max-output-stall-ms, its agent reaped, others still served), and 50 connections at once,
// each turn exact, with serve's peak RSS reported.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import { afterEach, describe, expect, it } from "vitest";
import { tsxArgs } from "../support/peers.js";
import {
  alive,
  childrenOf,
  expectExact,
  remoteClient,
  runTurn,
  startServe,
  until,
  type RemoteClient,
  type Served,
  type Turn,
} from "../support/remote.js";

const AGENT_V2 = [process.execPath, "dist/src/demo/agent-v2.js"];
const SERVE = ["--listen", "127.0.0.1:0", "--log-level", "error", "--shutdown-grace-ms", "500"];
const TIMEOUT = 60_000;

const clients: RemoteClient<1 | 2>[] = [];
const serving: Served[] = [];
const sockets: WebSocket[] = [];

afterEach(async () => {
  for (const w of sockets.splice(0)) {
    w.on("error", () => undefined);
    w.terminate();
  }
  for (const c of clients.splice(0)) await c.close();
  for (const s of serving.splice(0)) {
    if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill("SIGKILL");
    await s.exit;
  }
});

async function served(args: readonly string[], agent: readonly string[] = AGENT_V2): Promise<Served> {
  const s = await startServe([...SERVE, ...args, "--", ...agent]);
  serving.push(s);
  return s;
}

function connect<V extends 1 | 2>(version: V, profile: "ws" | "http", s: Served): RemoteClient<V> {
  const c = remoteClient(version, profile, s, s.token!);
  clients.push(c);
  return c;
}

/** A raw WebSocket client (the `ws` package) with serve's token, once open. */
async function socket(s: Served): Promise<WebSocket> {
  const ws = new WebSocket(s.wsUrl, { headers: { authorization: `Bearer ${s.token!}` } });
  sockets.push(ws);
  await new Promise<void>((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("unexpected-response", (_q, res) => reject(new Error(`status ${String(res.statusCode)}`)));
  });
  return ws;
}

/** Sends a request and resolves with its response (messages before it are skipped). */
function call(ws: WebSocket, id: number, method: string, params: unknown): Promise<unknown> {
  return new Promise((resolve) => {
    const on = (data: Buffer) => {
      const m = JSON.parse(data.toString("utf8")) as { id?: number };
      if (m.id !== id) return;
      ws.off("message", on);
      resolve(m);
    };
    ws.on("message", on);
    ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
  });
}

function status(s: Served, body: string, headers: Record<string, string> = {}): Promise<number> {
  return fetch(s.url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${s.token!}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body,
  }).then(async (r) => {
    await r.text();
    return r.status;
  });
}

const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: 1, clientCapabilities: {} },
});

describe("serve's limits", () => {
  it(
    "answers 503 past --max-connections, starting no agent, and serves again once a connection ends",
    async () => {
      const s = await served(["--max-connections", "1"]);
      const first = await socket(s);
      await call(first, 1, "initialize", { protocolVersion: 1, clientCapabilities: {} });
      const [agent] = childrenOf(s.pid);
      expect(await status(s, INIT)).toBe(503);
      const refused = new WebSocket(s.wsUrl, { headers: { authorization: `Bearer ${s.token!}` } });
      sockets.push(refused);
      expect(
        await new Promise<number | undefined>((resolve) =>
          refused.once("unexpected-response", (_q, res) => resolve(res.statusCode)),
        ),
      ).toBe(503);
      expect(childrenOf(s.pid)).toEqual([agent]);
      first.close();
      await until(() => !alive(agent!), "the first connection's agent reaped");
      const c = connect(2, "http", s);
      expectExact(2, await runTurn(2, c), c);
    },
    TIMEOUT,
  );

  it(
    "answers 413 to a body over --max-body-bytes, and closes a WebSocket whose message is over it (1009)",
    async () => {
      const s = await served(["--max-body-bytes", "4096"]);
      const big = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: 1, clientCapabilities: {}, _meta: { pad: "x".repeat(5000) } },
      });
      expect(await status(s, big)).toBe(413);
      const ws = await socket(s);
      const closed = new Promise<number>((resolve) => ws.once("close", resolve));
      ws.send(big);
      expect(await closed).toBe(1009);
      // Under the limit, the same request is served.
      expect(await status(s, INIT)).toBe(200);
    },
    TIMEOUT,
  );

  it(
    "disconnects a WebSocket client that stops reading after --max-output-stall-ms, reaps its agent, serves others",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "acp-serve-stall-"));
      try {
        const flood = [process.execPath, ...tsxArgs("test/fixtures/flood-agent.ts"), join(dir, "progress"), "30000"];
        const s = await served(
          ["--max-buffered-bytes", "65536", "--max-body-bytes", "16384", "--max-output-stall-ms", "1000"],
          flood,
        );
        const ws = await socket(s);
        await call(ws, 1, "initialize", { protocolVersion: 2, info: { name: "slow", version: "1" }, capabilities: {} });
        const [agent] = childrenOf(s.pid);
        await call(ws, 2, "session/new", { cwd: process.cwd() });
        ws.send(
          JSON.stringify({
            jsonrpc: "2.0",
            id: 3,
            method: "session/prompt",
            params: { sessionId: "s1", prompt: [{ type: "text", text: "go" }] },
          }),
        );
        // Stop reading: the socket's buffers fill, then serve's.
        await new Promise((resolve) => ws.once("message", resolve));
        ws.pause();
        // Meanwhile another client is served.
        const other = await socket(s);
        expect(
          await call(other, 1, "initialize", {
            protocolVersion: 2,
            info: { name: "other", version: "1" },
            capabilities: {},
          }),
        ).toMatchObject({ result: { protocolVersion: 2 } });
        await until(() => !alive(agent!), "the stalled client's agent reaped", 30_000);
        expect(s.stderr()).toMatch(/Closing ACP connection .*stalled|read none|maxOutputStallMs/);
        expect(childrenOf(s.pid)).toHaveLength(1);
        expect(await call(other, 2, "session/new", { cwd: process.cwd() })).toMatchObject({
          result: { sessionId: "s1" },
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    TIMEOUT,
  );

  it(
    "serves 50 connections at once, every turn exact (prints serve's peak RSS)",
    async () => {
      const s = await served(["--max-connections", "64"]);
      const started = Date.now();
      const runs = Array.from({ length: 50 }, async (_, i) => {
        const version: 1 | 2 = i % 2 === 0 ? 1 : 2;
        const c = connect(version, i % 4 < 2 ? "ws" : "http", s);
        const t = await runTurn(version, c);
        expectExact(version, t, c);
        return { version, t };
      });
      const turns = await Promise.all(runs);
      const ms = Date.now() - started;
      const status = readFileSync(`/proc/${String(s.pid)}/status`, "utf8");
      const peak = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
      console.log(`serve: 50 connections, each a turn, in ${String(ms)} ms; serve's peak RSS ${peak ?? "?"} kB`);
      // Bounded: 50 bridges in one process stay far below what 50 bridge processes would take (~50 MiB each).
      expect(Number(peak)).toBeLessThan(256 * 1024);
      // The same version's turns are the same turn.
      const first: Partial<Record<1 | 2, Turn>> = {};
      for (const { version, t } of turns) expect(t).toEqual((first[version] ??= t));
      expect(childrenOf(s.pid)).toHaveLength(50);
    },
    TIMEOUT,
  );
});
