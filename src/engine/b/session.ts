// What direction B remembers per session (T §7.1): the turn and its held prompts, generated message
// ids, tool calls seen, plans emitted, the mode/config binding, and the parameters a resume must
// match when the bridge answers it itself (H §2.3). Bounded.
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { initialChunkIds, type ChunkIdState, type MessageKind, type PendingUpsert } from "../../convert/message.js";
import type { AgentConfig } from "../../convert/mode.js";
import type { PlansMap } from "../../convert/plan.js";
import { LruMap } from "../bounded.js";
import type { Inbound } from "../relay.js";

const TOOL_MEMORY = 1024;
const ID_KIND_MEMORY = 4096;
const ALIAS_MEMORY = 1024;
const TERMINAL_MEMORY = 256;

/** A display terminal the v1 agent shows through the `_meta` convention (T §2.5 B↓-1). */
export interface ConventionTerminal {
  /** The command last sent to the v2 client in a `terminal_update`. */
  command?: string | undefined;
}

export interface ToolSeen {
  title?: string | undefined;
  kind?: string | undefined;
  /** The v2 content as last emitted (restoring content chunks, T §2.4 B↓-3). */
  lastContent?: v2.ToolCallContent[] | undefined;
}

/** A v2 prompt the v1 agent is working on (T §1.4). */
export interface Turn {
  readonly entry: Inbound;
  readonly prompt: unknown[];
  outboundId: number;
  userMsgId: string;
  acked: boolean;
  echoOpen: boolean;
  echoCount: number;
  cancelRequested: boolean;
  /** `$/cancel_request` before the ack: the prompt is withdrawn, answered -32800 at the end. */
  withdrawn: boolean;
  blockers: number;
  ackTimer: NodeJS.Timeout | undefined;
  /** Agent → client requests of this turn still unanswered (permissions, elicitations). */
  readonly relayed: Set<RelayedRequest>;
  /** Called once the turn has ended (a close waiting for it). */
  onEnd: (() => void) | undefined;
}

interface RelayedRequest {
  readonly entry: Inbound;
  /** What to answer the v1 agent when the turn is cancelled. */
  readonly onCancel: unknown;
}

export interface HeldPrompt {
  readonly entry: Inbound;
  readonly params: Record<string, unknown>;
}

export class SessionB {
  reported: "idle" | "running" | "requires_action" = "idle";
  turn: Turn | undefined;
  readonly queue: HeldPrompt[] = [];
  loadInFlight = false;
  /** Resume answered through `session/load`: the replayed history is not forwarded (H §2.3). */
  suppressHistory = false;
  chunkIds: ChunkIdState = initialChunkIds;
  pendingUpsert: PendingUpsert | undefined;
  readonly alias = new LruMap<string, string>(ALIAS_MEMORY);
  /** The kind each v1 message id was first used for (a reuse for another kind is marked, T §2.1). */
  readonly v1IdKinds = new LruMap<string, MessageKind>(ID_KIND_MEMORY);
  readonly tools = new LruMap<string, ToolSeen>(TOOL_MEMORY);
  /** Terminals of the `_meta` convention: their content items stay v2 `terminal` references. */
  readonly terminals = new LruMap<string, ConventionTerminal>(TERMINAL_MEMORY);
  /** The terminal each tool call announced with `terminal_info` (its later `rawInput` names the command). */
  readonly terminalOfTool = new LruMap<string, string>(TERMINAL_MEMORY);
  plans: PlansMap = new Map();
  config: AgentConfig = {};
  costForwarded = false;
  availableCommands: unknown[] | undefined;
  closed = false;
  /** The lifecycle parameters last applied, to answer a resume locally (H §2.3). */
  params: { cwd?: unknown; additionalDirectories?: unknown; mcpServers?: unknown } = {};
  title: string | undefined;
  updatedAt: string | undefined;

  constructor(readonly sessionId: string) {}

  /** A replay starts or ends: message ids restart so a replay reproduces them (T §2.1 B↓-5). */
  resetForReplay(): void {
    this.chunkIds = { open: undefined, counter: { user: 0, agent: 0, thought: 0 } };
    this.pendingUpsert = undefined;
    this.plans = new Map();
    this.v1IdKinds.clear();
  }
}
