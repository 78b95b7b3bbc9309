// The bridge holds V8's young generation (src/v8-tuning.ts), end to end with the BUILT CLI: under
// a flood of recorded agent traffic a bridge's young generation stays at 8 MiB, where the same
// bridge started with a flag that sizes it (so the hold steps aside) grows it past. Sizes as V8
// reports them from inside the bridge (a probe imported before it), never timed.
import { afterEach, describe, expect, it } from "vitest";
import { YOUNG_GENERATION_BYTES } from "../../src/v8-tuning.js";
import { spawnRaw, type RawPeer } from "../support/peers.js";

const TIMEOUT = 90_000;
/** Lines of the bench's replay of recorded v2 turns: enough for V8 to grow an unheld young generation past 8 MiB. */
const UPDATES = 60_000;
/** Imported into the bridge's node: at exit, the largest young generation seen after a collection, on stderr. */
const PROBE = `data:text/javascript,${encodeURIComponent(`
import { getHeapSpaceStatistics } from "node:v8";
import { PerformanceObserver } from "node:perf_hooks";
let most = 0;
const young = () => getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size;
new PerformanceObserver(() => { most = Math.max(most, young()); }).observe({ entryTypes: ["gc"] });
process.on("exit", () => process.stderr.write("young generation at most " + Math.max(most, young()) + "\\n"));
`)}`;

const peers: RawPeer[] = [];
afterEach(() => {
  for (const p of peers.splice(0)) p.kill("SIGKILL");
});

/** A v1 client through the built bridge to the bench's v2 agent replaying recorded turns; the young generation's largest size. */
async function flood(nodeFlags: string[]): Promise<number> {
  const peer = spawnRaw(
    process.execPath,
    [
      `--import=${PROBE}`,
      ...nodeFlags,
      "bin/acp-bridge.js",
      "--log-level",
      "error",
      "--",
      process.execPath,
      "dist/bench/fake-agent.js",
    ],
    { env: { BENCH_MIX: "replay", NODE_OPTIONS: "" } },
  );
  peers.push(peer);
  await peer.request("initialize", { protocolVersion: 1, clientCapabilities: {} }, 30_000);
  const session = await peer.request("session/new", { cwd: process.cwd(), mcpServers: [] }, 30_000);
  const sessionId = session.result.sessionId as string;
  const done = await peer.request(
    "session/prompt",
    { sessionId, prompt: [{ type: "text", text: String(UPDATES) }] },
    60_000,
  );
  expect(done).toMatchObject({ result: { stopReason: "end_turn" } });
  await peer.close();
  const m = /young generation at most (\d+)/.exec(peer.stderr);
  expect(m, peer.stderr).not.toBeNull();
  return Number(m?.[1]);
}

describe("the young generation (built CLI)", () => {
  it(
    "stays at 8 MiB under a flood; a bridge started with a flag that sizes it leaves it to V8, which grows it past",
    async () => {
      expect(await flood([])).toBeLessThanOrEqual(YOUNG_GENERATION_BYTES);
      expect(await flood(["--semi-space-growth-factor=2"])).toBeGreaterThan(YOUNG_GENERATION_BYTES);
    },
    TIMEOUT,
  );
});
