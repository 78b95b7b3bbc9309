// Direction A's side of the editor's tools (H §6.5): whether the bridge offers the v1 client's files
// and terminals to the v2 agent as an MCP server, over which transport, and the server each
// session-opening request declares. The server itself (src/editor/) is loaded on first use only:
// a bridge that offers nothing never loads the MCP SDK.
import { EDITOR_SERVER_FALLBACK_NAME, EDITOR_SERVER_NAME } from "../../../mappings/editor-tools.js";
import { isObject, type Obj } from "../../base/json.js";
import type { EditorHost, EditorSession, EditorTransport } from "../../editor/host.js";
import type { ClientAnswer, EditorCapabilities } from "../../editor/tools.js";
import type { Logger } from "../../log.js";
import type { Link } from "../link.js";
import type { AgentFlagsA, EditorToolsConfig } from "./context.js";
import type { ClientFlags } from "./updates/index.js";

/** The code of a tool's request the bridge stopped waiting for (src/editor/tools.ts TIMED_OUT). */
const TIMED_OUT = -32001;

/**
 * The transport the agent gets, or `undefined` when nothing is offered: tools off, a client without
 * fs or terminals, an agent that is itself a bridge (its v1 agent gets the client's own methods,
 * H §6.5 chains), or one that takes no MCP transport the bridge serves.
 */
export function editorTransport(
  config: EditorToolsConfig | undefined,
  client: ClientFlags,
  agent: AgentFlagsA,
): EditorTransport | undefined {
  if (config === undefined || client.bridgePeer || agent.bridge === true || !agent.hasSession) return undefined;
  if (!(client.fsRead === true || client.fsWrite === true || client.terminals === true)) return undefined;
  if (agent.mcp.acp === true) return "acp";
  if (agent.mcp.http) return "http";
  if (agent.mcp.stdio) return "stdio";
  return undefined;
}

/** A name no server of the client's own list has. */
function serverName(raw: Obj): string {
  const taken = new Set(
    (Array.isArray(raw.mcpServers) ? raw.mcpServers : []).map((s) => (isObject(s) ? s.name : undefined)),
  );
  if (!taken.has(EDITOR_SERVER_NAME)) return EDITOR_SERVER_NAME;
  for (let i = 0; ; i++) {
    const name = i === 0 ? EDITOR_SERVER_FALLBACK_NAME : `${EDITOR_SERVER_FALLBACK_NAME}-${i}`;
    if (!taken.has(name)) return name;
  }
}

export class EditorGlue {
  private readonly host: Promise<EditorHost | undefined>;
  private loaded: EditorHost | undefined;
  private closed = false;

  constructor(
    readonly transport: EditorTransport,
    config: EditorToolsConfig,
    caps: EditorCapabilities,
    private readonly client: Link,
    agent: Link,
    platform: "posix" | "windows",
    private readonly log: Logger,
  ) {
    this.host = import("../../editor/host.js").then(
      ({ EditorHost }) => {
        const host = new EditorHost({
          transport,
          caps,
          tools: { ...config, platform },
          log,
          stdioCommand: config.stdioCommand,
          ask: (method, params, timeoutMs) => this.ask(method, params, timeoutMs),
          toAgent: (m) => agent.send(m),
        });
        this.loaded = host;
        if (this.closed) host.closeAll();
        return host;
      },
      (e: unknown) => {
        log.warn(`the editor's MCP server is unavailable: ${e instanceof Error ? e.message : String(e)}`);
        return undefined;
      },
    );
  }

  /**
   * A server for a session-opening request (`raw`: the client's params, for the roots and the names
   * taken); `undefined` when it cannot be made (logged): the session opens without it.
   */
  async open(raw: Obj): Promise<EditorSession | undefined> {
    const host = await this.host;
    if (host === undefined || this.closed || typeof raw.cwd !== "string") return undefined;
    const directories = Array.isArray(raw.additionalDirectories)
      ? raw.additionalDirectories.filter((d): d is string => typeof d === "string")
      : [];
    try {
      return await host.open(serverName(raw), { cwd: raw.cwd, directories });
    } catch (e) {
      this.log.warn(`the editor's MCP server could not start: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    }
  }

  /** The client's answer to a tool's request; an error answer past `timeoutMs` (the request is cancelled). */
  private ask(method: string, params: Record<string, unknown>, timeoutMs: number): Promise<ClientAnswer> {
    return new Promise((resolve) => {
      let done = false;
      const id = this.client.request(method, params, (resp) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(resp.error ? { error: resp.error } : { result: resp.result });
      });
      const timer = setTimeout(() => {
        if (done) return;
        done = true;
        if (id !== 0) this.client.notify("$/cancel_request", { requestId: id });
        resolve({ error: { code: TIMED_OUT, message: `the editor did not answer within ${timeoutMs} ms` } });
      }, timeoutMs);
    });
  }

  /** An agent's `mcp/message` request served by the bridge's own server (true), not the client's. */
  agentRequest(id: string | number, params: unknown): boolean {
    return this.loaded?.agentRequest(id, params) ?? false;
  }

  cancel(requestId: unknown): boolean {
    return this.loaded?.cancel(requestId) ?? false;
  }

  closeAll(): void {
    this.closed = true;
    this.loaded?.closeAll();
  }
}
