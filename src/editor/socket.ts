// The editor's MCP server over stdio (H §6.5), for a v2 agent that takes neither MCP-over-ACP nor
// HTTP: the agent spawns `acp-bridge editor-mcp` (stdio-command.ts), which connects back to this
// bridge over a private channel: a Unix socket, mode 0600, in a fresh directory of mode 0700 (a
// named pipe on Windows), and presents a fresh token, compared in constant time, as its first
// line. The MCP side is the MCP SDK's `serveStdio` over the socket.
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { McpServer } from "@modelcontextprotocol/server";
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { Logger } from "../log.js";
import type { EndpointLimits } from "./http.js";
import { freshToken, tokenMatches } from "./token.js";

/** The environment the sub-command reads. */
export const SOCKET_ENV = "ACP_BRIDGE_EDITOR_SOCKET";
export const TOKEN_ENV = "ACP_BRIDGE_EDITOR_TOKEN";
/** How long a connection has to present its token. */
const HELLO_MS = 5_000;
const HELLO_MAX_BYTES = 256;

export interface SocketEndpoint {
  readonly path: string;
  readonly token: string;
  close(): void;
}

/** Directories of endpoints still open: removed on exit whatever else happens. */
const openDirs = new Set<string>();
let exitHook = false;

function onExitRemove(dir: string): void {
  openDirs.add(dir);
  if (exitHook) return;
  exitHook = true;
  process.once("exit", () => {
    for (const d of openDirs) rmSync(d, { recursive: true, force: true });
  });
}

/** Read the token line; what follows it is put back for the MCP transport. */
function hello(socket: Socket, token: string, then: () => void): void {
  let buf = Buffer.alloc(0);
  const timer = setTimeout(() => socket.destroy(), HELLO_MS);
  const onData = (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    const nl = buf.indexOf(10);
    if (nl === -1) {
      if (buf.length > HELLO_MAX_BYTES) socket.destroy();
      return;
    }
    clearTimeout(timer);
    socket.off("data", onData);
    socket.pause();
    if (!tokenMatches(buf.subarray(0, nl).toString("utf8"), token)) return void socket.destroy();
    const rest = buf.subarray(nl + 1);
    if (rest.length > 0) socket.unshift(rest);
    then();
  };
  socket.on("data", onData);
  socket.on("close", () => clearTimeout(timer));
}

/** Listen (synchronously: the path is ours, known before the agent is told). */
export function listenSocket(factory: () => McpServer, limits: EndpointLimits, log: Logger): SocketEndpoint {
  const token = freshToken();
  const windows = process.platform === "win32";
  const dir = windows ? undefined : mkdtempSync(join(tmpdir(), "acp-bridge-editor-"));
  const path = dir === undefined ? `\\\\.\\pipe\\acp-bridge-editor-${freshToken()}` : join(dir, "mcp.sock");
  if (dir !== undefined) onExitRemove(dir);
  const sockets = new Set<Socket>();
  const handles = new Set<{ close(): Promise<void> }>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", (e) => log.debug(`editor MCP socket: ${e.message}`));
    hello(socket, token, () => {
      const handle = serveStdio(factory, {
        transport: new StdioServerTransport(socket, socket),
        onerror: (e) => log.debug(`editor MCP socket: ${e.message}`),
      });
      handles.add(handle);
      socket.on("close", () => {
        handles.delete(handle);
        void handle.close();
      });
      socket.resume();
    });
  });
  server.maxConnections = limits.maxConnections;
  server.on("error", (e) => log.warn(`editor MCP socket: ${e.message}`));
  server.listen(path);
  if (dir !== undefined) chmodSync(path, 0o600);
  let closed = false;
  return {
    path,
    token,
    close() {
      if (closed) return;
      closed = true;
      server.close();
      for (const h of handles) void h.close();
      for (const s of sockets) s.destroy();
      if (dir !== undefined) {
        rmSync(dir, { recursive: true, force: true });
        openDirs.delete(dir);
      }
    },
  };
}
