// Every value of every option goes through one rule (readOption), whichever parser read it: a command
// line either parser accepts yields options within their documented ranges, and an integer option
// given anything but an integer in its range is a usage error naming it (status 2).
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { OPTIONS, optionGiven, parseQuick, type CliArgs, type OptionName, type OptionSpec } from "../src/options.js";
import { parseFull } from "../src/options-yargs.js";
import { numRuns } from "./support/properties.js";

const names = Object.keys(OPTIONS) as OptionName[];
const integerNames = names.filter((n) => OPTIONS[n].type === "number");
const camel = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
/** An argument yargs reads as short flags among which `-h` or `-V` (help or the version: status 0). */
const asksHelpOrVersion = (arg: string) => /^-[^-]*[hV]/.test(arg);

let stderr = "";
beforeEach(() => {
  stderr = "";
  vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

type IntegerSpec = Extract<OptionSpec, { type: "number" }>;
const integerSpec = (name: OptionName) => OPTIONS[name] as IntegerSpec;

/** An integer option's value that is not an integer in its range, in every spelling that tempts. */
function badInteger(spec: IntegerSpec): fc.Arbitrary<string> {
  const inRange = fc.integer({ min: spec.min, max: spec.max });
  return fc.oneof(
    fc.bigInt({ min: BigInt(spec.max) + 1n, max: 10n ** 30n }).map(String),
    ...(spec.min > 0 ? [fc.integer({ min: 0, max: spec.min - 1 }).map(String)] : []),
    inRange.map((n) => `-${String(n)}`),
    inRange.map((n) => `${String(n)}.5`),
    inRange.map((n) => `${String(n)}e0`),
    inRange.map((n) => `0x${n.toString(16)}`),
    inRange.map((n) => `+${String(n)}`),
    inRange.map((n) => ` ${String(n)}`),
    fc.constantFrom("", "abc", "NaN", "Infinity", "-Infinity", "1e3", "1_000", "١٢٣"),
    fc.string({ maxLength: 6 }).filter((s) => !/^[0-9]+$/.test(s)),
  );
}

/** A value for any option: mostly good, sometimes anything. */
function anyValue(name: OptionName): fc.Arbitrary<string[]> {
  const spec = OPTIONS[name];
  if (spec.type === "boolean") return fc.constantFrom([`--${name}`], [`--no-${name}`]);
  const value =
    spec.type === "number"
      ? fc.oneof({ arbitrary: fc.integer({ min: spec.min, max: spec.max }).map(String), weight: 3 }, badInteger(spec))
      : "choices" in spec
        ? fc.oneof({ arbitrary: fc.constantFrom(...spec.choices), weight: 3 }, fc.string({ maxLength: 4 }))
        : fc.string({ maxLength: 8 });
  return value.chain((v) => fc.constantFrom([`--${name}`, v], [`--${name}=${v}`]));
}

const commandLine = fc
  .array(fc.constantFrom(...names).chain(anyValue), { maxLength: 4 })
  .map((opts) => [...opts.flat(), "--", "agent"]);

/** What the README and --help promise of each option's value. */
function withinRanges(args: CliArgs): void {
  const values = args as unknown as Record<string, unknown>;
  for (const name of names) {
    const spec = OPTIONS[name];
    const v = values[camel(name)];
    if (spec.type === "number") {
      expect(Number.isSafeInteger(v), name).toBe(true);
      expect(v as number, name).toBeGreaterThanOrEqual(spec.min);
      expect(v as number, name).toBeLessThanOrEqual(spec.max);
    } else if (spec.type === "boolean") expect(typeof v, name).toBe("boolean");
    else if ("choices" in spec) {
      const allowed: unknown[] = spec.choices.map((c) => ("values" in spec ? spec.values[c as "auto"] : c));
      if (!("default" in spec)) allowed.push(undefined);
      expect(allowed, name).toContain(v);
    } else expect(v === undefined || (typeof v === "string" && v !== ""), name).toBe(true);
  }
}

describe("option values", () => {
  it("yields options within their documented ranges from any command line either parser accepts", async () => {
    await fc.assert(
      fc.asyncProperty(commandLine, async (argv) => {
        const quick = parseQuick(argv);
        if (quick) withinRanges(quick);
        const full = await parseFull(argv);
        if ("args" in full) withinRanges(full.args);
        // A generated value such as `-hS` is read by yargs as short flags: `-h`/`-V` print help or
        // the version (status 0); anything else it refuses is a usage error (status 2). A value that
        // only looks so may be neither: in `-  V` the first letter, a space, is followed by a
        // non-word character, so yargs gives it the rest as its value and reads no `-V` (status 2).
        else expect(argv.some(asksHelpOrVersion) ? [0, 2] : [2]).toContain(full.status);
      }),
      { numRuns: numRuns() },
    );
  });

  it("reads a value that only looks like short flags asking for the version as a usage error", async () => {
    // yargs gives `-  V`'s first letter, a space followed by a non-word character, the rest as its
    // value: no `-V` is read (the counterexample a CI run found for the property above).
    expect(await parseFull(["--connect", "-  V", "--", "agent"])).toEqual({ status: 2 });
    expect(await parseFull(["--connect", "-xV", "--", "agent"])).toEqual({ status: 0 });
  });

  it("refuses any integer option's value that is not an integer in its range, naming the option", async () => {
    const bad = fc
      .constantFrom(...integerNames)
      .chain((name) => fc.tuple(fc.constant(name), badInteger(integerSpec(name)), fc.boolean()));
    await fc.assert(
      fc.asyncProperty(bad, async ([name, value, joined]) => {
        const argv = [...(joined ? [`--${name}=${value}`] : [`--${name}`, value]), "--", "agent"];
        expect(parseQuick(argv)).toBeUndefined();
        stderr = "";
        // A separate value such as `-V` or `-xh` is read by yargs as short flags, as in the property
        // above: `-h`/`-V` print help or the version (status 0), and the option is not named. One
        // that only looks so (`-  V`, above) is a usage error like any other.
        const result = await parseFull(argv);
        if (!joined && asksHelpOrVersion(value) && !("args" in result) && result.status === 0) return;
        expect(result).toEqual({ status: 2 });
        expect(stderr).toContain(name);
      }),
      { numRuns: numRuns() },
    );
  });

  it("reads any integer in an option's range as that number, in both spellings and both parsers", async () => {
    const good = fc
      .constantFrom(...integerNames)
      .chain((name) =>
        fc.tuple(
          fc.constant(name),
          fc.integer({ min: integerSpec(name).min, max: integerSpec(name).max }),
          fc.boolean(),
        ),
      );
    await fc.assert(
      fc.asyncProperty(good, async ([name, n, joined]) => {
        const argv = [...(joined ? [`--${name}=${String(n)}`] : [`--${name}`, String(n)]), "--", "agent"];
        const expected = { [camel(name)]: n };
        expect(parseQuick(argv)).toMatchObject(expected);
        expect(await parseFull(argv)).toMatchObject({ args: expected });
      }),
      { numRuns: numRuns() },
    );
  });

  it("refuses an integer option given twice rather than pick one", async () => {
    expect(await parseFull(["--max-depth", "64", "--max-depth", "128", "--", "agent"])).toEqual({ status: 2 });
    expect(stderr).toContain("--max-depth is given more than once");
  });

  it("refuses an integer option with no value", async () => {
    expect(await parseFull(["--max-message-bytes", "--", "agent"])).toEqual({ status: 2 });
    expect(stderr).toContain("max-message-bytes");
  });
});

describe("an option named on the command line (optionGiven)", () => {
  it("sees it in every spelling a parser reads, before `--` only, by its whole name", async () => {
    const name = "diff-file-max-bytes";
    for (const [argv, value] of [
      [["--diff-file-max-bytes", "5", "--connect", "ws://x"], 5],
      [["--connect", "ws://x", "--diff-file-max-bytes=0"], 0],
      [["--diffFileMaxBytes", "7", "--connect", "ws://x"], 7],
    ] as const) {
      expect(optionGiven(argv, name)).toBe(true);
      // Each spelling is one a parser takes, with that value.
      expect(await parseFull(argv)).toMatchObject({ args: { diffFileMaxBytes: value } });
    }
    for (const argv of [
      ["--connect", "ws://x"],
      ["--log-level", "error", "--", "agent", "--diff-file-max-bytes", "5"],
      ["--diff-file-max-bytes-x", "5"],
      ["--trace=--diff-file-max-bytes"],
    ])
      expect(optionGiven(argv, name)).toBe(false);
  });
});
