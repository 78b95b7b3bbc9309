// `acp-bridge editor-mcp`: the stdio face of the editor's MCP server (H §6.5). A v2 agent spawns it
// from the stdio declaration the bridge gave it; it connects to the bridge's private socket
// (socket.ts), presents the token, and then relays bytes both ways. It never parses MCP: the
// bridge's end serves it. It ends when either side does.
import { connect } from "node:net";
import { SOCKET_ENV, TOKEN_ENV } from "./socket.js";

export function runEditorMcp(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const path = env[SOCKET_ENV];
  const token = env[TOKEN_ENV];
  if (path === undefined || token === undefined) {
    process.stderr.write(
      `acp-bridge editor-mcp: started by acp-bridge for its agent only (${SOCKET_ENV} and ${TOKEN_ENV} are not set)\n`,
    );
    return Promise.resolve(2);
  }
  return new Promise((resolve) => {
    const socket = connect(path);
    let failed = false;
    socket.on("connect", () => {
      socket.write(`${token}\n`);
      process.stdin.pipe(socket);
      socket.pipe(process.stdout);
    });
    socket.on("error", (e) => {
      failed = true;
      process.stderr.write(`acp-bridge editor-mcp: the bridge's editor endpoint is unreachable: ${e.message}\n`);
    });
    socket.on("close", () => {
      process.stdin.unpipe(socket);
      process.stdin.pause();
      resolve(failed ? 1 : 0);
    });
    process.stdin.on("end", () => socket.end());
  });
}
