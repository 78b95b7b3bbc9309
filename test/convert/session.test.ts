import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import type * as v1u from "@agentclientprotocol/sdk/unstable";
import type * as v2u from "@agentclientprotocol/sdk/experimental/v2/unstable";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { McpSupport } from "../../src/convert/mcp.js";
import type { Conv } from "../../src/convert/result.js";
import {
  forkSessionRequestToV1,
  forkSessionRequestToV2,
  listSessionsRequestToV1,
  listSessionsRequestToV2,
  listSessionsResponseToV1,
  listSessionsResponseToV2,
  loadSessionRequestToV2,
  newSessionRequestToV1,
  newSessionRequestToV2,
  resumeSessionRequestToV1,
  resumeSessionRequestToV2,
  type ListToContext,
  type ResumeToV1,
  type ResumeToV1Context,
  type SessionToV2Context,
} from "../../src/convert/session.js";
import { toRfc3339 } from "../../src/convert/rfc3339.js";
import type { ConvertOptions } from "../../src/convert/stash.js";
import { sessionNotFound } from "../../src/base/errors.js";
import { defaultOptions } from "../support/conv.js";
import { within } from "../support/conv.js";
import { arb } from "../support/arbitrary.js";
import { convertsLosslessly, numRuns, options } from "../support/properties.js";
import { expectValid, type SchemaVersion } from "../support/schema.js";

const mcp: McpSupport = { stdio: true, http: true, acp: true };

function aCtx(o: ConvertOptions = defaultOptions, extra: Partial<SessionToV2Context> = {}): SessionToV2Context {
  return { ...o, platform: "posix", agentSupportsDirectories: true, agentMcp: mcp, onUnsupported: "reject", ...extra };
}
function bCtx(o: ConvertOptions = defaultOptions, extra: Partial<ResumeToV1Context> = {}): ResumeToV1Context {
  return { ...o, platform: "posix", agentSupportsDirectories: true, agentMcp: mcp, ...extra };
}
function listCtx(o: ConvertOptions = defaultOptions): ListToContext {
  return { ...o, platform: "posix", agentSupportsDirectories: true };
}

// One SessionInfo, through the session/list result converters the engine calls.
function sessionInfoToV2(x: unknown, o: ConvertOptions): Conv<v2.SessionInfo> {
  return within(listSessionsResponseToV2({ sessions: [x] }, o), ["sessions", 0]);
}
function sessionInfoToV1(x: unknown, o: ConvertOptions): Conv<v1.SessionInfo> {
  return within(listSessionsResponseToV1({ sessions: [x] }, o), ["sessions", 0]);
}

function okValue<T>(r: Conv<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
  return r.value;
}
function valid<T>(r: Conv<T>, schema: SchemaVersion, def: string): T {
  const v = okValue(r);
  expectValid(schema, def, v);
  return v;
}
function paramsOf<T>(r: Conv<{ params: T }>): Conv<T> {
  return r.ok ? { ok: true, value: r.value.params, lost: r.lost } : r;
}
function failure(r: Conv<unknown>) {
  if (r.ok) throw new Error(`expected an error, got ${JSON.stringify(r.value)}`);
  return r.error;
}
function resumeTarget(r: Conv<ResumeToV1>, method: ResumeToV1["method"]): Conv<Record<string, unknown>> {
  if (!r.ok) return r;
  // A failure, not a throw: random mutations (property e) may legitimately change the method.
  if (r.value.method !== method)
    return { ok: false, error: { code: 0, message: "test", data: { reason: `went to ${r.value.method}` } } };
  return { ok: true, value: r.value.params as unknown as Record<string, unknown>, lost: r.lost };
}

describe("H §4.1 session/new", () => {
  it("A: copies the params, converts MCP servers and keeps _meta verbatim", () => {
    const src: v1.NewSessionRequest = {
      cwd: "/w/app",
      additionalDirectories: ["/w/lib"],
      mcpServers: [{ name: "fs", command: "/bin/mcp", args: [], env: [] }],
      _meta: { traceparent: "00-1-2-01" },
    };
    const r = newSessionRequestToV2(src, aCtx());
    expect(valid(paramsOf(r), "v2", "NewSessionRequest")).toEqual({
      ...src,
      mcpServers: [{ type: "stdio", name: "fs", command: "/bin/mcp", args: [], env: [] }],
    });
    expect(okValue(r).droppedMcpServers).toEqual([]);
  });

  it("A: reports stdio servers dropped under --mcp-unsupported drop for the result's stash", () => {
    const r = newSessionRequestToV2(
      { cwd: "/w", mcpServers: [{ name: "fs", command: "/bin/mcp", args: [], env: [] }] },
      aCtx(defaultOptions, { agentMcp: { stdio: false, http: true }, onUnsupported: "drop" }),
    );
    expect(valid(paramsOf(r), "v2", "NewSessionRequest")).toEqual({ cwd: "/w", mcpServers: [] });
    expect(okValue(r).droppedMcpServers).toEqual([{ index: 0, name: "fs", type: "stdio" }]);
  });

  it("A: rejects stdio servers by default when the agent lacks session.mcp.stdio", () => {
    const e = failure(
      newSessionRequestToV2(
        { cwd: "/w", mcpServers: [{ name: "fs", command: "/bin/mcp", args: [], env: [] }] },
        aCtx(defaultOptions, { agentMcp: { stdio: false, http: true } }),
      ),
    );
    expect(e.data).toMatchObject({ type: "stdio", name: "fs", index: 0 });
  });

  it("B: sends mcpServers [] when the v2 client omitted it, marked synthetic", () => {
    const r = newSessionRequestToV1({ cwd: "/w/app" }, bCtx());
    expect(valid(r, "v1", "NewSessionRequest")).toEqual({
      cwd: "/w/app",
      mcpServers: [],
      _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, synthetic: ["mcpServers"] } },
    });
    expect(okValue(paramsOf(newSessionRequestToV2(okValue(r), aCtx())))).toEqual({ cwd: "/w/app" });
  });

  it("B: keeps an explicit empty server list without a stash", () => {
    expect(valid(newSessionRequestToV1({ cwd: "/w", mcpServers: [] }, bCtx()), "v1", "NewSessionRequest")).toEqual({
      cwd: "/w",
      mcpServers: [],
    });
  });

  it("B: rejects an MCP transport the v1 agent cannot take", () => {
    const e = failure(
      newSessionRequestToV1({ cwd: "/w", mcpServers: [{ type: "_x", name: "c" } as unknown as v2.McpServer] }, bCtx()),
    );
    expect(e.data).toMatchObject({
      field: "mcpServers",
      type: "_x",
      index: 0,
      reason: "transport not supported by v1 agent",
    });
  });

  it("rejects params that are not an object", () => {
    expect(failure(newSessionRequestToV2(null as never, aCtx())).data).toMatchObject({ reason: "not_object" });
  });
});

describe("H §4.3 session/load → session/resume with replay (A)", () => {
  it("translates the spec example exactly", () => {
    const r = loadSessionRequestToV2(
      {
        sessionId: "s1",
        cwd: "/w/app",
        additionalDirectories: ["/w/lib"],
        mcpServers: [{ name: "fs", command: "/bin/mcp", args: [], env: [] }],
      },
      aCtx(),
    );
    expect(valid(paramsOf(r), "v2", "ResumeSessionRequest")).toEqual({
      sessionId: "s1",
      cwd: "/w/app",
      additionalDirectories: ["/w/lib"],
      mcpServers: [{ type: "stdio", name: "fs", command: "/bin/mcp", args: [], env: [] }],
      replayFrom: { type: "start" },
    });
  });

  it("rejects a missing sessionId", () => {
    expect(failure(loadSessionRequestToV2({ cwd: "/w", mcpServers: [] } as never, aCtx())).data).toEqual({
      field: "sessionId",
      index: null,
      reason: "not_string",
    });
  });

  it("never re-populates roots the load omitted", () => {
    const out = okValue(paramsOf(loadSessionRequestToV2({ sessionId: "s", cwd: "/w", mcpServers: [] }, aCtx())));
    expect(out).not.toHaveProperty("additionalDirectories");
  });
});

describe("H §4.4 session/resume", () => {
  it("A: forwards a v1 resume without replayFrom", () => {
    const src: v1.ResumeSessionRequest = { sessionId: "s1", cwd: "/w", _meta: { k: 1 } };
    expect(valid(paramsOf(resumeSessionRequestToV2(src, aCtx())), "v2", "ResumeSessionRequest")).toEqual(src);
  });

  it("A: a replayFrom key on a v1 resume never asks the v2 agent for history", () => {
    const r = resumeSessionRequestToV2({ sessionId: "s1", cwd: "/w", replayFrom: { type: "start" } } as never, aCtx());
    const out = valid(paramsOf(r), "v2", "ResumeSessionRequest");
    expect(out.replayFrom).toBeUndefined();
    expect(okValue(r) && r.ok && r.lost.map((l) => l.path)).toEqual([["replayFrom"]]);
  });

  it("B: replay from start becomes session/load with mcpServers [] added (H §9 case 6)", () => {
    const r = okValue(resumeSessionRequestToV1({ sessionId: "s1", cwd: "/w", replayFrom: { type: "start" } }, bCtx()));
    expect(r.method).toBe("session/load");
    expect(r.replay).toBe(true);
    expectValid("v1", "LoadSessionRequest", r.params);
    expect(r.params).toEqual({
      sessionId: "s1",
      cwd: "/w",
      mcpServers: [],
      _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, synthetic: ["mcpServers"] } },
    });
  });

  it("B: without replay becomes a v1 session/resume, servers left as sent", () => {
    const r = okValue(resumeSessionRequestToV1({ sessionId: "s1", cwd: "/w" }, bCtx()));
    expect(r).toEqual({ method: "session/resume", params: { sessionId: "s1", cwd: "/w" }, replay: false });
    expectValid("v1", "ResumeSessionRequest", r.params);
  });

  it("B: viaLoad sends a resume without replay as session/load and says there is no replay (H §9 case 7)", () => {
    const r = okValue(
      resumeSessionRequestToV1({ sessionId: "s1", cwd: "/w", mcpServers: [] }, bCtx(defaultOptions, { viaLoad: true })),
    );
    expect(r.method).toBe("session/load");
    expect(r.replay).toBe(false);
    expectValid("v1", "LoadSessionRequest", r.params);
    // A chained A bridge must not turn it into a replay.
    const back = okValue(paramsOf(loadSessionRequestToV2(r.params as v1.LoadSessionRequest, aCtx())));
    expect(back).toEqual({ sessionId: "s1", cwd: "/w", mcpServers: [] });
  });

  for (const type of ["_vendor_cursor", "message"]) {
    it(`B: rejects the unknown cursor ${type} with -32602 before anything reaches the agent`, () => {
      const e = failure(
        resumeSessionRequestToV1({ sessionId: "s1", cwd: "/w", replayFrom: { type } } as never, bCtx()),
      );
      expect(e.code).toBe(-32602);
      expect(e.data).toEqual({ field: "replayFrom", index: null, reason: "unsupported cursor", type });
    });
  }

  it("B: rejects a malformed replayFrom", () => {
    expect(
      failure(resumeSessionRequestToV1({ sessionId: "s", cwd: "/w", replayFrom: 3 } as never, bCtx())).data,
    ).toMatchObject({
      field: "replayFrom",
      reason: "not_object",
    });
    expect(
      failure(resumeSessionRequestToV1({ sessionId: "s", cwd: "/w", replayFrom: {} } as never, bCtx())).data,
    ).toMatchObject({
      field: "replayFrom.type",
      reason: "not_string",
    });
  });

  it("B: a null replayFrom resumes without replay and a chained A restores the null", () => {
    const r = okValue(resumeSessionRequestToV1({ sessionId: "s1", cwd: "/w", replayFrom: null }, bCtx()));
    expect(r.method).toBe("session/resume");
    expect(okValue(paramsOf(resumeSessionRequestToV2(r.params, aCtx())))).toEqual({
      sessionId: "s1",
      cwd: "/w",
      replayFrom: null,
    });
  });

  it("B: a start cursor with its own _meta survives a chain", () => {
    const src: v2.ResumeSessionRequest = {
      sessionId: "s1",
      cwd: "/w",
      mcpServers: [],
      replayFrom: { type: "start", _meta: { x: 1 } },
    };
    const load = okValue(resumeSessionRequestToV1(src, bCtx()));
    expect(okValue(paramsOf(loadSessionRequestToV2(load.params as v1.LoadSessionRequest, aCtx())))).toEqual(src);
  });

  it("B: roots on resume are the request's own, never added", () => {
    const r = okValue(resumeSessionRequestToV1({ sessionId: "s1", cwd: "/w", replayFrom: { type: "start" } }, bCtx()));
    expect(r.params).not.toHaveProperty("additionalDirectories");
  });
});

describe("H §4.5 session/list", () => {
  it("A: wraps an empty next cursor for v1 clients and unwraps it on the next request", () => {
    const res = listSessionsResponseToV1({ sessions: [], nextCursor: "" }, defaultOptions);
    expect(valid(res, "v1", "ListSessionsResponse")).toEqual({ sessions: [], nextCursor: "acp-bridge:empty" });
    const req = listSessionsRequestToV2({ cwd: "/w", cursor: "acp-bridge:empty" }, listCtx());
    expect(valid(paramsOf(req), "v2", "ListSessionsRequest")).toEqual({ cwd: "/w", cursor: "" });
  });

  it("escapes v2 cursors that look like the bridge's own, so the mapping stays one to one", () => {
    const wrap = (c: string) =>
      okValue(listSessionsResponseToV1({ sessions: [], nextCursor: c }, defaultOptions)).nextCursor;
    const unwrap = (c: unknown) =>
      okValue(paramsOf(listSessionsRequestToV2({ cwd: "/w", cursor: c as string }, listCtx()))).cursor;
    for (const c of ["", "acp-bridge:empty", "acp-bridge:raw:x", "acp-bridge:", "abc", "acp-bridge:raw:acp-bridge:q"]) {
      expect(unwrap(wrap(c))).toBe(c);
    }
    expect(wrap("acp-bridge:empty")).toBe("acp-bridge:raw:acp-bridge:empty");
  });

  it("copies ordinary cursors and null in both directions", () => {
    expect(okValue(listSessionsResponseToV1({ sessions: [], nextCursor: "p2" }, defaultOptions)).nextCursor).toBe("p2");
    expect(okValue(listSessionsResponseToV2({ sessions: [], nextCursor: null }, defaultOptions)).nextCursor).toBeNull();
    expect(okValue(paramsOf(listSessionsRequestToV1({ cursor: "p2" }, listCtx())))).toEqual({ cursor: "p2" });
  });

  it("B: a v1 agent's empty cursor reaches the v2 client as is and a chained A restores it", () => {
    const r = listSessionsResponseToV2({ sessions: [], nextCursor: "" }, defaultOptions);
    const v2res = valid(r, "v2", "ListSessionsResponse");
    expect(v2res.nextCursor).toBe("");
    expect(r.ok && r.lost.map((l) => l.path)).toEqual([["nextCursor"]]);
    expect(okValue(listSessionsResponseToV1(v2res, defaultOptions))).toEqual({ sessions: [], nextCursor: "" });
  });

  it("refuses a listed session whose copied fields the other version would reject (issue 19)", () => {
    const ok = { sessionId: "s", cwd: "/w" };
    const cases: [Record<string, unknown>, string][] = [
      [{ cwd: "/w" }, "sessions[].sessionId"],
      [{ ...ok, sessionId: 5 }, "sessions[].sessionId"],
      [{ sessionId: "s" }, "sessions[].cwd"],
      [{ ...ok, title: {} }, "sessions[].title"],
      [{ ...ok, additionalDirectories: [1] }, "sessions[].additionalDirectories"],
    ];
    for (const [session, field] of cases) {
      expect(failure(listSessionsResponseToV1({ sessions: [session] }, defaultOptions)).data).toMatchObject({ field });
      expect(failure(listSessionsResponseToV2({ sessions: [session] }, defaultOptions)).data).toMatchObject({ field });
    }
    // v2 → v1 copies updatedAt (v1 → v2 omits one that is no timestamp).
    expect(
      failure(listSessionsResponseToV1({ sessions: [{ ...ok, updatedAt: 0 }] }, defaultOptions)).data,
    ).toMatchObject({ field: "sessions[].updatedAt", reason: "not_string" });
  });

  it("B: wraps the v2 client's empty cursor toward the v1 agent", () => {
    expect(valid(paramsOf(listSessionsRequestToV1({ cursor: "" }, listCtx())), "v1", "ListSessionsRequest")).toEqual({
      cursor: "acp-bridge:empty",
    });
  });

  it("converts each SessionInfo and reports losses under its index", () => {
    const r = listSessionsResponseToV2(
      { sessions: [{ sessionId: "a", cwd: "/w", updatedAt: "2024-03-24 12:00:00" }] },
      defaultOptions,
    );
    const out = valid(r, "v2", "ListSessionsResponse");
    expect(out.sessions[0]?.updatedAt).toBe("2024-03-24T12:00:00Z");
    expect(r.ok && r.lost.map((l) => l.path)).toEqual([["sessions", 0, "updatedAt"]]);
  });

  it("rejects a relative cwd filter and a non-string cursor", () => {
    expect(failure(listSessionsRequestToV2({ cwd: "w" }, listCtx())).data).toMatchObject({
      field: "cwd",
      reason: "not_absolute",
    });
    expect(failure(listSessionsRequestToV1({ cursor: 3 } as never, listCtx())).data).toMatchObject({
      field: "cursor",
      reason: "not_string",
    });
  });

  it("keeps the unstable archived filter", () => {
    const src = { cwd: null, archived: "only" } as unknown as v1u.ListSessionsRequest;
    expect(valid(paramsOf(listSessionsRequestToV2(src, listCtx())), "v2u", "ListSessionsRequest")).toEqual(src);
  });
});

describe("H §4.6 SessionInfo", () => {
  const info = { sessionId: "s", cwd: "/w" };

  it("B: keeps an RFC 3339 updatedAt as it is", () => {
    const r = sessionInfoToV2({ ...info, updatedAt: "2026-03-24T12:00:00Z" }, defaultOptions);
    expect(valid(r, "v2", "SessionInfo")).toEqual({ ...info, updatedAt: "2026-03-24T12:00:00Z" });
  });

  const rewrites: [string, string][] = [
    ["2026-03-24 12:00:00", "2026-03-24T12:00:00Z"],
    ["2026-03-24T12:00", "2026-03-24T12:00:00Z"],
    ["2026-03-24", "2026-03-24T00:00:00Z"],
    ["2026-03-24t12:00:00z", "2026-03-24T12:00:00Z"],
    ["2026-03-24T12:00:00,5+0100", "2026-03-24T12:00:00.5+01:00"],
    ["2026-03-24T12:00:00-05", "2026-03-24T12:00:00-05:00"],
    ["20260324T120000Z", "2026-03-24T12:00:00Z"],
    [" 2026-03-24T12:00:00Z\n", "2026-03-24T12:00:00Z"],
  ];
  for (const [from, to] of rewrites) {
    it(`B: rewrites the ISO 8601 form ${from} to ${to}, keeping the original in the stash`, () => {
      const r = sessionInfoToV2({ ...info, updatedAt: from }, defaultOptions);
      const out = valid(r, "v2", "SessionInfo");
      expect(out.updatedAt).toBe(to);
      expect(out._meta).toEqual({ "acp-bridge": { v: 1, from: 1, hadMeta: false, residual: { updatedAt: from } } });
      expect(okValue(sessionInfoToV1(out, defaultOptions))).toEqual({ ...info, updatedAt: from });
    });
  }

  for (const bad of [
    "yesterday",
    "2026-02-30T10:00:00Z",
    "2026-03-24T24:00:00Z",
    "2026-03-24T23:59:60Z",
    "1711281600",
    "",
  ]) {
    it(`B: omits the unusable timestamp ${JSON.stringify(bad)} and stashes it`, () => {
      const r = sessionInfoToV2({ ...info, updatedAt: bad }, defaultOptions);
      const out = valid(r, "v2", "SessionInfo");
      expect(out).not.toHaveProperty("updatedAt");
      expect(r.ok && r.lost).toEqual([{ path: ["updatedAt"], reason: "not a timestamp: omitted" }]);
      expect(okValue(sessionInfoToV1(out, defaultOptions))).toEqual({ ...info, updatedAt: bad });
    });
  }

  it("B: with the stash off the original is gone but the loss is reported", () => {
    const r = sessionInfoToV2({ ...info, updatedAt: "soon" }, options("off"));
    expect(valid(r, "v2", "SessionInfo")).toEqual(info);
    expect(r.ok && r.lost.length).toBe(1);
  });

  it("copies null updatedAt, title and additionalDirectories as they are ([] and omitted both kept)", () => {
    for (const s of [
      { ...info, updatedAt: null, title: null, additionalDirectories: [] },
      { ...info, additionalDirectories: ["/w/lib", "/w/lib"] },
    ]) {
      expect(valid(sessionInfoToV2(s, defaultOptions), "v2", "SessionInfo")).toEqual(s);
      expect(valid(sessionInfoToV1(s, defaultOptions), "v1", "SessionInfo")).toEqual(s);
    }
  });

  it("A: copies a v2 timestamp, stashing a valid form the reverse would rewrite", () => {
    const r = sessionInfoToV1({ ...info, updatedAt: "2026-03-24t12:00:00+01" }, defaultOptions);
    const out = valid(r, "v1", "SessionInfo");
    expect(out.updatedAt).toBe("2026-03-24t12:00:00+01");
    expect(okValue(sessionInfoToV2(out, defaultOptions))).toEqual({ ...info, updatedAt: "2026-03-24t12:00:00+01" });
  });

  it("toRfc3339 output always validates as a v2 date-time", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc
            .date({ noInvalidDate: true, min: new Date("0001-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z") })
            .map((d) => d.toISOString()),
          fc.stringMatching(
            /^\d{4}-?\d{2}-?\d{2}([Tt ]\d{2}(:?\d{2}(:?\d{2}([.,]\d{1,4})?)?)?)?([Zz]|[+-]\d{2}(:?\d{2})?)?$/,
          ),
          fc.string(),
        ),
        (s) => {
          const out = toRfc3339(s);
          if (out !== undefined) {
            expectValid("v2", "SessionInfo", { sessionId: "s", cwd: "/w", updatedAt: out });
            expect(toRfc3339(out)).toBe(out);
          }
        },
      ),
      { numRuns: numRuns() },
    );
  });
});

describe("H §4.9 session/fork (unstable)", () => {
  it("A: translates like session/new and never adds the source session's roots", () => {
    const src: v1u.ForkSessionRequest = {
      sessionId: "s1",
      cwd: "/w",
      mcpServers: [{ name: "fs", command: "/bin/m", args: [], env: [] }],
    };
    const out = valid(paramsOf(forkSessionRequestToV2(src, aCtx())), "v2u", "ForkSessionRequest");
    expect(out).toEqual({
      sessionId: "s1",
      cwd: "/w",
      mcpServers: [{ type: "stdio", name: "fs", command: "/bin/m", args: [], env: [] }],
    });
  });

  it("B: keeps omitted mcpServers omitted (optional in v1 fork)", () => {
    expect(valid(forkSessionRequestToV1({ sessionId: "s1", cwd: "/w" }, bCtx()), "v1u", "ForkSessionRequest")).toEqual({
      sessionId: "s1",
      cwd: "/w",
    });
  });

  it("converts the system prompt's content blocks and rejects a block type v1 lacks", () => {
    const sp = { mode: "append", content: [{ type: "text", text: "be brief" }] };
    const out = valid(
      forkSessionRequestToV1({ sessionId: "s", cwd: "/w", systemPrompt: sp } as v2u.ForkSessionRequest, bCtx()),
      "v1u",
      "ForkSessionRequest",
    );
    expect(out.systemPrompt).toEqual(sp);
    const bad = {
      mode: "append",
      content: [
        { type: "text", text: "a" },
        { type: "_widget", x: 1 },
      ],
    };
    const e = failure(forkSessionRequestToV1({ sessionId: "s", cwd: "/w", systemPrompt: bad } as never, bCtx()));
    expect(e.data).toMatchObject({ field: "systemPrompt.content[1].type", index: 1 });
  });

  it("refuses a system prompt without a string mode, which both versions require (issue 19)", () => {
    for (const mode of [undefined, null, 3]) {
      const systemPrompt = { ...(mode === undefined ? {} : { mode }), content: [] };
      const params = { sessionId: "s", cwd: "/w", systemPrompt };
      expect(failure(forkSessionRequestToV1(params as never, bCtx())).data).toEqual({
        field: "systemPrompt.mode",
        index: null,
        reason: "not_string",
      });
      expect(failure(forkSessionRequestToV2({ ...params, mcpServers: [] } as never, aCtx())).data).toEqual({
        field: "systemPrompt.mode",
        index: null,
        reason: "not_string",
      });
    }
  });
});

describe("H §7.1 -32002 for sessions", () => {
  it("carries the sessionId the v2 schema requires", () => {
    const e = sessionNotFound("s9");
    expect(e.code).toBe(-32002);
    expectValid("v2", "Error", e);
    expect(e.data.sessionId).toBe("s9");
  });
});

// ---------------------------------------------------------------------------------------------
// Properties

const absolute = arb("v2", "AbsolutePath") as fc.Arbitrary<string>;
const roots = fc.array(absolute, { maxLength: 3 });

const v1Server = fc
  .tuple(arb("v1", "McpServer"), fc.webUrl())
  .filter(([s]) => (s as { type?: string }).type !== "sse")
  .map(([s, url]) => ((s as { type?: string }).type === "http" ? { ...(s as object), url } : s));
const v1uServer = fc
  .tuple(arb("v1u", "McpServer"), fc.webUrl())
  .filter(([s]) => (s as { type?: string }).type !== "sse")
  .map(([s, url]) => ((s as { type?: string }).type === "http" ? { ...(s as object), url } : s));
const knownV2 = (s: unknown) => ["stdio", "http", "acp"].includes((s as { type: string }).type);
const v2Server = arb("v2", "McpServer").filter(knownV2);
const v2uServer = arb("v2u", "McpServer").filter(knownV2);

/** v1 `uri` fields are plain strings, v2 ones `format: uri`; a v1 peer's non-URI is not repaired. */
const URIS = ["file:///w/a.txt", "https://example.com/x?y=1", "urn:isbn:0451450523"];
function withUri(def: string): fc.Arbitrary<unknown> {
  return fc.tuple(arb("v1u", def), fc.constantFrom(...URIS)).map(([v, uri]) => {
    const o = v as Record<string, unknown>;
    return typeof o.uri === "string" ? { ...o, uri } : o;
  });
}
const v1uUris = Object.fromEntries(
  ["ResourceLink", "ImageContent", "TextResourceContents", "BlobResourceContents"].map((d) => [d, withUri(d)]),
);

/** A v1 lifecycle request with absolute `cwd` and roots (v1 types them as plain strings). */
function v1Lifecycle(version: "v1" | "v1u", def: string): fc.Arbitrary<Record<string, unknown>> {
  const overrides = version === "v1" ? { McpServer: v1Server } : { McpServer: v1uServer, ...v1uUris };
  return fc.tuple(arb(version, def, { overrides }), absolute, roots).map(([x, cwd, dirs]) => {
    const o: Record<string, unknown> = { ...(x as Record<string, unknown>), cwd };
    if (Object.hasOwn(o, "additionalDirectories")) o.additionalDirectories = dirs;
    return o;
  });
}

const V2_BLOCKS = ["text", "image", "audio", "resource_link", "resource"];
function knownPrompt(x: unknown): boolean {
  const sp = (x as { systemPrompt?: { content?: { type: string }[] } | null }).systemPrompt;
  return !sp || (sp.content ?? []).every((b) => V2_BLOCKS.includes(b.type));
}

function v2Lifecycle(version: "v2" | "v2u", def: string): fc.Arbitrary<Record<string, unknown>> {
  return arb(version, def, { overrides: { McpServer: version === "v2" ? v2Server : v2uServer } }).filter(
    knownPrompt,
  ) as fc.Arbitrary<Record<string, unknown>>;
}

const noReplay = (x: Record<string, unknown>) => x.replayFrom === undefined || x.replayFrom === null;
const startCursor = fc.oneof(
  fc.constant({ type: "start" }),
  arb("v2", "ReplayFromStart").map((r) => ({ ...(r as object), type: "start" })),
);

const lifecycleInterpreted = {
  v1: [["cwd"], ["additionalDirectories"], ["additionalDirectories", "*"], ["mcpServers"], ["mcpServers", "*", "name"]],
  v2: [["cwd"], ["additionalDirectories"], ["additionalDirectories", "*"], ["mcpServers"], ["mcpServers", "*", "type"]],
};
const withSessionId = {
  v1: [...lifecycleInterpreted.v1, ["sessionId"]],
  v2: [...lifecycleInterpreted.v2, ["sessionId"]],
};

describe("H §4 lifecycle request properties", () => {
  convertsLosslessly({
    name: "NewSessionRequest",
    v1: { schema: "v1", def: "NewSessionRequest", arb: v1Lifecycle("v1", "NewSessionRequest") },
    v2: { schema: "v2", def: "NewSessionRequest", arb: v2Lifecycle("v2", "NewSessionRequest") },
    toV2: (x, o) => paramsOf(newSessionRequestToV2(x as never, aCtx(o))),
    toV1: (x, o) => newSessionRequestToV1(x as never, bCtx(o)),
    interpreted: lifecycleInterpreted,
    levels: ["compact", "full"],
  });

  convertsLosslessly({
    name: "LoadSessionRequest → ResumeSessionRequest with replay (and back via session/load)",
    v1: { schema: "v1", def: "LoadSessionRequest", arb: v1Lifecycle("v1", "LoadSessionRequest") },
    v2: {
      schema: "v2",
      def: "ResumeSessionRequest",
      arb: fc
        .tuple(v2Lifecycle("v2", "ResumeSessionRequest"), startCursor)
        .map(([x, replayFrom]): Record<string, unknown> => ({ ...x, replayFrom })),
    },
    toV2: (x, o) => paramsOf(loadSessionRequestToV2(x as never, aCtx(o))),
    toV1: (x, o) => resumeTarget(resumeSessionRequestToV1(x as never, bCtx(o)), "session/load"),
    interpreted: { v1: withSessionId.v1, v2: [...withSessionId.v2, ["replayFrom"], ["replayFrom", "type"]] },
  });

  convertsLosslessly({
    name: "ResumeSessionRequest without replay",
    v1: { schema: "v1", def: "ResumeSessionRequest", arb: v1Lifecycle("v1", "ResumeSessionRequest") },
    v2: { schema: "v2", def: "ResumeSessionRequest", arb: v2Lifecycle("v2", "ResumeSessionRequest").filter(noReplay) },
    toV2: (x, o) => paramsOf(resumeSessionRequestToV2(x as never, aCtx(o))),
    toV1: (x, o) => resumeTarget(resumeSessionRequestToV1(x as never, bCtx(o)), "session/resume"),
    interpreted: withSessionId,
  });

  convertsLosslessly({
    name: "ResumeSessionRequest without replay via session/load (agent without resume)",
    v1: { schema: "v1", def: "LoadSessionRequest", arb: v1Lifecycle("v1", "LoadSessionRequest") },
    v2: { schema: "v2", def: "ResumeSessionRequest", arb: v2Lifecycle("v2", "ResumeSessionRequest").filter(noReplay) },
    toV2: (x, o) => paramsOf(loadSessionRequestToV2(x as never, aCtx(o))),
    toV1: (x, o) => resumeTarget(resumeSessionRequestToV1(x as never, bCtx(o, { viaLoad: true })), "session/load"),
  });

  convertsLosslessly({
    name: "ForkSessionRequest (unstable)",
    v1: { schema: "v1u", def: "ForkSessionRequest", arb: v1Lifecycle("v1u", "ForkSessionRequest") },
    v2: { schema: "v2u", def: "ForkSessionRequest", arb: v2Lifecycle("v2u", "ForkSessionRequest") },
    toV2: (x, o) => paramsOf(forkSessionRequestToV2(x as never, aCtx(o))),
    toV1: (x, o) => forkSessionRequestToV1(x as never, bCtx(o)),
    interpreted: withSessionId,
    levels: ["compact", "full"],
  });

  it("B resume requests with an unknown cursor always fail with the typed error", () => {
    fc.assert(
      fc.property(v2Lifecycle("v2", "ResumeSessionRequest"), arb("v2", "ReplayFrom"), (x, replayFrom) => {
        const r = resumeSessionRequestToV1({ ...x, replayFrom } as never, bCtx());
        if ((replayFrom as { type: string }).type === "start") expect(r.ok).toBe(true);
        else expect(!r.ok && r.error.data.reason).toBe("unsupported cursor");
      }),
      { numRuns: numRuns() },
    );
  });
});

const cursor = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 10 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "",
      "acp-bridge:empty",
      "acp-bridge:raw:x",
      "acp-bridge:raw:acp-bridge:y",
      "acp-bridge:z",
    ),
  },
);
const withCursor = (key: string) => (x: unknown, c: string) => {
  const o = { ...(x as Record<string, unknown>) };
  if (typeof o[key] === "string") o[key] = c;
  return o;
};
const v1Stamp = fc.oneof(
  fc.string(),
  fc
    .date({ noInvalidDate: true, min: new Date("1970-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z") })
    .map((d) => d.toISOString()),
  fc.constantFrom("2026-03-24 12:00:00", "2026-03-24", "2026-03-24T12:00:00+0100", "2026-02-30T00:00:00Z"),
);
const v2Stamp = fc.oneof(
  fc
    .date({ noInvalidDate: true, min: new Date("1970-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z") })
    .map((d) => d.toISOString()),
  fc.constantFrom(
    "2026-03-24t12:00:00z",
    "2026-03-24 12:00:00+01",
    "2026-03-24T12:00:00.123456+05:30",
    "2026-03-24T12:00:00-0800",
  ),
);
const v1Info = fc.tuple(arb("v1", "SessionInfo"), v1Stamp).map(([x, s]) => {
  const o = { ...(x as Record<string, unknown>) };
  if (typeof o.updatedAt === "string") o.updatedAt = s;
  return o;
});
const v2Info = fc.tuple(arb("v2", "SessionInfo"), v2Stamp).map(([x, s]) => {
  const o = { ...(x as Record<string, unknown>) };
  if (typeof o.updatedAt === "string") o.updatedAt = s;
  return o;
});

describe("H §4.5 / §4.6 list and SessionInfo properties", () => {
  convertsLosslessly({
    name: "ListSessionsRequest",
    v1: {
      schema: "v1",
      def: "ListSessionsRequest",
      arb: fc.tuple(arb("v1", "ListSessionsRequest"), absolute, cursor).map(([x, cwd, c]) => {
        const o = withCursor("cursor")(x, c);
        if (typeof o.cwd === "string") o.cwd = cwd;
        return o;
      }),
    },
    v2: {
      schema: "v2",
      def: "ListSessionsRequest",
      arb: fc.tuple(arb("v2", "ListSessionsRequest"), cursor).map(([x, c]) => withCursor("cursor")(x, c)),
    },
    toV2: (x, o) => paramsOf(listSessionsRequestToV2(x as never, listCtx(o))),
    toV1: (x, o) => paramsOf(listSessionsRequestToV1(x as never, listCtx(o))),
    interpreted: { v1: [["cwd"], ["cursor"]], v2: [["cwd"], ["cursor"]] },
  });

  convertsLosslessly({
    name: "ListSessionsResponse",
    v1: {
      schema: "v1",
      def: "ListSessionsResponse",
      arb: fc
        .tuple(arb("v1", "ListSessionsResponse", { overrides: { SessionInfo: v1Info } }), cursor)
        .map(([x, c]) => withCursor("nextCursor")(x, c)),
    },
    v2: {
      schema: "v2",
      def: "ListSessionsResponse",
      arb: fc
        .tuple(arb("v2", "ListSessionsResponse", { overrides: { SessionInfo: v2Info } }), cursor)
        .map(([x, c]) => withCursor("nextCursor")(x, c)),
    },
    toV2: (x, o) => listSessionsResponseToV2(x as never, o),
    toV1: (x, o) => listSessionsResponseToV1(x as never, o),
    interpreted: { v1: [["sessions"], ["nextCursor"]], v2: [["sessions"], ["nextCursor"]] },
  });

  convertsLosslessly({
    name: "SessionInfo",
    v1: { schema: "v1", def: "SessionInfo", arb: v1Info },
    v2: { schema: "v2", def: "SessionInfo", arb: v2Info },
    toV2: (x, o) => sessionInfoToV2(x as never, o),
    toV1: (x, o) => sessionInfoToV1(x as never, o),
  });
});
