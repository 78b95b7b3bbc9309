// Conversation setup on the in-memory bridge for direction A (v1 client, v2 agent): the handshake
// and session creation every conversation test starts with (the pattern of test/engine/direction-a).
import type { BridgeOptions } from "../../src/engine/config.js";
import { harness, type Harness } from "./harness.js";

/** A plain v1 client: no notices, compaction, boolean options or bridge marker. */
const PLAIN_V1_CLIENT_CAPS = { fs: { readTextFile: true, writeTextFile: true }, terminal: true };

const V2_AGENT_CAPS = {
  session: { prompt: { image: {} }, mcp: { stdio: {}, http: {} }, delete: {}, additionalDirectories: {} },
};

function fail(what: string, got: unknown): never {
  throw new Error(`${what}: ${JSON.stringify(got)}`);
}

/**
 * A v1 client connected through the bridge to a v2-only agent (which answers the v1 probe -32022),
 * with the handshake traffic already taken off both sides.
 */
export async function connectA(
  options: Partial<BridgeOptions> = {},
  clientCaps: Record<string, unknown> = PLAIN_V1_CLIENT_CAPS,
): Promise<Harness> {
  const h = harness(options);
  h.client({
    jsonrpc: "2.0",
    id: "init",
    method: "initialize",
    params: { protocolVersion: 1, clientCapabilities: clientCaps },
  });
  await h.settle();
  const [probe1] = h.takeAgent();
  if (probe1?.params?.protocolVersion !== 1) fail("expected a v1 probe", probe1);
  h.agent({
    jsonrpc: "2.0",
    id: probe1.id,
    error: { code: -32022, message: "Unsupported protocol version", data: { requested: 1, supported: [2] } },
  });
  await h.settle();
  const [probe2] = h.takeAgent();
  if (probe2?.params?.protocolVersion !== 2) fail("expected a v2 initialize", probe2);
  h.agent({
    jsonrpc: "2.0",
    id: probe2.id,
    result: {
      protocolVersion: 2,
      info: { name: "agent", version: "1.0" },
      capabilities: V2_AGENT_CAPS,
      authMethods: [],
    },
  });
  await h.settle();
  const [init] = h.takeClient();
  if (init?.id !== "init" || init.result?.protocolVersion !== 1) fail("expected the v1 initialize result", init);
  if (h.bridge.mode !== "A") fail("expected direction A", h.bridge.mode);
  return h;
}

/** `session/new` from the client, answered by the agent with `sessionId`; all traffic taken. */
export async function openSessionA(
  h: Harness,
  sessionId: string,
  requestId: string | number = `new-${sessionId}`,
): Promise<void> {
  h.client({ jsonrpc: "2.0", id: requestId, method: "session/new", params: { cwd: "/w", mcpServers: [] } });
  const [req] = h.takeAgent();
  if (req?.method !== "session/new") fail("expected session/new at the agent", req);
  h.agent({ jsonrpc: "2.0", id: req.id, result: { sessionId } });
  await h.settle();
  const out = h.takeClient();
  if (out[0]?.id !== requestId || out[0]?.result?.sessionId !== sessionId) fail("expected the session/new result", out);
}

/** A `session/update` notification of `sessionId`. */
export function sessionUpdate(sessionId: string, update: Record<string, unknown>): Record<string, unknown> {
  return { jsonrpc: "2.0", method: "session/update", params: { sessionId, update } };
}
