// The editor scenario's scripting and checks (interop/editor-scenario.ts, the editor scripts of the
// Anthropic and Responses mocks): the scripted model finds the editor's tools under the names each
// agent gives them (Claude Code's `mcp__editor__…`, Codex's namespace, loaded by tool_search), plays
// read, write and terminal in order, and the checks tell the buffer from the disk. No real agent.
import { describe, expect, it } from "vitest";
import { editorBlocks, editorResults, toolResults } from "../../interop/mocks/anthropic.js";
import {
  codexEditorPicker,
  codexEditorResults,
  EDITOR_SEARCH_QUERY,
  offeredTools,
} from "../../interop/mocks/openai-editor.js";
import {
  checkEditorRun,
  EDITOR_SCENARIO,
  editorServerEntry,
  findEditorTool,
  transportOf,
} from "../../interop/editor-scenario.js";
import { renderEditorSection } from "../../interop/editor-run.js";
import type { WireEntry } from "../../test/support/peers.js";

const CWD = "/tmp/interop-editor-ws";
const EDITOR = ["read_text_file", "write_text_file", "run_in_terminal", "terminal_create"];
const sc = EDITOR_SCENARIO;

describe("editor tool names", () => {
  it("finds a tool under mcp__editor__ first, else under another sanitized server name", () => {
    expect(findEditorTool(["Read", "mcp__editor__read_text_file"], "read_text_file")).toBe(
      "mcp__editor__read_text_file",
    );
    expect(findEditorTool(["mcp__acp-bridge-editor__read_text_file"], "read_text_file")).toBe(
      "mcp__acp-bridge-editor__read_text_file",
    );
    expect(findEditorTool(["read_text_file", "mcp__editor__write_text_file"], "read_text_file")).toBeUndefined();
  });
});

describe("the Anthropic editor script (Claude Code)", () => {
  const tools = (names: string[]): unknown[] => names.map((name) => ({ name, input_schema: {} }));
  const claudeTools = tools(["Read", "Bash", "ToolSearch", ...EDITOR.map((t) => `mcp__editor__${t}`)]);

  /** Play the script to the end, answering each call with `answer(name, input)`. */
  function play(body: { tools: unknown[] }, answer: (name: string, input: any) => string): any[] {
    const messages: any[] = [{ role: "user", content: [{ type: "text", text: sc.prompt }] }];
    for (let i = 0; i < 10; i++) {
      const blocks = editorBlocks({ ...body, messages }, CWD);
      messages.push({ role: "assistant", content: blocks });
      const use = blocks.find((b) => b.type === "tool_use");
      if (use === undefined) return messages;
      messages.push({
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: use.id,
            content: [{ type: "text", text: answer(String(use.name), use.input) }],
          },
        ],
      });
    }
    throw new Error("the script did not end");
  }

  it("calls read, write and run_in_terminal by their mcp__editor__ names with absolute paths, then answers", () => {
    const messages = play({ tools: claudeTools }, (name) => `result of ${name}`);
    const uses = messages.flatMap((m) => m.content).filter((b: any) => b.type === "tool_use");
    expect(uses.map((u: any) => [u.name, u.input])).toEqual([
      ["mcp__editor__read_text_file", { path: `${CWD}/draft.md` }],
      ["mcp__editor__write_text_file", { path: `${CWD}/summary.md`, content: sc.steps.write.content }],
      ["mcp__editor__run_in_terminal", { command: "echo", args: ["editor-terminal-ok"] }],
    ]);
    expect(messages.at(-1).content).toEqual([{ type: "text", text: sc.steps.answer }]);
    const seen = editorResults(toolResults({ messages }));
    expect(seen).toEqual({
      read: "result of mcp__editor__read_text_file",
      write: "result of mcp__editor__write_text_file",
      terminal: "result of mcp__editor__run_in_terminal",
    });
  });

  it("loads deferred editor tools with one ToolSearch call, then calls them", () => {
    const first = editorBlocks({ tools: tools(["Read", "ToolSearch"]), messages: [] }, CWD);
    expect(first).toEqual([
      {
        type: "tool_use",
        id: "toolu_editor_search",
        name: "ToolSearch",
        input: {
          query: "select:mcp__editor__read_text_file,mcp__editor__write_text_file,mcp__editor__run_in_terminal",
        },
      },
    ]);
    const searched = [
      { role: "assistant", content: first },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_editor_search", content: "loaded" }] },
    ];
    // Still not offered after the search: the turn ends with a text saying so (the checks fail).
    const stuck = editorBlocks({ tools: tools(["Read", "ToolSearch"]), messages: searched }, CWD);
    expect(stuck[0]).toMatchObject({ type: "text", text: expect.stringContaining("read_text_file") });
    const next = editorBlocks({ tools: claudeTools, messages: searched }, CWD);
    expect(next[0]).toMatchObject({ type: "tool_use", name: "mcp__editor__read_text_file" });
  });
});

describe("the Responses editor script (Codex)", () => {
  const namespace = {
    type: "namespace",
    name: "mcp__editor",
    description: "Tools in the mcp__editor namespace.",
    tools: EDITOR.map((name) => ({ type: "function", name, defer_loading: true, parameters: {} })),
  };
  const base = [
    { type: "function", name: "exec_command", parameters: {} },
    { type: "tool_search", execution: "client", parameters: {} },
  ];

  /** Play the script as Codex 0.166 does: tool_search loads the namespace into the input. */
  function play(tools: unknown[], deferred: boolean): any[] {
    const pick = codexEditorPicker(CWD);
    const input: any[] = [{ type: "message", role: "user", content: [{ type: "input_text", text: sc.prompt }] }];
    for (let i = 0; i < 10; i++) {
      const item = pick({ tools, input });
      input.push(item);
      if (item.type === "message") return input;
      if (item.type === "tool_search_call") {
        expect(deferred).toBe(true);
        input.push({
          type: "tool_search_output",
          call_id: item.call_id,
          status: "completed",
          execution: "client",
          tools: [namespace],
        });
      } else {
        const name = `${typeof item.namespace === "string" ? item.namespace : ""}/${String(item.name)}`;
        input.push({ type: "function_call_output", call_id: item.call_id, output: `out of ${name}` });
      }
    }
    throw new Error("the script did not end");
  }

  it("searches for the deferred editor tools once, then calls them in their namespace", () => {
    const input = play(base, true);
    const search = input.find((i) => i.type === "tool_search_call");
    expect(search).toMatchObject({ execution: "client", arguments: { query: EDITOR_SEARCH_QUERY } });
    const calls = input.filter((i) => i.type === "function_call");
    expect(calls.map((c) => [c.namespace, c.name, JSON.parse(c.arguments)])).toEqual([
      ["mcp__editor", "read_text_file", { path: `${CWD}/draft.md` }],
      ["mcp__editor", "write_text_file", { path: `${CWD}/summary.md`, content: sc.steps.write.content }],
      ["mcp__editor", "run_in_terminal", { command: "echo", args: ["editor-terminal-ok"] }],
    ]);
    expect(input.at(-1).content[0].text).toBe(sc.steps.answer);
    expect(codexEditorResults({ input })).toEqual({
      read: "out of mcp__editor/read_text_file",
      write: "out of mcp__editor/write_text_file",
      terminal: "out of mcp__editor/run_in_terminal",
    });
  });

  it("calls tools offered directly (namespace in the tool list, or flat mcp__editor__ functions) without searching", () => {
    expect(play([...base, namespace], false).filter((i) => i.type === "function_call")).toHaveLength(3);
    const flat = EDITOR.map((t) => ({ type: "function", name: `mcp__editor__${t}`, parameters: {} }));
    const pick = codexEditorPicker(CWD);
    const item = pick({ tools: [...base, ...flat], input: [] });
    expect(item).toMatchObject({ type: "function_call", name: "mcp__editor__read_text_file" });
    expect(item).not.toHaveProperty("namespace");
  });

  it("answers side requests (no tools) with text, and lists namespaced tools under their full names", () => {
    expect(codexEditorPicker(CWD)({ input: [] })).toMatchObject({ type: "message" });
    expect(offeredTools({ tools: [namespace] }).map((t) => t.full)).toContain("mcp__editor__read_text_file");
  });
});

describe("the editor scenario's checks", () => {
  const inReq = (id: number, method: string, params: object): WireEntry => ({
    dir: "in",
    msg: { jsonrpc: "2.0", id, method, params: { sessionId: "s", ...params } },
  });
  const wire: WireEntry[] = [
    inReq(1, "fs/read_text_file", { path: `${CWD}/draft.md` }),
    inReq(2, "fs/write_text_file", { path: `${CWD}/summary.md`, content: sc.steps.write.content }),
    inReq(3, "terminal/create", { command: "echo", args: ["editor-terminal-ok"] }),
  ];
  const results = {
    read: sc.buffers["draft.md"] ?? "",
    write: "Wrote 35 bytes",
    terminal: "editor-terminal-ok\n[exit code 0]",
  };

  it("pass when the model got the buffer, the editor got the write and ran the command", () => {
    expect(checkEditorRun({ cwd: CWD, clientWire: wire, results, writtenOnDisk: false })).toEqual({
      read: true,
      write: true,
      terminal: true,
      failures: [],
    });
  });

  it("fail when the model got the disk's text, the file reached the disk, or the output is missing", () => {
    const v = checkEditorRun({
      cwd: CWD,
      clientWire: wire,
      results: { ...results, read: `${sc.files["draft.md"]}`, terminal: "Wall time: 0.01 s" },
      writtenOnDisk: true,
    });
    expect([v.read, v.write, v.terminal]).toEqual([false, false, false]);
    expect(v.failures.join("\n")).toMatch(
      /not the buffer's text[\s\S]*exists on disk[\s\S]*without editor-terminal-ok/,
    );
  });

  it("fail when the client never got the editor requests", () => {
    const v = checkEditorRun({ cwd: CWD, clientWire: [], results, writtenOnDisk: false });
    expect(v.failures).toHaveLength(3);
    expect(v.failures.join("\n")).toMatch(
      /no fs\/read_text_file[\s\S]*no fs\/write_text_file[\s\S]*no terminal\/create/,
    );
  });

  it("reads the transport from the editor entry the bridge added to the agent's session/new", () => {
    const agentWire: WireEntry[] = [
      {
        dir: "out",
        msg: {
          jsonrpc: "2.0",
          id: 2,
          method: "session/new",
          params: {
            cwd: CWD,
            mcpServers: [
              { type: "stdio", name: "mine", command: "x", args: [], env: [] },
              { type: "http", name: "editor", url: "http://127.0.0.1:41234/mcp", headers: [] },
            ],
          },
        },
      },
    ];
    expect(transportOf(editorServerEntry(agentWire))).toBe("http (http://127.0.0.1:PORT/mcp)");
    expect(transportOf({ name: "editor", command: "node", args: [] })).toBe("stdio");
    expect(transportOf({ type: "acp", name: "editor", serverId: "x" })).toBe("acp");
    expect(transportOf(editorServerEntry([]))).toMatch(/^none/);
  });

  it("renders one row per agent and lists the failures of a failed one", () => {
    const ok = { agent: "claude", transport: "http (…)", read: true, write: true, terminal: true, turnEnded: true };
    const text = renderEditorSection([
      { ...ok, schemaProblems: [], failures: [] },
      { ...ok, agent: "codex", read: false, schemaProblems: [], failures: ["read: nope"] },
    ]);
    expect(text).toContain("| claude | http (…) | ok | ok | ok | ok | 0 |");
    expect(text).toContain("| codex | http (…) | FAILED | ok | ok | ok | 0 |");
    expect(text).toContain("### codex: failures\n\n- read: nope");
  });
});
