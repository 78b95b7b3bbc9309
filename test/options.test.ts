// The quick command-line parser (read at every start, without yargs) against the full one: every
// command line the quick parser accepts means exactly what yargs makes of it; the rest goes to yargs.
import { spawn } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OPTIONS, parseQuick, type OptionName } from "../src/options.js";
import { parseFull } from "../src/options-yargs.js";
import { numRuns } from "./support/properties.js";

const names = Object.keys(OPTIONS) as OptionName[];

/** One option occurrence, in the spellings an editor configuration uses and some it should not. */
const optionArgs: fc.Arbitrary<string[]> = fc.oneof(
  {
    arbitrary: fc.constantFrom(...names).chain((name): fc.Arbitrary<string[]> => {
      const spec = OPTIONS[name];
      const values =
        "choices" in spec
          ? fc.oneof(
              { arbitrary: fc.constantFrom(...spec.choices), weight: 4 },
              { arbitrary: fc.constantFrom("3", "x", "", "-1"), weight: 1 },
            )
          : spec.type === "number"
            ? fc.oneof(
                { arbitrary: fc.nat({ max: 1_000_000 }).map(String), weight: 4 },
                { arbitrary: fc.constantFrom("0", "007", "1e3", "1.5", "-5", "abc", "", "0x10"), weight: 1 },
              )
            : fc.oneof(fc.constantFrom("/tmp/trace.jsons", "x", "true", ""), fc.string({ maxLength: 4 }));
      if (spec.type === "boolean")
        return fc.constantFrom<string[]>([`--${name}`], [`--no-${name}`], [`--${name}`, "true"], [`--${name}=false`]);
      return values.chain((v) => fc.constantFrom<string[]>([`--${name}`, v], [`--${name}=${v}`]));
    }),
    weight: 8,
  },
  {
    arbitrary: fc.constantFrom<string[]>(
      ["--help"],
      ["-h"],
      ["--version"],
      ["--logLevel", "info"],
      ["--bogus"],
      ["positional"],
      ["-V"],
    ),
    weight: 1,
  },
);

const commandLine = fc
  .tuple(
    fc.array(optionArgs, { maxLength: 5 }),
    fc.oneof({ arbitrary: fc.constant(true), weight: 6 }, { arbitrary: fc.constant(false), weight: 1 }),
    fc.array(fc.constantFrom("agent", "--stdio", "-x", "--", "--log-level", "a b"), { maxLength: 3 }),
  )
  .map(([opts, dashdash, command]) => [...opts.flat(), ...(dashdash ? ["--"] : []), ...command]);

describe("command line", () => {
  it("reads an editor's usual command line without yargs", () => {
    const args = parseQuick([
      "--agent-protocol",
      "2",
      "--log-level=error",
      "--no-pass-through-roots-check",
      "--max-message-bytes",
      "1024",
      "--",
      "node",
      "agent.js",
      "--stdio",
    ]);
    expect(args).toMatchObject({
      agentProtocol: 2,
      clientProtocol: "auto",
      logLevel: "error",
      passThroughRootsCheck: false,
      maxMessageBytes: 1024,
      stash: "auto",
      command: ["node", "agent.js", "--stdio"],
    });
  });

  it("leaves help, errors and unusual spellings to yargs", () => {
    for (const argv of [["--help"], ["--agent-protocol", "3", "--", "a"], ["a"], ["--strict", "true", "--", "a"], []])
      expect(parseQuick(argv)).toBeUndefined();
  });

  it("means what yargs means whenever it reads a command line", async () => {
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(commandLine, async (argv) => {
        const quick = parseQuick(argv);
        if (quick === undefined) return;
        accepted++;
        const full = await parseFull(argv);
        expect(full).toEqual({ args: quick });
      }),
      { numRuns: numRuns() },
    );
    // The property says something only if the quick parser reads a good share of the cases.
    expect(accepted).toBeGreaterThan(numRuns() / 10);
  });
});

/** Runs the CLI with an agent that only leaves a mark; says whether it ran, and what the CLI wrote. */
async function launch(own: string[], launcher = "bin/acp-bridge.js") {
  const dir = mkdtempSync(join(tmpdir(), "acp-bridge-early-"));
  const mark = join(dir, "ran");
  const agent = [process.execPath, "-e", `require("node:fs").writeFileSync(${JSON.stringify(mark)}, "")`];
  // Asynchronous, so that the many cases below run side by side (each is mostly process start-up).
  const child = spawn(process.execPath, [launcher, ...own, "--", ...agent], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  child.stdin.end();
  const status = await new Promise<number | null>((done) => child.on("close", (code) => done(code)));
  const ran = existsSync(mark);
  rmSync(dir, { recursive: true, force: true });
  return { status, stdout, stderr, ran };
}

describe("integer options on the command line (built CLI)", () => {
  const integers = names.flatMap((name) => {
    const spec = OPTIONS[name];
    return spec.type === "number" ? [{ name, spec }] : [];
  });
  const refused: [string, string[]][] = [
    ...integers.flatMap(({ name, spec }): [string, string[]][] => [
      [name, [`--${name}=abc`]],
      [name, [`--${name}`, ""]],
      [name, [`--${name}`, String(spec.max + 1)]],
      [name, spec.min > 0 ? [`--${name}=${String(spec.min - 1)}`] : [`--${name}`, "-1"]],
    ]),
    ...["1e6", "0x10000", "2048.5", "-5", "Infinity", "99999999999999999999"].map((v): [string, string[]] => [
      "max-message-bytes",
      ["--max-message-bytes", v],
    ]),
    ["max-depth", ["--max-depth", "64", "--max-depth", "128"]],
  ];

  it.concurrent.each(refused)("refuses --%s in %j with status 2, naming it, and starts no agent", async (name, own) => {
    const r = await launch(own);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`--${name}`);
    expect(r.ran).toBe(false);
  });

  it.concurrent("takes 0 where it has a documented meaning, and each range's ends", async () => {
    const r = await launch([
      "--ack-grace-ms",
      "0",
      "--diff-file-max-bytes",
      "0",
      "--max-depth",
      "1024",
      "--max-sessions",
      "1",
      "--handshake-timeout-ms",
      String(2 ** 31 - 1),
    ]);
    expect(r.stderr).toBe("");
    expect(r.ran).toBe(true);
    // No grace: the agent may be ended before it leaves its mark, but the command line is good.
    const noGrace = await launch(["--shutdown-grace-ms", "0"]);
    expect(noGrace.stderr).toBe("");
    expect(noGrace.status).toBe(0);
  });

  it("reads both limits in the quick parser", () => {
    const args = parseQuick(["--max-sessions", "3", "--max-pending-requests", "9", "--", "agent"]);
    expect(args).toMatchObject({ maxSessions: 3, maxPendingRequests: 9 });
  });
});

describe("starting the agent before the bridge loads (built CLI)", () => {
  it.concurrent(
    "starts it at once for a command line in the usual spellings: from the launcher, before node's ES module loader",
    async () => {
      const r = await launch(["--log-level", "debug"]);
      expect(r.ran).toBe(true);
      expect(r.stderr).toContain("agent started before the bridge loads (by the launcher)");
    },
  );

  it.concurrent(
    "leaves a command line with a file to open first (--trace) to the bundle, which opens it, then starts",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "acp-bridge-early-trace-"));
      const trace = join(dir, "trace.jsonl");
      try {
        const r = await launch(["--log-level", "debug", "--trace", trace]);
        expect(r.ran).toBe(true);
        expect(r.stderr).toContain("agent started before the bridge loads\n");
        expect(r.stderr).not.toContain("(by the launcher)");
        expect(existsSync(trace)).toBe(true);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it.concurrent("starts it from the bundle when the launcher's early start is missing", async () => {
    // The launcher, the package file and the bundle without early.cjs: launch.ts starts the agent.
    const root = mkdtempSync(join(tmpdir(), "acp-bridge-no-early-"));
    try {
      mkdirSync(join(root, "bin"));
      mkdirSync(join(root, "dist"));
      for (const f of ["bin/acp-bridge.js", "bin/package.json", "package.json"])
        copyFileSync(new URL(`../${f}`, import.meta.url), join(root, f));
      cpSync(new URL("../dist/bundle", import.meta.url), join(root, "dist/bundle"), {
        recursive: true,
        filter: (src) => !src.endsWith("early.cjs"),
      });
      const r = await launch(["--log-level", "debug"], join(root, "bin/acp-bridge.js"));
      expect(r.ran).toBe(true);
      expect(r.stderr).toContain("agent started before the bridge loads\n");
      expect(r.stderr).not.toContain("(by the launcher)");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it.concurrent("leaves other spellings to the bridge, which still starts the agent", async () => {
    const r = await launch(["--logLevel", "debug"]);
    expect(r.ran).toBe(true);
    expect(r.stderr).not.toContain("agent started before the bridge loads");
  });

  it.concurrent.each([
    [["--max-sessions", "0"]],
    [["--max-pending-requests=0"]],
    [["--help"]],
    [["--log-level", "loud"]],
    [["--version"]],
  ])("starts no agent for %j", async (own) => {
    const r = await launch(own);
    expect(r.ran).toBe(false);
    expect(r.status).toBe(own[0] === "--help" || own[0] === "--version" ? 0 : 2);
  });
});
