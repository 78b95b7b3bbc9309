// `perf script -i perf.data | node dist/bench/perf-summary.js [--match RE] [--top K] [--callers RE
// [--depth D]]`: a Linux perf profile summed per function (bench/profile/perf-script.ts), the K
// functions most on the stack with their inclusive and self share of the samples, those whose name
// RE matches; or, with `--callers`, the JavaScript callers (D frames up) of the frames RE matches.
// Frames of the bundle are named by their source file (dist/bundle/*.js.map). Recipe
// (docs/performance.md, "Profiles from perf"):
//
//   perf record -F 4000 -g -o /tmp/perf.data -- node --perf-basic-prof dist/bench/in-process.js a replay --bridge-only
//   perf script -i /tmp/perf.data | node dist/bench/perf-summary.js --match 'JS:\*|Json|Scavenge$'
//
// perf reads JavaScript names from /tmp/perf-<pid>.map, which node writes while it runs: keep it
// until `perf script` has run. V8 reuses the memory of code it dropped, and the map keeps the old
// name too: a frame named after a function that cannot be on that path was named wrongly.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { callersOf, functionTimes, parsePerfScript } from "./profile/perf-script.js";
import { sourceAt } from "./profile/source-maps.js";

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
};
const match = opt("--match");
const callers = opt("--callers");
const top = Number(opt("--top") ?? 40);
const depth = Number(opt("--depth") ?? 1);

/** `JS:*name file:///…/x.js:line:col`, named by its source when x.js has a source map; other frames as they are. */
function rename(frame: string): string {
  const m = /^JS:([*^~+]?)(\S*) (file:\/\/\S+):(\d+):(\d+)$/.exec(frame);
  if (!m) return frame;
  const [, tier, name, url, line, column] = m as unknown as [string, string, string, string, string, string];
  const path = fileURLToPath(url);
  // perf's lines and columns count from 1, a source map's from 0.
  const source = sourceAt(path, Number(line) - 1, Number(column) - 1);
  const where = (source ?? path).replace(/^(\.\.\/)+/, "").replace(/^.*\/dist\//, "");
  return `JS:${tier}${name === "" ? "(anonymous)" : name} ${where}`;
}

const stacks = parsePerfScript(readFileSync(0, "utf8"));
const total = stacks.length;
const share = (n: number) => `${((100 * n) / Math.max(1, total)).toFixed(2).padStart(6)}%`;
process.stdout.write(`${total} samples\n`);
if (callers !== undefined) {
  for (const c of callersOf(stacks, new RegExp(callers), depth, rename).slice(0, top))
    process.stdout.write(`${share(c.samples)}  ${c.callers}\n`);
} else {
  const shown = match === undefined ? undefined : new RegExp(match);
  const rows = functionTimes(stacks, rename).filter((f) => shown === undefined || shown.test(f.name));
  process.stdout.write("inclusive     self  function\n");
  for (const f of rows.slice(0, top)) process.stdout.write(`${share(f.inclusive)}  ${share(f.self)}  ${f.name}\n`);
}
