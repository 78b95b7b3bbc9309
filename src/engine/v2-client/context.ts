// What direction B's handler modules share: the configuration, the two request routes, the
// sessions, and the answers every handler builds the same way.
import type { AgentFlags } from "../../convert/capabilities.js";
import type { Platform } from "../../convert/directories.js";
import type { ConvertOptions, StashPolicy } from "../../convert/stash.js";
import type { Logger } from "../../log.js";
import type { RequestMessage, RpcError } from "../../wire/jsonrpc.js";
import type { BridgeObserver } from "../observer.js";
import { fail, type Outgoing } from "../outgoing.js";
import type { RequestRoute } from "../relay.js";
import type { SessionB } from "./session.js";
import type { TurnStrategy } from "./turns.js";
import type { UpdateContextB } from "./updates/index.js";

export const DEFAULT_CLOSE_DRAIN_MS = 5000;

export interface BConfig {
  /** The level toward each peer is chosen per destination (optionsToward): toClient, toAgent. */
  readonly stash: StashPolicy;
  readonly log: Logger;
  readonly platform: Platform;
  /** T §1.4-2 (c): ack a prompt this long after sending it if the agent said nothing yet. */
  readonly ackGraceMs: number;
  readonly closeDrainMs: number;
  /** Largest file read to place a v1 snippet diff in the real file; 0 (or absent) reads none. */
  readonly diffFileMaxBytes?: number;
  /** Sessions tracked at once (`--max-sessions`, mappings/limits.ts). */
  readonly maxSessions?: number;
  /** Told what the translation did (`--report`, engine/observer.ts); absent: nobody asks. */
  readonly observer?: BridgeObserver;
}

export interface EngineB {
  readonly config: BConfig;
  readonly flags: AgentFlags;
  /** Options of every conversion whose output goes to the v2 client: a stash only if it is a bridge. */
  readonly toClient: ConvertOptions;
  /** Likewise for the v1 agent. */
  readonly toAgent: ConvertOptions;
  /** The v2 client is an A bridge. */
  readonly clientIsBridge: boolean;
  readonly updates: UpdateContextB;
  readonly turns: TurnStrategy;
  /** Requests from the client, re-issued to the agent. */
  readonly down: RequestRoute;
  /** Requests from the agent, re-issued to the client. */
  readonly up: RequestRoute;
  /** The session, made on first sight. */
  session(sessionId: string): SessionB;
  /** The session if this connection has seen it. */
  known(sessionId: unknown): SessionB | undefined;
  sessions(): Iterable<SessionB>;
  /** Forget the session (deleted by the agent). */
  forget(sessionId: string): void;
  /** The engine core's writer, for what an answer callback or a timer produces. */
  write(out: readonly Outgoing[]): void;
  /** A v1 error for the v2 client: a -32002 names the session (H §7.1). */
  errorForClient(error: RpcError, sessionId: string | undefined): RpcError;
}

/** The client's request fails with `error`. */
export function refused(msg: RequestMessage, error: RpcError): readonly Outgoing[] {
  return [fail("client", msg.id, error)];
}

/** Directory-root context of the session converters. */
export function roots(b: EngineB): { platform: Platform; agentSupportsDirectories: boolean } {
  return { platform: b.config.platform, agentSupportsDirectories: b.flags.addDirs };
}

/** The MCP transports the v1 agent takes. */
export function mcp(b: EngineB): { agentMcp: { stdio: boolean; http: boolean; sse: boolean; acp: boolean } } {
  return { agentMcp: { stdio: true, http: b.flags.mcpHttp, sse: b.flags.mcpSse, acp: b.flags.mcpAcp } };
}
