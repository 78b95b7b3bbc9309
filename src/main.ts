// Start-up of the bridge from its command line. Usage errors exit 2 with a message on stderr.
import { createBridgeConfig } from "./engine/config.js";
import { createLogger, type Logger } from "./log.js";
import { parseQuick, type CliArgs } from "./options.js";
import type { StartedAgent } from "./transport/agent-process.js";
import { run } from "./transport/run.js";
import { TraceWriter } from "./transport/trace.js";

/** What the launcher (launch.ts) did before loading the bridge: the command line read, the agent started. */
export interface EarlyStart {
  readonly args: CliArgs;
  readonly log: Logger;
  readonly agent: StartedAgent;
  /** `--trace`'s file, opened before the agent was started. */
  readonly trace: TraceWriter | undefined;
}

export async function main(argv: readonly string[], early?: EarlyStart): Promise<number> {
  let args: CliArgs | undefined = early?.args ?? parseQuick(argv);
  if (!args) {
    // Loaded only when needed: yargs costs tens of ms of start-up (help, errors, other spellings).
    const parsed = await (await import("./options-yargs.js")).parseFull(argv);
    if ("status" in parsed) return parsed.status;
    args = parsed.args;
  }
  // What is not the engine's (BridgeOptions) is the transport's and this function's.
  const {
    command: argvCommand,
    maxMessageBytes,
    shutdownGraceMs,
    strict: strictChecks,
    trace: tracePath,
    logLevel,
    connect,
    headerEnv,
    ...options
  } = args;
  const [command, ...commandArgs] = argvCommand;
  const log = early?.log ?? createLogger(logLevel);
  let trace = early?.trace;
  if (!early && tracePath !== undefined)
    try {
      trace = TraceWriter.open(tracePath, log);
    } catch (e) {
      process.stderr.write(`acp-bridge: ${(e as Error).message}\n`);
      return 2;
    }
  // Loaded only when asked for: it compiles the schemas (start-up budget).
  const strict = strictChecks ? (await import("./schema/strict.js")).strictHooks(log) : undefined;
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
  const bridge = createBridgeConfig(connect === undefined ? options : { ...options, remoteAgent: true }, log, hooks);
  let status: number;
  if (connect !== undefined) {
    // Loaded only for a remote agent: the transports and `ws` stay off the stdio path (start-up budget).
    const remote = await import("./remote/connect.js");
    const target = remote.remoteTarget(connect, headerEnv, process.env);
    if ("problem" in target) {
      process.stderr.write(`acp-bridge: ${target.problem}\nTry 'acp-bridge --help'.\n`);
      await trace?.close();
      return 2;
    }
    status = await remote.runConnected({ target, bridge, maxMessageBytes, shutdownGraceMs, log });
  } else if (command === undefined)
    throw new Error("no agent command"); // readOptions guarantees one
  else
    status = await run({
      command,
      args: commandArgs,
      bridge,
      maxMessageBytes,
      shutdownGraceMs,
      log,
      ...(early ? { agent: early.agent } : {}),
    });
  await trace?.close();
  return status;
}
