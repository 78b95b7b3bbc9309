// The fold's version-neutral forms that the real agents needed (interop/fold.ts): a plan read by its
// shape, selectors (mode, model) under one key whatever their shape, the run's scratch paths as
// placeholders, and the version an agent really answered behind the bridge (interop/launch.ts).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { classify } from "../../interop/compare.js";
import { fold, hasPlaceIn, placeholders, selectorText, spokenVersion, type View } from "../../interop/fold.js";
import { bridgeLaunch, versionFailures } from "../../interop/launch.js";
import type { WireEntry } from "../support/peers.js";
import { findWireProblems } from "../support/peers.js";

const S = "sess-1";

function out(id: number, method: string, params: unknown): WireEntry {
  return { dir: "out", msg: { jsonrpc: "2.0", id, method, params } };
}
function resp(id: number, result: unknown): WireEntry {
  return { dir: "in", msg: { jsonrpc: "2.0", id, result } };
}
function upd(update: Record<string, unknown>): WireEntry {
  return { dir: "in", msg: { jsonrpc: "2.0", method: "session/update", params: { sessionId: S, update } } };
}

/** A recorded fixture (interop/fixtures) as a client wire. */
function fixture(name: string): WireEntry[] {
  return readFileSync(new URL(`../../interop/fixtures/${name}.ndjson`, import.meta.url), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { from: string; message: unknown })
    .map((l) => ({ dir: l.from === "client" ? "out" : "in", msg: l.message }));
}

const entries = [{ content: "Review notes.txt", status: "completed", priority: "medium" }];

describe("the plan is read by its shape", () => {
  it("a v2 plan_update on a wire folded as v1, and a v1 plan folded as v2, give the plan", () => {
    // Codex answers whichever version it is asked: its wire behind a pass-through bridge had
    // the other version's plan shape, and the agent side folded to an empty plan.
    const v2 = [
      upd({ sessionUpdate: "plan_update", plan: { type: "items", planId: "codex-structured-plan", entries } }),
    ];
    const v1 = [upd({ sessionUpdate: "plan", entries })];
    expect(fold(v2, 1).items.plan).toBe("completed:Review notes.txt");
    expect(fold(v2, 2).items.plan).toBe("completed:Review notes.txt");
    expect(fold(v1, 2).items.plan).toBe("completed:Review notes.txt");
  });
});

describe("the run's scratch paths are placeholders in every folded string", () => {
  const turn = (root: string): WireEntry[] => [
    out(1, "session/new", { cwd: `${root}/work`, mcpServers: [] }),
    resp(1, { sessionId: S }),
    upd({
      sessionUpdate: "tool_call",
      toolCallId: "r1",
      title: `Read file '${root}/work/notes.txt'`,
      kind: "read",
      status: "completed",
      content: [{ type: "content", content: { type: "text", text: `config in ${root}/home/.codex` } }],
    }),
    upd({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: `Saved ${root}/work/hello.py` } }),
  ];

  it("two runs in different workspaces fold to the same view", () => {
    const a = fold(turn("/tmp/acp-interop-codex-v1-direct-v1-Y80kj4"), 1, {
      home: "/tmp/acp-interop-codex-v1-direct-v1-Y80kj4/home",
    });
    const b = fold(turn("/tmp/acp-interop-codex-v2-bridge-v1-9ETzX3"), 1, {
      home: "/tmp/acp-interop-codex-v2-bridge-v1-9ETzX3/home",
    });
    expect(a.items).toEqual(b.items);
    expect(a.items).toMatchObject({
      "tool[0].title": "Read file '<cwd>/notes.txt'",
      "tool[0].content": "text:config in <home>/.codex",
      message: "Saved <cwd>/hello.py",
    });
    // Without the HOME, only the cwd is known.
    expect(fold(turn("/r"), 1).items["tool[0].content"]).toBe("text:config in /r/home/.codex");
  });

  it("replaces the longer path first and every occurrence", () => {
    expect(placeholders("/h/w/x and /h/y and /h/w", { home: "/h", cwd: "/h/w" })).toBe(
      "<cwd>/x and <home>/y and <cwd>",
    );
    expect(placeholders("/a", { cwd: undefined, home: "" })).toBe("/a");
  });
});

describe("selectors fold to one key whatever their shape", () => {
  const availableModes = [
    { id: "default", name: "Default" },
    { id: "yolo", name: "YOLO" },
  ];
  const availableModels = [
    { modelId: "auto", name: "Auto" },
    { modelId: "gemini-2.5-pro", name: "Pro" },
  ];
  // Gemini CLI (v1): `modes` and the legacy `models`, its current model not among those offered.
  const v1: WireEntry[] = [
    out(2, "session/new", { cwd: "/w", mcpServers: [] }),
    resp(2, {
      sessionId: S,
      modes: { currentModeId: "default", availableModes },
      models: { currentModelId: "gemini-2.5-flash", availableModels },
    }),
  ];
  // What the bridge gives a v2 client: config options of category mode and model, the current
  // model added to the options (a v2 select lists its current value).
  const v2: WireEntry[] = [
    out(2, "session/new", { cwd: "/w" }),
    resp(2, {
      sessionId: S,
      configOptions: [
        {
          configId: "mode",
          name: "Mode",
          category: "mode",
          type: "select",
          currentValue: "default",
          options: availableModes.map((m) => ({ value: m.id, name: m.name })),
        },
        {
          configId: "model",
          name: "Model",
          category: "model",
          type: "select",
          currentValue: "gemini-2.5-flash",
          options: [
            ...availableModels.map((m) => ({ value: m.modelId, name: m.name })),
            { value: "gemini-2.5-flash", name: "gemini-2.5-flash" },
          ],
        },
      ],
    }),
  ];

  it("v1 modes and legacy models, and v2 config options of those categories, fold equal", () => {
    expect(findWireProblems(2, v2, { allowUnknownMethods: false })).toEqual([]);
    const a = fold(v1, 1);
    const b = fold(v2, 2);
    expect(a.items).toEqual(b.items);
    expect(b.items).toEqual({
      mode: 'current="default" options=default,yolo',
      model: 'current="gemini-2.5-flash" options=auto,gemini-2.5-flash,gemini-2.5-pro',
    });
    expect(classify(a, b, a)).toEqual([]);
  });

  it("a changed current value or a dropped option is still a difference", () => {
    expect(selectorText("a", ["a", "b"])).not.toBe(selectorText("b", ["a", "b"]));
    expect(selectorText("a", ["a", "b"])).not.toBe(selectorText("a", ["a"]));
    expect(selectorText("a", ["b"])).toBe(selectorText("a", ["a", "b"]));
  });

  it("follows current_mode_update and config_option_update, whichever shape came last", () => {
    const moved = fold([...v1, upd({ sessionUpdate: "current_mode_update", currentModeId: "yolo" })], 1);
    expect(moved.items.mode).toBe('current="yolo" options=default,yolo');
    const option = {
      configId: "mode",
      name: "Mode",
      category: "mode",
      type: "select",
      currentValue: "yolo",
      options: [{ value: "yolo", name: "YOLO" }],
    };
    const updated = fold([...v2, upd({ sessionUpdate: "config_option_update", configOptions: [option] })], 2);
    expect(updated.items.mode).toBe('current="yolo" options=yolo');
  });

  it("the recorded Gemini CLI wires, direct v1 and v2 behind the bridge, agree on mode and model", () => {
    const direct = fold(fixture("gemini-v1"), 1).items;
    const bridged = fold(fixture("gemini-v2-bridge-v1"), 2).items;
    expect(direct.model).toMatch(/^current="gemini-2.5-flash" options=.*gemini-2.5-flash/);
    expect(bridged.mode).toBe(direct.mode);
    expect(bridged.model).toBe(direct.model);
    expect(Object.keys(bridged).filter((k) => k.startsWith("config."))).toEqual([]);
  });
});

describe("a bridged run crosses a translation", () => {
  const agent = { command: "/cache/codex-acp", args: ["--x"], env: { A: "1" } };

  it("pins the agent's version for an agent that answers either version, and only for it", () => {
    expect(bridgeLaunch("/b.js", { versionForcedByLaunch: false }, 1, agent, "/t").args).toEqual([
      "/b.js",
      "--agent-protocol",
      "1",
      "--trace",
      "/t",
      "--",
      "/cache/codex-acp",
      "--x",
    ]);
    const probing = bridgeLaunch("/b.js", { versionForcedByLaunch: true }, 2, agent, "/t");
    expect(probing.args).toEqual(["/b.js", "--trace", "/t", "--", "/cache/codex-acp", "--x"]);
    expect(probing.env).toEqual({ A: "1" });
  });

  it("reads the version the agent answered, and fails a run where it is not the one expected", () => {
    const wire: WireEntry[] = [
      out(1, "initialize", { protocolVersion: 1 }),
      upd({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" } }),
      resp(1, { protocolVersion: 2 }),
    ];
    expect(spokenVersion(wire)).toBe(2);
    expect(spokenVersion([])).toBeUndefined();
    expect(versionFailures(2, 2)).toEqual([]);
    expect(versionFailures(2, 1)[0]).toMatch(/answered protocol version 2 behind the bridge, not 1/);
    expect(versionFailures(undefined, 1)[0]).toMatch(/version none/);
  });
});

describe("a permission request folds what both versions show, v2's own prompt apart", () => {
  const options = [
    { optionId: "a", name: "Yes", kind: "allow_once" },
    { optionId: "r", name: "No", kind: "reject_once" },
  ];
  const toolCall = { toolCallId: "e1", title: "Edit files", kind: "edit", status: "pending" };
  const ask = (params: Record<string, unknown>): WireEntry => ({
    dir: "in",
    msg: { jsonrpc: "2.0", id: 0, method: "session/request_permission", params: { sessionId: S, options, ...params } },
  });
  // Codex: its v2 build asks "Make edits?" about the tool call "Edit files", its v1 build
  // asks with the tool call alone.
  const v1 = [ask({ toolCall })];
  const v2 = [
    ask({
      title: "Make edits?",
      description: "The scenario needs approval.",
      subject: { type: "tool_call", toolCall },
    }),
  ];

  it("folds the tool call's title under permission[i] in both versions", () => {
    expect(findWireProblems(1, v1, { allowUnknownMethods: false })).toEqual([]);
    expect(findWireProblems(2, v2, { allowUnknownMethods: false })).toEqual([]);
    const permission = (items: Record<string, string>): Record<string, string> =>
      Object.fromEntries(Object.entries(items).filter(([k]) => k.startsWith("permission")));
    expect(permission(fold(v1, 1).items)).toEqual({ "permission[0]": "Edit files | allow_once,reject_once" });
    expect(permission(fold(v2, 2).items)).toEqual({
      "permission[0]": "Edit files | allow_once,reject_once",
      "permission[0].prompt": "Make edits? — The scenario needs approval.",
    });
    // A v2 prompt that repeats the tool call's title says nothing more (the bridge's v1 → v2 one).
    expect(permission(fold([ask({ title: "Edit files", subject: { type: "tool_call", toolCall } })], 2).items)).toEqual(
      {
        "permission[0]": "Edit files | allow_once,reject_once",
      },
    );
  });

  it("classifies v2's prompt a v1 client cannot get as no-place, and a v2 client's loss as bridge-lost", () => {
    const agent = fold(v2, 2);
    const v1Client = fold(v1, 1);
    expect(v1Client.items["tool[0].title"]).toBe(agent.items["tool[0].title"]);
    expect(classify(v1Client, v1Client, agent, 1)).toMatchObject([
      { cls: "no-place", key: "permission[0].prompt", agent: "Make edits? — The scenario needs approval." },
    ]);
    expect(hasPlaceIn(1, "permission[3].prompt")).toBe(false);
    expect(hasPlaceIn(2, "permission[3].prompt")).toBe(true);
    expect(hasPlaceIn(1, "permission[3]")).toBe(true);
    // A v2 client that did not get it lost it; so did a v1 client of a key it has a place for.
    expect(classify(agent, v1Client, agent, 2)).toMatchObject([{ cls: "bridge-lost", key: "permission[0].prompt" }]);
    expect(classify(view({}), view({}), view({ usage: "u" }), 1)).toMatchObject([{ cls: "bridge-lost" }]);
    // The agent's v1 build has no prompt: a v2 client behind the bridge gets none either.
    expect(classify(agent, v1Client, v1Client, 2)).toMatchObject([{ cls: "agent-other-version" }]);
  });
});

function view(items: Record<string, string>): View {
  return { items, notes: {}, sources: {} };
}

describe("notifications outside session updates are folded too", () => {
  const status = {
    jsonrpc: "2.0",
    method: "_auth/status_update",
    params: { authStatus: { kind: "gateway", label: "Custom model gateway", detail: "interop-mock" } },
  };

  it("an agent's `_auth/status_update` a client did not get is bridge-lost", () => {
    // Codex's adapter sends it right after its initialize answer; the bridge dropped it there.
    const agent = fold([{ dir: "in", msg: status }], 1);
    expect(agent.items).toEqual({
      "notification._auth/status_update":
        '{"authStatus":{"detail":"interop-mock","kind":"gateway","label":"Custom model gateway"}}',
    });
    expect(classify(agent, view({}), agent, 2)).toMatchObject([
      { cls: "bridge-lost", key: "notification._auth/status_update" },
    ]);
    expect(classify(agent, fold([{ dir: "in", msg: status }], 2), agent, 2)).toEqual([]);
  });

  it("keeps every one in order, without the session id or the bridge's stash", () => {
    const wire: WireEntry[] = [
      { dir: "in", msg: { jsonrpc: "2.0", method: "_x/ping", params: { sessionId: "a", n: 1 } } },
      {
        dir: "in",
        msg: { jsonrpc: "2.0", method: "_x/ping", params: { sessionId: "b", n: 2, _meta: { "acp-bridge": { v: 1 } } } },
      },
    ];
    expect(fold(wire, 2).items).toEqual({ "notification._x/ping": '{"n":1} ; {"n":2}' });
  });
});
