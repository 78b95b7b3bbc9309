// `acp-bridge check`'s options, declared once: its parser, its `--help` and the README's table
// (docs/options-table.ts) are built from this table.
import { subcommandHelp } from "../subcommand-help.js";

/** The request-id → method map's bound (per file): past it the oldest unanswered request is forgotten. */
export const MAX_PENDING = 65_536;

interface CheckOption {
  /** The value's name (`--protocol 1|2`); none for a flag. */
  readonly metavar?: string;
  readonly choices?: readonly string[];
  readonly min?: number;
  readonly max?: number;
  readonly default?: number;
  /** `--help`'s text (plain). */
  readonly describe: string;
  /** The README's text (Markdown). */
  readonly doc: string;
}

export const CHECK_OPTIONS = {
  protocol: {
    metavar: "1|2",
    choices: ["1", "2"],
    describe: "check every message against this version (default: the version the initialize exchange settles)",
    doc: "check every message against this version's schema; by default each connection's `initialize` exchange settles it (the request's `protocolVersion` until the answer, then the answer's)",
  },
  "max-line-bytes": {
    metavar: "N",
    min: 1024,
    max: 256 * 1024 * 1024,
    default: 32 * 1024 * 1024,
    describe: "longest line read; a longer one is a violation and is skipped (bounds memory)",
    doc: "longest line read; a longer one is reported as a violation and skipped unread, so memory stays bounded whatever the file holds",
  },
} as const satisfies Record<string, CheckOption>;

export interface CheckArgs {
  readonly protocol: 1 | 2 | undefined;
  readonly maxLineBytes: number;
  /** The file, or `-` for stdin. */
  readonly file: string;
}

const CHECK_USAGE = "acp-bridge check [--protocol 1|2] [--max-line-bytes N] [FILE]";

export function checkHelp(): string {
  return subcommandHelp(
    CHECK_USAGE,
    [
      "Checks a recorded conversation (a --trace .jsons file, or NDJSON of one connection) against the",
      "official ACP schemas, offline. FILE absent or '-': stdin. One line per violation on stdout,",
      "a summary on stderr; status 0 clean, 1 on a violation, 2 on a usage error.",
    ],
    CHECK_OPTIONS,
  );
}

const DECIMAL = /^[0-9]+$/;

/** The arguments after `check`, or what is wrong with them (a usage error), or help. */
export function parseCheckArgs(argv: readonly string[]): CheckArgs | { problem: string } | "help" {
  const values = new Map<string, string>();
  const files: string[] = [];
  let rest = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (rest || arg === "-" || !arg.startsWith("-")) {
      files.push(arg);
      continue;
    }
    if (arg === "--") {
      rest = true;
      continue;
    }
    if (arg === "--help" || arg === "-h") return "help";
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (!arg.startsWith("--") || !Object.hasOwn(CHECK_OPTIONS, name)) return { problem: `unknown option ${arg}` };
    if (values.has(name)) return { problem: `--${name} is given more than once` };
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) return { problem: `--${name} needs a value` };
    values.set(name, value);
  }
  if (files.length > 1)
    return { problem: `one file at a time (got ${files.map((f) => JSON.stringify(f)).join(", ")})` };
  const protocol = values.get("protocol");
  if (protocol !== undefined && !CHECK_OPTIONS.protocol.choices.some((c) => c === protocol))
    return { problem: `--protocol must be one of 1, 2 (got ${JSON.stringify(protocol)})` };
  const spec = CHECK_OPTIONS["max-line-bytes"];
  const raw = values.get("max-line-bytes");
  const max = raw === undefined ? spec.default : DECIMAL.test(raw) ? Number(raw) : Number.NaN;
  if (!(max >= spec.min && max <= spec.max))
    return {
      problem: `--max-line-bytes must be an integer from ${String(spec.min)} to ${String(spec.max)} (got ${JSON.stringify(raw)})`,
    };
  return {
    protocol: protocol === undefined ? undefined : protocol === "1" ? 1 : 2,
    maxLineBytes: max,
    file: files[0] ?? "-",
  };
}
