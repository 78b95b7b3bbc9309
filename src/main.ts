// Start-up of the bridge from its command line. Usage errors exit 2 with a message on stderr.
import { createBridgeConfig, joinOnlookers, remoteAgentOptions } from "./engine/config.js";
import { createLogger, type Logger } from "./log.js";
import { optionGiven, parseQuick, type CliArgs } from "./options.js";
import type { StartedAgent } from "./transport/agent-process.js";
import { run } from "./transport/run.js";
import { TraceWriter } from "./transport/trace.js";
import { ReportWriter } from "./report/index.js";
import type { ReportEnd } from "./report/render.js";

/** What the launcher (launch.ts) did before loading the bridge: the command line read, the agent started. */
export interface EarlyStart {
  readonly args: CliArgs;
  readonly log: Logger;
  readonly agent: StartedAgent;
  /** `--trace`'s file, opened before the agent was started. */
  readonly trace: TraceWriter | undefined;
  /** `--report`'s file, likewise. */
  readonly report: ReportWriter | undefined;
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
    report: reportPath,
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
  let report = early?.report;
  if (!early && reportPath !== undefined)
    try {
      report = ReportWriter.open(reportPath);
    } catch (e) {
      process.stderr.write(`acp-bridge: ${(e as Error).message}\n`);
      await trace?.close();
      return 2;
    }
  // Loaded only when asked for: it compiles the schemas (start-up budget).
  const strict = strictChecks ? (await import("./schema/strict.js")).strictHooks(log) : undefined;
  // The report sees every message: its hooks turn the core's fast path off (engine/fast-lines.ts).
  const seen = report?.collector;
  const hooks = joinOnlookers([trace?.onlooker(), strict, seen], seen);
  /** Writes the report (once) and says so on stderr: the summary but at `silent`, a failure always. */
  const finishReport = (end: ReportEnd): void => {
    const done = report?.finish(end);
    if (done && (done.failed || logLevel !== "silent")) process.stderr.write(`${done.line}\n`);
  };
  // A local agent gets the ending signals (SIGHUP too with a report, agent-process.ts) and the run
  // ends as usual, report last. A remote bridge has no agent to wait for: the signal writes the
  // report, then ends the bridge as it would have without one.
  const fatal: readonly NodeJS.Signals[] = report !== undefined && connect !== undefined ? ENDING : [];
  const onFatal = (sig: NodeJS.Signals): void => {
    finishReport({ signal: sig });
    for (const s of fatal) process.off(s, onFatal);
    process.kill(process.pid, sig);
  };
  for (const s of fatal) process.on(s, onFatal);
  const bridge = createBridgeConfig(
    connect === undefined ? options : remoteAgentOptions(options, optionGiven(argv, "diff-file-max-bytes")),
    log,
    hooks,
  );
  let status: number;
  if (connect !== undefined) {
    // Loaded only for a remote agent: the transports and `ws` stay off the stdio path (start-up budget).
    const remote = await import("./remote/connect.js");
    const target = remote.remoteTarget(connect, headerEnv, process.env);
    if ("problem" in target) {
      process.stderr.write(`acp-bridge: ${target.problem}\nTry 'acp-bridge --help'.\n`);
      await trace?.close();
      for (const s of fatal) process.off(s, onFatal);
      report?.discard();
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
      ...(report ? { forwardHangup: true } : {}),
    });
  for (const s of fatal) process.off(s, onFatal);
  finishReport({ status });
  await trace?.close();
  return status;
}

/** The signals that end a bridge: each goes to a local agent, or ends a remote bridge at once. */
const ENDING: readonly NodeJS.Signals[] = ["SIGTERM", "SIGINT", "SIGHUP"];
