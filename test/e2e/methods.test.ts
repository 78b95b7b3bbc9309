// End to end: the BUILT CLI between real SDK clients and the bundled SDK agents, for methods only
// the unstable schemas define and for the ones a version lacks (issue 7 §4). A forwarded method
// reaches the agent unchanged (the agent's own answer comes back); a refused one never reaches it
// and is answered -32601 by the bridge, naming the missing counterpart. Both wires are checked
// against the unstable schemas.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkWire, readWireLog, spawnWithClient, type SpawnedClient } from "../support/peers.js";

const BRIDGE = ["bin/acp-bridge.js", "--log-level", "error", "--"];
const AGENT_V1 = [process.execPath, "dist/src/demo/agent-v1.js"];
const AGENT_V2 = [process.execPath, "dist/src/demo/agent-v2.js"];
const TIMEOUT = 60_000;

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

function agentRequests(wireLog: string, method: string): unknown[] {
  return readWireLog(wireLog)
    .filter((e) => e.dir === "in" && (e.msg as { method?: unknown }).method === method)
    .map((e) => (e.msg as { params?: unknown }).params);
}

/** Both wires, against the unstable schemas; the agent's wire after the probe it rejected (H §1.4). */
function checkBothWires(
  peer: SpawnedClient<1 | 2>,
  clientVersion: 1 | 2,
  wireLog: string,
  opts: { allowUnknownMethods?: boolean } = {},
): void {
  checkWire(clientVersion === 1 ? "v1u" : "v2u", peer.wire, opts);
  const agentWire = readWireLog(wireLog);
  const agentVersion = clientVersion === 1 ? 2 : 1;
  const first = agentWire[0]?.msg as { method?: string; params?: { protocolVersion?: number } } | undefined;
  const probe = first?.method === "initialize" && first.params?.protocolVersion !== agentVersion ? 2 : 0;
  checkWire(agentVersion === 1 ? "v1u" : "v2u", agentWire.slice(probe), { ...opts, side: "agent" });
}

describe("every schema method through the built CLI", () => {
  it(
    "B: forwards session/set_title to the v1 agent and refuses tool_call/cancel itself",
    async () => {
      dir = mkdtempSync(join(tmpdir(), "acp-bridge-e2e-methods-"));
      const wireLog = join(dir, "agent-wire.jsonl");
      const peer = spawnWithClient(2, process.execPath, [...BRIDGE, ...AGENT_V1], {
        env: { ACP_WIRE_LOG: wireLog, ACP_DEMO_CHUNK_MS: "0" },
      });
      peers.push(peer);
      await peer.ctx.request("initialize", {
        protocolVersion: 2,
        info: { name: "v2-editor", version: "1" },
        capabilities: {},
      });
      const { sessionId } = await peer.ctx.request("session/new", { cwd: process.cwd() });
      const title = { sessionId, title: "Fix the build" };
      // The demo agent implements no set_title: its own -32601 comes back, proving it got the request.
      await expect(peer.ctx.request("session/set_title" as never, title as never)).rejects.toMatchObject({
        code: -32601,
      });
      expect(agentRequests(wireLog, "session/set_title")).toEqual([title]);
      await expect(
        peer.ctx.request("tool_call/cancel" as never, { sessionId, toolCallId: "t1" } as never),
      ).rejects.toMatchObject({
        code: -32601,
        data: {
          method: "tool_call/cancel",
          reason: expect.stringMatching(/^the v1 agent has no counterpart for tool_call\/cancel/),
        },
      });
      expect(agentRequests(wireLog, "tool_call/cancel")).toEqual([]);
      checkBothWires(peer, 2, wireLog);
    },
    TIMEOUT,
  );

  it(
    "A: forwards session/archive to the v2 agent and refuses proxy/initialize itself",
    async () => {
      dir = mkdtempSync(join(tmpdir(), "acp-bridge-e2e-methods-"));
      const wireLog = join(dir, "agent-wire.jsonl");
      const peer = spawnWithClient(1, process.execPath, [...BRIDGE, ...AGENT_V2], {
        env: { ACP_WIRE_LOG: wireLog, ACP_DEMO_CHUNK_MS: "0" },
      });
      peers.push(peer);
      await peer.ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = await peer.ctx.request("session/new", { cwd: process.cwd(), mcpServers: [] });
      await expect(peer.ctx.request("session/archive" as never, { sessionId } as never)).rejects.toMatchObject({
        code: -32601,
      });
      expect(agentRequests(wireLog, "session/archive")).toEqual([{ sessionId }]);
      await expect(
        peer.ctx.request("proxy/initialize" as never, { protocolVersion: 1 } as never),
      ).rejects.toMatchObject({
        code: -32601,
        data: { method: "proxy/initialize", reason: expect.stringMatching(/proxy-chain/) },
      });
      expect(agentRequests(wireLog, "proxy/initialize")).toEqual([]);
      checkBothWires(peer, 1, wireLog);
    },
    TIMEOUT,
  );

  it(
    "A: forwards a method no schema defines, without the `_` prefix, to the v2 agent, whose answer comes back",
    async () => {
      dir = mkdtempSync(join(tmpdir(), "acp-bridge-e2e-methods-"));
      const wireLog = join(dir, "agent-wire.jsonl");
      const peer = spawnWithClient(1, process.execPath, [...BRIDGE, ...AGENT_V2], {
        env: { ACP_WIRE_LOG: wireLog, ACP_DEMO_CHUNK_MS: "0" },
      });
      peers.push(peer);
      await peer.ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      const params = { items: [1, "two"], _meta: { trace: "t" } };
      // The SDK agent implements no such method: its own -32601 (no bridge `data`) proves it got it.
      const refused: unknown = await peer.ctx
        .request("vendor/frobnicate" as never, params as never)
        .catch((e: unknown) => e);
      expect(refused).toMatchObject({ code: -32601 });
      expect((refused as { data?: { reason?: unknown } }).data?.reason).toBeUndefined();
      expect(agentRequests(wireLog, "vendor/frobnicate")).toEqual([params]);
      await peer.ctx.notify("vendor/progress" as never, { done: 3 } as never);
      // A notification has no answer to wait for: its arrival is polled (up to 10 s on a loaded machine).
      await expect.poll(() => agentRequests(wireLog, "vendor/progress"), { timeout: 10_000 }).toEqual([{ done: 3 }]);
      // Every schema method checked; these two are in none.
      checkBothWires(peer, 1, wireLog, { allowUnknownMethods: true });
    },
    TIMEOUT,
  );
});
