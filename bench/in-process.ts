// `node dist/bench/in-process.js [a|b|pass] [own|real|replay] [--rounds R] [--lines N] [--warm W] [--chunks]
// [--only REGEX] [--pool P] [--each] [--bridge-only] [--per-kind] [--writer] [--full-path]`: the bridge's own cost per agent line, without pipes, processes
// or the other peers: one Bridge in this process, handshaken with a v1 client and a v2 agent (a), a
// v2 client and a v1 agent (b) or a v1 client and a v1 agent (pass: pass-through), fed the agent side of a traffic (bench/traffic/: the bench's own mix,
// the real-derived mix or the replay of recorded turns; `--chunks`: its message and thought chunks
// alone; `--only`: its lines the expression matches, to profile one kind), against `JSON.stringify(JSON.parse(line))` of the same lines. Medians of R rounds of N lines
// after W lines of warm-up (V8 has optimized the hot paths by then: the throughput runs of `npm run
// bench` include that warm-up, this does not), each round going on through the pool where the last
// stopped. The pool holds P lines (20,000 by default; its tool-call and message ids repeat after that,
// which a throughput run's never do: `--pool 400000` for a cold run as `npm run bench` has it), and
// is read as a pipe delivers it, in chunks of about 64 KiB, each copied afresh. `--each` prints every
// round; `--bridge-only` leaves out the parse+stringify rounds (for instruction counts under
// callgrind: the process's cost is then the bridge's and the pool's); `--per-kind` then runs one more
// round with each line timed alone, and prints the time of each kind of update (bench/per-kind.ts)
// for the bridge and for parse+stringify, with the share of each kind's lines no fast path took, and
// the lines and time of the fast paths against the full path's; `--full-path` clears the bridge's fast
// paths, so every line takes the full path (what a fast path saves, kind by kind); `--writer` sends what the bridge writes to the client
// through a LineWriter to a stream that discards it, flushed after each chunk as the pump flushes
// (to weigh a change to the writer: parse+stringify writes nothing). What each line costs the bridge,
// not the machine's pipes: the figures the fast paths are tuned by (docs/performance.md).
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Writable } from "node:stream";
import { Bridge } from "../src/engine/bridge.js";
import { LineWriter } from "../src/wire/writer.js";
import { createBridgeConfig } from "../src/engine/config.js";
import { createLogger } from "../src/log.js";
import { parseCorpus } from "./traffic/corpus.js";
import { ownUpdateLine } from "./traffic/own-mix.js";
import { Flood, realTurns, replayTurns, type Mix } from "./traffic/pool.js";
import { KindTimes, lineKind } from "./per-kind.js";
import { machine } from "./machine.js";

const args = process.argv.slice(2);
const opt = (name: string, fallback: number): number => {
  const i = args.indexOf(name);
  return i === -1 ? fallback : Number(args[i + 1]);
};
const direction = args[0] === "b" ? "b" : args[0] === "pass" ? "pass" : "a";
const mix = (["own", "real", "replay"].includes(args[1] ?? "") ? args[1] : "real") as Mix;
const ROUNDS = opt("--rounds", 5);
const LINES = opt("--lines", 300_000);
const WARM = opt("--warm", 50_000);
/** The lines `--chunks` keeps: an agent's message and thought chunks. */
const CHUNK_LINES = /"sessionUpdate":"(agent_message|agent_thought)_chunk"/;
/** Only the pool's lines an expression matches: `--only REGEX` (`'"type":"diff"'`, to profile one kind), or `--chunks`. */
const ONLY = args.includes("--only")
  ? new RegExp(args[args.indexOf("--only") + 1] ?? "")
  : args.includes("--chunks")
    ? CHUNK_LINES
    : undefined;
/** Lines in the cycled pool: ids repeat after this many (the throughput runs never repeat one). */
const POOL = opt("--pool", 20_000);
/** Print each round's figure as it ends (how the cost moves while V8 warms up). */
const EACH = args.includes("--each");
/** No parse+stringify rounds: the process's whole cost is the bridge's (instruction counts under callgrind). */
const BRIDGE_ONLY = args.includes("--bridge-only");
/**
 * The client's lines through a LineWriter to a stream that discards them, flushed per chunk. Each
 * write completes at once, its callback called then: a pipe's write is usually done before the
 * next read (a Writable would defer the callback to a tick this synchronous loop never yields to).
 */
const WRITER = args.includes("--writer") ? new LineWriter(discarding()) : undefined;

function discarding(): Writable {
  const stream = new Writable();
  stream.write = (_chunk: unknown, done?: unknown) => {
    if (typeof done === "function") (done as () => void)();
    return true;
  };
  return stream;
}
/** One more round, each line timed alone, summed per kind of update (its figures are not the medians'). */
const PER_KIND = args.includes("--per-kind");
/** The agent's version: v2 behind a v1 client (a), v1 behind a v2 client (b) or a v1 client (pass). */
const agentVersion = direction === "a" ? 2 : 1;
const SESSION = "bench";

/** The traffic's agent lines (a pool cycled through), without their newline. */
function pool(): Buffer[] {
  const out: Buffer[] = [];
  const take = (line: string) => {
    if (ONLY && !ONLY.test(line)) return;
    out.push(Buffer.from(line.endsWith("\n") ? line.slice(0, -1) : line));
  };
  if (mix === "own")
    for (let i = 0; out.length < POOL && i < 10 * POOL; i++) take(ownUpdateLine(i, SESSION, agentVersion, 10));
  else {
    const corpus = parseCorpus(corpusText());
    const flood = new Flood(mix === "real" ? realTurns(corpus, SESSION) : replayTurns(corpus, SESSION));
    for (let i = 0; out.length < POOL && i < 20 * POOL; i++) take(flood.next());
  }
  if (out.length === 0) throw new Error(`no lines in the ${mix} mix`);
  return out;
}

/** The corpus beside this file when run from source, under ../../bench when built (as bench/fake-agent.ts). */
function corpusText(): string {
  for (const rel of [
    `./traffic/corpus-v${agentVersion}.ndjson`,
    `../../bench/traffic/corpus-v${agentVersion}.ndjson`,
  ]) {
    const path = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(path)) return readFileSync(path, "utf8");
  }
  throw new Error(`corpus-v${agentVersion}.ndjson not found`);
}

/** A bridge past the handshake, a session open and a turn running; what it writes is counted, not kept. */
async function bridge(): Promise<Bridge> {
  let toAgent: string[] = [];
  const config = createBridgeConfig(
    { agentProtocol: "auto", clientProtocol: "auto", mcpUnsupported: "reject", editorTools: "off" },
    createLogger("silent", () => undefined),
  );
  const b = new Bridge(config, WRITER ?? { push: () => undefined }, {
    push: (l) => void toAgent.push(String(l)),
  });
  const settle = () => new Promise((r) => setImmediate(r));
  const send = (side: "client" | "agent", m: unknown) => {
    const line = Buffer.from(JSON.stringify(m));
    if (side === "client") b.clientLine(line);
    else b.agentLine(line);
  };
  /** Answer what the bridge asked the agent since the last call. */
  const answer = (reply: (m: { id: number; method: string; params: Record<string, unknown> }) => unknown) => {
    const asked = toAgent.flatMap((l) => l.split("\n")).filter(Boolean);
    toAgent = [];
    for (const l of asked) {
      const m = JSON.parse(l) as { id?: number; method?: string; params: Record<string, unknown> };
      if (m.id === undefined || m.method === undefined) continue;
      const result = reply(m as { id: number; method: string; params: Record<string, unknown> });
      if (result !== undefined) send("agent", result);
    }
  };
  const init =
    direction === "b" ? { protocolVersion: 2, capabilities: {} } : { protocolVersion: 1, clientCapabilities: {} };
  send("client", { jsonrpc: "2.0", id: 0, method: "initialize", params: init });
  for (let i = 0; i < 3; i++) {
    await settle();
    answer((m) => {
      if (m.method !== "initialize") return undefined;
      if (agentVersion === 1)
        return {
          jsonrpc: "2.0",
          id: m.id,
          result: { protocolVersion: 1, agentCapabilities: { loadSession: true }, authMethods: [] },
        };
      if (m.params.protocolVersion !== 2)
        return {
          jsonrpc: "2.0",
          id: m.id,
          error: { code: -32022, message: "v2", data: { requested: 1, supported: [2] } },
        };
      return {
        jsonrpc: "2.0",
        id: m.id,
        result: {
          protocolVersion: 2,
          info: { name: "bench", version: "1" },
          capabilities: { session: {} },
          authMethods: [],
        },
      };
    });
  }
  send("client", { jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/tmp", mcpServers: [] } });
  await settle();
  answer((m) =>
    m.method === "session/new" ? { jsonrpc: "2.0", id: m.id, result: { sessionId: SESSION } } : undefined,
  );
  await settle();
  send("client", {
    jsonrpc: "2.0",
    id: 2,
    method: "session/prompt",
    params: { sessionId: SESSION, prompt: [{ type: "text", text: "go" }] },
  });
  await settle();
  // A v2 agent acknowledges the prompt and runs the turn; a v1 agent's turn runs until it answers.
  answer((m) =>
    m.method === "session/prompt" && agentVersion === 2
      ? { jsonrpc: "2.0", id: m.id, result: { messageId: "u-1" } }
      : undefined,
  );
  if (agentVersion === 2)
    send("agent", {
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId: SESSION, update: { sessionUpdate: "state_update", state: "running" } },
    });
  await settle();
  return b;
}

function median(xs: number[]): number {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

const lines = pool();
const b = await bridge();
// `--full-path`: every line through the full path (the fast paths' field cleared), to weigh what a
// fast path saves, kind by kind.
if (args.includes("--full-path")) (b as unknown as { fast: unknown }).fast = undefined;
// The pool as a pipe delivers it: chunks of about 64 KiB, each copied afresh when its first line is
// read (a read's bytes are in the cache, as the pump's are: a pool of megabytes read from memory would
// charge the first scan of each line a cache miss no bridge pays), its lines views of the copy.
const CHUNK_BYTES = 64 * 1024;
const all = Buffer.concat(lines.flatMap((l) => [l, Buffer.from("\n")]));
const lineStart: number[] = [];
const chunkOf: number[] = [];
const chunkStart: number[] = [];
const chunkEnd: number[] = [];
for (let k = 0, offset = 0; k < lines.length; offset += (lines[k] as Buffer).length + 1, k++) {
  if (chunkStart.length === 0 || offset + (lines[k] as Buffer).length + 1 - (chunkStart.at(-1) ?? 0) > CHUNK_BYTES) {
    if (chunkStart.length > 0) chunkEnd.push(offset);
    chunkStart.push(offset);
  }
  lineStart.push(offset);
  chunkOf.push(chunkStart.length - 1);
}
chunkEnd.push(all.length);
let chunk = Buffer.alloc(0);
let current = -1;
const at = (i: number): Buffer => {
  const k = i % lines.length;
  const c = chunkOf[k] as number;
  const from = chunkStart[c] as number;
  if (c !== current) {
    // The pump's flush after each read, and its hold for the next.
    WRITER?.flush();
    WRITER?.hold();
    chunk = Buffer.allocUnsafe((chunkEnd[c] as number) - from);
    all.copy(chunk, 0, from, chunkEnd[c]);
    current = c;
  }
  const start = (lineStart[k] as number) - from;
  return chunk.subarray(start, start + (lines[k] as Buffer).length);
};
// One position through the pool for warm-up and rounds alike: a round goes on where the last stopped.
let pos = 0;
for (let i = 0; i < WARM; i++) b.agentLine(at(pos++));
const bridgeUs: number[] = [];
const relayUs: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  let t = process.hrtime.bigint();
  const from = pos;
  for (let i = 0; i < LINES; i++) b.agentLine(at(pos++));
  bridgeUs.push(Number(process.hrtime.bigint() - t) / LINES / 1000);
  if (EACH) process.stderr.write(`round ${r}: ${bridgeUs[r]!.toFixed(2)} µs\n`);
  t = process.hrtime.bigint();
  if (!BRIDGE_ONLY)
    for (let i = 0; i < LINES; i++) Buffer.from(JSON.stringify(JSON.parse(at(from + i).toString("utf8"))));
  relayUs.push(Number(process.hrtime.bigint() - t) / LINES / 1000);
}
// Each line timed alone carries the clock's own cost (tens of ns), on both sides alike; the two
// sides run in passes of their own, as in the rounds, so each one's garbage is collected in its own.
let perKind = "";
if (PER_KIND) {
  const kinds = lines.map((l) => lineKind(l.toString("utf8")));
  const bridgeNs = new Float64Array(LINES);
  const relayNs = new Float64Array(LINES);
  const full = new Uint8Array(LINES);
  // Which lines a fast path declined (the full path then parsed them): the bridge's private field
  // wrapped, for this diagnostic round only (the rounds above ran it as the product does).
  const held = b as unknown as { fast: ((from: unknown, line: Buffer) => boolean) | undefined };
  const fast = held.fast;
  let took = false;
  if (fast !== undefined)
    held.fast = (from, line) => {
      took = fast(from, line);
      return took;
    };
  const from = pos;
  for (let i = 0; i < LINES; i++) {
    const line = at(pos++);
    took = false;
    const t = process.hrtime.bigint();
    b.agentLine(line);
    bridgeNs[i] = Number(process.hrtime.bigint() - t);
    full[i] = took ? 0 : 1;
  }
  held.fast = fast;
  for (let i = 0; i < LINES; i++) {
    const line = at(from + i);
    const t = process.hrtime.bigint();
    Buffer.from(JSON.stringify(JSON.parse(line.toString("utf8"))));
    relayNs[i] = Number(process.hrtime.bigint() - t);
  }
  const times = new KindTimes();
  for (let i = 0; i < LINES; i++)
    times.add(kinds[(from + i) % lines.length] ?? "", bridgeNs[i] ?? 0, relayNs[i] ?? 0, full[i] === 1);
  // A pool read past its end names its tool calls and messages again: a message id seen before is
  // a re-sent message (the full path's upsert), which no throughput run sends.
  const wrapped =
    pos > lines.length
      ? ` (the pool of ${lines.length} lines was read ${(pos / lines.length).toFixed(1)} times: its ids repeat, as no ` +
        `throughput run's do; --pool above ${pos} for fresh ones)`
      : "";
  perKind = `\nper kind, one more round of ${LINES} lines, each timed alone${wrapped}:\n\n${times.table()}\n${times.paths()}`;
}
const path = {
  a: "v1 client → bridge → v2 agent",
  b: "v2 client → bridge → v1 agent",
  pass: "v1 client → bridge → v1 agent (pass-through)",
}[direction];
const traffic = { own: "bench's own mix", real: "real-derived mix", replay: "replay of recorded turns" }[mix];
process.stdout.write(
  `${path}, ${traffic}${ONLY === CHUNK_LINES ? " (its chunks alone)" : ONLY ? ` (its lines matching ${String(ONLY)} alone)` : ""}, in process: bridge ${median(bridgeUs).toFixed(2)} µs a line, ` +
    `parse+stringify ${median(relayUs).toFixed(2)} µs (medians of ${ROUNDS} rounds of ${LINES} lines after ${WARM} of warm-up; ` +
    `rounds ${bridgeUs.map((x) => x.toFixed(2)).join(" ")}); node ${process.version}; ${machine()}\n${perKind}`,
);
