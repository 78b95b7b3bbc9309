import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isRfc3339 } from "../../src/convert/rfc3339.js";
import { sessionInfoToV1, sessionInfoToV2 } from "../../src/convert/session-info.js";
import { arb } from "../support/arbitrary.js";
import { convertsLosslessly, numRuns, options } from "../support/properties.js";
import { check, expectValid } from "../support/schema.js";
import { value } from "../support/conv.js";

const opts = options("compact");

describe("session_info_update (T §2.9)", () => {
  it("passes title, updatedAt and _meta toward v1", () => {
    const u = { title: "Fix tests", updatedAt: "2025-03-01T10:00:00Z", _meta: { k: 1 } };
    expect(value(sessionInfoToV1(u))).toEqual(u);
    expectValid("v1", "SessionInfoUpdate", u);
  });

  it("passes null, which clears title and updatedAt in both versions", () => {
    const u = { title: null, updatedAt: null };
    expect(value(sessionInfoToV2(u, opts))).toEqual(u);
    expect(value(sessionInfoToV1(u))).toEqual(u);
  });

  it("passes an RFC 3339 updatedAt toward v2", () => {
    const u = { updatedAt: "2025-03-01T10:00:00.123+02:00" };
    const out = value(sessionInfoToV2(u, opts));
    expect(out).toEqual(u);
    expectValid("v2", "SessionInfoUpdate", out);
  });

  it("omits and stashes an updatedAt that is not RFC 3339, and restores it toward v1", () => {
    const u = { title: "t", updatedAt: "2025-03-01" };
    const r = sessionInfoToV2(u, opts);
    const out = value(r);
    expect(out).toEqual({
      title: "t",
      _meta: { "acp-bridge": { v: 1, from: 1, hadMeta: false, residual: { updatedAt: "2025-03-01" } } },
    });
    expect(r.ok && r.lost.map((l) => l.path)).toEqual([["updatedAt"]]);
    expectValid("v2", "SessionInfoUpdate", out);
    expect(value(sessionInfoToV1(out))).toEqual(u);
  });

  it("answers a non-string v1 updatedAt with the typed error", () => {
    const r = sessionInfoToV2({ updatedAt: 5 } as never, opts);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.data).toMatchObject({ field: "updatedAt", reason: "expected_string" });
  });
});

describe("RFC 3339 check (T §2.9)", () => {
  it.each(["2024-02-29T00:00:00Z", "2025-12-31T23:59:59.5Z", "2025-06-30T12:00:00+05:30"])("accepts %s", (s) => {
    expect(isRfc3339(s)).toBe(true);
  });

  // RFC 3339 allows these, but the v2 SDK's parser (`z.iso.datetime({offset: true})`) drops them:
  // a v2 client built on it would lose the timestamp, so they are not passed as they are.
  const sdkDrops = [
    "2025-12-31t23:59:59.5z",
    "2025-06-30 12:00:00+05:30",
    "2016-12-31T23:59:60Z",
    "2017-01-01T00:59:60+01:00",
  ];
  it.each(sdkDrops)("rejects %s, which the v2 SDK's parser drops", (s) => {
    expect(z.iso.datetime({ offset: true }).safeParse(s).success).toBe(false);
    expect(isRfc3339(s)).toBe(false);
  });

  it.each([
    "2023-02-29T00:00:00Z",
    "2025-13-01T00:00:00Z",
    "2025-01-01T24:00:00Z",
    "2025-01-01T12:00:00",
    "2025-01-01T12:00:00+0100",
    "2025-01-01",
    "20250101T120000Z",
    "2025-01-01T12:00:60Z",
    "2025-01-01T12:00:00+24:00",
  ])("rejects %s", (s) => {
    expect(isRfc3339(s)).toBe(false);
  });

  it("accepts nothing the v2 schema's date-time format rejects", () => {
    const dateLike = fc
      .tuple(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 0, max: 25 }),
        fc.integer({ min: 0, max: 61 }),
        fc.integer({ min: 0, max: 61 }),
        fc.constantFrom("", ".5", ".123456"),
        fc.constantFrom("Z", "z", "+00:00", "-05:30", "+14:00", "+24:00", "+01:60", ""),
        fc.constantFrom("T", "t", " "),
      )
      .map(([y, mo, d, h, mi, s, frac, tz, sep]) => {
        const p = (n: number, w = 2) => String(n).padStart(w, "0");
        return `${p(y, 4)}-${p(mo)}-${p(d)}${sep}${p(h)}:${p(mi)}:${p(s)}${frac}${tz}`;
      });
    fc.assert(
      fc.property(fc.oneof(dateLike, fc.string()), (s) => {
        if (isRfc3339(s)) expect(check("v2", "SessionInfoUpdate", { updatedAt: s })).toBeUndefined();
      }),
      { numRuns: numRuns() * 5 },
    );
  });
});

const validDate = fc
  .date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true })
  .map((d) => d.toISOString());

convertsLosslessly({
  name: "SessionInfoUpdate",
  v1: {
    schema: "v1",
    def: "SessionInfoUpdate",
    // Valid RFC 3339 timestamps as well as the arbitrary strings v1 allows.
    arb: fc
      .tuple(arb("v1", "SessionInfoUpdate"), fc.option(validDate, { nil: undefined }))
      .map(([u, d]) => (d === undefined ? u : { ...(u as object), updatedAt: d })),
  },
  v2: { schema: "v2", def: "SessionInfoUpdate" },
  toV2: (x, o) => sessionInfoToV2(x as never, o),
  toV1: (x) => sessionInfoToV1(x as never),
  interpreted: { v1: [["updatedAt"]] },
});
