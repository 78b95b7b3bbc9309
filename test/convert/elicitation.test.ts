import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  elicitationRequestToV1,
  elicitationRequestToV2,
  elicitationResponseToV1,
  elicitationResponseToV2,
  type ElicitationToV1Context,
  type ElicitationToV2Context,
  type RequestIdToV2,
} from "../../src/convert/elicitation.js";
import type { Conv } from "../../src/convert/result.js";
import type { ConvertOptions } from "../../src/convert/stash.js";
import { defaultOptions } from "../support/conv.js";
import { arb } from "../support/arbitrary.js";
import { convertsLosslessly, options } from "../support/properties.js";
import { expectValid, type SchemaVersion } from "../support/schema.js";
import { value } from "../support/conv.js";

/** The converted value, schema-checked as `def` of `version`. */
function valid<T>(version: SchemaVersion, def: string, r: Conv<T>): T {
  const v = value(r);
  expectValid(version, def, v);
  return v;
}

type Json = Record<string, unknown>;

const identityToV1 = (opts: ConvertOptions = defaultOptions): ElicitationToV1Context => ({
  opts,
  requestIdToV1: (id) => id,
});
const identityToV2 = (opts: ConvertOptions = defaultOptions): ElicitationToV2Context => ({
  opts,
  requestIdToV2: (id) => (id === null ? undefined : { requestId: id }),
});

function toV1(params: Json, ctx: ElicitationToV1Context = identityToV1()): Json {
  const out = value(elicitationRequestToV1(params as unknown as v2.CreateElicitationRequest, ctx)) as unknown as Json;
  expectValid("v1", "CreateElicitationRequest", out);
  return out;
}

function toV2(params: Json, ctx: ElicitationToV2Context = identityToV2()): Json {
  const out = value(elicitationRequestToV2(params as unknown as v1.CreateElicitationRequest, ctx)) as unknown as Json;
  expectValid("v2", "CreateElicitationRequest", out);
  return out;
}

const form = (requestedSchema: Json, scope: Json = { sessionId: "s" }): Json => ({
  message: "Fill in",
  mode: "form",
  requestedSchema,
  ...scope,
});

describe("T §5.1 A↓ elicitation/create (v2 agent → v1 client)", () => {
  it("drops an unknown string format and stashes it on the property _meta", () => {
    const r = elicitationRequestToV1(
      form({
        type: "object",
        properties: { when: { type: "string", format: "_duration" }, mail: { type: "string", format: "email" } },
      }) as unknown as v2.CreateElicitationRequest,
      identityToV1(),
    );
    const out = value(r) as unknown as Json;
    expectValid("v1", "CreateElicitationRequest", out);
    expect(out.requestedSchema).toEqual({
      type: "object",
      properties: {
        when: {
          type: "string",
          _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { format: "_duration" } } },
        },
        mail: { type: "string", format: "email" },
      },
    });
    expect(r.ok && r.lost.map((l) => l.path)).toEqual([["requestedSchema", "properties", "when", "format"]]);
  });

  it("drops an unknown format without a stash when the stash is off", () => {
    const out = toV1(
      form({ type: "object", properties: { x: { type: "string", format: "future_x" } } }),
      identityToV1(options("off")),
    );
    expect(out.requestedSchema).toEqual({ type: "object", properties: { x: { type: "string" } } });
  });

  it("rewrites a request scope's requestId to the v1 client's id", () => {
    const ctx: ElicitationToV1Context = {
      opts: defaultOptions,
      requestIdToV1: (id) => (id === 12 ? "client-7" : undefined),
    };
    const out = toV1(
      { message: "Open", mode: "url", elicitationId: "e1", url: "https://example.com/x", requestId: 12 },
      ctx,
    );
    expect(out).toEqual({
      message: "Open",
      mode: "url",
      elicitationId: "e1",
      url: "https://example.com/x",
      requestId: "client-7",
    });
  });

  it("answers -32602 for a requestId the bridge never relayed", () => {
    const r = elicitationRequestToV1(
      { message: "m", mode: "url", elicitationId: "e", url: "https://e.x/", requestId: 99 },
      { opts: defaultOptions, requestIdToV1: () => undefined },
    );
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ code: -32602, data: { field: "requestId", reason: "unknown_request" } });
  });

  it("passes session scopes, tool call ids, url mode and unknown modes through unchanged", () => {
    const url = {
      message: "m",
      mode: "url",
      elicitationId: "e",
      url: "https://e.x/",
      sessionId: "s",
      toolCallId: "t",
      _meta: { a: 1 },
    };
    expect(toV1(url)).toEqual(url);
    const other = { message: "m", mode: "_wizard", steps: [1], sessionId: "s" };
    expect(toV1(other)).toEqual(other);
  });
});

describe("T §5.1 B↓ elicitation/create (v1 agent → v2 client)", () => {
  it("fills in the type and properties v2 requires, marked as invented", () => {
    const out = toV2(form({}));
    expect(out.requestedSchema).toEqual({
      type: "object",
      properties: {},
      _meta: { "acp-bridge": { v: 1, from: 1, hadMeta: false, synthetic: ["type", "properties"] } },
    });
    expect(toV1(out)).toEqual(form({}));
  });

  it("drops empty enum and oneOf lists (v2 minItems 1) and restores them toward v1", () => {
    const source = form({
      type: "object",
      properties: { pick: { type: "string", enum: [], oneOf: [], title: "Pick" } },
    });
    const out = toV2(source);
    expect((out.requestedSchema as Json).properties).toEqual({
      pick: {
        type: "string",
        title: "Pick",
        _meta: { "acp-bridge": { v: 1, from: 1, hadMeta: false, residual: { enum: [], oneOf: [] } } },
      },
    });
    expect(toV1(out)).toEqual(source);
  });

  it("drops a multi-select without options, and its required entry, and restores both toward v1", () => {
    const source = form({
      type: "object",
      properties: { tags: { type: "array", items: { type: "string", enum: [] } }, name: { type: "string" } },
      required: ["tags", "name"],
    });
    const r = elicitationRequestToV2(source as unknown as v1.CreateElicitationRequest, identityToV2());
    const out = value(r) as unknown as Json;
    expectValid("v2", "CreateElicitationRequest", out);
    expect(out.requestedSchema).toMatchObject({ properties: { name: { type: "string" } }, required: ["name"] });
    expect(r.ok && r.lost.map((l) => l.path)).toEqual([
      ["requestedSchema", "properties", "tags"],
      ["requestedSchema", "required"],
    ]);
    expect(toV1(out)).toEqual(source);
  });

  it("drops a pattern that is not an ECMA-262 regular expression", () => {
    const source = form({ type: "object", properties: { code: { type: "string", pattern: "(unclosed" } } });
    const out = toV2(source);
    expect((out.requestedSchema as Json).properties).toMatchObject({ code: { type: "string" } });
    expect(toV1(out)).toEqual(source);
  });

  it("rewrites a requestId through the id map", () => {
    const ctx: ElicitationToV2Context = {
      opts: defaultOptions,
      requestIdToV2: (id) => (id === 4 ? { requestId: "v2-req" } : undefined),
    };
    expect(toV2({ message: "m", mode: "url", elicitationId: "e", url: "https://e.x/", requestId: 4 }, ctx)).toEqual({
      message: "m",
      mode: "url",
      elicitationId: "e",
      url: "https://e.x/",
      requestId: "v2-req",
    });
  });

  it("scopes an elicitation on an acknowledged prompt to the prompt's session and stashes the request", () => {
    const map = (id: v1.RequestId): RequestIdToV2 | undefined =>
      id === 4 ? { requestId: 30, ackedPromptOf: "sess" } : undefined;
    const r = elicitationRequestToV2(
      { message: "m", mode: "url", elicitationId: "e", url: "https://e.x/", requestId: 4 },
      { opts: defaultOptions, requestIdToV2: map },
    );
    const out = value(r) as unknown as Json;
    expectValid("v2", "CreateElicitationRequest", out);
    expect(out).toEqual({
      message: "m",
      mode: "url",
      elicitationId: "e",
      url: "https://e.x/",
      sessionId: "sess",
      _meta: { "acp-bridge": { v: 1, from: 1, hadMeta: false, residual: { requestId: 30 }, synthetic: ["sessionId"] } },
    });
    // Through an A bridge whose v2 request 30 is its v1 client's request "c-1" (chain v1 agent → B → A → v1).
    expect(toV1(out, { opts: defaultOptions, requestIdToV1: (id) => (id === 30 ? "c-1" : undefined) })).toEqual({
      message: "m",
      mode: "url",
      elicitationId: "e",
      url: "https://e.x/",
      requestId: "c-1",
    });
    // A plain v2 → v1 hop that cannot resolve it keeps the (valid) session scope.
    expect(toV1(out, { opts: defaultOptions, requestIdToV1: () => undefined })).toMatchObject({ sessionId: "sess" });
  });

  it("keeps the session when v1 gave both scopes, v2 allowing only one", () => {
    const source = { message: "m", mode: "url", elicitationId: "e", url: "https://e.x/", sessionId: "s", requestId: 5 };
    const out = toV2(source);
    expect(out).toMatchObject({ sessionId: "s" });
    expect(out).not.toHaveProperty("requestId");
    expect(toV1(out)).toEqual(source);
  });

  it("rejects a request scope with a null or unknown id", () => {
    for (const requestId of [null, 8]) {
      const r = elicitationRequestToV2(
        { message: "m", mode: "url", elicitationId: "e", url: "https://e.x/", requestId },
        { opts: defaultOptions, requestIdToV2: () => undefined },
      );
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.code).toBe(-32602);
    }
  });

  it("rejects a requestedSchema that is not an object schema", () => {
    for (const requestedSchema of [7, { type: "array" }, { properties: [] }, { properties: { a: 1 } }]) {
      const r = elicitationRequestToV2(
        form({}, { sessionId: "s" }) as unknown as v1.CreateElicitationRequest,
        identityToV2(),
      );
      expect(r.ok).toBe(true);
      const bad = elicitationRequestToV2(
        { ...form({}), requestedSchema } as unknown as v1.CreateElicitationRequest,
        identityToV2(),
      );
      expect(bad.ok).toBe(false);
    }
  });
});

describe("T §5.1 elicitation/create without what both versions require is refused (issue 19)", () => {
  const cases: [string, Json, string, string][] = [
    [
      "a form with neither sessionId nor requestId",
      { message: "m", mode: "form", requestedSchema: {} },
      "sessionId",
      "missing_scope",
    ],
    [
      "a URL elicitation with neither sessionId nor requestId",
      { message: "m", mode: "url", elicitationId: "e", url: "https://e.x/" },
      "sessionId",
      "missing_scope",
    ],
    [
      "an unknown mode with neither sessionId nor requestId",
      { message: "m", mode: "_wizard" },
      "sessionId",
      "missing_scope",
    ],
    ["a form without requestedSchema", { message: "m", mode: "form", sessionId: "s" }, "requestedSchema", "missing"],
    [
      "a URL elicitation without url",
      { message: "m", mode: "url", elicitationId: "e", sessionId: "s" },
      "url",
      "missing",
    ],
    [
      "a URL elicitation without elicitationId",
      { message: "m", mode: "url", url: "https://e.x/", sessionId: "s" },
      "elicitationId",
      "missing",
    ],
  ];
  for (const [what, params, field, reason] of cases) {
    it(`A↓ refuses ${what} with -32602 naming ${field}`, () => {
      const r = elicitationRequestToV1(params as unknown as v2.CreateElicitationRequest, identityToV1());
      expect(r.ok ? r.value : r.error).toMatchObject({ code: -32602, data: { field, reason } });
    });
    it(`B↓ refuses ${what} with -32602 naming ${field}`, () => {
      const r = elicitationRequestToV2(params as unknown as v1.CreateElicitationRequest, identityToV2());
      expect(r.ok ? r.value : r.error).toMatchObject({ code: -32602, data: { field, reason } });
    });
  }
});

describe("T §5.1 elicitation responses", () => {
  it("B↑ removes v2-only content values and stashes them in the response _meta; A↑ restores them", () => {
    const resp = {
      action: "accept",
      content: { name: "x", n: 2, ok: true, tags: ["a"], obj: { deep: 1 }, nul: null, mixed: [1, "a"] },
    };
    const r = elicitationResponseToV1(resp as v2.CreateElicitationResponse, defaultOptions);
    const out = value(r);
    expectValid("v1", "CreateElicitationResponse", out);
    expect(out).toEqual({
      action: "accept",
      content: { name: "x", n: 2, ok: true, tags: ["a"] },
      _meta: {
        "acp-bridge": {
          v: 1,
          from: 2,
          hadMeta: false,
          residual: { content: { obj: { deep: 1 }, nul: null, mixed: [1, "a"] } },
        },
      },
    });
    expect(r.ok && r.lost.map((l) => l.path)).toEqual([
      ["content", "obj"],
      ["content", "nul"],
      ["content", "mixed"],
    ]);
    expect(valid("v2", "CreateElicitationResponse", elicitationResponseToV2(out))).toEqual(resp);
  });

  it("relays decline, cancel and unknown actions unchanged", () => {
    for (const resp of [{ action: "decline" }, { action: "cancel", _meta: { a: 1 } }, { action: "_later", when: 5 }]) {
      expect(
        valid(
          "v1",
          "CreateElicitationResponse",
          elicitationResponseToV1(resp as v2.CreateElicitationResponse, defaultOptions),
        ),
      ).toEqual(resp);
      expect(
        valid("v2", "CreateElicitationResponse", elicitationResponseToV2(resp as v1.CreateElicitationResponse)),
      ).toEqual(resp);
    }
  });
});

// Property contexts: ids map to themselves; ids "prompt:…" (which only the v1 arbitrary below
// produces) stand for prompts v2 already acknowledged.
const promptish = (id: v1.RequestId): boolean => typeof id === "string" && id.startsWith("prompt:");
const propToV2 = (opts: ConvertOptions): ElicitationToV2Context => ({
  opts,
  requestIdToV2: (id) =>
    id === null ? undefined : { requestId: id, ...(promptish(id) ? { ackedPromptOf: `s-${id}` } : {}) },
});

const v1Request = (arb("v1", "CreateElicitationRequest") as fc.Arbitrary<Json>)
  .filter((x) => !(x.requestId === null && !Object.hasOwn(x, "sessionId")))
  .map((x) =>
    Object.hasOwn(x, "requestId") && x.requestId !== null && (x.requestId as string).length % 2 === 0
      ? { ...x, requestId: `prompt:${x.requestId as string}` }
      : x,
  );

convertsLosslessly<v1.CreateElicitationRequest, v2.CreateElicitationRequest>({
  name: "T §5.1 CreateElicitationRequest",
  v1: {
    schema: "v1",
    def: "CreateElicitationRequest",
    arb: v1Request as unknown as fc.Arbitrary<v1.CreateElicitationRequest>,
  },
  v2: { schema: "v2", def: "CreateElicitationRequest" },
  toV2: (x, opts) => elicitationRequestToV2(x, propToV2(opts)),
  toV1: (x, opts) => elicitationRequestToV1(x, identityToV1(opts)),
  levels: ["compact", "full"],
  interpreted: {
    v1: [
      ["mode"],
      ["requestId"],
      ["requestedSchema"],
      ["requestedSchema", "properties"],
      ["requestedSchema", "properties", "*"],
    ],
    v2: [
      ["mode"],
      ["requestId"],
      ["requestedSchema"],
      ["requestedSchema", "properties"],
      ["requestedSchema", "properties", "*"],
      ["requestedSchema", "properties", "*", "format"],
    ],
  },
});

convertsLosslessly<v1.CreateElicitationResponse, v2.CreateElicitationResponse>({
  name: "T §5.1 CreateElicitationResponse",
  v1: { schema: "v1", def: "CreateElicitationResponse" },
  v2: { schema: "v2", def: "CreateElicitationResponse" },
  toV2: elicitationResponseToV2,
  toV1: elicitationResponseToV1,
  interpreted: { v1: [["action"], ["content"]], v2: [["action"], ["content"]] },
});
