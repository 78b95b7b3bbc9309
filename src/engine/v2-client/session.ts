// What direction B remembers per session (T §7.1): its prompt lifecycle, generated message
// ids, tool calls seen, plans emitted, the mode/config binding, and the parameters a resume must
// match when the bridge answers it itself (H §2.3). Bounded.
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { isObject } from "../../base/json.js";
import { initialChunkIds, type ChunkIdState, type PendingUpsert } from "../../convert/message.js";
import type { AgentConfig } from "../../convert/mode.js";
import type { PlansMap } from "../../convert/plan.js";
import { limits } from "../../../mappings/limits.js";
import { LruMap } from "../bounded.js";
import { MessageKinds } from "../message-kinds.js";
import { ToolSeenTable } from "./state/tool-calls.js";
import { PromptLifecycleB, type TurnIO } from "./prompt-lifecycle.js";

const TOOL_MEMORY = limits.toolCalls.default;
const ID_KIND_MEMORY = limits.messageIds.default;
const ALIAS_MEMORY = limits.aliases.default;
const TERMINAL_MEMORY = limits.conventionTerminals.default;

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

export class SessionB {
  /** Its turns, held prompts and the state last reported (T §1.4). */
  readonly prompts: PromptLifecycleB;
  /** Resume answered through `session/load`: the replayed history is not forwarded (H §2.3). */
  suppressHistory = false;
  chunkIds: ChunkIdState = initialChunkIds;
  pendingUpsert: PendingUpsert | undefined;
  readonly alias = new LruMap<string, string>(ALIAS_MEMORY);
  /** The kind each v1 message id was first used for (a reuse for another kind is marked, T §2.1). */
  readonly v1IdKinds = new MessageKinds(ID_KIND_MEMORY);
  readonly tools = new ToolSeenTable(TOOL_MEMORY);
  /** Terminals of the `_meta` convention: their content items stay v2 `terminal` references. */
  readonly terminals = new LruMap<string, ConventionTerminal>(TERMINAL_MEMORY);
  /** The terminal each tool call announced with `terminal_info` (its later `rawInput` names the command). */
  readonly terminalOfTool = new LruMap<string, string>(TERMINAL_MEMORY);
  plans: PlansMap = new Map();
  config: AgentConfig = {};
  costForwarded = false;
  /** The client's latest list of commands (H §4.4), or its v2 JSON text as a fast path wrote it. */
  private commands: unknown[] | Buffer | undefined;
  closed = false;
  /** The lifecycle parameters last applied, to answer a resume locally (H §2.3). */
  params: { cwd?: unknown; additionalDirectories?: unknown; mcpServers?: unknown } = {};
  title: string | undefined;
  updatedAt: string | undefined;

  constructor(
    readonly sessionId: string,
    io: TurnIO,
  ) {
    this.prompts = new PromptLifecycleB(this, io);
  }

  /** A session starts or resumes: its parameters are recorded (a local resume must match them). */
  record(params: Record<string, unknown>): void {
    this.params = {
      cwd: params.cwd,
      additionalDirectories: params.additionalDirectories,
      mcpServers: params.mcpServers,
    };
    this.closed = false;
  }

  /** The client's latest list of commands; one a fast path wrote is parsed when first read. */
  get availableCommands(): unknown[] | undefined {
    if (Buffer.isBuffer(this.commands)) this.commands = JSON.parse(this.commands.toString("utf8")) as unknown[];
    return this.commands;
  }

  set availableCommands(list: unknown[] | undefined) {
    this.commands = list;
  }

  /** The list a fast path wrote the client, as its JSON text (commands-scan.ts proved it). */
  rememberCommandsText(list: Buffer): void {
    // A copy: `list` is a view of the line written, whose memory is shared (`allocLine`).
    this.commands = Buffer.from(list);
  }

  /** The commands a v2 result gave the client: the session's latest list (H §4.4 reuses it). */
  rememberCommands(result: unknown): void {
    const commands = isObject(result) ? result.availableCommands : undefined;
    if (Array.isArray(commands)) this.availableCommands = commands;
  }

  /** A replay starts or ends: message ids restart so a replay reproduces them (T §2.1 B↓-5). */
  resetForReplay(): void {
    this.chunkIds = { open: undefined, counter: { user: 0, agent: 0, thought: 0 } };
    this.pendingUpsert = undefined;
    this.plans = new Map();
    this.v1IdKinds.clear();
  }
}
