// `--help` of a sub-command with an option table of its own (`check`, `doctor`): its usage, what it
// does, then one line per option, as the tables declare them.

/** What `--help` reads of an option of such a table. */
export interface HelpOption {
  /** The value's name; none for a flag. */
  readonly metavar?: string;
  readonly default?: number;
  /** `--help`'s text (plain). */
  readonly describe: string;
}

export function subcommandHelp(
  usage: string,
  about: readonly string[],
  table: Readonly<Record<string, HelpOption>>,
): string {
  const rows = Object.entries(table).map(([name, spec]) => {
    const left = `  --${name} ${spec.metavar ?? ""}`.padEnd(28);
    const dflt = spec.default === undefined ? "" : ` [default: ${String(spec.default)}]`;
    return `${left}${spec.describe}${dflt}`;
  });
  return [usage, "", ...about, "", "Options:", ...rows, `  ${"--help, -h".padEnd(26)}this text`, ""].join("\n");
}
