// `acp-bridge doctor`'s options, declared once: its parser, its `--help` and the README's table
// (docs/options-table.ts) are built from this table.
import { subcommandHelp } from "../subcommand-help.js";
import { integerArg, readArgs } from "../subcommand-args.js";

interface DoctorOption {
  /** The value's name; none for a flag. */
  readonly metavar?: string;
  readonly min?: number;
  readonly max?: number;
  readonly default?: number;
  /** `--help`'s text (plain). */
  readonly describe: string;
  /** The README's text (Markdown). */
  readonly doc: string;
}

export const DOCTOR_OPTIONS = {
  json: {
    describe: "print the report as one JSON document",
    doc: "print the report as one JSON document (its shape below) instead of text",
  },
  cwd: {
    metavar: "DIR",
    describe: "the directory the agent runs in and its probe sessions name (default: the current one)",
    doc: "the directory the agent runs in and the `cwd` of its probe sessions; the current directory by default",
  },
  "timeout-ms": {
    metavar: "N",
    min: 100,
    max: 600_000,
    default: 10_000,
    describe: "how long each probe waits for one answer of the agent",
    doc: "how long each probe waits for one answer of the agent (an agent that never answers is a finding, never a hang)",
  },
} as const satisfies Record<string, DoctorOption>;

export interface DoctorArgs {
  readonly json: boolean;
  readonly cwd: string | undefined;
  readonly timeoutMs: number;
  readonly command: string;
  readonly args: readonly string[];
}

const USAGE = "acp-bridge doctor [--json] [--cwd DIR] [--timeout-ms N] -- <agent command> [args...]";

export function doctorHelp(): string {
  return subcommandHelp(
    USAGE,
    [
      "Starts the agent (a fresh process per probe, each bounded in time), asks initialize in v1 and in",
      "v2, opens a session where no login is needed, never prompts. Reports what a v1 and a v2 editor",
      "get through the bridge, and findings about the agent in tiers. Status 0 when an editor of each",
      "version can use the agent through the bridge, 1 otherwise, 2 on a usage error.",
    ],
    DOCTOR_OPTIONS,
  );
}

/** The arguments after `doctor`, or what is wrong with them (a usage error), or help. */
export function parseDoctorArgs(argv: readonly string[]): DoctorArgs | { problem: string } | "help" {
  // `json` is in the table for the help; it takes no value (`--json=1` is refused).
  const read = readArgs(argv, { options: DOCTOR_OPTIONS, flags: ["json"], operands: false });
  if (read === "help" || "problem" in read) return read;
  const [first, ...rest] = read.operands;
  if (first === undefined || first === "") return { problem: "no agent command (give it after --)" };
  const timeoutMs = integerArg("timeout-ms", read.values.get("timeout-ms"), DOCTOR_OPTIONS["timeout-ms"]);
  if (typeof timeoutMs === "object") return timeoutMs;
  return { json: read.flags.has("json"), cwd: read.values.get("cwd"), timeoutMs, command: first, args: rest };
}
