// The stash goes only where it is used (issue 7, item 5): the BUILT CLI between plain SDK peers, at
// default settings, writes no `_meta["acp-bridge"]` to either of them, except the marker (and stash)
// of the `initialize` request, which goes to the agent before the bridge can know what it is.
// `--stash compact` forces it toward every peer, for debugging.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkWire, readWireLog, spawnWithClient, type SpawnedClient, type WireEntry } from "../support/peers.js";

const BRIDGE = "bin/acp-bridge.js";
const AGENT_V2 = "dist/src/demo/agent-v2.js";
const AGENT_V1 = "dist/src/demo/agent-v1.js";
const TIMEOUT = 60_000;
/** Every kind of update the demo agents send: message and thought chunks, a plan, tool calls, a diff. */
const TURN = "[chunks][thought][plan][tool][diff] go";

let dir: string | undefined;
const peers: SpawnedClient<1 | 2>[] = [];

afterEach(async () => {
  for (const p of peers.splice(0)) {
    p.kill("SIGKILL");
    await p.exit;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

interface Wires {
  readonly client: WireEntry[];
  readonly agent: WireEntry[];
}

function bridgeArgs(options: string[], agent: string): { args: string[]; wireLog: string } {
  dir = mkdtempSync(join(tmpdir(), "acp-bridge-stash-"));
  const wireLog = join(dir, "agent-wire.jsonl");
  return { args: [BRIDGE, "--log-level", "error", ...options, "--", process.execPath, agent], wireLog };
}

const env = (wireLog: string) => ({ env: { ACP_WIRE_LOG: wireLog, ACP_DEMO_CHUNK_MS: "0" } });

/** A plain v1 client, the bridge, the v2-only demo agent: one full turn. */
async function turnA(options: string[]): Promise<Wires> {
  const { args, wireLog } = bridgeArgs(options, AGENT_V2);
  const peer = spawnWithClient(1, process.execPath, args, env(wireLog));
  peers.push(peer);
  await peer.ctx.request("initialize", {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
  });
  const s = await peer.ctx.request("session/new", { cwd: process.cwd(), mcpServers: [] });
  const r = await peer.ctx.request("session/prompt", {
    sessionId: s.sessionId,
    prompt: [{ type: "text", text: TURN }],
  });
  expect(r.stopReason).toBe("end_turn");
  await peer.close();
  checkWire(1, peer.wire);
  return { client: peer.wire, agent: readWireLog(wireLog) };
}

/** A plain v2 client, the bridge, the v1 demo agent: one full turn. */
async function turnB(options: string[]): Promise<Wires> {
  const { args, wireLog } = bridgeArgs(options, AGENT_V1);
  const peer = spawnWithClient(2, process.execPath, args, env(wireLog));
  peers.push(peer);
  await peer.ctx.request("initialize", { protocolVersion: 2, info: { name: "ed", version: "1" }, capabilities: {} });
  const s = await peer.ctx.request("session/new", { cwd: process.cwd() });
  await peer.ctx.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: TURN }] });
  await peer.waitForUpdate((u) => (u.update as { state?: string }).state === "idle");
  await peer.close();
  checkWire(2, peer.wire);
  return { client: peer.wire, agent: readWireLog(wireLog) };
}

/** A stash, key-order record or marker (`"acp-bridge…":` keys), or a bridge channel message. */
const BRIDGE_DATA = /"acp-bridge(\/[^"]*)?":|"_acp-bridge\//;

/** What the bridge wrote to a peer (`in` on that peer's wire) carrying bridge data, the initialize request aside. */
function bridgeData(wire: readonly WireEntry[]): string[] {
  return wire
    .filter((e) => e.dir === "in" && (e.msg as { method?: unknown }).method !== "initialize")
    .map((e) => JSON.stringify(e.msg))
    .filter((t) => BRIDGE_DATA.test(t));
}

describe("the stash goes only to bridges (built CLI, plain SDK peers)", () => {
  it(
    "v1 client, v2 agent: no bridge data to either peer at default settings; --stash compact forces it",
    async () => {
      const plain = await turnA([]);
      expect(bridgeData(plain.client)).toEqual([]);
      expect(bridgeData(plain.agent)).toEqual([]);
      // The updates were there (a diff among them), only the stash is not.
      const texts = plain.client.map((e) => JSON.stringify(e.msg));
      expect(texts.some((t) => t.includes('"diff"') || t.includes("```diff"))).toBe(true);
      const forced = await turnA(["--stash", "compact"]);
      expect(bridgeData(forced.client).length).toBeGreaterThan(0);
    },
    TIMEOUT,
  );

  it(
    "v2 client, v1 agent: no bridge data to either peer at default settings; --stash compact forces it",
    async () => {
      const plain = await turnB([]);
      expect(bridgeData(plain.client)).toEqual([]);
      expect(bridgeData(plain.agent)).toEqual([]);
      const forced = await turnB(["--stash", "compact"]);
      expect(bridgeData(forced.client).length).toBeGreaterThan(0);
    },
    TIMEOUT,
  );
});
