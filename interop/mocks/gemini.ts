// Loopback mock of the Gemini API (`models/<m>:streamGenerateContent?alt=sse`, `:generateContent`,
// `:countTokens`, model listing) that plays SCENARIO in Gemini CLI's tool names. Stateless: the next
// step is the first whose tool has no `functionResponse` in the request's `contents` yet, so the
// CLI's retries and side requests (next-speaker checks, routing, summaries) cannot desynchronise it.
import { join } from "node:path";
import { SCENARIO } from "../scenario.js";
import { startMockServer, type MockReply, type MockRequest, type SseEvent } from "./http.js";
import type { ModelMock } from "../agents/recipe.js";
import { isObject, type Obj } from "../../src/base/json.js";

/** Each scenario step and the Gemini CLI tool that plays it (one tool per step, all distinct). */
export const GEMINI_STEPS = [
  ["read", "read_file"],
  ["edit", "replace"],
  ["write", "write_file"],
  ["shell", "run_shell_command"],
  ["todos", "write_todos"],
] as const;
export type GeminiStep = (typeof GEMINI_STEPS)[number][0] | "answer";

function parts(body: Obj): Obj[] {
  if (!Array.isArray(body.contents)) return [];
  return body.contents.filter(isObject).flatMap((c) => (Array.isArray(c.parts) ? c.parts.filter(isObject) : []));
}

/** Function names the request declares. */
export function declaredTools(body: unknown): string[] {
  if (!isObject(body) || !Array.isArray(body.tools)) return [];
  return body.tools
    .filter(isObject)
    .flatMap((t) => (Array.isArray(t.functionDeclarations) ? t.functionDeclarations.filter(isObject) : []))
    .flatMap((d) => (typeof d.name === "string" ? [d.name] : []));
}

/** The `response` the CLI returned for a tool, if any. */
export function responseOf(body: unknown, tool: string): unknown {
  if (!isObject(body)) return undefined;
  const found = parts(body)
    .map((p) => p.functionResponse)
    .filter(isObject)
    .find((r) => r.name === tool);
  return found === undefined ? undefined : (found.response ?? null);
}

/** The step for this request, or `"side"` when it declares no tools (a check, summary or title). */
export function nextStep(body: unknown): GeminiStep | "side" {
  if (declaredTools(body).length === 0) return "side";
  for (const [step, tool] of GEMINI_STEPS) if (responseOf(body, tool) === undefined) return step;
  return "answer";
}

/** The model's part for a step; paths are absolute (the CLI's tools want them so). */
export function stepPart(step: GeminiStep, cwd: string): Obj {
  const { read, edit, write, shell, todos, answer } = SCENARIO.steps;
  const call = (name: string, args: Obj): Obj => ({ functionCall: { id: `call_${step}`, name, args } });
  switch (step) {
    case "read":
      return call("read_file", { file_path: join(cwd, read.path) });
    case "edit":
      return call("replace", {
        file_path: join(cwd, edit.path),
        old_string: edit.oldText,
        new_string: edit.newText,
        instruction: "Capitalise gamma.",
      });
    case "write":
      return call("write_file", { file_path: join(cwd, write.path), content: write.content });
    case "shell":
      return call("run_shell_command", { command: shell.command, description: "Check the listing." });
    case "todos":
      return call("write_todos", { todos: todos.map((t) => ({ description: t.content, status: t.status })) });
    case "answer":
      return { text: answer };
  }
}

const USAGE = { promptTokenCount: 1200, candidatesTokenCount: 40, totalTokenCount: 1240, cachedContentTokenCount: 200 };

function candidateResponse(part: Obj, model: string): Obj {
  return {
    candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }],
    usageMetadata: USAGE,
    modelVersion: model,
    responseId: `resp_${Date.now()}`,
  };
}

/** A side request's answer: JSON for structured checks (next speaker, routing), else a short text. */
function sideText(body: unknown): string {
  const config = isObject(body) && isObject(body.generationConfig) ? body.generationConfig : {};
  if (config.responseMimeType === "application/json") {
    return JSON.stringify({ reasoning: "interop mock", next_speaker: "user", model_choice: "flash" });
  }
  return "Interop scenario";
}

function modelOf(url: string): string {
  const m = /models\/([^:/?]+)/.exec(url);
  return m?.[1] ?? "gemini-mock";
}

/** Route one request. `cwd` is the session's working directory (the scenario's paths are relative to it). */
export function handleGeminiRequest(req: MockRequest, cwd: string): MockReply {
  const path = req.url.split("?")[0] ?? "";
  const model = modelOf(path);
  if (req.method === "POST" && path.endsWith(":countTokens")) return { kind: "json", body: { totalTokens: 1200 } };
  if (req.method === "POST" && (path.endsWith(":streamGenerateContent") || path.endsWith(":generateContent"))) {
    const step = nextStep(req.body);
    const part = step === "side" ? { text: sideText(req.body) } : stepPart(step, cwd);
    const response = candidateResponse(part, model);
    if (path.endsWith(":generateContent")) return { kind: "json", body: response };
    const events: SseEvent[] = [{ data: response }];
    return { kind: "sse", events };
  }
  if (req.method === "POST" && path.endsWith(":embedContent")) {
    return { kind: "json", body: { embedding: { values: [0.1, 0.2, 0.3] } } };
  }
  if (req.method === "GET" && /\/models\/?$/.test(path)) {
    return { kind: "json", body: { models: [] } };
  }
  return {
    kind: "json",
    status: 404,
    body: { error: { code: 404, message: `mock: no route for ${req.method} ${req.url}` } },
  };
}

export interface GeminiMock extends ModelMock {
  readonly log: readonly MockRequest[];
}

export async function startGeminiMock(cwd: string): Promise<GeminiMock> {
  const server = await startMockServer((req) => handleGeminiRequest(req, cwd));
  return { url: server.url, requests: () => server.requests(), close: () => server.close(), log: server.log };
}
