// The interop suite's fold and classifier (interop/fold.ts, interop/compare.ts), without real agents:
// the same hand-written turn on a v1 wire and a v2 wire folds to the same view, and differences are
// classified as the agent's other-version build or as lost by the bridge.
import { describe, expect, it } from "vitest";
import { classify, renderReport, compareRuns, type RunOutcome } from "../../interop/compare.js";
import { changedLines, fold, patchLines, stashCount, wireFromTrace, type View } from "../../interop/fold.js";
import type { WireEntry } from "../support/peers.js";
import { findWireProblems } from "../support/peers.js";

const CWD = "/w/work";
const S = "sess-1";
const b64 = (t: string): string => Buffer.from(t).toString("base64");

function out(id: number, method: string, params: unknown): WireEntry {
  return { dir: "out", msg: { jsonrpc: "2.0", id, method, params } };
}
function resp(id: number | string, result: unknown): WireEntry {
  return { dir: "in", msg: { jsonrpc: "2.0", id, result } };
}
function upd(update: Record<string, unknown>): WireEntry {
  return { dir: "in", msg: { jsonrpc: "2.0", method: "session/update", params: { sessionId: S, update } } };
}

const modes = [
  { value: "default", name: "Manual" },
  { value: "acceptEdits", name: "Accept edits" },
];

function v1Turn(): WireEntry[] {
  return [
    out(1, "initialize", { protocolVersion: 1, clientCapabilities: { _meta: { terminal_output: true } } }),
    resp(1, {
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: true, audio: false },
        mcpCapabilities: { http: true },
        sessionCapabilities: { fork: {}, _meta: { x: 1 } },
        _meta: { vendor: { on: true } },
      },
    }),
    out(2, "session/new", { cwd: CWD, mcpServers: [] }),
    resp(2, {
      sessionId: S,
      modes: {
        currentModeId: "acceptEdits",
        availableModes: [
          { id: "default", name: "Manual" },
          { id: "acceptEdits", name: "Accept edits" },
        ],
      },
      configOptions: [
        { id: "mode", name: "Mode", category: "mode", type: "select", currentValue: "acceptEdits", options: modes },
        {
          id: "fast",
          name: "Fast",
          type: "select",
          currentValue: "off",
          options: [
            { value: "on", name: "On" },
            { value: "off", name: "Off" },
          ],
        },
      ],
    }),
    upd({ sessionUpdate: "available_commands_update", availableCommands: [{ name: "init", description: "i" }] }),
    out(3, "session/prompt", { sessionId: S, prompt: [{ type: "text", text: "go" }] }),
    upd({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "Let me " } }),
    upd({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "think." } }),
    upd({ sessionUpdate: "tool_call", toolCallId: "e1", title: "Edit notes.txt", kind: "edit", status: "pending" }),
    upd({
      sessionUpdate: "tool_call_update",
      toolCallId: "e1",
      status: "completed",
      // A v1 snippet diff: the edited line only.
      content: [{ type: "diff", path: `${CWD}/notes.txt`, oldText: "gamma", newText: "GAMMA" }],
      locations: [{ path: `${CWD}/notes.txt`, line: 3 }],
    }),
    upd({
      sessionUpdate: "tool_call",
      toolCallId: "b1",
      title: "Terminal",
      kind: "execute",
      status: "pending",
      content: [{ type: "terminal", terminalId: "b1" }],
      _meta: { terminal_info: { terminal_id: "b1" } },
    }),
    {
      dir: "in",
      msg: {
        jsonrpc: "2.0",
        id: 0,
        method: "session/request_permission",
        params: {
          sessionId: S,
          toolCall: { toolCallId: "b1", title: "ls", content: [{ type: "terminal", terminalId: "b1" }] },
          options: [
            { optionId: "a", name: "Yes", kind: "allow_once" },
            { optionId: "r", name: "No", kind: "reject_once" },
          ],
        },
      },
    },
    { dir: "out", msg: { jsonrpc: "2.0", id: 0, result: { outcome: { outcome: "selected", optionId: "a" } } } },
    upd({ sessionUpdate: "tool_call_update", toolCallId: "b1", title: "ls" }),
    upd({
      sessionUpdate: "tool_call_update",
      toolCallId: "b1",
      _meta: { terminal_output: { terminal_id: "b1", data: "a.txt\n" } },
    }),
    upd({
      sessionUpdate: "tool_call_update",
      toolCallId: "b1",
      status: "completed",
      _meta: { terminal_exit: { terminal_id: "b1", exit_code: 0, signal: null } },
    }),
    upd({
      sessionUpdate: "plan",
      entries: [{ content: "Review", status: "completed", priority: "medium" }],
    }),
    upd({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "All " } }),
    upd({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "done." } }),
    upd({ sessionUpdate: "usage_update", used: 10, size: 100 }),
    resp(3, { stopReason: "end_turn", usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 } }),
    upd({ sessionUpdate: "session_info_update", title: "Tidy", updatedAt: "2026-01-01T00:00:00Z" }),
  ];
}

function v2Turn(): WireEntry[] {
  const patch =
    `diff --git ${CWD}/notes.txt ${CWD}/notes.txt\n--- ${CWD}/notes.txt\n+++ ${CWD}/notes.txt\n` +
    "@@ -1,5 +1,5 @@\n alpha\n beta\n-gamma\n+GAMMA\n delta\n epsilon\n";
  return [
    out(1, "initialize", { protocolVersion: 2, info: { name: "c", version: "1" } }),
    resp(1, {
      protocolVersion: 2,
      info: { name: "a", version: "1" },
      capabilities: {
        session: { prompt: { image: {} }, mcp: { stdio: {}, http: {} }, fork: {}, _meta: { x: 1 } },
        // The bridge's stash is not what the agent advertised.
        _meta: { vendor: { on: true }, "acp-bridge": { v: 1 } },
      },
    }),
    out(2, "session/new", { cwd: CWD }),
    resp(2, {
      sessionId: S,
      configOptions: [
        {
          configId: "mode",
          name: "Mode",
          category: "mode",
          type: "select",
          currentValue: "acceptEdits",
          options: modes,
        },
        { configId: "fast", name: "Fast", type: "boolean", currentValue: false },
      ],
      availableCommands: [{ type: "command", name: "init", description: "i" }],
    }),
    out(3, "session/prompt", { sessionId: S, prompt: [{ type: "text", text: "go" }] }),
    resp(3, { messageId: "u1" }),
    upd({ sessionUpdate: "state_update", state: "running" }),
    upd({ sessionUpdate: "agent_thought_chunk", messageId: "t1", content: { type: "text", text: "Let me think." } }),
    upd({
      sessionUpdate: "tool_call_update",
      toolCallId: "e1",
      title: "Edit notes.txt",
      kind: "edit",
      status: "pending",
    }),
    upd({
      sessionUpdate: "tool_call_update",
      toolCallId: "e1",
      status: "completed",
      content: [
        {
          type: "diff",
          changes: [{ operation: "modify", path: `${CWD}/notes.txt`, fileType: "text" }],
          patch: { format: "git_patch", text: patch },
        },
      ],
      locations: [{ path: `${CWD}/notes.txt`, line: 3 }],
    }),
    upd({ sessionUpdate: "terminal_update", terminalId: "b1", command: "ls" }),
    upd({
      sessionUpdate: "tool_call_update",
      toolCallId: "b1",
      title: "Terminal",
      kind: "execute",
      status: "pending",
      content: [{ type: "terminal", terminalId: "b1" }],
    }),
    {
      dir: "in",
      msg: {
        jsonrpc: "2.0",
        id: 0,
        method: "session/request_permission",
        params: {
          sessionId: S,
          title: "ls",
          subject: {
            type: "tool_call",
            toolCall: { toolCallId: "b1", title: "ls", content: [{ type: "terminal", terminalId: "b1" }] },
          },
          options: [
            { optionId: "a", name: "Yes", kind: "allow_once" },
            { optionId: "r", name: "No", kind: "reject_once" },
          ],
        },
      },
    },
    { dir: "out", msg: { jsonrpc: "2.0", id: 0, result: { outcome: { outcome: "selected", optionId: "a" } } } },
    upd({ sessionUpdate: "tool_call_update", toolCallId: "b1", title: "ls" }),
    upd({ sessionUpdate: "terminal_output_chunk", terminalId: "b1", data: b64("a.") }),
    upd({ sessionUpdate: "terminal_output_chunk", terminalId: "b1", data: b64("txt\n") }),
    upd({ sessionUpdate: "terminal_update", terminalId: "b1", exitStatus: { exitCode: 0 } }),
    upd({ sessionUpdate: "tool_call_update", toolCallId: "b1", status: "completed" }),
    upd({
      sessionUpdate: "plan_update",
      plan: { type: "items", planId: "p", entries: [{ content: "Review", status: "completed", priority: "medium" }] },
    }),
    upd({ sessionUpdate: "agent_message", messageId: "m1", content: [{ type: "text", text: "All done." }] }),
    upd({ sessionUpdate: "usage_update", used: 10, size: 100 }),
    upd({
      sessionUpdate: "state_update",
      state: "idle",
      stopReason: "end_turn",
      usage: { totalTokens: 7, inputTokens: 5, outputTokens: 2 },
    }),
    upd({ sessionUpdate: "session_info_update", title: "Tidy" }),
  ];
}

function view(items: Record<string, string>): View {
  return { items, notes: {}, sources: {} };
}

describe("interop fold", () => {
  it("the hand-written wires are valid in their versions", () => {
    expect(findWireProblems(1, v1Turn(), { allowUnknownMethods: false })).toEqual([]);
    expect(findWireProblems(2, v2Turn(), { allowUnknownMethods: false })).toEqual([]);
  });

  it("folds the same turn on a v1 and a v2 wire into the same view", () => {
    const a = fold(v1Turn(), 1);
    const b = fold(v2Turn(), 2);
    expect(a.items).toEqual(b.items);
    expect(a.items).toMatchObject({
      message: "All done.",
      thought: "Let me think.",
      stopReason: "end_turn",
      usage: '{"inputTokens":5,"outputTokens":2,"totalTokens":7}',
      title: "Tidy",
      commands: "init",
      plan: "completed:Review",
      mode: 'current="acceptEdits" options=acceptEdits,default',
      "config.fast": "boolean current=false",
      "tool[0].title": "Edit notes.txt",
      "tool[0].status": "completed",
      "tool[0].locations": "<cwd>/notes.txt:3",
      "tool[0].content": "diff:<cwd>/notes.txt -gamma | +GAMMA",
      "tool[1].content": "terminal",
      "tool[1].terminal": 'output="a.txt" exit=0',
      "permission[0]": "ls | allow_once,reject_once",
      "permission[0].content": "terminal",
      "capability.session.prompt.image": "yes",
      "capability.session.mcp.http": "yes",
      "capability.session.fork": "{}",
      "capability.session._meta": '{"x":1}',
      "capability._meta": '{"vendor":{"on":true}}',
    });
    expect(a.items["capability.session.prompt.audio"]).toBeUndefined();
    // Whether full texts were given is noted, not compared.
    expect(a.notes["tool[0].content"]).toMatch(/v1 texts/);
    expect(b.notes["tool[0].content"]).toBe("v2 patch");
  });

  it("a terminal rendered as text is text, not a terminal", () => {
    const wire = v2Turn().filter((e) => !(e.msg as any)?.params?.update?.sessionUpdate?.startsWith?.("terminal_"));
    const asText = wire.map((e) => {
      const u = (e.msg as any)?.params?.update;
      if (u?.toolCallId !== "b1" || !u.content) return e;
      const content = [{ type: "content", content: { type: "text", text: "a.txt" } }];
      return upd({ ...u, content });
    });
    const items = fold(asText, 2).items;
    expect(items["tool[1].content"]).toBe("text:a.txt");
    expect(items["tool[1].terminal"]).toBeUndefined();
  });

  it("reads the v1 `_meta` terminal convention only on v1 wires", () => {
    const wire = v1Turn().map((e) => e);
    expect(fold(wire, 1).items["tool[1].terminal"]).toBe('output="a.txt" exit=0');
    expect(fold(wire, 2).items["tool[1].terminal"]).toBeUndefined();
  });

  it("reads terminal_output_delta, the adapters' key toward a client that did not opt in, as output", () => {
    const wire = v1Turn().map((e) => {
      const meta = (e.msg as any)?.params?.update?._meta;
      if (!meta?.terminal_output) return e;
      const { terminal_output, ...rest } = meta;
      const update = { ...(e.msg as any).params.update, _meta: { ...rest, terminal_output_delta: terminal_output } };
      return { ...e, msg: { ...(e.msg as any), params: { ...(e.msg as any).params, update } } };
    });
    expect(JSON.stringify(wire)).toContain("terminal_output_delta");
    expect(fold(wire, 1).items["tool[1].terminal"]).toBe('output="a.txt" exit=0');
  });

  it("compares snippet and full diff texts by their changed lines", () => {
    expect(changedLines("gamma", "GAMMA")).toEqual(["-gamma", "+GAMMA"]);
    expect(changedLines("alpha\nbeta\ngamma\ndelta\n", "alpha\nbeta\nGAMMA\ndelta\n")).toEqual(["-gamma", "+GAMMA"]);
    expect(changedLines("", 'print("hi")\n')).toEqual(['+print("hi")']);
    expect(patchLines("--- a\n+++ b\n@@ -1 +1 @@\n-gamma\n+GAMMA\n ctx\n")).toEqual(["-gamma", "+GAMMA"]);
  });

  it("counts the messages that carry the bridge's stash, and its bytes", () => {
    const stash = { v: 1, from: 2 };
    const wire: WireEntry[] = [
      upd({
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: "a", _meta: { "acp-bridge": stash } },
      }),
      upd({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "b" }, _meta: { other: 1 } }),
      { dir: "out", msg: { jsonrpc: "2.0", id: 1, method: "x", params: { _meta: { "acp-bridge": stash } } } },
    ];
    expect(stashCount(wire)).toEqual({ messages: 1, bytes: JSON.stringify(stash).length });
  });

  it("reads the agent side of a bridge --trace file", () => {
    const trace = [
      {
        type: "request",
        ts: 0,
        protocol: "acp",
        from: "acp-bridge",
        to: "agent",
        id: 3,
        method: "session/prompt",
        params: {},
      },
      {
        type: "notification",
        ts: 1,
        protocol: "acp",
        from: "agent",
        to: "acp-bridge",
        method: "session/update",
        params: { x: 1 },
      },
      {
        type: "response",
        ts: 2,
        protocol: "acp",
        from: "agent",
        to: "acp-bridge",
        id: 3,
        is_error: false,
        payload: { stopReason: "end_turn" },
      },
      {
        type: "response",
        ts: 3,
        protocol: "acp",
        from: "acp-bridge",
        to: "client",
        id: 9,
        is_error: true,
        payload: { code: 1 },
      },
    ];
    expect(wireFromTrace(trace.map((t) => JSON.stringify(t)).join("\n") + "\n")).toEqual([
      { dir: "out", msg: { jsonrpc: "2.0", id: 3, method: "session/prompt", params: {} } },
      { dir: "in", msg: { jsonrpc: "2.0", method: "session/update", params: { x: 1 } } },
      { dir: "in", msg: { jsonrpc: "2.0", id: 3, result: { stopReason: "end_turn" } } },
    ]);
  });
});

describe("interop classifier", () => {
  it("classifies what the client did not get although the agent sent it as bridge-lost", () => {
    const direct = view({ usage: "u", message: "m" });
    const agent = view({ usage: "u", message: "m" });
    const bridged = view({ message: "m" });
    expect(classify(direct, bridged, agent)).toMatchObject([
      { cls: "bridge-lost", key: "usage", direct: "u", agent: "u" },
    ]);
  });

  it("classifies what the agent's other-version build sends differently as agent-other-version", () => {
    const direct = view({ "config.fast": "on/off", title: "t" });
    const agent = view({ "config.fast": "boolean", title: "t" });
    const bridged = view({ "config.fast": "boolean", title: "t" });
    expect(classify(direct, bridged, agent)).toMatchObject([{ cls: "agent-other-version", key: "config.fast" }]);
  });

  it("counts a bridge that changed what the agent sent as bridge-lost, even when the direct run agrees", () => {
    expect(classify(view({ k: "x" }), view({ k: "y" }), view({ k: "x" }))).toMatchObject([{ cls: "bridge-lost" }]);
    // The agent sent it, the same-version build does not, and the client did not get it.
    expect(classify(view({}), view({}), view({ k: "x" }))).toMatchObject([{ cls: "bridge-lost", key: "k" }]);
  });

  it("accepts what the bridge rebuilt exactly as the same-version build shows it", () => {
    expect(classify(view({ modes: "m" }), view({ modes: "m" }), view({}))).toEqual([]);
    expect(classify(view({ modes: "m" }), view({ modes: "other" }), view({}))).toMatchObject([{ cls: "bridge-lost" }]);
  });

  it("renders a table with the counts and fails the run on bridge-lost", () => {
    const run = (
      clientVersion: 1 | 2,
      agentVersion: 1 | 2,
      items: Record<string, string>,
      agent?: Record<string, string>,
    ): RunOutcome => ({
      label: `x-v${clientVersion}-v${agentVersion}`,
      agentVersion,
      clientVersion,
      via: clientVersion === agentVersion ? "direct" : "bridge",
      view: view(items),
      ...(agent ? { agentView: view(agent) } : {}),
      schemaProblems: [],
      stash: { messages: 0, bytes: 0 },
      failures: [],
    });
    const result = compareRuns(
      "claude",
      new Map([
        [1, run(1, 1, { usage: "u" })],
        [2, run(2, 2, { usage: "u" })],
      ]),
      [run(2, 1, {}, { usage: "u" }), run(1, 2, { usage: "u" }, { usage: "u" })],
    );
    expect(result.rows.map((r) => [r.direction, r.bridgeLost, r.otherVersion])).toEqual([
      ["v2 client → bridge → v1 agent", 1, 0],
      ["v1 client → bridge → v2 agent", 0, 0],
    ]);
    // One version only (Gemini CLI): the agent's side is the reference.
    const single = compareRuns("gemini", new Map([[1, run(1, 1, { usage: "u" })]]), [
      run(2, 1, { title: "t" }, { usage: "u", title: "t" }),
    ]);
    expect(single.rows[0]!.differences).toMatchObject([{ cls: "bridge-lost", key: "usage" }]);
    const md = renderReport([result], new Date(0));
    expect(md).toContain("| claude | v2 client → bridge → v1 agent | ok | 0 | 0 | 0 | 1 | 0 (0) |");
    expect(md).toContain("bridge-lost `usage`");
  });
});
