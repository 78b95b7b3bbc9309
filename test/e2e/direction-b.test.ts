// End to end, direction B: the BUILT CLI between a real v2 SDK client and the bundled v1 SDK
// agent, over real pipes. Every message on both wires is schema-checked (issue 4 acceptance).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkWire, readWireLog, spawnWithClient, type SpawnedClient } from "../support/peers.js";

const BRIDGE = ["bin/acp-bridge.js", "--log-level", "error", "--"];
const AGENT_V1 = [process.execPath, "dist/src/demo/agent-v1.js"];
const TIMEOUT = 60_000;

let dir: string | undefined;
const peers: SpawnedClient<2>[] = [];

afterEach(async () => {
  for (const p of peers.splice(0)) {
    p.kill("SIGKILL");
    await p.exit;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

type Update = { sessionUpdate: string; state?: string; stopReason?: string; [k: string]: unknown };

async function connect(env: Record<string, string> = {}) {
  dir = mkdtempSync(join(tmpdir(), "acp-bridge-e2e-b-"));
  const wireLog = join(dir, "agent-wire.jsonl");
  const peer = spawnWithClient(2, process.execPath, [...BRIDGE, ...AGENT_V1], {
    env: { ACP_WIRE_LOG: wireLog, ACP_DEMO_CHUNK_MS: "0", ...env },
  });
  peers.push(peer);
  const init = await peer.ctx.request("initialize", {
    protocolVersion: 2,
    info: { name: "v2-editor", version: "1" },
    capabilities: {},
  });
  expect(init.protocolVersion).toBe(2);
  const s = await peer.ctx.request("session/new", { cwd: process.cwd() });
  return { peer, wireLog, sessionId: s.sessionId, created: s };
}

/** A v2 turn: the prompt is acked at once; the turn ends with an idle state_update. */
async function turn(peer: SpawnedClient<2>, sessionId: string, text: string): Promise<Update> {
  const from = peer.updates.length;
  const ack = await peer.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
  expect(typeof ack.messageId).toBe("string");
  const idle = await peer.waitForUpdate(
    (u) => {
      const up = u.update as Update;
      return up.sessionUpdate === "state_update" && up.state === "idle";
    },
    { from },
  );
  return idle.update as Update;
}

function checkBothWires(peer: SpawnedClient<2>, wireLog: string): void {
  checkWire(2, peer.wire);
  // The agent's wire opens with the v2-shaped probe the v1 agent answered with 1 (H §1.4).
  const agentWire = readWireLog(wireLog);
  const first = agentWire[0]?.msg as { method?: string; params?: { protocolVersion?: number } } | undefined;
  const probe = first?.method === "initialize" && first.params?.protocolVersion === 2 ? 2 : 0;
  checkWire(1, agentWire.slice(probe), { side: "agent" });
}

describe("direction B end to end (v2 SDK client, bridge, v1 SDK agent)", () => {
  it(
    "runs a turn whose permission is allowed, then one whose permission is rejected",
    async () => {
      const { peer, wireLog, sessionId } = await connect();
      const done = await turn(peer, sessionId, "[chunks][tool] go");
      expect(done.stopReason).toBe("end_turn");
      const states = peer.updates
        .map((u) => u.update as Update)
        .filter((u) => u.sessionUpdate === "state_update")
        .map((u) => u.state);
      expect(states).toEqual(["running", "requires_action", "running", "idle"]);
      expect(peer.permissionRequests[0]).toMatchObject({ subject: { type: "tool_call" } });
      peer.setPermissionHandler((p) => ({
        outcome: { outcome: "selected", optionId: p.options.find((o) => o.kind.startsWith("reject"))!.optionId },
      }));
      const from = peer.updates.length;
      expect((await turn(peer, sessionId, "[tool] again")).stopReason).toBe("end_turn");
      const tools = peer.updates
        .slice(from)
        .map((u) => u.update as Update)
        .filter((u) => u.sessionUpdate === "tool_call_update");
      expect(tools.pop()).toMatchObject({ status: "failed" });
      await peer.close();
      checkBothWires(peer, wireLog);
    },
    TIMEOUT,
  );

  it(
    "cancels with a permission pending and a prompt queued: the queued prompt gets -32800, the turn ends cancelled",
    async () => {
      const { peer, wireLog, sessionId } = await connect();
      let asked!: () => void;
      const permissionAsked = new Promise<void>((r) => (asked = r));
      peer.setPermissionHandler(
        (_p, signal) =>
          new Promise((resolve) => {
            asked();
            signal.addEventListener("abort", () => resolve({ outcome: { outcome: "cancelled" } }));
          }),
      );
      const from = peer.updates.length;
      await peer.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "[tool] first" }] });
      await permissionAsked;
      const queued = peer.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "second" }] });
      await new Promise((r) => setTimeout(r, 100));
      await peer.ctx.notify("session/cancel", { sessionId });
      await expect(queued).rejects.toMatchObject({ code: -32800 });
      const idle = await peer.waitForUpdate((u) => (u.update as Update).state === "idle", { from });
      expect((idle.update as Update).stopReason).toBe("cancelled");
      await peer.close();
      checkBothWires(peer, wireLog);
    },
    TIMEOUT,
  );

  it(
    "resumes with replay (through session/load) and without (history suppressed)",
    async () => {
      const { peer, wireLog, sessionId } = await connect();
      await turn(peer, sessionId, "[chunks] remember");
      const from = peer.updates.length;
      const wireFrom = peer.wire.length;
      await peer.ctx.request("session/resume", { sessionId, cwd: process.cwd(), replayFrom: { type: "start" } });
      const replayed = peer.updates.slice(from).map((u) => (u.update as Update).sessionUpdate);
      expect(replayed).toContain("agent_message_chunk");
      // On the wire, the state snapshot is the last update before the resume response.
      const inbound = peer.wire
        .slice(wireFrom)
        .filter((e) => e.dir === "in")
        .map((e) => e.msg as { method?: string; params?: { update: Update } });
      const answerAt = inbound.findIndex((m) => m.method === undefined);
      expect(inbound[answerAt - 1]?.params?.update).toEqual({ sessionUpdate: "state_update", state: "idle" });
      const quietFrom = peer.wire.length;
      await peer.ctx.request("session/resume", { sessionId, cwd: process.cwd() });
      const quiet = peer.wire
        .slice(quietFrom)
        .filter((e) => e.dir === "in")
        .map((e) => (e.msg as { params?: { update?: Update } }).params?.update?.sessionUpdate ?? "response");
      expect(quiet).not.toContain("agent_message_chunk");
      expect(quiet[quiet.indexOf("response") - 1]).toBe("state_update");
      await peer.close();
      checkBothWires(peer, wireLog);
    },
    TIMEOUT,
  );

  it(
    "lists and closes sessions for a v1 agent that has neither, by emulation",
    async () => {
      const { peer, wireLog, sessionId } = await connect();
      const list = await peer.ctx.request("session/list", {});
      expect(list.sessions.map((s) => s.sessionId)).toEqual([sessionId]);
      await peer.ctx.request("session/close", { sessionId });
      expect((await peer.ctx.request("session/list", {})).sessions).toEqual([]);
      await peer.close();
      checkBothWires(peer, wireLog);
    },
    TIMEOUT,
  );

  it(
    "switches modes through set_config_option on the synthetic mode option",
    async () => {
      const { peer, wireLog, sessionId, created } = await connect();
      const mode = created.configOptions?.find((o) => o.category === "mode");
      expect(mode).toMatchObject({ configId: "mode", type: "select" });
      const values = (mode as { options: { value: string }[] }).options.map((o) => o.value);
      const target = values.find((v) => v !== (mode as { currentValue: string }).currentValue)!;
      const r = await peer.ctx.request("session/set_config_option", {
        sessionId,
        configId: "mode",
        type: "id",
        value: target,
      });
      expect(r.configOptions.find((o) => o.configId === "mode")).toMatchObject({ currentValue: target });
      await peer.close();
      checkBothWires(peer, wireLog);
    },
    TIMEOUT,
  );

  it(
    "answers the v1 agent's fs/read_text_file with -32601 and the turn still ends end_turn",
    async () => {
      const { peer, wireLog, sessionId } = await connect();
      expect((await turn(peer, sessionId, "[fs] read it")).stopReason).toBe("end_turn");
      const refusal = readWireLog(wireLog).find((e) => {
        const m = e.msg as { error?: { code: number; data?: { method?: string } } };
        return e.dir === "in" && m.error?.code === -32601 && m.error.data?.method === "fs/read_text_file";
      });
      expect(refusal).toBeDefined();
      await peer.close();
      checkBothWires(peer, wireLog);
    },
    TIMEOUT,
  );

  it(
    "turns the v1 agent's `_meta` terminal convention (sent unasked) into v2 terminal updates",
    async () => {
      const { peer, wireLog, sessionId } = await connect();
      const done = await turn(peer, sessionId, "[term] go");
      expect(done.stopReason).toBe("end_turn");
      await peer.close();
      const updates = peer.wire
        .filter((e) => e.dir === "in")
        .map((e) => e.msg as { method?: string; params?: { update?: Record<string, unknown> } })
        .filter((m) => m.method === "session/update")
        .map((m) => m.params?.update ?? {});
      const id = updates.find((u) => u.sessionUpdate === "terminal_update")?.terminalId;
      const own = updates.filter((u) => u.terminalId === id || u.toolCallId === id);
      expect(own.map((u) => u.sessionUpdate)).toEqual([
        "terminal_update",
        "tool_call_update",
        "terminal_output_chunk",
        "tool_call_update",
        "terminal_update",
        "tool_call_update",
      ]);
      expect(own[0]).toEqual({ sessionUpdate: "terminal_update", terminalId: id, command: "ls", cwd: process.cwd() });
      expect(own[1]).toMatchObject({ content: [{ type: "terminal", terminalId: id }] });
      expect(Buffer.from(String(own[2]?.data), "base64").toString()).toBe("README.md\nsrc\n");
      expect(own[4]).toEqual({ sessionUpdate: "terminal_update", terminalId: id, exitStatus: { exitCode: 0 } });
      expect(JSON.stringify(own)).not.toContain("terminal_info");
      checkBothWires(peer, wireLog);
    },
    TIMEOUT,
  );
});
