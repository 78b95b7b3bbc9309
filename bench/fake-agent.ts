// A minimal scripted agent for the benchmark: v2 or v1, answers the handshake and session/new; on
// a prompt it writes N session/update lines (a realistic mix, ~270 bytes each) as fast as its
// stdout drains, then ends the turn. Pings (`_bench/ping`) are answered at once.
import { createInterface } from "node:readline";

const version = Number(process.env.BENCH_AGENT_VERSION ?? 2);
/** Lines per tool call id: two of every ten lines update the current one (10: a tool call per 10 lines). */
const TOOL_SPAN = Number(process.env.BENCH_TOOL_SPAN ?? 20);
const out = process.stdout;

function send(msg: unknown): boolean {
  return out.write(JSON.stringify(msg) + "\n");
}

function updateLine(i: number, sessionId: string): string {
  const kind = i % 10;
  let update: unknown;
  if (kind < 7) {
    update = {
      sessionUpdate: "agent_message_chunk",
      ...(version === 2 || i % 2 === 0 ? { messageId: `m-${Math.floor(i / 50)}` } : {}),
      content: {
        type: "text",
        text: `chunk ${i}: the quick brown fox jumps over the lazy dog, streaming tokens to the editor. `,
      },
    };
  } else if (kind < 9) {
    update = {
      sessionUpdate: "tool_call_update",
      toolCallId: `t-${Math.floor(i / TOOL_SPAN)}`,
      status: "in_progress",
      title: `Read file src/module-${i % 97}.ts`,
    };
  } else {
    update = {
      sessionUpdate: "agent_thought_chunk",
      messageId: `th-${Math.floor(i / 50)}`,
      content: { type: "text", text: "considering the next step of the plan" },
    };
  }
  return JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId, update } }) + "\n";
}

async function flood(n: number, sessionId: string): Promise<void> {
  const batch = 256;
  for (let i = 0; i < n; i += batch) {
    let chunk = "";
    for (let j = i; j < Math.min(n, i + batch); j++) chunk += updateLine(j, sessionId);
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
