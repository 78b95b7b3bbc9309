// What direction A's handler modules share: the configuration, what each peer advertised, the two
// request routes, the sessions, and the writer (as direction B's context.ts).
import type { DiffRendering } from "../../convert/diff-options.js";
import type { Platform } from "../../convert/directories.js";
import type { McpSupport } from "../../convert/mcp.js";
import type { ConvertOptions, StashPolicy } from "../../convert/stash.js";
import type { Logger } from "../../log.js";
import type { Link } from "../link.js";
import type { BridgeObserver } from "../observer.js";
import type { Outgoing } from "../outgoing.js";
import type { RequestRoute } from "../relay.js";
import type { EditorGlue } from "./editor.js";
import type { SessionA } from "./session.js";
import type { ClientFlags, UpdateContext } from "./updates/index.js";

export interface AConfig {
  /** The level toward each peer is chosen per destination (optionsToward): toClient, toAgent. */
  readonly stash: StashPolicy;
  readonly log: Logger;
  readonly mcpUnsupported: "reject" | "drop";
  readonly platform: Platform;
  readonly idleSettleMs: number;
  readonly forwardPromptEcho: boolean;
  readonly redactionNotice: boolean;
  readonly diffRendering: DiffRendering;
  /** Largest file read to give a v1 client a diff's exact full texts; 0 reads none. */
  readonly diffFileMaxBytes: number;
  readonly flushMs: number;
  readonly terminalFlushMs: number;
  readonly terminalMaxBytes: number;
  /** Sessions tracked at once (`--max-sessions`, mappings/limits.ts). */
  readonly maxSessions?: number;
  /** The editor's MCP server for the agent (`--editor-tools*`, H §6.5); absent: off. */
  readonly editorTools?: EditorToolsConfig;
  /** Told what the translation did (`--report`, engine/observer.ts); absent: nobody asks. */
  readonly observer?: BridgeObserver;
}

export interface EditorToolsConfig {
  readonly anyPath: boolean;
  readonly maxBytes: number;
  readonly maxConcurrent: number;
  readonly timeoutMs: number;
  /** How the agent starts the stdio face: this bridge's own command with `editor-mcp`. */
  readonly stdioCommand: { readonly command: string; readonly args: readonly string[] };
  /**
   * The agent is remote (`--connect`): the loopback HTTP endpoint and the stdio command are this
   * machine's, out of its reach; only MCP-over-ACP, which rides on the ACP connection, reaches it.
   */
  readonly onlyAcp?: boolean;
}

/** What the v2 agent advertised that the translation depends on (H §2.4). */
export interface AgentFlagsA {
  readonly hasSession: boolean;
  readonly additionalDirectories: boolean;
  readonly mcp: McpSupport;
  /** The v2 "agent" is a B bridge (its initialize result carries the marker, T §5.5). */
  readonly bridge?: boolean;
}

export interface EngineA {
  readonly config: AConfig;
  readonly clientFlags: ClientFlags;
  readonly agentFlags: AgentFlagsA;
  /** Options of every conversion whose output goes to the v1 client: a stash only if it is a bridge. */
  readonly toClient: ConvertOptions;
  /** Likewise for the v2 agent. */
  readonly toAgent: ConvertOptions;
  readonly updates: UpdateContext;
  /** Requests from the client, re-issued to the agent. */
  readonly down: RequestRoute;
  /** Requests from the agent, re-issued to the client. */
  readonly up: RequestRoute;
  /** The v2 agent, for the requests a handler issues itself and answers through its own callback. */
  readonly agent: Link;
  /** The session, made on first sight. */
  session(sessionId: string): SessionA;
  /** The session if this connection has seen it. */
  known(sessionId: unknown): SessionA | undefined;
  /** The engine core's writer, for what an answer callback produces. */
  write(out: readonly Outgoing[]): void;
  /** The editor's MCP servers, when the bridge offers them (editor.ts). */
  readonly editor: EditorGlue | undefined;
}
