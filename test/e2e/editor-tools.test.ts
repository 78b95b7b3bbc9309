// End to end, the editor's tools (issue 20, H §6.5): the BUILT CLI between a v1 SDK client that
// serves fs and terminals (an editor with an unsaved buffer) and a v2 SDK agent that calls the
// bridge's `editor` MCP server with the official MCP client, over each transport.
import { execFile, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { refusesConnections } from "../support/net.js";
import { checkWire, spawnWithClient, tsxArgs, type SpawnedClient } from "../support/peers.js";

const TIMEOUT = 60_000;
const AGENT = [process.execPath, ...tsxArgs("test/support/editor-agent.ts")];

interface Editor {
  readonly dir: string;
  readonly buffers: Map<string, string>;
  readonly writes: { path: string; content: string; sessionId: string }[];
  readonly requests: { method: string; params: any }[];
  readonly terminals: Map<
    string,
    { output: string; exit?: { exitCode: number | null; signal: string | null }; done: Promise<void> }
  >;
}

const peers: SpawnedClient<1>[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const p of peers.splice(0)) {
    p.kill("SIGKILL");
    await p.exit;
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function editor(): Editor {
  const dir = mkdtempSync(join(tmpdir(), "acp-bridge-editor-e2e-"));
  dirs.push(dir);
  writeFileSync(join(dir, "notes.txt"), "on disk\n");
  return {
    dir,
    buffers: new Map([[join(dir, "notes.txt"), "unsaved buffer text\n"]]),
    writes: [],
    requests: [],
    terminals: new Map(),
  };
}

function spawn(ed: Editor, mode: string, bridgeArgs: string[] = []) {
  const peer = spawnWithClient(
    1,
    process.execPath,
    ["bin/acp-bridge.js", "--log-level", "error", ...bridgeArgs, "--", ...AGENT],
    {
      env: { EDITOR_AGENT_MCP: mode },
      handlers: {
        readTextFile: (p) => {
          ed.requests.push({ method: "fs/read_text_file", params: p });
          const text = ed.buffers.get(p.path) ?? readFileSync(p.path, "utf8");
          return { content: text };
        },
        writeTextFile: (p) => {
          ed.requests.push({ method: "fs/write_text_file", params: p });
          ed.writes.push({ path: p.path, content: p.content, sessionId: p.sessionId });
          ed.buffers.set(p.path, p.content);
          return {};
        },
        terminal: {
          create: (p) => {
            ed.requests.push({ method: "terminal/create", params: p });
            const id = `term-${ed.terminals.size + 1}`;
            const t: Editor["terminals"] extends Map<string, infer T> ? T : never = {
              output: "",
              done: Promise.resolve(),
            };
            t.done = new Promise<void>((resolve) => {
              const child = execFile(p.command, p.args ?? [], { cwd: p.cwd, shell: (p.args ?? []).length === 0 }, () =>
                resolve(),
              );
              child.stdout?.on("data", (d) => (t.output += String(d)));
              child.on("exit", (code, signal) => (t.exit = { exitCode: code, signal }));
            });
            ed.terminals.set(id, t);
            return { terminalId: id };
          },
          output: (p) => {
            ed.requests.push({ method: "terminal/output", params: p });
            const t = ed.terminals.get(p.terminalId)!;
            return { output: t.output, truncated: false, ...(t.exit ? { exitStatus: t.exit } : {}) };
          },
          wait_for_exit: async (p) => {
            ed.requests.push({ method: "terminal/wait_for_exit", params: p });
            const t = ed.terminals.get(p.terminalId)!;
            await t.done;
            return t.exit ?? { exitCode: null, signal: null };
          },
          kill: (p) => (ed.requests.push({ method: "terminal/kill", params: p }), {}),
          release: (p) => (ed.requests.push({ method: "terminal/release", params: p }), {}),
        },
      },
    },
  );
  peers.push(peer);
  return peer;
}

async function open(peer: SpawnedClient<1>, cwd: string, caps = { fs: true, terminal: true }) {
  await peer.ctx.request("initialize", {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: caps.fs, writeTextFile: caps.fs }, terminal: caps.terminal },
  });
  const s = await peer.ctx.request("session/new", { cwd, mcpServers: [] });
  return s.sessionId;
}

function messages(peer: SpawnedClient<1>): string {
  return peer.updates
    .filter((u) => u.update.sessionUpdate === "agent_message_chunk")
    .map((u) => (u.update as any).content.text as string)
    .join("\n");
}

async function play(peer: SpawnedClient<1>, sessionId: string, lines: string[]) {
  const r = await peer.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: lines.join("\n") }] });
  expect(r.stopReason).toBe("end_turn");
  return messages(peer);
}

describe.each(["http", "stdio", "acp"])("the editor's tools over %s (built CLI, SDK peers)", (mode) => {
  it(
    "reads the editor's buffer, writes through the editor and runs a command in its terminal",
    async () => {
      const ed = editor();
      const peer = spawn(ed, mode);
      const sessionId = await open(peer, ed.dir);
      const out = await play(peer, sessionId, [
        "servers",
        `call read_text_file ${JSON.stringify({ path: join(ed.dir, "notes.txt") })}`,
        `call write_text_file ${JSON.stringify({ path: join(ed.dir, "new.txt"), content: "from the agent\n" })}`,
        `call run_in_terminal ${JSON.stringify({ command: "echo terminal-ok" })}`,
      ]);
      expect(out).toContain("read_text_file: unsaved buffer text");
      expect(out).toContain("write_text_file: Wrote 15 bytes");
      expect(out).toContain("run_in_terminal: terminal-ok");
      expect(ed.writes).toEqual([{ path: join(ed.dir, "new.txt"), content: "from the agent\n", sessionId }]);
      expect(existsSync(join(ed.dir, "new.txt"))).toBe(false);
      expect(ed.requests.map((r) => r.method)).toContain("terminal/create");
      expect(ed.requests.every((r) => r.params.sessionId === sessionId)).toBe(true);
      // The terminal shows on the agent's tool call for run_in_terminal, as a v1 agent shows it.
      const shown = peer.updates
        .map((u) => u.update as any)
        .filter((u) => u.toolCallId !== undefined && (u.content ?? []).some((c: any) => c.type === "terminal"));
      expect(shown.length).toBeGreaterThan(0);
      expect(shown.at(-1).content[0]).toEqual({ type: "terminal", terminalId: "term-1" });
      const done = peer.updates
        .map((u) => u.update as any)
        .filter((u) => u.status === "completed")
        .at(-1);
      expect(done.content[0]).toEqual({ type: "terminal", terminalId: "term-1" });
      await peer.close();
      checkWire(1, peer.wire);
    },
    TIMEOUT,
  );
});

describe("the editor's tools leave nothing behind (built CLI)", () => {
  const refused = refusesConnections;

  it.each(["http", "stdio"])(
    "over %s: once the bridge exited, nothing listens and no socket file is left",
    async (mode) => {
      const ed = editor();
      const peer = spawn(ed, mode);
      const sessionId = await open(peer, ed.dir);
      const out = await play(peer, sessionId, [
        "servers",
        `call read_text_file ${JSON.stringify({ path: join(ed.dir, "notes.txt") })}`,
      ]);
      const decl = (JSON.parse(out.split("\n")[0]!) as any[]).find((d) => d.name === "editor");
      const where: string =
        mode === "http" ? decl.url : decl.env.find((e: any) => e.name === "ACP_BRIDGE_EDITOR_SOCKET").value;
      if (mode === "http") expect(await refused(where)).toBe(false);
      else expect(existsSync(where)).toBe(true);
      const exit = await peer.close();
      expect(exit.code).toBe(0);
      if (mode === "http") expect(await refused(where)).toBe(true);
      else expect(existsSync(dirname(where))).toBe(false);
    },
    TIMEOUT,
  );

  it(
    "refuses a path outside the session's directories without asking the editor",
    async () => {
      const ed = editor();
      const peer = spawn(ed, "http");
      const sessionId = await open(peer, ed.dir);
      const out = await play(peer, sessionId, [`call read_text_file ${JSON.stringify({ path: "/etc/hostname" })}`]);
      expect(out).toContain("ERROR read_text_file: Refused by acp-bridge: the path is outside");
      expect(ed.requests).toEqual([]);
      await peer.close();
      checkWire(1, peer.wire);
    },
    TIMEOUT,
  );

  it(
    "offers nothing to the agent with --editor-tools off, or for a client without fs and terminals",
    async () => {
      for (const [args, caps] of [
        [["--editor-tools", "off"], { fs: true, terminal: true }],
        [[], { fs: false, terminal: false }],
      ] as const) {
        const ed = editor();
        const peer = spawn(ed, "http", [...args]);
        const sessionId = await open(peer, ed.dir, caps);
        const out = await play(peer, sessionId, ["servers"]);
        expect(out).toBe("[]");
        await peer.close();
      }
    },
    TIMEOUT,
  );
});

describe("acp-bridge editor-mcp (built CLI)", () => {
  it("refuses to run outside a bridge's declaration: status 2, a message on stderr, nothing on stdout", () => {
    const r = spawnSync(process.execPath, ["bin/acp-bridge.js", "editor-mcp"], {
      encoding: "utf8",
      env: { PATH: process.env.PATH },
    });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("ACP_BRIDGE_EDITOR_SOCKET");
  });

  it("exits 1 when the bridge's socket is gone", () => {
    const r = spawnSync(process.execPath, ["bin/acp-bridge.js", "editor-mcp"], {
      encoding: "utf8",
      input: "",
      env: {
        PATH: process.env.PATH,
        ACP_BRIDGE_EDITOR_SOCKET: join(tmpdir(), "acp-bridge-no-such.sock"),
        ACP_BRIDGE_EDITOR_TOKEN: "x",
      },
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("unreachable");
  });
});
