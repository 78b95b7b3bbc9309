// The full command-line parser (yargs), built from the option table: loaded only when the quick
// parser of options.ts defers (help, version, usage errors, unusual spellings).
import yargs, { type Argv } from "yargs";
import { OPTIONS, readOptions, type CliArgs, type OptionSpec } from "./options.js";
import { VERSION } from "./version.js";

/** The parsed arguments, or the exit status when there is nothing to run (help, version, usage error). */
export type Parsed = { readonly args: CliArgs } | { readonly status: number };

/** A table's options (this command's, or `serve`'s) declared to yargs. */
export function withTable<T>(parser: Argv<T>, table: Readonly<Record<string, OptionSpec>>): Argv<T> {
  for (const [name, spec] of Object.entries(table))
    parser = parser.option(name, {
      describe:
        spec.type === "number"
          ? `${spec.describe} [integer: ${String(spec.min)} to ${String(spec.max)}]`
          : spec.describe,
      ...(spec.type === "number" ? { requiresArg: true } : { type: spec.type }),
      ...("default" in spec && spec.default !== undefined ? { defaultDescription: String(spec.default) } : {}),
      ...("choices" in spec ? { choices: [...spec.choices] } : {}),
    });
  return parser;
}

export async function parseFull(argv: readonly string[]): Promise<Parsed> {
  let usageError: string | undefined;
  const parser = yargs([...argv])
    .scriptName("acp-bridge")
    .usage(
      "$0 [options] -- <agent command> [args...]\n$0 [options] --connect URL\n\nTranslates the Agent Client Protocol between v1 and v2 peers.\n" +
        "(`$0 editor-mcp` is the stdio face of the editor's tools, which the bridge declares to its agent.)\n" +
        "`$0 serve … -- <agent command>` serves an agent over ACP's remote transport (`$0 serve --help`).\n" +
        "`$0 check [FILE]` checks a recorded conversation against the ACP schemas (`$0 check --help`).\n" +
        "`$0 doctor -- <agent command>` probes an agent and says what editors of each version get (`$0 doctor --help`).",
    )
    // Values reach readOptions as typed (yargs would read `1e3`, `0x10` or `abc` as numbers, NaN
    // included), without defaults (readOptions applies them), and a repeated option as an array.
    .parserConfiguration({ "populate--": true, "parse-numbers": false, "duplicate-arguments-array": true });
  const args = await withTable(parser, OPTIONS)
    .example("$0 -- my-v2-agent --stdio", "put a v1 editor in front of a v2 agent")
    .example("$0 --agent-protocol 1 -- old-agent", "skip probing: the agent speaks v1")
    .example(
      "$0 --stash compact -- agent",
      'show every peer what the other version cannot carry, in _meta["acp-bridge"]',
    )
    .version(VERSION)
    .alias("version", "V")
    .help()
    .alias("help", "h")
    .strict()
    .exitProcess(false)
    .fail((msg, err) => {
      usageError = msg || err.message;
    })
    .parseAsync();
  if (usageError !== undefined) {
    process.stderr.write(`acp-bridge: ${usageError}\nTry 'acp-bridge --help'.\n`);
    return { status: 2 };
  }
  if (args.help || args.version) return { status: 0 };
  const rest = ((args["--"] as unknown[] | undefined) ?? []).map(String);
  const command = [...args._.map(String), ...rest];
  const values: Record<string, unknown> = args;
  const read = readOptions((name) => values[name], command);
  if ("problem" in read) {
    process.stderr.write(`acp-bridge: ${read.problem}\nTry 'acp-bridge --help'.\n`);
    return { status: 2 };
  }
  return read;
}
