// The rates of a throughput run (bench/run.ts): over the whole turn, over a fresh process's first
// updates, and over the rest, where its warm-up is over (docs/performance.md, "Where the replay's
// gap lies").

export interface RunRates {
  /** Updates a second over the whole turn. */
  readonly rate: number;
  /** Over its first `first` updates. */
  readonly firstRate: number;
  /** Over the updates after those; NaN when the turn has none. */
  readonly restRate: number;
}

/** The rates of a turn of `n` updates in `ms`, its first `first` of them in `firstMs`. */
export function runRates(n: number, ms: number, first: number, firstMs: number): RunRates {
  return {
    rate: (n / ms) * 1000,
    firstRate: (first / firstMs) * 1000,
    restRate: first >= n ? NaN : ((n - first) / (ms - firstMs)) * 1000,
  };
}
