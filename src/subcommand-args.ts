// The command-line rules the offline sub-commands (check, convert, doctor) share: `--name value`
// or `--name=value`, each option once, `--help`/`-h`, `--` ending the options; and one reading of
// a number or a choice, so a typo is the same usage error in every sub-command.

/** What a sub-command's arguments hold, before their values are read. */
export interface ReadArgs {
  readonly values: ReadonlyMap<string, string>;
  /** The value-less options given (`--json`). */
  readonly flags: ReadonlySet<string>;
  /** The arguments that are not options (files), and everything after `--`. */
  readonly operands: readonly string[];
  /** Whether `--` was given (doctor's agent command follows it). */
  readonly dashdash: boolean;
}

export interface ArgRules {
  /** The options that take a value, by name. */
  readonly options: Readonly<Record<string, unknown>>;
  /** The options that take none. */
  readonly flags?: readonly string[];
  /** Short spellings: `-o` → `output`. */
  readonly short?: Readonly<Record<string, string>>;
  /** Whether operands may come before `--` (files); if not, one is an unknown argument. */
  readonly operands: boolean;
}

type Problem = { readonly problem: string };

export function readArgs(argv: readonly string[], rules: ArgRules): ReadArgs | Problem | "help" {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  const operands: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--") return { values, flags, operands: [...operands, ...argv.slice(i + 1)], dashdash: true };
    if (arg === "-" || !arg.startsWith("-")) {
      if (!rules.operands) return { problem: `unknown argument ${arg}` };
      operands.push(arg);
      continue;
    }
    if (arg === "--help" || arg === "-h") return "help";
    const short = rules.short?.[arg];
    const eq = short === undefined ? arg.indexOf("=") : -1;
    const name = short ?? arg.slice(2, eq === -1 ? undefined : eq);
    const unknown = rules.operands ? `unknown option ${arg}` : `unknown argument ${arg}`;
    if (short === undefined && !arg.startsWith("--")) return { problem: unknown };
    if (rules.flags?.includes(name) === true) {
      if (eq !== -1) return { problem: unknown };
      flags.add(name);
      continue;
    }
    if (!Object.hasOwn(rules.options, name)) return { problem: unknown };
    if (values.has(name)) return { problem: `--${name} is given more than once` };
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) return { problem: `--${name} needs a value` };
    values.set(name, value);
  }
  return { values, flags, operands, dashdash: false };
}

const DECIMAL = /^[0-9]+$/;

/** `--name`'s integer in decimal digits within [min, max], its default when absent. */
export function integerArg(
  name: string,
  raw: string | undefined,
  spec: { readonly default: number; readonly min: number; readonly max: number },
): number | Problem {
  const n = raw === undefined ? spec.default : DECIMAL.test(raw) ? Number(raw) : Number.NaN;
  if (n >= spec.min && n <= spec.max) return n;
  return {
    problem: `--${name} must be an integer from ${String(spec.min)} to ${String(spec.max)} (got ${JSON.stringify(raw)})`,
  };
}

/** `--name`'s value among `choices`; undefined when absent. */
export function choiceArg<T extends string>(
  name: string,
  raw: string | undefined,
  choices: readonly T[],
): T | Problem | undefined {
  if (raw === undefined) return undefined;
  return (
    choices.find((c) => c === raw) ?? {
      problem: `--${name} must be one of ${choices.join(", ")} (got ${JSON.stringify(raw)})`,
    }
  );
}

/** At most one file operand; `-` (stdin) when none. */
export function oneFile(operands: readonly string[]): string | Problem {
  if (operands.length > 1)
    return { problem: `one file at a time (got ${operands.map((f) => JSON.stringify(f)).join(", ")})` };
  return operands[0] ?? "-";
}
