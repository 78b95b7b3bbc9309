// Start-up of the bridge from its command line. Usage errors exit 2 with a message on stderr.
import { createBridgeConfig, type BridgeOptions } from "./engine/config.js";
import { createLogger } from "./log.js";
import { parseQuick, type CliArgs } from "./options.js";
import { run } from "./transport/run.js";
import { TraceWriter } from "./transport/trace.js";

export async function main(argv: readonly string[]): Promise<number> {
  let args: CliArgs | undefined = parseQuick(argv);
  if (!args) {
    // Loaded only when needed: yargs costs tens of ms of start-up (help, errors, other spellings).
    const parsed = await (await import("./options-yargs.js")).parseFull(argv);
    if ("status" in parsed) return parsed.status;
    args = parsed.args;
  }
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
  const [command, ...commandArgs] = args.command;
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
