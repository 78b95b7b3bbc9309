// Issue 7 item 3, "carry what the other side has a place for": capabilities that only the unstable
// schemas define reach the other version in the shape its (unstable) schema has, whatever the peers.
import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { initializeResponseToV1, initializeResponseToV2 } from "../../src/convert/initialize.js";
import {
  agentConfigFromResult,
  setModeResponseToSetConfigOptionResponse,
  type AgentConfig,
} from "../../src/convert/mode.js";
import { legacyModels, setConfigOptionToSetModel } from "../../src/convert/models.js";
import { newSessionResponseToV1, newSessionResponseToV2 } from "../../src/convert/session-result.js";
import { value, within } from "../support/conv.js";
import { numRuns, options } from "../support/properties.js";
import { expectValid } from "../support/schema.js";
import type { ConvertOptions } from "../../src/convert/stash.js";

/** B's full v2 option list for the agent's state, as its set_config_option answers carry it. */
function agentConfigToV2(cfg: AgentConfig, opts: ConvertOptions) {
  return within<v2.SessionConfigOption[]>(setModeResponseToSetConfigOptionResponse({}, cfg, opts), ["configOptions"]);
}

const off = options("off");
const compact = options("compact");
const UNSTABLE_SESSION_CAPS = ["fork", "archive", "status", "title", "systemPrompt"] as const;

describe("unstable agent capabilities are carried, not stashed (issue 7 item 3b)", () => {
  it("A: a v2 agent's session.{fork,…} reach the v1 client as sessionCapabilities.{fork,…}", () => {
    const session: Record<string, unknown> = {};
    for (const k of UNSTABLE_SESSION_CAPS) session[k] = {};
    const r = value(
      initializeResponseToV1(
        {
          protocolVersion: 2,
          info: { name: "a", version: "1" },
          capabilities: { session, auth: { status: {} }, providers: {} },
          authMethods: [],
        },
        off,
      ),
    );
    const caps = r.agentCapabilities as Record<string, Record<string, unknown>>;
    for (const k of UNSTABLE_SESSION_CAPS) expect(caps.sessionCapabilities?.[k]).toEqual({});
    expect(caps.auth).toEqual({ status: {} });
    expect(caps.providers).toEqual({});
    expectValid("v1", "InitializeResponse", r);
    expectValid("v1u", "InitializeResponse", r);
  });

  it("B: a v1 agent's sessionCapabilities.{fork,…} reach the v2 client as session.{fork,…}", () => {
    const sessionCapabilities: Record<string, unknown> = {};
    for (const k of UNSTABLE_SESSION_CAPS) sessionCapabilities[k] = {};
    const r = value(
      initializeResponseToV2(
        {
          protocolVersion: 1,
          agentCapabilities: { loadSession: true, sessionCapabilities },
          authMethods: [],
        },
        off,
      ),
    );
    const caps = r.capabilities as Record<string, Record<string, unknown>>;
    for (const k of UNSTABLE_SESSION_CAPS) expect(caps.session?.[k]).toEqual({});
    expectValid("v2", "InitializeResponse", r);
    expectValid("v2u", "InitializeResponse", r);
  });

  const marker = fc.option(fc.constant({}), { nil: undefined });
  const caps = fc.record(
    Object.fromEntries(UNSTABLE_SESSION_CAPS.map((k) => [k, marker])) as Record<
      (typeof UNSTABLE_SESSION_CAPS)[number],
      typeof marker
    >,
    { requiredKeys: [] },
  );

  test.prop([caps], { numRuns: numRuns() })("B then A gives the v1 agent's capabilities back exactly", (picked) => {
    const sessionCapabilities = Object.fromEntries(Object.entries(picked).filter(([, v]) => v !== undefined));
    const src = { protocolVersion: 1, agentCapabilities: { sessionCapabilities }, authMethods: [] };
    const there = value(initializeResponseToV2(src as unknown as v1.InitializeResponse, compact));
    const back = value(initializeResponseToV1(there, compact));
    expect(back.agentCapabilities).toEqual(src.agentCapabilities);
    // Without any stash the capabilities still arrive: carried, not restored.
    const plain = value(initializeResponseToV2(src as unknown as v1.InitializeResponse, off));
    for (const k of Object.keys(sessionCapabilities))
      expect((plain.capabilities as { session: Record<string, unknown> }).session[k]).toEqual({});
  });
});

const legacyModel = fc.record(
  { modelId: fc.string({ minLength: 1, maxLength: 8 }), name: fc.string({ maxLength: 8 }), description: fc.string() },
  { requiredKeys: ["modelId", "name"] },
);
const legacyState = fc
  .tuple(fc.array(legacyModel, { maxLength: 4 }), fc.string({ minLength: 1, maxLength: 8 }), fc.boolean())
  .map(([availableModels, other, pickListed]) => ({
    availableModels,
    currentModelId: pickListed && availableModels[0] ? availableModels[0].modelId : other,
  }));

describe("legacy models as a v2 model config option (issue 7 item 3c)", () => {
  it("B: a session result's models become a model select option; malformed ones stay as they are", () => {
    const models = { currentModelId: "m1", availableModels: [{ modelId: "m1", name: "One", description: "d" }] };
    const out = value(newSessionResponseToV2({ sessionId: "s", models }, {}, off)) as Record<string, unknown>;
    expect(out).toEqual({
      sessionId: "s",
      configOptions: [
        {
          configId: "model",
          name: "Model",
          category: "model",
          type: "select",
          currentValue: "m1",
          options: [{ value: "m1", name: "One", description: "d" }],
        },
      ],
    });
    expectValid("v2", "NewSessionResponse", out);
    const odd = { sessionId: "s", models: { currentModelId: 3 } };
    expect(value(newSessionResponseToV2(odd, {}, off))).toEqual(odd);
  });

  it("B: the option id moves aside when the agent already has an option called model", () => {
    const own = { id: "model", name: "M", type: "select", currentValue: "x", options: [{ value: "x", name: "X" }] };
    const models = { currentModelId: "m1", availableModels: [{ modelId: "m1", name: "One" }] };
    const out = value(newSessionResponseToV2({ sessionId: "s", models, configOptions: [own] }, {}, off));
    expect((out.configOptions ?? []).map((o) => o.configId)).toEqual(["acp-bridge.model", "model"]);
  });

  test.prop([legacyState], { numRuns: numRuns() })(
    "B: every synthesized option is a valid v2 select whose values set_model accepts, and only those",
    (models) => {
      const cfg = agentConfigFromResult({ sessionId: "s", models });
      expect(cfg.models).toEqual(models);
      const list = value(agentConfigToV2(cfg, compact));
      for (const o of list) expectValid("v2", "SessionConfigOption", o);
      const option = list[0] as unknown as { currentValue: string; options: { value: string }[] };
      expect(option.options.map((o) => o.value)).toContain(option.currentValue);
      const known = legacyModels(models);
      if (known === undefined) throw new Error("generated models are well-formed");
      for (const { value: v } of option.options) {
        const r = setConfigOptionToSetModel({ sessionId: "s", configId: "model", type: "id", value: v }, known);
        expect(value(r)).toEqual({ sessionId: "s", modelId: v });
      }
      const unknown = "\u0000not-a-model";
      expect(setConfigOptionToSetModel({ sessionId: "s", type: "id", value: unknown }, known).ok).toBe(false);
      expect(setConfigOptionToSetModel({ sessionId: "s", type: "boolean", value: true }, known).ok).toBe(false);
    },
  );
});

describe("legacy models through two bridges (B then A)", () => {
  test.prop([legacyState, fc.boolean(), fc.boolean()], { numRuns: numRuns() })(
    "the v1 client gets the v1 agent's session result back exactly",
    (models, withModes, withList) => {
      const src: Record<string, unknown> = { sessionId: "s", models };
      if (withModes) src.modes = { currentModeId: "ask", availableModes: [{ id: "ask", name: "Ask" }] };
      if (withList)
        src.configOptions = [
          { id: "effort", name: "Effort", type: "select", currentValue: "lo", options: [{ value: "lo", name: "Lo" }] },
        ];
      const v2 = value(newSessionResponseToV2(src, {}, compact));
      const back = value(newSessionResponseToV1(v2, { booleanOptions: true }, compact));
      expect(back.result).toEqual(src);
    },
  );
});
