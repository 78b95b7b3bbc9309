// Loopback mock of the OpenAI Responses API (`POST …/responses`, streamed as SSE) that plays
// SCENARIO in Codex's tool names. Stateless: the next step is decided from the tool outputs already
// present in the request's `input`, so retries, replays and side requests cannot desynchronise it.
import { SCENARIO } from "../scenario.js";
import { startMockServer, type MockReply, type MockRequest, type SseEvent } from "./http.js";
import type { ModelMock } from "../agents/recipe.js";
import { isObject, type Obj } from "../../src/base/json.js";

/** The scenario's steps in order; each tool call the mock makes carries `call_<step>` as its id. */
export const CODEX_STEPS = ["read", "edit", "write", "shell", "todos"] as const;
export type CodexStep = (typeof CODEX_STEPS)[number] | "answer";

function items(body: Obj): Obj[] {
  return Array.isArray(body.input) ? body.input.filter(isObject) : [];
}

/** Names of the tools the request offers (function tools and freeform "custom" tools alike). */
export function toolNames(body: unknown): string[] {
  if (!isObject(body) || !Array.isArray(body.tools)) return [];
  return body.tools.filter(isObject).flatMap((t) => (typeof t.name === "string" ? [t.name] : []));
}

function toolType(body: Obj, name: string): string | undefined {
  if (!Array.isArray(body.tools)) return undefined;
  const tool = body.tools.filter(isObject).find((t) => t.name === name);
  return typeof tool?.type === "string" ? tool.type : undefined;
}

/** The output the agent returned for one of our calls, if any (function and custom tool outputs). */
export function outputOf(body: unknown, step: string): string | undefined {
  if (!isObject(body)) return undefined;
  const out = items(body).find(
    (i) => (i.type === "function_call_output" || i.type === "custom_tool_call_output") && i.call_id === `call_${step}`,
  );
  if (out === undefined) return undefined;
  if (typeof out.output === "string") return out.output;
  return JSON.stringify(out.output);
}

/**
 * The step to play for this request: the first scenario step without a tool output yet, or
 * `"side"` for a request that is not the scenario's turn (no tools offered, e.g. a title or
 * summary request).
 */
export function nextStep(body: unknown): CodexStep | "side" {
  if (!isObject(body) || toolNames(body).length === 0) return "side";
  for (const step of CODEX_STEPS) if (outputOf(body, step) === undefined) return step;
  return "answer";
}

/** The edited line with one line of context each side, taken from the scenario's file. */
function editHunk(): string[] {
  const { path, oldText, newText } = SCENARIO.steps.edit;
  const lines = (SCENARIO.files[path] ?? "").split("\n");
  const at = lines.indexOf(oldText);
  if (at < 0) throw new Error(`mock: ${oldText} is not a line of ${path}`);
  const before = at > 0 ? [` ${lines[at - 1] ?? ""}`] : [];
  const after = at + 1 < lines.length && lines[at + 1] !== "" ? [` ${lines[at + 1] ?? ""}`] : [];
  return ["@@", ...before, `-${oldText}`, `+${newText}`, ...after];
}

/** apply_patch inputs (Codex's own patch format) for the edit and the new file. */
export const PATCHES = {
  edit: ["*** Begin Patch", `*** Update File: ${SCENARIO.steps.edit.path}`, ...editHunk(), "*** End Patch"].join("\n"),
  write: [
    "*** Begin Patch",
    `*** Add File: ${SCENARIO.steps.write.path}`,
    ...SCENARIO.steps.write.content
      .replace(/\n$/, "")
      .split("\n")
      .map((l) => `+${l}`),
    "*** End Patch",
  ].join("\n"),
};

/** A shell call in whichever shell tool this Codex build offers. */
function shellCall(body: Obj, command: string, escalate: boolean): { name: string; args: Obj } {
  const names = toolNames(body);
  const escalation = escalate
    ? { sandbox_permissions: "require_escalated", justification: "The interop scenario needs approval." }
    : {};
  if (names.includes("exec_command")) return { name: "exec_command", args: { cmd: command, ...escalation } };
  if (names.includes("shell_command")) return { name: "shell_command", args: { command, ...escalation } };
  return { name: "shell", args: { command: ["bash", "-lc", command], ...escalation } };
}

function patchCall(body: Obj, step: "edit" | "write"): Obj {
  const patch = PATCHES[step];
  if (toolType(body, "apply_patch") === "custom") {
    return {
      type: "custom_tool_call",
      id: `ctc_${step}`,
      status: "completed",
      call_id: `call_${step}`,
      name: "apply_patch",
      input: patch,
    };
  }
  return functionCall(step, "apply_patch", { input: patch });
}

function functionCall(step: string, name: string, args: Obj): Obj {
  return {
    type: "function_call",
    id: `fc_${step}`,
    status: "completed",
    call_id: `call_${step}`,
    name,
    arguments: JSON.stringify(args),
  };
}

/** The output item (one tool call or the final message) for a step. */
export function outputItem(body: unknown, step: CodexStep | "side"): Obj {
  const b = isObject(body) ? body : {};
  switch (step) {
    case "read": {
      const { name, args } = shellCall(b, `cat ${SCENARIO.steps.read.path}`, false);
      return functionCall(step, name, args);
    }
    case "edit":
    case "write":
      return patchCall(b, step);
    case "shell": {
      const { name, args } = shellCall(b, SCENARIO.steps.shell.command, true);
      return functionCall(step, name, args);
    }
    case "todos":
      return functionCall(step, "update_plan", {
        plan: SCENARIO.steps.todos.map((t) => ({ step: t.content, status: t.status })),
      });
    case "answer":
    case "side":
      return {
        type: "message",
        id: `msg_${step}`,
        role: "assistant",
        status: "completed",
        content: [
          {
            type: "output_text",
            text: step === "answer" ? SCENARIO.steps.answer : "Interop scenario",
            annotations: [],
          },
        ],
      };
  }
}

/** The output item a request gets (one scripted turn). */
export type ItemPicker = (body: unknown) => Obj;

const scenarioItem: ItemPicker = (body) => outputItem(body, nextStep(body));

/** The SSE events of one streamed response (created, the item with text deltas, completed with usage). */
export function responseEvents(body: unknown, id: string, pick: ItemPicker = scenarioItem): SseEvent[] {
  const item = pick(body);
  const response = {
    id,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: "in_progress",
    output: [],
  };
  const events: SseEvent[] = [
    { event: "response.created", data: { type: "response.created", response } },
    { event: "response.output_item.added", data: { type: "response.output_item.added", output_index: 0, item } },
  ];
  if (item.type === "message" && Array.isArray(item.content)) {
    const part = item.content.find(isObject);
    const text = typeof part?.text === "string" ? part.text : "";
    events.push({
      event: "response.output_text.delta",
      data: { type: "response.output_text.delta", item_id: item.id, output_index: 0, content_index: 0, delta: text },
    });
  }
  events.push(
    { event: "response.output_item.done", data: { type: "response.output_item.done", output_index: 0, item } },
    {
      event: "response.completed",
      data: {
        type: "response.completed",
        response: {
          ...response,
          status: "completed",
          output: [item],
          usage: {
            input_tokens: 1200,
            input_tokens_details: { cached_tokens: 200 },
            output_tokens: 40,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: 1240,
          },
        },
      },
    },
  );
  return events;
}

/** Route one request; `seq` numbers the responses (`resp_<seq>`). */
export function handleResponsesRequest(req: MockRequest, seq: number, pick: ItemPicker = scenarioItem): MockReply {
  const path = req.url.split("?")[0] ?? "";
  if (req.method === "POST" && path.endsWith("/responses")) {
    return { kind: "sse", events: responseEvents(req.body, `resp_${seq}`, pick) };
  }
  // Codex may list models at start; an empty list keeps its built-in defaults.
  if (req.method === "GET" && path.endsWith("/models"))
    return { kind: "json", body: { object: "list", data: [], models: [] } };
  return { kind: "json", status: 404, body: { error: { message: `mock: no route for ${req.method} ${req.url}` } } };
}

export interface ResponsesMock extends ModelMock {
  /** Every request received (method, url, parsed body), for the dev driver's diagnostics. */
  readonly log: readonly MockRequest[];
}

/** Start the mock; its `url` ends in `/v1`, the provider's `base_url`. */
export async function startOpenAiResponsesMock(pick: ItemPicker = scenarioItem): Promise<ResponsesMock> {
  let seq = 0;
  const server = await startMockServer((req) => handleResponsesRequest(req, ++seq, pick));
  return { url: `${server.url}/v1`, requests: () => server.requests(), close: () => server.close(), log: server.log };
}
