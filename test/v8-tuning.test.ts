// The V8 flags a bridge sets on itself (src/v8-tuning.ts): each is one this node knows (a flag a
// later V8 dropped would only print an error and tune nothing; node 22's V8 dropped the interrupt
// budget, so the flags depend on V8's release), and one node was started with, on
// its command line or in NODE_OPTIONS, wins; the interrupt budget, set at run time as the bridge sets
// it, makes V8 optimize a function after fewer calls; the heap's growing factor keeps the old
// generation nearer what survives. The young generation's hold: growth stopped at the
// limit, given back below it, nothing set twice, and no hold at all when node was told a size.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  LAST_BUDGET_V8,
  V8_FLAGS,
  YOUNG_GENERATION_BYTES,
  YoungGenerationHold,
  holdYoungGeneration,
  tuneV8,
  v8FlagsFor,
  v8Release,
  type YoungGeneration,
} from "../src/v8-tuning.js";

const known = execFileSync(process.execPath, ["--v8-options"], { encoding: "utf8" });

/** A young generation of the given sizes in turn, recording the growth factors set. */
function young(...sizes: number[]): YoungGeneration & { set: number[] } {
  const set: number[] = [];
  let i = 0;
  return { set, bytes: () => sizes[Math.min(i++, sizes.length - 1)] ?? 0, setGrowthFactor: (f) => void set.push(f) };
}

describe("V8 tuning", () => {
  it("sets only flags this node's V8 knows", () => {
    for (const f of V8_FLAGS) expect(known).toContain(`  ${f.split("=")[0] ?? ""} (`);
    expect(known).toContain("  --semi-space-growth-factor (");
  });

  it("chooses its flags by V8's release: the interrupt budget only where V8 still has one", () => {
    expect(v8Release("11.3.244.8-node.38")).toBe(11_003);
    expect(v8Release("12.4.254.21-node.57")).toBe(12_004);
    expect(v8Release("14.6.202.34-node.40")).toBe(14_006);
    expect(v8Release("x")).toBe(0);
    expect(v8FlagsFor(11_003)).toContain("--interrupt-budget=16384");
    // Node 22, 24 and 26 (V8 12.4, 13.6, 14.6) print "unrecognized flag" for it at every start.
    for (const release of [11_004, 12_004, 13_006, 14_006]) {
      const flags = v8FlagsFor(release);
      expect(flags.some((f) => f.startsWith("--interrupt-budget"))).toBe(false);
      expect(flags).toContain("--heap-growing-percent=50");
    }
    expect(V8_FLAGS).toEqual(v8FlagsFor(v8Release(process.versions.v8)));
  });

  it("leaves a flag node was started with to node, spelled either way, on its command line or in NODE_OPTIONS", () => {
    expect(V8_FLAGS.length).toBeGreaterThan(1);
    for (const flag of V8_FLAGS) {
      const name = flag.split("=")[0] ?? "";
      const others = V8_FLAGS.filter((f) => f !== flag);
      expect(tuneV8([`${name}=920`], "")).toEqual(others);
      expect(tuneV8([name.replace(/-/g, "_").replace(/^__/, "--")], "")).toEqual(others);
      expect(tuneV8([], `--inspect ${name}=920`)).toEqual(others);
    }
    expect(tuneV8(["--inspect"], "--no-warnings")).toEqual(V8_FLAGS);
  });
});

/**
 * What an ES module `body` writes to stdout, run by a node started with `nodeArgs` that first sets
 * `flags` on itself (`setFlagsFromString`, as `tuneV8` does).
 */
function withFlags(flags: readonly string[], body: string, nodeArgs: readonly string[] = []): number {
  const script = `
    import { setFlagsFromString } from "node:v8";
    for (const f of JSON.parse(process.argv[1])) setFlagsFromString(f);
    ${body}`;
  const out = execFileSync(
    process.execPath,
    [...nodeArgs, "--input-type=module", "-e", script, JSON.stringify(flags)],
    {
      encoding: "utf8",
      env: { ...process.env, NODE_OPTIONS: "" },
    },
  );
  return Number(out);
}

/** Calls of a small function before V8 has optimized it; compiled on the main thread, so the count is exact. */
function callsBeforeOptimized(flags: readonly string[]): number {
  return withFlags(
    flags,
    `
    function sum(a) { let s = 0; for (let i = 0; i < a.length; i++) s += a[i]; return s; }
    const xs = [1, 2, 3, 4, 5, 6, 7, 8];
    let n = 0;
    // Bit 16 of the status: optimized (V8's OptimizationStatus::kOptimized).
    while (n < 1e6 && (%GetOptimizationStatus(sum) & 16) === 0) { sum(xs); n++; }
    process.stdout.write(String(n));`,
    ["--allow-natives-syntax", "--no-concurrent-recompilation"],
  );
}

describe("the interrupt budget", () => {
  // Node 20's V8; from node 22's on there is no budget to set (above).
  it.runIf(v8Release() <= LAST_BUDGET_V8)(
    "set at run time, makes V8 optimize a function after fewer calls than its own budget",
    () => {
      const budget = V8_FLAGS.find((f) => f.startsWith("--interrupt-budget="));
      expect(budget).toBeDefined();
      const tuned = callsBeforeOptimized(V8_FLAGS);
      const own = callsBeforeOptimized([]);
      expect(tuned).toBeGreaterThan(0);
      expect(own).toBeLessThan(1e6);
      expect(tuned).toBeLessThan(own);
    },
  );
});

/**
 * The old generation's largest size, MiB: a ring of 200,000 objects replaced one by one, each dying
 * in the old generation after living through many young collections (what a slow client makes of a
 * bridge's messages).
 */
function oldGenerationPeakMiB(flags: readonly string[]): number {
  return withFlags(
    flags,
    `
    import { getHeapSpaceStatistics } from "node:v8";
    const ring = new Array(200000);
    let most = 0;
    for (let i = 0; i < 3000000; i++) {
      ring[i % ring.length] = { i, s: "x".repeat(40) + i };
      if (i % 10000 === 0)
        most = Math.max(most, getHeapSpaceStatistics().find((s) => s.space_name === "old_space").space_size);
    }
    process.stdout.write(String(most / 1048576));`,
  );
}

describe("the heap's growing factor", () => {
  it("set at run time, keeps the old generation well below what V8's own factor lets it reach", () => {
    expect(V8_FLAGS.some((f) => f.startsWith("--heap-growing-percent="))).toBe(true);
    const tuned = oldGenerationPeakMiB(V8_FLAGS);
    const own = oldGenerationPeakMiB([]);
    expect(tuned).toBeGreaterThan(0);
    expect(tuned).toBeLessThan(own * 0.75);
  }, 30_000);
});

describe("the young generation's hold", () => {
  const MiB = 1024 * 1024;

  it("stops V8 growing it at the limit and lets it grow again once V8 has shrunk it, setting nothing twice", () => {
    const y = young(2 * MiB, 4 * MiB, 8 * MiB, 8 * MiB, 2 * MiB, 4 * MiB, 8 * MiB);
    const hold = new YoungGenerationHold(y, 8 * MiB);
    for (let i = 0; i < 7; i++) hold.check();
    expect(y.set).toEqual([1, 2, 1]);
  });

  it("holds at once a young generation already past the limit", () => {
    const y = young(32 * MiB);
    new YoungGenerationHold(y).check();
    expect(y.set).toEqual([1]);
    expect(YOUNG_GENERATION_BYTES).toBe(8 * MiB);
  });

  it("is not started when node was given a size for it, on its command line or in NODE_OPTIONS", () => {
    for (const [argv, options] of [
      [["--max-semi-space-size=16"], ""],
      [["--max_semi_space_size=16"], ""],
      [[], "--min-semi-space-size=4"],
      [[], "--semi-space-growth-factor=2 --inspect"],
    ] as const) {
      const y = young(32 * MiB);
      expect(holdYoungGeneration(argv, options, y)).toBeUndefined();
      expect(y.set).toEqual([]);
    }
  });

  it("is started otherwise, checked at once, and stops", () => {
    const y = young(32 * MiB);
    const stop = holdYoungGeneration(["--inspect"], "--no-warnings", y);
    expect(stop).toBeTypeOf("function");
    expect(y.set).toEqual([1]);
    stop?.();
  });
});
