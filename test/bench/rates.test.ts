// The throughput run's rates (bench/rates.ts): the rest is what the turn did after its first part.
import { describe, expect, it } from "vitest";
import { runRates } from "../../bench/rates.js";

describe("runRates", () => {
  it("gives the rate over the whole turn, its first part and the rest", () => {
    // 1,000,000 updates in 6 s, the first 200,000 of them in 2 s: the other 800,000 in 4 s.
    const r = runRates(1_000_000, 6000, 200_000, 2000);
    expect(r.rate).toBeCloseTo(166_666.67, 1);
    expect(r.firstRate).toBe(100_000);
    expect(r.restRate).toBe(200_000);
  });

  it("has no rest for a turn no longer than its first part", () => {
    expect(runRates(100_000, 1000, 100_000, 1000).restRate).toBeNaN();
  });
});
