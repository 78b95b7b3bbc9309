// The launcher's early start (start-up budget): a command line in the usual spellings starts the
// agent before the bridge's code loads, so that the editor waits for the agent's start-up (often
// longer than the bridge's load) alongside ours, not after it. Anything else (help, a usage error, a
// trace file that cannot be opened, a login on a terminal) starts nothing here: main reports it, or
// starts the agent itself. The launcher may have started it sooner still (early.ts): adopted here.
import { quickStart, takeLauncherStart } from "./early.js";
import { createLogger } from "./log.js";
import type { EarlyStart } from "./main.js";
import { startAgent } from "./transport/agent-process.js";
import { TraceWriter } from "./transport/trace.js";
import { ReportWriter } from "./report/index.js";

export function startEarly(argv: readonly string[]): EarlyStart | undefined {
  const launched = takeLauncherStart();
  if (launched) {
    const log = createLogger(launched.args.logLevel);
    log.debug("agent started before the bridge loads (by the launcher)");
    return { args: launched.args, log, trace: undefined, report: undefined, agent: launched.agent };
  }
  const quick = quickStart(argv);
  if (!quick) return undefined;
  const { args, command, commandArgs } = quick;
  const log = createLogger(args.logLevel);
  let trace: TraceWriter | undefined;
  try {
    trace = args.trace === undefined ? undefined : TraceWriter.open(args.trace, log);
  } catch {
    return undefined; // main opens it again and says why
  }
  let report: ReportWriter | undefined;
  try {
    report = args.report === undefined ? undefined : ReportWriter.open(args.report);
  } catch {
    void trace?.close();
    return undefined; // likewise
  }
  log.debug("agent started before the bridge loads");
  const hangup = report !== undefined;
  return { args, log, trace, report, agent: startAgent(command, commandArgs, args.shutdownGraceMs, log, true, hangup) };
}
