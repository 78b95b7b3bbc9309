// `acp-bridge convert`'s options, declared once: its parser, its `--help` and the README's table
// (docs/options-table.ts) are built from this table.
import { CHECK_OPTIONS } from "../check/options.js";
import { subcommandHelp } from "../subcommand-help.js";
import { choiceArg, integerArg, oneFile, readArgs } from "../subcommand-args.js";

/** Each map of unanswered requests the replay keeps (per file): past it the oldest is forgotten. */
export const MAX_PENDING = 65_536;

interface ConvertOption {
  /** The value's name (`--to 1|2`). */
  readonly metavar: string;
  readonly choices?: readonly string[];
  /** The default of a choice. */
  readonly choice?: string;
  readonly min?: number;
  readonly max?: number;
  readonly default?: number;
  /** `--help`'s text (plain). */
  readonly describe: string;
  /** The README's text (Markdown). */
  readonly doc: string;
}

export const CONVERT_OPTIONS = {
  to: {
    metavar: "1|2",
    choices: ["1", "2"],
    describe: "the version to write the conversation in (required)",
    doc: "the version to write the conversation in (required); the recording's own version is the one the agent's answer to its client's `initialize` settles (a v1 agent answers 1 to a client asking 2), the one asked for when unanswered",
  },
  stash: {
    metavar: "full|off",
    choices: ["full", "off"],
    choice: "full",
    describe:
      'full: what version Y cannot carry rides in _meta["acp-bridge"], so converting back gives the original; off: plain version-Y peers',
    doc: '`full`: what the other version cannot carry rides in `_meta["acp-bridge"]` (and the bridges\' markers in `initialize`), so converting the output back gives the original; `off`: the conversation plain version-Y peers would have had, no bridge data',
  },
  connection: {
    metavar: "client|agent",
    choices: ["client", "agent"],
    choice: "client",
    describe: "in a --trace file: the connection to convert (client: client ⇄ acp-bridge; agent: acp-bridge ⇄ agent)",
    doc: "in a `--trace` file, the connection to convert: `client` (the editor ⇄ `acp-bridge`) or `agent` (`acp-bridge` ⇄ the agent); the other one's events are not written",
  },
  output: {
    metavar: "FILE",
    describe: "write the conversation to FILE (also -o FILE; default: stdout)",
    doc: "write the converted conversation to FILE (also `-o FILE`) instead of stdout",
  },
  "max-line-bytes": {
    ...CHECK_OPTIONS["max-line-bytes"],
    describe: "longest line read; a longer one is skipped and the status is 1 (bounds memory)",
    doc: "longest line read; a longer one is reported, skipped unread and makes the status 1, so memory stays bounded whatever the file holds",
  },
} as const satisfies Record<string, ConvertOption>;

export interface ConvertArgs {
  readonly to: 1 | 2;
  readonly stash: "full" | "off";
  readonly connection: "client" | "agent";
  /** The output file; undefined: stdout. */
  readonly output: string | undefined;
  readonly maxLineBytes: number;
  /** The file, or `-` for stdin. */
  readonly file: string;
}

const USAGE =
  "acp-bridge convert --to 1|2 [--stash full|off] [--connection client|agent] [-o FILE] [--max-line-bytes N] [FILE]";

export function convertHelp(): string {
  return subcommandHelp(
    USAGE,
    [
      "Writes one recorded connection (a --trace .jsons file, or NDJSON of one connection) as peers of",
      "the other version would have had it, through the bridge's own engine (two bridges in-process),",
      "offline, in the form it was read in. FILE absent or '-': stdin. What does not cross is named on",
      "stderr with a summary; status 0 converted, 1 when the bridge refused a message or a line was",
      "unreadable, 2 on a usage error.",
    ],
    CONVERT_OPTIONS,
  );
}

/** The arguments after `convert`, or what is wrong with them (a usage error), or help. */
export function parseConvertArgs(argv: readonly string[]): ConvertArgs | { problem: string } | "help" {
  const read = readArgs(argv, { options: CONVERT_OPTIONS, short: { "-o": "output" }, operands: true });
  if (read === "help" || "problem" in read) return read;
  const file = oneFile(read.operands);
  if (typeof file === "object") return file;
  const to = choiceArg("to", read.values.get("to"), ["1", "2"] as const);
  if (to === undefined) return { problem: "--to 1|2 is required" };
  if (typeof to === "object") return to;
  const stash =
    choiceArg("stash", read.values.get("stash"), CONVERT_OPTIONS.stash.choices) ?? CONVERT_OPTIONS.stash.choice;
  if (typeof stash === "object") return stash;
  const connection =
    choiceArg("connection", read.values.get("connection"), CONVERT_OPTIONS.connection.choices) ??
    CONVERT_OPTIONS.connection.choice;
  if (typeof connection === "object") return connection;
  const output = read.values.get("output");
  if (output === "") return { problem: "--output needs a file name" };
  const max = integerArg("max-line-bytes", read.values.get("max-line-bytes"), CONVERT_OPTIONS["max-line-bytes"]);
  if (typeof max === "object") return max;
  return { to: to === "1" ? 1 : 2, stash, connection, output, maxLineBytes: max, file };
}
