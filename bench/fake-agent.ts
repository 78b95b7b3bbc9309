// A minimal scripted agent for the benchmark: v2 or v1, answers the handshake and session/new; on
// a prompt it writes N session/update lines of the traffic BENCH_MIX names as fast as its stdout
// drains, then ends the turn. Pings (`_bench/ping`) are answered at once. Traffic (bench/traffic/):
// `own`, the bench's own mix (~270 bytes a line: 70% message chunks of one ASCII sentence, 20%
// status-only tool-call updates, 10% thoughts); `real`, the synthetic mix derived from the recorded
// turns (real-mix.ts); `replay`, the recorded agent-side updates of the agent's version as they are
// (corpus-v1/v2.ndjson), ids renamed per replayed turn.
import { existsSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseCorpus } from "./traffic/corpus.js";
import { ownUpdateLine } from "./traffic/own-mix.js";
import { Flood, realTurns, replayTurns, type Mix } from "./traffic/pool.js";

const version = Number(process.env.BENCH_AGENT_VERSION ?? 2);
/** Lines per tool call id: two of every ten lines update the current one (10: a tool call per 10 lines). */
const TOOL_SPAN = Number(process.env.BENCH_TOOL_SPAN ?? 20);
const MIX = (process.env.BENCH_MIX ?? "own") as Mix;
const out = process.stdout;

function send(msg: unknown): boolean {
  return out.write(JSON.stringify(msg) + "\n");
}

/** The corpus sits beside this file when run from source (tsx), under ../../bench when built. */
function corpusText(): string {
  for (const rel of [`./traffic/corpus-v${version}.ndjson`, `../../bench/traffic/corpus-v${version}.ndjson`]) {
    const path = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(path)) return readFileSync(path, "utf8");
  }
  throw new Error(`corpus-v${version}.ndjson not found`);
}

/** Built once: the corpus mixes render each line from precompiled templates (the agent must not be the bottleneck). */
const corpusFlood =
  MIX === "own"
    ? undefined
    : new Flood(
        MIX === "real"
          ? realTurns(parseCorpus(corpusText()), "bench")
          : replayTurns(parseCorpus(corpusText()), "bench"),
      );
/** The i-th line of this turn's flood (the own mix restarts its ids each turn, as it always did). */
const nextLine = (i: number, sessionId: string): string =>
  corpusFlood ? corpusFlood.next() : ownUpdateLine(i, sessionId, version, TOOL_SPAN);

async function flood(n: number, sessionId: string): Promise<void> {
  const batch = 256;
  for (let i = 0; i < n; i += batch) {
    let chunk = "";
    for (let j = i; j < Math.min(n, i + batch); j++) chunk += nextLine(j, sessionId);
    if (!out.write(chunk)) await new Promise((r) => out.once("drain", r));
  }
}

const rl = createInterface({ input: process.stdin });
rl.on("line", (line) => {
  const msg = JSON.parse(line) as { id?: number; method?: string; params?: Record<string, unknown> };
  if (msg.method === "initialize") {
    const requested = msg.params?.protocolVersion;
    if (version === 2 && requested !== 2) {
      send({
        jsonrpc: "2.0",
        id: msg.id,
        error: { code: -32022, message: "Unsupported protocol version", data: { requested, supported: [2] } },
      });
      return;
    }
    send({
      jsonrpc: "2.0",
      id: msg.id,
      result:
        version === 2
          ? {
              protocolVersion: 2,
              info: { name: "bench", version: "1" },
              capabilities: { session: { mcp: { stdio: {} } } },
              authMethods: [],
            }
          : { protocolVersion: 1, agentCapabilities: { loadSession: true }, authMethods: [] },
    });
  } else if (msg.method === "session/new") {
    send({ jsonrpc: "2.0", id: msg.id, result: { sessionId: "bench" } });
  } else if (msg.method === "session/prompt") {
    const n = Number((msg.params?.prompt as { text: string }[])[0]?.text ?? 0);
    void (async () => {
      if (version === 2) {
        send({ jsonrpc: "2.0", id: msg.id, result: { messageId: "u-1" } });
        send({
          jsonrpc: "2.0",
          method: "session/update",
          params: { sessionId: "bench", update: { sessionUpdate: "state_update", state: "running" } },
        });
      }
      await flood(n, "bench");
      if (version === 2)
        send({
          jsonrpc: "2.0",
          method: "session/update",
          params: {
            sessionId: "bench",
            update: { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" },
          },
        });
      else send({ jsonrpc: "2.0", id: msg.id, result: { stopReason: "end_turn" } });
    })();
  } else if (msg.method === "_bench/ping") {
    send({ jsonrpc: "2.0", id: msg.id, result: {} });
  }
});
