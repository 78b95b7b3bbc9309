// `acp-bridge doctor`'s options, declared once: its parser, its `--help` and the README's table
// (docs/options-table.ts) are built from this table.
import { subcommandHelp } from "../subcommand-help.js";

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

const DECIMAL = /^[0-9]+$/;

/** The arguments after `doctor`, or what is wrong with them (a usage error), or help. */
export function parseDoctorArgs(argv: readonly string[]): DoctorArgs | { problem: string } | "help" {
  const dashdash = argv.indexOf("--");
  const own = dashdash === -1 ? argv : argv.slice(0, dashdash);
  const values = new Map<string, string>();
  let json = false;
  for (let i = 0; i < own.length; i++) {
    const arg = own[i] ?? "";
    if (arg === "--help" || arg === "-h") return "help";
    if (arg === "--json") {
      json = true;
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (!arg.startsWith("--") || name === "json" || !Object.hasOwn(DOCTOR_OPTIONS, name))
      return { problem: `unknown argument ${arg}` };
    if (values.has(name)) return { problem: `--${name} is given more than once` };
    const value = eq === -1 ? own[++i] : arg.slice(eq + 1);
    if (value === undefined) return { problem: `--${name} needs a value` };
    values.set(name, value);
  }
  const command = dashdash === -1 ? [] : argv.slice(dashdash + 1);
  const [first, ...rest] = command;
  if (first === undefined || first === "") return { problem: "no agent command (give it after --)" };
  const spec = DOCTOR_OPTIONS["timeout-ms"];
  const raw = values.get("timeout-ms");
  const timeoutMs = raw === undefined ? spec.default : DECIMAL.test(raw) ? Number(raw) : Number.NaN;
  if (!(timeoutMs >= spec.min && timeoutMs <= spec.max))
    return {
      problem: `--timeout-ms must be an integer from ${String(spec.min)} to ${String(spec.max)} (got ${JSON.stringify(raw)})`,
    };
  return { json, cwd: values.get("cwd"), timeoutMs, command: first, args: rest };
}
