// Self-tests of the property harness: it must pass an exact converter and catch a lossy one.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { rpcErrors } from "../src/base/errors.js";
import { fail, ok, type Conv } from "../src/convert/result.js";
import { arb } from "./support/arbitrary.js";
import { convertsLosslessly, diffPaths, matchPaths, norm, setAt } from "./support/properties.js";

type Impl = { name: string; version: string; title?: string | null; _meta?: unknown };

const identity = (x: Impl): Conv<Impl> =>
  typeof x === "object" && x !== null && typeof x.name === "string" && typeof x.version === "string"
    ? ok(x)
    : fail(rpcErrors.invalidParams({ field: "name", reason: "not_string" }));

describe("property harness", () => {
  convertsLosslessly<Impl, Impl>({
    name: "an exact converter (Implementation is identical in both versions)",
    v1: { schema: "v1", def: "Implementation" },
    v2: { schema: "v2", def: "Implementation" },
    toV2: identity,
    toV1: identity,
    interpreted: { v1: [["name"]], v2: [["version"]] },
  });

  it("finds the places where two values differ", () => {
    expect(diffPaths({ a: 1, b: [1, { c: 2 }] }, { a: 1, b: [1, { c: 3 }], d: null })).toEqual([["b", 1, "c"], ["d"]]);
  });

  it("matches wildcard paths and replaces values without touching the original", () => {
    const v = { xs: [{ k: 1 }, { k: 2 }] };
    expect(matchPaths(v, ["xs", "*", "k"])).toEqual([
      ["xs", 0, "k"],
      ["xs", 1, "k"],
    ]);
    expect(setAt(v, ["xs", 1, "k"], "z")).toEqual({ xs: [{ k: 1 }, { k: "z" }] });
    expect(v.xs[1]!.k).toBe(2);
  });

  it("normalizes -0 and undefined away", () => {
    expect(norm({ a: -0, b: undefined })).toEqual({ a: 0 });
    expect(Object.is((norm({ a: -0 }) as { a: number }).a, 0)).toBe(true);
  });

  it("would notice an unreported loss", () => {
    const lossy = (x: Impl): Impl => ({ name: x.name, version: x.version });
    const found = fc
      .sample(arb("v1", "Implementation"), { numRuns: 200, seed: 1 })
      .some((x) => diffPaths(norm(x), norm(lossy(x as Impl))).length > 0);
    expect(found).toBe(true);
  });
});
