// A loopback Anthropic Messages API that plays SCENARIO in Claude Code's tool names. Claude's ACP
// adapter runs Claude Code, which calls `POST /v1/messages` (streamed as SSE) with the whole
// conversation each time: the mock finds which scripted tool calls already have results in the
// request and answers with the next step. Requests that offer no `Read` tool are side queries
// (title, topic detection); they get a short text answer. `editorScript` plays the editor scenario
// (interop/editor-scenario.ts) instead, in the editor MCP server's tools as Claude Code names them.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { join } from "node:path";
import type { ModelMock } from "../agents/recipe.js";
import { SCENARIO } from "../scenario.js";
import {
  EDITOR_SCENARIO,
  EDITOR_STEP_TOOL,
  EDITOR_STEPS,
  editorStepInput,
  findEditorTool,
  type EditorResults,
} from "../editor-scenario.js";
import { isObject } from "../../src/base/json.js";

export const MODEL = "claude-interop-mock";
const TODO_TOOL = "TodoWrite";

export interface MockStep {
  /** The tool_use id, so the next request's tool_result can be matched to it. */
  readonly id: string;
  readonly name: string;
  readonly input: Record<string, unknown>;
}

/** The scripted tool calls, in order, with absolute paths under `cwd` (Claude Code wants them absolute). */
export function claudeSteps(cwd: string): MockStep[] {
  const s = SCENARIO.steps;
  return [
    { id: "toolu_interop_read", name: "Read", input: { file_path: join(cwd, s.read.path) } },
    {
      id: "toolu_interop_edit",
      name: "Edit",
      input: { file_path: join(cwd, s.edit.path), old_string: s.edit.oldText, new_string: s.edit.newText },
    },
    {
      id: "toolu_interop_write",
      name: "Write",
      input: { file_path: join(cwd, s.write.path), content: s.write.content },
    },
    { id: "toolu_interop_bash", name: "Bash", input: { command: s.shell.command, description: "List the workspace" } },
    // TodoWrite is deferred: Claude Code only offers it after ToolSearch loaded it.
    { id: "toolu_interop_search", name: "ToolSearch", input: { query: `select:${TODO_TOOL}`, max_results: 1 } },
    {
      id: "toolu_interop_todo",
      name: TODO_TOOL,
      input: {
        todos: s.todos.map((t) => ({ content: t.content, status: t.status, activeForm: t.content })),
      },
    },
  ];
}

/** What one tool call's result said (the mock logs it; the harness reports it on failures). */
export interface ToolResultSeen {
  readonly id: string;
  readonly isError: boolean;
  readonly text: string;
}

export interface AnthropicMock extends ModelMock {
  /** Tool results seen in the last scenario request, in order. */
  results(): readonly ToolResultSeen[];
  /** One line per request: path and what was answered. */
  log(): readonly string[];
  /** The parsed body of every turn request (for diagnostics). */
  bodies(): readonly unknown[];
}

type Json = Record<string, unknown>;

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((c) => (isObject(c) && typeof c.text === "string" ? c.text : "")).join("");
}

/** Every tool_result block of the conversation, in order. */
export function toolResults(body: Json): ToolResultSeen[] {
  const out: ToolResultSeen[] = [];
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (const m of messages) {
    if (!isObject(m) || m.role !== "user" || !Array.isArray(m.content)) continue;
    for (const c of m.content) {
      if (isObject(c) && c.type === "tool_result" && typeof c.tool_use_id === "string")
        out.push({ id: c.tool_use_id, isError: c.is_error === true, text: textOf(c.content) });
    }
  }
  return out;
}

function toolNamesOf(body: Json): string[] {
  if (!Array.isArray(body.tools)) return [];
  return body.tools.flatMap((t) => (isObject(t) && typeof t.name === "string" ? [t.name] : []));
}

function offersTool(body: Json, name: string): boolean {
  return toolNamesOf(body).includes(name);
}

/** The content blocks of the next answer: the first scripted step without a result, or the final text. */
export function nextBlocks(body: Json, cwd: string): Json[] {
  const done = new Set(toolResults(body).map((r) => r.id));
  const next = claudeSteps(cwd).find((s) => !done.has(s.id));
  if (next === undefined) return [{ type: "text", text: SCENARIO.steps.answer }];
  return [{ type: "tool_use", id: next.id, name: next.name, input: next.input }];
}

/** Which turn a mock plays: `isTurn` tells the turn's requests from side queries. */
export interface AnthropicScript {
  isTurn(body: Json): boolean;
  next(body: Json, cwd: string): Json[];
}

const scenarioScript: AnthropicScript = { isTurn: (body) => offersTool(body, "Read"), next: nextBlocks };

const editorId = (step: string): string => `toolu_editor_${step}`;

/**
 * The editor scenario's next answer: each step calls the editor tool the request offers under its
 * Claude Code name (`mcp__editor__…`). Tools deferred behind ToolSearch are loaded by one
 * ToolSearch call first; a tool still missing ends the turn with a text saying so.
 */
export function editorBlocks(body: Json, cwd: string): Json[] {
  const done = new Set(toolResults(body).map((r) => r.id));
  const names = toolNamesOf(body);
  for (const step of EDITOR_STEPS) {
    if (done.has(editorId(step))) continue;
    const tool = EDITOR_STEP_TOOL[step];
    const name = findEditorTool(names, tool);
    if (name !== undefined) return [{ type: "tool_use", id: editorId(step), name, input: editorStepInput(step, cwd) }];
    if (offersTool(body, "ToolSearch") && !done.has(editorId("search"))) {
      const all = EDITOR_STEPS.map((s) => `mcp__editor__${EDITOR_STEP_TOOL[s]}`).join(",");
      return [{ type: "tool_use", id: editorId("search"), name: "ToolSearch", input: { query: `select:${all}` } }];
    }
    return [{ type: "text", text: `mock: the request offers no editor tool ${tool}` }];
  }
  return [{ type: "text", text: EDITOR_SCENARIO.steps.answer }];
}

/** What the model got back for each editor step, from a request's tool_result blocks. */
export function editorResults(results: readonly ToolResultSeen[]): EditorResults {
  const of = (step: string): string | undefined => results.find((r) => r.id === editorId(step))?.text;
  const out: { -readonly [K in keyof EditorResults]: EditorResults[K] } = {};
  for (const step of EDITOR_STEPS) {
    const text = of(step);
    if (text !== undefined) out[step] = text;
  }
  return out;
}

export const editorScript: AnthropicScript = { isTurn: (body) => offersTool(body, "Read"), next: editorBlocks };

const USAGE = { input_tokens: 120, output_tokens: 30, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

function sse(res: ServerResponse, event: string, data: Json): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function streamMessage(res: ServerResponse, id: string, blocks: readonly Json[]): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const stop = blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
  sse(res, "message_start", {
    type: "message_start",
    message: {
      id,
      type: "message",
      role: "assistant",
      model: MODEL,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...USAGE, output_tokens: 1 },
    },
  });
  blocks.forEach((b, index) => {
    if (b.type === "tool_use") {
      sse(res, "content_block_start", { type: "content_block_start", index, content_block: { ...b, input: {} } });
      sse(res, "content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) },
      });
    } else {
      sse(res, "content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "text", text: "" },
      });
      sse(res, "content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "text_delta", text: typeof b.text === "string" ? b.text : "" },
      });
    }
    sse(res, "content_block_stop", { type: "content_block_stop", index });
  });
  sse(res, "message_delta", {
    type: "message_delta",
    delta: { stop_reason: stop, stop_sequence: null },
    usage: { output_tokens: USAGE.output_tokens },
  });
  sse(res, "message_stop", { type: "message_stop" });
  res.end();
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** Start the mock on 127.0.0.1; `cwd` is the session's workspace (the scripted paths are absolute). */
export async function startAnthropicMock(
  cwd: string,
  script: AnthropicScript = scenarioScript,
): Promise<AnthropicMock> {
  let served = 0;
  let seq = 0;
  let lastResults: ToolResultSeen[] = [];
  const log: string[] = [];
  const bodies: unknown[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const path = (req.url ?? "").split("?")[0] ?? "";
      if (req.method !== "POST" || !path.endsWith("/v1/messages")) {
        log.push(`${req.method ?? "?"} ${req.url ?? ""} -> 404`);
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: "not mocked" } }));
        return;
      }
      served++;
      const parsed: unknown = raw === "" ? {} : JSON.parse(raw);
      const body = isObject(parsed) ? parsed : {};
      const id = `msg_interop_${++seq}`;
      let blocks: Json[];
      if (script.isTurn(body)) {
        lastResults = toolResults(body);
        bodies.push(body);
        blocks = script.next(body, cwd);
      } else {
        blocks = [{ type: "text", text: "Interop scenario" }];
      }
      log.push(`POST ${path} -> ${blocks.map((b) => (b.type === "tool_use" ? String(b.name) : "text")).join(",")}`);
      if (body.stream === true) {
        streamMessage(res, id, blocks);
        return;
      }
      const stop = blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id,
          type: "message",
          role: "assistant",
          model: MODEL,
          content: blocks,
          stop_reason: stop,
          stop_sequence: null,
          usage: USAGE,
        }),
      );
    })().catch((e: unknown) => {
      log.push(`error: ${String(e)}`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the mock has no TCP port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests: () => served,
    results: () => lastResults,
    log: () => log,
    bodies: () => bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
