// The command-line options, declared once: yargs (help, usage errors, every spelling it accepts) is
// built from this table in options-yargs.ts, and so is `parseQuick`, which reads the plain spellings
// an editor configuration uses without loading yargs (start-up budget: yargs costs tens of ms).
import {
  DEFAULT_DIFF_FILE_MAX_BYTES,
  DEFAULT_DIFF_RENDERING,
  DIFF_RENDERINGS,
  type DiffRendering,
} from "./convert/diff-options.js";
import type { Platform } from "./convert/directories.js";
import type { StashSetting } from "./convert/stash.js";
import type { ProtocolChoice } from "./engine/handshake.js";
import type { LogLevel } from "./log.js";
import { DEFAULT_MAX_DEPTH } from "./wire/envelope.js";
import { DEFAULT_MAX_MESSAGE_BYTES } from "./wire/ndjson.js";
import { DEFAULT_SHUTDOWN_GRACE_MS } from "./transport/agent-process.js";
import { limits } from "../mappings/limits.js";

export interface OptionSpec {
  readonly type: "string" | "number" | "boolean";
  readonly describe: string;
  readonly default?: string | number | boolean;
  readonly choices?: readonly string[];
}

const PROTOCOLS = ["auto", "1", "2"] as const;
const STASHES = ["auto", "off", "compact", "full"] as const;
const MCP_UNSUPPORTED = ["reject", "drop"] as const;
const PLATFORMS = ["posix", "windows"] as const;
const LOG_LEVELS = ["silent", "error", "warn", "info", "debug"] as const;

export const OPTIONS = {
  "agent-protocol": {
    type: "string",
    describe: "ACP version spoken to the agent (auto: probe, the client's own version first)",
    choices: PROTOCOLS,
    default: "auto",
  },
  "client-protocol": {
    type: "string",
    describe: "ACP version spoken to the client (auto: the version it requests)",
    choices: PROTOCOLS,
    default: "auto",
  },
  stash: {
    type: "string",
    describe:
      'what a version cannot carry, kept in _meta["acp-bridge"] for a chained bridge: auto (full toward a peer that named itself a bridge, nothing toward others), or off|compact|full toward every peer (debugging)',
    choices: STASHES,
    default: "auto",
  },
  "mcp-unsupported": {
    type: "string",
    describe: "MCP servers of a transport the agent does not support: reject the request, or drop them with a warning",
    choices: MCP_UNSUPPORTED,
    default: "reject",
  },
  "max-message-bytes": {
    type: "number",
    describe: "largest message accepted from either side",
    default: DEFAULT_MAX_MESSAGE_BYTES,
  },
  "pass-through-roots-check": {
    type: "boolean",
    describe:
      "same version both sides: still refuse invalid additionalDirectories (turn off with --no-pass-through-roots-check)",
    default: true,
  },
  "max-depth": {
    type: "number",
    describe: "deepest nesting of arrays and objects accepted in a message (checked before parsing)",
    default: DEFAULT_MAX_DEPTH,
  },
  "max-sessions": {
    type: "number",
    describe: "sessions whose translation state is kept at once (the least recently used idle one is forgotten first)",
    default: limits.sessions.default,
  },
  "max-pending-requests": {
    type: "number",
    describe: "unanswered requests accepted from each peer; more are refused at once",
    default: limits.pendingRequests.default,
  },
  "handshake-timeout-ms": { type: "number", describe: "time the agent has to answer initialize", default: 30_000 },
  "shutdown-grace-ms": {
    type: "number",
    describe: "after the client leaves: wait this long before SIGTERM, and again before SIGKILL",
    default: DEFAULT_SHUTDOWN_GRACE_MS,
  },
  strict: {
    type: "boolean",
    describe: "validate every message the bridge writes against its side's schema and log violations (slower)",
    default: false,
  },
  trace: {
    type: "string",
    describe: "append every message both ways to this file (the ACP conductor's .jsons trace format)",
  },
  "idle-settle-ms": {
    type: "number",
    describe: "v1 client, v2 agent: complete a turn this long after an idle from an agent that never reports running",
    default: 1500,
  },
  "forward-prompt-echo": {
    type: "boolean",
    describe: "v1 client, v2 agent: forward the agent's echo of the client's own prompt",
    default: false,
  },
  "diff-rendering": {
    type: "string",
    describe:
      "v2 diffs for v1 clients: full (exact file texts when the file can be read, else the hunk texts), hunks, safe (text unless exact), text (markdown)",
    choices: DIFF_RENDERINGS,
    default: DEFAULT_DIFF_RENDERING,
  },
  "diff-file-max-bytes": {
    type: "number",
    describe: "largest file read to make diffs exact (v1 clients: full texts; v2 clients: snippets placed); 0: none",
    default: DEFAULT_DIFF_FILE_MAX_BYTES,
  },
  "ack-grace-ms": {
    type: "number",
    describe:
      "v2 client, v1 agent: acknowledge a prompt this long after forwarding it when the agent says nothing sooner",
    default: 100,
  },
  platform: {
    type: "string",
    describe: "path rules of the agent's machine, for additionalDirectories checks",
    choices: PLATFORMS,
  },
  "log-level": { type: "string", describe: "diagnostics on stderr", choices: LOG_LEVELS, default: "warn" },
} as const satisfies Record<string, OptionSpec>;

export type OptionName = keyof typeof OPTIONS;

/** Everything the command line says, typed. */
export interface CliArgs {
  readonly agentProtocol: ProtocolChoice;
  readonly clientProtocol: ProtocolChoice;
  readonly stash: StashSetting;
  readonly mcpUnsupported: "reject" | "drop";
  readonly maxMessageBytes: number;
  readonly passThroughRootsCheck: boolean;
  readonly maxDepth: number;
  readonly maxSessions: number;
  readonly maxPendingRequests: number;
  readonly handshakeTimeoutMs: number;
  readonly shutdownGraceMs: number;
  readonly strict: boolean;
  readonly trace: string | undefined;
  readonly idleSettleMs: number;
  readonly forwardPromptEcho: boolean;
  readonly diffRendering: DiffRendering;
  readonly diffFileMaxBytes: number;
  readonly ackGraceMs: number;
  readonly platform: Platform | undefined;
  readonly logLevel: LogLevel;
  /** The agent command and its arguments (never empty). */
  readonly command: readonly [string, ...string[]];
}

function protocolChoice(v: unknown): ProtocolChoice {
  if (v === "auto") return "auto";
  if (v === "1" || v === 1) return 1;
  if (v === "2" || v === 2) return 2;
  throw new Error(`must be auto, 1 or 2 (got ${String(v)})`);
}

function oneOf<T extends string>(choices: readonly T[], v: unknown, fallback: T): T {
  return choices.find((c) => c === v) ?? fallback;
}

/** Typed arguments from option values by name (either parser's); absent values take the table's default. */
export function cliArgs(value: (name: OptionName) => unknown, command: readonly [string, ...string[]]): CliArgs {
  const get = (name: OptionName): unknown => {
    const v = value(name);
    const spec: OptionSpec = OPTIONS[name];
    return v === undefined ? spec.default : v;
  };
  const num = (name: OptionName): number => Number(get(name));
  const str = (name: OptionName): string | undefined => {
    const v = get(name);
    return typeof v === "string" || typeof v === "number" ? String(v) : undefined;
  };
  const platform = str("platform");
  return {
    agentProtocol: protocolChoice(get("agent-protocol")),
    clientProtocol: protocolChoice(get("client-protocol")),
    stash: oneOf(STASHES, get("stash"), "auto"),
    mcpUnsupported: oneOf(MCP_UNSUPPORTED, get("mcp-unsupported"), "reject"),
    maxMessageBytes: num("max-message-bytes"),
    passThroughRootsCheck: get("pass-through-roots-check") === true,
    maxDepth: num("max-depth"),
    maxSessions: num("max-sessions"),
    maxPendingRequests: num("max-pending-requests"),
    handshakeTimeoutMs: num("handshake-timeout-ms"),
    shutdownGraceMs: num("shutdown-grace-ms"),
    strict: get("strict") === true,
    trace: str("trace"),
    idleSettleMs: num("idle-settle-ms"),
    forwardPromptEcho: get("forward-prompt-echo") === true,
    diffRendering: oneOf(DIFF_RENDERINGS, get("diff-rendering"), DEFAULT_DIFF_RENDERING),
    diffFileMaxBytes: num("diff-file-max-bytes"),
    ackGraceMs: num("ack-grace-ms"),
    platform: platform === undefined ? undefined : oneOf(PLATFORMS, platform, "posix"),
    logLevel: oneOf(LOG_LEVELS, get("log-level"), "warn"),
    command,
  };
}

/** What is wrong with the values of a parsed command line, for a usage error; undefined if nothing. */
export function usageProblem(args: CliArgs): string | undefined {
  for (const [name, v] of [
    ["max-sessions", args.maxSessions],
    ["max-pending-requests", args.maxPendingRequests],
  ] as const)
    if (!Number.isSafeInteger(v) || v < 1) return `--${name} must be a positive integer (got ${String(v)})`;
  return undefined;
}

function isOptionName(name: string): name is OptionName {
  return Object.hasOwn(OPTIONS, name);
}

/** A plain non-negative integer (what yargs reads as that number too). */
const PLAIN_NUMBER = /^(?:0|[1-9][0-9]{0,14})$/;

/**
 * The common spellings, read without yargs: `--name value`, `--name=value`, `--flag`, `--no-flag`,
 * each option at most once, then `--` and the agent command. Anything else (help, version, an
 * unknown or repeated option, a value yargs would reject or read differently, no `--`) returns
 * undefined: yargs then parses the command line, and reports what is wrong.
 */
export function parseQuick(argv: readonly string[]): CliArgs | undefined {
  const dashdash = argv.indexOf("--");
  if (dashdash === -1) return undefined;
  const [command, ...commandArgs] = argv.slice(dashdash + 1);
  if (command === undefined) return undefined;
  const values = new Map<OptionName, string | number | boolean>();
  for (let i = 0; i < dashdash; i++) {
    const arg = argv[i] ?? "";
    if (!arg.startsWith("--")) return undefined;
    let name = arg.slice(2);
    let value: string | undefined;
    const eq = name.indexOf("=");
    if (eq !== -1) {
      value = name.slice(eq + 1);
      name = name.slice(0, eq);
    }
    let negated = false;
    if (!isOptionName(name) && name.startsWith("no-") && value === undefined) {
      negated = true;
      name = name.slice(3);
    }
    if (!isOptionName(name) || values.has(name)) return undefined;
    const spec: OptionSpec = OPTIONS[name];
    if (spec.type === "boolean") {
      // yargs would read a following `true`/`false` as the flag's value.
      const next = argv[i + 1];
      if (value !== undefined || next === "true" || next === "false") return undefined;
      values.set(name, !negated);
      continue;
    }
    if (negated) return undefined;
    if (value === undefined) {
      if (i + 1 >= dashdash) return undefined;
      value = argv[++i] ?? "";
    }
    if (value === "" || value.startsWith("-")) return undefined;
    if (spec.type === "number") {
      if (!PLAIN_NUMBER.test(value)) return undefined;
      values.set(name, Number(value));
    } else {
      if (spec.choices && !spec.choices.includes(value)) return undefined;
      values.set(name, value);
    }
  }
  return cliArgs((name) => values.get(name), [command, ...commandArgs]);
}
