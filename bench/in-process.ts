// `node dist/bench/in-process.js [a|b] [own|real|replay] [--rounds R] [--lines N] [--warm W] [--chunks]`:
// the bridge's own cost per agent line, without pipes, processes or the other peers: one Bridge in
// this process, handshaken with a v1 client and a v2 agent (a) or a v2 client and a v1 agent (b),
// fed the agent side of a traffic (bench/traffic/: the bench's own mix, the real-derived mix or the
// replay of recorded turns; `--chunks`: its message and thought chunks alone), against
// `JSON.stringify(JSON.parse(line))` of the same lines. Medians of R rounds of N lines after W
// lines of warm-up (V8 has optimized the hot paths by then: the throughput runs of `npm run bench`
// include that warm-up, this does not). What each line costs the bridge, not the machine's pipes:
// the figures the fast paths are tuned by (docs/performance.md).
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Bridge } from "../src/engine/bridge.js";
import { createBridgeConfig } from "../src/engine/config.js";
import { createLogger } from "../src/log.js";
import { parseCorpus } from "./traffic/corpus.js";
import { ownUpdateLine } from "./traffic/own-mix.js";
import { Flood, realTurns, replayTurns, type Mix } from "./traffic/pool.js";

const args = process.argv.slice(2);
const opt = (name: string, fallback: number): number => {
  const i = args.indexOf(name);
  return i === -1 ? fallback : Number(args[i + 1]);
};
const direction = args[0] === "b" ? "b" : "a";
const mix = (["own", "real", "replay"].includes(args[1] ?? "") ? args[1] : "real") as Mix;
const ROUNDS = opt("--rounds", 5);
const LINES = opt("--lines", 300_000);
const WARM = opt("--warm", 50_000);
const CHUNKS = args.includes("--chunks");
/** The agent's version: v2 behind a v1 client (a), v1 behind a v2 client (b). */
const agentVersion = direction === "a" ? 2 : 1;
const SESSION = "bench";

/** The traffic's agent lines (a pool cycled through), without their newline. */
function pool(): Buffer[] {
  const out: Buffer[] = [];
  const take = (line: string) => {
    if (CHUNKS && !/"sessionUpdate":"(agent_message|agent_thought)_chunk"/.test(line)) return;
    out.push(Buffer.from(line.endsWith("\n") ? line.slice(0, -1) : line));
  };
  if (mix === "own")
    for (let i = 0; out.length < 20_000 && i < 200_000; i++) take(ownUpdateLine(i, SESSION, agentVersion, 10));
  else {
    const corpus = parseCorpus(corpusText());
    const flood = new Flood(mix === "real" ? realTurns(corpus, SESSION) : replayTurns(corpus, SESSION));
    for (let i = 0; out.length < 20_000 && i < 400_000; i++) take(flood.next());
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
  const b = new Bridge(config, { push: () => undefined }, { push: (l) => void toAgent.push(String(l)) });
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
    direction === "a" ? { protocolVersion: 1, clientCapabilities: {} } : { protocolVersion: 2, capabilities: {} };
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
const at = (i: number): Buffer => lines[i % lines.length] as Buffer;
for (let i = 0; i < WARM; i++) b.agentLine(at(i));
const bridgeUs: number[] = [];
const relayUs: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  let t = process.hrtime.bigint();
  for (let i = 0; i < LINES; i++) b.agentLine(at(i));
  bridgeUs.push(Number(process.hrtime.bigint() - t) / LINES / 1000);
  t = process.hrtime.bigint();
  for (let i = 0; i < LINES; i++) Buffer.from(JSON.stringify(JSON.parse(at(i).toString("utf8"))));
  relayUs.push(Number(process.hrtime.bigint() - t) / LINES / 1000);
}
const path = direction === "a" ? "v1 client → bridge → v2 agent" : "v2 client → bridge → v1 agent";
const traffic = { own: "bench's own mix", real: "real-derived mix", replay: "replay of recorded turns" }[mix];
process.stdout.write(
  `${path}, ${traffic}${CHUNKS ? " (its chunks alone)" : ""}, in process: bridge ${median(bridgeUs).toFixed(2)} µs a line, ` +
    `parse+stringify ${median(relayUs).toFixed(2)} µs (medians of ${ROUNDS} rounds of ${LINES} lines after ${WARM} of warm-up; ` +
    `rounds ${bridgeUs.map((x) => x.toFixed(2)).join(" ")}); node ${process.version}\n`,
);
