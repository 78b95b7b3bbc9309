// Conversation setup on the in-memory bridge for direction B (v2 client, v1 agent): the handshake,
// session creation, and a log of everything the bridge writes to either side in one global order
// (the order between the two sides matters: `running` before a relayed answer, held prompts after
// the idle).
import type { BridgeOptions } from "../../src/engine/config.js";
import { harness, type Harness } from "./harness.js";

/** What a v1 agent offers that direction B's conversations use: `session/load` (replay). */
const V1_AGENT_CAPS = { loadSession: true, promptCapabilities: { image: true } };

/** The v1 modes every conversation session starts with (a mode config option for the v2 client). */
export const V1_MODES = {
  currentModeId: "ask",
  availableModes: [
    { id: "ask", name: "Ask" },
    { id: "code", name: "Code" },
    { id: "architect", name: "Architect" },
  ],
};

export interface Sent {
  readonly to: "client" | "agent";
  readonly msg: any;
}

export interface OrderedHarness extends Harness {
  /** Everything written to either side since the last call, in the order the bridge wrote it. */
  takeOrdered(): Sent[];
}

function fail(what: string, got: unknown): never {
  throw new Error(`${what}: ${JSON.stringify(got)}`);
}

/** Record every message in write order; the harness queues are still drained for its schema checks. */
function ordered(h: Harness): OrderedHarness {
  const log: Sent[] = [];
  const record = (to: "client" | "agent") => (msg: unknown) => {
    log.push({ to, msg: JSON.parse(JSON.stringify(msg)) });
    return false;
  };
  h.bridge.client.intercept = record("client");
  h.bridge.agent.intercept = record("agent");
  return Object.assign(h, {
    takeOrdered(): Sent[] {
      h.takeClient();
      h.takeAgent();
      return log.splice(0);
    },
  });
}

/**
 * A v2 client connected through the bridge to a v1 agent: the agent answers the v2 probe with its
 * own version (the v1 rule), then the v1 re-initialize. Handshake traffic is taken off both sides.
 */
export async function connectB(
  options: Partial<BridgeOptions> = {},
  agentCaps: Record<string, unknown> = V1_AGENT_CAPS,
): Promise<OrderedHarness> {
  const h = harness({ ackGraceMs: 0, ...options });
  h.client({
    jsonrpc: "2.0",
    id: "init",
    method: "initialize",
    params: { protocolVersion: 2, info: { name: "zed", version: "1" }, capabilities: {} },
  });
  await h.settle();
  const [probe2] = h.takeAgent();
  if (probe2?.params?.protocolVersion !== 2) fail("expected a v2 probe", probe2);
  h.agent({ jsonrpc: "2.0", id: probe2.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
  await h.settle();
  const [probe1] = h.takeAgent();
  if (probe1?.params?.protocolVersion !== 1) fail("expected the v1 re-initialize", probe1);
  h.agent({
    jsonrpc: "2.0",
    id: probe1.id,
    result: { protocolVersion: 1, agentCapabilities: agentCaps, authMethods: [] },
  });
  await h.settle();
  const [init] = h.takeClient();
  if (init?.id !== "init" || init.result?.protocolVersion !== 2) fail("expected the v2 initialize result", init);
  if (h.bridge.mode !== "B") fail("expected direction B", h.bridge.mode);
  return ordered(h);
}

/** `session/new` from the v2 client, answered by the v1 agent with `sessionId` and modes; returns the v2 result. */
export async function openSessionB(
  h: OrderedHarness,
  sessionId: string,
  result: Record<string, unknown> = { modes: V1_MODES },
): Promise<any> {
  const id = `new-${sessionId}`;
  h.client({ jsonrpc: "2.0", id, method: "session/new", params: { cwd: "/w" } });
  const [req] = h.takeOrdered();
  if (req?.to !== "agent" || req.msg.method !== "session/new") fail("expected session/new at the agent", req);
  h.agent({ jsonrpc: "2.0", id: req.msg.id, result: { sessionId, ...result } });
  await h.settle();
  const out = h.takeOrdered();
  const answer = out[0]?.msg;
  if (out.length !== 1 || answer?.id !== id || answer.result?.sessionId !== sessionId)
    fail("expected the session/new result", out);
  return answer.result;
}

/** A v1 `session/update` notification of `sessionId`. */
export function v1Update(sessionId: string, update: Record<string, unknown>): Record<string, unknown> {
  return { jsonrpc: "2.0", method: "session/update", params: { sessionId, update } };
}
