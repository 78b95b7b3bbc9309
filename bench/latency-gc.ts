// `npm run bench:gc [pass|a|b]`: where the bridge's request tail goes. Runs the built bridge under
// `--trace-gc-nvp` (V8 prints on stdout, so lines that are not JSON are read as traces), warms it
// with 2,000 `_bench/ping` requests and 4,000 at 2,000 a second, sends 4,000 more alike, and
// prints the young collections of that window with the average of each phase. A diagnostic, not a
// measurement the budget is read from (`npm run bench` is).
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const here = (rel: string) => fileURLToPath(new URL(rel, import.meta.url));
const path = process.argv[2] ?? "pass";
const agentVersion = path === "a" ? 2 : 1;
const clientVersion = path === "b" ? 2 : 1;
const child = spawn(
  process.execPath,
  [
    "--trace-gc-nvp",
    here("../../bin/acp-bridge.js"),
    "--log-level",
    "error",
    "--agent-protocol",
    String(agentVersion),
    "--",
    process.execPath,
    here("./fake-agent.js"),
  ],
  { stdio: ["pipe", "pipe", "inherit"], env: { ...process.env, BENCH_AGENT_VERSION: String(agentVersion) } },
);

let rest = "";
let nextId = 1;
const waiting = new Map<number, () => void>();
const scavenges: string[] = [];
child.stdout.setEncoding("utf8");
child.stdout.on("data", (chunk: string) => {
  const lines = (rest + chunk).split("\n");
  rest = lines.pop() ?? "";
  for (const line of lines) {
    if (!line.startsWith("{")) {
      if (line.includes("gc=s")) scavenges.push(line);
      continue;
    }
    const msg = JSON.parse(line) as { id?: number };
    const done = msg.id === undefined ? undefined : waiting.get(msg.id);
    if (done && msg.id !== undefined) {
      waiting.delete(msg.id);
      done();
    }
  }
});

function request(method: string, params: unknown): Promise<void> {
  const id = nextId++;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
  });
}

await request(
  "initialize",
  clientVersion === 2
    ? { protocolVersion: 2, info: { name: "gc", version: "1" }, capabilities: {} }
    : { protocolVersion: 1, clientCapabilities: {} },
);
for (let i = 0; i < 2000; i++) await request("_bench/ping", {});

/** 4,000 requests at 2,000 a second. */
async function paced(): Promise<void> {
  const start = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < 4000; i++) {
    const wait = start + i * 0.5 - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    pending.push(request("_bench/ping", {}));
  }
  await Promise.all(pending);
}
// The steady state, as `npm run bench` reads its budget line: after a first paced window.
await paced();
scavenges.length = 0;
await paced();
child.stdin.end();

const totals = new Map<string, number>();
for (const line of scavenges)
  for (const field of line.split(" ")) {
    const [key, value] = field.split("=");
    const n = Number(value);
    if (key !== undefined && Number.isFinite(n)) totals.set(key, (totals.get(key) ?? 0) + n);
  }
process.stdout.write(`${path}: ${scavenges.length} young collections in 4,000 requests; average per collection:\n`);
const shown = /^(pause|scavenge|promoted|new_space_survived|nodes_)/;
for (const [key, sum] of [...totals].filter(([k]) => shown.test(k)).sort((a, b) => b[1] - a[1]))
  process.stdout.write(`  ${key} ${(sum / Math.max(1, scavenges.length)).toFixed(3)}\n`);
