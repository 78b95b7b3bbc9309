// Two bridges back to back must be invisible (issue 4, item 4; T §9 case 20): the far peers see
// what a direct connection gives them, byte for byte (as JSON text, keys in order) except what the
// spec adds or regenerates: the bridges' markers in initialize, the agent's own random ids and clocks,
// and request ids a bridge allocates. Built CLI, real SDK peers, real pipes.
import { setOwn } from "../../src/base/json.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { checkWire, readWireLog, spawnWithClient, type SpawnedClient, type WireEntry } from "../support/peers.js";

const NODE = process.execPath;
const AGENT_V1 = ["dist/src/demo/agent-v1.js"];
const AGENT_V2 = ["dist/src/demo/agent-v2.js"];
const BRIDGE = "bin/acp-bridge.js";
const TIMEOUT = 60_000;
const env = { ACP_DEMO_CHUNK_MS: "0" };
const logs = mkdtempSync(join(tmpdir(), "acp-chain-"));
afterAll(() => rmSync(logs, { recursive: true, force: true }));
let runs = 0;

const peers: SpawnedClient<1 | 2>[] = [];
afterEach(async () => {
  for (const p of peers.splice(0)) {
    p.kill("SIGKILL");
    await p.exit;
  }
});

/**
 * Two bridges in front of an agent, each forced into its direction, at default stash settings (each
 * names itself a bridge to the other, which then gets what it needs). The inner one is told the agent's
 * version too: in `auto` it would first probe with the other initialize shape (H §1.4), which a
 * direct connection does not send.
 */
function chained(first: string[], second: string[], agent: string[]): string[] {
  return [
    BRIDGE,
    "--log-level",
    "error",
    ...first,
    "--",
    NODE,
    BRIDGE,
    "--log-level",
    "error",
    ...second,
    "--",
    NODE,
    ...agent,
  ];
}

/** The agent's own randomness (session, tool call and message ids, clocks) is not the bridges'. */
function normalize(wire: readonly WireEntry[]): unknown[] {
  const labels = new Map<string, string>();
  const label = (kind: string, raw: string) => {
    const key = `${kind}:${raw}`;
    if (!labels.has(key)) labels.set(key, `<${kind}${labels.size}>`);
    return labels.get(key)!;
  };
  const agentRequestIds = new Map<string, string>();
  return wire.map((e) => {
    let text = JSON.stringify(e.msg)
      .replace(/sess-[0-9a-f-]{36}/g, (m) => label("session", m))
      .replace(/(?:call|u|m|th|plan)-[a-z0-9]+-\d+/g, (m) => label("id", m))
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g, "<time>");
    const msg = JSON.parse(text) as { id?: unknown; method?: string; result?: { _meta?: Record<string, unknown> } };
    // Requests a bridge sends carry its own ids (H §7.2): compare them by order of appearance.
    if (e.dir === "in" && msg.method !== undefined && msg.id !== undefined) {
      const k = JSON.stringify(msg.id);
      agentRequestIds.set(k, `<req${agentRequestIds.size}>`);
      msg.id = agentRequestIds.get(k);
    } else if (e.dir === "out" && msg.method === undefined && agentRequestIds.has(JSON.stringify(msg.id))) {
      msg.id = agentRequestIds.get(JSON.stringify(msg.id));
    }
    text = JSON.stringify(msg);
    return { dir: e.dir, msg: JSON.parse(text) as unknown };
  });
}

/**
 * The markers bridges add to initialize (T §5.5; H §1.5 `_meta["acp-bridge"].bridge`): the one field a
 * chain adds. `_meta` goes when nothing else is in it.
 */
function withoutBridgeMarkers(wire: unknown[]): unknown[] {
  return wire.map((e) => {
    const m = (e as { msg: Record<string, any> }).msg;
    const key = m.method === "initialize" ? "params" : m.result?.protocolVersion !== undefined ? "result" : undefined;
    const root = key ? m[key] : undefined;
    if (!root?._meta?.["acp-bridge"]?.bridge) return e;
    const meta = { ...root._meta };
    delete meta["acp-bridge"];
    const stripped = { ...root, _meta: meta };
    if (Object.keys(meta).length === 0) delete stripped._meta;
    return { ...(e as object), msg: { ...m, [key as string]: stripped } };
  });
}

/** Byte comparison, one direction at a time: when a notification overtakes the peer's next request is timing. */
function texts(wire: unknown[], dir: "in" | "out"): string[] {
  return wire.filter((e) => (e as { dir: string }).dir === dir).map((e) => JSON.stringify((e as { msg: unknown }).msg));
}

function expectSameBytes(chain: readonly WireEntry[], direct: readonly WireEntry[]): void {
  const c = withoutBridgeMarkers(normalize(chain));
  const d = withoutBridgeMarkers(normalize(direct));
  for (const dir of ["in", "out"] as const) expect(texts(c, dir)).toEqual(texts(d, dir));
  // A key-order record (src/wire/key-order.ts) lives only between the two bridges.
  expect(chain.some((e) => JSON.stringify(e.msg).includes("acp-bridge/order"))).toBe(false);
}

interface Conversation {
  /** The client's wire. */
  readonly client: WireEntry[];
  /** The agent's wire (its ACP_WIRE_LOG). */
  readonly agent: WireEntry[];
}

async function v1Conversation(args: string[]): Promise<Conversation> {
  const wireLog = join(logs, `agent-${String(++runs)}.jsonl`);
  const peer = spawnWithClient(1, NODE, args, { env: { ...env, ACP_WIRE_LOG: wireLog } });
  peers.push(peer);
  const ctx = peer.ctx;
  await ctx.request("initialize", {
    protocolVersion: 1,
    clientInfo: { name: "ed", version: "1" },
    clientCapabilities: {},
  });
  const s = await ctx.request("session/new", { cwd: "/tmp", mcpServers: [] });
  await ctx.request("session/prompt", {
    sessionId: s.sessionId,
    prompt: [{ type: "text", text: "[chunks][thought][plan][tool][diff] go" }],
  });
  await ctx.request("session/set_mode", { sessionId: s.sessionId, modeId: "code" });
  await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "[chunks] again" }] });
  await ctx.request("session/load", { sessionId: s.sessionId, cwd: "/tmp", mcpServers: [] });
  await peer.close();
  checkWire(1, peer.wire);
  return { client: peer.wire, agent: readWireLog(wireLog) };
}

interface Materialized {
  messages: Record<string, unknown[]>;
  toolCalls: Record<string, Record<string, unknown>>;
  plans: Record<string, unknown>;
  config: unknown;
  states: string[];
  prompts: unknown[];
}

/** What a v2 client ends up with after applying every update (T §9 case 20's comparison). */
function materialize(wire: readonly WireEntry[]): Materialized {
  // Keyed by ids the agent chose: without a prototype, an id like `__proto__` is a key like any other.
  const dict = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;
  const m: Materialized = {
    messages: dict(),
    toolCalls: dict(),
    plans: dict(),
    config: undefined,
    states: [],
    prompts: [],
  };
  const promptIds = new Set<string>();
  for (const e of normalize(wire) as { dir: string; msg: any }[]) {
    const msg = e.msg;
    if (e.dir === "out" && msg.method === "session/prompt") promptIds.add(JSON.stringify(msg.id));
    if (e.dir === "in" && msg.method === undefined && promptIds.has(JSON.stringify(msg.id)))
      m.prompts.push(msg.result ?? msg.error);
    if (e.dir !== "in" || msg.method !== "session/update") continue;
    const u = msg.params.update;
    const key = `${String(u.sessionUpdate).replace(/_chunk$/, "")}:${u.messageId}`;
    switch (u.sessionUpdate) {
      case "user_message_chunk":
      case "agent_message_chunk":
      case "agent_thought_chunk":
        (m.messages[key] ??= []).push(u.content);
        break;
      case "user_message":
      case "agent_message":
      case "agent_thought":
        if (u.content !== undefined) m.messages[key] = u.content === null ? [] : [...u.content];
        break;
      case "tool_call_update": {
        const t = (m.toolCalls[u.toolCallId] ??= {});
        for (const [k, v] of Object.entries(u)) if (k !== "sessionUpdate") setOwn(t, k, v);
        break;
      }
      case "tool_call_content_chunk":
        ((m.toolCalls[u.toolCallId] ??= {}).content as unknown[] | undefined)?.push(u.content);
        break;
      case "plan_update":
        m.plans[u.plan.planId] = u.plan;
        break;
      case "config_option_update":
        m.config = u.configOptions;
        break;
      case "state_update":
        m.states.push(`${u.state}${u.stopReason ? `:${u.stopReason}` : ""}`);
        break;
    }
  }
  // Message text as a client renders it: adjacent text blocks joined.
  for (const [k, blocks] of Object.entries(m.messages))
    m.messages[k] = [
      (blocks as { type: string; text?: string }[])
        .map((b) => (b.type === "text" ? b.text : JSON.stringify(b)))
        .join(""),
    ];
  return m;
}

async function v2Conversation(args: string[]): Promise<Conversation> {
  const wireLog = join(logs, `agent-${String(++runs)}.jsonl`);
  const peer = spawnWithClient(2, NODE, args, { env: { ...env, ACP_WIRE_LOG: wireLog } });
  peers.push(peer);
  const ctx = peer.ctx;
  await ctx.request("initialize", { protocolVersion: 2, info: { name: "ed", version: "1" }, capabilities: {} });
  const s = await ctx.request("session/new", { cwd: "/tmp" });
  const idleCount = () => peer.updates.filter((u) => (u.update as { state?: string }).state === "idle").length;
  for (const text of ["[chunks][thought][plan][tool][diff] go", "[chunks] again"]) {
    const before = idleCount();
    await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text }] });
    await peer.waitForUpdate(() => idleCount() > before);
  }
  await ctx.request("session/set_config_option", {
    sessionId: s.sessionId,
    configId: "mode",
    type: "id",
    value: "code",
  });
  await peer.close();
  checkWire(2, peer.wire);
  return { client: peer.wire, agent: readWireLog(wireLog) };
}

describe("chained bridges are transparent (issue 4, item 4)", () => {
  it(
    "v1 client → bridge(A) → bridge(B) → v1 agent: both far wires equal a direct connection's, byte for byte",
    async () => {
      const direct = await v1Conversation([...AGENT_V1]);
      const chain = await v1Conversation(chained(["--agent-protocol", "2"], ["--agent-protocol", "1"], AGENT_V1));
      expectSameBytes(chain.client, direct.client);
      expectSameBytes(chain.agent, direct.agent);
    },
    TIMEOUT,
  );

  it(
    "v2 client → bridge(B) → bridge(A) → v2 agent: both far wires equal a direct connection's, byte for byte, and so does the state",
    async () => {
      const direct = await v2Conversation([...AGENT_V2]);
      const chain = await v2Conversation(chained(["--agent-protocol", "1"], ["--agent-protocol", "2"], AGENT_V2));
      expect(materialize(chain.client)).toEqual(materialize(direct.client));
      expectSameBytes(chain.client, direct.client);
      expectSameBytes(chain.agent, direct.agent);
    },
    TIMEOUT,
  );
});
