// Option parsing (yargs) and start-up of the bridge. Usage errors exit 2 with a message on stderr.
import yargs from "yargs";
import { DEFAULT_DIFF_RENDERING, DIFF_RENDERINGS } from "./convert/diff.js";
import { createBridgeConfig, type BridgeOptions } from "./engine/config.js";
import { DEFAULT_DIFF_FILE_MAX_BYTES } from "./engine/files.js";
import { createLogger } from "./log.js";
import { DEFAULT_MAX_DEPTH } from "./wire/envelope.js";
import { limits } from "../mappings/limits.js";
import { DEFAULT_MAX_MESSAGE_BYTES } from "./wire/ndjson.js";
import { DEFAULT_SHUTDOWN_GRACE_MS, run } from "./transport/run.js";
import { TraceWriter } from "./transport/trace.js";
import { VERSION } from "./version.js";

const protocolChoice = (v: unknown): "auto" | 1 | 2 => {
  if (v === "auto") return "auto";
  if (v === "1" || v === 1) return 1;
  if (v === "2" || v === 2) return 2;
  throw new Error(`must be auto, 1 or 2 (got ${String(v)})`);
};

export async function main(argv: readonly string[]): Promise<number> {
  let usageError: string | undefined;
  const parser = yargs([...argv])
    .scriptName("acp-bridge")
    .usage("$0 [options] -- <agent command> [args...]\n\nTranslates the Agent Client Protocol between v1 and v2 peers.")
    .parserConfiguration({ "populate--": true })
    .option("agent-protocol", {
      describe: "ACP version spoken to the agent (auto: probe, the client's own version first)",
      default: "auto",
      coerce: protocolChoice,
    })
    .option("client-protocol", {
      describe: "ACP version spoken to the client (auto: the version it requests)",
      default: "auto",
      coerce: protocolChoice,
    })
    .option("stash", {
      describe:
        'what a version cannot carry, kept in _meta["acp-bridge"] for a chained bridge: auto (full toward a peer that named itself a bridge, nothing toward others), or off|compact|full toward every peer (debugging)',
      choices: ["auto", "off", "compact", "full"] as const,
      default: "auto" as const,
    })
    .option("mcp-unsupported", {
      describe:
        "MCP servers of a transport the agent does not support: reject the request, or drop them with a warning",
      choices: ["reject", "drop"] as const,
      default: "reject" as const,
    })
    .option("max-message-bytes", {
      describe: "largest message accepted from either side",
      type: "number",
      default: DEFAULT_MAX_MESSAGE_BYTES,
    })
    .option("pass-through-roots-check", {
      describe:
        "same version both sides: still refuse invalid additionalDirectories (turn off with --no-pass-through-roots-check)",
      type: "boolean",
      default: true,
    })
    .option("max-depth", {
      describe: "deepest nesting of arrays and objects accepted in a message (checked before parsing)",
      type: "number",
      default: DEFAULT_MAX_DEPTH,
    })
    .option("max-sessions", {
      describe:
        "sessions whose translation state is kept at once (the least recently used idle one is forgotten first)",
      type: "number",
      default: limits.sessions.default,
    })
    .option("max-pending-requests", {
      describe: "unanswered requests accepted from each peer; more are refused at once",
      type: "number",
      default: limits.pendingRequests.default,
    })
    .option("handshake-timeout-ms", {
      describe: "time the agent has to answer initialize",
      type: "number",
      default: 30_000,
    })
    .option("shutdown-grace-ms", {
      describe: "after the client leaves: wait this long before SIGTERM, and again before SIGKILL",
      type: "number",
      default: DEFAULT_SHUTDOWN_GRACE_MS,
    })
    .option("strict", {
      describe: "validate every message the bridge writes against its side's schema and log violations (slower)",
      type: "boolean",
      default: false,
    })
    .option("trace", {
      describe: "append every message both ways to this file (the ACP conductor's .jsons trace format)",
      type: "string",
    })
    .option("idle-settle-ms", {
      describe: "v1 client, v2 agent: complete a turn this long after an idle from an agent that never reports running",
      type: "number",
      default: 1500,
    })
    .option("forward-prompt-echo", {
      describe: "v1 client, v2 agent: forward the agent's echo of the client's own prompt",
      type: "boolean",
      default: false,
    })
    .option("diff-rendering", {
      describe:
        "v2 diffs for v1 clients: full (exact file texts when the file can be read, else the hunk texts), hunks, safe (text unless exact), text (markdown)",
      choices: DIFF_RENDERINGS,
      default: DEFAULT_DIFF_RENDERING,
    })
    .option("diff-file-max-bytes", {
      describe: "largest file read to make diffs exact (v1 clients: full texts; v2 clients: snippets placed); 0: none",
      type: "number",
      default: DEFAULT_DIFF_FILE_MAX_BYTES,
    })
    .option("ack-grace-ms", {
      describe:
        "v2 client, v1 agent: acknowledge a prompt this long after forwarding it when the agent says nothing sooner",
      type: "number",
      default: 100,
    })
    .option("platform", {
      describe: "path rules of the agent's machine, for additionalDirectories checks",
      choices: ["posix", "windows"] as const,
    })
    .option("log-level", {
      describe: "diagnostics on stderr",
      choices: ["silent", "error", "warn", "info", "debug"] as const,
      default: "warn" as const,
    })
    .example("$0 -- my-v2-agent --stdio", "put a v1 editor in front of a v2 agent")
    .example("$0 --agent-protocol 1 -- old-agent", "skip probing: the agent speaks v1")
    .example(
      "$0 --stash compact -- agent",
      'show every peer what the other version cannot carry, in _meta["acp-bridge"]',
    )
    .version(VERSION)
    .alias("version", "V")
    .help()
    .alias("help", "h")
    .strict()
    .exitProcess(false)
    .fail((msg, err) => {
      usageError = msg || err.message;
    });

  const args = await parser.parseAsync();
  if (usageError !== undefined) {
    process.stderr.write(`acp-bridge: ${usageError}\nTry 'acp-bridge --help'.\n`);
    return 2;
  }
  if (args.help || args.version) return 0;
  for (const [name, v] of [
    ["max-sessions", args.maxSessions],
    ["max-pending-requests", args.maxPendingRequests],
  ] as const)
    if (!Number.isSafeInteger(v) || v < 1) {
      process.stderr.write(
        `acp-bridge: --${name} must be a positive integer (got ${String(v)})\nTry 'acp-bridge --help'.\n`,
      );
      return 2;
    }
  const rest = ((args["--"] as unknown[] | undefined) ?? []).map(String);
  const positional = args._.map(String);
  const agentCommand = [...positional, ...rest];
  if (agentCommand.length === 0) {
    process.stderr.write("acp-bridge: missing the agent command after --\nTry 'acp-bridge --help'.\n");
    return 2;
  }
  const [command, ...commandArgs] = agentCommand as [string, ...string[]];
  const log = createLogger(args.logLevel);
  const options: BridgeOptions = {
    agentProtocol: args.agentProtocol,
    clientProtocol: args.clientProtocol,
    stash: args.stash,
    mcpUnsupported: args.mcpUnsupported,
    handshakeTimeoutMs: args.handshakeTimeoutMs,
    maxDepth: args.maxDepth,
    maxSessions: args.maxSessions,
    maxPendingRequests: args.maxPendingRequests,
    passThroughRootsCheck: args.passThroughRootsCheck,
    idleSettleMs: args.idleSettleMs,
    forwardPromptEcho: args.forwardPromptEcho,
    diffRendering: args.diffRendering,
    diffFileMaxBytes: args.diffFileMaxBytes,
    ackGraceMs: args.ackGraceMs,
    ...(args.platform ? { platform: args.platform } : {}),
  };
  const trace = args.trace !== undefined ? new TraceWriter(args.trace) : undefined;
  // Loaded only when asked for: it compiles the schemas (start-up budget).
  const strict = args.strict ? (await import("./schema/strict.js")).strictHooks(log) : undefined;
  const hooks =
    trace || strict
      ? {
          onReceive: (from: "client" | "agent", msg: unknown) => {
            trace?.record("in", from, msg);
            strict?.onReceive(from, msg);
          },
          onSend: (to: "client" | "agent", msg: unknown) => {
            trace?.record("out", to, msg);
            strict?.onSend(to, msg);
          },
        }
      : {};
  const status = await run({
    command,
    args: commandArgs,
    bridge: createBridgeConfig(options, log, hooks),
    maxMessageBytes: args.maxMessageBytes,
    shutdownGraceMs: args.shutdownGraceMs,
    log,
  });
  await trace?.close();
  return status;
}
