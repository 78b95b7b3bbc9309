// `--trace` through the BUILT CLI: the file is opened before anything starts (a path that cannot be
// written is a usage error, and no agent is started for it); a trace that fails later stops tracing
// and nothing else.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { spawnRaw, type RawPeer } from "../support/peers.js";

const AGENT_V1 = [process.execPath, "dist/src/demo/agent-v1.js"];
const TIMEOUT = 60_000;

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

/** A v1 client's handshake and session through the bridge with these options. */
async function session(own: string[]): Promise<RawPeer> {
  const peer = spawnRaw(process.execPath, ["bin/acp-bridge.js", ...own, "--", ...AGENT_V1]);
  peers.push(peer);
  const init = await peer.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  expect(init.result).toMatchObject({ protocolVersion: 1 });
  const s = await peer.request("session/new", { cwd: process.cwd(), mcpServers: [] });
  expect(typeof s.result?.sessionId).toBe("string");
  return peer;
}

describe("--trace (built CLI)", () => {
  it(
    "records both sides of every message, with the agent started before the bridge loaded",
    async () => {
      dir = mkdtempSync(join(tmpdir(), "acp-bridge-trace-"));
      const file = join(dir, "run.jsons");
      const peer = await session(["--log-level", "debug", "--trace", file]);
      expect(await peer.close()).toMatchObject({ code: 0 });
      expect(peer.stderr).toContain("agent started before the bridge loads");
      const events = readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { type: string; from: string; to: string; method?: string });
      const initialize = events.filter((e) => e.method === "initialize").map((e) => `${e.from}→${e.to}`);
      expect(initialize).toEqual(["client→acp-bridge", "acp-bridge→agent"]);
      expect(events.filter((e) => e.type === "response").length).toBeGreaterThanOrEqual(4);
    },
    TIMEOUT,
  );

  it("refuses a path that cannot be opened with status 2, and starts no agent", () => {
    dir = mkdtempSync(join(tmpdir(), "acp-bridge-trace-"));
    const mark = join(dir, "agent-ran");
    const file = join(dir, "missing", "run.jsons");
    const agent = [process.execPath, "-e", `require("node:fs").writeFileSync(${JSON.stringify(mark)}, "")`];
    const peer = spawnRaw(process.execPath, ["bin/acp-bridge.js", "--trace", file, "--", ...agent]);
    peers.push(peer);
    return peer.close().then((exit) => {
      expect(exit.code).toBe(2);
      expect(peer.stderr).toContain(`cannot open the trace file '${file}'`);
      expect(peer.stderr).not.toMatch(/\n\s+at /);
      expect(existsSync(mark)).toBe(false);
    });
  });

  it.skipIf(!existsSync("/dev/full"))(
    "stops tracing when the file cannot be written, and keeps serving",
    async () => {
      const peer = await session(["--trace", "/dev/full"]);
      const s = await peer.request("session/new", { cwd: process.cwd(), mcpServers: [] });
      expect(typeof s.result?.sessionId).toBe("string");
      expect(await peer.close()).toMatchObject({ code: 0 });
      expect(peer.stderr.match(/tracing stopped/g)).toHaveLength(1);
    },
    TIMEOUT,
  );
});
