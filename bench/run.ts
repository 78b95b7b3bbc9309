// `npm run bench`: the bridge's cost as ratios to baselines run in the same invocation on the same
// machine (never asserted in a timed test). For each path of the issue's table (v1 client → v2
// agent, v2 client → v1 agent, v1 ↔ v1 pass-through): throughput of a session/update stream against
// a raw NDJSON relay and a parse-and-stringify relay; request p99 at a fixed rate against the raw
// relay (a session's steady state: both at once, their requests interleaved, all rounds' samples
// pooled; printed beside it: each one's first seconds alone, while V8 compiles, and the estimator's
// noise floor, a raw relay against a second one in the same steady windows) and the CPU each
// request costs; spawn → first `initialize` answered and RSS at start against the raw relay; then
// RSS growth under a slow client over the issue's load (1,000,000 updates, a tool call per ten in the
// own mix) on each path and traffic, the raw relay's beside it, and `acp-bridge --version`.
//
// Knobs (environment): BENCH_UPDATES (lines per throughput run, default 1000000, the issue's run;
// the first 200,000 of each, a fresh process's, and the rest are timed apart and printed too),
// BENCH_ROUNDS (interleaved rounds, median taken, default 3; five at least for start-up, four for latency),
// BENCH_ONLY (a|b|pass: one path; none: the slow client alone), BENCH_RATE and BENCH_LATENCY_S
// (request rate; seconds of each one's first window per round), BENCH_STEADY_S (seconds of the
// steady window per round), BENCH_SLOW_UPDATES (0 skips the slow-client run), BENCH_NODE_ARGS
// (extra node flags for the bridge, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`), BENCH_DEBUG (each
// latency round's percentiles and CPU per request), BENCH_MIX (the throughput runs' traffic: own,
// the bench's own mix; real, the mix derived from recorded agent turns; replay, the recorded
// agent-side updates; a comma-separated list, or all, the default: see bench/traffic/README.md),
// BENCH_SLOW_MIX (the slow client's traffics, as BENCH_MIX, default all), BENCH_THROUGHPUT_ONLY=1 (throughput alone),
// BENCH_REMOTE=0 (skip the remote row: a v1 client → `acp-bridge --connect ws://…` → `acp-bridge
// serve` → the v2 agent, against the same agent behind the bridge over stdio; BENCH_ONLY=remote:
// that row alone).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Mix } from "./traffic/pool.js";
import { machine } from "./machine.js";
import { runRates } from "./rates.js";

const here = (rel: string) => fileURLToPath(new URL(rel, import.meta.url));
const NODE = process.execPath;
const AGENT = here("./fake-agent.js");
const RELAY = here("./relay.js");
const BRIDGE = here("../../bin/acp-bridge.js");
/**
 * Updates per throughput run: the issue's run (its table gives throughput beside the RSS at start
 * and peak of its 1,000,000-update run).
 */
const N = Number(process.env.BENCH_UPDATES ?? 1_000_000);
/**
 * A fresh process's first updates, timed apart in the same run: the bench's runs were this long
 * until 2026-11-30, and V8 compiles the bridge's paths over about that many (docs/performance.md).
 */
const FIRST = Math.min(200_000, N);
/** The remote row's runs: a comparison of two bridges, WebSocket against stdio, at the old length (time). */
const REMOTE_N = Math.min(200_000, N);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Start-up rounds: five at least, their figures move with the neighbours' load. */
const PAIRED_ROUNDS = Math.max(5, ROUNDS);
/**
 * Latency rounds, pooled: 40,000 steady samples a target by default (fewer rounds of longer windows
 * than start-up's: each round's spawn and warm-up cost time, and the bench has five minutes).
 */
const LATENCY_ROUNDS = Math.max(4, ROUNDS);
const RATE = Number(process.env.BENCH_RATE ?? 2000);
const LATENCY_S = Number(process.env.BENCH_LATENCY_S ?? 2);
const STEADY_S = Number(process.env.BENCH_STEADY_S ?? 5);
const SLOW_UPDATES = Number(process.env.BENCH_SLOW_UPDATES ?? 1_000_000);
/** Clock ticks per second of /proc/<pid>/stat's CPU times. */
const CLOCK_TICKS = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter((a) => a !== "");
const MIX_LABEL: Record<Mix, string> = {
  own: "bench's own mix",
  real: "real-derived mix",
  replay: "replay of recorded turns",
};
/** The mixes a knob names: a comma-separated list of own, real and replay, or all. */
function mixes(knob: string, value: string): Mix[] {
  const named = value
    .split(",")
    .flatMap((m): Mix[] => (m === "all" ? ["own", "real", "replay"] : m in MIX_LABEL ? [m as Mix] : []));
  if (named.length === 0) throw new Error(`${knob}: own, real, replay or all`);
  return named;
}
const MIXES = mixes("BENCH_MIX", process.env.BENCH_MIX ?? "all");
/** The slow client's traffics: the issue's memory target holds on the real mix and the replay too. */
const SLOW_MIXES = mixes("BENCH_SLOW_MIX", process.env.BENCH_SLOW_MIX ?? "all");
/** Throughput alone: no start-up, latency, noise floor or slow client (profiling, development). */
const THROUGHPUT_ONLY = process.env.BENCH_THROUGHPUT_ONLY === "1";

interface Target {
  readonly name: string;
  readonly clientVersion: 1 | 2;
  readonly agentVersion: 1 | 2;
  readonly argv: string[];
}

interface Path {
  readonly key: "a" | "b" | "pass";
  readonly label: string;
  readonly raw: Target;
  readonly parse: Target;
  readonly bridge: Target;
}

const agentArgv = [NODE, AGENT];
const relay = (mode: "raw" | "parse", agentVersion: 1 | 2): Target => ({
  name: `${mode === "raw" ? "raw" : "parse+stringify"} relay (v${agentVersion} agent)`,
  clientVersion: agentVersion,
  agentVersion,
  argv: [NODE, RELAY, mode, ...agentArgv],
});
const bridge = (name: string, clientVersion: 1 | 2, agentVersion: 1 | 2): Target => ({
  name,
  clientVersion,
  agentVersion,
  argv: [
    NODE,
    ...NODE_ARGS,
    BRIDGE,
    "--log-level",
    "error",
    "--agent-protocol",
    String(agentVersion),
    "--",
    ...agentArgv,
  ],
});

const paths: Path[] = [
  {
    key: "a",
    label: "v1 client → bridge → v2 agent",
    raw: relay("raw", 2),
    parse: relay("parse", 2),
    bridge: bridge("bridge (v1 client, v2 agent)", 1, 2),
  },
  {
    key: "b",
    label: "v2 client → bridge → v1 agent",
    raw: relay("raw", 1),
    parse: relay("parse", 1),
    bridge: bridge("bridge (v2 client, v1 agent)", 2, 1),
  },
  {
    key: "pass",
    label: "v1 ↔ v1 pass-through",
    raw: relay("raw", 1),
    parse: relay("parse", 1),
    bridge: bridge("bridge (v1 ↔ v1 pass-through)", 1, 1),
  },
];

/** A client speaking raw NDJSON to a spawned process. */
class Driver {
  readonly child: ChildProcess;
  private rest = "";
  private nextId = 1;
  private readonly waiting = new Map<number, (msg: Record<string, unknown>) => void>();
  updates = 0;
  /** When `updates` reaches `markAt`, the time (performance.now()) goes in `markedAt`. */
  markAt = -1;
  markedAt = NaN;
  private idleWaiter: (() => void) | undefined;
  readonly spawnedAt = performance.now();

  constructor(
    readonly target: Target,
    agentEnv: Record<string, string> = {},
  ) {
    const [cmd, ...args] = target.argv;
    this.child = spawn(cmd!, args, {
      stdio: ["pipe", "pipe", "inherit"],
      env: { ...process.env, ...agentEnv, BENCH_AGENT_VERSION: String(target.agentVersion) },
    });
    this.child.stdout!.setEncoding("utf8");
    this.child.stdout!.on("data", (chunk: string) => this.data(chunk));
  }

  private data(chunk: string): void {
    const text = this.rest + chunk;
    let start = 0;
    for (;;) {
      const nl = text.indexOf("\n", start);
      if (nl === -1) break;
      const line = text.slice(start, nl);
      start = nl + 1;
      // Cheap classification: the driver must not be the bottleneck.
      if (line.includes('"session/update"')) {
        if (++this.updates === this.markAt) this.markedAt = performance.now();
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

  /** Time from spawn to the answer of the first `initialize`, and the CPU time the process used by then. */
  initializeMs = NaN;
  initializeCpuMs = NaN;

  async handshake(): Promise<string> {
    const v = this.target.clientVersion;
    const init = await this.request(
      "initialize",
      v === 2
        ? { protocolVersion: 2, info: { name: "bench", version: "1" }, capabilities: {} }
        : { protocolVersion: 1, clientCapabilities: {} },
    );
    this.initializeMs = performance.now() - this.spawnedAt;
    this.initializeCpuMs = cpuMs(this.child.pid!);
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

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

/** CPU time (user + system) a process has used so far, in ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / CLOCK_TICKS;
}

/**
 * Updates per second over a turn of `n`, over its first FIRST and over the rest (NaN when the turn
 * has no rest), and the relaying process's CPU µs per update over the turn (steadier on a loaded
 * machine).
 */
async function throughput(
  t: Target,
  mix: Mix,
  n: number,
  env: Record<string, string> = {},
): Promise<{ rate: number; firstRate: number; restRate: number; cpuUs: number }> {
  const d = new Driver(t, { BENCH_MIX: mix, ...env });
  const sid = await d.handshake();
  await d.turn(sid, 2000); // warm-up
  const cpu0 = cpuMs(d.child.pid!);
  const first = Math.min(FIRST, n);
  d.markAt = d.updates + first;
  const t0 = performance.now();
  const ms = await d.turn(sid, n);
  const cpu = cpuMs(d.child.pid!) - cpu0;
  await d.close();
  // A run no longer than FIRST is its own first part (a v1 client counts no update for the turn's
  // end, so the mark at its last update may never be reached).
  const firstMs = first === n ? ms : d.markedAt - t0;
  return { ...runRates(n, ms, first, firstMs), cpuUs: (cpu * 1000) / n };
}

/**
 * `n` `_bench/ping` requests to each driver at RATE per second each, interleaved: of k drivers,
 * driver j's i-th request is due j/k of an interval after driver 0's. Round trips in ms, per driver.
 */
async function paced(ds: readonly Driver[], n: number): Promise<number[][]> {
  const rtts = ds.map((): number[] => []);
  const interval = 1000 / RATE;
  const start = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < n; i++)
    for (let j = 0; j < ds.length; j++) {
      const due = start + i * interval + (j * interval) / ds.length;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const t0 = performance.now();
      const times = rtts[j]!;
      pending.push(ds[j]!.request("_bench/ping", {}).then(() => void times.push(performance.now() - t0)));
    }
  await Promise.all(pending);
  return rtts;
}

interface Latency {
  /** Round trips in the first LATENCY_S seconds after the serial warm-up, alone (V8 still compiling). */
  readonly cold: number[];
  /** Round trips in the steady window, STEADY_S seconds, interleaved with the other target's. */
  readonly warm: number[];
  readonly warmCpuUs: number;
}

/**
 * Round trips at RATE per second through two targets. After 2,000 requests one at a time to each,
 * `cold` is each one's first LATENCY_S seconds alone, while V8 still compiles the request path (a
 * start-up cost, printed; `withCold` false skips it). `warm`, the steady state the budget reads,
 * is the next STEADY_S seconds of both at once, each request of one half an interval after one of
 * the other's (which leads alternates by round), so that a busy stretch of the machine, or a
 * hypervisor's pause of several ms, falls on both alike.
 */
async function latencyPair(a: Target, b: Target, round: number, withCold = true): Promise<[Latency, Latency]> {
  const pair = [new Driver(a), new Driver(b)];
  const order = round % 2 === 0 ? pair : [pair[1]!, pair[0]!];
  for (const d of order) {
    await d.handshake();
    for (let i = 0; i < 2000; i++) await d.request("_bench/ping", {});
  }
  const cold: number[][] = [];
  if (withCold) for (const d of order) cold.push((await paced([d], RATE * LATENCY_S))[0]!);
  const pids = order.map((d) => d.child.pid!);
  const cpu0 = pids.map(threadsCpuNs);
  const warm = await paced(order, RATE * STEADY_S);
  const latency = order.map((_, j): Latency => ({
    cold: cold[j] ?? [],
    warm: warm[j]!,
    warmCpuUs: (threadsCpuNs(pids[j]!) - cpu0[j]!) / 1000 / warm[j]!.length,
  }));
  await Promise.all(pair.map((d) => d.close()));
  return round % 2 === 0 ? [latency[0]!, latency[1]!] : [latency[1]!, latency[0]!];
}

/** CPU time of all of a process's threads (V8's compiler and GC helpers too), in ns (schedstat). */
function threadsCpuNs(pid: number): number {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`))
    ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
  return ns;
}

function percentile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length * q)] ?? NaN;
}

function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) : NaN;
}

/** Spawn → first `initialize` answered, and the process's RSS right after the session opened. */
async function start(t: Target): Promise<{ ms: number; cpuMs: number; rssMiB: number }> {
  const d = new Driver(t);
  await d.handshake();
  const rssMiB = rssKiB(d.child.pid!) / 1024;
  await d.close();
  return { ms: d.initializeMs, cpuMs: d.initializeCpuMs, rssMiB };
}

/** The bridge's RSS growth while a client reads slowly and the agent floods. */
async function slowClient(t: Target, n: number, mix: Mix): Promise<{ growthMiB: number; ms: number }> {
  // The issue's load: a tool call per ten lines (100,000 over 1,000,000 updates) in the own mix; the
  // corpus mixes have their own (a tool call per 5.5 and 8.3 lines of the replay, v1 and v2 agents;
  // per 93 and 94 of the real-derived mix, whose chunks are per token).
  const d = new Driver(t, { BENCH_TOOL_SPAN: "10", BENCH_MIX: mix });
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

/**
 * Medians of seven spawns of each command, alternated, so that a slow stretch of the machine
 * falls on both (`node -e 0` is the floor any node CLI starts from).
 */
function startupMs(...commands: string[][]): number[] {
  const xs = commands.map((): number[] => []);
  for (let i = 0; i < 7; i++)
    commands.forEach((args, k) => {
      const t0 = performance.now();
      spawnSync(NODE, args);
      xs[k]?.push(performance.now() - t0);
    });
  return xs.map(median);
}

const out = (s: string) => process.stdout.write(s);
const x = (r: number) => `${r.toFixed(2)}×`;
const fixed = (n: number, d = 0) => n.toFixed(d);

interface Throughput {
  readonly mix: Mix;
  readonly rates: { raw: number; parse: number; bridge: number };
  /** Over each run's first FIRST updates (a fresh process: V8 still compiling the bridge). */
  readonly firstRates: { raw: number; parse: number; bridge: number };
  /**
   * Over the updates after those (NaN for a run of FIRST or fewer): where a fresh process's warm-up
   * is over, what the whole run's rate would be without it (docs/performance.md, "Where the
   * replay's gap lies").
   */
  readonly restRates: { raw: number; parse: number; bridge: number };
  readonly cpu: { raw: number; parse: number; bridge: number };
}

interface Row {
  readonly path: Path;
  /** One per mix of BENCH_MIX, in its order. */
  readonly throughput: readonly Throughput[];
  /** Requests and start-up (none with BENCH_THROUGHPUT_ONLY). */
  readonly latency: Latencies | undefined;
}

interface Latencies {
  /** Steady state: the p99 and p50 of all rounds' samples pooled (the p99 is the budget's figure). */
  readonly p99: { raw: number; bridge: number };
  readonly p50: { raw: number; bridge: number };
  /** The same, over the first seconds after the serial warm-up (JIT still compiling). */
  readonly coldP99: { raw: number; bridge: number };
  /** CPU µs of all the process's threads per request, steady state. */
  readonly reqCpu: { raw: number; bridge: number };
  readonly init: { raw: number; bridge: number };
  readonly initCpu: { raw: number; bridge: number };
  readonly rss: { raw: number; bridge: number };
}

interface LatencyFigures {
  readonly p99: number;
  readonly p50: number;
  readonly coldP99: number;
  /** CPU µs per request, all threads, steady state: the median of the rounds. */
  readonly cpuUs: number;
}

/** LATENCY_ROUNDS of latencyPair(a, b): each target's figures over all rounds' samples pooled. */
async function latencyRounds(a: Target, b: Target, withCold = true): Promise<[LatencyFigures, LatencyFigures]> {
  const rounds: [Latency, Latency][] = [];
  for (let r = 0; r < LATENCY_ROUNDS; r++) {
    const pair = await latencyPair(a, b, r, withCold);
    rounds.push(pair);
    if (process.env.BENCH_DEBUG)
      for (const [j, l] of pair.entries())
        out(
          `${j === 0 ? a.name : b.name} round ${r}: p50/90/95/99/99.9 ${[0.5, 0.9, 0.95, 0.99, 0.999].map((q) => fixed(percentile(l.warm, q), 2)).join("/")} ms (first ${LATENCY_S} s ${fixed(percentile(l.cold, 0.99), 2)}), CPU ${fixed(l.warmCpuUs, 1)} µs per request\n`,
        );
  }
  const figures = (j: 0 | 1): LatencyFigures => {
    const warm = rounds.flatMap((p) => p[j].warm);
    return {
      p99: percentile(warm, 0.99),
      p50: percentile(warm, 0.5),
      coldP99: percentile(
        rounds.flatMap((p) => p[j].cold),
        0.99,
      ),
      cpuUs: median(rounds.map((p) => p[j].warmCpuUs)),
    };
  };
  return [figures(0), figures(1)];
}

type PerTarget<T> = { raw: T; parse: T; bridge: T };
const TARGETS = ["raw", "parse", "bridge"] as const;

/** Throughput of the three targets on one traffic, ROUNDS rounds interleaved, medians. */
async function throughputRounds(path: Path, mix: Mix): Promise<Throughput> {
  const runs: PerTarget<Awaited<ReturnType<typeof throughput>>[]> = { raw: [], parse: [], bridge: [] };
  for (let r = 0; r < ROUNDS; r++) for (const k of TARGETS) runs[k].push(await throughput(path[k], mix, N));
  const medians = (figure: "rate" | "firstRate" | "restRate" | "cpuUs"): PerTarget<number> => ({
    raw: median(runs.raw.map((m) => m[figure])),
    parse: median(runs.parse.map((m) => m[figure])),
    bridge: median(runs.bridge.map((m) => m[figure])),
  });
  return {
    mix,
    rates: medians("rate"),
    firstRates: medians("firstRate"),
    restRates: medians("restRate"),
    cpu: medians("cpuUs"),
  };
}

async function measure(path: Path): Promise<Row> {
  const tp = await throughputs(path);
  return { path, throughput: tp, latency: THROUGHPUT_ONLY ? undefined : await latencies(path) };
}

async function throughputs(path: Path): Promise<Throughput[]> {
  const tp: Throughput[] = [];
  for (const mix of MIXES) {
    const t = await throughputRounds(path, mix);
    tp.push(t);
    out(
      `${path.label}, ${MIX_LABEL[mix]}: ${fixed(t.rates.bridge / 1000)}k updates/s (raw relay ${fixed(t.rates.raw / 1000)}k, parse+stringify ${fixed(t.rates.parse / 1000)}k); ` +
        `CPU per update ${fixed(t.cpu.bridge, 2)} µs (raw relay ${fixed(t.cpu.raw, 2)}, parse+stringify ${fixed(t.cpu.parse, 2)}); ` +
        `first ${FIRST} updates ${fixed(t.firstRates.bridge / 1000)}k/s (${fixed(t.firstRates.raw / 1000)}k, ${fixed(t.firstRates.parse / 1000)}k)` +
        (Number.isNaN(t.restRates.bridge)
          ? ""
          : `, the rest ${fixed(t.restRates.bridge / 1000)}k/s (${fixed(t.restRates.raw / 1000)}k, ${fixed(t.restRates.parse / 1000)}k)`) +
        "\n",
    );
  }
  return tp;
}

async function latencies(path: Path): Promise<Latencies> {
  const inits = { raw: [] as number[], bridge: [] as number[] };
  const initCpu = { raw: [] as number[], bridge: [] as number[] };
  const rss = { raw: [] as number[], bridge: [] as number[] };
  // Start-up interleaved too: the machine's load drifts.
  for (let r = 0; r < PAIRED_ROUNDS; r++)
    for (const k of ["raw", "bridge"] as const) {
      const s = await start(path[k]);
      inits[k].push(s.ms);
      initCpu[k].push(s.cpuMs);
      rss[k].push(s.rssMiB);
    }
  // Latency, relay and bridge interleaved in each round (latencyPair). The budget reads the p99 of
  // all rounds' steady samples pooled: with every request of one beside one of the other, a pause
  // of the machine delays both alike, and 40,000 samples each leave one round's bad stretch a small
  // share of the tail. The noise floor (`main`: a relay against a relay) shows the scatter left.
  const lat = await latencyRounds(path.raw, path.bridge);
  return {
    p99: { raw: lat[0].p99, bridge: lat[1].p99 },
    p50: { raw: lat[0].p50, bridge: lat[1].p50 },
    coldP99: { raw: lat[0].coldP99, bridge: lat[1].coldP99 },
    reqCpu: { raw: lat[0].cpuUs, bridge: lat[1].cpuUs },
    init: { raw: median(inits.raw), bridge: median(inits.bridge) },
    initCpu: { raw: median(initCpu.raw), bridge: median(initCpu.bridge) },
    rss: { raw: median(rss.raw), bridge: median(rss.bridge) },
  };
}

/**
 * `acp-bridge serve` on a loopback port in front of the fake agent (of `env`'s mix and version):
 * the remote agent of the `--connect` row. Resolves once it listens.
 */
async function startServe(env: Record<string, string>): Promise<{ url: string; token: string; stop(): Promise<void> }> {
  const token = `bench-${process.pid}-${Date.now()}`;
  const child = spawn(
    NODE,
    [
      BRIDGE,
      "serve",
      "--listen",
      "127.0.0.1:0",
      "--token-env",
      "BENCH_TOKEN",
      "--log-level",
      "error",
      "--",
      NODE,
      AGENT,
    ],
    { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, ...env, BENCH_TOKEN: token } },
  );
  let stderr = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (d: string) => {
      stderr += d;
      const m = /(ws:\/\/[^\s)]+\/acp)/.exec(stderr);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`acp-bridge serve exited (${String(code)}): ${stderr}`)));
  });
  return {
    url,
    token,
    stop: async () => {
      child.kill("SIGTERM");
      if (child.exitCode === null) await new Promise((r) => child.once("exit", r));
    },
  };
}

/** Throughput of a v1 client → `--connect` (WebSocket) → `serve` → v2 agent on `mix`. */
async function remoteThroughput(mix: Mix): Promise<{ rate: number; cpuUs: number }> {
  const serve = await startServe({ BENCH_MIX: mix, BENCH_AGENT_VERSION: "2" });
  try {
    const target: Target = {
      name: "bridge --connect (v1 client) → serve (v2 agent)",
      clientVersion: 1,
      agentVersion: 2,
      argv: [
        NODE,
        ...NODE_ARGS,
        BRIDGE,
        "--log-level",
        "error",
        "--connect",
        serve.url,
        "--header-env",
        "Authorization=BENCH_TOKEN",
      ],
    };
    // The mix is serve's agent's (its environment): the --connect bridge only needs the token.
    return await throughput(target, mix, REMOTE_N, { BENCH_TOKEN: serve.token });
  } finally {
    await serve.stop();
  }
}

/**
 * The remote row: the same v2 agent and traffic reached over loopback WebSocket (`--connect` to
 * `serve`, which translates) and over stdio (the bridge in front of it), rounds interleaved, medians.
 */
async function remoteRow(): Promise<void> {
  out(
    "\n| path | traffic | remote over loopback WebSocket vs the bridge over stdio | updates/s: remote (stdio) | CPU per update of the --connect bridge |\n|---|---|---|---|---|\n",
  );
  for (const mix of MIXES) {
    const remote: number[] = [];
    const local: number[] = [];
    const cpu: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const m = await remoteThroughput(mix);
      remote.push(m.rate);
      cpu.push(m.cpuUs);
      local.push((await throughput(paths[0]!.bridge, mix, REMOTE_N)).rate);
    }
    out(
      `| v1 client → bridge --connect → serve → v2 agent | ${MIX_LABEL[mix]} | ${x(median(remote) / median(local))} | ${fixed(median(remote) / 1000)}k (${fixed(median(local) / 1000)}k) | ${fixed(median(cpu), 2)} µs |\n`,
    );
  }
}

async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY;
  const t0 = performance.now();
  out(
    `acp-bridge bench: ${N} updates per throughput run (the first ${FIRST} timed apart too; ${REMOTE_N} for the remote row), median of ${ROUNDS} rounds; requests at ${RATE}/s, first ${LATENCY_S} s each alone, then ${STEADY_S} s steady with relay and bridge interleaved, ${LATENCY_ROUNDS} rounds pooled; node ${process.version}; ${machine()}\n\n`,
  );
  const rows: Row[] = [];
  for (const path of paths) {
    if (only && only !== path.key) continue;
    const row = await measure(path);
    rows.push(row);
    const l = row.latency;
    if (!l) continue;
    out(
      `${path.label}: p50/p99 ${fixed(l.p50.bridge, 2)}/${fixed(l.p99.bridge, 2)} ms (relay ${fixed(l.p50.raw, 2)}/${fixed(l.p99.raw, 2)} ms), ` +
        `CPU per request ${fixed(l.reqCpu.bridge, 1)} µs (relay ${fixed(l.reqCpu.raw, 1)}), ` +
        `first ${LATENCY_S} s p99 ${fixed(l.coldP99.bridge, 2)} ms (relay ${fixed(l.coldP99.raw, 2)} ms, ${x(l.coldP99.bridge / l.coldP99.raw)})\n`,
    );
  }
  // The noise floor: the same steady windows with a second raw relay in the bridge's place (v1
  // agent); the first seconds are skipped, for time (the bench's five minutes).
  const floor =
    only === "none" || only === "remote" || THROUGHPUT_ONLY
      ? undefined
      : await latencyRounds(paths[2]!.raw, paths[2]!.raw, false);
  if (floor)
    out(
      `noise floor: raw relay against a second raw relay, same rounds: p50/p99 ${fixed(floor[1].p50, 2)}/${fixed(floor[1].p99, 2)} ms against ${fixed(floor[0].p50, 2)}/${fixed(floor[0].p99, 2)} ms, ${x(floor[1].p99 / floor[0].p99)}\n`,
    );
  // Throughput per traffic (each row against the relays of the same run and traffic).
  if (rows.length > 0)
    out(
      `\n| path | traffic | throughput vs raw line relay | vs parse+stringify relay | first ${FIRST} updates vs raw / parse+stringify | after the first ${FIRST} vs raw / parse+stringify | CPU per update vs raw relay | updates/s: bridge (raw relay, parse+stringify) |\n|---|---|---|---|---|---|---|---|\n`,
    );
  for (const r of rows)
    for (const t of r.throughput)
      out(
        `| ${r.path.label} | ${MIX_LABEL[t.mix]} | ${x(t.rates.bridge / t.rates.raw)} | ${x(t.rates.bridge / t.rates.parse)} | ` +
          `${x(t.firstRates.bridge / t.firstRates.raw)} / ${x(t.firstRates.bridge / t.firstRates.parse)} | ` +
          `${Number.isNaN(t.restRates.bridge) ? "–" : `${x(t.restRates.bridge / t.restRates.raw)} / ${x(t.restRates.bridge / t.restRates.parse)}`} | ${x(t.cpu.bridge / t.cpu.raw)} | ${fixed(t.rates.bridge / 1000)}k (${fixed(t.rates.raw / 1000)}k, ${fixed(t.rates.parse / 1000)}k) |\n`,
      );
  // Requests and start-up: no flood, so no traffic.
  if (!THROUGHPUT_ONLY && rows.length > 0) {
    out(
      `\n| path | request p99 at ${RATE}/s vs raw relay | spawn → \`initialize\` answered | RSS at start |\n|---|---|---|---|\n`,
    );
    for (const r of rows)
      if (r.latency)
        out(
          `| ${r.path.label} | ${x(r.latency.p99.bridge / r.latency.p99.raw)} | ${fixed(r.latency.init.bridge)} ms (relay ${fixed(r.latency.init.raw)} ms), ` +
            `CPU ${fixed(r.latency.initCpu.bridge)} ms (relay ${fixed(r.latency.initCpu.raw)}) | ` +
            `${fixed(r.latency.rss.bridge)} MiB (relay ${fixed(r.latency.rss.raw)}) |\n`,
        );
  }
  out("\n");
  if (SLOW_UPDATES > 0 && !THROUGHPUT_ONLY && only !== "remote")
    for (const mix of SLOW_MIXES) {
      // The raw relay's growth under the same load is node's own share (young generation, buffers).
      const relayGrowth = await slowClient(paths[0]!.raw, SLOW_UPDATES, mix);
      // `BENCH_ONLY=none`: the slow client alone, on every path.
      for (const path of paths) {
        if (only && only !== "none" && only !== path.key) continue;
        const slow = await slowClient(path.bridge, SLOW_UPDATES, mix);
        out(
          `slow client (${path.label}, ${MIX_LABEL[mix]}): bridge RSS grew ${slow.growthMiB.toFixed(1)} MiB over ${SLOW_UPDATES} updates (${(slow.ms / 1000).toFixed(1)} s); raw relay ${relayGrowth.growthMiB.toFixed(1)} MiB\n`,
        );
      }
    }
  if (process.env.BENCH_REMOTE !== "0" && (only === undefined || only === "remote")) await remoteRow();
  const [version = NaN, nodeFloor = NaN] = startupMs([BRIDGE, "--version"], ["-e", "0"]);
  out(`start-up: acp-bridge --version ${fixed(version)} ms (node -e 0: ${fixed(nodeFloor)} ms, alternated)\n`);
  out(`bench took ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
}

await main();
