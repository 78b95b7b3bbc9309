// The fault matrix, end to end with the BUILT CLI (issue "Hostile input and faults", item 4): the
// bridge follows the agent's process, not its pipes, and nothing of the agent outlives it.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { spawnRaw, tsxArgs, type RawPeer } from "../support/peers.js";

const GRACE = "300";
const BRIDGE = ["bin/acp-bridge.js", "--log-level", "error", "--shutdown-grace-ms", GRACE];
const TIMEOUT = 30_000;
/** How long a wait for the bridge's output may take (it ends as soon as the output is there). */
const POLL_MS = 10_000;
const init = { protocolVersion: 1, clientCapabilities: {} };

let dir = "";
const peers: RawPeer[] = [];

afterEach(() => {
  for (const p of peers.splice(0)) p.kill("SIGKILL");
  if (dir) {
    // Whatever a failed test left running.
    for (const pid of pids()) kill(pid);
    rmSync(dir, { recursive: true, force: true });
  }
});

function pids(): number[] {
  const file = join(dir, "pids");
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).map(Number) : [];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function kill(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // gone
  }
}

function bridgeWith(mode: string): RawPeer {
  dir = mkdtempSync(join(tmpdir(), "acp-bridge-faults-"));
  const agent = [process.execPath, ...tsxArgs("test/fixtures/faulty-agent.ts"), mode, join(dir, "pids")];
  const peer = spawnRaw(process.execPath, [...BRIDGE, "--", ...agent]);
  peers.push(peer);
  return peer;
}

async function prompting(peer: RawPeer) {
  await peer.request("initialize", init);
  await peer.request("session/new", { cwd: process.cwd(), mcpServers: [] });
  return peer.request("session/prompt", { sessionId: "s1", prompt: [{ type: "text", text: "hi" }] });
}

describe("fault matrix (built CLI)", () => {
  it(
    "answers the pending prompt and exits when the agent closes its stdout but keeps running",
    async () => {
      const peer = bridgeWith("closes-stdout");
      const answer = await prompting(peer);
      expect(answer.error).toMatchObject({ code: -32603, data: { reason: "agent_closed_stdout" } });
      const exit = await peer.exit;
      expect(exit.code).not.toBeNull();
      await expect.poll(() => pids().filter(alive), { timeout: 5000 }).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    "answers the prompt as soon as the agent exits, though its child holds the pipe, and exits with its status",
    async () => {
      const peer = bridgeWith("exits-child-holds");
      const answer = await prompting(peer);
      expect(answer.error).toMatchObject({ code: -32603, data: { reason: "agent_exited", exitCode: 3 } });
      expect((await peer.exit).code).toBe(3);
      await expect.poll(() => pids().filter(alive), { timeout: 5000 }).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    "ends the agent's whole group after the client leaves, even when it and its child ignore SIGTERM",
    async () => {
      const peer = bridgeWith("ignores-term");
      void prompting(peer).catch(() => undefined);
      await expect.poll(() => pids().length, { timeout: 10_000 }).toBe(2);
      const exit = await peer.close();
      expect(exit.code).toBe(0);
      await expect.poll(() => pids().filter(alive), { timeout: 5000 }).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    "ends the agent's group and exits 0 when the client leaves while a permission request is pending",
    async () => {
      const peer = bridgeWith("asks-permission");
      void prompting(peer).catch(() => undefined);
      await peer.waitFor((m) => m.method === "session/request_permission");
      expect(pids().filter(alive)).toHaveLength(2);
      const exit = await peer.close();
      expect(exit.code).toBe(0);
      await expect.poll(() => pids().filter(alive), { timeout: 5000 }).toEqual([]);
    },
    TIMEOUT,
  );

  it.each(["SIGTERM", "SIGINT"] as const)(
    "on %s mid-turn, passes it to the agent's group, answers the prompt and leaves nothing running",
    async (signal) => {
      const peer = bridgeWith("asks-permission");
      const answer = prompting(peer);
      await peer.waitFor((m) => m.method === "session/request_permission");
      peer.kill(signal);
      expect((await answer).error).toMatchObject({ code: -32603, data: { reason: "agent_exited" } });
      const exit = await peer.exit;
      expect(exit.signal).toBeNull();
      expect(exit.code).not.toBe(0);
      await expect.poll(() => pids().filter(alive), { timeout: 5000 }).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    "never relays garbage from the agent's stdout, and the turn still ends",
    async () => {
      const peer = bridgeWith("garbage");
      const answer = await prompting(peer);
      expect(answer.result).toEqual({ stopReason: "end_turn" });
      // Every line the client got is one JSON-RPC object; the agent's chunk after the garbage arrived.
      for (const line of peer.lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
      expect(peer.lines.some((l) => l.includes('"text":"ok"'))).toBe(true);
      expect(peer.lines).toHaveLength(4);
    },
    TIMEOUT,
  );

  it(
    "answers initialize with an error when the agent never answers it, and keeps no request pending",
    async () => {
      dir = mkdtempSync(join(tmpdir(), "acp-bridge-faults-"));
      const agent = [process.execPath, ...tsxArgs("test/fixtures/faulty-agent.ts"), "silent-init", join(dir, "pids")];
      const peer = spawnRaw(process.execPath, [...BRIDGE, "--handshake-timeout-ms", "500", "--", ...agent]);
      peers.push(peer);
      const answer = await peer.request("initialize", init);
      expect(answer.error).toMatchObject({ code: -32603 });
      expect(typeof answer.error.data?.reason).toBe("string");
      const exit = await peer.close();
      expect(exit.code).toBe(0);
      await expect.poll(() => pids().filter(alive), { timeout: 5000 }).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    "answers initialize naming the command and exits 127 when the agent does not exist",
    async () => {
      dir = mkdtempSync(join(tmpdir(), "acp-bridge-faults-"));
      const missing = join(dir, "no-such-agent");
      const peer = spawnRaw(process.execPath, [...BRIDGE, "--", missing]);
      peers.push(peer);
      const answer = await peer.request("initialize", init);
      expect(answer.error).toMatchObject({ code: -32603, data: { reason: "agent_not_found", command: missing } });
      expect(answer.error.message).toContain(missing);
      expect((await peer.exit).code).toBe(127);
    },
    TIMEOUT,
  );

  // A shell agent exits within milliseconds of its start: while the bridge, which started it first,
  // is still loading. What it wrote must still be read, and the client still answered.
  it.skipIf(!existsSync("/bin/sh"))(
    "reads what an agent wrote before exiting while the bridge loaded, and answers initialize with the exit",
    async () => {
      const early = '{"jsonrpc":"2.0","method":"_x/early","params":{}}';
      const agent = ["/bin/sh", "-c", `printf '%s\\n' '${early}'; exit 3`];
      const peer = spawnRaw(process.execPath, ["bin/acp-bridge.js", "--log-level", "debug", "--", ...agent]);
      peers.push(peer);
      // The bridge loads while the agent has already exited: on a loaded machine that takes seconds
      // (vitest's default wait, one second, failed in a fresh-clone run taking 19 minutes).
      await expect
        .poll(() => peer.stderr, { timeout: POLL_MS })
        .toContain("dropped agent '_x/early' received before initialize");
      const answer = await peer.request("initialize", init);
      expect(answer.error).toMatchObject({ code: -32603, data: { reason: "agent_exited", exitCode: 3 } });
      expect((await peer.exit).code).toBe(3);
      expect(peer.stderr).not.toContain("hold its stdout");
    },
    TIMEOUT,
  );

  it(
    "answers initialize and exits 126 when the agent is not executable",
    async () => {
      dir = mkdtempSync(join(tmpdir(), "acp-bridge-faults-"));
      const script = join(dir, "agent.sh");
      writeFileSync(script, "#!/bin/sh\nexit 0\n");
      chmodSync(script, 0o644);
      const peer = spawnRaw(process.execPath, [...BRIDGE, "--", script]);
      peers.push(peer);
      const answer = await peer.request("initialize", init);
      expect(answer.error).toMatchObject({ code: -32603, data: { reason: "agent_not_executable", command: script } });
      expect((await peer.exit).code).toBe(126);
    },
    TIMEOUT,
  );
});
