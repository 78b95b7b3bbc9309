import { describe, expect, it } from "vitest";
import { agentConfigFromResult, agentModeBinding } from "../../src/convert/mode.js";
import type { Conv } from "../../src/convert/result.js";
import {
  forkSessionResponseToV1,
  forkSessionResponseToV2,
  loadResponseToResumeResult,
  newSessionResponseToV1,
  newSessionResponseToV2,
  resumeResultToLoadResponse,
  resumeSessionResponseToV1,
  resumeSessionResponseToV2,
  type ResultToV1,
} from "../../src/convert/session-result.js";
import type { ConvertOptions } from "../../src/convert/stash.js";
import { defaultOptions } from "../support/conv.js";
import { arb } from "../support/arbitrary.js";
import { convertsLosslessly, options } from "../support/properties.js";
import { expectValid } from "../support/schema.js";
import { value, error } from "../support/conv.js";

const compact = defaultOptions;
const off = options("off");
const v1Client = { booleanOptions: false };
const v1BoolClient = { booleanOptions: true };

type Json = Record<string, unknown>;

const modeOption = {
  configId: "mode",
  name: "Mode",
  category: "mode",
  type: "select",
  currentValue: "ask",
  options: [
    { value: "ask", name: "Ask" },
    { value: "code", name: "Code" },
  ],
};
const modeV1 = {
  id: "mode",
  name: "Mode",
  category: "mode",
  type: "select",
  currentValue: "ask",
  options: modeOption.options,
};
const commands = [
  { type: "command", name: "web", description: "Search the web", input: { type: "text", hint: "query" } },
];
const modes = {
  currentModeId: "ask",
  availableModes: [
    { id: "ask", name: "Ask" },
    { id: "code", name: "Code" },
  ],
};
const marker = (from: 1 | 2, synthetic: string[]) => ({ "acp-bridge": { v: 1, from, hadMeta: false, synthetic } });

describe("session/new result, direction A (H §4.1, §5.2)", () => {
  const v2 = { sessionId: "s1", configOptions: [modeOption], availableCommands: commands, _meta: { traceparent: "t" } };

  it("refuses a new or forked session's result without a string sessionId, which v1 requires too (issue 19)", () => {
    for (const sessionId of [undefined, [], 5]) {
      const res = { ...(sessionId === undefined ? {} : { sessionId }), configOptions: [] };
      for (const convert of [newSessionResponseToV1, forkSessionResponseToV1])
        expect(error(convert(res, v1Client, compact)).data).toMatchObject({
          field: "sessionId",
          reason: sessionId === undefined ? "missing" : "not_string",
        });
    }
  });

  it("renames options, synthesizes modes and hands availableCommands back for an update", () => {
    const r = value(newSessionResponseToV1(v2, v1Client, compact));
    expectValid("v1", "NewSessionResponse", r.result);
    expect(r.availableCommands).toEqual(commands);
    expect(r.result).toEqual({
      sessionId: "s1",
      configOptions: [modeV1],
      modes: { ...modes, _meta: marker(2, ["modes"]) },
      _meta: {
        traceparent: "t",
        "acp-bridge": { v: 1, from: 2, hadMeta: true, residual: { availableCommands: commands } },
      },
    });
  });

  it("reports availableCommands lost, and writes no stash with the stash off", () => {
    const r = newSessionResponseToV1(v2, v1Client, off);
    expect(r.ok && r.lost.map((l) => l.path)).toEqual([["availableCommands"]]);
    expect(JSON.stringify(value(r).result)).not.toContain("acp-bridge");
  });

  it("has no modes and no configOptions when the agent reports none", () => {
    const r = value(newSessionResponseToV1({ sessionId: "s1" }, v1Client, compact));
    expect(r).toEqual({ result: { sessionId: "s1" }, availableCommands: undefined });
  });

  it("refuses a result that is not an object", () => {
    expect(error(newSessionResponseToV1(null, v1Client, compact)).data).toMatchObject({ reason: "not_object" });
  });

  it("a chained B bridge gives the v2 client the agent's result back exactly", () => {
    const custom = { configId: "tone", name: "Tone", type: "_slider" };
    const bool = { configId: "web", name: "Web", type: "boolean", currentValue: false };
    const full = { ...v2, configOptions: [bool, modeOption, custom] };
    const a = value(newSessionResponseToV1(full, v1Client, compact));
    expectValid("v1", "NewSessionResponse", a.result);
    const b = value(newSessionResponseToV2(a.result, {}, compact));
    expectValid("v2", "NewSessionResponse", b);
    expect(b).toEqual(full);
  });
});

describe("session results from agents that speak both dialects", () => {
  it("A: a v2 agent's own modes key gives way to the modes derived from its option, and comes back", () => {
    const own = { currentModeId: "old", availableModes: [] };
    const v2 = { sessionId: "s1", configOptions: [modeOption], modes: own };
    const r = newSessionResponseToV1(v2, v1Client, compact);
    expect(value(r).result).toMatchObject({ modes: { currentModeId: "ask" } });
    expect(r.ok && r.lost.map((l) => l.path)).toEqual([["modes"]]);
    expect(value(newSessionResponseToV2(value(r).result, {}, compact))).toEqual(v2);
  });

  it("B: a v1 agent with a mode option and no modes is marked, so a chained A bridge adds none", () => {
    const v1 = { sessionId: "s1", configOptions: [modeV1] };
    const v2 = value(newSessionResponseToV2(v1, {}, compact));
    expect(v2).toEqual({ sessionId: "s1", configOptions: [modeOption], _meta: marker(1, ["modes"]) });
    expect(value(newSessionResponseToV1(v2, v1Client, compact)).result).toEqual(v1);
    // Without the chain, a v1 client gets modes from the option (H §5.2).
    expect(
      value(newSessionResponseToV1({ sessionId: "s1", configOptions: [modeOption] }, v1Client, compact)).result,
    ).toHaveProperty("modes");
  });
});

describe("session/new result, direction B (H §4.1, §5.3, H §9 case 12)", () => {
  it("drops configOptions: null and shows modes as a synthetic option at index 0", () => {
    const v1 = { sessionId: "s1", modes, configOptions: null };
    const r = newSessionResponseToV2(v1, {}, compact);
    const v2 = value(r);
    expectValid("v2", "NewSessionResponse", v2);
    expect(v2).toEqual({
      sessionId: "s1",
      configOptions: [{ ...modeOption, _meta: marker(1, ["modeOption"]) }],
      _meta: { "acp-bridge": { v: 1, from: 1, hadMeta: false, residual: { configOptions: null } } },
    });
    expect(r.ok && r.lost.map((l) => l.path)).toEqual([["configOptions"]]);
  });

  it("drops configOptions: null without a stash when the stash is off", () => {
    const v2 = value(newSessionResponseToV2({ sessionId: "s1", configOptions: null }, {}, off));
    expect(v2).toEqual({ sessionId: "s1" });
  });

  it("keeps the agent's own options after the synthetic option, renamed", () => {
    const model = {
      id: "model",
      name: "Model",
      type: "select",
      currentValue: "m",
      options: [{ value: "m", name: "M" }],
    };
    const v2 = value(
      newSessionResponseToV2(
        { sessionId: "s1", modes: { ...modes, _meta: { k: 1 } }, configOptions: [model] },
        {},
        compact,
      ),
    );
    expectValid("v2", "NewSessionResponse", v2);
    expect((v2.configOptions ?? []).map((o) => o.configId)).toEqual(["mode", "model"]);
    expect(v2.configOptions?.[0]?._meta).toEqual({
      "acp-bridge": { v: 1, from: 1, hadMeta: false, synthetic: ["modeOption"], residual: { modesMeta: { k: 1 } } },
    });
  });

  it("binds to a dual-advertising agent's own mode option and stashes modes", () => {
    const v1 = { sessionId: "s1", modes, configOptions: [modeV1] };
    const v2 = value(newSessionResponseToV2(v1, {}, compact));
    expectValid("v2", "NewSessionResponse", v2);
    expect(v2).toEqual({
      sessionId: "s1",
      configOptions: [modeOption],
      _meta: { "acp-bridge": { v: 1, from: 1, hadMeta: false, residual: { modes } } },
    });
    expect(agentModeBinding(agentConfigFromResult(v1))).toEqual({ kind: "option", configId: "mode" });
  });

  it("reports no loss for a dual-advertising agent whose modes match its option", () => {
    const r = newSessionResponseToV2({ sessionId: "s1", modes, configOptions: [modeV1] }, {}, off);
    expect(r.ok && r.lost).toEqual([]);
  });

  it("stashes modes without any mode (nothing to show)", () => {
    const empty = { currentModeId: "x", availableModes: [] };
    const r = newSessionResponseToV2({ sessionId: "s1", modes: empty }, {}, compact);
    expect(value(r)).toEqual({
      sessionId: "s1",
      _meta: { "acp-bridge": { v: 1, from: 1, hadMeta: false, residual: { modes: empty } } },
    });
    expect(r.ok && r.lost.map((l) => l.path)).toEqual([["modes"]]);
  });

  it("refuses malformed modes with -32602", () => {
    expect(
      error(newSessionResponseToV2({ sessionId: "s1", modes: { currentModeId: 1, availableModes: [] } }, {}, compact))
        .data,
    ).toMatchObject({
      field: "modes.currentModeId",
      reason: "not_string",
    });
  });

  it("refuses a mode without a string name, which the v2 option standing for it requires (issue 19)", () => {
    for (const [mode, field] of [
      [{ id: "ask" }, "modes.availableModes[0].name"],
      [{ id: "ask", name: 1 }, "modes.availableModes[0].name"],
      [{ id: "ask", name: "Ask", description: 2 }, "modes.availableModes[0].description"],
    ] as const) {
      const m = { currentModeId: "ask", availableModes: [mode] };
      expect(error(newSessionResponseToV2({ sessionId: "s1", modes: m }, {}, compact)).data).toMatchObject({
        field,
        reason: mode.name === undefined ? "missing" : "not_string",
      });
    }
  });

  it("a chained A bridge gives the v1 client the agent's result back exactly", () => {
    for (const v1 of [
      { sessionId: "s1", modes, configOptions: null },
      { sessionId: "s1", modes: { ...modes, _meta: null, zzx: 1 } },
      {
        sessionId: "s1",
        modes: { ...modes, currentModeId: "hidden" },
        configOptions: [{ id: "mode", name: "x", type: "boolean", currentValue: true }],
      },
      { sessionId: "s1", modes: null, _meta: null },
      { sessionId: "s1", modes, configOptions: [modeV1] },
    ]) {
      const b = value(newSessionResponseToV2(v1, {}, compact));
      expectValid("v2", "NewSessionResponse", b);
      const a = value(newSessionResponseToV1(b, v1BoolClient, compact));
      expect(a.result).toEqual(v1);
    }
  });
});

describe("session/load through session/resume (H §4.3, H §9 case 5)", () => {
  it("A: a v2 resume result becomes a v1 LoadSessionResponse with modes; commands follow separately", () => {
    const v2 = { configOptions: [modeOption], availableCommands: commands };
    const r = value(resumeResultToLoadResponse(v2, v1Client, compact));
    expectValid("v1", "LoadSessionResponse", r.result);
    expect(r.result).toMatchObject({ configOptions: [modeV1], modes: { currentModeId: "ask" } });
    expect(r.availableCommands).toEqual(commands);
  });

  it("A: an empty result stays empty", () => {
    expect(value(resumeResultToLoadResponse({}, v1Client, compact))).toEqual({
      result: {},
      availableCommands: undefined,
    });
  });

  it("B: a v1 load result (null per the v1 docs) becomes a v2 resume result with the cached commands", () => {
    const v2 = value(loadResponseToResumeResult(null, { availableCommands: commands }, compact));
    expectValid("v2", "ResumeSessionResponse", v2);
    expect(v2).toEqual({ availableCommands: commands, _meta: marker(1, ["availableCommands"]) });
    // A chained A bridge neither shows nor re-announces commands the v1 agent did not put there.
    const back = value(resumeResultToLoadResponse(v2, { booleanOptions: true }, compact));
    expect(back).toEqual({ result: {}, availableCommands: undefined });
  });

  it("B: the synthetic option stands for the v1 agent's modes", () => {
    const v2 = value(loadResponseToResumeResult({ modes }, {}, compact));
    expectValid("v2", "ResumeSessionResponse", v2);
    expect(v2).toEqual({
      configOptions: [{ ...modeOption, _meta: marker(1, ["modeOption"]) }],
      _meta: marker(1, ["configOptions"]),
    });
    expect(value(resumeResultToLoadResponse(v2, v1Client, compact)).result).toEqual({ modes });
  });
});

describe("session/resume and session/fork results (H §4.4, §4.9)", () => {
  it("A: resume result as for session/new", () => {
    const r = value(
      resumeSessionResponseToV1({ configOptions: [modeOption], availableCommands: [] }, v1Client, compact),
    );
    expectValid("v1", "ResumeSessionResponse", r.result);
    expect(r.availableCommands).toEqual([]);
    expect(r.result).toMatchObject({ modes: { currentModeId: "ask" } });
  });

  it("B: resume result prefers the agent's commands over the cached ones", () => {
    const own = [{ type: "command", name: "x", description: "X" }];
    expect(
      value(resumeSessionResponseToV2({ availableCommands: own }, { availableCommands: commands }, compact)),
    ).toEqual({ availableCommands: own });
  });

  it("fork: unstable results convert like session/new", () => {
    const v2 = { sessionId: "f1", configOptions: [modeOption], availableCommands: commands };
    const a = value(forkSessionResponseToV1(v2, v1Client, compact));
    expectValid("v1u", "ForkSessionResponse", a.result);
    expect(a.result).toMatchObject({ sessionId: "f1", modes: { currentModeId: "ask" } });
    const b = value(forkSessionResponseToV2(a.result, {}, compact));
    expectValid("v2u", "ForkSessionResponse", b);
    expect(b).toEqual(v2);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties

const unwrap =
  (f: (x: unknown, ctx: { booleanOptions: boolean }, o: ConvertOptions) => Conv<ResultToV1<unknown>>) =>
  (x: unknown, o: ConvertOptions): Conv<unknown> => {
    const r = f(x, v1BoolClient, o);
    return r.ok ? { ok: true, value: r.value.result, lost: r.lost } : r;
  };

const interpretedV1 = [
  ["configOptions"],
  ["configOptions", "*", "type"],
  ["configOptions", "*", "id"],
  ["modes"],
  ["modes", "currentModeId"],
  ["modes", "availableModes"],
  ["modes", "availableModes", "*", "id"],
];
const interpretedV2 = [
  ["configOptions"],
  ["configOptions", "*", "type"],
  ["configOptions", "*", "configId"],
  ["availableCommands"],
];

describe("session result properties (H §4.1, §4.3, §4.4, §4.9, §5)", () => {
  convertsLosslessly({
    name: "NewSessionResponse",
    v1: { schema: "v1", def: "NewSessionResponse" },
    v2: { schema: "v2", def: "NewSessionResponse" },
    toV2: (x, o) => newSessionResponseToV2(x, {}, o),
    toV1: unwrap(newSessionResponseToV1),
    interpreted: { v1: interpretedV1, v2: interpretedV2 },
    levels: ["compact", "full"],
  });

  convertsLosslessly({
    name: "LoadSessionResponse ⇄ ResumeSessionResponse",
    v1: { schema: "v1", def: "LoadSessionResponse" },
    v2: { schema: "v2", def: "ResumeSessionResponse" },
    toV2: (x, o) => loadResponseToResumeResult(x, {}, o),
    toV1: unwrap(resumeResultToLoadResponse),
    interpreted: { v1: interpretedV1, v2: interpretedV2 },
  });

  convertsLosslessly({
    name: "ResumeSessionResponse",
    v1: { schema: "v1", def: "ResumeSessionResponse" },
    v2: { schema: "v2", def: "ResumeSessionResponse" },
    toV2: (x, o) => resumeSessionResponseToV2(x, {}, o),
    toV1: unwrap(resumeSessionResponseToV1),
    interpreted: { v1: interpretedV1, v2: interpretedV2 },
  });

  convertsLosslessly({
    name: "ForkSessionResponse (unstable)",
    v1: { schema: "v1u", def: "ForkSessionResponse" },
    v2: { schema: "v2u", def: "ForkSessionResponse" },
    toV2: (x, o) => forkSessionResponseToV2(x, {}, o),
    toV1: unwrap(forkSessionResponseToV1),
    interpreted: { v1: interpretedV1, v2: interpretedV2 },
  });

  convertsLosslessly({
    name: "NewSessionResponse, v1 client without boolean options",
    v1: {
      schema: "v1",
      def: "NewSessionResponse",
      arb: arb("v1", "NewSessionResponse").filter((r) => {
        const list = (r as Json).configOptions;
        return !Array.isArray(list) || list.every((o) => (o as Json).type === "select");
      }),
    },
    v2: { schema: "v2", def: "NewSessionResponse" },
    toV2: (x, o) => newSessionResponseToV2(x, {}, o),
    toV1: (x, o) => {
      const r = newSessionResponseToV1(x, v1Client, o);
      return r.ok ? { ok: true, value: r.value.result, lost: r.lost } : r;
    },
  });
});
