// `npm run test:nodes [-- LINE...]`: the test suite under each node release line users run, not only
// the one this machine has. Node 20 reached its end of life in April 2026; a bridge installed today
// runs on 22, 24 or 26 as often. Each line's newest binary is installed from the npm registry
// (node's own `node-<platform>-<arch>` packages) into `ACP_NODES_CACHE` (default
// node_modules/.cache/acp-bridge-nodes, where no test runner looks), never by the root `npm ci`, and
// the suite runs with that node first on PATH: vitest, its workers and every CLI the tests spawn.
// Prints one line per release, the failed tests under it, and exits non-zero when any failed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";

/** The release lines of node that are maintained on the date of writing (2026-12): 22, 24 and 26. */
const LINES = ["22", "24", "26"];

const here = resolve(import.meta.dirname);
const root = resolve(here, "..", "..");
const cache = resolve(process.env.ACP_NODES_CACHE ?? join(root, "node_modules", ".cache", "acp-bridge-nodes"));

/** The bin directory of `line`'s newest node, installed into the cache when it is not there yet. */
function nodeBin(line: string): string {
  const dir = join(cache, `node-${line}`);
  const bin = join(dir, "package", "bin");
  if (existsSync(join(bin, "node"))) return bin;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const pkg = `node-${process.platform}-${process.arch}@${line}`;
  process.stderr.write(`test:nodes: installing ${pkg} into ${dir}\n`);
  const packed = spawnSync("npm", ["pack", pkg, "--silent"], {
    cwd: dir,
    encoding: "utf8",
    stdio: ["ignore", "pipe", 2],
  });
  const tgz = readdirSync(dir).find((f) => f.endsWith(".tgz"));
  if (packed.status !== 0 || tgz === undefined)
    throw new Error(`npm pack ${pkg} failed (exit ${String(packed.status)})`);
  const untar = spawnSync("tar", ["xzf", tgz], { cwd: dir, stdio: ["ignore", 2, 2] });
  if (untar.status !== 0) throw new Error(`tar xzf ${tgz} failed (exit ${String(untar.status)})`);
  rmSync(join(dir, tgz));
  return bin;
}

interface Report {
  numPassedTests: number;
  numFailedTests: number;
  testResults: { assertionResults: { fullName: string; status: string }[] }[];
}

const lines = process.argv.slice(2).length > 0 ? process.argv.slice(2) : LINES;
let failed = 0;
for (const line of lines) {
  const bin = nodeBin(line);
  const version = spawnSync(join(bin, "node"), ["--version"], { encoding: "utf8" }).stdout.trim();
  const out = join(cache, `report-${line}.json`);
  rmSync(out, { force: true });
  spawnSync("npx", ["vitest", "run", "--reporter=dot", "--reporter=json", `--outputFile.json=${out}`], {
    cwd: root,
    stdio: ["ignore", 2, 2],
    env: { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH ?? ""}` },
  });
  if (!existsSync(out)) {
    process.stdout.write(`node ${version}: the suite wrote no report\n`);
    failed++;
    continue;
  }
  const report = JSON.parse(readFileSync(out, "utf8")) as Report;
  process.stdout.write(`node ${version}: ${report.numPassedTests} passed, ${report.numFailedTests} failed\n`);
  for (const file of report.testResults)
    for (const t of file.assertionResults) if (t.status === "failed") process.stdout.write(`  failed: ${t.fullName}\n`);
  if (report.numFailedTests > 0) failed++;
}
process.exitCode = failed > 0 ? 1 : 0;
