// The command-line options, declared once: each option's name, type, default, range, `--help` text
// and README text are written here and nowhere else. yargs (help, usage errors, every spelling it
// accepts) is built from this table in options-yargs.ts, and so is `parseQuick`, which reads the
// plain spellings an editor configuration uses without loading yargs (start-up budget: yargs costs
// tens of ms); both hand the values they read to `readOptions`, the one place a value is checked. The
// engine's options (engine/config.ts) and the README's options table (docs/options-table.ts) are
// derived from it.
import { DEFAULT_DIFF_RENDERING, DIFF_RENDERINGS } from "./convert/diff-options.js";
import type { Platform } from "./convert/directories.js";
import type { StashSetting } from "./convert/stash.js";
import type { ProtocolChoice } from "./engine/handshake.js";
import type { LogLevel } from "./log.js";
import { DEFAULT_MAX_DEPTH } from "./wire/envelope.js";
import { limits } from "../mappings/limits.js";

interface Described {
  /** `--help`'s text (plain). */
  readonly describe: string;
  /** The README's text (Markdown). */
  readonly doc: string;
}

/** An integer option: decimal digits only, from `min` to `max` (a typo must never turn a limit off). */
interface IntegerSpec extends Described {
  readonly type: "number";
  readonly default: number;
  readonly min: number;
  readonly max: number;
}

interface ChoiceSpec extends Described {
  readonly type: "string";
  readonly choices: readonly string[];
  /** The value each choice stands for, when it is not the choice itself. */
  readonly values?: Readonly<Record<string, unknown>>;
  readonly default?: string;
  /** The README's default when there is none (what absent means). */
  readonly docDefault?: string;
}

interface PathSpec extends Described {
  readonly type: "string";
  /** The value's name in the README (`--trace FILE`). */
  readonly metavar: string;
}

interface FlagSpec extends Described {
  readonly type: "boolean";
  readonly default: boolean;
}

export type OptionSpec = IntegerSpec | ChoiceSpec | PathSpec | FlagSpec;

/** The largest delay setTimeout takes: Node fires a longer one at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** A message or a file read is decoded to one string: V8's strings stop short of 512 MiB. */
const MAX_TEXT_BYTES = 256 * 1024 * 1024;
/** Far above any editor's need; a bound still, so that a mistyped count cannot lift the limit. */
const MAX_COUNT = 1024 * 1024;

export const OPTIONS = {
  "agent-protocol": {
    type: "string",
    describe: "ACP version spoken to the agent (auto: probe, the client's own version first)",
    doc: "version spoken to the agent; `auto` offers the client's own version first, then the other (on the agent's answer, on `-32022`, or on a strict `-32600`/`-32602`)",
    choices: ["auto", "1", "2"],
    values: { auto: "auto", "1": 1, "2": 2 } satisfies Record<string, ProtocolChoice>,
    default: "auto",
  },
  "client-protocol": {
    type: "string",
    describe: "ACP version spoken to the client (auto: the version it requests)",
    doc: "version spoken to the client; `auto` serves the version it requests (`0` is refused with `-32022`, `3+` is served as 2)",
    choices: ["auto", "1", "2"],
    values: { auto: "auto", "1": 1, "2": 2 } satisfies Record<string, ProtocolChoice>,
    default: "auto",
  },
  stash: {
    type: "string",
    describe:
      'what a version cannot carry, kept in _meta["acp-bridge"] for a chained bridge: auto (full toward a peer that named itself a bridge, nothing toward others), or off|compact|full toward every peer (debugging)',
    doc: "what the other version cannot carry, kept in `_meta[\"acp-bridge\"]` for a chained bridge: `auto` gives it, complete, only to a peer that named itself a bridge; a level forces it toward every peer, for debugging ([the stash](#the-stash)): `compact` keeps a v1 diff's exact texts (all but an added file's, whose patch is its text), `full` also keeps the other large payloads (added files' texts, raw terminal bytes)",
    choices: ["auto", "off", "compact", "full"] satisfies StashSetting[],
    default: "auto",
  },
  "mcp-unsupported": {
    type: "string",
    describe: "MCP servers of a transport the agent does not support: reject the request, or drop them with a warning",
    doc: "MCP servers whose transport the agent does not support (e.g. stdio without `session.mcp.stdio`, SSE toward v2): refuse the request naming the server, or drop them with a warning",
    choices: ["reject", "drop"],
    default: "reject",
  },
  "max-message-bytes": {
    type: "number",
    describe: "largest message accepted from either side",
    doc: "largest message accepted from either side; a larger request is answered `-32600` wherever its id is, a larger answer settles its request with `-32603`",
    default: 32 * 1024 * 1024,
    // Smaller would refuse an ordinary `initialize`.
    min: 1024,
    max: MAX_TEXT_BYTES,
  },
  "max-depth": {
    type: "number",
    describe: "deepest nesting of arrays and objects accepted in a message (checked before parsing)",
    doc: "deepest nesting of arrays and objects accepted in a message, checked before parsing (`-32600 too_deep`)",
    default: DEFAULT_MAX_DEPTH,
    // Ordinary messages nest up to about 10 (a stashed tool call's content); the bridge's recursive
    // walks overflow the stack a few thousand levels down, so deeper is never safe.
    min: 16,
    max: 1024,
  },
  "pass-through-roots-check": {
    type: "boolean",
    describe:
      "same version both sides: still refuse invalid additionalDirectories (turn off with --no-pass-through-roots-check)",
    doc: "same version both sides: forward `additionalDirectories` unchecked (by default pass-through refuses invalid roots like the translating modes)",
    default: true,
  },
  "editor-tools": {
    type: "string",
    describe:
      "v1 client, v2 agent: offer the agent the client's files and terminals as an MCP server (auto: when the client advertises them and the agent takes an MCP transport)",
    doc: "v1 client, v2 agent: offer the agent the client's `fs` and `terminal` methods, which v2 removed, as an MCP server named `editor` ([The editor's tools](#the-editors-tools)); `auto` when the client advertises them and the agent takes MCP-over-ACP, HTTP or stdio servers",
    choices: ["auto", "off"],
    default: "auto",
  },
  "editor-tools-any-path": {
    type: "boolean",
    describe:
      "editor tools: allow any absolute path, not only those inside the session's cwd and additionalDirectories",
    doc: "editor tools: allow any absolute path; by default a path outside the session's `cwd` and `additionalDirectories` is a tool error and the client is never asked",
    default: false,
  },
  "editor-tools-max-bytes": {
    type: "number",
    describe: "editor tools: largest text one tool call reads, writes or returns as terminal output",
    doc: "editor tools: largest text one tool call reads, writes or returns as terminal output; past it, a tool error (every bound: [SECURITY.md](SECURITY.md#limits-and-their-options))",
    default: limits.editorToolBytes.default,
    min: 1024,
    max: MAX_TEXT_BYTES,
  },
  "editor-tools-max-concurrent": {
    type: "number",
    describe: "editor tools: tool calls in flight per session; more are tool errors at once",
    doc: "editor tools: tool calls in flight per session; a further one is a tool error at once",
    default: limits.editorToolCalls.default,
    min: 1,
    max: 1024,
  },
  "editor-tools-timeout-ms": {
    type: "number",
    describe: "editor tools: longest wait for one answer of the client, and run_in_terminal's default timeout",
    doc: "editor tools: the longest wait for one answer of the client (then a tool error), and `run_in_terminal`'s timeout when the model gives none",
    default: 600_000,
    min: 1,
    max: MAX_TIMER_MS,
  },
  "max-sessions": {
    type: "number",
    describe: "sessions whose translation state is kept at once (the least recently used idle one is forgotten first)",
    doc: "sessions whose translation state is kept at once: the least recently used idle one is forgotten first; when all have a turn in flight, a request opening another is answered `-32603` `max_sessions` (every bound: [SECURITY.md](SECURITY.md#limits-and-their-options))",
    default: limits.sessions.default,
    min: 1,
    max: MAX_COUNT,
  },
  "max-pending-requests": {
    type: "number",
    describe: "unanswered requests accepted from each peer; more are refused at once",
    doc: "unanswered requests accepted from each peer; more are answered `-32603` `max_pending_requests` at once",
    default: limits.pendingRequests.default,
    min: 1,
    max: MAX_COUNT,
  },
  "handshake-timeout-ms": {
    type: "number",
    describe: "time the agent has to answer initialize",
    doc: "time the agent has to answer `initialize`",
    default: 30_000,
    min: 1,
    max: MAX_TIMER_MS,
  },
  "shutdown-grace-ms": {
    type: "number",
    describe: "after the client leaves: wait this long before SIGTERM, and again before SIGKILL (0: no wait)",
    doc: "after the client leaves: close the agent's stdin, wait this long, SIGTERM to the agent's process group, wait again, SIGKILL; `0` does not wait",
    default: 2000,
    min: 0,
    max: MAX_TIMER_MS,
  },
  "idle-settle-ms": {
    type: "number",
    describe: "v1 client, v2 agent: complete a turn this long after an idle from an agent that never reports running",
    doc: "v1 client, v2 agent: for agents that never report `running`, complete a turn this long after an idle",
    default: 1500,
    min: 1,
    max: MAX_TIMER_MS,
  },
  "forward-prompt-echo": {
    type: "boolean",
    describe: "v1 client, v2 agent: forward the agent's echo of the client's own prompt",
    doc: "v1 client, v2 agent: forward the agent's echo of the client's own prompt",
    default: false,
  },
  "diff-rendering": {
    type: "string",
    describe:
      "v2 diffs for v1 clients: full (exact file texts when the file can be read, else the hunk texts), hunks, safe (text unless exact), text (markdown)",
    doc: "v2 diffs for v1 clients (see [Diffs](#diffs)): `full` a v1 diff always, with the exact full file texts when the bridge can read the file, else the hunk texts; `hunks` the hunk texts, no file read; `safe` a v1 diff only with exact full texts, else the patch as Markdown text; `text` the patch as Markdown text always",
    choices: DIFF_RENDERINGS,
    default: DEFAULT_DIFF_RENDERING,
  },
  "diff-file-max-bytes": {
    type: "number",
    describe:
      "largest file read to make diffs exact (v1 clients: full texts; v2 clients: snippets placed); 0: none; with --connect, 0 unless given",
    doc: "largest file the bridge reads to make diffs exact (full texts for v1 clients, v1 snippets placed for v2 clients); `0` reads none; with `--connect`, `0` unless given: a remote agent's paths name files on its own machine",
    default: 2 * 1024 * 1024,
    min: 0,
    max: MAX_TEXT_BYTES,
  },
  "ack-grace-ms": {
    type: "number",
    describe:
      "v2 client, v1 agent: acknowledge a prompt this long after forwarding it when the agent says nothing sooner (0: at once)",
    doc: "v2 client, v1 agent: acknowledge a prompt this long after forwarding it when the agent says nothing sooner; `0` acknowledges it as it is forwarded",
    default: 100,
    min: 0,
    max: MAX_TIMER_MS,
  },
  platform: {
    type: "string",
    describe: "path rules of the agent's machine, for additionalDirectories checks",
    doc: "path rules of the agent's machine, for `additionalDirectories` checks",
    choices: ["posix", "windows"] satisfies Platform[],
    docDefault: "this machine",
  },
  strict: {
    type: "boolean",
    describe: "validate every message the bridge writes against its side's schema and log violations (slower)",
    doc: "validate every message the bridge writes against its side's official schema (compiled on first use) and log each violation on stderr; for diagnosis, slower",
    default: false,
  },
  trace: {
    type: "string",
    describe: "append every message both ways to this file (the ACP conductor's .jsons trace format)",
    doc: "append every message both ways in the ACP conductor's `.jsons` trace format; a file that cannot be opened is a usage error (status 2, no agent started), a write that fails later stops the trace with an error logged, not the session",
    metavar: "FILE",
  },
  report: {
    type: "string",
    describe:
      "at exit, write what the bridge did to this file (markdown; JSON when it ends in .json) and one summary line on stderr",
    doc: "at exit (also after the agent crashed, on SIGTERM/SIGINT/SIGHUP, when the client closes stdin), write what the bridge did: versions, message counts, every loss of the translation with a redacted example, emulations, errors returned, diffs, the stash; markdown, or JSON when `FILE` ends in `.json` ([Reporting what the bridge did](#reporting-what-the-bridge-did---report)); costs the fast path; a file that cannot be opened is a usage error (status 2, no agent started)",
    metavar: "FILE",
  },
  connect: {
    type: "string",
    describe:
      "reach the agent over ACP's remote transport instead of starting one: ws:// or wss:// (WebSocket), http:// or https:// (Streamable HTTP); no agent command then",
    doc: "the agent is remote: `ws://`/`wss://` URLs use ACP's WebSocket profile, `http://`/`https://` its Streamable HTTP profile (the RFD's `/acp` endpoint); replaces `-- <agent command>` (README, \"Remote agents\")",
    metavar: "URL",
  },
  "header-env": {
    type: "string",
    describe:
      "with --connect: HTTP headers whose values come from environment variables, NAME=VAR[,NAME=VAR...] (Authorization gets 'Bearer ' before a value without a scheme)",
    doc: "with `--connect`: headers sent on the connection, each `NAME=VAR` taking its value from the environment variable `VAR` (never from the command line, so no secret shows in a process list or a trace); `Authorization=VAR` sends `Bearer $VAR` unless the value already names a scheme; several are comma-separated; an unset variable is a usage error",
    metavar: "NAME=VAR",
  },
  "log-level": {
    type: "string",
    describe: "diagnostics on stderr",
    doc: "diagnostics, on stderr only (stdout is protocol)",
    choices: ["silent", "error", "warn", "info", "debug"] satisfies LogLevel[],
    default: "warn",
  },
} as const satisfies Record<string, OptionSpec>;

export type OptionName = keyof typeof OPTIONS;

type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;

/** What an option's value is, once read: its choice's value, the number, the flag, the path. */
type ValueOf<S> = S extends { readonly type: "number" }
  ? number
  : S extends { readonly type: "boolean" }
    ? boolean
    : S extends { readonly values: infer V }
      ? V[keyof V]
      : S extends { readonly choices: readonly (infer C)[] }
        ? C | (S extends { readonly default: string } ? never : undefined)
        : string | undefined;

/** Every option's value of a table, by its camel-cased name (`--max-depth` → `maxDepth`). */
export type OptionsOf<T> = { readonly [K in keyof T & string as Camel<K>]: ValueOf<T[K]> };

/** Every option's value, by its camel-cased name. */
export type Options = OptionsOf<typeof OPTIONS>;

/** Everything the command line says, typed. */
export interface CliArgs extends Options {
  /** The agent command and its arguments: empty exactly when `--connect` names a remote agent. */
  readonly command: readonly string[];
}

const camel = (name: string): string => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

const DECIMAL = /^[0-9]+$/;

/** A value, or what is wrong with it (a usage error naming the option). */
type Read = { readonly value: unknown } | { readonly problem: string };

function choiceValue(spec: ChoiceSpec, choice: string): unknown {
  return spec.values ? spec.values[choice] : choice;
}

function defaultValue(spec: OptionSpec): unknown {
  if (!("default" in spec) || spec.default === undefined) return undefined;
  return "choices" in spec ? choiceValue(spec, spec.default) : spec.default;
}

/**
 * The one rule for every option's value, whichever parser read it. `raw` is the text typed (a
 * boolean for a flag); `undefined`: absent, the default; an array: the option was given more than once.
 */
function readOption(name: string, spec: OptionSpec, raw: unknown): Read {
  if (raw === undefined) return { value: defaultValue(spec) };
  if (Array.isArray(raw)) return { problem: `--${name} is given more than once` };
  const got = JSON.stringify(raw);
  if (spec.type === "boolean")
    return typeof raw === "boolean" ? { value: raw } : { problem: `--${name} takes no value (got ${got})` };
  if (spec.type === "number") {
    // Decimal digits only: `1e3`, `0x10`, `1.5`, `-5`, `Infinity` and `` are refused, not reinterpreted.
    const n = typeof raw === "string" && DECIMAL.test(raw) ? Number(raw) : Number.NaN;
    return n >= spec.min && n <= spec.max
      ? { value: n }
      : { problem: `--${name} must be an integer from ${String(spec.min)} to ${String(spec.max)} (got ${got})` };
  }
  if ("choices" in spec) {
    const choice = spec.choices.find((c) => c === raw);
    return choice === undefined
      ? { problem: `--${name} must be one of ${spec.choices.join(", ")} (got ${got})` }
      : { value: choiceValue(spec, choice) };
  }
  return typeof raw === "string" && raw !== ""
    ? { value: raw }
    : { problem: `--${name} needs a ${spec.metavar.toLowerCase()} name (got ${got})` };
}

const NAMES = Object.keys(OPTIONS) as OptionName[];

/**
 * Whether the command line names `--name` itself (with its value, after `=` or as the next word),
 * in any spelling a parser reads (yargs takes the camel-cased one too), before `--`: what an option
 * whose default depends on another (`--diff-file-max-bytes` with `--connect`) must know.
 */
export function optionGiven(argv: readonly string[], name: OptionName): boolean {
  const spellings = new Set([`--${name}`, `--${camel(name)}`]);
  return argv.slice(0, dashDash(argv)).some((a) => spellings.has(a.split("=")[0] ?? ""));
}

/** Where the bridge's own options end: the index of `--`, or the command line's length. */
function dashDash(argv: readonly string[]): number {
  const i = argv.indexOf("--");
  return i === -1 ? argv.length : i;
}

/** The values of a table's options (this one's, or `serve`'s), by name; or the first usage error. */
export function readTable<T extends Record<string, OptionSpec>>(
  table: T,
  raw: (name: keyof T & string) => unknown,
  into: Record<string, unknown> = {},
): { readonly values: OptionsOf<T> } | { readonly problem: string } {
  for (const name of Object.keys(table)) {
    const read = readOption(name, table[name] as OptionSpec, raw(name));
    if ("problem" in read) return read;
    into[camel(name)] = read.value;
  }
  return { values: into as OptionsOf<T> };
}

/** Typed arguments from the raw values of either parser, by option name; or the first usage error. */
export function readOptions(
  raw: (name: OptionName) => unknown,
  command: readonly string[],
): { readonly args: CliArgs } | { readonly problem: string } {
  const read = readTable(OPTIONS, raw, { command });
  if ("problem" in read) return read;
  const args = read.values as CliArgs;
  // Exactly one agent: a command after `--`, or a remote one.
  if (args.connect === undefined && command.length === 0) return { problem: "missing the agent command after --" };
  if (args.connect !== undefined && command.length > 0)
    return { problem: "--connect reaches a remote agent: give no agent command with it" };
  if (args.connect === undefined && args.headerEnv !== undefined) return { problem: "--header-env needs --connect" };
  return { args };
}

/** Every option's default (what the engine uses for an option its caller leaves out). */
export const DEFAULT_OPTIONS: Options = Object.fromEntries(
  NAMES.map((name) => [camel(name), defaultValue(OPTIONS[name])]),
) as unknown as Options;

function isOptionName(name: string): name is OptionName {
  return Object.hasOwn(OPTIONS, name);
}

/**
 * The common spellings, read without yargs: `--name value`, `--name=value`, `--flag`, `--no-flag`,
 * each option at most once, then `--` and the agent command. Anything else (help, version, an
 * unknown or repeated option, a value yargs would read differently, a value `readOptions` refuses,
 * no `--`) returns undefined: yargs then parses the command line, and reports what is wrong.
 */
export function parseQuick(argv: readonly string[]): CliArgs | undefined {
  // Without `--`: only a remote agent's command line (`--connect URL`, no agent command).
  const dashdash = dashDash(argv);
  const command = argv.slice(dashdash + 1);
  const values = new Map<OptionName, string | boolean>();
  for (let i = 0; i < dashdash; i++) {
    const arg = argv[i] ?? "";
    if (!arg.startsWith("--")) return undefined;
    let name = arg.slice(2);
    let value: string | undefined;
    const eq = name.indexOf("=");
    if (eq !== -1) {
      value = name.slice(eq + 1);
      name = name.slice(0, eq);
    }
    let negated = false;
    if (!isOptionName(name) && name.startsWith("no-") && value === undefined) {
      negated = true;
      name = name.slice(3);
    }
    if (!isOptionName(name) || values.has(name)) return undefined;
    const spec: OptionSpec = OPTIONS[name];
    if (spec.type === "boolean") {
      // yargs would read a following `true`/`false` as the flag's value.
      const next = argv[i + 1];
      if (value !== undefined || next === "true" || next === "false") return undefined;
      values.set(name, !negated);
      continue;
    }
    if (negated) return undefined;
    if (value === undefined) {
      if (i + 1 >= dashdash) return undefined;
      value = argv[++i] ?? "";
    }
    if (value === "" || value.startsWith("-")) return undefined;
    values.set(name, value);
  }
  const read = readOptions((name) => values.get(name), command);
  return "args" in read ? read.args : undefined;
}
