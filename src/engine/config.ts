// User-facing options → the bridge's configuration, including which translator serves each
// (client version, agent version) pairing. The options and their defaults are src/options.ts's.
import type { Platform } from "../convert/directories.js";
import { DEFAULT_STASH_MAX_BYTES, type StashPolicy } from "../convert/stash.js";
import { DEFAULT_TERMINAL_MAX_BYTES } from "../convert/terminal.js";
import { DEFAULT_OPTIONS, type Options } from "../options.js";
import type { AConfig } from "./v1-client/engine.js";
import { pairingA } from "./v1-client/pairing.js";
import { DEFAULT_CLOSE_DRAIN_MS, type BConfig } from "./v2-client/engine.js";
import { pairingB } from "./v2-client/pairing.js";
import { DEFAULT_FLUSH_MS, DEFAULT_TERMINAL_FLUSH_MS } from "./v1-client/updates/index.js";
import type { Logger } from "../log.js";
import type { BridgeConfig } from "./bridge.js";
import type { BridgeObserver } from "./observer.js";
import type { Side } from "./outgoing.js";
import type { Pairing, Version } from "./handshake.js";
import { PassThrough } from "./passthrough.js";
import { agentFlagsFromV1, agentFlagsFromV2 } from "../convert/capabilities.js";
import { isObject } from "../base/json.js";

/** Options the transport and the command line read (src/main.ts), not the engine. */
type NotTheEngines =
  "maxMessageBytes" | "shutdownGraceMs" | "strict" | "trace" | "report" | "logLevel" | "connect" | "headerEnv";
type Given = "agentProtocol" | "clientProtocol" | "mcpUnsupported";

/** The engine's options: the command line's (src/options.ts); any left out takes its default. */
export type BridgeOptions = Pick<Options, Given> &
  Partial<Omit<Options, Given | NotTheEngines>> & {
    /** The editor tools' stdio face (`acp-bridge editor-mcp`); by default this process's own CLI. */
    readonly editorStdioCommand?: { readonly command: string; readonly args: readonly string[] };
    /** The agent runs elsewhere (`--connect`): this machine's loopback and commands are not its. */
    readonly remoteAgent?: boolean;
    /**
     * A recording replayed (`acp-bridge convert`): each message comes once the engine went quiet, so
     * every window (update coalescing, the prompt's ack grace, the idle settle) has passed by then:
     * they are zero, and the engine's output does not hang on a timer.
     */
    readonly replay?: boolean;
  };
type Complete = Omit<Options, NotTheEngines> & Pick<BridgeOptions, "editorStdioCommand" | "remoteAgent" | "replay">;

/**
 * The engine's options for an agent `--connect` reaches: a remote agent's paths name files on its
 * own machine, so the bridge reads none of them for diffs (`diffFileMaxBytes` 0) unless the command
 * line asked for it (`diffReadsGiven`: `--diff-file-max-bytes` was given, say for a `serve` on this
 * machine); this machine's loopback and commands are not the agent's either (`remoteAgent`).
 */
export function remoteAgentOptions(options: BridgeOptions, diffReadsGiven: boolean): BridgeOptions {
  return { ...options, remoteAgent: true, ...(diffReadsGiven ? {} : { diffFileMaxBytes: 0 }) };
}

/** The stash level of each destination is chosen once its peer's `initialize` is known (optionsToward). */
function stashPolicy(options: Complete): StashPolicy {
  return { setting: options.stash, maxBytes: DEFAULT_STASH_MAX_BYTES };
}

function directionBConfig(options: Complete, log: Logger, observer: BridgeObserver | undefined): BConfig {
  return {
    ...(observer ? { observer } : {}),
    stash: stashPolicy(options),
    log,
    platform: options.platform ?? defaultPlatform(),
    ackGraceMs: options.replay === true ? 0 : options.ackGraceMs,
    closeDrainMs: DEFAULT_CLOSE_DRAIN_MS,
    diffFileMaxBytes: options.diffFileMaxBytes,
    maxSessions: options.maxSessions,
  };
}

function defaultPlatform(): Platform {
  return process.platform === "win32" ? "windows" : "posix";
}

function directionAConfig(options: Complete, log: Logger, observer: BridgeObserver | undefined): AConfig {
  return {
    ...(observer ? { observer } : {}),
    stash: stashPolicy(options),
    log,
    mcpUnsupported: options.mcpUnsupported,
    platform: options.platform ?? defaultPlatform(),
    idleSettleMs: options.replay === true ? 0 : options.idleSettleMs,
    forwardPromptEcho: options.forwardPromptEcho,
    redactionNotice: true,
    diffRendering: options.diffRendering,
    diffFileMaxBytes: options.diffFileMaxBytes,
    flushMs: options.replay === true ? 0 : DEFAULT_FLUSH_MS,
    terminalFlushMs: options.replay === true ? 0 : DEFAULT_TERMINAL_FLUSH_MS,
    terminalMaxBytes: DEFAULT_TERMINAL_MAX_BYTES,
    maxSessions: options.maxSessions,
    ...(options.editorTools === "off"
      ? {}
      : {
          editorTools: {
            anyPath: options.editorToolsAnyPath,
            maxBytes: options.editorToolsMaxBytes,
            maxConcurrent: options.editorToolsMaxConcurrent,
            timeoutMs: options.editorToolsTimeoutMs,
            stdioCommand: options.editorStdioCommand ?? ownCommand(),
            onlyAcp: options.remoteAgent === true,
          },
        }),
  };
}

/** This bridge's command line with the `editor-mcp` sub-command (what the CLI was started as). */
function ownCommand(): { command: string; args: string[] } {
  return { command: process.execPath, args: [process.argv[1] ?? "acp-bridge", "editor-mcp"] };
}

/** Same version both sides: the client's params go as they are, with the negotiated version. */
function passPairing(v: Version, options: Complete): Pairing {
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
      const roots = options.passThroughRootsCheck
        ? { version: v, agentSupports: flags.addDirs, platform: options.platform ?? defaultPlatform() }
        : undefined;
      return { clientResult: agentResult, createTranslator: (client, agent) => new PassThrough(client, agent, roots) };
    },
  };
}

export function createBridgeConfig(
  given: BridgeOptions,
  log: Logger,
  hooks: Pick<BridgeConfig, "onSend" | "onReceive" | "observer"> = {},
): BridgeConfig {
  const options: Complete = { ...DEFAULT_OPTIONS, ...given };
  const a1 = pairingA(directionAConfig(options, log, hooks.observer));
  const b1 = pairingB(directionBConfig(options, log, hooks.observer));
  return {
    log,
    agentProtocol: options.agentProtocol,
    clientProtocol: options.clientProtocol,
    handshakeTimeoutMs: options.handshakeTimeoutMs,
    maxDepth: options.maxDepth,
    maxPendingRequests: options.maxPendingRequests,
    pairing(c, a) {
      if (c === a) return passPairing(c, options);
      return c === 1 ? a1 : b1;
    },
    ...hooks,
  };
}

/** One onlooker of every message the core receives and sends (a trace, `--strict`, a report). */
export interface Onlooker {
  onReceive(from: Side, msg: unknown): void;
  onSend(to: Side, msg: unknown): void;
}

/**
 * The hooks of a run's onlookers, as one: none at all when it has none, so the core keeps its fast
 * paths (they skip what a hook must see), and the engine's observer with them when given.
 */
export function joinOnlookers(
  onlookers: readonly (Onlooker | undefined)[],
  observer?: BridgeObserver,
): Pick<BridgeConfig, "onSend" | "onReceive" | "observer"> {
  const all = onlookers.filter((o) => o !== undefined);
  if (all.length === 0) return {};
  return {
    onReceive: (from, msg) => {
      for (const o of all) o.onReceive(from, msg);
    },
    onSend: (to, msg) => {
      for (const o of all) o.onSend(to, msg);
    },
    ...(observer ? { observer } : {}),
  };
}
