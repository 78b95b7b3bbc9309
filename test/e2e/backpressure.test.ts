// Backlog under a slow peer, end to end with the BUILT CLI (issue 10 item 5, issue 9 item 3): the
// bridge stops reading one side while the other side's pipe is full, so a slow reader slows the
// writer and the bridge holds no more than a few pipe buffers, in both directions. Counted in
// bytes handed over, never timed.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { spawnRaw, tsxArgs, type RawPeer } from "../support/peers.js";

const TIMEOUT = 90_000;
/** What the pipes and the bridge may hold between the two peers: a few 64 KiB pipe buffers, with room. */
const FEW_PIPE_BUFFERS = 8 * 1024 * 1024;

let dir = "";
const peers: RawPeer[] = [];
afterEach(() => {
  for (const p of peers.splice(0)) p.kill("SIGKILL");
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function bridge(chunks: number, nodeOptions: string[] = []): { peer: RawPeer; progress: string } {
  dir = mkdtempSync(join(tmpdir(), "acp-bridge-backpressure-"));
  const progress = join(dir, "progress");
  const agent = [process.execPath, ...tsxArgs("test/fixtures/flood-agent.ts"), progress, String(chunks)];
  const peer = spawnRaw(process.execPath, [
    ...nodeOptions,
    "bin/acp-bridge.js",
    "--log-level",
    "error",
    "--",
    ...agent,
  ]);
  peers.push(peer);
  return { peer, progress };
}

/** Polls `read` until it returns the same value twice, `quietMs` apart. */
async function settled(read: () => number, quietMs = 700): Promise<number> {
  let last = -1;
  for (;;) {
    const now = read();
    if (now === last) return now;
    last = now;
    await new Promise((r) => setTimeout(r, quietMs));
  }
}

async function session(peer: RawPeer): Promise<void> {
  await peer.request("initialize", { protocolVersion: 1, clientCapabilities: {} }, 30_000);
  expect(await peer.request("session/new", { cwd: process.cwd(), mcpServers: [] }, 30_000)).toMatchObject({
    result: { sessionId: "s1" },
  });
}

describe("backpressure (built CLI)", () => {
  it(
    "a client that stops reading stops the agent: the bridge holds a few pipe buffers, and nothing is lost",
    async () => {
      const chunks = 50_000; // ~32 MB, under one messageId
      const { peer, progress } = bridge(chunks);
      await session(peer);
      peer.child.stdout?.pause();
      const answer = peer.request(
        "session/prompt",
        { sessionId: "s1", prompt: [{ type: "text", text: "go" }] },
        60_000,
      );
      await expect.poll(() => existsSync(progress), { timeout: 30_000 }).toBe(true);
      const handedOver = await settled(() => Number(readFileSync(progress, "utf8")));
      expect(handedOver).toBeLessThan(FEW_PIPE_BUFFERS);
      peer.child.stdout?.resume();
      expect(await answer).toMatchObject({ result: { stopReason: "end_turn" } });
      const shown = peer.lines.filter((l) => l.includes('"agent_message_chunk"')).length;
      expect(shown).toBe(chunks);
    },
    TIMEOUT,
  );

  it(
    "an agent that stops reading stops the client: the bridge holds a few pipe buffers, and nothing is lost",
    async () => {
      const { peer, progress } = bridge(0);
      await session(peer);
      peer.send({ jsonrpc: "2.0", method: "_flood/hold", params: {} });
      const note = `${JSON.stringify({ jsonrpc: "2.0", method: "_flood/note", params: { pad: "y".repeat(1000) } })}\n`;
      const count = 24_000; // ~24 MB
      const stdin = peer.child.stdin!;
      for (let i = 0; i < count; i++) stdin.write(note);
      const total = Buffer.byteLength(note) * count;
      // What the client could not hand over stays in its own stream buffer.
      const stuck = await settled(() => stdin.writableLength);
      expect(total - stuck).toBeLessThan(FEW_PIPE_BUFFERS);
      writeFileSync(`${progress}.go`, "");
      const counted = await peer.request("_flood/count", {}, 60_000);
      expect((counted as { result: { read: number } }).result.read).toBeGreaterThanOrEqual(total);
    },
    TIMEOUT,
  );

  it(
    "streams a 64 MB message under one messageId through a bridge whose heap is 40 MiB (it used to run out of memory)",
    async () => {
      const chunks = 100_000;
      const { peer } = bridge(chunks, ["--max-old-space-size=40"]);
      await session(peer);
      const answer = await peer.request(
        "session/prompt",
        { sessionId: "s1", prompt: [{ type: "text", text: "go" }] },
        120_000,
      );
      expect(answer).toMatchObject({ result: { stopReason: "end_turn" } });
      expect(peer.lines.filter((l) => l.includes('"agent_message_chunk"')).length).toBe(chunks);
      peer.lines.splice(0);
      expect((await peer.close()).code).toBe(0);
    },
    TIMEOUT * 2,
  );
});
