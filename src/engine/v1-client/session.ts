// What direction A remembers per session (T §7.1): the prompt lifecycle, message ids and what v1
// was shown of each message, materialized tool calls, terminals, plans, the config cache. Bounded.
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import type { PlansMap } from "../../convert/plan.js";
import type { EditorSession } from "../../editor/host.js";
import type { TerminalState } from "../../convert/terminal.js";
import { limits } from "../../../mappings/limits.js";
import { LruMap } from "../bounded.js";
import { MessageKinds } from "../message-kinds.js";
import { SentMessages } from "./state/messages.js";
import { ToolCallTable } from "./state/tool-calls.js";
import { EditorTerminals } from "./editor.js";
import { PromptLifecycle, type LifecycleOptions } from "./prompt-lifecycle.js";

/** Messages whose v1 rendering is remembered for later whole-message upserts (T §2.2). */
const MESSAGE_MEMORY = limits.messages.default;
/** Message ids whose kind is remembered for collision renames (T §2.1). */
const ID_KIND_MEMORY = limits.messageIds.default;
/** Tool calls kept (finished ones are forgotten first: `retire`). */
const TOOL_CALL_MEMORY = limits.toolCalls.default;
const TERMINAL_MEMORY = limits.terminals.default;

export interface ToolCallView {
  /** Materialized v2 state: every field as the agent last set it. */
  view: Record<string, unknown>;
  /** The v1 client has a `tool_call` for it. */
  announced: boolean;
  /** Invented by the bridge for a permission subject (T §4 A↓-2): finalize when answered. */
  synthetic: boolean;
  /** Chunks appended since the last emission (coalesced, T §2.4 A↓-3). */
  pendingChunks: v2.ToolCallContentChunk[];
  /** The notification `_meta` of a pending chunk emitted alone. */
  pendingMeta: unknown;
  flushTimer: NodeJS.Timeout | undefined;
  /** Streamed content items dropped from the head to keep the content bounded (limits.toolCallContent). */
  omittedItems?: number;
  /** Some patch is still the agent's text (`ToolCallEntry`, state/tool-calls.ts): the content references no terminal. */
  readonly deferring: boolean;
  /** The view's `status`, read without applying deferred patches. */
  readonly status: unknown;
  /** Records a proven update's text, to be applied when `view` is read. */
  defer(text: string, status: string | undefined): void;
  /** The entry as plain data, its view applied (state comparisons). */
  toJSON(): Record<string, unknown>;
}

export interface TerminalEntry extends TerminalState {
  readonly refs: Set<string>;
  flushTimer: NodeJS.Timeout | undefined;
  /** `_meta` convention (T §2.5): the tool call whose `tool_call` carried `terminal_info`. */
  carrier?: string | undefined;
  /** Its output decoder (UTF-8 sequences split across chunks are joined). */
  decoder?: { decode(input?: Uint8Array, options?: { stream?: boolean }): string } | undefined;
  /** The retained bytes lost their head to the cap: a snapshot cannot be compared with them. */
  trimmed?: boolean | undefined;
  /** The client got `terminal_exit` (from the agent, or from the bridge at the end of a turn). */
  exitSent?: boolean | undefined;
}

export class SessionA {
  readonly lifecycle: PromptLifecycle;
  readonly idKind = new MessageKinds(ID_KIND_MEMORY);
  readonly sent = new SentMessages(MESSAGE_MEMORY);
  readonly toolCalls = new ToolCallTable(TOOL_CALL_MEMORY);
  readonly terminals = new LruMap<string, TerminalEntry>(TERMINAL_MEMORY);
  /** Tool calls with coalesced content chunks not yet emitted. */
  readonly pendingTools = new Set<ToolCallView>();
  plans: PlansMap = new Map();
  /** Terminals the agent's last idle `state_update` lists as background work (T §2.5): left running. */
  backgroundTerminals: ReadonlySet<string> = new Set();
  /** The agent's last v2 config option list (H §5, T §2.7). */
  configOptions: unknown;
  lastCost: v2.Cost | undefined;
  /** Notices shown as agent messages so far (their message ids, T §2.10). */
  noticeCount = 0;
  closed = false;
  /** Where the session works (recorded from the lifecycle request, H §4.10). */
  cwd: string | undefined;
  roots: readonly string[] = [];

  constructor(
    readonly sessionId: string,
    lifecycle: LifecycleOptions,
  ) {
    this.lifecycle = new PromptLifecycle(lifecycle);
  }

  /**
   * Replay starts from scratch (T §7.1): message and plan state reset, tool calls re-upserted. A v1
   * client that reset its view on load knows no tool call: each is announced again with `tool_call`.
   */
  resetForReplay(): void {
    for (const t of this.toolCalls.fullEntries()) if (t.flushTimer) clearTimeout(t.flushTimer);
    this.toolCalls.clear();
    this.pendingTools.clear();
    this.sent.clear();
    this.idKind.clear();
    this.plans = new Map();
  }

  /** The editor's MCP server declared for this session (H §6.5): closed with it. */
  editor: EditorSession | undefined;
  /** The client's terminals its tools created, shown on the agent's tool calls (H §6.5). */
  readonly editorTerminals = new EditorTerminals();

  /** The server a lifecycle request declared; one a reload replaces is closed. */
  attachEditor(editor: EditorSession): void {
    if (this.editor !== editor) this.editor?.close();
    this.editor = editor;
    editor.attach(this.sessionId);
  }

  dispose(): void {
    this.editor?.close();
    this.editor = undefined;
    for (const t of this.toolCalls.fullEntries()) if (t.flushTimer) clearTimeout(t.flushTimer);
    for (const t of this.terminals.values()) if (t.flushTimer) clearTimeout(t.flushTimer);
  }
}
