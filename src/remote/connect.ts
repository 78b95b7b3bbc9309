// `acp-bridge --connect URL` (issue 22): the agent is remote, reached over ACP's transport RFD
// ("streamable-http-websocket-transport") with the SDK's own clients, WebSocket for ws(s):// and
// Streamable HTTP for http(s)://. The client is this process's stdio as always; the bridge between
// them is the same, so negotiation, both translating directions, pass-through, limits and traces
// work unchanged. Loaded only when --connect is given (start-up budget: the transports and `ws`).
import type { Writable } from "node:stream";
import type { Stream } from "@agentclientprotocol/sdk";
import type { WebSocketConstructor } from "@agentclientprotocol/sdk/experimental/ws-client";
import { rpcErrors } from "../base/errors.js";
import { Bridge, type BridgeConfig } from "../engine/bridge.js";
import type { Logger } from "../log.js";
import { stdioClient } from "../transport/run.js";
import type { FlowSink } from "../transport/flow.js";
import { pumpMessages, StreamOutlet, type PumpEnd } from "./stream-link.js";

/** The two profiles of the RFD, by URL scheme. */
type Profile = "websocket" | "http";

const PROFILES: Readonly<Record<string, Profile>> = {
  "ws:": "websocket",
  "wss:": "websocket",
  "http:": "http",
  "https:": "http",
};

export interface RemoteTarget {
  readonly url: string;
  readonly profile: Profile;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * The target of `--connect` and the headers of `--header-env`, each header's value read from the
 * environment variable it names; or the usage error. `Authorization=VAR` sends `Bearer <value>`
 * unless the value already has a scheme (a space).
 */
export function remoteTarget(
  connect: string,
  headerEnv: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): RemoteTarget | { readonly problem: string } {
  let url: URL;
  try {
    url = new URL(connect);
  } catch {
    return { problem: `--connect needs a ws://, wss://, http:// or https:// URL (got ${JSON.stringify(connect)})` };
  }
  const profile = PROFILES[url.protocol];
  if (profile === undefined)
    return { problem: `--connect needs a ws://, wss://, http:// or https:// URL (got ${JSON.stringify(connect)})` };
  const headers: Record<string, string> = {};
  for (const pair of headerEnv === undefined ? [] : headerEnv.split(",")) {
    const eq = pair.indexOf("=");
    const name = pair.slice(0, eq).trim();
    const variable = pair.slice(eq + 1).trim();
    // A header name is an HTTP token; a variable name, what a shell can export.
    if (eq <= 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable))
      return { problem: `--header-env takes NAME=VAR pairs, comma-separated (got ${JSON.stringify(pair)})` };
    const value = env[variable];
    if (value === undefined || value === "")
      return { problem: `--header-env: the environment variable ${variable} (for the ${name} header) is not set` };
    if (/[\r\n\0]/.test(value)) return { problem: `--header-env: the value of ${variable} holds a line break` };
    headers[name] = name.toLowerCase() === "authorization" && !value.includes(" ") ? `Bearer ${value}` : value;
  }
  return { url: url.href, profile, headers };
}

/** The URL as it may be shown: no credentials, query or fragment (a token may ride there). */
function shownUrl(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname}`;
}

export interface ConnectOptions {
  readonly target: RemoteTarget;
  readonly bridge: BridgeConfig;
  readonly maxMessageBytes: number;
  /** How long the remote may take to close once the client left. */
  readonly shutdownGraceMs: number;
  readonly log: Logger;
  readonly stdin?: NodeJS.ReadableStream & import("node:stream").Readable;
  readonly stdout?: NodeJS.WritableStream;
}

/** Opens a fresh connection to `target` with the SDK's client transport (nothing is sent before the bridge writes). */
type Opener = () => Stream;

/** The opener for `target`, its modules loaded once (a connection then opens synchronously). */
async function opener(target: RemoteTarget, maxMessageBytes: number): Promise<Opener> {
  if (target.profile === "websocket") {
    const [{ createWebSocketStream }, ws] = await Promise.all([
      import("@agentclientprotocol/sdk/experimental/ws-client"),
      import("ws"),
    ]);
    // `ws` with the bridge's message size as its frame limit (its own default is 100 MiB).
    class Bounded extends ws.WebSocket {
      constructor(url: string, protocols?: string | string[], options?: { headers?: Record<string, string> }) {
        super(url, protocols, { ...options, maxPayload: maxMessageBytes });
      }
    }
    return () =>
      createWebSocketStream(target.url, {
        WebSocket: Bounded as unknown as WebSocketConstructor,
        headers: { ...target.headers },
      });
  }
  const { createHttpStream } = await import("@agentclientprotocol/sdk/experimental/http-client");
  return () => createHttpStream(target.url, { headers: { ...target.headers }, maxMessageBytes });
}

const INITIALIZE_TEXT = '"method":"initialize"';
const INITIALIZE = Buffer.from(INITIALIZE_TEXT);

/**
 * The remote agent as the bridge's agent side. The transport takes one `initialize` per connection
 * (it opens the connection), while the handshake may probe twice (H §1.4: the client's version,
 * then the agent's): an `initialize` after one was sent goes on a fresh connection, the old one
 * closed. The agent already answered the first (the bridge probes again only after its refusal).
 */
class RemoteAgentSide implements FlowSink {
  private stream: Stream;
  private outlet: StreamOutlet;
  private stop = new AbortController();
  private initializeSent = false;
  /** Aborts reading every connection to come as well: the remote is being closed for good. */
  private closing = false;

  constructor(
    private readonly open: Opener,
    private readonly log: Logger,
  ) {
    this.stream = open();
    this.outlet = new StreamOutlet(this.stream.writable, log, "agent");
  }

  push(line: string | Buffer): void {
    if (isInitialize(line)) {
      if (this.initializeSent) this.reconnect();
      this.initializeSent = true;
    }
    this.outlet.push(line);
  }

  private reconnect(): void {
    this.log.debug("the handshake probes again: on a fresh connection (one initialize per connection)");
    void this.outlet.end();
    this.stop.abort();
    this.stop = new AbortController();
    this.stream = this.open();
    this.outlet = new StreamOutlet(this.stream.writable, this.log, "agent");
  }

  hold(): void {}
  flush(): void {}
  get congested(): boolean {
    return this.outlet.congested;
  }
  onDrain(fn: () => void): void {
    this.outlet.onDrain(fn);
  }

  /** Every message of the current connection, and of those that replace it, to `line`; how the last one ended. */
  async pump(line: (l: Buffer) => void, sink: FlowSink): Promise<PumpEnd> {
    for (;;) {
      const stream = this.stream;
      const end = await pumpMessages(stream.readable, line, sink, this.stop.signal);
      if (this.stream === stream || this.closing) return end;
    }
  }

  /** Close the connection (a WebSocket close, an HTTP DELETE), reading stopped after `graceMs` at most. */
  async end(graceMs: number): Promise<void> {
    this.closing = true;
    const stop = this.stop;
    const timer = setTimeout(() => stop.abort(), graceMs);
    timer.unref();
    await this.outlet.end();
  }
}

function isInitialize(line: string | Buffer): boolean {
  // The bridge writes its own requests as strings, forwarded lines as bytes: a look for the method first.
  if (typeof line === "string" ? !line.includes(INITIALIZE_TEXT) : line.indexOf(INITIALIZE) < 0) return false;
  try {
    const m = JSON.parse(typeof line === "string" ? line : line.toString("utf8")) as { method?: unknown; id?: unknown };
    return m.method === "initialize" && m.id !== undefined;
  } catch {
    return false;
  }
}

function causeOf(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as NodeJS.ErrnoException).code;
    const inner = e.cause instanceof Error ? `: ${e.cause.message}` : "";
    return `${e.message}${inner}${code !== undefined && !e.message.includes(code) ? ` (${code})` : ""}`;
  }
  // A WebSocket error event, or another transport's object: its message if it has one.
  const message = typeof e === "object" && e !== null ? (e as { message?: unknown }).message : undefined;
  if (typeof message === "string") return message;
  return e === undefined || e === null ? "" : typeof e === "string" ? e : "the transport failed";
}

/**
 * The bridge between this process's stdio (the client) and the remote agent. Returns the exit
 * status: 0 when the client left first, 1 when the remote could not be reached or went away (the
 * client's requests are answered with the reason first).
 */
export async function runConnected(opts: ConnectOptions): Promise<number> {
  const { target, log } = opts;
  const where = shownUrl(target.url);
  const stdin = opts.stdin ?? process.stdin;
  const stdout = (opts.stdout ?? process.stdout) as NodeJS.WritableStream & Writable;
  const client = stdioClient(stdin, stdout, opts.maxMessageBytes);
  const agent = new RemoteAgentSide(await opener(target, opts.maxMessageBytes), log);
  const bridge = new Bridge(opts.bridge, client.out, agent);
  let clientEnded = false;

  client.start(
    (l) => bridge.clientLine(l),
    (i) => bridge.oversize("client", i),
    agent,
  );
  void client.gone.then(() => {
    clientEnded = true;
    bridge.clientGone();
    // A remote that does not finish closing in time is dropped.
    void agent.end(opts.shutdownGraceMs);
  });
  log.debug(`connecting to the agent at ${where} (${target.profile})`);
  const end = await agent.pump((l) => bridge.agentLine(l), client.out);

  const cause = causeOf(end.error);
  if (clientEnded) bridge.agentGone({ code: null, signal: null, reason: "remote_closed" });
  else if (end.received === 0) {
    // Never heard from: unreachable, refused (401/403), a TLS failure. Every request says why.
    log.error(`cannot reach the agent at ${where}: ${cause || "the connection closed"}`);
    bridge.agentUnavailable(
      rpcErrors.internal(`Cannot reach the agent at ${where}: ${cause || "the connection closed"}`, {
        reason: "remote_unreachable",
        url: where,
        ...(cause ? { cause } : {}),
      }),
    );
  } else {
    log.error(`the agent's connection at ${where} closed${cause ? `: ${cause}` : ""}`);
    bridge.agentGone({ code: null, signal: null, reason: "remote_closed" });
  }
  void agent.end(opts.shutdownGraceMs);
  // The client's initialize, even one not read yet, gets the cause as its answer before the bridge leaves.
  if (bridge.refusesClient())
    await Promise.race([bridge.refused(), client.gone, delay(opts.bridge.handshakeTimeoutMs)]);
  await client.out.end();
  client.stop();
  return clientEnded ? 0 : 1;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
