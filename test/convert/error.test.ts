import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { agentExitedToV1, agentExitedToV2, errorToV2 } from "../../src/convert/error.js";
import type { Conv } from "../../src/convert/result.js";
import { hasResidual, isSynthetic, residualOf, unstash } from "../../src/convert/stash.js";
import { idleToPromptResponse } from "../../src/convert/prompt.js";
import { arb } from "../support/arbitrary.js";
import { diffPaths, norm, numRuns, options } from "../support/properties.js";
import { expectValid } from "../support/schema.js";
import { value } from "../support/conv.js";

const opts = options("compact");

/** Direction A answers with a v2 agent's error as it is (v1-client/engine.ts), -32002 wrapping included. */
const passedByA = (e: unknown): Conv<unknown> => ({ ok: true, value: e, lost: [] });

/** What a v2 -32002 B wrapped keeps of the v1 `data` for a bridge that reads stashes. */
function stashedData(err: { data?: unknown }): { data: unknown } | "absent" | undefined {
  const data = err.data as { _meta?: unknown };
  const { env } = unstash(data._meta, 1);
  if (hasResidual(env, "data")) return { data: residualOf(env, "data") };
  return isSynthetic(env, "data") ? "absent" : undefined;
}

describe("JSON-RPC errors (H §7.1)", () => {
  it("passes code, message and data unchanged toward v2", () => {
    const e = { code: -32000, message: "Auth required", data: { methods: ["x"] } };
    expect(value(errorToV2(e, { sessionId: "s1" }, opts))).toEqual(e);
  });

  it("passes a v1 -32000 prompt error to the v2 client as it is (T §9 case 16)", () => {
    const e = { code: -32000, message: "Authentication required" };
    const out = value(errorToV2(e, { sessionId: "s1" }, opts));
    expect(out).toEqual(e);
    expectValid("v2", "Error", out);
  });

  it("wraps B's -32002 whose data lacks the sessionId, keeping the original in _meta", () => {
    const e = { code: -32002, message: "Resource not found", data: { uri: "file:///x" } };
    const r = errorToV2(e, { sessionId: "s1" }, opts);
    const out = value(r);
    expect(out).toEqual({
      code: -32002,
      message: "Resource not found",
      data: {
        sessionId: "s1",
        _meta: { "acp-bridge": { v: 1, from: 1, hadMeta: false, residual: { data: { uri: "file:///x" } } } },
      },
    });
    expectValid("v2", "SessionNotFoundErrorData", out.data);
    expect(r.ok && r.lost.map((l) => l.path)).toEqual([["data"]]);
    expect(stashedData(out)).toEqual({ data: e.data });
  });

  it("wraps a -32002 without data and marks its absence in the stash", () => {
    const e = { code: -32002, message: "Session not found" };
    const out = value(errorToV2(e, { sessionId: "s9" }, opts));
    expect(out.data).toEqual({
      sessionId: "s9",
      _meta: { "acp-bridge": { v: 1, from: 1, hadMeta: false, synthetic: ["data"] } },
    });
    expect(stashedData(out)).toBe("absent");
  });

  it("wraps a -32002 with only the sessionId when the stash is off", () => {
    const e = { code: -32002, message: "Session not found", data: null };
    expect(value(errorToV2(e, { sessionId: "s9" }, options("off"))).data).toEqual({ sessionId: "s9" });
  });

  it("leaves a -32002 that names its session, or answers a request without session, alone", () => {
    const named = { code: -32002, message: "Session not found", data: { sessionId: "s1", extra: 1 } };
    expect(value(errorToV2(named, { sessionId: "s1" }, opts))).toEqual(named);
    const file = { code: -32002, message: "File not found", data: { path: "/x" } };
    expect(value(errorToV2(file, {}, opts))).toEqual(file);
  });

  it("strips the idle an A bridge carried in an error's data before a v2 client sees the error", () => {
    const idle = { stopReason: "error", error: { code: -32001, message: "Boom", data: { at: 1 } }, _meta: { k: 1 } };
    const r = value(idleToPromptResponse(idle as never, { cancelRequested: false }, opts));
    if (!("error" in r)) throw new Error("expected an error");
    expect(value(errorToV2(r.error, { sessionId: "s1" }, opts))).toEqual(idle.error);
  });

  it("answers an error object without an integer code with the typed error", () => {
    const r = errorToV2({ code: "x", message: "m" } as never, {}, opts);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.data).toMatchObject({ field: "code", reason: "expected_integer" });
  });

  it("builds the errors the bridge answers with itself (T §1.2-9, §1.4-11)", () => {
    const a = agentExitedToV1(3, opts);
    expect(a).toEqual({
      code: -32603,
      message: "Agent connection closed",
      data: { reason: "agent_exited", exitCode: 3, "acp-bridge": { v: 1, reason: "agent_exited", exitCode: 3 } },
    });
    expectValid("v1", "Error", a);
    expect(agentExitedToV1(null, options("off"))).toEqual({
      code: -32603,
      message: "Agent connection closed",
      data: { reason: "agent_exited", exitCode: null },
    });
    const b = agentExitedToV2(1);
    expect(b).toEqual({ code: -32603, message: "Agent process exited", data: { reason: "agent_exited", exitCode: 1 } });
    expectValid("v2", "Error", b);
  });
});

// Direction A has no error converter (it passes a v2 agent's error as it is), so the round trip a
// chain makes is B's leg followed by the identity: B must change nothing it need not wrap.
describe("Error (properties)", () => {
  it("v1 → v2 → v1 is the identity for an error outside a session", () => {
    fc.assert(
      fc.property(arb("v1", "Error"), fc.constantFrom(...(["off", "compact", "full"] as const)), (e, level) => {
        const r = errorToV2(e as never, {}, options(level));
        const v2e = value(r);
        expectValid("v2", "Error", v2e);
        expect(r.ok && r.lost).toEqual([]);
        expect(norm(value(passedByA(v2e)))).toEqual(norm(e));
      }),
      { numRuns: numRuns() },
    );
  });

  it("answers a v1 error whose code or message has the wrong type with the typed error", () => {
    for (const [bad, field] of [
      [{ code: "x", message: "m" }, "code"],
      [{ code: -32000, message: 42 }, "message"],
    ] as const) {
      const r = errorToV2(bad as never, {}, opts);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.data).toMatchObject({ field });
    }
  });
});

describe("-32002 wrapping round trips (H §7.1, properties)", () => {
  const notFound = arb("v1", "Error").map((e) => {
    const o: Record<string, unknown> = { ...(e as Record<string, unknown>), code: -32002 };
    const d = o.data as Record<string, unknown> | undefined;
    if (d !== null && typeof d === "object" && typeof d.sessionId === "string") Reflect.deleteProperty(o, "data");
    return o;
  });

  it("v1 → v2 gives SessionNotFoundErrorData; the v1 data rides in its stash, which A passes on", () => {
    fc.assert(
      fc.property(notFound, fc.constantFrom<"compact" | "full">("compact", "full"), (e, level) => {
        const v2e = value(errorToV2(e as never, { sessionId: "s1" }, options(level)));
        expectValid("v2", "Error", v2e);
        expectValid("v2", "SessionNotFoundErrorData", v2e.data);
        const back = value(passedByA(v2e));
        expect(back).toEqual(v2e);
        for (const d of diffPaths(norm(e), norm(back))) expect(d[0]).toBe("data");
        expect(norm(stashedData(v2e))).toEqual(Object.hasOwn(e, "data") ? norm({ data: e.data }) : "absent");
      }),
      { numRuns: numRuns() },
    );
  });

  it("with the stash off, the error differs only at the reported data and carries no stash", () => {
    fc.assert(
      fc.property(notFound, (e) => {
        const r = errorToV2(e as never, { sessionId: "s1" }, options("off"));
        if (!r.ok) throw new Error("failed");
        expect(JSON.stringify(r.value)).not.toContain("acp-bridge");
        for (const d of diffPaths(norm(e), norm(r.value))) expect(d[0]).toBe("data");
        expect(r.lost.map((l) => l.path)).toEqual([["data"]]);
      }),
      { numRuns: numRuns() },
    );
  });
});
