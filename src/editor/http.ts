// The editor's MCP server over Streamable HTTP (H §6.5), for a v2 agent that advertises
// `session.mcp.http`: one listener per session on 127.0.0.1 and an ephemeral port, authenticated by
// a fresh bearer token sent in the declaration's `Authorization` header (never in the URL) and
// compared in constant time; `Host` and `Origin` checked against DNS rebinding as the MCP
// specification asks (the MCP SDK's own validators); body size and connection count bounded. MCP
// itself is the MCP SDK's `createMcpHandler` (both eras: 2025 clients are served statelessly).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { ReadableStreamReadResult } from "node:stream/web";
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
  type McpServer,
} from "@modelcontextprotocol/server";
import type { Logger } from "../log.js";
import { bearerOf, freshToken, tokenMatches } from "./token.js";

const MCP_PATH = "/mcp";
/** Room for the JSON-RPC envelope around the largest text a tool takes. */
const ENVELOPE_BYTES = 64 * 1024;

export interface EndpointLimits {
  /** The largest text one tool call carries (`--editor-tools-max-bytes`). */
  readonly maxBytes: number;
  readonly maxConnections: number;
}

export interface HttpEndpoint {
  readonly url: string;
  readonly token: string;
  close(): Promise<void>;
}

function plain(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", ...headers });
  res.end(`${message}\n`);
}

/** The request's body, or `undefined` once it passed `max` bytes (the request is answered 413). */
function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size <= max) return void chunks.push(c);
      // Answered 413 at once; the rest is read and discarded, never kept.
      req.off("data", onData);
      req.resume();
      resolve(undefined);
    };
    req.on("data", onData);
    if (Number(req.headers["content-length"] ?? 0) > max) onData(Buffer.alloc(max + 1));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function webHeaders(req: IncomingMessage): Headers {
  const h = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) h.append(name, v);
  }
  return h;
}

async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((v, k) => (headers[k] = v));
  res.writeHead(response.status, headers);
  if (response.body === null) return void res.end();
  const reader = response.body.getReader();
  for (;;) {
    const chunk: ReadableStreamReadResult<Uint8Array> = await reader.read();
    if (chunk.done) break;
    const value = chunk.value;
    if (!res.write(value)) await new Promise((r) => res.once("drain", r));
  }
  res.end();
}

/** Start the endpoint; the URL is known once it listens. */
export async function listenHttp(factory: () => McpServer, limits: EndpointLimits, log: Logger): Promise<HttpEndpoint> {
  const token = freshToken();
  const handler = createMcpHandler(factory, {
    maxRequestBodySize: limits.maxBytes + ENVELOPE_BYTES,
    onerror: (e) => log.debug(`editor MCP endpoint: ${e.message}`),
  });
  const hosts = localhostAllowedHostnames();
  const origins = localhostAllowedOrigins();
  const server = createServer((req, res) => {
    void serve(req, res).catch((e: unknown) => {
      log.warn(`editor MCP endpoint: ${e instanceof Error ? e.message : String(e)}`);
      if (!res.headersSent) plain(res, 500, "internal error");
      else res.destroy();
    });
  });
  let port = 0;

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    // Checked on a body-less Request first: nothing is read from a caller that fails them.
    const probe = new Request(`http://127.0.0.1:${port}${req.url ?? "/"}`, { headers: webHeaders(req) });
    const rejected = hostHeaderValidationResponse(probe, hosts) ?? originValidationResponse(probe, origins);
    if (rejected) return writeResponse(res, rejected);
    if (!tokenMatches(bearerOf(req.headers.authorization), token))
      return plain(res, 401, "unauthorized", { "www-authenticate": 'Bearer realm="acp-bridge-editor"' });
    if (new URL(probe.url).pathname !== MCP_PATH) return plain(res, 404, "not found");
    let body: Buffer | undefined;
    if (req.method === "POST") {
      body = await readBody(req, limits.maxBytes + ENVELOPE_BYTES);
      if (body === undefined) return plain(res, 413, "request body too large", { connection: "close" });
    }
    const request = new Request(probe.url, {
      method: req.method ?? "GET",
      headers: probe.headers,
      ...(body === undefined ? {} : { body: new Uint8Array(body) }),
      signal: abort.signal,
    });
    return writeResponse(res, await handler.fetch(request));
  }

  server.maxConnections = limits.maxConnections;
  // A caller that opens connections and sends nothing cannot hold them for long.
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  port = typeof address === "object" && address !== null ? address.port : 0;
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}${MCP_PATH}`,
    token,
    close: () =>
      (closed ??= (async () => {
        const done = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await handler.close();
        await done;
      })()),
  };
}
