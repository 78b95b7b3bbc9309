// The editor's endpoints as listeners (H §6.5, SECURITY.md "The editor's MCP server"): loopback only,
// a token on every request compared in constant time, Host and Origin checked against DNS
// rebinding, bounded bodies, and nothing left listening or on disk once closed.
import { request } from "node:http";
import { connect } from "node:net";
import { existsSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { spawnSync } from "node:child_process";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it } from "vitest";
import { listenHttp, type HttpEndpoint } from "../../src/editor/http.js";
import { listenSocket, type SocketEndpoint } from "../../src/editor/socket.js";
import { editorServerFactory } from "../../src/editor/tools.js";
import { silentLogger } from "../support/log.js";

const port = {
  sessionId: "s1",
  roots: { cwd: "/work", directories: [] },
  ask: () => Promise.resolve({ result: { content: "text" } }),
  terminalCreated: () => undefined,
};
const opts = { platform: "posix" as const, anyPath: false, maxBytes: 4096, maxConcurrent: 4, timeoutMs: 1000 };
const factory = editorServerFactory(port, { fsRead: true, fsWrite: true, terminals: true }, opts);
const limits = { maxBytes: 4096, maxConnections: 4 };

const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function http(): Promise<HttpEndpoint> {
  const ep = await listenHttp(factory, limits, silentLogger);
  closers.push(() => ep.close());
  return ep;
}

function post(url: string, headers: Record<string, string>, body = "{}"): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers: { "content-type": "application/json", ...headers } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const listening = (host: string, p: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(p, host);
    s.on("connect", () => (s.destroy(), resolve(true)));
    s.on("error", () => resolve(false));
  });

describe("the editor's HTTP endpoint", () => {
  it("listens on 127.0.0.1 only, with the token out of the URL", async () => {
    const ep = await http();
    const u = new URL(ep.url);
    expect(u.hostname).toBe("127.0.0.1");
    expect(ep.url).not.toContain(ep.token);
    expect(await listening("127.0.0.1", Number(u.port))).toBe(true);
  });

  it("serves an MCP client that presents the token", async () => {
    const ep = await http();
    const c = new Client({ name: "t", version: "0" });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(ep.url), {
        requestInit: { headers: { Authorization: `Bearer ${ep.token}` } },
      }),
    );
    const r: any = await c.callTool({ name: "read_text_file", arguments: { path: "/work/a" } });
    expect(r.content[0].text).toBe("text");
    await c.close();
  });

  it("answers 401 without the token, with a wrong one or a token one character short", async () => {
    const ep = await http();
    expect(await post(ep.url, {})).toBe(401);
    expect(await post(ep.url, { authorization: "Bearer nope" })).toBe(401);
    expect(await post(ep.url, { authorization: `Bearer ${ep.token.slice(1)}` })).toBe(401);
    expect(await post(ep.url, { authorization: ep.token })).toBe(401);
  });

  it("refuses a Host or an Origin that is not loopback (DNS rebinding), token or not", async () => {
    const ep = await http();
    const auth = { authorization: `Bearer ${ep.token}` };
    expect(await post(ep.url, { ...auth, host: "evil.example" })).toBe(403);
    expect(await post(ep.url, { ...auth, origin: "http://evil.example" })).toBe(403);
    expect(await post(ep.url, { ...auth, host: "localhost" })).not.toBe(403);
  });

  it("answers 404 off its path and 413 for a body past the bound", async () => {
    const ep = await http();
    const auth = { authorization: `Bearer ${ep.token}` };
    expect(await post(ep.url.replace("/mcp", "/other"), auth)).toBe(404);
    expect(await post(ep.url, auth, "x".repeat(4096 + 64 * 1024 + 1))).toBe(413);
  });

  it("stops listening once closed, open connections included", async () => {
    const ep = await http();
    const p = Number(new URL(ep.url).port);
    const held = connect(p, "127.0.0.1");
    await new Promise((r) => held.on("connect", r));
    const closedHeld = new Promise((r) => held.on("close", r));
    await ep.close();
    await closedHeld;
    expect(await listening("127.0.0.1", p)).toBe(false);
  });
});

describe("the editor's stdio socket", () => {
  function socket(): SocketEndpoint {
    const ep = listenSocket(factory, limits, silentLogger);
    closers.push(() => ep.close());
    return ep;
  }

  it.skipIf(process.platform === "win32")("is a 0600 socket in a fresh 0700 directory", () => {
    const ep = socket();
    expect(statSync(ep.path).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(ep.path)).mode & 0o777).toBe(0o700);
  });

  it("closes a connection that presents a wrong token", async () => {
    const ep = socket();
    const s = connect(ep.path);
    await new Promise((r) => s.on("connect", r));
    const closed = new Promise((r) => s.on("close", r));
    let data = "";
    s.on("data", (d) => (data += String(d)));
    s.write("wrong\n" + JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) + "\n");
    await closed;
    expect(data).toBe("");
  });

  it("serves MCP after the right token, the rest of the first packet included", async () => {
    const ep = socket();
    const s = connect(ep.path);
    await new Promise((r) => s.on("connect", r));
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } },
    };
    const answered = new Promise<string>((resolve) => s.on("data", (d) => resolve(String(d))));
    s.write(`${ep.token}\n${JSON.stringify(init)}\n`);
    const line = await answered;
    expect(JSON.parse(line.split("\n")[0]!)).toMatchObject({
      id: 1,
      result: { serverInfo: { name: "acp-bridge-editor" } },
    });
    s.destroy();
  });

  it.skipIf(process.platform === "win32")("removes its directory once closed", () => {
    const ep = socket();
    ep.close();
    expect(existsSync(dirname(ep.path))).toBe(false);
  });

  it.skipIf(process.platform === "win32")("removes its directory when the process exits without closing it", () => {
    const script = [
      `const { listenSocket } = await import(${JSON.stringify(new URL("../../src/editor/socket.ts", import.meta.url).href)});`,
      "const ep = listenSocket(() => { throw new Error('unused'); }, { maxBytes: 1, maxConnections: 1 }, { debug() {}, info() {}, warn() {}, error() {} });",
      "process.stdout.write(ep.path);",
      "process.exitCode = 0; setTimeout(() => process.exit(0), 10);",
    ].join("\n");
    const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    expect(r.stdout).toMatch(/mcp\.sock$/);
    expect(existsSync(dirname(r.stdout))).toBe(false);
  });
});
