// The launcher's own early start (start-up budget). bin/acp-bridge.js is CommonJS, and this module,
// bundled alone as CommonJS (dist/bundle/early.cjs, build/bundle.ts), starts the agent from it
// before node's ES module loader has begun: some 15 ms sooner than launch.ts, in the bundle, can.
// It takes only what launch.ts would start from without opening anything first (no `--trace`, no
// `--report`: their files are opened before the agent starts, and a file that cannot be opened
// starts nothing); launch.ts adopts what it started, or starts the agent itself as before.
import { createLogger } from "./log.js";
import { parseQuick, type CliArgs } from "./options.js";
import { startAgent, type StartedAgent } from "./transport/agent-process.js";

/** What the launcher started, for launch.ts: one global slot, shared by the two module systems. */
const SLOT = Symbol.for("acp-bridge.launcher-start");

export interface LauncherStart {
  readonly args: CliArgs;
  readonly agent: StartedAgent;
}

type Slot = { [SLOT]?: LauncherStart | undefined };

/** A command line an early start takes (here or in launch.ts): usual spellings, an agent to start. */
export interface QuickStart {
  readonly args: CliArgs;
  readonly command: string;
  readonly commandArgs: readonly string[];
}

/** The command line, when an early start may take it; undefined leaves it to main. */
export function quickStart(argv: readonly string[]): QuickStart | undefined {
  const args = parseQuick(argv);
  // A remote agent (`--connect`) has no process to start; a login on a terminal is main's.
  const [command, ...commandArgs] = args?.command ?? [];
  if (!args || command === undefined || process.stdin.isTTY) return undefined;
  return { args, command, commandArgs };
}

/** Starts the agent for a bridge command line in the usual spellings; leaves the rest to the bundle. */
export function startFromLauncher(argv: readonly string[]): void {
  const quick = quickStart(argv);
  if (!quick) return;
  const { args, command, commandArgs } = quick;
  if (args.trace !== undefined || args.report !== undefined) return;
  const log = createLogger(args.logLevel);
  (globalThis as Slot)[SLOT] = {
    args,
    agent: startAgent(command, commandArgs, args.shutdownGraceMs, log, true, false),
  };
}

/** What the launcher started, taken once (undefined when it started nothing). */
export function takeLauncherStart(): LauncherStart | undefined {
  const slot = globalThis as Slot;
  const start = slot[SLOT];
  slot[SLOT] = undefined;
  return start;
}
