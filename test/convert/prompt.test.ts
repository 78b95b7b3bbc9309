import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { V1_BLOCK_TYPES } from "../../mappings/content.js";
import {
  idleToPromptResponse,
  type PromptOutcomeV1,
  promptErrorToIdle,
  promptRequestToV1,
  promptRequestToV2,
  promptResponseToIdle,
} from "../../src/convert/prompt.js";
import type { Conv } from "../../src/convert/result.js";
import type { StashLevel } from "../../src/convert/stash.js";
import { arb } from "../support/arbitrary.js";
import { convertsLosslessly, diffPaths, norm, numRuns, options } from "../support/properties.js";
import { expectValid } from "../support/schema.js";
import { value } from "../support/conv.js";

const opts = options("compact");
const off = options("off");
const noCancel = { cancelRequested: false };
const cancel = { cancelRequested: true };

function result(r: Conv<PromptOutcomeV1>): Record<string, unknown> {
  const v = value(r);
  if (!("result" in v)) throw new Error(`expected a result, got ${JSON.stringify(v)}`);
  expectValid("v1", "PromptResponse", v.result);
  return v.result;
}

function error(r: Conv<PromptOutcomeV1>): Record<string, unknown> {
  const v = value(r);
  if (!("error" in v)) throw new Error(`expected an error, got ${JSON.stringify(v)}`);
  expectValid("v1", "Error", v.error);
  return v.error;
}

/** v1 `uri` fields are plain strings, v2 ones `format: uri`; blocks pass them (T §3.1): generate URIs. */
const URIS = ["file:///w/a.txt", "https://example.com/x?y=1", "urn:isbn:0451450523"];
function withUri(def: string): fc.Arbitrary<unknown> {
  return fc.tuple(arb("v1", def), fc.constantFrom(...URIS)).map(([v, uri]) => {
    const o = v as Record<string, unknown>;
    return typeof o.uri === "string" ? { ...o, uri } : o;
  });
}
const uriOverrides = {
  overrides: Object.fromEntries(
    ["ResourceLink", "ImageContent", "TextResourceContents", "BlobResourceContents"].map((d) => [d, withUri(d)]),
  ),
};

describe("session/prompt requests (T §1.1, §1.2-1, §1.4-1)", () => {
  it("answers an empty v1 prompt with -32602 itself, since v2 forbids it", () => {
    const r = promptRequestToV2({ sessionId: "s1", prompt: [] }, opts);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe(-32602);
      expect(r.error.data).toMatchObject({ field: "prompt", reason: "empty_prompt" });
    }
  });

  it("forwards a v1 prompt with its blocks and _meta unchanged", () => {
    const p = {
      sessionId: "s1",
      prompt: [{ type: "text" as const, text: "Fix the failing test" }],
      _meta: { traceparent: "t" },
    };
    const out = value(promptRequestToV2(p, opts));
    expect(out).toEqual(p);
    expectValid("v2", "PromptRequest", out);
  });

  it("rejects a v2 prompt with a block type v1 cannot express with -32602, never rewriting it", () => {
    const p = {
      sessionId: "s1",
      prompt: [
        { type: "text", text: "a" },
        { type: "_sketch", strokes: [] },
      ],
    };
    const r = promptRequestToV1(p as never, opts);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe(-32602);
      expect(r.error.data).toMatchObject({ field: "prompt[1].type", reason: "unknown_variant" });
    }
  });

  it("forwards a v2 prompt of known blocks to v1", () => {
    const p = { sessionId: "s1", prompt: [{ type: "text" as const, text: "hi" }] };
    const out = value(promptRequestToV1(p, opts));
    expect(out).toEqual(p);
    expectValid("v1", "PromptRequest", out);
  });
});

describe("A: v2 idle → v1 prompt response (T §1.3, T §6 idle stopReason)", () => {
  it.each(["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"])(
    "answers idle %s with the same stop reason",
    (s) => {
      expect(result(idleToPromptResponse({ stopReason: s } as never, noCancel, opts))).toEqual({ stopReason: s });
    },
  );

  it("accepts the whole state_update and leaves its tags out of the response", () => {
    const u = { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" };
    expect(result(idleToPromptResponse(u as never, noCancel, opts))).toEqual({ stopReason: "end_turn" });
  });

  it("ends a failed turn with a JSON-RPC error of the same code and message (T §9 case 6)", () => {
    const idle = { stopReason: "error", error: { code: -32000, message: "Auth required" } };
    expect(error(idleToPromptResponse(idle as never, noCancel, opts))).toEqual({
      code: -32000,
      message: "Auth required",
    });
  });

  it("keeps the agent's error data and carries the rest of the idle in it", () => {
    const idle = { stopReason: "error", error: { code: -32001, message: "Boom", data: { at: 1 } }, _meta: { k: 1 } };
    const e = error(idleToPromptResponse(idle as never, noCancel, opts));
    expect(e).toEqual({
      code: -32001,
      message: "Boom",
      data: { at: 1, "acp-bridge": { v: 1, from: 2, hadMeta: true, residual: { idle: { _meta: { k: 1 } } } } },
    });
    expect(value(promptErrorToIdle(e as never, noCancel, opts))).toEqual(idle);
  });

  it("answers error without an error object with -32603 Agent error", () => {
    const e = error(idleToPromptResponse({ stopReason: "error" } as never, noCancel, off));
    expect(e).toEqual({ code: -32603, message: "Agent error" });
  });

  it("answers cancelled instead of the error when the client asked to cancel", () => {
    const idle = { stopReason: "error", error: { code: -32603, message: "aborted" } };
    const r = idleToPromptResponse(idle as never, cancel, opts);
    expect(result(r)).toEqual({
      stopReason: "cancelled",
      _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { stopReason: "error", error: idle.error } } },
    });
    expect(r.ok && r.lost.map((l) => l.path)).toEqual([["stopReason"], ["error"]]);
  });

  it("answers end_turn, or cancelled after a cancel, for an absent stop reason, stashing null", () => {
    expect(result(idleToPromptResponse({}, noCancel, opts))).toEqual({
      stopReason: "end_turn",
      _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { stopReason: null } } },
    });
    expect(result(idleToPromptResponse({ stopReason: null }, cancel, off))).toEqual({ stopReason: "cancelled" });
  });

  it("answers end_turn for an unknown stop reason and stashes it (T §9 case 7)", () => {
    expect(result(idleToPromptResponse({ stopReason: "_vendor_stop" } as never, noCancel, opts))).toEqual({
      stopReason: "end_turn",
      _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { stopReason: "_vendor_stop" } } },
    });
  });

  it("copies the idle's _meta and usage, and stashes its background list", () => {
    const idle = {
      stopReason: "end_turn",
      _meta: { traceparent: "x" },
      usage: { totalTokens: 3, inputTokens: 1, outputTokens: 2 },
      background: [{ type: "terminal", terminalId: "t1" }],
    };
    const out = result(idleToPromptResponse(idle as never, noCancel, opts));
    expect(out).toEqual({
      stopReason: "end_turn",
      usage: idle.usage,
      _meta: {
        traceparent: "x",
        "acp-bridge": { v: 1, from: 2, hadMeta: true, residual: { background: idle.background } },
      },
    });
    expectValid("v1u", "PromptResponse", out);
  });
});

describe("B: v1 prompt response → v2 idle (T §1.5, §1.4-6)", () => {
  it("maps the five v1 stop reasons unchanged", () => {
    for (const s of ["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"] as const) {
      const idle = value(promptResponseToIdle({ stopReason: s }));
      expect(idle).toEqual({ stopReason: s });
      expectValid("v2", "IdleStateUpdate", idle);
    }
  });

  it("restores a stashed v2 stop reason, and omits it for a stashed null", () => {
    const a = result(idleToPromptResponse({ stopReason: "_vendor_stop", _meta: { k: 1 } } as never, noCancel, opts));
    expect(value(promptResponseToIdle(a as never))).toEqual({
      stopReason: "_vendor_stop",
      _meta: { k: 1 },
    });
    const b = result(idleToPromptResponse({}, noCancel, opts));
    expect(value(promptResponseToIdle(b as never))).toEqual({});
  });

  it("puts usage on the idle (no schema has an opt-in, issue 7 item 3a)", () => {
    const usage = { totalTokens: 3, inputTokens: 1, outputTokens: 2 };
    const resp = { stopReason: "end_turn", usage, _meta: { m: 1 } };
    const idle = value(promptResponseToIdle(resp as never));
    expect(idle).toEqual(resp);
    expectValid("v2", "IdleStateUpdate", idle);
    expect(result(idleToPromptResponse(idle, noCancel, opts))).toEqual(resp);
  });

  it("answers an unknown v1 stop reason with the typed error", () => {
    const r = promptResponseToIdle({ stopReason: "_x" } as never);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.data).toMatchObject({ field: "stopReason", reason: "unknown_variant" });
  });

  it("ends an acked turn whose v1 prompt failed with idle error and the same error (T §9 case 16)", () => {
    const e = { code: -32000, message: "Auth required", data: { x: 1 } };
    const idle = value(promptErrorToIdle(e, noCancel, opts));
    expect(idle).toEqual({ stopReason: "error", error: e });
    expectValid("v2", "IdleStateUpdate", idle);
  });

  it("ends it with idle cancelled after a cancel, and a chained A gives the v1 client the error back", () => {
    const e = { code: -32603, message: "aborted" };
    const r = promptErrorToIdle(e, cancel, opts);
    const idle = value(r);
    expect(idle).toEqual({
      stopReason: "cancelled",
      _meta: { "acp-bridge": { v: 1, from: 1, hadMeta: false, residual: { error: e } } },
    });
    expectValid("v2", "IdleStateUpdate", idle);
    expect(error(idleToPromptResponse(idle, cancel, opts))).toEqual(e);
    expect(value(promptErrorToIdle(e, cancel, off))).toEqual({ stopReason: "cancelled" });
  });

  it("answers a v1 error without an integer code with the typed error", () => {
    expect(promptErrorToIdle({ code: 1.5, message: "m" }, noCancel, opts).ok).toBe(false);
  });
});

// ---- properties ----

const knownBlocksOnly = (p: unknown): boolean =>
  ((p as { prompt: { type: string }[] }).prompt ?? []).every((b) => V1_BLOCK_TYPES.has(b.type));

convertsLosslessly({
  name: "PromptRequest",
  v1: {
    schema: "v1",
    def: "PromptRequest",
    arb: arb("v1", "PromptRequest", uriOverrides).filter((p) => (p as { prompt: unknown[] }).prompt.length > 0),
  },
  // A v2 prompt with a block v1 lacks is refused (tested above), so generate known blocks.
  v2: { schema: "v2", def: "PromptRequest", arb: arb("v2", "PromptRequest").filter(knownBlocksOnly) },
  toV2: (x, o) => promptRequestToV2(x as never, o),
  toV1: (x, o) => promptRequestToV1(x as never, o),
  interpreted: { v1: [["prompt"], ["prompt", "*", "type"]], v2: [["prompt"], ["prompt", "*", "type"]] },
});

function asResult(r: Conv<PromptOutcomeV1>): Conv<unknown> {
  if (!r.ok) return r;
  if ("result" in r.value) return { ...r, value: r.value.result };
  throw new Error(`expected a result, got ${JSON.stringify(r.value)}`);
}

const noErrorIdle = (schema: "v2" | "v2u") =>
  arb(schema, "IdleStateUpdate").filter((i) => (i as { stopReason?: unknown }).stopReason !== "error");

for (const [v1s, v2s] of [
  ["v1", "v2"],
  ["v1u", "v2u"],
] as const) {
  convertsLosslessly({
    name: `PromptResponse ⇄ IdleStateUpdate (${v1s}/${v2s})`,
    v1: { schema: v1s, def: "PromptResponse" },
    v2: { schema: v2s, def: "IdleStateUpdate", arb: noErrorIdle(v2s) },
    toV2: (x) => promptResponseToIdle(x as never),
    toV1: (x, o) => asResult(idleToPromptResponse(x as never, noCancel, o)),
    interpreted: { v1: [["stopReason"]] },
    levels: ["compact", "full"],
  });
}

convertsLosslessly({
  name: "PromptResponse ⇄ IdleStateUpdate (cancel requested)",
  v1: { schema: "v1u", def: "PromptResponse" },
  v2: { schema: "v2u", def: "IdleStateUpdate" },
  toV2: (x) => promptResponseToIdle(x as never),
  toV1: (x, o) => asResult(idleToPromptResponse(x as never, cancel, o)),
  interpreted: { v1: [["stopReason"]] },
});

describe("failed turns through both directions (T §1.3 row error, §1.4-6, properties)", () => {
  const runs = { numRuns: numRuns() };
  const errorIdle = arb("v2u", "IdleStateUpdate").map((i) => ({ ...(i as object), stopReason: "error" }));
  const level = fc.constantFrom<StashLevel>("compact", "full");

  it("a v2 error idle becomes a valid v1 error and comes back exactly with the stash on", () => {
    fc.assert(
      fc.property(errorIdle, level, (idle, l) => {
        expectValid("v2u", "IdleStateUpdate", idle);
        const e = error(idleToPromptResponse(idle as never, noCancel, options(l)));
        const back = value(promptErrorToIdle(e as never, noCancel, options(l)));
        expect(norm(back)).toEqual(norm(idle));
      }),
      runs,
    );
  });

  it("with the stash off, the error idle's round trip differs only where losses were reported", () => {
    fc.assert(
      fc.property(errorIdle, (idle) => {
        const r = idleToPromptResponse(idle as never, noCancel, off);
        const e = error(r);
        expect(JSON.stringify(e)).not.toContain("acp-bridge");
        const back = value(promptErrorToIdle(e as never, noCancel, off));
        const lost = r.ok ? r.lost : [];
        for (const d of diffPaths(norm(idle), norm(back)))
          expect(
            lost.some((l) => String(l.path[0]) === String(d[0])),
            `unreported ${d.join("/")}`,
          ).toBe(true);
      }),
      runs,
    );
  });

  it("a v1 prompt error gives a valid error idle and comes back exactly, stash or not", () => {
    fc.assert(
      fc.property(arb("v1", "Error"), fc.constantFrom<StashLevel>("off", "compact"), (e, l) => {
        const idle = value(promptErrorToIdle(e as never, noCancel, options(l)));
        expectValid("v2", "IdleStateUpdate", idle);
        expect(norm(error(idleToPromptResponse(idle, noCancel, options(l))))).toEqual(norm(e));
      }),
      runs,
    );
  });

  it("a v1 prompt error after a cancel gives a valid cancelled idle, and the error comes back with the stash on", () => {
    fc.assert(
      fc.property(arb("v1", "Error"), level, (e, l) => {
        const idle = value(promptErrorToIdle(e as never, cancel, options(l)));
        expectValid("v2", "IdleStateUpdate", idle);
        expect((idle as { stopReason?: unknown }).stopReason).toBe("cancelled");
        expect(norm(error(idleToPromptResponse(idle, cancel, options(l))))).toEqual(norm(e));
      }),
      runs,
    );
  });
});
