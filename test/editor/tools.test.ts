// The editor's tools (H §6.5) against a scripted client port, through a real MCP client: each tool's
// v1 request, and the tool errors the bridge answers instead of asking or instead of waiting.
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pathProblem } from "../../src/editor/paths.js";
import { anyString } from "../support/arbitrary.js";
import { numRuns } from "../support/properties.js";
import { editorServerFactory, type ClientAnswer, type EditorPort } from "../../src/editor/tools.js";

const ALL = { fsRead: true, fsWrite: true, terminals: true };
const OPTS = { platform: "posix" as const, anyPath: false, maxBytes: 1024, maxConcurrent: 4, timeoutMs: 1000 };

/** A port whose client answers with `script(method, params)`; every request is recorded. */
function scripted(
  script: (method: string, params: any, timeoutMs?: number) => ClientAnswer | Promise<ClientAnswer>,
  sessionId: string | null = "s1",
) {
  const asked: { method: string; params: any; timeoutMs?: number }[] = [];
  const terminals: string[] = [];
  const port: EditorPort = {
    sessionId: sessionId ?? undefined,
    roots: { cwd: "/work", directories: [] },
    ask: async (method, params, timeoutMs) => {
      asked.push({ method, params, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
      return script(method, params, timeoutMs);
    },
    terminalCreated: (id) => void terminals.push(id),
  };
  return { port, asked, terminals };
}

async function call(port: EditorPort, name: string, args: object, caps = ALL) {
  const server = editorServerFactory(port, caps, OPTS)();
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const c = new Client({ name: "t", version: "0" });
  await c.connect(b);
  const r: any = await c.callTool({ name, arguments: args as Record<string, unknown> });
  await c.close();
  return { isError: r.isError === true, text: (r.content as { text: string }[]).map((x) => x.text).join("") };
}

describe("the editor's tools", () => {
  it("answer a tool error before the session is open, asking nothing", async () => {
    const { port, asked } = scripted(() => ({ result: {} }), null);
    expect(await call(port, "read_text_file", { path: "/work/a" })).toMatchObject({
      isError: true,
      text: expect.stringContaining("not open yet"),
    });
    expect(asked).toEqual([]);
  });

  it("refuse a read whose text is past the bound", async () => {
    const { port } = scripted(() => ({ result: { content: "x".repeat(1025) } }));
    expect(await call(port, "read_text_file", { path: "/work/a" })).toMatchObject({
      isError: true,
      text: expect.stringContaining("larger than 1024"),
    });
  });

  it("answer a malformed editor answer as a tool error", async () => {
    const { port } = scripted(() => ({ result: { content: 42 } }));
    expect((await call(port, "read_text_file", { path: "/work/a" })).isError).toBe(true);
  });

  it("create a terminal and report its id, telling the bridge (the tool call shows it)", async () => {
    const { port, asked, terminals } = scripted(() => ({ result: { terminalId: "t9" } }));
    expect(await call(port, "terminal_create", { command: "ls", cwd: "/work/sub" })).toEqual({
      isError: false,
      text: "terminalId: t9",
    });
    expect(asked[0]).toMatchObject({
      method: "terminal/create",
      params: { sessionId: "s1", command: "ls", cwd: "/work/sub", env: [], outputByteLimit: 1024 },
    });
    expect(terminals).toEqual(["t9"]);
  });

  it("bound a terminal's outputByteLimit to --editor-tools-max-bytes and keep a smaller one", async () => {
    const { port, asked } = scripted(() => ({ result: { terminalId: "t" } }));
    await call(port, "terminal_create", { command: "ls", outputByteLimit: 1_000_000 });
    await call(port, "terminal_create", { command: "ls", outputByteLimit: 10 });
    expect(asked.map((a) => a.params.outputByteLimit)).toEqual([1024, 10]);
  });

  it("refuse a terminal cwd outside the roots", async () => {
    const { port, asked } = scripted(() => ({ result: { terminalId: "t" } }));
    expect((await call(port, "terminal_create", { command: "ls", cwd: "/etc" })).isError).toBe(true);
    expect(asked).toEqual([]);
  });

  it("report output with its exit status, the tail kept when the editor's output is past the bound", async () => {
    const { port } = scripted(() => ({
      result: { output: `${"a".repeat(2000)}END`, truncated: false, exitStatus: { exitCode: 0 } },
    }));
    const r = await call(port, "terminal_output", { terminalId: "t" });
    expect(r.text.startsWith("[earlier output truncated]\n")).toBe(true);
    expect(r.text.endsWith("END\n[exit code 0]")).toBe(true);
  });

  it("say 'still running' when terminal_wait_for_exit times out, and pass the timeout on", async () => {
    const { port, asked } = scripted((_m, _p, ms) =>
      ms === 50 ? { error: { code: -32001, message: "late" } } : { result: {} },
    );
    expect(await call(port, "terminal_wait_for_exit", { terminalId: "t", timeoutMs: 50 })).toEqual({
      isError: false,
      text: "Still running after 50 ms.",
    });
    expect(asked[0]).toMatchObject({ method: "terminal/wait_for_exit", timeoutMs: 50 });
  });

  it("kill, read and release a run_in_terminal command past its timeout, and say so", async () => {
    const { port, asked } = scripted((m, _p, ms) => {
      if (m === "terminal/create") return { result: { terminalId: "t1" } };
      if (m === "terminal/wait_for_exit")
        return ms === 30 ? { error: { code: -32001, message: "late" } } : { result: {} };
      if (m === "terminal/output")
        return { result: { output: "partial", truncated: false, exitStatus: { signal: "SIGKILL" } } };
      return { result: {} };
    });
    const r = await call(port, "run_in_terminal", { command: "sleep 9", timeoutMs: 30 });
    expect(r.isError).toBe(true);
    expect(r.text).toContain("Killed after 30 ms");
    expect(r.text).toContain("partial\n[killed by signal SIGKILL]");
    expect(asked.map((a) => a.method)).toEqual([
      "terminal/create",
      "terminal/wait_for_exit",
      "terminal/kill",
      "terminal/output",
      "terminal/release",
    ]);
  });

  it("release the terminal of run_in_terminal even when reading its output fails", async () => {
    const { port, asked } = scripted((m) =>
      m === "terminal/create"
        ? { result: { terminalId: "t1" } }
        : m === "terminal/output"
          ? { error: { code: -32603, message: "gone" } }
          : { result: { exitCode: 0 } },
    );
    const r = await call(port, "run_in_terminal", { command: "ls" });
    expect(r).toMatchObject({ isError: true, text: expect.stringContaining("gone") });
    expect(asked.at(-1)?.method).toBe("terminal/release");
  });

  it("kill and release a terminal through their own tools", async () => {
    const { port, asked } = scripted(() => ({ result: {} }));
    expect((await call(port, "terminal_kill", { terminalId: "t" })).text).toBe("Killed.");
    expect((await call(port, "terminal_release", { terminalId: "t" })).text).toBe("Released.");
    expect(asked.map((a) => [a.method, a.params])).toEqual([
      ["terminal/kill", { sessionId: "s1", terminalId: "t" }],
      ["terminal/release", { sessionId: "s1", terminalId: "t" }],
    ]);
  });

  it("offer no terminal tools to a client without terminals, and no write to one that cannot write", async () => {
    const { port } = scripted(() => ({ result: {} }));
    const server = editorServerFactory(port, { fsRead: true, fsWrite: false, terminals: false }, OPTS)();
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const c = new Client({ name: "t", version: "0" });
    await c.connect(b);
    const listed = await c.listTools();
    expect(listed.tools.map((t) => t.name)).toEqual(["read_text_file"]);
    expect(listed.tools[0]!.description).toContain("user's editor");
    expect(listed.tools[0]!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    // Claude Code then offers it to the model at once, not behind its ToolSearch.
    expect(listed.tools[0]!._meta).toMatchObject({ "anthropic/alwaysLoad": true });
    await c.close();
  });
});

describe("the editor's tools while the editor works", () => {
  it("send progress to a call that asked for it, so that its client does not give up, and stop when answered", async () => {
    let answer!: (a: ClientAnswer) => void;
    const { port } = scripted(() => new Promise<ClientAnswer>((r) => (answer = r)));
    const server = editorServerFactory(port, ALL, { ...OPTS, progressMs: 20 })();
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const c = new Client({ name: "t", version: "0" });
    await c.connect(b);
    const seen: number[] = [];
    const call = c.callTool(
      { name: "terminal_wait_for_exit", arguments: { terminalId: "t" } },
      { onprogress: (p) => void seen.push(p.progress) },
    );
    await new Promise((r) => setTimeout(r, 110));
    answer({ result: { exitCode: 0, signal: null } });
    const r: any = await call;
    expect(r.content[0].text).toBe("Exited: exit code 0.");
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen).toEqual(seen.map((_, i) => i + 1));
    const after = seen.length;
    await new Promise((r) => setTimeout(r, 60));
    expect(seen.length).toBe(after);
    await c.close();
  });
});

describe("run_in_terminal cancelled by the agent", () => {
  it("kills and releases the command's terminal, as its timeout would", async () => {
    const { port, asked } = scripted((m) =>
      m === "terminal/create"
        ? { result: { terminalId: "t1" } }
        : m === "terminal/wait_for_exit"
          ? new Promise<ClientAnswer>(() => undefined)
          : { result: { output: "", truncated: false } },
    );
    const server = editorServerFactory(port, ALL, OPTS)();
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const c = new Client({ name: "t", version: "0" });
    await c.connect(b);
    const abort = new AbortController();
    const call = c.callTool({ name: "run_in_terminal", arguments: { command: "sleep 99" } }, { signal: abort.signal });
    for (let i = 0; i < 100 && !asked.some((x) => x.method === "terminal/wait_for_exit"); i++)
      await new Promise((r) => setTimeout(r, 5));
    abort.abort();
    await call.catch(() => undefined);
    for (let i = 0; i < 100 && !asked.some((x) => x.method === "terminal/release"); i++)
      await new Promise((r) => setTimeout(r, 5));
    expect(asked.map((x) => x.method)).toEqual([
      "terminal/create",
      "terminal/wait_for_exit",
      "terminal/kill",
      "terminal/output",
      "terminal/release",
    ]);
    await c.close();
  });
});

describe("the editor's tools on any input (fuzzed strings)", () => {
  it("always answer a result, and ask the client only for an absolute path inside the roots", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          anyString,
          anyString.map((s) => `/work/${s}`),
          anyString.map((s) => `/${s}`),
        ),
        fc.constantFrom("read_text_file", "write_text_file", "terminal_create", "run_in_terminal"),
        anyString,
        async (path, tool, text) => {
          const { port, asked } = scripted((m) =>
            m === "terminal/create"
              ? { result: { terminalId: text } }
              : { result: { content: text, output: text, exitCode: 0 } },
          );
          const args =
            tool === "read_text_file"
              ? { path }
              : tool === "write_text_file"
                ? { path, content: text }
                : { command: text === "" ? "x" : text, cwd: path };
          const r = await call(port, tool, args);
          expect(typeof r.text).toBe("string");
          const allowed = pathProblem(path, port.roots, "posix", false) === undefined;
          if (!allowed) expect(asked).toEqual([]);
          if (asked.length > 0) expect(allowed).toBe(true);
        },
      ),
      { numRuns: numRuns() },
    );
  });
});
