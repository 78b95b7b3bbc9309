// A remote ACP agent for the `--connect` tests (issue 22): the SDK's own server transport
// (`AcpServer`, Streamable HTTP and WebSocket on `/acp`) in front of a stdio agent process, one
// process per connection, piped with the SDK's `ndJsonStream`. Independent of `acp-bridge serve`,
// so that the bridge's client side of the transport is tested against the SDK's server side.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type IncomingMessage, type RequestListener } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { Readable, Writable } from "node:stream";
import { ndJsonStream, type Stream } from "@agentclientprotocol/sdk";
import { AcpServer } from "@agentclientprotocol/sdk/experimental/server";
import { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } from "@agentclientprotocol/sdk/experimental/node";
import { WebSocketServer } from "ws";

export interface RemoteAgent {
  /** `ws://127.0.0.1:PORT/acp` or `http://…/acp` (`wss`, `https` with TLS). */
  url(profile: "ws" | "http"): string;
  /** Every agent process started, one per connection. */
  readonly children: ChildProcess[];
  /** Connections accepted (each started an agent). */
  readonly connections: number;
  /** Drop every connection at once (a remote that dies), agents killed. */
  crash(): void;
  close(): Promise<void>;
}

export interface RemoteAgentOptions {
  /** Required as `Authorization: Bearer <token>` on every request and upgrade (401 otherwise). */
  readonly token?: string;
  readonly env?: Record<string, string>;
  /** Serve over TLS with this certificate and key (PEM): `wss://` and `https://` URLs. */
  readonly tls?: { readonly cert: string; readonly key: string };
}

export async function startRemoteAgent(argv: readonly string[], opts: RemoteAgentOptions = {}): Promise<RemoteAgent> {
  const children: ChildProcess[] = [];
  let connections = 0;
  const acp = new AcpServer({
    createAgent: () => ({
      connect(stream: Stream) {
        connections++;
        const [command, ...args] = argv;
        if (command === undefined) throw new Error("no agent command");
        const child = spawn(command, args, {
          stdio: ["pipe", "pipe", "inherit"],
          env: { ...process.env, ...opts.env },
        });
        children.push(child);
        const agent = ndJsonStream(
          Writable.toWeb(new Writable({ write: (_c, _e, cb) => cb() })) as WritableStream<Uint8Array>,
          Readable.toWeb(child.stdout ?? Readable.from([])) as ReadableStream<Uint8Array>,
        );
        // The client's messages as lines on the agent's stdin, which ends with the connection (EOF).
        void (async () => {
          const reader = stream.readable.getReader();
          try {
            for (let r = await reader.read(); !r.done; r = await reader.read())
              child.stdin?.write(`${JSON.stringify(r.value)}\n`);
          } catch {
            // The connection failed: the agent is told as on a close.
          }
          child.stdin?.end();
        })();
        child.stdin?.on("error", () => undefined);
        void agent.readable.pipeTo(stream.writable).catch(() => undefined);
        return { closed: new Promise<void>((resolve) => child.once("exit", () => resolve())) };
      },
    }),
  });
  const handle = createNodeHttpHandler(acp);
  const wss = new WebSocketServer({ noServer: true });
  const upgrade = createNodeWebSocketUpgradeHandler(acp, wss);
  /** 401 without credentials, 403 with the wrong ones (as gateways answer), undefined when allowed. */
  const refusal = (req: IncomingMessage): 401 | 403 | undefined => {
    if (opts.token === undefined || req.headers.authorization === `Bearer ${opts.token}`) return undefined;
    return req.headers.authorization === undefined ? 401 : 403;
  };
  const listener: RequestListener = (req, res) => {
    const status = refusal(req);
    if (status !== undefined) res.writeHead(status).end();
    else handle(req, res);
  };
  const server = opts.tls
    ? createTlsServer({ cert: opts.tls.cert, key: opts.tls.key }, listener)
    : createServer(listener);
  server.on("upgrade", (req, socket, head) => {
    const status = refusal(req);
    if (status !== undefined)
      socket.end(`HTTP/1.1 ${String(status)} Refused\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    else upgrade(req, socket, head);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const killAll = () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  };
  return {
    url: (profile) => `${profile}${opts.tls ? "s" : ""}://127.0.0.1:${port}/acp`,
    children,
    get connections() {
      return connections;
    },
    crash() {
      killAll();
      for (const ws of wss.clients) ws.terminate();
      server.closeAllConnections();
    },
    async close() {
      killAll();
      for (const ws of wss.clients) ws.terminate();
      await acp.close().catch(() => undefined);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
