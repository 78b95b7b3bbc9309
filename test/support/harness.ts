// In-memory bridge for engine tests: inject messages as either peer, read what the bridge wrote.
// Every message the bridge writes is schema-checked against the version of the side it goes to.
import { Bridge, type BridgeConfig } from "../../src/engine/bridge.js";
import { createBridgeConfig, type BridgeOptions } from "../../src/engine/config.js";
import type { Logger } from "../../src/log.js";
import { silentLogger } from "./log.js";
import { wireProblems } from "./wire-schema.js";

export interface Harness {
  readonly bridge: Bridge;
  /** Send a message (object or raw text) as the client. */
  client(msg: unknown): void;
  /** Send a message as the agent. */
  agent(msg: unknown): void;
  /** Everything the bridge wrote to the client / the agent since the last take (parsed). */
  takeClient(): any[];
  takeAgent(): any[];
  /** Let promises, microtasks and short timers run. */
  settle(ms?: number): Promise<void>;
  /** Schema violations of messages the bridge wrote (checked once the versions are known). */
  readonly violations: string[];
  /** Every line the bridge wrote to each side, as written (takes do not remove them). */
  readonly written: { readonly client: string[]; readonly agent: string[] };
}

export const baseOptions: BridgeOptions = {
  agentProtocol: "auto",
  clientProtocol: "auto",
  mcpUnsupported: "reject",
  handshakeTimeoutMs: 1000,
  // The editor's MCP server (H §6.5) makes session requests wait for its listener: the translation
  // tests keep them synchronous, and test/engine/editor-tools.test.ts turns it on.
  editorTools: "off",
};

export function harness(
  options: Partial<BridgeOptions> = {},
  log: Logger = silentLogger,
  hooks: Partial<Pick<BridgeConfig, "onReceive" | "onSend" | "observer">> = {},
): Harness {
  const toClient: string[] = [];
  const toAgent: string[] = [];
  const written = { client: [] as string[], agent: [] as string[] };
  const violations: string[] = [];
  // Methods of requests each side sent, by id, to check the responses the bridge writes back.
  const clientAsked = new Map<string, string>();
  const agentAsked = new Map<string, string>();
  const config = createBridgeConfig({ ...baseOptions, ...options }, log, hooks);
  const bridge = new Bridge(
    config,
    {
      push: (l) => {
        toClient.push(String(l));
        written.client.push(String(l));
      },
    },
    {
      push: (l) => {
        toAgent.push(String(l));
        written.agent.push(String(l));
      },
    },
  );
  const line = (m: unknown) => Buffer.from(typeof m === "string" ? m : JSON.stringify(m));
  const remember = (asked: Map<string, string>, m: unknown) => {
    const o = m as { id?: unknown; method?: unknown };
    if (typeof o === "object" && o !== null && typeof o.method === "string" && o.id !== undefined)
      asked.set(JSON.stringify(o.id), o.method);
  };
  const take = (q: string[], side: "client" | "agent") =>
    q.splice(0).map((l) => {
      const msg = JSON.parse(l) as unknown;
      const versions = bridge.versions;
      // Checked once the handshake fixed each side's version (probes are in the client's version).
      const version = versions?.[side];
      if (version !== undefined) {
        const asked = side === "client" ? clientAsked : agentAsked;
        const problem = wireProblems(version === 1 ? "v1" : "v2", msg, (id) => asked.get(JSON.stringify(id)));
        if (problem) violations.push(`to ${side}: ${problem}\n  ${l.slice(0, 600)}`);
      }
      return msg as any;
    });
  return {
    bridge,
    client: (m) => {
      if (typeof m !== "string") remember(clientAsked, m);
      bridge.clientLine(line(m));
    },
    agent: (m) => {
      if (typeof m !== "string") remember(agentAsked, m);
      bridge.agentLine(line(m));
    },
    takeClient: () => take(toClient, "client"),
    takeAgent: () => take(toAgent, "agent"),
    settle: (ms = 0) => new Promise((r) => (ms > 0 ? setTimeout(r, ms) : setImmediate(r))),
    violations,
    written,
  };
}

/**
 * The handshake of a v1 client and a v2-only agent: the agent refuses the v1 probe with -32022
 * (H §1.4), then answers the v2 one. Returns the client's `initialize` answer.
 */
export async function handshakeA(
  h: Harness,
  clientCaps: Record<string, unknown>,
  agentCaps: Record<string, unknown>,
  /** The initialize result's `_meta` (a bridge marker, say). */
  agentMeta?: Record<string, unknown>,
): Promise<any> {
  h.client({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: 1, clientCapabilities: clientCaps },
  });
  await h.settle();
  const [probe1] = h.takeAgent();
  h.agent({
    jsonrpc: "2.0",
    id: probe1.id,
    error: { code: -32022, message: "Unsupported protocol version", data: { requested: 1, supported: [2] } },
  });
  await h.settle();
  const [probe2] = h.takeAgent();
  h.agent({
    jsonrpc: "2.0",
    id: probe2.id,
    result: {
      protocolVersion: 2,
      info: { name: "agent", version: "1.0" },
      capabilities: agentCaps,
      authMethods: [],
      ...(agentMeta ? { _meta: agentMeta } : {}),
    },
  });
  await h.settle();
  return h.takeClient()[0];
}

/**
 * The handshake of a v2 client and a v1 agent that answers the v2 probe with version 1, then the
 * v1 one with `agentCaps`. Returns the client's `initialize` answer.
 */
export async function handshakeB(
  h: Harness,
  agentCaps: Record<string, unknown>,
  clientMeta?: Record<string, unknown>,
): Promise<any> {
  h.client({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: 2,
      info: { name: "zed", version: "1" },
      capabilities: {},
      ...(clientMeta ? { _meta: clientMeta } : {}),
    },
  });
  await h.settle();
  const [probe2] = h.takeAgent();
  h.agent({ jsonrpc: "2.0", id: probe2.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
  await h.settle();
  const [probe1] = h.takeAgent();
  h.agent({
    jsonrpc: "2.0",
    id: probe1.id,
    result: { protocolVersion: 1, agentCapabilities: agentCaps, authMethods: [] },
  });
  await h.settle();
  return h.takeClient()[0];
}
