// `node dist/bench/profile-summary.js <file.cpuprofile | dir> [--messages N] [--top K]`: the
// bridge's self time per category (scanning, parsing, converting, writing, framing, node's streams,
// GC), per message when N is given (a throughput run's profile: its N updates plus the 2,000 of the
// warm-up), and the K functions with the most self time. Frames in the bundle are mapped to their
// source files through its source maps (dist/bundle/*.js.map). Recipe (docs/performance.md):
//
//   rm -rf /tmp/prof && BENCH_ONLY=a BENCH_MIX=real BENCH_ROUNDS=1 BENCH_THROUGHPUT_ONLY=1 \
//     BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" npm run bench
//   node dist/bench/profile-summary.js /tmp/prof --messages 202000
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { sourceAt } from "./profile/source-maps.js";
import { CATEGORIES, summarise, type CallFrame, type CpuProfile } from "./profile/summary.js";

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
};
const target = args[0];
if (!target) throw new Error("usage: profile-summary <file.cpuprofile | dir> [--messages N] [--top K]");
const messages = Number(opt("--messages") ?? NaN);
const top = Number(opt("--top") ?? 12);

function sourceOf(frame: CallFrame): string {
  const url = frame.url;
  if (url === "") return "";
  if (url.startsWith("node:")) return url;
  const path = url.startsWith("file://") ? fileURLToPath(url) : url;
  const mapped = sourceAt(path, frame.lineNumber, frame.columnNumber);
  // Sources are relative to the bundle: keep the part from src/ or mappings/ or node_modules/ on.
  const s = mapped ?? path;
  const m = /(?:^|\/)((?:src|mappings|node_modules)\/.*)$/.exec(s);
  return m ? m[1]! : s;
}

const files = statSync(target).isDirectory()
  ? readdirSync(target)
      .filter((f) => f.endsWith(".cpuprofile"))
      .map((f) => join(target, f))
  : [target];
for (const file of files) {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const s = summarise(profile, sourceOf);
  const per = (us: number) => (Number.isNaN(messages) ? "" : ` | ${(us / messages).toFixed(2)}`);
  process.stdout.write(
    `${basename(file)}: ${(s.busyUs / 1000).toFixed(0)} ms busy (idle left out)${Number.isNaN(messages) ? "" : `, ${messages} messages`}\n\n` +
      `| category | ms | share${Number.isNaN(messages) ? "" : " | µs per message"} |\n|---|---|---${Number.isNaN(messages) ? "" : "|---"}|\n`,
  );
  for (const c of CATEGORIES) {
    const us = s.byCategory.get(c)!;
    process.stdout.write(`| ${c} | ${(us / 1000).toFixed(0)} | ${((100 * us) / s.busyUs).toFixed(1)}%${per(us)} |\n`);
  }
  process.stdout.write(`\ntop ${top} functions by self time:\n`);
  for (const [k, us] of [...s.byFunction].sort((a, b) => b[1] - a[1]).slice(0, top))
    process.stdout.write(
      `  ${(us / 1000).toFixed(0).padStart(6)} ms ${((100 * us) / s.busyUs).toFixed(1).padStart(5)}%  ${k}\n`,
    );
  process.stdout.write("\n");
}
