// `acp-bridge check`'s options, declared once: its parser, its `--help` and the README's table
// (docs/options-table.ts) are built from this table.
import { subcommandHelp } from "../subcommand-help.js";
import { choiceArg, integerArg, oneFile, readArgs } from "../subcommand-args.js";

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

/** The arguments after `check`, or what is wrong with them (a usage error), or help. */
export function parseCheckArgs(argv: readonly string[]): CheckArgs | { problem: string } | "help" {
  const read = readArgs(argv, { options: CHECK_OPTIONS, operands: true });
  if (read === "help" || "problem" in read) return read;
  const file = oneFile(read.operands);
  if (typeof file === "object") return file;
  const protocol = choiceArg("protocol", read.values.get("protocol"), CHECK_OPTIONS.protocol.choices);
  if (typeof protocol === "object") return protocol;
  const max = integerArg("max-line-bytes", read.values.get("max-line-bytes"), CHECK_OPTIONS["max-line-bytes"]);
  if (typeof max === "object") return max;
  return { protocol: protocol === undefined ? undefined : protocol === "1" ? 1 : 2, maxLineBytes: max, file };
}
