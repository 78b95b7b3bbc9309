// `npm run fuzz`: the fuzz suite at a chosen size. Prints the seed (reproduce with --seed) and the
// figures per mode; exits 1 if any counter that must stay zero is not.
//   npm run fuzz -- --inputs 1000000 --seed 42
//   npm run fuzz -- --inputs 100000 --modes 0,1   (indexes of MODES: the translating modes only)
//   npm run fuzz -- --inputs 100000 --report      (each bridge also writes a --report)
import { COUNTERS, fuzzMode, MODES, noFigures, type Figures } from "./driver.js";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const total = Number(arg("inputs") ?? 100_000);
const seed = Number(arg("seed") ?? Date.now() % 1_000_000);
const picked = arg("modes")?.split(",").map(Number) ?? MODES.map((_, i) => i);
const perMode = Math.ceil(total / picked.length);
const chunk = Number(arg("chunk") ?? 25_000);
const report = process.argv.includes("--report");
console.log(`fuzz: ${total} inputs, seed ${seed}, ${picked.length} modes, bridges of ${chunk} inputs`);

const results: Figures[] = [];
for (const [m, mode] of MODES.entries()) {
  if (!picked.includes(m)) continue;
  const sum = noFigures(mode);
  // One bridge per chunk keeps each run's memory small and gives hangs a chance to show.
  for (let done = 0, run = 0; done < perMode; done += chunk, run++) {
    const f = await fuzzMode(mode, Math.min(chunk, perMode - done), seed + m * 1000 + run, report);
    for (const k of COUNTERS) sum[k] += f[k];
    for (const [cls, n] of Object.entries(f.violations)) sum.violations[cls] = (sum.violations[cls] ?? 0) + n;
    for (const e of f.examples) if (sum.examples.length < 10) sum.examples.push(e);
  }
  results.push(sum);
  console.log(JSON.stringify({ ...sum, examples: undefined, violations: undefined }));
}
console.log(
  "\n| mode | inputs | crashes | hangs | unanswered | duplicate answers | invalid lines | schema violations |",
);
console.log("|---|---|---|---|---|---|---|---|");
for (const r of results)
  console.log(
    `| ${r.mode} | ${r.inputs} | ${r.crashes} | ${r.hangs} | ${r.unanswered} | ${r.duplicateAnswers} | ${r.invalidLines} | ${r.schemaViolations} |`,
  );
for (const r of results) for (const e of r.examples) console.log(`  ${r.mode}: ${e}`);
for (const r of results) {
  const classes = Object.entries(r.violations).sort((a, b) => b[1] - a[1]);
  if (classes.length === 0) continue;
  console.log(`\nschema violations of ${r.mode}, by class (${classes.length}):`);
  for (const [cls, n] of classes) console.log(`  ${String(n).padStart(6)}  ${cls}`);
}
const bad = results.some((r) => r.crashes + r.hangs + r.unanswered + r.duplicateAnswers + r.invalidLines > 0);
process.exitCode = bad ? 1 : 0;
