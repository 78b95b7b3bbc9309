// `npm run fuzz`: the fuzz suite at a chosen size. Prints the seed (reproduce with --seed) and the
// figures per mode; exits 1 if any counter that must stay zero is not.
//   npm run fuzz -- --inputs 1000000 --seed 42
import { COUNTERS, fuzzMode, MODES, noFigures, type Figures } from "./driver.js";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const total = Number(arg("inputs") ?? 100_000);
const seed = Number(arg("seed") ?? Date.now() % 1_000_000);
const perMode = Math.ceil(total / MODES.length);
const chunk = Number(arg("chunk") ?? 25_000);
console.log(`fuzz: ${total} inputs, seed ${seed}, ${MODES.length} modes, bridges of ${chunk} inputs`);

const results: Figures[] = [];
for (const [m, mode] of MODES.entries()) {
  const sum = noFigures(mode);
  // One bridge per chunk keeps each run's memory small and gives hangs a chance to show.
  for (let done = 0, run = 0; done < perMode; done += chunk, run++) {
    const f = await fuzzMode(mode, Math.min(chunk, perMode - done), seed + m * 1000 + run);
    for (const k of COUNTERS) sum[k] += f[k];
    for (const e of f.examples) if (sum.examples.length < 10) sum.examples.push(e);
  }
  results.push(sum);
  console.log(JSON.stringify({ ...sum, examples: undefined }));
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
const bad = results.some((r) => r.crashes + r.hangs + r.unanswered + r.duplicateAnswers + r.invalidLines > 0);
process.exitCode = bad ? 1 : 0;
