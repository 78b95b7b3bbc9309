// User-facing options → the bridge's configuration, including which translator serves each
// (client version, agent version) pairing.
import type { StashLevel } from "../convert/stash.js";
import type { Logger } from "../log.js";
import { rpcErrors } from "../wire/jsonrpc.js";
import type { BridgeConfig } from "./bridge.js";
import type { Pairing, ProtocolChoice, Version } from "./handshake.js";
import { DEFAULT_HANDSHAKE_TIMEOUT_MS } from "./handshake.js";
import { PassThrough } from "./passthrough.js";

export interface BridgeOptions {
  readonly agentProtocol: ProtocolChoice;
  readonly clientProtocol: ProtocolChoice;
  readonly stash: StashLevel;
  readonly mcpUnsupported: "reject" | "drop";
  readonly handshakeTimeoutMs?: number;
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** Same version both sides: the client's params go as they are, with the negotiated version. */
function passPairing(v: Version): Pairing {
  return {
    renderInit(clientParams) {
      const params: Record<string, unknown> = { ...clientParams, protocolVersion: v };
      if (v === 2 && !isObject(params.info)) params.info = { name: "unknown", version: "unknown" };
      return { params };
    },
    accept(_clientParams, agentResult) {
      return { clientResult: agentResult, createTranslator: (client, agent) => new PassThrough(client, agent) };
    },
  };
}

function notYet(direction: string): Pairing {
  const error = rpcErrors.internal("Agent handshake failed", {
    reason: `direction ${direction} is not available in this build`,
  });
  return { renderInit: () => ({ error }), accept: () => ({ error }) };
}

export function createBridgeConfig(
  options: BridgeOptions,
  log: Logger,
  hooks: Pick<BridgeConfig, "onSend" | "onReceive"> = {},
): BridgeConfig {
  return {
    log,
    agentProtocol: options.agentProtocol,
    clientProtocol: options.clientProtocol,
    handshakeTimeoutMs: options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS,
    pairing(c, a) {
      if (c === a) return passPairing(c);
      return notYet(c === 1 ? "A (v1 client, v2 agent)" : "B (v2 client, v1 agent)");
    },
    ...hooks,
  };
}
