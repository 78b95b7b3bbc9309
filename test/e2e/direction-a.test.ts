// End to end, direction A: the BUILT CLI between a real v1 SDK client and the bundled v2-only SDK
// agent, over real pipes. Every message on both wires is schema-checked (issue 3, item 8).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkWire, readWireLog, spawnWithClient, type SpawnedClient } from "../support/peers.js";

const BRIDGE = ["bin/acp-bridge.js", "--log-level", "error", "--"];
const AGENT_V2 = [process.execPath, "dist/src/demo/agent-v2.js"];
const AGENT_V1 = [process.execPath, "dist/src/demo/agent-v1.js"];
const TIMEOUT = 60_000;

let dir: string;
const peers: SpawnedClient<1 | 2>[] = [];

function spawnBridge<V extends 1 | 2>(version: V, agent: string[], env: Record<string, string> = {}) {
  dir = mkdtempSync(join(tmpdir(), "acp-bridge-e2e-"));
  const wireLog = join(dir, "agent-wire.jsonl");
  const opts = { env: { ACP_WIRE_LOG: wireLog, ACP_DEMO_CHUNK_MS: "0", ...env } };
  const args = [...BRIDGE, ...agent];
  const peer = (
    version === 1 ? spawnWithClient(1, process.execPath, args, opts) : spawnWithClient(2, process.execPath, args, opts)
  ) as SpawnedClient<V>;
  peers.push(peer);
  return { peer, wireLog };
}

/**
 * Both wires valid: the client's (its version) and the agent's (the agent's version). The agent's
 * wire opens with the handshake probe in the client's version when the agent rejected it (H §1.4).
 */
function checkBothWires(peer: SpawnedClient<1 | 2>, clientVersion: 1 | 2, wireLog: string, agentVersion: 1 | 2): void {
  checkWire(clientVersion, peer.wire);
  const agentWire = readWireLog(wireLog);
  const first = agentWire[0]?.msg as { method?: string; params?: { protocolVersion?: number } } | undefined;
  const probe = first?.method === "initialize" && first.params?.protocolVersion !== agentVersion ? 2 : 0;
  checkWire(agentVersion, agentWire.slice(probe), { side: "agent" });
}

afterEach(async () => {
  for (const p of peers.splice(0)) {
    p.kill("SIGKILL");
    await p.exit;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const init1 = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
} as const;

async function sessionA(env: Record<string, string> = {}) {
  const { peer, wireLog } = spawnBridge(1, AGENT_V2, env);
  const ctx = peer.ctx;
  const init = await ctx.request("initialize", init1);
  expect((init as { protocolVersion: number }).protocolVersion).toBe(1);
  const s = await ctx.request("session/new", { cwd: process.cwd(), mcpServers: [] });
  return { peer: peer, ctx, wireLog, sessionId: s.sessionId, newResult: s };
}

describe("direction A end to end (v1 SDK client, bridge, v2-only SDK agent)", () => {
  it(
    "the v2-only agent rejects a v1 client spoken to directly with -32022 (the reason for the bridge)",
    async () => {
      const peer = spawnWithClient(1, process.execPath, AGENT_V2.slice(1));
      peers.push(peer);
      await expect(peer.ctx.request("initialize", init1)).rejects.toMatchObject({ code: -32022 });
    },
    TIMEOUT,
  );

  it(
    "completes a turn with chunks, a plan and a tool call whose permission is allowed",
    async () => {
      const { peer, ctx, wireLog, sessionId, newResult } = await sessionA();
      expect(newResult.modes?.availableModes.length).toBeGreaterThan(0);
      const r = await ctx.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "[chunks][plan][tool] go" }],
      });
      expect(r.stopReason).toBe("end_turn");
      const kinds = peer.updates.map((u) => u.update.sessionUpdate);
      expect(kinds).toContain("agent_message_chunk");
      expect(kinds).toContain("plan");
      expect(kinds).toContain("tool_call");
      expect(peer.permissionRequests).toHaveLength(1);
      const last = peer.updates.filter((u) => u.update.sessionUpdate === "tool_call_update").pop();
      expect(last?.update).toMatchObject({ status: "completed" });
      await peer.close();
      checkBothWires(peer, 1, wireLog, 2);
    },
    TIMEOUT,
  );

  it(
    "ends the tool call failed when the permission is rejected",
    async () => {
      const { peer, ctx, wireLog, sessionId } = await sessionA();
      peer.setPermissionHandler((p) => ({
        outcome: { outcome: "selected", optionId: p.options.find((o) => o.kind.startsWith("reject"))!.optionId },
      }));
      const r = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "[tool] go" }] });
      expect(r.stopReason).toBe("end_turn");
      const last = peer.updates.filter((u) => u.update.sessionUpdate === "tool_call_update").pop();
      expect(last?.update).toMatchObject({ status: "failed" });
      await peer.close();
      checkBothWires(peer, 1, wireLog, 2);
    },
    TIMEOUT,
  );

  it(
    "cancels a turn while a permission request is pending: the prompt ends cancelled",
    async () => {
      const { peer, ctx, wireLog, sessionId } = await sessionA();
      let asked!: () => void;
      const permissionAsked = new Promise<void>((r) => (asked = r));
      peer.setPermissionHandler(
        (_p, signal) =>
          new Promise((resolve) => {
            asked();
            // A v1 client answers its own pending permission requests `cancelled` on cancel.
            signal.addEventListener("abort", () => resolve({ outcome: { outcome: "cancelled" } }));
            setTimeout(() => resolve({ outcome: { outcome: "cancelled" } }), 500);
          }),
      );
      const turn = ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "[tool] go" }] });
      await permissionAsked;
      await ctx.notify("session/cancel", { sessionId });
      expect((await turn).stopReason).toBe("cancelled");
      await peer.close();
      checkBothWires(peer, 1, wireLog, 2);
    },
    TIMEOUT,
  );

  it(
    "loads a session: the history is replayed as v1 chunks before the response",
    async () => {
      const { peer, ctx, wireLog, sessionId } = await sessionA();
      await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "[chunks] remember this" }] });
      const before = peer.updates.length;
      const loaded = await ctx.request("session/load", { sessionId, cwd: process.cwd(), mcpServers: [] });
      expect(loaded.modes).toBeDefined();
      const replayed = peer.updates.slice(before).map((u) => u.update.sessionUpdate);
      expect(replayed).toContain("user_message_chunk");
      expect(replayed).toContain("agent_message_chunk");
      await peer.close();
      checkBothWires(peer, 1, wireLog, 2);
    },
    TIMEOUT,
  );

  it(
    "switches modes with session/set_mode",
    async () => {
      const { peer, ctx, wireLog, sessionId, newResult } = await sessionA();
      const other = newResult.modes!.availableModes.find((m) => m.id !== newResult.modes!.currentModeId)!;
      await ctx.request("session/set_mode", { sessionId, modeId: other.id });
      await expect(ctx.request("session/set_mode", { sessionId, modeId: "no-such-mode" })).rejects.toMatchObject({
        code: -32602,
      });
      await peer.close();
      checkBothWires(peer, 1, wireLog, 2);
    },
    TIMEOUT,
  );

  it(
    "lists and closes sessions",
    async () => {
      const { peer, ctx, wireLog, sessionId } = await sessionA();
      const list = await ctx.request("session/list", {});
      expect(list.sessions.map((s) => s.sessionId)).toContain(sessionId);
      await ctx.request("session/close", { sessionId });
      await peer.close();
      checkBothWires(peer, 1, wireLog, 2);
    },
    TIMEOUT,
  );

  it(
    "fails the pending prompt with -32603 when the agent crashes, and exits with the agent's code",
    async () => {
      const { peer, ctx, sessionId } = await sessionA();
      await expect(
        ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "[crash]" }] }),
      ).rejects.toMatchObject({
        code: -32603,
      });
      expect((await peer.exit).code).toBe(3);
    },
    TIMEOUT,
  );

  it(
    "terminates the agent and exits 0 when the client closes its end",
    async () => {
      const { peer } = await sessionA();
      expect((await peer.close()).code).toBe(0);
    },
    TIMEOUT,
  );
});

describe("pass-through end to end", () => {
  it(
    "relays a v2 client and a v2 agent untranslated",
    async () => {
      const { peer, wireLog } = spawnBridge(2, AGENT_V2);
      const ctx = peer.ctx;
      await ctx.request("initialize", { protocolVersion: 2, info: { name: "t", version: "1" }, capabilities: {} });
      const s = await ctx.request("session/new", { cwd: process.cwd() });
      await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "[chunks]" }] });
      await peer.waitForUpdate((u) => {
        const up = u.update as { sessionUpdate: string; state?: string };
        return up.sessionUpdate === "state_update" && up.state === "idle";
      });
      await peer.close();
      checkBothWires(peer, 2, wireLog, 2);
    },
    TIMEOUT,
  );

  it(
    "relays a v1 client and a v1 agent untranslated",
    async () => {
      const { peer, wireLog } = spawnBridge(1, AGENT_V1);
      const ctx = peer.ctx;
      await ctx.request("initialize", init1);
      const s = await ctx.request("session/new", { cwd: process.cwd(), mcpServers: [] });
      const r = await ctx.request("session/prompt", {
        sessionId: s.sessionId,
        prompt: [{ type: "text", text: "[chunks][tool]" }],
      });
      expect(r.stopReason).toBe("end_turn");
      await peer.close();
      checkBothWires(peer, 1, wireLog, 1);
    },
    TIMEOUT,
  );

  it(
    "shows the agent's terminal with the `_meta` convention to a client that renders it, as text with codex-acp's keys otherwise",
    async () => {
      const updatesOf = (peer: SpawnedClient<1 | 2>) =>
        peer.wire
          .filter((e) => e.dir === "in")
          .map((e) => e.msg as { method?: string; params?: { update?: Record<string, unknown> } })
          .filter((m) => m.method === "session/update")
          .map((m) => m.params?.update ?? {});
      for (const renders of [true, false]) {
        const { peer, wireLog } = spawnBridge(1, AGENT_V2);
        const ctx = peer.ctx;
        const caps = renders
          ? { ...init1.clientCapabilities, _meta: { terminal_output: true } }
          : init1.clientCapabilities;
        await ctx.request("initialize", { ...init1, clientCapabilities: caps });
        const s = await ctx.request("session/new", { cwd: process.cwd(), mcpServers: [] });
        const r = await ctx.request("session/prompt", {
          sessionId: s.sessionId,
          prompt: [{ type: "text", text: "[term] go" }],
        });
        expect(r.stopReason).toBe("end_turn");
        await peer.close();
        const updates = updatesOf(peer);
        const metas = updates.map((u) => u._meta as Record<string, unknown> | undefined);
        if (renders) {
          const shown = updates.find((u) => u.sessionUpdate === "tool_call" && u.content !== undefined);
          const id = String(shown?.toolCallId);
          expect(shown).toMatchObject({
            content: [{ type: "terminal", terminalId: id }],
            // The agent announces the terminal before its cwd: Zed learns the cwd from terminal_info only.
            _meta: { terminal_info: { terminal_id: id } },
          });
          expect(metas).toContainEqual({ terminal_output: { terminal_id: id, data: "README.md\nsrc\n" } });
          expect(metas).toContainEqual({ terminal_exit: { terminal_id: id, exit_code: 0, signal: null } });
        } else {
          // The transcript, and the keys codex-acp's v1 build sends a client that did not opt in.
          expect(JSON.stringify(updates)).toContain("$ ls\\nREADME.md\\nsrc\\n");
          expect(JSON.stringify(updates)).not.toContain('"type":"terminal"');
          // The demo agent adds the terminal to a tool call it announced: named on that update, never a second tool_call.
          const shown = updates.find((u) => u.content !== undefined && u._meta !== undefined);
          const id = String(shown?.toolCallId);
          expect(shown).toMatchObject({
            sessionUpdate: "tool_call_update",
            _meta: { terminal_info: { terminal_id: id } },
          });
          expect(updates.filter((u) => u.sessionUpdate === "tool_call" && u.toolCallId === id)).toHaveLength(1);
          expect(metas).toContainEqual({ terminal_output_delta: { terminal_id: id, data: "README.md\nsrc\n" } });
          expect(metas).toContainEqual({ terminal_exit: { terminal_id: id, exit_code: 0, signal: null } });
          expect(JSON.stringify(updates)).not.toContain('"terminal_output"');
        }
        checkBothWires(peer, 1, wireLog, 2);
      }
    },
    TIMEOUT,
  );
});
