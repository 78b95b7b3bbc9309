// `acp-bridge --connect URL` end to end (issue 22, item 1): the BUILT CLI between an SDK client on
// its stdio and a remote agent behind the SDK's own server transport (test/support/remote-agent.ts),
// over WebSocket and Streamable HTTP. Every message on the client's wire and on the remote agent's
// is schema-checked; a turn is the very turn the same agent gives over stdio.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkWire, readWireLog, spawnWithClient, type SpawnedClient } from "../support/peers.js";
import { startRemoteAgent, type RemoteAgent } from "../support/remote-agent.js";
import { startServe, type Served } from "../support/remote.js";

const BRIDGE = "bin/acp-bridge.js";
const AGENTS = {
  1: [process.execPath, "dist/src/demo/agent-v1.js"],
  2: [process.execPath, "dist/src/demo/agent-v2.js"],
} as const;
const PROMPT = "[thought] [chunks] [plan] [tool] [diff] go";
const TIMEOUT = 60_000;

let dir: string;
const peers: SpawnedClient<1 | 2>[] = [];
const remotes: RemoteAgent[] = [];
const served: Served[] = [];

afterEach(async () => {
  for (const p of peers.splice(0)) {
    p.kill("SIGKILL");
    await p.exit;
  }
  for (const r of remotes.splice(0)) await r.close();
  for (const s of served.splice(0)) {
    s.child.kill("SIGTERM");
    await s.exit;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  dir = mkdtempSync(join(tmpdir(), "acp-bridge-remote-"));
  return dir;
}

async function remoteAgent(version: 1 | 2, wireLog: string, token?: string): Promise<RemoteAgent> {
  const r = await startRemoteAgent(AGENTS[version], {
    env: { ACP_DEMO_CHUNK_MS: "0", ACP_WIRE_LOG: wireLog },
    ...(token === undefined ? {} : { token }),
  });
  remotes.push(r);
  return r;
}

function bridge<V extends 1 | 2>(version: V, args: readonly string[], env: Record<string, string> = {}) {
  const peer = (
    version === 1
      ? spawnWithClient(1, process.execPath, [BRIDGE, "--log-level", "error", ...args], { env })
      : spawnWithClient(2, process.execPath, [BRIDGE, "--log-level", "error", ...args], { env })
  ) as SpawnedClient<V>;
  peers.push(peer);
  return peer;
}

interface Turn {
  readonly init: unknown;
  readonly updates: unknown[];
  readonly end: unknown;
}

/** Without what differs from run to run: the session id, the demo agent's time-based ids, timestamps. */
function normalized(x: unknown, sessionId: string): unknown {
  const text = JSON.stringify(x)
    .replaceAll(sessionId, "SESSION")
    .replace(/\b([a-z]+)-[0-9a-z]{6,10}-(\d+)\b/g, "$1-ID-$2")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "TIME");
  return JSON.parse(text) as unknown;
}

/** One turn of `PROMPT` as the client sees it: its initialize answer, every update, how it ended. */
async function turn(peer: SpawnedClient<1 | 2>, version: 1 | 2, agentVersion: 1 | 2 = version): Promise<Turn> {
  if (version === 1) {
    const p = peer as SpawnedClient<1>;
    const init = await p.ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const s = await p.ctx.request("session/new", { cwd: process.cwd(), mcpServers: [] });
    // The agent's command list follows the session's creation on its own time: in before the turn.
    await p.waitForUpdate((u) => u.update.sessionUpdate === "available_commands_update");
    const end = await p.ctx.request("session/prompt", {
      sessionId: s.sessionId,
      prompt: [{ type: "text", text: PROMPT }],
    });
    return normalized({ init, updates: p.updates, end }, s.sessionId) as Turn;
  }
  const p = peer as SpawnedClient<2>;
  const init = await p.ctx.request("initialize", {
    protocolVersion: 2,
    info: { name: "v2-editor", version: "1" },
    capabilities: {},
  });
  const s = await p.ctx.request("session/new", { cwd: process.cwd() });
  // A v2 agent's commands are in the session's result; a v1 agent's come after it, as an update.
  if (agentVersion === 1) await p.waitForUpdate((u) => u.update.sessionUpdate === "available_commands_update");
  await p.ctx.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: PROMPT }] });
  const idle = await p.waitForUpdate((u) => {
    const up = u.update as { sessionUpdate: string; state?: string };
    return up.sessionUpdate === "state_update" && up.state === "idle";
  });
  return normalized({ init, updates: p.updates, end: idle }, s.sessionId) as Turn;
}

/** The agent's wire, every process of it: the remote one opens with a refused probe in the client's version (H §1.4). */
function checkAgentWire(wireLog: string, agentVersion: 1 | 2): void {
  const wire = readWireLog(wireLog);
  const first = wire[0]?.msg as { method?: string; params?: { protocolVersion?: number } } | undefined;
  const probe = first?.method === "initialize" && first.params?.protocolVersion !== agentVersion ? 2 : 0;
  checkWire(agentVersion, wire.slice(probe), { side: "agent" });
}

describe("--connect: a remote agent over ACP's transport", () => {
  for (const [clientVersion, agentVersion] of [
    [1, 2],
    [2, 1],
    [2, 2],
  ] as const)
    for (const profile of ["ws", "http"] as const)
      it(
        `a v${clientVersion} editor and a remote v${agentVersion} agent over ${profile === "ws" ? "WebSocket" : "Streamable HTTP"}: the turn is the one over stdio`,
        async () => {
          const d = scratch();
          const local = await turn(
            bridge(clientVersion, ["--", ...AGENTS[agentVersion]], { ACP_DEMO_CHUNK_MS: "0" }),
            clientVersion,
            agentVersion,
          );
          const wireLog = join(d, "remote-agent.jsonl");
          const remote = await remoteAgent(agentVersion, wireLog);
          const peer = bridge(clientVersion, ["--connect", remote.url(profile)]);
          const remoteTurn = await turn(peer, clientVersion, agentVersion);
          expect(remoteTurn).toEqual(local);
          checkWire(clientVersion, peer.wire);
          expect((await peer.close()).code).toBe(0);
          checkAgentWire(wireLog, agentVersion);
        },
        TIMEOUT,
      );

  it(
    "a remote agent's diff names a file on its machine: --connect reads none unless --diff-file-max-bytes is given",
    async () => {
      const d = scratch();
      // The demo agent's edit of src/hello.ts under the session's directory: a file here whose text
      // goes on past the patch's hunk, so that a v1 diff with the file's full text differs from the hunk's.
      const hunk = 'export function hello() {\n  return "hi";\n}\n';
      mkdirSync(join(d, "src"));
      writeFileSync(join(d, "src", "hello.ts"), `${hunk}// and more\n`);
      const oldTexts = async (args: readonly string[]): Promise<unknown[]> => {
        const peer = bridge(1, args, { ACP_DEMO_CHUNK_MS: "0" });
        await peer.ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
        const s = await peer.ctx.request("session/new", { cwd: d, mcpServers: [] });
        await peer.ctx.request("session/prompt", {
          sessionId: s.sessionId,
          prompt: [{ type: "text", text: "[diff] go" }],
        });
        checkWire(1, peer.wire);
        expect((await peer.close()).code).toBe(0);
        const items = peer.updates.flatMap((u) =>
          "content" in u.update && Array.isArray(u.update.content) ? u.update.content : [],
        );
        return items
          .filter((c) => c.type === "diff" && c.path.endsWith("hello.ts"))
          .map((c) => (c as { oldText?: unknown }).oldText);
      };
      const full = `${hunk}// and more\n`;
      expect(await oldTexts(["--", ...AGENTS[2]])).toContain(full);
      const remote = await remoteAgent(2, join(d, "remote-agent.jsonl"));
      const unread = await oldTexts(["--connect", remote.url("ws")]);
      expect(unread).toContain(hunk);
      expect(unread).not.toContain(full);
      const remoteAgain = await remoteAgent(2, join(d, "remote-agent-2.jsonl"));
      expect(await oldTexts(["--connect", remoteAgain.url("ws"), "--diff-file-max-bytes", "65536"])).toContain(full);
    },
    TIMEOUT,
  );

  for (const profile of ["ws", "http"] as const)
    it(
      `a v1 editor through --connect (${profile}) to acp-bridge serve in front of the v2 agent: the turn is the one over stdio, traced and reported per connection`,
      async () => {
        const d = scratch();
        const local = await turn(bridge(1, ["--", ...AGENTS[2]], { ACP_DEMO_CHUNK_MS: "0" }), 1, 2);
        const trace = join(d, "served.jsons");
        const server = await startServe(
          [
            "--listen",
            "127.0.0.1:0",
            "--token-env",
            "SERVE_TOKEN",
            "--trace",
            trace,
            "--report",
            join(d, "served.md"),
            "--",
            ...AGENTS[2],
          ],
          { SERVE_TOKEN: "a-token-of-sixteen-chars", ACP_WIRE_LOG: join(d, "agent.jsonl") },
        );
        served.push(server);
        const url = profile === "ws" ? server.wsUrl : server.url;
        const peer = bridge(1, ["--connect", url, "--header-env", "Authorization=SERVE_TOKEN"], {
          SERVE_TOKEN: "a-token-of-sixteen-chars",
        });
        expect(await turn(peer, 1, 2)).toEqual(local);
        checkWire(1, peer.wire);
        expect((await peer.close()).code).toBe(0);
        // serve's bridge translated (v1 client, v2 agent): its connection's trace holds both sides.
        const events = readFileSync(join(d, "served-1.jsons"), "utf8")
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as { method?: string; from: string; to: string });
        expect(events.some((e) => e.method === "session/prompt" && e.from === "client")).toBe(true);
        expect(events.some((e) => e.method === "session/update" && e.from === "agent")).toBe(true);
        checkAgentWire(join(d, "agent.jsonl"), 2);
        server.child.kill("SIGTERM");
        expect((await server.exit).code).toBe(0);
        // The connection's report, written when it ended, and its summary line on serve's stderr.
        const report = readFileSync(join(d, "served-1.md"), "utf8");
        expect(report).toContain("- versions: v1 client ⇄ v2 agent (direction A)");
        expect(report).toMatch(/\| `session\/prompt` \| 1 \| 1 \| 0 \| 0 \|/);
        expect(server.stderr()).toContain(
          `acp-bridge serve: connection 1: acp-bridge: report written to ${join(d, "served-1.md")}: v1 client ⇄ v2 agent`,
        );
      },
      TIMEOUT,
    );

  it(
    "a --connect bridge with --report that gets SIGTERM writes its report, then ends by the signal as it would without one",
    async () => {
      const d = scratch();
      const remote = await remoteAgent(2, join(d, "wire.jsonl"));
      const report = join(d, "run.json");
      const peer = bridge(1, ["--connect", remote.url("ws"), "--report", report]);
      await peer.ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      await peer.ctx.request("session/new", { cwd: process.cwd(), mcpServers: [] });
      peer.kill("SIGTERM");
      const exit = await peer.exit;
      expect(exit.signal).toBe("SIGTERM");
      const j = JSON.parse(readFileSync(report, "utf8")) as { negotiated: unknown; end: unknown };
      expect(j.negotiated).toEqual({ client: 1, agent: 2, mode: "A" });
      expect(j.end).toEqual({ signal: "SIGTERM" });
      expect(peer.stderr).toContain(`acp-bridge: report written to ${report}: v1 client ⇄ v2 agent (direction A)`);
    },
    TIMEOUT,
  );

  it(
    "a chain over the remote link: a v1 editor, a bridge, a --connect bridge and a remote v1 agent give the turn the agent gives the editor directly",
    async () => {
      const d = scratch();
      const agent = spawnWithClient(1, process.execPath, AGENTS[1].slice(1), { env: { ACP_DEMO_CHUNK_MS: "0" } });
      peers.push(agent);
      const direct = await turn(agent, 1);
      const remote = await remoteAgent(1, join(d, "wire.jsonl"));
      // The outer bridge makes the v1 editor's turn a v2 one (A), the inner one makes it v1 again (B).
      const chain = bridge(1, [
        "--agent-protocol",
        "2",
        "--",
        process.execPath,
        BRIDGE,
        "--log-level",
        "error",
        "--client-protocol",
        "2",
        "--connect",
        remote.url("ws"),
      ]);
      const chained = await turn(chain, 1);
      expect(chained.updates).toEqual(direct.updates);
      expect(chained.end).toEqual(direct.end);
      checkWire(1, chain.wire);
      expect((await chain.close()).code).toBe(0);
    },
    TIMEOUT,
  );

  it(
    "the header --header-env names carries the token from the environment; without it (401) or with a wrong one (403) initialize is refused with the status and the bridge exits 1",
    async () => {
      const d = scratch();
      const token = "s3cret-token-value";
      const remote = await remoteAgent(2, join(d, "wire.jsonl"), token);
      const trace = join(d, "trace.jsons");
      const ok = bridge(
        1,
        ["--connect", remote.url("ws"), "--header-env", "Authorization=REMOTE_TOKEN", "--trace", trace],
        {
          REMOTE_TOKEN: token,
        },
      );
      const init = await ok.ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      expect(init.protocolVersion).toBe(1);
      expect((await ok.close()).code).toBe(0);
      // Neither the command line nor the trace holds the secret.
      expect(readFileSync(trace, "utf8")).not.toContain(token);

      // Without credentials (401), and with the wrong ones (403).
      for (const [profile, env] of [
        ["ws", {}],
        ["http", {}],
        ["ws", { REMOTE_TOKEN: "wrong" }],
        ["http", { REMOTE_TOKEN: "wrong" }],
      ] as const) {
        const withHeader = "REMOTE_TOKEN" in env ? ["--header-env", "Authorization=REMOTE_TOKEN"] : [];
        const refused = bridge(1, ["--connect", remote.url(profile), ...withHeader], env);
        const error = await refused.ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} }).then(
          () => undefined,
          (e: unknown) => e as { code: number; message: string; data: Record<string, unknown> },
        );
        expect(error?.code).toBe(-32603);
        expect(error?.data.reason).toBe("remote_unreachable");
        expect(error?.message).toContain("REMOTE_TOKEN" in env ? "403" : "401");
        checkWire(1, refused.wire);
        expect((await refused.exit).code).toBe(1);
      }
    },
    TIMEOUT,
  );

  it(
    "an unreachable remote: initialize is answered with the cause, the bridge exits 1 without hanging",
    async () => {
      const remote = await remoteAgent(2, join(scratch(), "wire.jsonl"));
      const url = remote.url("ws");
      await remote.close();
      remotes.splice(0);
      for (const u of [url, url.replace("ws:", "http:")]) {
        const peer = bridge(1, ["--connect", u]);
        const error = await peer.ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} }).then(
          () => undefined,
          (e: unknown) => e as { code: number; data: Record<string, unknown> },
        );
        expect(error?.data.reason).toBe("remote_unreachable");
        checkWire(1, peer.wire);
        expect((await peer.exit).code).toBe(1);
      }
    },
    TIMEOUT,
  );

  it(
    "TLS: a certificate the system does not trust refuses initialize with the cause; one its authority is added for (NODE_EXTRA_CA_CERTS) works",
    async () => {
      const cert = readFileSync("test/fixtures/tls/cert.pem", "utf8");
      const key = readFileSync("test/fixtures/tls/key.pem", "utf8");
      const remote = await startRemoteAgent(AGENTS[2], { env: { ACP_DEMO_CHUNK_MS: "0" }, tls: { cert, key } });
      remotes.push(remote);
      // Without credentials (401), and with the wrong ones (403).
      for (const [profile, env] of [
        ["ws", {}],
        ["http", {}],
        ["ws", { REMOTE_TOKEN: "wrong" }],
        ["http", { REMOTE_TOKEN: "wrong" }],
      ] as const) {
        const withHeader = "REMOTE_TOKEN" in env ? ["--header-env", "Authorization=REMOTE_TOKEN"] : [];
        const refused = bridge(1, ["--connect", remote.url(profile), ...withHeader], env);
        const error = await refused.ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} }).then(
          () => undefined,
          (e: unknown) => e as { message: string; data: Record<string, unknown> },
        );
        expect(error?.data.reason).toBe("remote_unreachable");
        expect(String(error?.data.cause)).toMatch(/certificate|fetch failed/i);
        expect((await refused.exit).code).toBe(1);

        const trusted = bridge(1, ["--connect", remote.url(profile)], {
          NODE_EXTRA_CA_CERTS: "test/fixtures/tls/cert.pem",
        });
        const init = await trusted.ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
        expect(init.protocolVersion).toBe(1);
        checkWire(1, trusted.wire);
        expect((await trusted.close()).code).toBe(0);
      }
    },
    TIMEOUT,
  );

  for (const profile of ["ws", "http"] as const)
    it(
      `a remote that dies mid-turn (${profile}): the editor's prompt is answered with an error and the bridge exits 1`,
      async () => {
        const remote = await remoteAgent(2, join(scratch(), "wire.jsonl"));
        const peer = bridge(1, ["--connect", remote.url(profile)]);
        await peer.ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
        const s = await peer.ctx.request("session/new", { cwd: process.cwd(), mcpServers: [] });
        const prompt = peer.ctx
          .request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "[slow:5000] go" }] })
          .then(
            () => undefined,
            (e: unknown) => e as { code: number; data: Record<string, unknown> },
          );
        await peer.waitForUpdate(() => true);
        remote.crash();
        const error = await prompt;
        expect(error?.code).toBe(-32603);
        checkWire(1, peer.wire);
        expect((await peer.exit).code).toBe(1);
      },
      TIMEOUT,
    );

  it(
    "the editor leaving closes the remote connection: the remote agent's process ends",
    async () => {
      const remote = await remoteAgent(2, join(scratch(), "wire.jsonl"));
      const peer = bridge(1, ["--connect", remote.url("ws")]);
      await peer.ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      expect((await peer.close()).code).toBe(0);
      for (const c of remote.children)
        if (c.exitCode === null && c.signalCode === null) await new Promise((resolve) => c.once("exit", resolve));
      expect(remote.children.every((c) => c.exitCode !== null || c.signalCode !== null)).toBe(true);
    },
    TIMEOUT,
  );
});

describe("--connect usage errors (status 2, nothing started)", () => {
  const cases: [string, string[], Record<string, string>, RegExp][] = [
    ["a URL of another scheme", ["--connect", "ftp://example.com/acp"], {}, /--connect needs a ws:\/\//],
    ["an agent command as well", ["--connect", "ws://127.0.0.1:9/acp", "--", "agent"], {}, /give no agent command/],
    [
      "an unset variable",
      ["--connect", "ws://127.0.0.1:9/acp", "--header-env", "Authorization=NOPE_UNSET"],
      {},
      /NOPE_UNSET/,
    ],
    [
      "--header-env without --connect",
      ["--header-env", "Authorization=X", "--", "agent"],
      { X: "1" },
      /needs --connect/,
    ],
  ];
  for (const [what, args, env, message] of cases)
    it(`refuses ${what}`, async () => {
      const child = spawn(process.execPath, [BRIDGE, ...args], {
        env: { ...process.env, ...env },
        stdio: ["pipe", "pipe", "pipe"],
      });
      let stderr = "";
      let stdout = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
      expect(code).toBe(2);
      expect(stderr).toMatch(message);
      expect(stdout).toBe("");
    });
});
