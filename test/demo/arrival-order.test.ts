// The demo agents must handle inbound messages in wire order. The SDK's connection awaits each
// registered handler in turn, so of two messages read together, the one whose method was registered
// earlier can start first; `inArrivalOrder` hands the SDK one message per macrotask.
import { describe, expect, it } from "vitest";
import * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { demoAgentV2 } from "../../src/demo/agent-v2.js";
import { inArrivalOrder } from "../../src/demo/stdio.js";

type Message = Record<string, unknown>;

function loopback(wrap: boolean) {
  let push!: (m: Message) => void;
  const readable = new ReadableStream<Message>({
    start(controller) {
      push = (m) => controller.enqueue(m);
    },
  });
  const waiters = new Map<number, (m: Message) => void>();
  const writable = new WritableStream<Message>({
    write(m) {
      if (typeof m.id === "number" && !("method" in m)) waiters.get(m.id)?.(m);
    },
  });
  const stream = { readable, writable };
  const app = demoAgentV2({ requireAuth: false, v1Full: false, slowMs: 60_000 });
  const connection = app.connect((wrap ? inArrivalOrder(stream) : stream) as unknown as v2.Stream);
  let next = 1;
  const send = (method: string, params: unknown): Promise<Message> => {
    const id = next++;
    const answer = new Promise<Message>((resolve) => waiters.set(id, resolve));
    push({ jsonrpc: "2.0", id, method, params });
    return answer;
  };
  return { send, connection };
}

async function closeOvertakes(wrap: boolean): Promise<Message> {
  const { send } = loopback(wrap);
  await send("initialize", { protocolVersion: v2.PROTOCOL_VERSION, info: { name: "order-test", version: "0" } });
  const created = await send("session/new", { cwd: "/tmp", mcpServers: [] });
  const sessionId = (created.result as { sessionId: string }).sessionId;
  await send("session/prompt", { sessionId, prompt: [{ type: "text", text: "[slow]" }] });
  // Both enqueued before the agent reads either: the held prompt is first on the wire.
  const held = send("session/prompt", { sessionId, prompt: [{ type: "text", text: "[chunks]" }] });
  const closed = send("session/close", { sessionId });
  expect(await closed).toMatchObject({ result: {} });
  return held;
}

describe("demo agent inbound order", () => {
  it("answers a prompt held before session/close -32800, as sent first", async () => {
    expect(await closeOvertakes(true)).toMatchObject({ error: { code: -32800 } });
  });

  it("(the race it guards against) without the wrapper, close overtakes the prompt and the prompt sees no session", async () => {
    // Pins the SDK behaviour the wrapper exists for; if an SDK update makes this fail, the wrapper may go.
    expect(await closeOvertakes(false)).toMatchObject({ error: { code: -32002 } });
  });
});
