// A tiny loopback HTTP server shared by the model mocks: JSON bodies in, JSON or SSE out, every
// request counted and kept (the dev driver prints them when an agent misbehaves).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

export interface MockRequest {
  readonly method: string;
  /** Path and query, as the agent sent them. */
  readonly url: string;
  readonly body: unknown;
}

export type MockReply =
  | { readonly kind: "json"; readonly status?: number; readonly body: unknown }
  | { readonly kind: "sse"; readonly events: readonly SseEvent[] };

export interface SseEvent {
  /** The `event:` line, when the API names its events (OpenAI does, Gemini does not). */
  readonly event?: string;
  readonly data: unknown;
}

export interface MockServer {
  readonly url: string;
  /** Requests answered so far (every path, side requests included). */
  requests(): number;
  readonly log: MockRequest[];
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("error", reject);
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      if (text === "") {
        resolve(undefined);
        return;
      }
      try {
        resolve(JSON.parse(text));
      } catch {
        // Not JSON: keep the text so the log still shows what the agent sent.
        resolve(text);
      }
    });
  });
}

function send(res: ServerResponse, reply: MockReply): void {
  if (reply.kind === "json") {
    res.writeHead(reply.status ?? 200, { "content-type": "application/json" });
    res.end(JSON.stringify(reply.body));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "close" });
  for (const e of reply.events) {
    res.write(`${e.event === undefined ? "" : `event: ${e.event}\n`}data: ${JSON.stringify(e.data)}\n\n`);
  }
  res.end();
}

export async function startMockServer(handle: (req: MockRequest) => MockReply): Promise<MockServer> {
  const log: MockRequest[] = [];
  const server = createServer((req, res) => {
    readBody(req).then(
      (body) => {
        const request: MockRequest = { method: req.method ?? "GET", url: req.url ?? "/", body };
        log.push(request);
        let reply: MockReply;
        try {
          reply = handle(request);
        } catch (err) {
          reply = { kind: "json", status: 500, body: { error: { message: String(err) } } };
        }
        send(res, reply);
      },
      (err: unknown) => {
        res.writeHead(400);
        res.end(String(err));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("mock: the server has no TCP address");
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests: () => log.length,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
