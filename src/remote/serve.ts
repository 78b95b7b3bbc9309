// `acp-bridge serve` (issue 22): a local stdio agent served over ACP's remote transport (RFD
// "streamable-http-websocket-transport"): one `/acp` endpoint, Streamable HTTP and WebSocket, both
// the SDK's own (`AcpServer`, its Node adapters; `ws` for upgrades). Each ACP connection gets its
// own agent process and its own bridge, exactly the stdio bridge's run() with the connection as its
// client, so each remote client is served in its own version whatever the agent speaks.
// Every request and upgrade must carry the bearer token (compared in constant time); loopback binds
// also check Host and Origin against DNS rebinding, as the editor's MCP endpoint does
// (src/editor/http.ts); connections, bodies, buffered output, stalls and idleness are bounded.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { Duplex } from "node:stream";
import type { Stream } from "@agentclientprotocol/sdk";
import { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } from "@agentclientprotocol/sdk/experimental/node";
import { AcpServer } from "@agentclientprotocol/sdk/experimental/server";
import { WebSocketServer } from "ws";
import type { BridgeConfig } from "../engine/bridge.js";
import { bearerOf, tokenMatches } from "../editor/token.js";
import type { Logger } from "../log.js";
import { startAgent } from "../transport/agent-process.js";
import { run } from "../transport/run.js";
import { streamClient, type RemoteClient } from "./stream-client.js";

const ACP_PATH = "/acp";
const CONNECTION_HEADER = "acp-connection-id";
/** How long an idle keep-alive HTTP socket stays open between requests (SECURITY.md). */
const KEEP_ALIVE_MS = 65_000;

export interface ServeConfig {
  readonly host: string;
  readonly port: number;
  readonly token: string;
  /** Loopback bind: Host and Origin must name the loopback too (DNS rebinding). */
  readonly loopback: boolean;
  readonly tls?: { readonly cert: Buffer; readonly key: Buffer } | undefined;
  readonly maxConnections: number;
  readonly maxBodyBytes: number;
  readonly maxBufferedBytes: number;
  readonly maxOutputStallMs: number;
  readonly idleTimeoutMs: number;
  /** The agent, started once per connection. */
  readonly command: string;
  readonly args: readonly string[];
  /**
   * A fresh bridge configuration for connection `n` (from 1), and what to close when it ends (its
   * trace, its report) with the connection's exit status (`undefined`: its run failed).
   */
  readonly bridge: (n: number) => { readonly config: BridgeConfig; close?(status: number | undefined): Promise<void> };
  readonly maxMessageBytes: number;
  readonly shutdownGraceMs: number;
  readonly log: Logger;
}

export interface Serving {
  /** `http(s)://host:port/acp`. */
  readonly url: string;
  /** Closes every connection (each agent through run()'s shutdown), then stops listening. */
  close(): Promise<void>;
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Whether a bind address is the loopback: `localhost`, 127.0.0.0/8, `::1`. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase();
  return h === "localhost" || h === "::1" || h === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

function loopbackName(hostname: string): boolean {
  return LOOPBACK_NAMES.has(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** A loopback bind's DNS-rebinding check: Host must name the loopback, and Origin, when sent, too. */
function rebound(req: IncomingMessage): string | undefined {
  try {
    if (!loopbackName(new URL(`http://${req.headers.host ?? ""}`).hostname)) return "Host";
  } catch {
    return "Host";
  }
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  try {
    return loopbackName(new URL(origin).hostname) ? undefined : "Origin";
  } catch {
    return "Origin";
  }
}

const REASONS: Readonly<Record<number, string>> = {
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  503: "Service Unavailable",
};

/** Why a request or an upgrade is refused before the transport sees it, if it is. */
interface Refusal {
  readonly status: number;
  readonly message: string;
}

function plain(res: ServerResponse, r: Refusal): void {
  res.writeHead(r.status, {
    "content-type": "text/plain; charset=utf-8",
    ...(r.status === 401 ? { "www-authenticate": 'Bearer realm="acp-bridge"' } : {}),
  });
  res.end(`${r.message}\n`);
}

/** An upgrade refused: a plain HTTP response on the raw socket, which is then closed. */
function refuseUpgrade(socket: Duplex, r: Refusal): void {
  const body = `${r.message}\n`;
  socket.end(
    `HTTP/1.1 ${String(r.status)} ${REASONS[r.status] ?? "Error"}\r\n` +
      (r.status === 401 ? 'WWW-Authenticate: Bearer realm="acp-bridge"\r\n' : "") +
      `Content-Type: text/plain; charset=utf-8\r\nContent-Length: ${String(Buffer.byteLength(body))}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export async function serve(cfg: ServeConfig): Promise<Serving> {
  const log = cfg.log;
  /** The connections whose agent runs (or is being shut down). */
  const live = new Set<RemoteClient>();
  const runs = new Set<Promise<unknown>>();
  /**
   * A slot held by an HTTP request that may open a connection (a POST without a connection id: an
   * `initialize`), from its arrival until its connection exists or its response ends, so that
   * concurrent initializes cannot pass `--max-connections` while their bodies are read.
   */
  const reserved = new Set<{ taken: boolean }>();
  let closing = false;
  let seq = 0;

  const acp = new AcpServer({
    createAgent: () => ({ connect: (stream: Stream) => connect(stream) }),
    maxBufferedBytes: cfg.maxBufferedBytes,
    maxOutputStallMs: cfg.maxOutputStallMs,
  });

  function connect(stream: Stream): { closed: Promise<void> } {
    const n = ++seq;
    const first = reserved.values().next();
    if (!first.done) {
      first.value.taken = true;
      reserved.delete(first.value);
    }
    const client = streamClient(stream, cfg.maxMessageBytes, cfg.idleTimeoutMs, log);
    live.add(client);
    log.info(`connection ${String(n)}: starting the agent`);
    const agent = startAgent(cfg.command, cfg.args, cfg.shutdownGraceMs, log, false);
    const made = cfg.bridge(n);
    const done = run({
      command: cfg.command,
      args: cfg.args,
      bridge: made.config,
      maxMessageBytes: cfg.maxMessageBytes,
      shutdownGraceMs: cfg.shutdownGraceMs,
      log,
      client,
      agent,
    })
      .then(
        (status) => {
          log.info(`connection ${String(n)}: done, the agent's status ${String(status)}`);
          return status;
        },
        (e: unknown) => {
          log.error(`connection ${String(n)}: ${e instanceof Error ? e.message : String(e)}`);
          return undefined;
        },
      )
      .then((status) => made.close?.(status));
    runs.add(done);
    void done.finally(() => {
      runs.delete(done);
      live.delete(client);
    });
    if (closing) client.close("serve is shutting down");
    return { closed: done };
  }

  const atCapacity = () => closing || live.size + reserved.size >= cfg.maxConnections;

  /** The checks every request and upgrade passes first, in this order: path, Host/Origin, token. */
  function gate(req: IncomingMessage): Refusal | undefined {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (path !== ACP_PATH) return { status: 404, message: "not found" };
    if (cfg.loopback) {
      const header = rebound(req);
      if (header !== undefined) return { status: 403, message: `${header} is not the loopback` };
    }
    if (!tokenMatches(bearerOf(req.headers.authorization), cfg.token)) return { status: 401, message: "unauthorized" };
    return undefined;
  }

  const httpHandler = createNodeHttpHandler(acp, { maxRequestBodyBytes: cfg.maxBodyBytes });
  // The SDK's sizes count what the client sends; `ws` refuses a larger frame itself (close 1009).
  const wss = new WebSocketServer({ noServer: true, maxPayload: cfg.maxBodyBytes });
  const upgradeHandler = createNodeWebSocketUpgradeHandler(acp, wss);

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const refused = gate(req);
    if (refused) return plain(res, refused);
    if (req.method === "POST" && req.headers[CONNECTION_HEADER] === undefined) {
      if (atCapacity()) return plain(res, { status: 503, message: "too many connections" });
      const slot = { taken: false };
      reserved.add(slot);
      res.once("close", () => {
        if (!slot.taken) reserved.delete(slot);
      });
    }
    httpHandler(req, res);
  };
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", (e) => log.debug(`upgrade socket: ${e.message}`));
    const refused = gate(req) ?? (atCapacity() ? { status: 503, message: "too many connections" } : undefined);
    if (refused) return refuseUpgrade(socket, refused);
    // The connection (and its agent) is created at once, before the handshake completes.
    upgradeHandler(req, socket, head);
  };

  const server: Server = cfg.tls ? createHttpsServer({ cert: cfg.tls.cert, key: cfg.tls.key }) : createHttpServer();
  server.on("request", onRequest);
  server.on("upgrade", onUpgrade);
  server.on("clientError", (e, socket) => {
    log.debug(`client error: ${e.message}`);
    socket.destroy();
  });
  // A caller that opens connections and sends nothing cannot hold them for long.
  server.headersTimeout = 10_000;
  // Node closes an idle keep-alive socket after 5 s; an HTTP client reusing it just then (fetch
  // under load, a turn seconds after the last) gets "other side closed" on its next POST. Clients
  // read this timeout from the Keep-Alive header and drop the socket first.
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(cfg.port, cfg.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : cfg.port;
  const host = cfg.host.includes(":") && !cfg.host.startsWith("[") ? `[${cfg.host}]` : cfg.host;

  let closed: Promise<void> | undefined;
  return {
    url: `${cfg.tls ? "https" : "http"}://${host}:${String(port)}${ACP_PATH}`,
    close: () =>
      (closed ??= (async () => {
        closing = true;
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const client of live) client.close("serve is shutting down");
        await Promise.all([...runs]);
        await acp.close();
        for (const ws of wss.clients) ws.terminate();
        wss.close();
        server.closeAllConnections();
        await stopped;
      })()),
  };
}
