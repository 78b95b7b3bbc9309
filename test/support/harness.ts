// In-memory bridge for engine tests: inject messages as either peer, read what the bridge wrote.
import { Bridge } from "../../src/engine/bridge.js";
import { createBridgeConfig, type BridgeOptions } from "../../src/engine/config.js";
import { silentLogger, type Logger } from "../../src/log.js";

export interface Harness {
  readonly bridge: Bridge;
  /** Send a message (object or raw text) as the client. */
  client(msg: unknown): void;
  /** Send a message as the agent. */
  agent(msg: unknown): void;
  /** Everything the bridge wrote to the client / the agent since the last take (parsed). */
  takeClient(): unknown[];
  takeAgent(): unknown[];
  /** Let promises and microtasks run. */
  settle(): Promise<void>;
}

export const baseOptions: BridgeOptions = {
  agentProtocol: "auto",
  clientProtocol: "auto",
  stash: "compact",
  mcpUnsupported: "reject",
  handshakeTimeoutMs: 1000,
};

export function harness(options: Partial<BridgeOptions> = {}, log: Logger = silentLogger): Harness {
  const toClient: string[] = [];
  const toAgent: string[] = [];
  const config = createBridgeConfig({ ...baseOptions, ...options }, log);
  const bridge = new Bridge(
    config,
    { push: (l) => toClient.push(String(l)) },
    { push: (l) => toAgent.push(String(l)) },
  );
  const line = (m: unknown) => Buffer.from(typeof m === "string" ? m : JSON.stringify(m));
  const take = (q: string[]) => q.splice(0).map((l) => JSON.parse(l) as unknown);
  return {
    bridge,
    client: (m) => bridge.clientLine(line(m)),
    agent: (m) => bridge.agentLine(line(m)),
    takeClient: () => take(toClient),
    takeAgent: () => take(toAgent),
    settle: () => new Promise((r) => setImmediate(r)),
  };
}
