import { describe, expect, it } from "vitest";
import {
  filterSessionsByDirectories,
  takeListDirectoriesFilter,
  validateAdditionalDirectories,
  type Platform,
} from "../../src/convert/directories.js";
import type { Conv } from "../../src/convert/result.js";
import {
  forkSessionRequestToV1,
  forkSessionRequestToV2,
  listSessionsRequestToV1,
  listSessionsRequestToV2,
  loadSessionRequestToV2,
  newSessionRequestToV1,
  newSessionRequestToV2,
  resumeSessionRequestToV1,
  resumeSessionRequestToV2,
  type SessionToV1Context,
  type SessionToV2Context,
} from "../../src/convert/session.js";
import { isAbsoluteOn } from "../../src/convert/paths.js";
import { defaultOptions } from "../support/conv.js";
import { expectValid, type SchemaVersion } from "../support/schema.js";

const posix = { agentSupports: true, platform: "posix" as Platform };

function toV2Ctx(agentSupportsDirectories: boolean, extra: Partial<SessionToV2Context> = {}): SessionToV2Context {
  return {
    ...defaultOptions,
    platform: "posix",
    agentSupportsDirectories,
    agentMcp: { stdio: true, http: true },
    onUnsupported: "reject",
    ...extra,
  };
}

function toV1Ctx(agentSupportsDirectories: boolean, extra: Partial<SessionToV1Context> = {}): SessionToV1Context {
  return {
    ...defaultOptions,
    platform: "posix",
    agentSupportsDirectories,
    agentMcp: { stdio: true, http: true },
    ...extra,
  };
}

/** Every lifecycle request in both directions, reduced to "params out" for the matrix (H §9 case 10). */
interface Leg {
  readonly name: string;
  readonly base: Record<string, unknown>;
  readonly target: { schema: SchemaVersion; def: string };
  run(params: Record<string, unknown>, supports: boolean): Conv<unknown>;
}

const params = (r: Conv<{ params: unknown }>): Conv<unknown> => (r.ok ? { ...r, value: r.value.params } : r);

const legs: Leg[] = [
  {
    name: "A session/new",
    base: { cwd: "/w/app", mcpServers: [] },
    target: { schema: "v2", def: "NewSessionRequest" },
    run: (p, s) => params(newSessionRequestToV2(p as never, toV2Ctx(s))),
  },
  {
    name: "B session/new",
    base: { cwd: "/w/app" },
    target: { schema: "v1", def: "NewSessionRequest" },
    run: (p, s) => newSessionRequestToV1(p as never, toV1Ctx(s)),
  },
  {
    name: "A session/load",
    base: { sessionId: "s1", cwd: "/w/app", mcpServers: [] },
    target: { schema: "v2", def: "ResumeSessionRequest" },
    run: (p, s) => params(loadSessionRequestToV2(p as never, toV2Ctx(s))),
  },
  {
    name: "A session/resume",
    base: { sessionId: "s1", cwd: "/w/app" },
    target: { schema: "v2", def: "ResumeSessionRequest" },
    run: (p, s) => params(resumeSessionRequestToV2(p as never, toV2Ctx(s))),
  },
  {
    name: "B session/resume with replay",
    base: { sessionId: "s1", cwd: "/w/app", replayFrom: { type: "start" } },
    target: { schema: "v1", def: "LoadSessionRequest" },
    run: (p, s) => params(resumeSessionRequestToV1(p as never, toV1Ctx(s))),
  },
  {
    name: "B session/resume",
    base: { sessionId: "s1", cwd: "/w/app" },
    target: { schema: "v1", def: "ResumeSessionRequest" },
    run: (p, s) => params(resumeSessionRequestToV1(p as never, toV1Ctx(s))),
  },
  {
    name: "A session/fork",
    base: { sessionId: "s1", cwd: "/w/app" },
    target: { schema: "v2u", def: "ForkSessionRequest" },
    run: (p, s) => params(forkSessionRequestToV2(p as never, toV2Ctx(s))),
  },
  {
    name: "B session/fork",
    base: { sessionId: "s1", cwd: "/w/app" },
    target: { schema: "v1u", def: "ForkSessionRequest" },
    run: (p, s) => forkSessionRequestToV1(p as never, toV1Ctx(s)),
  },
];

function errorData(r: Conv<unknown>): unknown {
  if (r.ok) throw new Error(`expected an error, got ${JSON.stringify(r.value)}`);
  expect(r.error.code).toBe(-32602);
  expect(r.error.message).toBe("Invalid params");
  return r.error.data;
}

function value(r: Conv<unknown>, target: Leg["target"]): Record<string, unknown> {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
  expectValid(target.schema, target.def, r.value);
  return r.value as Record<string, unknown>;
}

describe("H §4.10 additionalDirectories validation on every lifecycle request (H §9 case 10)", () => {
  const rejected: [string, unknown, boolean, Record<string, unknown>][] = [
    ["null", null, true, { field: "additionalDirectories", index: null, reason: "null" }],
    ["a string", "x", true, { field: "additionalDirectories", index: null, reason: "not_array", value: "x" }],
    ["a null entry", ["/a", null], true, { field: "additionalDirectories", index: 1, reason: "not_string" }],
    ["an empty entry", [""], true, { field: "additionalDirectories", index: 0, reason: "empty", value: "" }],
    [
      "a relative entry",
      ["/a", "docs"],
      true,
      { field: "additionalDirectories", index: 1, reason: "not_absolute", value: "docs" },
    ],
    [
      "roots without the capability",
      ["/w/lib"],
      false,
      { field: "additionalDirectories", index: null, reason: "unsupported" },
    ],
    ["null without the capability", null, false, { field: "additionalDirectories", index: null, reason: "null" }],
  ];

  for (const leg of legs) {
    describe(leg.name, () => {
      for (const [what, dirs, supports, data] of rejected) {
        it(`rejects ${what} with -32602 and data ${JSON.stringify(data)}`, () => {
          expect(errorData(leg.run({ ...leg.base, additionalDirectories: dirs }, supports))).toEqual(data);
        });
      }

      it("strips an empty list when the agent lacks the capability, reporting it", () => {
        const r = leg.run({ ...leg.base, additionalDirectories: [] }, false);
        expect(value(r, leg.target)).not.toHaveProperty("additionalDirectories");
        expect(r.ok && r.lost.map((l) => l.path)).toContainEqual(["additionalDirectories"]);
      });

      it("forwards duplicates and cwd repeats verbatim and in order", () => {
        const dirs = ["/w/lib", "/w/app", "/w/lib", "/w/app/sub"];
        const out = value(leg.run({ ...leg.base, additionalDirectories: dirs }, true), leg.target);
        expect(out.additionalDirectories).toEqual(dirs);
      });

      it("never adds roots the request did not carry", () => {
        const out = value(leg.run({ ...leg.base }, true), leg.target);
        expect(out).not.toHaveProperty("additionalDirectories");
      });

      it("rejects a relative cwd naming the field", () => {
        expect(errorData(leg.run({ ...leg.base, cwd: "w/app" }, true))).toEqual({
          field: "cwd",
          index: null,
          reason: "not_absolute",
          value: "w/app",
        });
      });

      it("rejects a non-string cwd", () => {
        expect(errorData(leg.run({ ...leg.base, cwd: 7 }, true))).toMatchObject({ field: "cwd", reason: "not_string" });
      });
    });
  }
});

describe("H §4.10 rule 5: absolute paths per platform", () => {
  const cases: [string, Platform, boolean][] = [
    ["/home/u/p", "posix", true],
    ["/", "posix", true],
    ["home/u", "posix", false],
    ["./x", "posix", false],
    ["C:\\Users\\u", "posix", false],
    ["C:\\Users\\u", "windows", true],
    ["c:/Users/u", "windows", true],
    ["\\\\server\\share\\p", "windows", true],
    ["//server/share", "windows", true],
    ["\\\\?\\C:\\long\\path", "windows", true],
    ["C:relative", "windows", false],
    ["\\rooted-on-current-drive", "windows", false],
    ["/unix/style", "windows", false],
    ["\\\\server", "windows", false],
    ["docs", "windows", false],
  ];
  for (const [path, platform, absolute] of cases) {
    it(`${absolute ? "accepts" : "rejects"} ${JSON.stringify(path)} on ${platform}`, () => {
      expect(isAbsoluteOn(path, platform)).toBe(absolute);
      const r = validateAdditionalDirectories(
        { cwd: "x", additionalDirectories: [path] },
        { agentSupports: true, platform },
      );
      expect(r.ok).toBe(absolute);
    });
  }

  it("applies the Windows rules to a translated request for a Windows agent", () => {
    const r = newSessionRequestToV2(
      { cwd: "C:\\work\\app", additionalDirectories: ["D:\\lib", "\\\\nas\\share\\docs"], mcpServers: [] },
      toV2Ctx(true, { platform: "windows" }),
    );
    expect(r.ok && r.value.params.additionalDirectories).toEqual(["D:\\lib", "\\\\nas\\share\\docs"]);
  });
});

describe("H §4.10 validateAdditionalDirectories on raw params", () => {
  it("leaves params without the key untouched and reports nothing", () => {
    const p = { cwd: "/w" };
    expect(validateAdditionalDirectories(p, posix)).toEqual({ ok: true, value: p, lost: [] });
  });

  it("does not mutate its input when it strips the key", () => {
    const p = { cwd: "/w", additionalDirectories: [] };
    const r = validateAdditionalDirectories(p, { ...posix, agentSupports: false });
    expect(p.additionalDirectories).toEqual([]);
    expect(r.ok && r.value).toEqual({ cwd: "/w" });
  });

  it("reports the first offending entry", () => {
    const r = validateAdditionalDirectories({ additionalDirectories: ["/a", 3, ""] }, posix);
    expect(!r.ok && r.error.data).toEqual({ field: "additionalDirectories", index: 1, reason: "not_string" });
  });

  it("rejects params that are not an object", () => {
    const r = validateAdditionalDirectories([] as object, posix);
    expect(!r.ok && r.error.data.reason).toBe("not_object");
  });
});

describe("H §4.5 seed-000 session/list additionalDirectories filter", () => {
  const ctx = { ...defaultOptions, platform: "posix" as Platform, agentSupportsDirectories: true };

  it("strips the filter before forwarding and hands it to the engine (A)", () => {
    const r = listSessionsRequestToV2({ cwd: "/w/app", additionalDirectories: ["/w/lib"] } as never, ctx);
    if (!r.ok) throw new Error("expected ok");
    expectValid("v2", "ListSessionsRequest", r.value.params);
    expect(r.value.params).toEqual({ cwd: "/w/app" });
    expect(r.value.directoriesFilter).toEqual(["/w/lib"]);
  });

  it("strips the filter before forwarding and hands it to the engine (B)", () => {
    const r = listSessionsRequestToV1({ additionalDirectories: [] } as never, ctx);
    if (!r.ok) throw new Error("expected ok");
    expectValid("v1", "ListSessionsRequest", r.value.params);
    expect(r.value.params).toEqual({});
    expect(r.value.directoriesFilter).toEqual([]);
  });

  it("has no filter when the request carries none", () => {
    const r = listSessionsRequestToV2({ cwd: "/w" }, ctx);
    expect(r.ok && r.value.directoriesFilter).toBeUndefined();
  });

  const bad: [unknown, Record<string, unknown>][] = [
    [null, { reason: "null", index: null }],
    ["x", { reason: "not_array", index: null }],
    [["/a", 1], { reason: "not_string", index: 1 }],
    [[""], { reason: "empty", index: 0 }],
    [["rel"], { reason: "not_absolute", index: 0 }],
  ];
  for (const [filter, data] of bad) {
    it(`rejects the filter ${JSON.stringify(filter)} with ${String(data.reason)}`, () => {
      const r = takeListDirectoriesFilter(
        { additionalDirectories: filter },
        { agentSupports: true, platform: "posix" },
      );
      expect(!r.ok && r.error.data).toMatchObject({ field: "additionalDirectories", ...data });
    });
  }

  it("rejects any filter, even [], when the agent lacks the capability", () => {
    for (const run of [listSessionsRequestToV2, listSessionsRequestToV1]) {
      const r = run({ additionalDirectories: [] } as never, { ...ctx, agentSupportsDirectories: false });
      expect(!r.ok && r.error.data).toEqual({ field: "additionalDirectories", index: null, reason: "unsupported" });
    }
  });

  const sessions = [
    { sessionId: "a", cwd: "/w" },
    { sessionId: "b", cwd: "/w", additionalDirectories: [] },
    { sessionId: "c", cwd: "/w", additionalDirectories: ["/w/lib"] },
    { sessionId: "d", cwd: "/w", additionalDirectories: ["/w/lib", "/w/skills"] },
    { sessionId: "e", cwd: "/w", additionalDirectories: ["/w/skills", "/w/lib"] },
    { sessionId: "f", cwd: "/w", additionalDirectories: null },
    { sessionId: "g", cwd: "/w", additionalDirectories: "junk" },
  ];
  const ids = (filter: string[] | undefined) => filterSessionsByDirectories(sessions, filter).map((s) => s.sessionId);

  it("an empty filter matches only sessions without additional roots (omitted, [] or null)", () => {
    expect(ids([])).toEqual(["a", "b", "f"]);
  });

  it("matches the ordered list exactly", () => {
    expect(ids(["/w/lib", "/w/skills"])).toEqual(["d"]);
    expect(ids(["/w/lib"])).toEqual(["c"]);
  });

  it("keeps everything without a filter", () => {
    expect(ids(undefined)).toEqual(["a", "b", "c", "d", "e", "f", "g"]);
  });
});
