// `acp-bridge serve` end to end (issue 22): the BUILT CLI serving the demo agents on /acp, SDK
// clients of both versions over both profiles (WebSocket, Streamable HTTP), every message they
// receive schema-checked; one agent process per connection, reaped when its connection ends.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { checkWire } from "../support/peers.js";
import {
  alive,
  childrenOf,
  remoteClient,
  startServe,
  until,
  type Profile,
  type RemoteClient,
  type Served,
} from "../support/remote.js";

const AGENTS = { 1: "dist/src/demo/agent-v1.js", 2: "dist/src/demo/agent-v2.js" } as const;
const SERVE = ["--listen", "127.0.0.1:0", "--log-level", "error"];
const TEXT = "Sure. Here is a short answer in four chunks.";
const TIMEOUT = 60_000;

type Update = { sessionUpdate: string; state?: string; stopReason?: string; content?: { text?: string } };

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

/** What a turn showed the client: the agent's text, the update kinds in order, how it ended. */
interface Turn {
  readonly text: string;
  readonly kinds: readonly string[];
  readonly stopReason: string | undefined;
}

function summary(updates: readonly { update: unknown }[], stopReason: string | undefined): Turn {
  const all = updates.map((u) => u.update as Update);
  return {
    text: all
      .filter((u) => u.sessionUpdate.startsWith("agent_message"))
      .map((u) => u.content?.text ?? "")
      .join(""),
    // The agent announces its commands after session/new, unordered with the turn's start.
    kinds: all.map((u) => u.sessionUpdate).filter((k) => k !== "available_commands_update"),
    stopReason,
  };
}

/** The handshake, a session and the demo's turn (chunks, a plan, a tool call whose permission is allowed). */
async function runTurn(version: 1 | 2, c: RemoteClient<1 | 2>): Promise<Turn> {
  if (version === 1) {
    const ctx = (c as RemoteClient<1>).ctx;
    const init = await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    expect(init.protocolVersion).toBe(1);
    const { sessionId } = await ctx.request("session/new", { cwd: process.cwd(), mcpServers: [] });
    const r = await ctx.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "[chunks][plan][tool] go" }],
    });
    return summary(c.updates, r.stopReason);
  }
  const ctx = (c as RemoteClient<2>).ctx;
  const init = await ctx.request("initialize", {
    protocolVersion: 2,
    info: { name: "remote", version: "1" },
    capabilities: {},
  });
  expect(init.protocolVersion).toBe(2);
  const { sessionId } = await ctx.request("session/new", { cwd: process.cwd() });
  const ack = await ctx.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "[chunks][plan][tool] go" }],
  });
  expect(typeof ack.messageId).toBe("string");
  await c.waitForUpdate((u) => u.update.sessionUpdate === "state_update" && u.update.state === "idle");
  const idle = c.updates.map((u) => u.update as Update).find((u) => u.state === "idle");
  return summary(c.updates, idle?.stopReason);
}

function expectExact(version: 1 | 2, t: Turn, c: RemoteClient<1 | 2>): void {
  expect(t.stopReason).toBe("end_turn");
  expect(t.text).toBe(TEXT);
  expect(t.kinds).toContain(version === 1 ? "plan" : "plan_update");
  expect(t.kinds).toContain(version === 1 ? "tool_call" : "tool_call_update");
  expect(c.permissionRequests).toHaveLength(1);
  checkWire(version, c.wire);
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
