// Timing of the micro-benches (bench/terminal-output.ts, bench/diff-files.ts).

/** µs a call of `body`, called `n` times: the last of three runs (the first ones warm V8 up). */
export function timed(n: number, body: () => void): number {
  let us = 0;
  for (let r = 0; r < 3; r++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) body();
    us = Number(process.hrtime.bigint() - t) / n / 1000;
  }
  return us;
}
