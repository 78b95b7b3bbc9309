// Direction A's side of the editor's tools (H §6.5): whether the bridge offers the v1 client's files
// and terminals to the v2 agent as an MCP server, over which transport, and the server each
// session-opening request declares. The server itself (src/editor/) is loaded on first use only:
// a bridge that offers nothing never loads the MCP SDK.
import { EDITOR_SERVER_FALLBACK_NAME, EDITOR_SERVER_NAME } from "../../../mappings/editor-tools.js";
import { isObject, type Obj, withMembers } from "../../base/json.js";
import type { EditorHost, EditorSession, EditorTerminal, EditorTransport } from "../../editor/host.js";
import type { ClientAnswer, EditorCapabilities } from "../../editor/tools.js";
import type { Logger } from "../../log.js";
import { LruMap } from "../bounded.js";
import type { Link } from "../link.js";
import type { Outgoing } from "../outgoing.js";
import type { SessionA } from "./session.js";
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
  if (config.onlyAcp === true) return undefined;
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
          tools: withMembers(config, { platform }),
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
      // A wait for the client never keeps the bridge alive once everything else is over.
      timer.unref();
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

// ---------------------------------------------------------------- the editor sees its terminals

/** Terminals kept per session waiting for their tool call, and tool calls showing one. */
const EDITOR_TERMINAL_MEMORY = 64;

/** What a session knows of the terminals the client created through the editor's tools. */
export class EditorTerminals {
  /** Tool call id → the client's terminals shown on it (as v1 `{type:"terminal"}` items). */
  readonly byToolCall = new LruMap<string, string[]>(EDITOR_TERMINAL_MEMORY);
  /** Created before their tool call was seen (or matched): matched on its later updates. */
  unmatched: EditorTerminal[] = [];

  get empty(): boolean {
    return this.byToolCall.size === 0 && this.unmatched.length === 0;
  }
}

/** The tool call id an agent names in an MCP request's `_meta` (Claude Code, Codex). */
function metaToolCallId(meta: unknown): string | undefined {
  if (!isObject(meta)) return undefined;
  for (const key of ["claudecode/toolUseId", "callId"]) if (typeof meta[key] === "string") return meta[key];
  return undefined;
}

/** The tool input in a tool call's `rawInput`: itself, or its `arguments`/`input` (Codex: `{server, tool, arguments}`). */
function inputOf(rawInput: unknown): Obj | undefined {
  if (!isObject(rawInput)) return undefined;
  for (const key of ["arguments", "input"]) if (isObject(rawInput[key])) return rawInput[key];
  return rawInput;
}

/** Whether the tool call `view` is the one whose MCP call created `t`. */
function matches(view: Obj, t: EditorTerminal): boolean {
  const named = metaToolCallId(t.requestMeta);
  if (named !== undefined) return view.toolCallId === named;
  const input = inputOf(view.rawInput);
  return (
    input !== undefined &&
    input.command === t.input.command &&
    JSON.stringify(input.args ?? []) === JSON.stringify(t.input.args ?? []) &&
    !(typeof view.status === "string" && ["completed", "failed", "cancelled"].includes(view.status))
  );
}

function attach(s: SessionA, toolCallId: string, terminalId: string): void {
  const ids = s.editorTerminals.byToolCall.get(toolCallId) ?? [];
  if (!ids.includes(terminalId)) s.editorTerminals.byToolCall.set(toolCallId, [...ids, terminalId]);
}

/**
 * A terminal the client created through a tool: shown on its tool call at once when the client has
 * that call (a v1 `tool_call_update` whose content leads with it), else kept for the call's first
 * sighting.
 */
export function editorTerminalCreated(
  s: SessionA,
  t: EditorTerminal,
  show: (toolCallId: string) => readonly Outgoing[],
): readonly Outgoing[] {
  const byId = metaToolCallId(t.requestMeta);
  const view =
    (byId !== undefined ? s.toolCalls.peek(byId) : undefined) ??
    s.toolCalls.fullEntries().find((c) => matches(c.view, t));
  if (view === undefined || typeof view.view.toolCallId !== "string") {
    s.editorTerminals.unmatched = [...s.editorTerminals.unmatched.slice(1 - EDITOR_TERMINAL_MEMORY), t];
    return [];
  }
  attach(s, view.view.toolCallId, t.terminalId);
  return view.announced ? show(view.view.toolCallId) : [];
}

/**
 * `toolCall` (a v1 `tool_call` or `tool_call_update` about to go to the client) with the client's
 * terminals of that call first in its content: a `tool_call` always, an update when it sets content
 * (v1 replaces the whole content). A terminal still waiting for its call is matched here.
 */
export function withEditorTerminals(s: SessionA, id: string, toolCall: Obj): Obj {
  const terms = s.editorTerminals;
  // The common case, every tool call of a session without them: nothing looked up.
  if (terms.empty) return toolCall;
  const view = s.toolCalls.peek(id)?.view;
  if (view !== undefined && terms.unmatched.length > 0) {
    const found = terms.unmatched.filter((t) => matches(view, t));
    if (found.length > 0) {
      terms.unmatched = terms.unmatched.filter((t) => !found.includes(t));
      for (const t of found) attach(s, id, t.terminalId);
    }
  }
  const ids = terms.byToolCall.get(id);
  if (ids === undefined || (toolCall.sessionUpdate !== "tool_call" && !Array.isArray(toolCall.content)))
    return toolCall;
  const content: unknown[] = Array.isArray(toolCall.content) ? toolCall.content : [];
  const own = ids.filter((tid) => !content.some((c) => isObject(c) && c.type === "terminal" && c.terminalId === tid));
  return withMembers(toolCall, {
    content: [...own.map((terminalId) => ({ type: "terminal", terminalId })), ...content],
  });
}
