// `acp-bridge serve`'s own options (issue 22), declared in the OptionSpec format of src/options.ts:
// read by the same rules (`readTable`), shown by serve's own `--help` and in the README's second
// options table (`npm run docs`). The bridge's options (src/options.ts) apply to every served
// connection as well; these never appear in the stdio command's help.
import type { OptionSpec } from "../options.js";

/** The largest delay setTimeout takes. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** A message is decoded to one string: V8's strings stop short of 512 MiB. */
const MAX_TEXT_BYTES = 256 * 1024 * 1024;

export const SERVE_OPTIONS = {
  listen: {
    type: "string",
    describe:
      "where to listen (required): HOST:PORT, port 0 picks a free one; a host other than loopback needs --token-env",
    doc: "where to listen (required): `HOST:PORT`, `[::1]:PORT` for IPv6, port `0` picks a free one (the listening line on stderr says which); a host other than loopback (`127.0.0.1`, `localhost`, `::1`) needs `--token-env`",
    metavar: "HOST:PORT",
  },
  "token-env": {
    type: "string",
    describe:
      "the environment variable holding the bearer token clients must present (default: a fresh token per run, printed on stderr)",
    doc: "the environment variable holding the bearer token every client must present (`Authorization: Bearer …`); at least 16 characters; without it, a fresh token per run, printed once on stderr; never taken from the command line",
    metavar: "VAR",
  },
  "tls-cert": {
    type: "string",
    describe: "serve HTTPS and WSS with this PEM certificate (with --tls-key)",
    doc: "serve `https://` and `wss://` with this PEM certificate (chain); needs `--tls-key`",
    metavar: "FILE",
  },
  "tls-key": {
    type: "string",
    describe: "the PEM private key of --tls-cert",
    doc: "the PEM private key of `--tls-cert`",
    metavar: "FILE",
  },
  "max-connections": {
    type: "number",
    describe: "ACP connections (each with its own agent process) at once; more are answered 503",
    doc: "ACP connections at once, each with its own agent process; a further `initialize` or WebSocket upgrade is answered 503 and starts no agent",
    default: 64,
    min: 1,
    max: 65_536,
  },
  "max-body-bytes": {
    type: "number",
    describe: "largest HTTP request body, and largest WebSocket message, a client may send",
    doc: "largest HTTP request body (past it: 413) and WebSocket message (past it: the socket is closed, 1009) a client may send; below `--max-buffered-bytes`",
    default: 32 * 1024 * 1024,
    min: 1024,
    max: MAX_TEXT_BYTES,
  },
  "max-buffered-bytes": {
    type: "number",
    describe: "output held per connection for a client that has not read it yet",
    doc: "output held per connection for a client that has not read it yet (HTTP: queued on its event streams; WebSocket: unsent on the socket); past it the agent's output waits (backpressure), see `--max-output-stall-ms`",
    default: 64 * 1024 * 1024,
    min: 64 * 1024,
    max: 1024 * 1024 * 1024,
  },
  "max-output-stall-ms": {
    type: "number",
    describe: "a connection whose client reads none of its held output for this long is closed",
    doc: "a connection holding `--max-buffered-bytes` whose client reads none of it for this long is closed (its agent shut down): a client that stops reading never blocks its agent for ever",
    default: 60_000,
    min: 1,
    max: MAX_TIMER_MS,
  },
  "idle-timeout-ms": {
    type: "number",
    describe: "a connection with no message either way for this long is closed",
    doc: "a connection with no message either way for this long is closed and its agent shut down (the only end of an HTTP client that vanished without its `DELETE`)",
    default: 3_600_000,
    min: 1,
    max: MAX_TIMER_MS,
  },
} as const satisfies Record<string, OptionSpec>;
