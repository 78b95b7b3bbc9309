// User-facing options → the bridge's configuration, including which translator serves each
// (client version, agent version) pairing.
import type { Platform } from "../convert/directories.js";
import { DEFAULT_DIFF_FILE_MAX_BYTES, DEFAULT_DIFF_RENDERING, type DiffRendering } from "../convert/diff-options.js";
import {
  DEFAULT_STASH_MAX_BYTES,
  DEFAULT_STASH_SETTING,
  type StashPolicy,
  type StashSetting,
} from "../convert/stash.js";
import { DEFAULT_TERMINAL_MAX_BYTES } from "../convert/terminal.js";
import type { AConfig } from "./a/direction-a.js";
import { pairingA } from "./a/pairing.js";
import { DEFAULT_ACK_GRACE_MS, DEFAULT_CLOSE_DRAIN_MS, type BConfig } from "./b/direction-b.js";
import { pairingB } from "./b/pairing.js";
import { DEFAULT_IDLE_SETTLE_MS } from "./a/prompt-lifecycle.js";
import { DEFAULT_FLUSH_MS, DEFAULT_TERMINAL_FLUSH_MS } from "./a/updates.js";
import type { Logger } from "../log.js";
import type { BridgeConfig } from "./bridge.js";
import type { Pairing, ProtocolChoice, Version } from "./handshake.js";
import { DEFAULT_HANDSHAKE_TIMEOUT_MS } from "./handshake.js";
import { PassThrough } from "./passthrough.js";
import { agentFlagsFromV1, agentFlagsFromV2 } from "../convert/capabilities.js";
import { isObject } from "../base/json.js";

export interface BridgeOptions {
  readonly agentProtocol: ProtocolChoice;
  readonly clientProtocol: ProtocolChoice;
  /** Default `auto`: a stash only toward a peer that named itself a bridge (convert/stash.ts). */
  readonly stash?: StashSetting;
  readonly mcpUnsupported: "reject" | "drop";
  readonly handshakeTimeoutMs?: number;
  /** Pass-through checks `additionalDirectories` like the translating modes (default true). */
  readonly passThroughRootsCheck?: boolean;
  /** Deepest nesting accepted in a message (hostile input; default DEFAULT_MAX_DEPTH). */
  readonly maxDepth?: number;
  /** Path rules of the agent's machine (additionalDirectories, H §4.10). */
  readonly platform?: Platform;
  /** T §1.2-4 settle fallback for agents that never report `running`. */
  readonly idleSettleMs?: number;
  /** Forward the agent's echo of a v1 client's own prompt (default: suppressed). */
  readonly forwardPromptEcho?: boolean;
  readonly diffRendering?: DiffRendering;
  /** Largest file the bridge reads to make diffs exact (v1 texts, v2 snippet placement); 0 reads none. */
  readonly diffFileMaxBytes?: number;
  /** T §1.4-2: ack a v2 prompt this long after forwarding it if the v1 agent said nothing yet. */
  readonly ackGraceMs?: number;
  /** Sessions tracked at once (mappings/limits.ts). */
  readonly maxSessions?: number;
  /** Unanswered requests accepted from one peer (mappings/limits.ts). */
  readonly maxPendingRequests?: number;
}

/** The stash level of each destination is chosen once its peer's `initialize` is known (optionsToward). */
function stashPolicy(options: BridgeOptions): StashPolicy {
  return { setting: options.stash ?? DEFAULT_STASH_SETTING, maxBytes: DEFAULT_STASH_MAX_BYTES };
}

function directionBConfig(options: BridgeOptions, log: Logger): BConfig {
  return {
    stash: stashPolicy(options),
    log,
    platform: options.platform ?? defaultPlatform(),
    ackGraceMs: options.ackGraceMs ?? DEFAULT_ACK_GRACE_MS,
    closeDrainMs: DEFAULT_CLOSE_DRAIN_MS,
    diffFileMaxBytes: options.diffFileMaxBytes ?? DEFAULT_DIFF_FILE_MAX_BYTES,
    ...(options.maxSessions !== undefined ? { maxSessions: options.maxSessions } : {}),
  };
}

function defaultPlatform(): Platform {
  return process.platform === "win32" ? "windows" : "posix";
}

function directionAConfig(options: BridgeOptions, log: Logger): AConfig {
  return {
    stash: stashPolicy(options),
    log,
    mcpUnsupported: options.mcpUnsupported,
    platform: options.platform ?? defaultPlatform(),
    idleSettleMs: options.idleSettleMs ?? DEFAULT_IDLE_SETTLE_MS,
    forwardPromptEcho: options.forwardPromptEcho ?? false,
    redactionNotice: true,
    diffRendering: options.diffRendering ?? DEFAULT_DIFF_RENDERING,
    diffFileMaxBytes: options.diffFileMaxBytes ?? DEFAULT_DIFF_FILE_MAX_BYTES,
    flushMs: DEFAULT_FLUSH_MS,
    terminalFlushMs: DEFAULT_TERMINAL_FLUSH_MS,
    terminalMaxBytes: DEFAULT_TERMINAL_MAX_BYTES,
    ...(options.maxSessions !== undefined ? { maxSessions: options.maxSessions } : {}),
  };
}

/** Same version both sides: the client's params go as they are, with the negotiated version. */
function passPairing(v: Version, options: BridgeOptions): Pairing {
  return {
    renderInit(clientParams) {
      const params: Record<string, unknown> = { ...clientParams, protocolVersion: v };
      if (v === 2 && !isObject(params.info)) params.info = { name: "unknown", version: "unknown" };
      return { params };
    },
    accept(_clientParams, agentResult) {
      const flags =
        v === 1
          ? agentFlagsFromV1(agentResult.agentCapabilities)
          : agentFlagsFromV2(agentResult.capabilities, agentResult.authMethods);
      const roots =
        options.passThroughRootsCheck === false
          ? undefined
          : { version: v, agentSupports: flags.addDirs, platform: options.platform ?? defaultPlatform() };
      return { clientResult: agentResult, createTranslator: (client, agent) => new PassThrough(client, agent, roots) };
    },
  };
}

export function createBridgeConfig(
  options: BridgeOptions,
  log: Logger,
  hooks: Pick<BridgeConfig, "onSend" | "onReceive"> = {},
): BridgeConfig {
  const a1 = pairingA(directionAConfig(options, log));
  const b1 = pairingB(directionBConfig(options, log));
  return {
    log,
    agentProtocol: options.agentProtocol,
    clientProtocol: options.clientProtocol,
    handshakeTimeoutMs: options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS,
    ...(options.maxDepth !== undefined ? { maxDepth: options.maxDepth } : {}),
    ...(options.maxPendingRequests !== undefined ? { maxPendingRequests: options.maxPendingRequests } : {}),
    pairing(c, a) {
      if (c === a) return passPairing(c, options);
      return c === 1 ? a1 : b1;
    },
    ...hooks,
  };
}
