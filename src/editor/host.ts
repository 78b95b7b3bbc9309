// The editor's MCP servers of one bridge connection (H §6.5): the transport chosen from what the v2
// agent advertised, one server per session (its endpoint, token and tools), and the requests the
// tools make of the v1 client. The engine (engine/v1-client/editor.ts) loads this module only when
// it offers the server, so a bridge that does not pays nothing for the MCP SDK.
import type { AnyMessage } from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { limits } from "../../mappings/limits.js";
import type { Logger } from "../log.js";
import { AcpMcpHost, type AcpRegistration } from "./acp.js";
import { listenHttp, type EndpointLimits } from "./http.js";
import type { Roots } from "./paths.js";
import { listenSocket, SOCKET_ENV, TOKEN_ENV } from "./socket.js";
import {
  editorServerFactory,
  type ClientAnswer,
  type EditorCapabilities,
  type EditorPort,
  type EditorToolOptions,
} from "./tools.js";

export type EditorTransport = "acp" | "http" | "stdio";

/** A terminal the client created for the agent through a tool. */
export interface EditorTerminal {
  readonly terminalId: string;
  readonly input: Readonly<Record<string, unknown>>;
  /** The MCP request's `_meta` (an agent may name its tool call there). */
  readonly requestMeta: unknown;
}

export interface EditorHostConfig {
  readonly transport: EditorTransport;
  readonly caps: EditorCapabilities;
  readonly tools: EditorToolOptions;
  readonly log: Logger;
  /** How the agent starts the stdio face (`acp-bridge editor-mcp`). */
  readonly stdioCommand: { readonly command: string; readonly args: readonly string[] };
  /** Ask the v1 client (the engine's client link, with the timeout). */
  ask(method: string, params: Record<string, unknown>, timeoutMs: number): Promise<ClientAnswer>;
  /** What the MCP-over-ACP connection writes for the agent. */
  toAgent(m: AnyMessage): void;
}

/** One session's server: its declaration for `mcpServers`, and what its tools know of the session. */
export class EditorSession implements EditorPort {
  sessionId: string | undefined;
  /** Called when a tool made the client create a terminal (the engine shows it on the tool call). */
  onTerminal: ((t: EditorTerminal) => void) | undefined;
  private closer: (() => unknown) | undefined;
  private isClosed = false;

  constructor(
    readonly roots: Roots,
    private readonly config: EditorHostConfig,
    /** The host forgets it once closed. */
    private readonly released: (s: EditorSession) => void,
  ) {}

  declaration: Record<string, unknown> = {};

  ask(method: string, params: Record<string, unknown>, timeoutMs?: number): Promise<ClientAnswer> {
    if (this.isClosed) return Promise.resolve({ error: { code: -32603, message: "the session is closed" } });
    return this.config.ask(
      method,
      params,
      Math.min(timeoutMs ?? this.config.tools.timeoutMs, this.config.tools.timeoutMs),
    );
  }

  /** Bound to the session the agent's answer named. */
  attach(sessionId: string): void {
    this.sessionId = sessionId;
  }

  get attached(): boolean {
    return this.sessionId !== undefined;
  }

  terminalCreated(terminalId: string, input: Readonly<Record<string, unknown>>, requestMeta: unknown): void {
    this.onTerminal?.({ terminalId, input, requestMeta });
  }

  /** How its endpoint is closed (the host sets it once the endpoint is up). */
  setCloser(close: () => unknown): void {
    this.closer = close;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Stop serving: the listener, the socket and its directory, the token, all gone. */
  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.released(this);
    void Promise.resolve()
      .then(() => this.closer?.())
      .catch((e: unknown) => this.config.log.debug(`closing the editor's MCP server: ${String(e)}`));
  }
}

export class EditorHost {
  private acp: Promise<AcpMcpHost> | undefined;
  private acpHost: AcpMcpHost | undefined;
  private readonly sessions = new Set<EditorSession>();
  private ended = false;
  private readonly endpointLimits: EndpointLimits;

  constructor(private readonly config: EditorHostConfig) {
    this.endpointLimits = { maxBytes: config.tools.maxBytes, maxConnections: limits.editorConnections.default };
  }

  get transport(): EditorTransport {
    return this.config.transport;
  }

  /** A server for a session being opened, with its declaration named `name`. */
  async open(name: string, roots: Roots): Promise<EditorSession> {
    const s = new EditorSession(roots, this.config, (gone) => this.sessions.delete(gone));
    const factory = editorServerFactory(s, this.config.caps, this.config.tools);
    switch (this.config.transport) {
      case "acp": {
        const host = await (this.acp ??= AcpMcpHost.start((m) => this.config.toAgent(m)).then(
          (h) => (this.acpHost = h),
        ));
        const reg: AcpRegistration = host.register(name, factory);
        s.declaration = { ...reg.declaration };
        s.setCloser(() => reg.dispose());
        break;
      }
      case "http": {
        const ep = await listenHttp(factory, this.endpointLimits, this.config.log);
        s.declaration = {
          type: "http",
          name,
          url: ep.url,
          headers: [{ name: "Authorization", value: `Bearer ${ep.token}` }],
        };
        s.setCloser(() => ep.close());
        break;
      }
      case "stdio": {
        const ep = listenSocket(factory, this.endpointLimits, this.config.log);
        s.declaration = {
          type: "stdio",
          name,
          command: this.config.stdioCommand.command,
          args: [...this.config.stdioCommand.args],
          env: [
            { name: SOCKET_ENV, value: ep.path },
            { name: TOKEN_ENV, value: ep.token },
          ],
        };
        s.setCloser(() => ep.close());
        break;
      }
    }
    this.sessions.add(s);
    // The connection ended while the endpoint was starting: it goes at once.
    if (this.ended) s.close();
    return s;
  }

  /** An agent's `mcp/message` request for one of the bridge's servers: served here (true). */
  agentRequest(id: string | number, params: unknown): boolean {
    if (this.acpHost === undefined || !this.acpHost.owns(params)) return false;
    this.acpHost.request(id, params);
    return true;
  }

  /** The agent's `$/cancel_request` for a request served here (true). */
  cancel(requestId: unknown): boolean {
    return this.acpHost?.cancel(requestId) ?? false;
  }

  /** The connection is over: every server goes. */
  closeAll(): void {
    this.ended = true;
    for (const s of [...this.sessions]) s.close();
    this.acpHost?.close();
  }
}
