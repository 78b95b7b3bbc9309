// V8's tuning for a bridge process (docs/performance.md, "V8's inlining"). A bridge spends its
// first few hundred thousand messages warming up, and on a small machine the optimizing compiler's
// background threads, compiling the hot paths with deep inlining, compete with the editor and the
// agent for the same cores: a smaller inlining budget cut the bridge's CPU per update by 6–10% over
// a 200,000-update run (the regime a session lives in), for 2–5% more per line once fully warm.
import { setFlagsFromString } from "node:v8";

/** The flags the bridge sets on itself; a flag node was started with wins. */
export const V8_FLAGS: readonly string[] = ["--max-inlined-bytecode-size-cumulative=300"];

/** A flag's name as node reads it (`--a_b=1` and `--a-b` name the same flag). */
function flagName(arg: string): string {
  return (arg.split("=")[0] ?? "").replace(/_/g, "-");
}

/** Sets `V8_FLAGS` but those `execArgv` already gives; returns the flags set. */
export function tuneV8(execArgv: readonly string[] = process.execArgv): string[] {
  const given = new Set(execArgv.map(flagName));
  const set = V8_FLAGS.filter((f) => !given.has(flagName(f)));
  for (const f of set) setFlagsFromString(f);
  return set;
}
