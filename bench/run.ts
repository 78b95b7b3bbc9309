// `npm run bench`: the bridge's cost as ratios to baselines run in the same invocation on the same
// machine (never asserted in a timed test). Throughput of a session/update stream through a raw
// NDJSON relay, a parse-and-stringify relay, and the bridge (pass-through and direction A); request
// round-trip latency at a fixed rate; RSS growth under a slow client; start-up time.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const here = (rel: string) => fileURLToPath(new URL(rel, import.meta.url));
const NODE = process.execPath;
const AGENT = here("./fake-agent.js");
const RELAY = here("./relay.js");
const BRIDGE = here("../../bin/acp-bridge.js");
const N = Number(process.env.BENCH_UPDATES ?? 200_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

interface Target {
  readonly name: string;
  readonly clientVersion: 1 | 2;
  readonly agentVersion: 1 | 2;
  readonly argv: string[];
}

const agentArgv = [NODE, AGENT];
const targets = (agentVersion: 1 | 2): Target[] => [
  {
    name: `raw relay (v${agentVersion})`,
    clientVersion: agentVersion,
    agentVersion,
    argv: [NODE, RELAY, "raw", ...agentArgv],
  },
  {
    name: `parse+stringify relay (v${agentVersion})`,
    clientVersion: agentVersion,
    agentVersion,
    argv: [NODE, RELAY, "parse", ...agentArgv],
  },
  {
    name: `bridge pass-through (v${agentVersion}↔v${agentVersion})`,
    clientVersion: agentVersion,
    agentVersion,
    argv: [NODE, BRIDGE, "--log-level", "error", "--", ...agentArgv],
  },
  {
    name: `bridge translating (v${agentVersion === 2 ? 1 : 2} client, v${agentVersion} agent)`,
    clientVersion: agentVersion === 2 ? 1 : 2,
    agentVersion,
    argv: [NODE, BRIDGE, "--log-level", "error", `--agent-protocol`, String(agentVersion), "--", ...agentArgv],
  },
];

/** A client speaking raw NDJSON to a spawned process. */
class Driver {
  readonly child: ChildProcess;
  private rest = "";
  private nextId = 1;
  private readonly waiting = new Map<number, (msg: Record<string, unknown>) => void>();
  updates = 0;
  private idleWaiter: (() => void) | undefined;
  bytes = 0;

  constructor(
    readonly target: Target,
    env: Record<string, string>,
  ) {
    const [cmd, ...args] = target.argv;
    this.child = spawn(cmd!, args, { stdio: ["pipe", "pipe", "inherit"], env: { ...process.env, ...env } });
    this.child.stdout!.setEncoding("utf8");
    this.child.stdout!.on("data", (chunk: string) => this.data(chunk));
  }

  private data(chunk: string): void {
    this.bytes += chunk.length;
    const text = this.rest + chunk;
    let start = 0;
    for (;;) {
      const nl = text.indexOf("\n", start);
      if (nl === -1) break;
      const line = text.slice(start, nl);
      start = nl + 1;
      // Cheap classification: the driver must not be the bottleneck.
      if (line.includes('"session/update"')) {
        this.updates++;
        if (this.idleWaiter && line.includes('"state":"idle"')) this.idleWaiter();
        continue;
      }
      const msg = JSON.parse(line) as Record<string, unknown>;
      const cb = typeof msg.id === "number" ? this.waiting.get(msg.id) : undefined;
      if (cb) {
        this.waiting.delete(msg.id as number);
        cb(msg);
      }
    }
    this.rest = text.slice(start);
  }

  request(method: string, params: unknown): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child.stdin!.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  }

  async handshake(): Promise<string> {
    const v = this.target.clientVersion;
    const init = await this.request(
      "initialize",
      v === 2
        ? { protocolVersion: 2, info: { name: "bench", version: "1" }, capabilities: {} }
        : { protocolVersion: 1, clientCapabilities: {} },
    );
    if (init.error) throw new Error(`${this.target.name}: initialize failed ${JSON.stringify(init.error)}`);
    const s = await this.request("session/new", { cwd: "/tmp", mcpServers: [] });
    return (s.result as { sessionId: string }).sessionId;
  }

  /** Ask for `n` updates; resolves when the turn ended (v1: prompt response; v2: idle). */
  async turn(sessionId: string, n: number): Promise<number> {
    const t0 = performance.now();
    const done =
      this.target.clientVersion === 1
        ? this.request("session/prompt", { sessionId, prompt: [{ type: "text", text: String(n) }] })
        : Promise.all([
            this.request("session/prompt", { sessionId, prompt: [{ type: "text", text: String(n) }] }),
            new Promise<void>((r) => (this.idleWaiter = r)),
          ]);
    await done;
    this.idleWaiter = undefined;
    return performance.now() - t0;
  }

  async close(): Promise<void> {
    this.child.stdin!.end();
    await new Promise((r) => this.child.once("close", r));
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

async function throughput(t: Target): Promise<number> {
  const d = new Driver(t, { BENCH_AGENT_VERSION: String(t.agentVersion) });
  const sid = await d.handshake();
  await d.turn(sid, 2000); // warm-up
  const ms = await d.turn(sid, N);
  await d.close();
  return (N / ms) * 1000;
}

async function latency(t: Target, rate = 2000, seconds = 2): Promise<{ p50: number; p99: number }> {
  const d = new Driver(t, { BENCH_AGENT_VERSION: String(t.agentVersion) });
  await d.handshake();
  for (let i = 0; i < 200; i++) await d.request("_bench/ping", {});
  const rtts: number[] = [];
  const total = rate * seconds;
  const interval = 1000 / rate;
  const start = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const t0 = performance.now();
    pending.push(d.request("_bench/ping", {}).then(() => void rtts.push(performance.now() - t0)));
  }
  await Promise.all(pending);
  await d.close();
  rtts.sort((a, b) => a - b);
  return { p50: rtts[Math.floor(rtts.length * 0.5)]!, p99: rtts[Math.floor(rtts.length * 0.99)]! };
}

function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) : NaN;
}

/** The bridge's RSS growth while a client reads slowly and the agent floods. */
async function slowClient(t: Target, n: number): Promise<{ growthMiB: number; ms: number }> {
  const d = new Driver(t, { BENCH_AGENT_VERSION: String(t.agentVersion) });
  const sid = await d.handshake();
  const pid = d.child.pid!;
  const base = rssKiB(pid);
  let max = base;
  const timer = setInterval(() => (max = Math.max(max, rssKiB(pid))), 50);
  // Slow reader: pause for 100 ms every 20 ms of reading.
  const pauser = setInterval(() => {
    d.child.stdout!.pause();
    setTimeout(() => d.child.stdout!.resume(), 100);
  }, 120);
  const ms = await d.turn(sid, n);
  clearInterval(pauser);
  clearInterval(timer);
  await d.close();
  return { growthMiB: (max - base) / 1024, ms };
}

function startup(): { bridgeMs: number; nodeMs: number } {
  const time = (args: string[]) => {
    const xs: number[] = [];
    for (let i = 0; i < 7; i++) {
      const t0 = performance.now();
      spawnSync(NODE, args);
      xs.push(performance.now() - t0);
    }
    return median(xs);
  };
  return { bridgeMs: time([BRIDGE, "--version"]), nodeMs: time(["-e", "0"]) };
}

async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY;
  process.stdout.write(
    `acp-bridge bench: ${N} updates per run, median of ${ROUNDS} rounds, node ${process.version}\n\n`,
  );
  for (const agentVersion of [2, 1] as const) {
    if (only && only !== `v${agentVersion}`) continue;
    const ts = targets(agentVersion);
    const results = new Map<string, number[]>();
    for (let r = 0; r < ROUNDS; r++)
      for (const t of ts) {
        const list = results.get(t.name) ?? [];
        list.push(await throughput(t));
        results.set(t.name, list);
      }
    const raw = median(results.get(ts[0]!.name)!);
    process.stdout.write(`throughput, agent speaks v${agentVersion}:\n`);
    for (const t of ts) {
      const m = median(results.get(t.name)!);
      process.stdout.write(
        `  ${t.name.padEnd(44)} ${(m / 1000).toFixed(0).padStart(5)}k updates/s  ${(m / raw).toFixed(2)}x raw relay\n`,
      );
    }
    const relayLat = await latency(ts[0]!);
    const bridgeLat = await latency(ts[3]!);
    process.stdout.write(
      `latency at 2000 req/s: raw relay p50 ${relayLat.p50.toFixed(2)} ms p99 ${relayLat.p99.toFixed(2)} ms; ` +
        `bridge p50 ${bridgeLat.p50.toFixed(2)} ms p99 ${bridgeLat.p99.toFixed(2)} ms (${(bridgeLat.p99 / relayLat.p99).toFixed(2)}x)\n`,
    );
    const slow = await slowClient(ts[3]!, Number(process.env.BENCH_SLOW_UPDATES ?? 300_000));
    process.stdout.write(
      `slow client: bridge RSS grew ${slow.growthMiB.toFixed(1)} MiB over the run (${(slow.ms / 1000).toFixed(1)} s)\n\n`,
    );
  }
  const s = startup();
  process.stdout.write(
    `start-up: acp-bridge --version ${s.bridgeMs.toFixed(0)} ms (node -e 0: ${s.nodeMs.toFixed(0)} ms)\n`,
  );
}

await main();
