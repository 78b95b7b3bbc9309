import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import type { ConvertOptions } from "../../src/convert/stash.js";
import { syntheticModeOption } from "../../src/convert/config-option.js";
import {
  agentConfigFromResult,
  agentModeBinding,
  configOptionUpdateToV1Updates,
  currentModeUpdateFor,
  currentModeUpdateToConfigOptionUpdate,
  modeBinding,
  modesFromOptions,
  optionsChangedBeyondMode,
  setConfigOptionOnSyntheticToSetMode,
  setConfigOptionResponseToSetModeResponse,
  setModeResponseToSetConfigOptionResponse,
  setModeToSetConfigOption,
  withCurrentMode,
  type AgentConfig,
} from "../../src/convert/mode.js";
import { defaultOptions } from "../support/conv.js";
import { arb } from "../support/arbitrary.js";
import { diffPaths, norm, numRuns, options } from "../support/properties.js";
import { expectValid } from "../support/schema.js";
import { value, error, within } from "../support/conv.js";

/** B's full v2 option list for the agent's state, as its set_config_option answers carry it. */
function agentConfigToV2(cfg: AgentConfig, opts: ConvertOptions) {
  return within<v2.SessionConfigOption[]>(setModeResponseToSetConfigOptionResponse({}, cfg, opts), ["configOptions"]);
}

const compact = defaultOptions;
const off = options("off");
const v1Client = { booleanOptions: false };

type Json = Record<string, unknown>;

// H §5.2 example.
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
const modelOption = {
  configId: "model",
  name: "Model",
  category: "model",
  type: "select",
  currentValue: "m1",
  options: [{ value: "m1", name: "M1" }],
};
const modelV1 = {
  id: "model",
  name: "Model",
  category: "model",
  type: "select",
  currentValue: "m1",
  options: [{ value: "m1", name: "M1" }],
};
const marker = (from: 1 | 2, synthetic: string[]) => ({ "acp-bridge": { v: 1, from, hadMeta: false, synthetic } });

describe("A: v1 modes from the v2 mode option (H §5.2)", () => {
  it("binds the first select option of category mode", () => {
    const boolMode = { configId: "b", name: "B", category: "mode", type: "boolean", currentValue: true };
    expect(modeBinding([modelOption, boolMode, modeOption, { ...modeOption, configId: "mode2" }])).toEqual({
      configId: "mode",
      index: 2,
    });
    expect(modeBinding([modelOption])).toBeUndefined();
    expect(modeBinding(undefined)).toBeUndefined();
  });

  it("synthesizes v1 modes from the bound option, marked synthetic (H §5.2 example)", () => {
    const modes = value(modesFromOptions([modelOption, modeOption], compact));
    expectValid("v1", "SessionModeState", modes);
    expect(modes).toEqual({
      currentModeId: "ask",
      availableModes: [
        { id: "ask", name: "Ask" },
        { id: "code", name: "Code" },
      ],
      _meta: marker(2, ["modes"]),
    });
  });

  it("writes no marker with the stash off", () => {
    expect(value(modesFromOptions([modeOption], off))).not.toHaveProperty("_meta");
  });

  it("has no modes without a mode option", () => {
    expect(value(modesFromOptions([modelOption], compact))).toBeUndefined();
    expect(value(modesFromOptions(undefined, compact))).toBeUndefined();
  });

  it("flattens grouped values in order, each mode remembering its group (H §9 case 11)", () => {
    const grouped = {
      ...modeOption,
      options: [
        {
          groupId: "safe",
          name: "Safe",
          options: [{ value: "ask", name: "Ask", description: "read only", _meta: { x: 1 } }],
        },
        {
          groupId: "edit",
          name: "Editing",
          options: [
            { value: "code", name: "Code" },
            { value: "arch", name: "Architect" },
          ],
        },
      ],
    };
    const modes = value(modesFromOptions([grouped], compact));
    expectValid("v1", "SessionModeState", modes);
    const group = (groupId: string, name: string) => ({
      "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { group: { groupId, name } } },
    });
    expect(modes).toEqual({
      currentModeId: "ask",
      availableModes: [
        {
          id: "ask",
          name: "Ask",
          description: "read only",
          _meta: {
            x: 1,
            "acp-bridge": { v: 1, from: 2, hadMeta: true, residual: { group: { groupId: "safe", name: "Safe" } } },
          },
        },
        { id: "code", name: "Code", _meta: group("edit", "Editing") },
        { id: "arch", name: "Architect", _meta: group("edit", "Editing") },
      ],
      _meta: marker(2, ["modes"]),
    });
  });

  it("refuses a bound option whose values are malformed", () => {
    const bad = { ...modeOption, options: [{ value: 3, name: "x" }] };
    expect(error(modesFromOptions([bad], compact)).data).toMatchObject({
      field: "configOptions[0].options[0].value",
      reason: "not_string",
    });
  });
});

describe("A: session/set_mode (H §5.2)", () => {
  it("becomes set_config_option on the bound option with type id", () => {
    const req = { sessionId: "s1", modeId: "code", _meta: { traceparent: "t" } };
    const out = value(setModeToSetConfigOption(req, modeBinding([modeOption])));
    expectValid("v2", "SetSessionConfigOptionRequest", out);
    expect(out).toEqual({ sessionId: "s1", configId: "mode", type: "id", value: "code", _meta: { traceparent: "t" } });
  });

  it("is refused with -32602 when the session has no modes", () => {
    const e = error(setModeToSetConfigOption({ sessionId: "s1", modeId: "code" }, modeBinding([modelOption])));
    expect(e).toEqual({ code: -32602, message: "Invalid params", data: { reason: "session has no modes" } });
  });

  it("answers the v1 client with the result's _meta and hands the new list to the engine", () => {
    const list = [{ ...modeOption, currentValue: "code" }, modelOption];
    const r = value(setConfigOptionResponseToSetModeResponse({ configOptions: list, _meta: { k: 1 } }));
    expectValid("v1", "SetSessionModeResponse", r.response);
    expect(r).toEqual({ response: { _meta: { k: 1 } }, configOptions: list });
    expect(optionsChangedBeyondMode([modeOption, modelOption], list)).toBe(false);
    expect(optionsChangedBeyondMode([modeOption], list)).toBe(true);
  });
});

describe("A: config_option_update with a mode change (T §2.7, H §9 case 11, T §9 case 14)", () => {
  const grouped = {
    configId: "effort",
    name: "Effort",
    type: "select",
    currentValue: "lo",
    options: [{ groupId: "g", name: "G", options: [{ value: "lo", name: "Low" }] }],
  };
  const prev = [modeOption, grouped];
  const next = [{ ...modeOption, currentValue: "code" }, grouped];

  it("sends the renamed config_option_update, then current_mode_update with currentModeId", () => {
    const r = value(
      configOptionUpdateToV1Updates(
        { sessionUpdate: "config_option_update", configOptions: next },
        prev,
        v1Client,
        compact,
      ),
    );
    for (const u of r.updates) expectValid("v1", "SessionUpdate", u);
    expect(r).toEqual({
      updates: [
        {
          sessionUpdate: "config_option_update",
          configOptions: [
            {
              id: "mode",
              name: "Mode",
              category: "mode",
              type: "select",
              currentValue: "code",
              options: modeOption.options,
            },
            {
              id: "effort",
              name: "Effort",
              type: "select",
              currentValue: "lo",
              options: [{ group: "g", name: "G", options: [{ value: "lo", name: "Low" }] }],
            },
          ],
        },
        { sessionUpdate: "current_mode_update", currentModeId: "code", _meta: marker(2, ["currentModeUpdate"]) },
      ],
      modesChanged: false,
    });
  });

  it("sends no current_mode_update to a v1 client that got no modes for the session", () => {
    const u = { sessionUpdate: "config_option_update", configOptions: next };
    expect(
      value(configOptionUpdateToV1Updates(u, prev, { ...v1Client, sessionHasModes: false }, compact)).updates,
    ).toHaveLength(1);
  });

  it("sends no current_mode_update when the mode did not change, or without a cached list", () => {
    expect(value(configOptionUpdateToV1Updates({ configOptions: prev }, prev, v1Client, compact)).updates).toHaveLength(
      1,
    );
    expect(currentModeUpdateFor(undefined, next, compact)).toBeUndefined();
    expect(currentModeUpdateFor([modelOption], next, compact)).toBeUndefined();
  });

  it("reports a change to the set of modes, which v1 cannot hear about (H §5.5)", () => {
    const more = [{ ...modeOption, options: [...modeOption.options, { value: "arch", name: "Architect" }] }];
    const changed = (prev: unknown[], next: unknown[]) =>
      value(configOptionUpdateToV1Updates({ configOptions: next }, prev, v1Client, compact)).modesChanged;
    expect(changed([modeOption], more)).toBe(true);
    expect(changed([modeOption], [{ ...modeOption, currentValue: "code" }])).toBe(false);
    expect(
      value(configOptionUpdateToV1Updates({ configOptions: more }, [modeOption], v1Client, compact)).modesChanged,
    ).toBe(true);
  });
});

describe("B: the synthetic mode option (H §5.3, H §9 case 12)", () => {
  const modes = {
    currentModeId: "ask",
    availableModes: [
      { id: "ask", name: "Ask" },
      { id: "code", name: "Code", description: "Writes code" },
    ],
  };
  const cfg: AgentConfig = { configOptions: [modelV1], modes };
  const synthetic = (currentValue: string) => ({
    configId: "mode",
    name: "Mode",
    category: "mode",
    type: "select",
    currentValue,
    options: [
      { value: "ask", name: "Ask" },
      { value: "code", name: "Code", description: "Writes code" },
    ],
    _meta: marker(1, ["modeOption"]),
  });

  it("binds to the synthetic option, or to the agent's own mode option when it dual-advertises", () => {
    expect(agentModeBinding(cfg)).toEqual({ kind: "modes", configId: "mode" });
    expect(agentModeBinding({ configOptions: [{ ...modelV1, id: "mode" }], modes })).toEqual({
      kind: "modes",
      configId: "acp-bridge.mode",
    });
    const own = { id: "m", name: "M", category: "mode", type: "select", currentValue: "ask", options: [] };
    expect(agentModeBinding({ configOptions: [modelV1, own], modes })).toEqual({ kind: "option", configId: "m" });
    expect(agentModeBinding({ configOptions: [modelV1] })).toBeUndefined();
    expect(agentModeBinding({ modes: { currentModeId: "a", availableModes: [] } })).toBeUndefined();
  });

  it("puts the synthetic option first in the full list", () => {
    const list = value(agentConfigToV2(cfg, compact));
    for (const o of list) expectValid("v2", "SessionConfigOption", o);
    expect(list).toEqual([synthetic("ask"), modelOption]);
  });

  it("adds the current mode as a value when availableModes lacks it", () => {
    const option = value(
      syntheticModeOption({ currentModeId: "hidden", availableModes: [{ id: "ask", name: "Ask" }] }, [], compact),
    );
    expectValid("v2", "SessionConfigOption", option);
    expect(option).toMatchObject({
      currentValue: "hidden",
      options: [
        { value: "ask", name: "Ask" },
        { value: "hidden", name: "hidden" },
      ],
      _meta: { "acp-bridge": { synthetic: ["modeOption", "currentMode"] } },
    });
  });

  it("turns set_config_option on it into session/set_mode and answers with the full list (H §5.3 example)", () => {
    const req = { sessionId: "s1", configId: "mode", type: "id", value: "code" };
    const setMode = value(setConfigOptionOnSyntheticToSetMode(req, cfg));
    expectValid("v1", "SetSessionModeRequest", setMode);
    expect(setMode).toEqual({ sessionId: "s1", modeId: "code" });
    const after = withCurrentMode(cfg, "code");
    const res = value(setModeResponseToSetConfigOptionResponse({}, after, compact));
    expectValid("v2", "SetSessionConfigOptionResponse", res);
    expect(res).toEqual({ configOptions: [synthetic("code"), modelOption] });
  });

  it("refuses an unknown mode or a non-id value with -32602, without calling the agent", () => {
    expect(
      error(setConfigOptionOnSyntheticToSetMode({ sessionId: "s1", configId: "mode", type: "id", value: "nope" }, cfg)),
    ).toMatchObject({
      code: -32602,
      data: { field: "value", reason: "unknown_mode", value: "nope" },
    });
    expect(
      error(
        setConfigOptionOnSyntheticToSetMode({ sessionId: "s1", configId: "mode", type: "boolean", value: true }, cfg),
      ).data,
    ).toMatchObject({
      field: "type",
      reason: "type_mismatch",
    });
    expect(
      error(setConfigOptionOnSyntheticToSetMode({ sessionId: "s1", configId: "model", type: "id", value: "m1" }, cfg))
        .data,
    ).toMatchObject({
      reason: "not_mode_option",
    });
  });

  it("turns current_mode_update into config_option_update with the full merged list (T §9 case 14)", () => {
    const update = { sessionUpdate: "current_mode_update", currentModeId: "code" };
    const r = value(currentModeUpdateToConfigOptionUpdate(update, cfg, compact));
    expectValid("v2", "SessionUpdate", r.update);
    expect(r.update).toEqual({
      sessionUpdate: "config_option_update",
      configOptions: [synthetic("code"), modelOption],
      _meta: { "acp-bridge": { v: 1, from: 1, hadMeta: false, residual: { currentModeUpdate: update } } },
    });
    expect(r.config).toEqual(withCurrentMode(cfg, "code"));
  });

  it("accepts the docs' modeId as an alias (H §8-12)", () => {
    const r = value(
      currentModeUpdateToConfigOptionUpdate({ sessionUpdate: "current_mode_update", modeId: "code" }, cfg, compact),
    );
    expect((r.config.modes as Json).currentModeId).toBe("code");
    expect(r.update).toBeDefined();
  });

  it("for a dual-advertising agent, emits only when the bound option's value changes", () => {
    const own = {
      id: "m",
      name: "M",
      category: "mode",
      type: "select",
      currentValue: "ask",
      options: [
        { value: "ask", name: "Ask" },
        { value: "code", name: "Code" },
      ],
    };
    const dual: AgentConfig = { configOptions: [own], modes };
    expect(value(agentConfigToV2(dual, compact))).toHaveLength(1);
    expect(
      value(
        currentModeUpdateToConfigOptionUpdate(
          { sessionUpdate: "current_mode_update", currentModeId: "ask" },
          dual,
          compact,
        ),
      ).update,
    ).toBeUndefined();
    const r = value(
      currentModeUpdateToConfigOptionUpdate(
        { sessionUpdate: "current_mode_update", currentModeId: "code" },
        dual,
        compact,
      ),
    );
    expect(r.update).toMatchObject({ configOptions: [{ configId: "m", currentValue: "code" }] });
  });

  it("drops an A bridge's own current_mode_update echo", () => {
    const echo = {
      sessionUpdate: "current_mode_update",
      currentModeId: "code",
      _meta: marker(2, ["currentModeUpdate"]),
    };
    expect(value(currentModeUpdateToConfigOptionUpdate(echo, cfg, compact)).update).toBeUndefined();
  });

  it("forgets modes an A bridge synthesized", () => {
    const a = value(modesFromOptions([modeOption], compact));
    expect(agentConfigFromResult({ sessionId: "s", modes: a, configOptions: [] })).toEqual({
      configOptions: [],
      modes: undefined,
    });
  });
});

describe("chained bridges stay transparent for modes (H §5.3 reverse, T §9 case 20)", () => {
  const modes = {
    currentModeId: "ask",
    availableModes: [
      { id: "ask", name: "Ask" },
      { id: "code", name: "Code" },
    ],
    _meta: { m: 1 },
  };
  const cfg: AgentConfig = { configOptions: [modelV1], modes };

  it("B then A gives the v1 client the agent's current_mode_update back, exactly", () => {
    const update = { sessionUpdate: "current_mode_update", modeId: "code", _meta: { traceparent: "t" } };
    const b = value(currentModeUpdateToConfigOptionUpdate(update, cfg, compact));
    const a = value(configOptionUpdateToV1Updates(b.update, value(agentConfigToV2(cfg, compact)), v1Client, compact));
    expect(a.updates).toEqual([update]);
  });

  it("B then A rebuilds modes exactly from the synthetic option", () => {
    const list = value(agentConfigToV2(cfg, compact));
    expect(value(modesFromOptions(list, compact))).toEqual(modes);
  });

  it("A then B: set_mode reaches the v1 agent as it was sent", () => {
    const list = value(agentConfigToV2(cfg, compact));
    const req = { sessionId: "s1", modeId: "code", _meta: { k: [1] }, zzextra: true };
    const v2 = value(setModeToSetConfigOption(req, modeBinding(list)));
    expect(value(setConfigOptionOnSyntheticToSetMode(v2, cfg))).toEqual(req);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties (state-carrying, so written directly)

const usableModes = arb("v1", "SessionModeState").filter((m) => ((m as Json).availableModes as unknown[]).length > 0);

describe("SessionModeState ⇄ synthetic option (properties, H §5.3)", () => {
  const runs = { numRuns: numRuns() };

  for (const level of ["compact", "full"] as const) {
    it(`the synthetic option is a valid v2 option and gives the modes back exactly with the stash ${level}`, () => {
      fc.assert(
        fc.property(usableModes, (modes) => {
          const option = value(syntheticModeOption(modes, [], options(level)));
          expectValid("v2", "SessionConfigOption", option);
          expect(norm(value(modesFromOptions([option], options(level))))).toEqual(norm(modes));
        }),
        runs,
      );
    });
  }

  it("with the stash off, the modes rebuilt from the option differ only where losses were reported", () => {
    fc.assert(
      fc.property(usableModes, (modes) => {
        const r = syntheticModeOption(modes, [], off);
        if (!r.ok || !r.value) throw new Error("no option");
        expect(JSON.stringify(r.value)).not.toContain("acp-bridge");
        const back = value(modesFromOptions([r.value], off));
        const diffs = diffPaths(norm(modes), norm(back)).map((p) => ["modes", ...p]);
        const covered = (d: readonly unknown[]) =>
          r.lost.some((l) => l.path.every((x, i) => String(x) === String(d[i])));
        expect(diffs.filter((d) => !covered(d))).toEqual([]);
      }),
      runs,
    );
  });

  it("v1 modes synthesized from any v2 mode select option are valid, and a chained B bridge drops them", () => {
    const modeSelect = arb("v2", "SessionConfigOption")
      .filter((o) => (o as Json).type === "select")
      .map((o) => ({ ...(o as Json), category: "mode" }));
    fc.assert(
      fc.property(modeSelect, fc.constantFrom("off" as const, "compact" as const), (option, level) => {
        const modes = value(modesFromOptions([option], options(level)));
        expectValid("v1", "SessionModeState", modes);
        if (level === "compact") expect(agentConfigFromResult({ modes }).modes).toBeUndefined();
      }),
      runs,
    );
  });

  it("set_mode → set_config_option is valid v2, and the B side turns it back into the same set_mode", () => {
    fc.assert(
      fc.property(arb("v1", "SetSessionModeRequest"), usableModes, (req, m) => {
        const modeId = (req as Json).modeId as string;
        const modes = { ...(m as Json), currentModeId: modeId };
        const cfg: AgentConfig = { configOptions: [], modes };
        const out = value(setModeToSetConfigOption(req, { configId: "mode", index: 0 }));
        expectValid("v2", "SetSessionConfigOptionRequest", out);
        expect(norm(value(setConfigOptionOnSyntheticToSetMode(out, cfg)))).toEqual(norm(req));
      }),
      runs,
    );
  });

  it("a v1 current_mode_update through B then A comes out unchanged", () => {
    const update = arb("v1", "CurrentModeUpdate").map((u) => ({
      ...(u as Json),
      sessionUpdate: "current_mode_update",
    }));
    fc.assert(
      fc.property(update, usableModes, (u, modes) => {
        const cfg: AgentConfig = { configOptions: [], modes };
        const b = value(currentModeUpdateToConfigOptionUpdate(u, cfg, compact));
        expectValid("v2", "SessionUpdate", b.update);
        const a = value(
          configOptionUpdateToV1Updates(b.update, value(agentConfigToV2(cfg, compact)), v1Client, compact),
        );
        expect(norm(a.updates)).toEqual([norm(u)]);
      }),
      runs,
    );
  });

  it("a v2 config_option_update gives valid v1 updates and never throws", () => {
    const update = arb("v2", "ConfigOptionUpdate").map((u) => ({
      ...(u as Json),
      sessionUpdate: "config_option_update",
    }));
    const list = arb("v2", "ConfigOptionUpdate").map((u) => (u as Json).configOptions);
    fc.assert(
      fc.property(update, list, fc.boolean(), (u, prev, booleanOptions) => {
        const r = value(configOptionUpdateToV1Updates(u, prev, { booleanOptions }, compact));
        for (const x of r.updates) expectValid("v1", "SessionUpdate", x);
      }),
      runs,
    );
  });
});
