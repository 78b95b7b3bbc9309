import type fc from "fast-check";
import { describe, expect, it } from "vitest";
import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import {
  configOptionUpdateToV1,
  configOptionUpdateToV2,
  setConfigOptionRequestToV1,
  setConfigOptionRequestToV2,
  setConfigOptionResponseToV1,
  setConfigOptionResponseToV2,
  syntheticModeOption,
  syntheticModeOptionId,
} from "../../src/convert/config-option.js";
import type { Conv } from "../../src/convert/result.js";
import type { ConvertOptions } from "../../src/convert/stash.js";
import { defaultOptions } from "../support/conv.js";
import { arb } from "../support/arbitrary.js";
import { convertsLosslessly, options } from "../support/properties.js";
import { expectValid } from "../support/schema.js";
import { value, error, within } from "../support/conv.js";

const compact = defaultOptions;

// One option seen through the carrier the engine runs (a config_option_update holding a list of it):
// `within` puts the losses and error fields back relative to the option.
function configOptionToV1(option: unknown, ctx: { booleanOptions: boolean }, opts: ConvertOptions) {
  return within<v1.SessionConfigOption | undefined>(configOptionUpdateToV1({ configOptions: [option] }, ctx, opts), [
    "configOptions",
    0,
  ]);
}

function configOptionToV2(option: unknown, opts: ConvertOptions) {
  return within<v2.SessionConfigOption>(configOptionUpdateToV2({ configOptions: [option] }, {}, opts), [
    "configOptions",
    0,
  ]);
}
const off = options("off");
const v1Client = { booleanOptions: false };
const v1BoolClient = { booleanOptions: true };

const modelV2 = {
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

const groupedV2 = {
  configId: "effort",
  name: "Effort",
  type: "select",
  currentValue: "lo",
  options: [
    { groupId: "fast", name: "Fast", options: [{ value: "lo", name: "Low" }], _meta: { k: 1 } },
    { groupId: "deep", name: "Deep", options: [{ value: "hi", name: "High", description: null }] },
  ],
  _meta: { traceparent: "t" },
};

const boolV2 = {
  configId: "web",
  name: "Web search",
  description: "Allow browsing",
  type: "boolean",
  currentValue: true,
};

describe("config option renames (H §5.1)", () => {
  it("renames configId to id and groupId to group toward v1, keeping everything else", () => {
    const out = value(configOptionToV1(groupedV2, v1Client, compact));
    expectValid("v1", "SessionConfigOption", out);
    expect(out).toEqual({
      id: "effort",
      name: "Effort",
      type: "select",
      currentValue: "lo",
      options: [
        { group: "fast", name: "Fast", options: [{ value: "lo", name: "Low" }], _meta: { k: 1 } },
        { group: "deep", name: "Deep", options: [{ value: "hi", name: "High", description: null }] },
      ],
      _meta: { traceparent: "t" },
    });
  });

  it("renames id to configId and group to groupId toward v2", () => {
    const v1 = value(configOptionToV1(groupedV2, v1Client, compact));
    const back = value(configOptionToV2(v1, compact));
    expectValid("v2", "SessionConfigOption", back);
    expect(back).toEqual(groupedV2);
  });

  it("passes unknown categories through in both directions (H §7.6)", () => {
    const v2 = { ...modelV2, category: "_vendor_cat" };
    const v1 = value(configOptionToV1(v2, v1Client, compact));
    expect(v1).toMatchObject({ id: "model", category: "_vendor_cat" });
    expect(value(configOptionToV2(v1, compact))).toEqual(v2);
  });

  it("keeps an own key the rename would overwrite in the stash and restores it", () => {
    const v2 = { ...modelV2, id: "legacy-id" };
    const r = configOptionToV1(v2, v1Client, compact);
    const v1 = value(r);
    expect(v1).toMatchObject({ id: "model" });
    expect(r.ok && r.lost.map((l) => l.path)).toEqual([["id"]]);
    expect(value(configOptionToV2(v1, compact))).toEqual(v2);
  });

  it("refuses an option whose id is not a string with -32602 naming the field", () => {
    const e = error(
      within(
        configOptionUpdateToV2(
          { configOptions: [{ id: 7, name: "x", type: "select", currentValue: "a", options: [] }] },
          {},
          compact,
        ),
        ["configOptions"],
      ),
    );
    expect(e.code).toBe(-32602);
    expect(e.data).toMatchObject({ field: "[0].id", reason: "not_string" });
  });

  it("refuses a v1 option type other than select or boolean", () => {
    const e = error(configOptionToV2({ id: "x", name: "x", type: "_custom" }, compact));
    expect(e.data).toMatchObject({ field: "type", reason: "unknown_variant", type: "_custom" });
  });
});

describe("v1 selects v2 cannot carry as they are (H §5.1, schema minItems)", () => {
  it("gives an empty v1 select its current value as the only v2 value, and restores the empty list", () => {
    const v1 = { id: "x", name: "X", type: "select", currentValue: "a", options: [] };
    const r = configOptionToV2(v1, compact);
    const v2 = value(r);
    expectValid("v2", "SessionConfigOption", v2);
    expect(v2).toMatchObject({ configId: "x", options: [{ value: "a", name: "a" }] });
    expect(r.ok && r.lost).toEqual([{ path: ["options"], reason: expect.any(String) }]);
    expect(value(configOptionToV1(v2, v1Client, compact))).toEqual(v1);
  });

  it("drops empty v1 groups toward v2 and restores them", () => {
    const v1 = {
      id: "x",
      name: "X",
      type: "select",
      currentValue: "a",
      options: [
        { group: "g0", name: "Empty", options: [] },
        { group: "g1", name: "One", options: [{ value: "a", name: "A" }] },
      ],
    };
    const v2 = value(configOptionToV2(v1, compact));
    expectValid("v2", "SessionConfigOption", v2);
    expect((v2 as { options: unknown[] }).options).toEqual([
      { groupId: "g1", name: "One", options: [{ value: "a", name: "A" }] },
    ]);
    expect(value(configOptionToV1(v2, v1Client, compact))).toEqual(v1);
  });
});

describe("boolean options toward v1 clients (H §5.4, H §9 case 11)", () => {
  it("passes a boolean option to a v1 client that advertised session.configOptions.boolean", () => {
    const out = value(configOptionToV1(boolV2, v1BoolClient, compact));
    expectValid("v1", "SessionConfigOption", out);
    expect(out).toEqual({
      id: "web",
      name: "Web search",
      description: "Allow browsing",
      type: "boolean",
      currentValue: true,
    });
  });

  it("shows a boolean option as a two-value select otherwise, marked with residual.type", () => {
    const r = configOptionToV1(boolV2, v1Client, compact);
    const out = value(r);
    expectValid("v1", "SessionConfigOption", out);
    expect(out).toEqual({
      id: "web",
      name: "Web search",
      description: "Allow browsing",
      type: "select",
      currentValue: "true",
      options: [
        { value: "true", name: "On" },
        { value: "false", name: "Off" },
      ],
      _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { type: "boolean" } } },
    });
    expect(r.ok && r.lost).toEqual([{ path: [], reason: expect.any(String) }]);
  });

  it("turns the select back into the boolean for a v2 peer", () => {
    for (const currentValue of [true, false]) {
      const src = { ...boolV2, currentValue, _meta: null };
      const v1 = value(configOptionToV1(src, v1Client, compact));
      expect((v1 as { currentValue: unknown }).currentValue).toBe(String(currentValue));
      expect(value(configOptionToV2(v1, compact))).toEqual(src);
    }
  });

  it("writes no stash with the stash off, and reports the option lost", () => {
    const r = configOptionToV1(boolV2, v1Client, off);
    expect(value(r)).not.toHaveProperty("_meta");
    expect(r.ok && r.lost.length).toBe(1);
  });
});

describe("option lists and unknown option types (H §5.4, §7.6)", () => {
  const custom = { configId: "tone", name: "Tone", type: "_slider", min: 0, max: 10 };
  const list = [modelV2, custom, boolV2];

  it("omits options of a type v1 does not know and reports them for the carrier's stash", () => {
    // Through the carrier the product runs: the omitted option goes to its stash.
    const r = configOptionUpdateToV1({ configOptions: list }, v1BoolClient, compact);
    const out = value(r);
    expect(out.configOptions.map((o) => o.id)).toEqual(["model", "web"]);
    expect(out._meta).toMatchObject({
      "acp-bridge": { residual: { omittedConfigOptions: [{ index: 1, raw: custom }] } },
    });
    expect(r.ok && r.lost).toEqual([{ path: ["configOptions"], reason: expect.any(String) }]);
  });

  it("puts omitted options back at their index toward v2", () => {
    const out = value(configOptionUpdateToV1({ configOptions: list }, v1BoolClient, compact));
    expect(value(configOptionUpdateToV2(out, {}, compact)).configOptions).toEqual(list);
  });

  it("stashes omitted options on a set_config_option result's _meta and restores them", () => {
    const res = { configOptions: list, _meta: { traceparent: "x" } };
    const v1 = value(setConfigOptionResponseToV1(res, v1BoolClient, compact));
    expectValid("v1", "SetSessionConfigOptionResponse", v1);
    expect(v1).toEqual({
      configOptions: [
        modelV1,
        { id: "web", name: "Web search", description: "Allow browsing", type: "boolean", currentValue: true },
      ],
      _meta: {
        traceparent: "x",
        "acp-bridge": { v: 1, from: 2, hadMeta: true, residual: { omittedConfigOptions: [{ index: 1, raw: custom }] } },
      },
    });
    const back = value(setConfigOptionResponseToV2(v1, {}, compact));
    expectValid("v2", "SetSessionConfigOptionResponse", back);
    expect(back).toEqual(res);
  });

  it("refuses a list that is not an array", () => {
    expect(error(configOptionUpdateToV1({ configOptions: {} }, v1Client, compact)).data).toMatchObject({
      field: "configOptions",
      reason: "not_array",
    });
    expect(error(setConfigOptionResponseToV1({ configOptions: null }, v1Client, compact)).data).toMatchObject({
      field: "configOptions",
      reason: "not_array",
    });
  });
});

describe("config_option_update (T §2.7)", () => {
  it("renames options toward v1 and stashes unknown types on the update's _meta", () => {
    const u = {
      sessionUpdate: "config_option_update",
      configOptions: [{ configId: "x", name: "X", type: "_t" }, modelV2],
    };
    const v1 = value(configOptionUpdateToV1(u, v1Client, compact));
    expectValid("v1", "SessionUpdate", v1);
    expect(v1).toMatchObject({ sessionUpdate: "config_option_update", configOptions: [modelV1] });
    const back = value(configOptionUpdateToV2(v1, {}, compact));
    expectValid("v2", "SessionUpdate", back);
    expect(back).toEqual(u);
  });

  it("puts the synthetic mode option first when the v1 agent has modes (H §9 case 12)", () => {
    const modes = {
      currentModeId: "ask",
      availableModes: [
        { id: "ask", name: "Ask" },
        { id: "code", name: "Code" },
      ],
    };
    const u = { sessionUpdate: "config_option_update", configOptions: [modelV1] };
    const v2 = value(configOptionUpdateToV2(u, { modes }, compact));
    expectValid("v2", "SessionUpdate", v2);
    expect(v2).toEqual({
      sessionUpdate: "config_option_update",
      configOptions: [
        {
          configId: "mode",
          name: "Mode",
          category: "mode",
          type: "select",
          currentValue: "ask",
          options: [
            { value: "ask", name: "Ask" },
            { value: "code", name: "Code" },
          ],
          _meta: { "acp-bridge": { v: 1, from: 1, hadMeta: false, synthetic: ["modeOption"] } },
        },
        modelV2,
      ],
    });
    // A chained A bridge drops it again.
    expect(value(configOptionUpdateToV1(v2, v1Client, compact))).toEqual(u);
  });
});

describe("the synthetic mode option's id (H §5.3)", () => {
  it("is mode unless taken, then acp-bridge.mode", () => {
    expect(syntheticModeOptionId(undefined)).toBe("mode");
    expect(syntheticModeOptionId([{ id: "model" }])).toBe("mode");
    expect(syntheticModeOptionId([{ id: "mode" }])).toBe("acp-bridge.mode");
    expect(syntheticModeOptionId([{ id: "mode" }, { id: "acp-bridge.mode" }])).toBe("acp-bridge.mode.2");
  });

  it("is not made when the agent has its own mode select option or no modes", () => {
    const modes = { currentModeId: "a", availableModes: [{ id: "a", name: "A" }] };
    const own = [{ id: "m", name: "M", category: "mode", type: "select", currentValue: "a", options: [] }];
    expect(value(syntheticModeOption(modes, own, compact))).toBeUndefined();
    expect(value(syntheticModeOption({ currentModeId: "a", availableModes: [] }, [], compact))).toBeUndefined();
    expect(value(syntheticModeOption(null, [], compact))).toBeUndefined();
    expect(value(syntheticModeOption(modes, [], compact))).toMatchObject({ configId: "mode" });
  });
});

describe("session/set_config_option params (H §5.1, §5.4, §7.6)", () => {
  it("adds type id toward v2 and drops it toward v1", () => {
    const v1 = { sessionId: "s1", configId: "model", value: "m2", _meta: { traceparent: "t" } };
    const v2 = value(setConfigOptionRequestToV2(v1, {}, compact));
    expectValid("v2", "SetSessionConfigOptionRequest", v2);
    expect(v2).toEqual({ ...v1, type: "id" });
    const back = value(setConfigOptionRequestToV1(v2));
    expectValid("v1", "SetSessionConfigOptionRequest", back);
    expect(back).toEqual(v1);
  });

  it("passes boolean values both ways", () => {
    const req = { sessionId: "s1", configId: "web", type: "boolean", value: false };
    expect(value(setConfigOptionRequestToV2(req, {}, compact))).toEqual(req);
    expect(value(setConfigOptionRequestToV1(req))).toEqual(req);
  });

  it("sends a select value on a boolean shown as a select as a v2 boolean (H §5.4)", () => {
    const cache = [boolV2, modelV2];
    const r = setConfigOptionRequestToV2(
      { sessionId: "s1", configId: "web", value: "false" },
      { options: cache },
      compact,
    );
    const v2 = value(r);
    expectValid("v2", "SetSessionConfigOptionRequest", v2);
    expect(v2).toEqual({ sessionId: "s1", configId: "web", type: "boolean", value: false });
    expect(
      value(
        setConfigOptionRequestToV2({ sessionId: "s1", configId: "web", value: "true" }, { options: cache }, compact),
      ),
    ).toMatchObject({
      value: true,
    });
  });

  it("refuses a select value other than true/false on a boolean shown as a select", () => {
    const e = error(
      setConfigOptionRequestToV2({ sessionId: "s1", configId: "web", value: "maybe" }, { options: [boolV2] }, compact),
    );
    expect(e).toMatchObject({ code: -32602, data: { field: "value", reason: "not_boolean_choice" } });
  });

  it("keeps a v1 type tag other than boolean in the stash and restores it", () => {
    const v1 = { sessionId: "s1", configId: "model", type: "_legacy", value: "m2" };
    const r = setConfigOptionRequestToV2(v1, {}, compact);
    const v2 = value(r);
    expectValid("v2", "SetSessionConfigOptionRequest", v2);
    expect(v2).toMatchObject({ type: "id", value: "m2" });
    expect(r.ok && r.lost).toEqual([{ path: ["type"], reason: expect.any(String) }]);
    expect(value(setConfigOptionRequestToV1(v2))).toEqual(v1);
  });

  it("refuses an unknown v2 value type toward v1 with -32602", () => {
    const e = error(setConfigOptionRequestToV1({ sessionId: "s1", configId: "x", type: "_range", value: [1, 2] }));
    expect(e).toMatchObject({ code: -32602, data: { field: "type", reason: "unknown_variant", type: "_range" } });
  });

  it("refuses a v2 id value that is not a string and a v1 boolean value without its type", () => {
    expect(
      error(setConfigOptionRequestToV1({ sessionId: "s", configId: "x", type: "id", value: 1 })).data,
    ).toMatchObject({
      field: "value",
      reason: "not_string",
    });
    expect(
      error(setConfigOptionRequestToV2({ sessionId: "s", configId: "x", value: true }, {}, compact)).data,
    ).toMatchObject({
      field: "value",
      reason: "boolean_without_type",
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Properties

type Json = Record<string, unknown>;
const knownType = (o: unknown) => ["select", "boolean"].includes((o as Json).type as string);
const toV1 = (ctx: { booleanOptions: boolean }) => (x: unknown, o: ConvertOptions) =>
  configOptionToV1(x, ctx, o) as Conv<unknown>;

describe("config option properties (H §5.1, §5.4)", () => {
  convertsLosslessly({
    name: "SessionConfigOption, v1 client with boolean options",
    v1: { schema: "v1", def: "SessionConfigOption" },
    v2: { schema: "v2", def: "SessionConfigOption", arb: arb("v2", "SessionConfigOption").filter(knownType) },
    toV2: (x, o) => configOptionToV2(x, o),
    toV1: toV1(v1BoolClient),
    interpreted: {
      v1: [["type"], ["id"], ["currentValue"], ["options"], ["options", "*", "group"]],
      v2: [["type"], ["configId"], ["currentValue"], ["options"], ["options", "*", "groupId"]],
    },
  });

  convertsLosslessly({
    name: "SessionConfigOption, v1 client without boolean options",
    v1: {
      schema: "v1",
      def: "SessionConfigOption",
      arb: arb("v1", "SessionConfigOption").filter((o) => (o as Json).type === "select"),
    },
    v2: { schema: "v2", def: "SessionConfigOption", arb: arb("v2", "SessionConfigOption").filter(knownType) },
    toV2: (x, o) => configOptionToV2(x, o),
    toV1: toV1(v1Client),
    interpreted: { v2: [["type"], ["currentValue"]] },
  });

  convertsLosslessly({
    name: "SetSessionConfigOptionRequest",
    v1: { schema: "v1", def: "SetSessionConfigOptionRequest" },
    v2: {
      schema: "v2",
      def: "SetSessionConfigOptionRequest",
      arb: arb("v2", "SetSessionConfigOptionRequest").filter((r) =>
        ["id", "boolean"].includes((r as Json).type as string),
      ),
    },
    toV2: (x, o) => setConfigOptionRequestToV2(x, {}, o),
    toV1: (x) => setConfigOptionRequestToV1(x),
    interpreted: { v1: [["value"], ["configId"]], v2: [["type"], ["value"]] },
  });

  convertsLosslessly({
    name: "SetSessionConfigOptionResponse",
    v1: { schema: "v1", def: "SetSessionConfigOptionResponse" },
    v2: { schema: "v2", def: "SetSessionConfigOptionResponse" },
    toV2: (x, o) => setConfigOptionResponseToV2(x, {}, o),
    toV1: (x, o) => setConfigOptionResponseToV1(x, v1BoolClient, o),
    interpreted: {
      v1: [["configOptions"], ["configOptions", "*", "type"], ["configOptions", "*", "id"]],
      v2: [["configOptions"], ["configOptions", "*", "type"], ["configOptions", "*", "configId"]],
    },
  });

  convertsLosslessly({
    name: "SetSessionConfigOptionResponse, v1 client without boolean options",
    v1: {
      schema: "v1",
      def: "SetSessionConfigOptionResponse",
      arb: arb("v1", "SetSessionConfigOptionResponse").filter((r) =>
        ((r as Json).configOptions as Json[]).every((o) => o.type === "select"),
      ),
    },
    v2: { schema: "v2", def: "SetSessionConfigOptionResponse" },
    toV2: (x, o) => setConfigOptionResponseToV2(x, {}, o),
    toV1: (x, o) => setConfigOptionResponseToV1(x, v1Client, o),
  });

  convertsLosslessly({
    name: "ConfigOptionUpdate",
    v1: { schema: "v1", def: "ConfigOptionUpdate" },
    v2: { schema: "v2", def: "ConfigOptionUpdate" },
    toV2: (x, o) => configOptionUpdateToV2(x, {}, o),
    toV1: (x, o) => configOptionUpdateToV1(x, v1BoolClient, o),
    interpreted: { v1: [["configOptions"]], v2: [["configOptions"], ["configOptions", "*", "type"]] },
  });

  const tagged = (version: "v1" | "v2"): fc.Arbitrary<unknown> =>
    arb(version, "ConfigOptionUpdate").map((u) => ({ ...(u as Json), sessionUpdate: "config_option_update" }));
  convertsLosslessly({
    name: "SessionUpdate config_option_update",
    v1: { schema: "v1", def: "SessionUpdate", arb: tagged("v1") },
    v2: { schema: "v2", def: "SessionUpdate", arb: tagged("v2") },
    toV2: (x, o) => configOptionUpdateToV2(x, {}, o),
    toV1: (x, o) => configOptionUpdateToV1(x, v1BoolClient, o),
  });
});
