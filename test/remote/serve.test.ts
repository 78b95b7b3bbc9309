// `acp-bridge serve` end to end (issue 22): the BUILT CLI serving the demo agents on /acp, SDK
// clients of both versions over both profiles (WebSocket, Streamable HTTP), every message they
// receive schema-checked; one agent process per connection, reaped when its connection ends.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  alive,
  childrenOf,
  expectExact,
  remoteClient,
  runTurn,
  startServe,
  until,
  type Profile,
  type RemoteClient,
  type Served,
  type Turn,
} from "../support/remote.js";

const AGENTS = { 1: "dist/src/demo/agent-v1.js", 2: "dist/src/demo/agent-v2.js" } as const;
const SERVE = ["--listen", "127.0.0.1:0", "--log-level", "error"];
const TIMEOUT = 60_000;

const clients: RemoteClient<1 | 2>[] = [];
const serving: Served[] = [];

async function stop(s: Served): Promise<void> {
  if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill("SIGKILL");
  await s.exit;
}

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});
afterAll(async () => {
  for (const s of serving.splice(0)) await stop(s);
});

async function served(agent: 1 | 2, extra: readonly string[] = [], env: Record<string, string> = {}) {
  const s = await startServe([...SERVE, ...extra, "--", process.execPath, AGENTS[agent]], env);
  serving.push(s);
  return s;
}

function connect<V extends 1 | 2>(version: V, profile: Profile, s: Served, token = s.token!): RemoteClient<V> {
  const c = remoteClient(version, profile, s, token);
  clients.push(c);
  return c;
}

describe.each([2, 1] as const)("acp-bridge serve in front of the v%i demo agent", (agent) => {
  let s: Served;
  /** Each client version's turn as the first profile showed it: the other must show the very same. */
  const seen = new Map<1 | 2, Turn>();
  beforeAll(async () => {
    s = await served(agent);
  });

  it.each([
    [1, "ws"],
    [2, "ws"],
    [1, "http"],
    [2, "http"],
  ] as const)(
    "a v%i client over %s completes the demo turn exactly, in its own version",
    async (version, profile) => {
      const c = connect(version, profile, s);
      const t = await runTurn(version, c);
      expectExact(version, t, c);
      const other = seen.get(version);
      if (other) expect(t).toEqual(other);
      else seen.set(version, t);
    },
    TIMEOUT,
  );

  it.each(["ws", "http"] as const)(
    "reaps the agent of a client that disconnects mid-turn (%s), nothing left running",
    async (profile) => {
      await until(() => childrenOf(s.pid).length === 0, "no agent left from earlier tests");
      const c = connect(1, profile, s);
      const ctx = c.ctx;
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = await ctx.request("session/new", { cwd: process.cwd(), mcpServers: [] });
      // A turn that runs for a while: gone mid-way, its prompt is never answered to anyone.
      void ctx
        .request("session/prompt", { sessionId, prompt: [{ type: "text", text: "[chunks][slow:10000] go" }] })
        .catch(() => undefined);
      await c.waitForUpdate((u) => u.update.sessionUpdate === "agent_message_chunk");
      const agents = childrenOf(s.pid);
      expect(agents).toHaveLength(1);
      await c.close();
      await until(() => agents.every((p) => !alive(p)) && childrenOf(s.pid).length === 0, "the agent reaped");
    },
    TIMEOUT,
  );

  it(
    "runs one agent process per connection and reaps it when its client closes",
    async () => {
      await until(() => childrenOf(s.pid).length === 0, "no agent left from earlier tests");
      const a = connect(1, "ws", s);
      const b = connect(2, "http", s);
      await Promise.all([runTurn(1, a), runTurn(2, b)]);
      const agents = childrenOf(s.pid);
      expect(agents).toHaveLength(2);
      await a.close();
      await until(() => childrenOf(s.pid).length === 1, "the closed connection's agent reaped");
      await b.close();
      await until(() => agents.every((p) => !alive(p)), "every agent reaped");
    },
    TIMEOUT,
  );
});
