// V8's tuning for a bridge process (docs/performance.md, "V8's inlining" and "The young
// generation"). A bridge spends its first few hundred thousand messages warming up, and on a small
// machine the optimizing compiler's background threads, compiling the hot paths with deep inlining,
// compete with the editor and the agent for the same cores: a smaller inlining budget cut the
// bridge's CPU per update by 6–10% over a 200,000-update run (the regime a session lives in), for
// 2–5% more per line once fully warm. V8 optimizes a function once its interrupt budget has run out
// a number of times, more for a larger function: at V8's budget a bridge ran part of its request
// path in baseline code for its first 3–4 s at 2,000 requests a second, and a replay of recorded
// turns for about as long; a quarter of the budget optimizes them sooner (docs/performance.md, "The
// interrupt budget, the old generation"). That budget is node 20's V8's: node 22's and later tier
// up by invocation counts and know no such flag (`v8FlagsFor`). Under a flood V8 grows its young
// generation to 32 MiB (two semi-spaces of 16), most of a bridge's RSS growth: the bridge holds it
// at 8 MiB. V8 lets the old generation grow to several times what survived its last full
// collection before the next; under a slow client that put a bridge's RSS growth past 50 MiB: the
// bridge lets it grow by half (the same section).
import { setFlagsFromString, getHeapSpaceStatistics } from "node:v8";
import { PerformanceObserver } from "node:perf_hooks";

/** V8's release as major × 1,000 + minor (`11.3.244.8-node.38`: 11,003). */
export function v8Release(version: string = process.versions.v8): number {
  const [major = 0, minor = 0] = version.split(".").map((n) => Number.parseInt(n, 10) || 0);
  return major * 1000 + minor;
}

/**
 * The newest V8 known to take `--interrupt-budget`: node 20's 11.3. Node 22's 12.4 (and 24's, 26's)
 * tier up by invocation counts instead, with Maglev between the baseline and TurboFan, and print
 * "Error: unrecognized flag" for it on stderr at every start; on an unknown V8 between the two the
 * bridge sets none (a tuning left out costs speed, an error line at every start costs trust).
 */
export const LAST_BUDGET_V8 = 11_003;

const INLINING = "--max-inlined-bytecode-size-cumulative=300";
const BUDGET = "--interrupt-budget=16384";
const HEAP_GROWING = "--heap-growing-percent=50";

/**
 * The flags the bridge sets on a V8 of `release` (`v8Release`). The interrupt budget is read each
 * time a function's budget is reset, the heap's growing factor each time a full collection sets the
 * next one's limit: set before the bridge's code is loaded, they apply to all of that code and all
 * of its heap.
 */
export function v8FlagsFor(release: number): string[] {
  return release <= LAST_BUDGET_V8 ? [INLINING, BUDGET, HEAP_GROWING] : [INLINING, HEAP_GROWING];
}

/** The flags the bridge sets on this process's V8; a flag node was started with wins. */
export const V8_FLAGS: readonly string[] = v8FlagsFor(v8Release());

/** The young generation's size (both semi-spaces) the bridge stops V8 growing it past, in bytes. */
export const YOUNG_GENERATION_BYTES = 8 * 1024 * 1024;

/** The flags by which a user sizes the young generation; given any, the bridge leaves it to V8. */
const YOUNG_GENERATION_FLAGS: readonly string[] = [
  "--max-semi-space-size",
  "--min-semi-space-size",
  "--semi-space-growth-factor",
];

/** V8's own factor by which the young generation grows (node 20's default). */
const V8_GROWTH_FACTOR = 2;

/** A flag's name as node reads it (`--a_b=1` and `--a-b` name the same flag). */
function flagName(arg: string): string {
  return (arg.split("=")[0] ?? "").replace(/_/g, "-");
}

/** The flags node was started with: its command line's and NODE_OPTIONS's. */
function givenFlags(execArgv: readonly string[], nodeOptions: string): Set<string> {
  return new Set([...execArgv, ...nodeOptions.split(/\s+/)].filter((a) => a.startsWith("--")).map(flagName));
}

/** Sets `V8_FLAGS` but those node was started with; returns the flags set. */
export function tuneV8(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string = process.env.NODE_OPTIONS ?? "",
): string[] {
  const given = givenFlags(execArgv, nodeOptions);
  const set = V8_FLAGS.filter((f) => !given.has(flagName(f)));
  for (const f of set) setFlagsFromString(f);
  return set;
}

/** What the hold reads and sets: the young generation's size, and the factor V8 grows it by. */
export interface YoungGeneration {
  bytes(): number;
  setGrowthFactor(factor: number): void;
}

/**
 * Keeps the young generation at `limit` bytes at most. V8 fixes the semi-spaces' maximum when it
 * makes the heap, before any code of ours runs, so `--max-semi-space-size` cannot be set from here;
 * the factor it grows them by is read each time they grow, so it can: 1 (no growth) once the young
 * generation has reached `limit`, V8's own again when V8 has shrunk it below (after a quiet
 * stretch), so that a flood after a pause grows it back.
 */
export class YoungGenerationHold {
  private factor = V8_GROWTH_FACTOR;

  constructor(
    private readonly young: YoungGeneration,
    private readonly limit: number = YOUNG_GENERATION_BYTES,
  ) {}

  /** After a garbage collection: hold or release the growth. */
  check(): void {
    const factor = this.young.bytes() >= this.limit ? 1 : V8_GROWTH_FACTOR;
    if (factor === this.factor) return;
    this.factor = factor;
    this.young.setGrowthFactor(factor);
  }
}

/** This process's young generation, as V8 reports and tunes it. */
const v8Young: YoungGeneration = {
  bytes: () => getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_size ?? 0,
  setGrowthFactor: (factor) => setFlagsFromString(`--semi-space-growth-factor=${factor}`),
};

/**
 * Holds this process's young generation at `YOUNG_GENERATION_BYTES`, checked after each garbage
 * collection (V8 grows it only in one), unless node was started with a flag that sizes it. Returns
 * the observer's stop, or undefined when the young generation is left to V8. An idle bridge
 * collects nothing, so the hold wakes nothing; the observer keeps no process alive.
 */
export function holdYoungGeneration(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string = process.env.NODE_OPTIONS ?? "",
  young: YoungGeneration = v8Young,
): (() => void) | undefined {
  const given = givenFlags(execArgv, nodeOptions);
  if (YOUNG_GENERATION_FLAGS.some((f) => given.has(f))) return undefined;
  const hold = new YoungGenerationHold(young);
  hold.check();
  const observer = new PerformanceObserver(() => hold.check());
  observer.observe({ entryTypes: ["gc"] });
  return () => observer.disconnect();
}
