// `--report FILE` through the BUILT CLI between real SDK peers: written at a normal exit (markdown,
// or JSON for a `.json` path), after the agent crashed mid-turn, when the bridge is signalled; a
// path that cannot be opened is a usage error, a report that cannot be written changes no status.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AGENT_V1, AGENT_V2, checkWire, spawnRaw, spawnWithClient, tsxArgs, type RawPeer } from "../support/peers.js";

const TIMEOUT = 60_000;
const SECRET = "please refactor /home/alice/secret-project";

let dir = "";
const cleanup: { kill(signal?: NodeJS.Signals): void; exit: Promise<unknown> }[] = [];

afterEach(async () => {
  for (const p of cleanup.splice(0)) {
    p.kill("SIGKILL");
    await p.exit;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = "";
});

function file(name: string): string {
  dir ||= mkdtempSync(join(tmpdir(), "acp-bridge-report-"));
  return join(dir, name);
}

function bridge(report: string, agent: readonly string[], own: readonly string[] = []): string[] {
  return ["bin/acp-bridge.js", "--report", report, ...own, "--", ...agent];
}

const SUMMARY =
  /acp-bridge: report written to (.+): (.+), (\d+) messages? received, (\d+) sent, (\d+) loss(es)? of (\d+) kinds?, (\d+) emulations?, (\d+) errors? returned\n/;

describe("--report (built CLI)", () => {
  it(
    "writes a markdown report at exit, with nothing of the conversation's text, and one summary line on stderr",
    async () => {
      const report = file("run.md");
      const peer = spawnWithClient(1, process.execPath, bridge(report, [process.execPath, AGENT_V2]));
      cleanup.push(peer);
      await peer.ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      const s: any = await peer.ctx.request("session/new", { cwd: process.cwd(), mcpServers: [] });
      await peer.ctx.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: SECRET }] });
      expect(await peer.close()).toMatchObject({ code: 0 });
      checkWire(1, peer.wire);
      const md = readFileSync(report, "utf8");
      expect(md).toMatch(/^# acp-bridge report\n/);
      expect(md).toContain("- versions: v1 client ⇄ v2 agent (direction A)");
      expect(md).toContain("| `session/prompt` | 1 | 1 | 0 | 0 |");
      expect(md).toMatch(
        /\| agent→client \| `session\/update:plan_update` \| `plan\.planId` \| v1 has a single plan without an id \| 1 \| `"…\(\d+ chars\)"` \|/,
      );
      expect(md).not.toContain("alice");
      expect(md).not.toContain(process.cwd());
      const summary = SUMMARY.exec(peer.stderr);
      expect(summary?.[1]).toBe(report);
      expect(summary?.[2]).toBe("v1 client ⇄ v2 agent (direction A)");
      expect(peer.stderr.match(/report written/g)).toHaveLength(1);
    },
    TIMEOUT,
  );

  it(
    "writes JSON for a .json path: the emulations a v1 agent needs, the stash, the exit",
    async () => {
      const report = file("run.json");
      const peer = spawnWithClient(2, process.execPath, bridge(report, [process.execPath, AGENT_V1]));
      cleanup.push(peer);
      await peer.ctx.request("initialize", {
        protocolVersion: 2,
        info: { name: "ed", version: "1" },
        capabilities: {},
      });
      const s: any = await peer.ctx.request("session/new", { cwd: process.cwd() });
      await peer.ctx.request("session/list", {});
      await peer.ctx.request("session/close", { sessionId: s.sessionId });
      expect(await peer.close()).toMatchObject({ code: 0 });
      checkWire(2, peer.wire);
      const j = JSON.parse(readFileSync(report, "utf8"));
      expect(j).toMatchObject({
        report: "acp-bridge",
        shape: 1,
        end: { status: 0 },
        negotiated: { client: 2, agent: 1, mode: "B" },
        emulations: {
          total: 2,
          kinds: [
            { method: "session/list", how: "answered by the bridge from the sessions it has seen", count: 1 },
            { method: "session/close", how: "answered by the bridge, a running turn cancelled first", count: 1 },
          ],
        },
        stash: { client: { level: "off" }, agent: { level: "off" } },
        capped: [],
      });
      expect(j.messages.kinds).toContainEqual({
        kind: "session/list",
        fromClient: 1,
        toAgent: 0,
        fromAgent: 0,
        toClient: 0,
      });
      expect(JSON.stringify(j)).not.toContain(process.cwd());
    },
    TIMEOUT,
  );

  it(
    "writes the report after the agent crashed mid-turn, with the prompt's error and the agent's status",
    async () => {
      const report = file("crash.json");
      const agent = [process.execPath, ...tsxArgs("test/fixtures/faulty-agent.ts"), "exits-child-holds", file("pids")];
      const peer = spawnRaw(process.execPath, bridge(report, agent));
      cleanup.push(peer);
      await peer.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      await peer.request("session/new", { cwd: process.cwd(), mcpServers: [] });
      const answer = await peer.request("session/prompt", { sessionId: "s1", prompt: [{ type: "text", text: "hi" }] });
      expect(answer.error).toMatchObject({ data: { reason: "agent_exited" } });
      expect((await peer.exit).code).toBe(3);
      const j = JSON.parse(readFileSync(report, "utf8"));
      expect(j.end).toEqual({ status: 3 });
      expect(j.negotiated).toEqual({ client: 1, agent: 1, mode: "pass" });
      expect(j.errors.kinds).toContainEqual({
        to: "client",
        method: "session/prompt",
        code: -32603,
        reason: "agent_exited",
        origin: "bridge",
        count: 1,
      });
      for (const pid of readFileSync(file("pids"), "utf8").split("\n").filter(Boolean))
        try {
          process.kill(Number(pid), "SIGKILL");
        } catch {
          // gone
        }
    },
    TIMEOUT,
  );

  it.each(["SIGTERM", "SIGHUP"] as const)(
    "writes the report when the bridge gets %s, once the agent it passes the signal to is gone",
    async (signal) => {
      const report = file("signal.json");
      const peer: RawPeer = spawnRaw(process.execPath, bridge(report, [process.execPath, AGENT_V2]));
      cleanup.push(peer);
      await peer.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      await peer.request("session/new", { cwd: process.cwd(), mcpServers: [] });
      peer.kill(signal);
      const exit = await peer.exit;
      expect(exit.signal).toBeNull();
      const j = JSON.parse(readFileSync(report, "utf8"));
      expect(j.negotiated).toEqual({ client: 1, agent: 2, mode: "A" });
      expect(j.end).toEqual({ status: exit.code });
      expect(peer.stderr).toMatch(SUMMARY);
    },
    TIMEOUT,
  );

  it("refuses a report path that cannot be opened with status 2, and starts no agent", async () => {
    const mark = file("agent-ran");
    const report = file("missing/run.md");
    const agent = [process.execPath, "-e", `require("node:fs").writeFileSync(${JSON.stringify(mark)}, "")`];
    const peer = spawnRaw(process.execPath, bridge(report, agent));
    cleanup.push(peer);
    const exit = await peer.close();
    expect(exit.code).toBe(2);
    expect(peer.stderr).toContain(`cannot open the report file '${report}'`);
    expect(existsSync(mark)).toBe(false);
  });

  it.skipIf(!existsSync("/dev/full"))(
    "says on stderr that a report could not be written, even when silent, and keeps the exit status",
    async () => {
      const peer = spawnRaw(
        process.execPath,
        bridge("/dev/full", [process.execPath, AGENT_V1], ["--log-level", "silent"]),
      );
      cleanup.push(peer);
      await peer.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      expect(await peer.close()).toMatchObject({ code: 0 });
      expect(peer.stderr).toMatch(/^acp-bridge error: cannot write the report file '\/dev\/full': .*ENOSPC/);
      expect(peer.stderr).not.toContain("report written");
    },
    TIMEOUT,
  );
});
