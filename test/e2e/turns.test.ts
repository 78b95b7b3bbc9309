// Turn-lifecycle faults end to end (issue 19), with the BUILT CLI between a raw line client and a
// scripted agent (test/fixtures/turn-agent.ts): every request gets exactly one answer when the
// agent's answer to a prompt is over the size limit, and when a reload supersedes a running turn.
// Both wires are schema-checked: what the bridge wrote to the client and what the agent read.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkWire, readWireLog, spawnRaw, tsxArgs, type RawPeer, type WireEntry } from "../support/peers.js";

const TIMEOUT = 30_000;
const LIMIT = 65_536;
const text = (t: string) => ({ type: "text", text: t });

let dir = "";
const peers: RawPeer[] = [];

afterEach(async () => {
  for (const p of peers.splice(0)) {
    p.kill("SIGKILL");
    await p.exit;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = "";
});

interface Run {
  readonly peer: RawPeer;
  /** Send a request of the client and record it; resolves with its answer. */
  request(method: string, params: unknown): Promise<any>;
  /** Send a notification of the client and record it. */
  notify(method: string, params: unknown): void;
  /** Both wires valid, in each side's version. */
  check(): void;
}

/** The bridge between a raw client of `client` and the turn agent of `agent` in `mode`. */
function run(client: 1 | 2, agent: 1 | 2, mode: "oversize" | "reload"): Run {
  dir = mkdtempSync(join(tmpdir(), "acp-bridge-turns-"));
  const wireLog = join(dir, "agent-wire.jsonl");
  const peer = spawnRaw(process.execPath, [
    "bin/acp-bridge.js",
    "--log-level",
    "error",
    "--client-protocol",
    String(client),
    "--agent-protocol",
    String(agent),
    "--max-message-bytes",
    String(LIMIT),
    "--",
    process.execPath,
    ...tsxArgs("test/fixtures/turn-agent.ts"),
    String(agent),
    mode,
    wireLog,
  ]);
  peers.push(peer);
  const sent: WireEntry[] = [];
  let nextId = 1;
  return {
    peer,
    request(method, params) {
      const msg = { jsonrpc: "2.0", id: nextId++, method, params };
      sent.push({ dir: "out", msg });
      peer.send(msg);
      return peer.waitFor((m) => m.id === msg.id && !("method" in m));
    },
    notify(method, params) {
      const msg = { jsonrpc: "2.0", method, params };
      sent.push({ dir: "out", msg });
      peer.send(msg);
    },
    check() {
      // The client's own messages first, so each answer finds the request it answers.
      const received = peer.lines.map((l): WireEntry => ({ dir: "in", msg: JSON.parse(l) as unknown }));
      checkWire(client, [...sent, ...received]);
      checkWire(agent, readWireLog(wireLog), { side: "agent" });
    },
  };
}

async function open(r: Run, version: 1 | 2): Promise<void> {
  const init =
    version === 1
      ? { protocolVersion: 1, clientCapabilities: {} }
      : { protocolVersion: 2, info: { name: "raw", version: "1" }, capabilities: {} };
  expect((await r.request("initialize", init)).result).toBeDefined();
  const params = version === 1 ? { cwd: process.cwd(), mcpServers: [] } : { cwd: process.cwd() };
  expect((await r.request("session/new", params)).result).toEqual({ sessionId: "s1" });
}

const prompt = { sessionId: "s1", prompt: [text("hi")] };
const tooLarge = { code: -32603, data: { reason: "message_too_large" } };

describe("an answer to a prompt over the size limit (built CLI)", () => {
  it(
    "answers the v1 client's prompt with -32603 when the v2 agent's ack is too large, and the next prompt ends normally",
    async () => {
      const r = run(1, 2, "oversize");
      await open(r, 1);
      expect((await r.request("session/prompt", prompt)).error).toMatchObject(tooLarge);
      expect((await r.request("session/prompt", prompt)).result).toEqual({ stopReason: "end_turn" });
      r.check();
    },
    TIMEOUT,
  );

  it(
    "ends the v2 client's acked turn with an error idle when the v1 agent's answer is too large",
    async () => {
      const r = run(2, 1, "oversize");
      await open(r, 2);
      expect((await r.request("session/prompt", prompt)).result).toMatchObject({ messageId: expect.any(String) });
      const idle = await r.peer.waitFor((m) => m.params?.update?.state === "idle");
      expect(idle.params.update).toMatchObject({ stopReason: "error", error: tooLarge });
      const next = await r.request("session/prompt", prompt);
      expect(next.result).toMatchObject({ messageId: expect.any(String) });
      await r.peer.waitFor((m) => m.params?.update?.stopReason === "end_turn");
      r.check();
    },
    TIMEOUT,
  );

  it.each([1, 2] as const)(
    "settles the prompt with -32603 in v%i pass-through",
    async (version) => {
      const r = run(version, version, "oversize");
      await open(r, version);
      expect((await r.request("session/prompt", prompt)).error).toMatchObject(tooLarge);
      r.check();
    },
    TIMEOUT,
  );
});

describe("a reload while a turn runs (built CLI)", () => {
  it.each(["session/load", "session/resume"])(
    "answers the v1 client's prompt cancelled after a %s and a cancel during the turn",
    async (method) => {
      const r = run(1, 2, "reload");
      await open(r, 1);
      const answer = r.request("session/prompt", prompt);
      const reload = r.request(method, { sessionId: "s1", cwd: process.cwd(), mcpServers: [] });
      r.notify("session/cancel", { sessionId: "s1" });
      expect((await answer).result).toEqual({ stopReason: "cancelled" });
      expect((await reload).result).toBeDefined();
      r.check();
    },
    TIMEOUT,
  );

  it.each([{ replayFrom: { type: "start" } }, {}])(
    "ends the v2 client's turn cancelled after a resume %j and a cancel during the turn",
    async (replay) => {
      const r = run(2, 1, "reload");
      await open(r, 2);
      expect((await r.request("session/prompt", prompt)).result).toMatchObject({ messageId: expect.any(String) });
      const reload = r.request("session/resume", { sessionId: "s1", cwd: process.cwd(), ...replay });
      r.notify("session/cancel", { sessionId: "s1" });
      expect((await reload).result).toBeDefined();
      const idle = await r.peer.waitFor((m) => m.params?.update?.stopReason === "cancelled");
      expect(idle.params.update).toEqual({ sessionUpdate: "state_update", state: "idle", stopReason: "cancelled" });
      r.check();
    },
    TIMEOUT,
  );
});
