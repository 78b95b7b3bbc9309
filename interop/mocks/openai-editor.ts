// The editor scenario (interop/editor-scenario.ts) in the Responses API, as Codex offers MCP tools:
// each step calls the editor tool the request offers, found in the request's tool list (a plain
// function tool, or a function inside a `namespace` tool such as `mcp__editor__`).
import {
  EDITOR_SCENARIO,
  EDITOR_STEP_TOOL,
  EDITOR_STEPS,
  editorStepInput,
  findEditorTool,
  type EditorResults,
  type EditorStep,
} from "../editor-scenario.js";
import { outputOf, type ItemPicker } from "./openai-responses.js";
import { isObject, type Obj } from "../../src/base/json.js";

/** A callable tool of the request: its model-visible full name, and the namespace it sits in. */
export interface OfferedTool {
  readonly full: string;
  readonly name: string;
  readonly namespace?: string;
}

/** `mcp__editor` + `read_text_file` → `mcp__editor__read_text_file` (0.166 names the namespace without the trailing `__`). */
function joinName(namespace: string, name: string): string {
  return namespace.endsWith("__") ? `${namespace}${name}` : `${namespace}__${name}`;
}

function toolsIn(list: unknown): OfferedTool[] {
  if (!Array.isArray(list)) return [];
  return list.filter(isObject).flatMap((t): OfferedTool[] => {
    if (t.type === "namespace" && typeof t.name === "string" && Array.isArray(t.tools)) {
      const ns = t.name;
      return t.tools
        .filter(isObject)
        .flatMap((f) =>
          typeof f.name === "string" ? [{ full: joinName(ns, f.name), name: f.name, namespace: ns }] : [],
        );
    }
    return typeof t.name === "string" ? [{ full: t.name, name: t.name }] : [];
  });
}

/**
 * The function tools a request offers, namespaced ones under their full name: those of its tool
 * list, and those an earlier `tool_search` call loaded (its `tool_search_output` in the input).
 */
export function offeredTools(body: unknown): OfferedTool[] {
  if (!isObject(body)) return [];
  const loaded = (Array.isArray(body.input) ? body.input.filter(isObject) : [])
    .filter((i) => i.type === "tool_search_output")
    .flatMap((i) => toolsIn(i.tools));
  return [...toolsIn(body.tools), ...loaded];
}

const SEARCH_CALL = "call_editor_search";

function searched(body: unknown): boolean {
  return (
    isObject(body) &&
    Array.isArray(body.input) &&
    body.input.some((i) => isObject(i) && i.type === "tool_search_output" && i.call_id === SEARCH_CALL)
  );
}

function offersToolSearch(body: unknown): boolean {
  return isObject(body) && Array.isArray(body.tools) && body.tools.some((t) => isObject(t) && t.type === "tool_search");
}

/** What the scripted model searches for (BM25 over the deferred tools' names and descriptions). */
export const EDITOR_SEARCH_QUERY = "editor read_text_file write_text_file run_in_terminal";

const callId = (step: EditorStep): string => `call_editor_${step}`;

function message(id: string, text: string): Obj {
  return {
    type: "message",
    id,
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text, annotations: [] }],
  };
}

/** The picker for a session in `cwd`: the next editor call, or the final answer. */
export function codexEditorPicker(cwd: string): ItemPicker {
  return (body) => {
    const offered = offeredTools(body);
    if (offered.length === 0) return message("msg_side", "Interop editor scenario");
    for (const step of EDITOR_STEPS) {
      if (outputOf(body, `editor_${step}`) !== undefined) continue;
      const tool = EDITOR_STEP_TOOL[step];
      const full = findEditorTool(
        offered.map((t) => t.full),
        tool,
      );
      const found = offered.find((t) => t.full === full);
      // Codex defers MCP tools behind its client-side tool_search: search once, then call.
      if (found === undefined && offersToolSearch(body) && !searched(body)) {
        return {
          type: "tool_search_call",
          id: "ts_editor_search",
          status: "completed",
          call_id: SEARCH_CALL,
          execution: "client",
          arguments: { query: EDITOR_SEARCH_QUERY, limit: 8 },
        };
      }
      if (found === undefined) return message("msg_missing", `mock: the request offers no editor tool ${tool}`);
      return {
        type: "function_call",
        id: `fc_editor_${step}`,
        status: "completed",
        call_id: callId(step),
        name: found.name,
        ...(found.namespace === undefined ? {} : { namespace: found.namespace }),
        arguments: JSON.stringify(editorStepInput(step, cwd)),
      };
    }
    return message("msg_answer", EDITOR_SCENARIO.steps.answer);
  };
}

/** What the model got back for each editor step in one request. */
export function codexEditorResults(body: unknown): EditorResults {
  const out: { -readonly [K in keyof EditorResults]: EditorResults[K] } = {};
  for (const step of EDITOR_STEPS) {
    const text = outputOf(body, `editor_${step}`);
    if (text !== undefined) out[step] = text;
  }
  return out;
}
