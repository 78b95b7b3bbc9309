// The schema-derived arbitraries must generate valid values, or every property built on them lies.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { arb, defNames } from "./support/arbitrary.js";
import { check, type SchemaVersion } from "./support/schema.js";

const SAMPLES = Number(process.env.ARB_SAMPLES ?? 60);

describe("schema-derived arbitraries", () => {
  for (const version of ["v1", "v2", "v1u", "v2u"] as SchemaVersion[]) {
    it(`generate only schema-valid values for every ${version} $defs entry`, () => {
      const failures: string[] = [];
      for (const def of defNames(version)) {
        const values = fc.sample(arb(version, def), { numRuns: SAMPLES, seed: 42 });
        for (const v of values) {
          const problems = check(version, def, v);
          if (problems) {
            failures.push(`${def}: ${JSON.stringify(problems)} in ${JSON.stringify(v).slice(0, 300)}`);
            break;
          }
        }
      }
      expect(failures).toEqual([]);
    });
  }

  it("never put an acp-bridge key into generated _meta", () => {
    const values = fc.sample(arb("v2", "SessionUpdate"), { numRuns: 300, seed: 7 });
    expect(JSON.stringify(values)).not.toContain('"acp-bridge"');
  });

  it("generate unknown tags for open v2 unions", () => {
    const values = fc.sample(arb("v2", "ContentBlock"), { numRuns: 400, seed: 3 }) as { type: string }[];
    const types = new Set(values.map((v) => v.type));
    expect([...types].some((t) => t.startsWith("_") || t.startsWith("future_"))).toBe(true);
    expect(types.has("text")).toBe(true);
  });
});
