// The fuzz suite at CI's fixed budget (issue "Hostile input and faults", item 7): generated hostile
// traffic from both peers into the BUILT CLI, in every mode. `npm run fuzz` runs it longer.
import { describe, expect, it } from "vitest";
import { fuzzMode, MODES } from "./driver.js";

/** Inputs per mode in `npm test`; FUZZ_INPUTS raises it. */
const INPUTS = Number(process.env.FUZZ_INPUTS ?? 1500);
const SEED = Number(process.env.FUZZ_SEED ?? 20261124);

describe("fuzz: hostile traffic into the built CLI", () => {
  for (const mode of MODES)
    it(`${mode.name}: no crash, no hang, one answer per request, only valid JSON-RPC lines`, async () => {
      const f = await fuzzMode(mode, INPUTS, SEED);
      // The figures, printed for CI's log (schema violations are reported, see the closing note).
      console.log(`fuzz ${JSON.stringify({ ...f, examples: f.examples.slice(0, 3) })}`);
      expect({
        crashes: f.crashes,
        hangs: f.hangs,
        unanswered: f.unanswered,
        duplicateAnswers: f.duplicateAnswers,
        invalidLines: f.invalidLines,
      }).toEqual({ crashes: 0, hangs: 0, unanswered: 0, duplicateAnswers: 0, invalidLines: 0 });
      expect(f.inputs).toBe(INPUTS);
    }, 180_000);

  // The report's observer and collector see every message: hostile traffic must not break either.
  const a = MODES[0];
  if (a)
    it(`${a.name} with --report: no crash, no hang, one answer per request, and a report written`, async () => {
      const f = await fuzzMode(a, INPUTS, SEED + 1, true);
      expect({ crashes: f.crashes, hangs: f.hangs, unanswered: f.unanswered, invalidLines: f.invalidLines }).toEqual({
        crashes: 0,
        hangs: 0,
        unanswered: 0,
        invalidLines: 0,
      });
    }, 180_000);
});
