// The loopback Anthropic Messages mock (interop/mocks/anthropic.ts) plays SCENARIO in Claude Code's
// tool names, driven here by plain HTTP requests as Claude Code sends them: streamed (SSE) with the
// whole conversation, the next step decided by the tool results in the request.
import { afterEach, describe, expect, it } from "vitest";
import { claudeSteps, startAnthropicMock, type AnthropicMock } from "../../interop/mocks/anthropic.js";
import { SCENARIO } from "../../interop/scenario.js";

const CWD = "/tmp/interop-ws";
const TOOLS = ["Read", "Edit", "Write", "Bash", "ToolSearch"].map((name) => ({ name, input_schema: {} }));

interface Answer {
  blocks: any[];
  stopReason: string;
  usage: { start: any; delta: any };
}

/** Parse an SSE Messages stream back into content blocks, as the Anthropic SDK does. */
function parseSse(text: string): Answer {
  const blocks: any[] = [];
  const json: string[] = [];
  let stopReason = "";
  const usage: { start: any; delta: any } = { start: undefined, delta: undefined };
  const events = text.split("\n\n").filter((e) => e.trim() !== "");
  for (const e of events) {
    const event = /^event: (.*)$/m.exec(e)?.[1];
    const data = JSON.parse(/^data: (.*)$/m.exec(e)?.[1] ?? "null");
    expect(data.type).toBe(event);
    if (event === "message_start") usage.start = data.message.usage;
    if (event === "content_block_start") {
      blocks[data.index] = { ...data.content_block };
      json[data.index] = "";
    }
    if (event === "content_block_delta") {
      const i: number = data.index;
      if (data.delta.type === "text_delta") blocks[i].text = `${blocks[i].text}${String(data.delta.text)}`;
      if (data.delta.type === "input_json_delta") json[i] = `${json[i] ?? ""}${String(data.delta.partial_json)}`;
    }
    if (event === "content_block_stop" && blocks[data.index].type === "tool_use")
      blocks[data.index].input = JSON.parse(json[data.index]!);
    if (event === "message_delta") {
      stopReason = data.delta.stop_reason;
      usage.delta = data.usage;
    }
  }
  expect(events.at(-1)).toContain("message_stop");
  return { blocks, stopReason, usage };
}

async function post(mock: AnthropicMock, body: unknown): Promise<Answer> {
  const res = await fetch(`${mock.url}/v1/messages?beta=true`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  return parseSse(await res.text());
}

let mock: AnthropicMock | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

describe("Anthropic Messages mock", () => {
  it("plays the scenario step by step from the tool results, then answers", async () => {
    mock = await startAnthropicMock(CWD);
    const messages: any[] = [{ role: "user", content: [{ type: "text", text: SCENARIO.prompt }] }];
    const names: string[] = [];
    for (let i = 0; i < 10; i++) {
      const tools = names.includes("ToolSearch") ? [...TOOLS, { name: "TodoWrite", input_schema: {} }] : TOOLS;
      const answer = await post(mock, { model: "m", stream: true, tools, messages });
      expect(answer.usage.start.input_tokens).toBeGreaterThan(0);
      expect(answer.usage.delta.output_tokens).toBeGreaterThan(0);
      const [block] = answer.blocks;
      if (block.type === "text") {
        expect(answer.stopReason).toBe("end_turn");
        expect(block.text).toBe(SCENARIO.steps.answer);
        break;
      }
      expect(answer.stopReason).toBe("tool_use");
      names.push(block.name);
      messages.push({ role: "assistant", content: answer.blocks });
      messages.push({
        role: "user",
        content: [{ type: "tool_result", tool_use_id: block.id, content: [{ type: "text", text: "ok" }] }],
      });
    }
    expect(names).toEqual(["Read", "Edit", "Write", "Bash", "ToolSearch", "TodoWrite"]);
    expect(claudeSteps(CWD).map((s) => s.input)).toEqual([
      { file_path: `${CWD}/notes.txt` },
      { file_path: `${CWD}/notes.txt`, old_string: "gamma", new_string: "GAMMA" },
      { file_path: `${CWD}/hello.py`, content: 'print("hello")\n' },
      { command: "echo interop-ok && ls", description: "List the workspace" },
      { query: "select:TodoWrite", max_results: 1 },
      {
        todos: [
          { content: "Review notes.txt", status: "completed", activeForm: "Review notes.txt" },
          { content: "Run hello.py", status: "pending", activeForm: "Run hello.py" },
        ],
      },
    ]);
    expect(mock.requests()).toBe(7);
    expect(mock.results().map((r) => r.id)).toHaveLength(6);
  });

  it("does not skip a step whose result is missing, and repeats it after an unrelated result", async () => {
    mock = await startAnthropicMock(CWD);
    const first = await post(mock, { stream: true, tools: TOOLS, messages: [{ role: "user", content: "go" }] });
    const again = await post(mock, {
      stream: true,
      tools: TOOLS,
      messages: [
        { role: "user", content: "go" },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_other", content: "x", is_error: true }] },
      ],
    });
    expect(again.blocks[0]).toEqual(first.blocks[0]);
    expect(mock.results()).toEqual([{ id: "toolu_other", isError: true, text: "x" }]);
  });

  it("answers side queries (no tools offered) with text, and non-streamed requests with JSON", async () => {
    mock = await startAnthropicMock(CWD);
    const side = await post(mock, { stream: true, messages: [{ role: "user", content: "title?" }] });
    expect(side.blocks).toEqual([{ type: "text", text: "Interop scenario" }]);
    const res = await fetch(`${mock.url}/v1/messages`, {
      method: "POST",
      body: JSON.stringify({ tools: TOOLS, messages: [{ role: "user", content: "go" }] }),
    });
    const body: any = await res.json();
    expect(body).toMatchObject({
      type: "message",
      stop_reason: "tool_use",
      content: [{ type: "tool_use", name: "Read" }],
    });
    expect(body.usage.input_tokens).toBeGreaterThan(0);
    const missing = await fetch(`${mock.url}/v1/models`);
    expect(missing.status).toBe(404);
    expect(mock.log().at(-1)).toBe("GET /v1/models -> 404");
  });
});
