// Command line entry: `acp-bridge [options] -- <agent command> [args...]`. The bridge replaces the
// agent command in an editor's configuration; everything after `--` is the real agent.
import { createLogger, type Logger } from "./log.js";
import type { EarlyStart } from "./main.js";
import { parseQuick, usageProblem } from "./options.js";
import { startAgent } from "./transport/agent-process.js";
import { TraceWriter } from "./transport/trace.js";
import { VERSION } from "./version.js";

const argv = process.argv.slice(2);
const dashdash = argv.indexOf("--");
const own = dashdash === -1 ? argv : argv.slice(0, dashdash);

// Fast path: no option parsing library loaded just to print the version (start-up budget).
if (own.length === 1 && (own[0] === "--version" || own[0] === "-V")) {
  process.stdout.write(`${VERSION}\n`);
} else {
  // A command line in the usual spellings starts the agent before the bridge's code loads, so that
  // the editor waits for the agent's start-up (often longer than the bridge's load) alongside ours,
  // not after it. Anything else (help, a usage error, a trace file that cannot be opened, a login
  // on a terminal) starts nothing here: main reports it, or starts the agent itself.
  const args = parseQuick(argv);
  let early: EarlyStart | undefined;
  if (args && usageProblem(args) === undefined && !process.stdin.isTTY) {
    const [command, ...commandArgs] = args.command;
    const log = createLogger(args.logLevel);
    const trace = args.trace === undefined ? undefined : openTrace(args.trace, log);
    if (trace !== null) {
      log.debug("agent started before the bridge loads");
      early = { args, log, trace, agent: startAgent(command, commandArgs, args.shutdownGraceMs, log) };
    }
  }
  const { main } = await import("./main.js");
  process.exitCode = await main(argv, early);
}

/** The trace file opened, or null if it cannot be (main then says why). */
function openTrace(path: string, log: Logger): TraceWriter | null {
  try {
    return TraceWriter.open(path, log);
  } catch {
    return null;
  }
}
