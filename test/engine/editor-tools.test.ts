// The editor's tools in the engine (issue 20, H §6.5), on an in-memory bridge with real listeners:
// when the server is declared and over which transport, what it asks the v1 client, the errors it
// answers instead, its lifecycle, and that nothing changes where it is not offered.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import fc from "fast-check";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { handshakeA, harness, type Harness } from "../support/harness.js";
import { refusesConnections } from "../support/net.js";
import { numRuns } from "../support/properties.js";
import type { BridgeOptions } from "../../src/engine/config.js";

const ROOT = mkdtempSync(join(tmpdir(), "acp-bridge-editor-engine-"));
const FILE = join(ROOT, "a.txt");
const FULL = { fs: { readTextFile: true, writeTextFile: true }, terminal: true };
const HTTP = { session: { mcp: { http: {}, stdio: {} } } };

const open: { h: Harness; clients: Client[] }[] = [];

afterEach(async () => {
  for (const o of open.splice(0)) {
    for (const c of o.clients) await c.close().catch(() => undefined);
    o.h.bridge.agentGone({ code: 0, signal: null });
    expect(o.h.violations).toEqual([]);
  }
});

process.on("exit", () => rmSync(ROOT, { recursive: true, force: true }));

async function until<T>(h: Harness, take: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const got = take();
    if (got !== undefined) return got;
    await h.settle(5);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A handshake: the v1 client with `clientCaps`, the v2 agent answering `agentCaps`. */
async function connect(
  clientCaps: object = FULL,
  agentCaps: object = HTTP,
  options: Partial<BridgeOptions> = {},
  agentMeta?: object,
) {
  const h = harness({ editorTools: "auto", ...options });
  const state = { h, clients: [] as Client[], agentSeen: [] as any[], clientSeen: [] as any[] };
  open.push(state);
  const init = await handshakeA(
    h,
    clientCaps as Record<string, unknown>,
    agentCaps as Record<string, unknown>,
    agentMeta as Record<string, unknown> | undefined,
  );
  expect(init.result.protocolVersion).toBe(1);
  const agent = (pred: (m: any) => boolean, what: string) =>
    until(
      h,
      () => {
        state.agentSeen.push(...h.takeAgent());
        const i = state.agentSeen.findIndex(pred);
        return i === -1 ? undefined : state.agentSeen.splice(i, 1)[0];
      },
      what,
    );
  const client = (pred: (m: any) => boolean, what: string) =>
    until(
      h,
      () => {
        state.clientSeen.push(...h.takeClient());
        const i = state.clientSeen.findIndex(pred);
        return i === -1 ? undefined : state.clientSeen.splice(i, 1)[0];
      },
      what,
    );
  let nextId = 10;
  /** A lifecycle request through to the agent and back: the params the agent got, the client's answer. */
  const lifecycle = async (
    method: string,
    params: object,
    result: object | { error: object } = { sessionId: "s1" },
  ) => {
    const id = nextId++;
    h.client({ jsonrpc: "2.0", id, method, params });
    const sent = await agent((m) => m.method !== undefined && m.id !== undefined, method);
    h.agent({ jsonrpc: "2.0", id: sent.id, ...("error" in result ? result : { result }) });
    const answer = await client((m) => m.id === id, `the answer to ${method}`);
    return { sent, answer };
  };
  const mcp = async (decl: any) => {
    const c = new Client({ name: "test", version: "0" });
    const headers = Object.fromEntries(decl.headers.map((x: any) => [x.name, x.value]));
    await c.connect(new StreamableHTTPClientTransport(new URL(decl.url), { requestInit: { headers } }));
    state.clients.push(c);
    return c;
  };
  return { h, agent, client, lifecycle, mcp };
}

const editorOf = (params: any) => params.mcpServers.find((s: any) => s.name === "editor");
const textOf = (r: any) => r.content.map((c: any) => c.text).join("");

describe("the editor's MCP server in direction A (H §6.5)", () => {
  it("is declared on session/new after the client's own servers, as loopback HTTP with a bearer token", async () => {
    const { lifecycle } = await connect();
    const own = { name: "mine", command: "/bin/true", args: [], env: [] };
    const { sent, answer } = await lifecycle("session/new", { cwd: ROOT, mcpServers: [own] });
    expect(sent.method).toBe("session/new");
    expect(sent.params.mcpServers).toHaveLength(2);
    expect(sent.params.mcpServers[0]).toMatchObject({ name: "mine", type: "stdio" });
    const decl = sent.params.mcpServers[1];
    expect(decl).toMatchObject({ type: "http", name: "editor" });
    expect(decl.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(decl.url).not.toContain(decl.headers[0].value.slice(7));
    expect(decl.headers).toEqual([
      { name: "Authorization", value: expect.stringMatching(/^Bearer [A-Za-z0-9_-]{43}$/) },
    ]);
    expect(answer.result).toEqual({ sessionId: "s1" });
  });

  it("gives each session its own endpoint and token", async () => {
    const { lifecycle } = await connect();
    const a = editorOf(
      (await lifecycle("session/new", { cwd: ROOT, mcpServers: [] }, { sessionId: "s1" })).sent.params,
    );
    const b = editorOf(
      (await lifecycle("session/new", { cwd: ROOT, mcpServers: [] }, { sessionId: "s2" })).sent.params,
    );
    expect(a.url).not.toBe(b.url);
    expect(a.headers[0].value).not.toBe(b.headers[0].value);
  });

  it("is declared on the resume a load becomes, on resume and on fork", async () => {
    const { lifecycle } = await connect({ ...FULL }, { session: { mcp: { http: {} }, fork: {} } });
    await lifecycle("session/new", { cwd: ROOT, mcpServers: [] });
    const load = await lifecycle("session/load", { sessionId: "s1", cwd: ROOT, mcpServers: [] }, {});
    expect(load.sent.method).toBe("session/resume");
    expect(editorOf(load.sent.params)).toMatchObject({ type: "http" });
    const resume = await lifecycle("session/resume", { sessionId: "s1", cwd: ROOT, mcpServers: [] }, {});
    expect(editorOf(resume.sent.params)).toMatchObject({ type: "http" });
    const fork = await lifecycle("session/fork", { sessionId: "s1", cwd: ROOT, mcpServers: [] }, { sessionId: "s3" });
    expect(editorOf(fork.sent.params)).toMatchObject({ type: "http" });
  });

  it("takes another name when the client already declares an `editor`", async () => {
    const { lifecycle } = await connect();
    const own = { name: "editor", command: "/bin/true", args: [], env: [] };
    const { sent } = await lifecycle("session/new", { cwd: ROOT, mcpServers: [own] });
    expect(sent.params.mcpServers.map((s: any) => s.name)).toEqual(["editor", "acp-bridge-editor"]);
  });

  it("is stdio through `acp-bridge editor-mcp` for an agent that takes only stdio", async () => {
    const { lifecycle } = await connect(
      FULL,
      { session: { mcp: { stdio: {} } } },
      {
        editorStdioCommand: { command: "/usr/bin/node", args: ["/x/acp-bridge.js", "editor-mcp"] },
      },
    );
    const decl = editorOf((await lifecycle("session/new", { cwd: ROOT, mcpServers: [] })).sent.params);
    expect(decl).toMatchObject({ type: "stdio", command: "/usr/bin/node", args: ["/x/acp-bridge.js", "editor-mcp"] });
    expect(decl.env.map((e: any) => e.name)).toEqual(["ACP_BRIDGE_EDITOR_SOCKET", "ACP_BRIDGE_EDITOR_TOKEN"]);
  });

  it("is MCP-over-ACP for an agent that takes it, answered by the bridge; other servers' mcp/message go to the client", async () => {
    const { h, lifecycle, agent, client } = await connect(FULL, { session: { mcp: { acp: {}, http: {} } } });
    const decl = editorOf((await lifecycle("session/new", { cwd: ROOT, mcpServers: [] })).sent.params);
    expect(decl).toEqual({ type: "acp", name: "editor", serverId: expect.any(String) });
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    h.agent({
      jsonrpc: "2.0",
      id: 900,
      method: "mcp/message",
      params: { serverId: decl.serverId, requestId: "r1", method: "tools/list", params: { _meta: meta } },
    });
    const listed = await agent((m) => m.id === 900, "the tools/list answer");
    expect(listed.result.result.tools.map((t: any) => t.name)).toContain("read_text_file");
    h.agent({
      jsonrpc: "2.0",
      id: 901,
      method: "mcp/message",
      params: { serverId: "the-clients", requestId: "r2", method: "tools/list", params: { _meta: meta } },
    });
    const forwarded = await client((m) => m.method === "mcp/message", "the client's mcp/message");
    expect(forwarded.params.serverId).toBe("the-clients");
  });

  it("answers the agent's mcp/message for a closed session's server itself (-33001), never the client", async () => {
    const { h, lifecycle, agent } = await connect(FULL, { session: { mcp: { acp: {} } } });
    const decl = editorOf((await lifecycle("session/new", { cwd: ROOT, mcpServers: [] })).sent.params);
    await lifecycle("session/close", { sessionId: "s1" }, {});
    await h.settle(10);
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    h.agent({
      jsonrpc: "2.0",
      id: 950,
      method: "mcp/message",
      params: { serverId: decl.serverId, requestId: "r9", method: "tools/list", params: { _meta: meta } },
    });
    const answer = await agent((m) => m.id === 950, "the answer");
    expect(answer.error.code).toBe(-33001);
    expect(h.takeClient().filter((m) => m.method === "mcp/message")).toEqual([]);
  });

  it("reads the client's buffer through fs/read_text_file with the session's id", async () => {
    const { lifecycle, client, h, mcp } = await connect();
    const decl = editorOf((await lifecycle("session/new", { cwd: ROOT, mcpServers: [] })).sent.params);
    const c = await mcp(decl);
    const call = c.callTool({ name: "read_text_file", arguments: { path: FILE, line: 2, limit: 3 } });
    const req = await client((m) => m.method === "fs/read_text_file", "fs/read_text_file");
    expect(req.params).toEqual({ sessionId: "s1", path: FILE, line: 2, limit: 3 });
    h.client({ jsonrpc: "2.0", id: req.id, result: { content: "buffer text" } });
    const r: any = await call;
    expect(r.isError).toBeFalsy();
    expect(textOf(r)).toBe("buffer text");
  });

  it("answers a tool error with the editor's message when the client refuses", async () => {
    const { lifecycle, client, h, mcp } = await connect();
    const c = await mcp(editorOf((await lifecycle("session/new", { cwd: ROOT, mcpServers: [] })).sent.params));
    const call = c.callTool({ name: "write_text_file", arguments: { path: FILE, content: "x" } });
    const req = await client((m) => m.method === "fs/write_text_file", "fs/write_text_file");
    expect(req.params).toEqual({ sessionId: "s1", path: FILE, content: "x" });
    h.client({ jsonrpc: "2.0", id: req.id, error: { code: -32603, message: "read-only buffer" } });
    const r: any = await call;
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("read-only buffer");
  });

  it("refuses a path outside the session's roots without asking the client; --editor-tools-any-path lifts it", async () => {
    for (const anyPath of [false, true]) {
      const { lifecycle, h, mcp, client } = await connect(FULL, HTTP, { editorToolsAnyPath: anyPath });
      const c = await mcp(editorOf((await lifecycle("session/new", { cwd: ROOT, mcpServers: [] })).sent.params));
      const call = c.callTool({ name: "read_text_file", arguments: { path: "/etc/hostname" } });
      if (anyPath) {
        const req = await client((m) => m.method === "fs/read_text_file", "fs/read_text_file");
        h.client({ jsonrpc: "2.0", id: req.id, result: { content: "host" } });
        expect(textOf(await call)).toBe("host");
      } else {
        const r: any = await call;
        expect(r.isError).toBe(true);
        expect(textOf(r)).toContain("outside the session's directories");
        await h.settle(20);
        expect(h.takeClient().filter((m) => m.method === "fs/read_text_file")).toEqual([]);
      }
      const rel: any = await c.callTool({ name: "read_text_file", arguments: { path: "a.txt" } });
      expect(rel.isError).toBe(true);
      expect(textOf(rel)).toContain("must be absolute");
    }
  });

  it("accepts a path in additionalDirectories", async () => {
    const other = mkdtempSync(join(tmpdir(), "acp-bridge-editor-other-"));
    const { lifecycle, h, mcp, client } = await connect(FULL, {
      session: { mcp: { http: {} }, additionalDirectories: {} },
    });
    const decl = editorOf(
      (await lifecycle("session/new", { cwd: ROOT, additionalDirectories: [other], mcpServers: [] })).sent.params,
    );
    const c = await mcp(decl);
    const call = c.callTool({ name: "read_text_file", arguments: { path: join(other, "b.txt") } });
    const req = await client((m) => m.method === "fs/read_text_file", "fs/read_text_file");
    h.client({ jsonrpc: "2.0", id: req.id, result: { content: "b" } });
    expect(textOf(await call)).toBe("b");
    rmSync(other, { recursive: true, force: true });
  });

  it("gives up on a client that does not answer in time, cancels the request, and answers a tool error", async () => {
    const { lifecycle, mcp, client } = await connect(FULL, HTTP, { editorToolsTimeoutMs: 100 });
    const c = await mcp(editorOf((await lifecycle("session/new", { cwd: ROOT, mcpServers: [] })).sent.params));
    const r: any = await c.callTool({ name: "read_text_file", arguments: { path: FILE } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("did not answer within 100 ms");
    const req = await client((m) => m.method === "fs/read_text_file", "the request");
    const cancel = await client((m) => m.method === "$/cancel_request", "its cancellation");
    expect(cancel.params).toEqual({ requestId: req.id });
  });

  it("answers a tool error at once past the concurrency bound, without asking the client", async () => {
    const { lifecycle, mcp, client, h } = await connect(FULL, HTTP, { editorToolsMaxConcurrent: 1 });
    const c = await mcp(editorOf((await lifecycle("session/new", { cwd: ROOT, mcpServers: [] })).sent.params));
    const first = c.callTool({ name: "read_text_file", arguments: { path: FILE } });
    const req = await client((m) => m.method === "fs/read_text_file", "the first read");
    const second: any = await c.callTool({ name: "read_text_file", arguments: { path: FILE } });
    expect(second.isError).toBe(true);
    expect(textOf(second)).toContain("1 editor tool calls are already in flight");
    h.client({ jsonrpc: "2.0", id: req.id, result: { content: "one" } });
    expect(textOf(await first)).toBe("one");
    expect(h.takeClient().filter((m) => m.method === "fs/read_text_file")).toEqual([]);
  });

  it("refuses a write larger than --editor-tools-max-bytes before asking the client", async () => {
    const { lifecycle, mcp, h } = await connect(FULL, HTTP, { editorToolsMaxBytes: 1024 });
    const c = await mcp(editorOf((await lifecycle("session/new", { cwd: ROOT, mcpServers: [] })).sent.params));
    const r: any = await c.callTool({ name: "write_text_file", arguments: { path: FILE, content: "x".repeat(1025) } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("larger than 1024 bytes");
    expect(h.takeClient().filter((m) => m.method === "fs/write_text_file")).toEqual([]);
  });

  it("answers a tool error when the client is gone", async () => {
    const { lifecycle, mcp, client, h } = await connect();
    const c = await mcp(editorOf((await lifecycle("session/new", { cwd: ROOT, mcpServers: [] })).sent.params));
    const call = c.callTool({ name: "read_text_file", arguments: { path: FILE } });
    await client((m) => m.method === "fs/read_text_file", "the read");
    h.bridge.clientGone();
    const r: any = await call;
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("Client connection closed");
  });

  it("offers only the tools the client's capabilities allow", async () => {
    const { lifecycle, mcp } = await connect({ fs: { readTextFile: true, writeTextFile: false } });
    const c = await mcp(editorOf((await lifecycle("session/new", { cwd: ROOT, mcpServers: [] })).sent.params));
    const tools = (await c.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(["read_text_file"]);
  });

  it("runs run_in_terminal as create, wait, output and release in the client's terminal", async () => {
    const { lifecycle, mcp, client, h } = await connect();
    const c = await mcp(editorOf((await lifecycle("session/new", { cwd: ROOT, mcpServers: [] })).sent.params));
    const call = c.callTool({
      name: "run_in_terminal",
      arguments: { command: "make", args: ["test"], env: { A: "1" } },
    });
    const answer = async (method: string, result: object) => {
      const req = await client((m) => m.method === method, method);
      h.client({ jsonrpc: "2.0", id: req.id, result });
      return req.params;
    };
    expect(await answer("terminal/create", { terminalId: "t1" })).toMatchObject({
      sessionId: "s1",
      command: "make",
      args: ["test"],
      env: [{ name: "A", value: "1" }],
      cwd: ROOT,
      outputByteLimit: 8 * 1024 * 1024,
    });
    expect(await answer("terminal/wait_for_exit", { exitCode: 2, signal: null })).toEqual({
      sessionId: "s1",
      terminalId: "t1",
    });
    await answer("terminal/output", { output: "boom\n", truncated: false, exitStatus: { exitCode: 2, signal: null } });
    await answer("terminal/release", {});
    const r: any = await call;
    expect(textOf(r)).toBe("boom\n[exit code 2]");
  });
});

describe("the editor's MCP server's lifecycle (H §6.5)", () => {
  const refused = refusesConnections;

  it("stops listening on session/close", async () => {
    const { lifecycle, h } = await connect();
    const decl = editorOf((await lifecycle("session/new", { cwd: ROOT, mcpServers: [] })).sent.params);
    expect(await refused(decl.url)).toBe(false);
    await lifecycle("session/close", { sessionId: "s1" }, {});
    await h.settle(20);
    expect(await refused(decl.url)).toBe(true);
  });

  it("stops listening when the session/new it was declared for fails", async () => {
    const { lifecycle, h } = await connect();
    const { sent } = await lifecycle(
      "session/new",
      { cwd: ROOT, mcpServers: [] },
      { error: { code: -32603, message: "no" } },
    );
    await h.settle(20);
    expect(await refused(editorOf(sent.params).url)).toBe(true);
  });

  it("stops listening when the agent exits", async () => {
    const { lifecycle, h } = await connect();
    const decl = editorOf((await lifecycle("session/new", { cwd: ROOT, mcpServers: [] })).sent.params);
    h.bridge.agentGone({ code: 0, signal: null });
    await h.settle(20);
    expect(await refused(decl.url)).toBe(true);
  });

  it("stops listening when the session is forgotten (--max-sessions)", async () => {
    const { lifecycle, h } = await connect(FULL, HTTP, { maxSessions: 1 });
    const first = editorOf(
      (await lifecycle("session/new", { cwd: ROOT, mcpServers: [] }, { sessionId: "s1" })).sent.params,
    );
    await lifecycle("session/new", { cwd: ROOT, mcpServers: [] }, { sessionId: "s2" });
    await h.settle(20);
    expect(await refused(first.url)).toBe(true);
  });

  it("replaces the server of a session that is loaded again", async () => {
    const { lifecycle, h } = await connect();
    const first = editorOf((await lifecycle("session/new", { cwd: ROOT, mcpServers: [] })).sent.params);
    const again = editorOf(
      (await lifecycle("session/load", { sessionId: "s1", cwd: ROOT, mcpServers: [] }, {})).sent.params,
    );
    await h.settle(20);
    expect(await refused(first.url)).toBe(true);
    expect(await refused(again.url)).toBe(false);
  });
});

describe("where the editor's MCP server is not offered (H §6.5)", () => {
  const plainNew = async (
    clientCaps: object,
    agentCaps: object,
    options: Partial<BridgeOptions> = {},
    agentMeta?: object,
  ) => {
    const { lifecycle } = await connect(clientCaps, agentCaps, options, agentMeta);
    return (await lifecycle("session/new", { cwd: ROOT, mcpServers: [] })).sent.params;
  };

  it("sends a client without fs or terminal capabilities exactly what it sent before", async () => {
    const none = { fs: { readTextFile: false, writeTextFile: false }, terminal: false };
    expect(await plainNew(none, HTTP)).toEqual(await plainNew(none, HTTP, { editorTools: "off" }));
    expect((await plainNew(none, HTTP)).mcpServers).toEqual([]);
    expect((await plainNew({}, HTTP)).mcpServers).toEqual([]);
  });

  it("offers nothing with --editor-tools off", async () => {
    expect((await plainNew(FULL, HTTP, { editorTools: "off" })).mcpServers).toEqual([]);
  });

  it("offers nothing to an agent that takes no MCP transport", async () => {
    expect((await plainNew(FULL, { session: {} })).mcpServers).toEqual([]);
  });

  it("offers a remote agent (--connect) only MCP-over-ACP: the loopback endpoint and the stdio command are not on its machine", async () => {
    expect((await plainNew(FULL, HTTP, { remoteAgent: true })).mcpServers).toEqual([]);
    const acp = (await plainNew(FULL, { session: { mcp: { acp: {}, http: {} } } }, { remoteAgent: true })) as {
      mcpServers: { type?: string; name: string }[];
    };
    expect(acp.mcpServers.map((m) => [m.type, m.name])).toEqual([["acp", "editor"]]);
  });

  it("offers nothing to an agent that is itself an acp-bridge (its v1 agent calls the client itself)", async () => {
    const marker = {
      "acp-bridge": { bridge: { name: "acp-bridge", version: "0" }, clientProtocol: 2, agentProtocol: 1 },
    };
    expect((await plainNew(FULL, HTTP, {}, marker)).mcpServers).toEqual([]);
  });
});

describe("the editor's MCP servers over any lifecycle (property)", () => {
  const Op = fc.oneof(
    fc.record({ op: fc.constant("new" as const), ok: fc.boolean() }),
    fc.record({ op: fc.constantFrom("load" as const, "close" as const), at: fc.nat(5) }),
  );

  it("never leave a socket behind: a failed, closed, replaced or forgotten session's goes, and all go when the agent exits", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(Op, { maxLength: 8 }), async (ops) => {
        const { lifecycle, h } = await connect(FULL, { session: { mcp: { stdio: {} } } }, { maxSessions: 2 });
        const socketOf = (params: any): string =>
          editorOf(params).env.find((e: any) => e.name === "ACP_BRIDGE_EDITOR_SOCKET").value;
        const ids: string[] = [];
        const latest = new Map<string, string>();
        const gone = new Set<string>();
        const all = new Set<string>();
        let n = 0;
        for (const o of ops) {
          if (o.op === "new") {
            const sessionId = `p${++n}`;
            const r = await lifecycle(
              "session/new",
              { cwd: ROOT, mcpServers: [] },
              o.ok ? { sessionId } : { error: { code: -32603, message: "no" } },
            );
            const path = socketOf(r.sent.params);
            all.add(path);
            if (o.ok) {
              ids.push(sessionId);
              latest.set(sessionId, path);
            } else gone.add(path);
          } else if (ids.length > 0) {
            const sessionId = ids[o.at % ids.length]!;
            if (o.op === "load") {
              const r = await lifecycle("session/load", { sessionId, cwd: ROOT, mcpServers: [] }, {});
              const path = socketOf(r.sent.params);
              all.add(path);
              gone.add(latest.get(sessionId)!);
              latest.set(sessionId, path);
            } else {
              await lifecycle("session/close", { sessionId }, {});
              gone.add(latest.get(sessionId)!);
              latest.delete(sessionId);
              ids.splice(ids.indexOf(sessionId), 1);
            }
          }
          await h.settle(2);
          for (const p of gone) expect(existsSync(p)).toBe(false);
          // Forgotten sessions (past --max-sessions 2) took theirs with them.
          expect([...all].filter((p) => existsSync(p)).length).toBeLessThanOrEqual(2);
        }
        h.bridge.agentGone({ code: 0, signal: null });
        await h.settle(2);
        expect([...all].filter((p) => existsSync(p))).toEqual([]);
      }),
      { numRuns: Math.min(numRuns(), 50) },
    );
  });
});

describe("the editor sees the terminals its tools create (H §6.5)", () => {
  const update = (h: Harness, update: object) =>
    h.agent({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s1", update } });

  it("shows the terminal on the agent's tool call matched by its input (Codex's {server, tool, arguments})", async () => {
    const { lifecycle, mcp, client, h } = await connect();
    const c = await mcp(editorOf((await lifecycle("session/new", { cwd: ROOT, mcpServers: [] })).sent.params));
    const rawInput = { server: "editor", tool: "run_in_terminal", arguments: { command: "make" } };
    update(h, {
      sessionUpdate: "tool_call_update",
      toolCallId: "call_1",
      title: "mcp.editor.run_in_terminal",
      kind: "execute",
      status: "in_progress",
      rawInput,
    });
    const announced = await client((m) => m.params?.update?.sessionUpdate === "tool_call", "the v1 tool_call");
    expect(announced.params.update.content ?? []).toEqual([]);
    const call = c.callTool({ name: "run_in_terminal", arguments: { command: "make" } });
    const create = await client((m) => m.method === "terminal/create", "terminal/create");
    h.client({ jsonrpc: "2.0", id: create.id, result: { terminalId: "term-7" } });
    const shown = await client(
      (m) => m.params?.update?.sessionUpdate === "tool_call_update",
      "the terminal on the tool call",
    );
    expect(shown.params.update).toEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: "call_1",
      content: [{ type: "terminal", terminalId: "term-7" }],
    });
    for (const [method, result] of [
      ["terminal/wait_for_exit", { exitCode: 0, signal: null }],
      ["terminal/output", { output: "ok", truncated: false, exitStatus: { exitCode: 0, signal: null } }],
      ["terminal/release", {}],
    ] as const) {
      const req = await client((m) => m.method === method, method);
      h.client({ jsonrpc: "2.0", id: req.id, result });
    }
    await call;
    update(h, {
      sessionUpdate: "tool_call_update",
      toolCallId: "call_1",
      status: "completed",
      content: [{ type: "content", content: { type: "text", text: "ok" } }],
    });
    const done = await client((m) => m.params?.update?.status === "completed", "the completion");
    expect(done.params.update.content).toEqual([
      { type: "terminal", terminalId: "term-7" },
      { type: "content", content: { type: "text", text: "ok" } },
    ]);
  });

  it("keeps a terminal created before its tool call was seen for the call's first sighting, found by the _meta id", async () => {
    const { lifecycle, mcp, client, h } = await connect();
    const c = await mcp(editorOf((await lifecycle("session/new", { cwd: ROOT, mcpServers: [] })).sent.params));
    const call = c.callTool({
      name: "terminal_create",
      arguments: { command: "ls" },
      _meta: { "claudecode/toolUseId": "toolu_9" },
    });
    const create = await client((m) => m.method === "terminal/create", "terminal/create");
    h.client({ jsonrpc: "2.0", id: create.id, result: { terminalId: "term-9" } });
    await call;
    update(h, {
      sessionUpdate: "tool_call_update",
      toolCallId: "toolu_9",
      title: "mcp__editor__terminal_create",
      kind: "other",
      status: "in_progress",
      rawInput: {},
    });
    const announced = await client((m) => m.params?.update?.sessionUpdate === "tool_call", "the v1 tool_call");
    expect(announced.params.update.content).toEqual([{ type: "terminal", terminalId: "term-9" }]);
  });

  it("shows nothing on a tool call that the terminal's command does not match", async () => {
    const { lifecycle, mcp, client, h } = await connect();
    const c = await mcp(editorOf((await lifecycle("session/new", { cwd: ROOT, mcpServers: [] })).sent.params));
    update(h, {
      sessionUpdate: "tool_call_update",
      toolCallId: "other",
      title: "Read",
      kind: "read",
      status: "in_progress",
      rawInput: { path: "/x" },
    });
    await client((m) => m.params?.update?.sessionUpdate === "tool_call", "the v1 tool_call");
    const call = c.callTool({ name: "terminal_create", arguments: { command: "ls" } });
    const create = await client((m) => m.method === "terminal/create", "terminal/create");
    h.client({ jsonrpc: "2.0", id: create.id, result: { terminalId: "term-1" } });
    await call;
    update(h, { sessionUpdate: "tool_call_update", toolCallId: "other", status: "completed" });
    const done = await client((m) => m.params?.update?.status === "completed", "the completion");
    expect(JSON.stringify(done)).not.toContain("term-1");
  });
});

describe("the editor's MCP server in the other modes (H §6.5)", () => {
  it("is not offered in pass-through: a v1 agent gets the client's own fs and terminal", async () => {
    const h = harness({ editorTools: "auto", agentProtocol: 1 });
    h.client({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: FULL } });
    await h.settle();
    const [init] = h.takeAgent();
    expect(init.params.clientCapabilities).toEqual(FULL);
    h.agent({
      jsonrpc: "2.0",
      id: init.id,
      result: { protocolVersion: 1, agentCapabilities: { mcpCapabilities: { http: true } } },
    });
    await h.settle();
    h.client({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: ROOT, mcpServers: [] } });
    await h.settle();
    expect(h.takeAgent()[0].params.mcpServers).toEqual([]);
  });
});
