// `acp-bridge serve --listen HOST:PORT [options] -- <agent command> [args...]` (issue 22): the
// command line, its checks (usage errors exit 2 before anything listens), the listening line on
// stderr, and the shutdown on SIGTERM/SIGINT. Loaded only for `serve` (cli.ts): nothing of it, of
// `ws` or of the SDK's server loads on the stdio path.
import { accessSync, constants, readFileSync } from "node:fs";
import { dirname, extname, resolve } from "node:path";
import yargs from "yargs";
import { createBridgeConfig, joinOnlookers } from "../engine/config.js";
import { freshToken } from "../editor/token.js";
import { createLogger } from "../log.js";
import { TraceWriter } from "../transport/trace.js";
import { ReportWriter } from "../report/index.js";
import { OPTIONS, readTable, type CliArgs, type OptionsOf } from "../options.js";
import { withTable } from "../options-yargs.js";
import { VERSION } from "../version.js";
import { isLoopback, serve } from "./serve.js";
import { SERVE_OPTIONS } from "./serve-options.js";

type ServeArgs = OptionsOf<typeof SERVE_OPTIONS>;

function usage(problem: string): number {
  process.stderr.write(`acp-bridge serve: ${problem}\nTry 'acp-bridge serve --help'.\n`);
  return 2;
}

/** The trace or report file of connection `n`: `run.jsons` → `run-3.jsons`. */
function perConnection(path: string, n: number): string {
  const ext = extname(path);
  return `${path.slice(0, path.length - ext.length)}-${String(n)}${ext}`;
}

/** `HOST:PORT` (`[v6]:PORT`), or undefined. */
function hostPort(listen: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):([0-9]{1,5})$/.exec(listen);
  const host = m?.[1] ?? m?.[2];
  const port = Number(m?.[3]);
  return host !== undefined && port <= 65_535 ? { host, port } : undefined;
}

type Parsed = { readonly bridge: CliArgs; readonly serve: ServeArgs } | { readonly status: number };

async function parse(argv: readonly string[]): Promise<Parsed> {
  let usageError: string | undefined;
  const parser = yargs([...argv])
    .scriptName("acp-bridge serve")
    .usage(
      "$0 --listen HOST:PORT [options] -- <agent command> [args...]\n\n" +
        "Serves a stdio agent over ACP's remote transport (Streamable HTTP and WebSocket on /acp), one agent " +
        "process per connection, each client in its own ACP version.",
    )
    .parserConfiguration({ "populate--": true, "parse-numbers": false, "duplicate-arguments-array": true });
  const args = await withTable(withTable(parser, SERVE_OPTIONS), OPTIONS)
    .example("$0 --listen 127.0.0.1:8765 -- my-agent --stdio", "serve on the loopback, a fresh token on stderr")
    .example(
      "ACP_TOKEN=… $0 --listen 0.0.0.0:8765 --token-env ACP_TOKEN -- my-agent",
      "serve on every interface (a token of your own is then required)",
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
  if (usageError !== undefined) return { status: usage(usageError) };
  if (args.help || args.version) return { status: 0 };
  const rest = ((args["--"] as unknown[] | undefined) ?? []).map(String);
  const [command, ...commandArgs] = [...args._.map(String), ...rest];
  if (command === undefined) return { status: usage("missing the agent command after --") };
  const values: Record<string, unknown> = args;
  const own = readTable(SERVE_OPTIONS, (name) => values[name]);
  if ("problem" in own) return { status: usage(own.problem) };
  const bridge = readTable(OPTIONS, (name) => values[name], { command: [command, ...commandArgs] });
  if ("problem" in bridge) return { status: usage(bridge.problem) };
  return { bridge: bridge.values as CliArgs, serve: own.values };
}

export async function runServe(argv: readonly string[]): Promise<number> {
  const parsed = await parse(argv);
  if ("status" in parsed) return parsed.status;
  const { serve: opts } = parsed;
  const {
    command: [command, ...commandArgs],
    maxMessageBytes,
    shutdownGraceMs,
    strict: strictChecks,
    trace,
    report,
    logLevel,
    connect,
    headerEnv,
    ...options
  } = parsed.bridge;
  if (command === undefined) return usage("missing the agent command after --");
  // Serving a remote agent would chain two transports: run a bridge with --connect on the far side instead.
  if (connect !== undefined || headerEnv !== undefined)
    return usage("--connect and --header-env do not apply to serve");
  if (opts.listen === undefined) return usage("--listen HOST:PORT is required");
  const at = hostPort(opts.listen);
  if (!at) return usage(`--listen must be HOST:PORT with a port from 0 to 65535 (got ${JSON.stringify(opts.listen)})`);
  // One trace or report file for many connections would interleave them: one file per connection.
  for (const [what, path] of [
    ["trace", trace],
    ["report", report],
  ] as const)
    if (path !== undefined)
      try {
        accessSync(dirname(resolve(path)), constants.W_OK);
      } catch {
        return usage(`cannot write ${what} files beside '${path}'`);
      }
  const loopback = isLoopback(at.host);
  let token: string;
  if (opts.tokenEnv !== undefined) {
    const value = process.env[opts.tokenEnv];
    if (value === undefined || value.length < 16)
      return usage(
        `the environment variable ${opts.tokenEnv} (--token-env) must hold a token of 16 characters or more`,
      );
    token = value;
  } else if (!loopback)
    return usage(
      `refusing to listen on ${at.host}, which is not the loopback, with a generated token: give one with --token-env VAR`,
    );
  else token = freshToken();
  if ((opts.tlsCert === undefined) !== (opts.tlsKey === undefined))
    return usage("--tls-cert and --tls-key go together");
  let tls: { cert: Buffer; key: Buffer } | undefined;
  if (opts.tlsCert !== undefined && opts.tlsKey !== undefined)
    try {
      tls = { cert: readFileSync(opts.tlsCert), key: readFileSync(opts.tlsKey) };
    } catch (e) {
      return usage(`cannot read the TLS files: ${(e as Error).message}`);
    }
  if (opts.maxBodyBytes >= opts.maxBufferedBytes)
    return usage("--max-body-bytes must be below --max-buffered-bytes (a message waiting counts toward both)");

  const log = createLogger(logLevel);
  const strict = strictChecks ? (await import("../schema/strict.js")).strictHooks(log) : undefined;
  let serving;
  try {
    serving = await serve({
      host: at.host,
      port: at.port,
      token,
      loopback,
      tls,
      maxConnections: opts.maxConnections,
      maxBodyBytes: opts.maxBodyBytes,
      maxBufferedBytes: opts.maxBufferedBytes,
      maxOutputStallMs: opts.maxOutputStallMs,
      idleTimeoutMs: opts.idleTimeoutMs,
      command,
      args: commandArgs,
      bridge: (n) => {
        // Connection n traces and reports into the files --trace and --report name, `-n` before the extension.
        let writer: TraceWriter | undefined;
        if (trace !== undefined)
          try {
            writer = TraceWriter.open(perConnection(trace, n), log);
          } catch (e) {
            log.error(`connection ${String(n)}: ${(e as Error).message}; not traced`);
          }
        let reporter: ReportWriter | undefined;
        if (report !== undefined)
          try {
            reporter = ReportWriter.open(perConnection(report, n));
          } catch (e) {
            log.error(`connection ${String(n)}: ${(e as Error).message}; no report`);
          }
        // The report sees every message: its hooks turn the core's fast path off (engine/fast-lines.ts).
        const seen = reporter?.collector;
        const hooks = joinOnlookers([writer?.onlooker(), strict, seen], seen);
        const close = async (status: number | undefined): Promise<void> => {
          // A run that failed outright ends the connection as an internal error would (status 1).
          const done = reporter?.finish({ status: status ?? 1 });
          if (done && (done.failed || logLevel !== "silent"))
            process.stderr.write(`acp-bridge serve: connection ${String(n)}: ${done.line}\n`);
          await writer?.close();
        };
        return { config: createBridgeConfig(options, log, hooks), close };
      },
      maxMessageBytes,
      shutdownGraceMs,
      log,
    });
  } catch (e) {
    process.stderr.write(`acp-bridge serve: cannot listen on ${opts.listen}: ${(e as Error).message}\n`);
    return 1;
  }
  const ws = serving.url.replace(/^http/, "ws");
  const auth = opts.tokenEnv !== undefined ? `bearer token from $${opts.tokenEnv}` : `bearer token: ${token}`;
  process.stderr.write(`acp-bridge serve: listening on ${serving.url} (${ws}); ${auth}\n`);

  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once("SIGTERM", () => resolve("SIGTERM")).once("SIGINT", () => resolve("SIGINT"));
  });
  log.info(`${signal}: closing every connection`);
  // A second signal while the agents shut down is not the default's abrupt exit: the ladder is bounded.
  const ignore = () => log.info("still shutting down");
  process.on("SIGTERM", ignore).on("SIGINT", ignore);
  await serving.close();
  process.off("SIGTERM", ignore).off("SIGINT", ignore);
  return 0;
}
