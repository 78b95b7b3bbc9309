// The interop suite's model mocks (interop/mocks/), driven over HTTP with hand-written requests in
// the shape Codex and Gemini CLI send: each plays SCENARIO to the end, its tool calls reproduce
// SCENARIO.expected, and it stays on its step through retries and side requests. No real agent.
import { afterEach, describe, expect, it } from "vitest";
import { SCENARIO } from "../../interop/scenario.js";
import { PATCHES, startOpenAiResponsesMock, type ResponsesMock } from "../../interop/mocks/openai-responses.js";
import { startGeminiMock, type GeminiMock } from "../../interop/mocks/gemini.js";

interface Sse {
  event?: string;
  data: any;
}

function parseSse(text: string): Sse[] {
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const lines = block.split("\n");
      const event = lines.find((l) => l.startsWith("event: "))?.slice("event: ".length);
      const data = lines.find((l) => l.startsWith("data: "))?.slice("data: ".length);
      return { ...(event === undefined ? {} : { event }), data: JSON.parse(data ?? "null") };
    });
}

async function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

/** Apply one Codex patch (Add File, or Update File with a single hunk) to the files, as apply_patch would. */
function applyCodexPatch(files: Record<string, string>, patch: string): void {
  const lines = patch.split("\n");
  expect(lines[0]).toBe("*** Begin Patch");
  expect(lines.at(-1)).toBe("*** End Patch");
  const header = lines[1] ?? "";
  const body = lines.slice(2, -1);
  if (header.startsWith("*** Add File: ")) {
    files[header.slice("*** Add File: ".length)] = `${body.map((l) => l.slice(1)).join("\n")}\n`;
    return;
  }
  expect(header.startsWith("*** Update File: ")).toBe(true);
  const path = header.slice("*** Update File: ".length);
  const hunk = body.filter((l) => !l.startsWith("@@"));
  const from = hunk.filter((l) => !l.startsWith("+")).map((l) => l.slice(1));
  const to = hunk.filter((l) => !l.startsWith("-")).map((l) => l.slice(1));
  const text = files[path] ?? "";
  expect(text).toContain(from.join("\n"));
  files[path] = text.replace(from.join("\n"), to.join("\n"));
}

let mocks: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(mocks.map((m) => m.close()));
  mocks = [];
});

describe("OpenAI Responses mock (Codex)", () => {
  const codexTools = [
    { type: "function", name: "exec_command", parameters: { type: "object" } },
    { type: "function", name: "update_plan", parameters: { type: "object" } },
    { type: "custom", name: "apply_patch", format: { type: "grammar" } },
    { type: "web_search" },
  ];

  async function start(): Promise<ResponsesMock> {
    const mock = await startOpenAiResponsesMock();
    mocks.push(mock);
    return mock;
  }

  async function respond(mock: ResponsesMock, body: unknown): Promise<{ events: Sse[]; item: any; usage: any }> {
    const res = await post(`${mock.url}/responses`, body);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const events = parseSse(await res.text());
    expect(events[0]?.event).toBe("response.created");
    const completed = events.at(-1);
    expect(completed?.event).toBe("response.completed");
    for (const e of events) expect(e.data.type).toBe(e.event);
    const response = completed?.data.response;
    expect(response.output).toHaveLength(1);
    return { events, item: response.output[0], usage: response.usage };
  }

  it("plays the scenario to the end in Codex's tools, and its patches produce SCENARIO.expected", async () => {
    const mock = await start();
    const input: unknown[] = [
      { type: "message", role: "user", content: [{ type: "input_text", text: SCENARIO.prompt }] },
    ];
    const calls: { name: string; args: any }[] = [];
    const files: Record<string, string> = { ...SCENARIO.files };
    let final: any;
    for (let turn = 0; turn < 10 && final === undefined; turn++) {
      const { item, usage } = await respond(mock, { model: "gpt-5.5", stream: true, input, tools: codexTools });
      expect(usage.total_tokens).toBeGreaterThan(0);
      expect(Number(usage.input_tokens) + Number(usage.output_tokens)).toBe(usage.total_tokens);
      if (item.type === "message") {
        final = item;
        break;
      }
      const custom = item.type === "custom_tool_call";
      const args = custom ? item.input : JSON.parse(item.arguments);
      calls.push({ name: item.name, args });
      if (item.name === "apply_patch") applyCodexPatch(files, args);
      input.push(item, {
        type: custom ? "custom_tool_call_output" : "function_call_output",
        call_id: item.call_id,
        output: "ok",
      });
    }
    expect(calls).toEqual([
      { name: "exec_command", args: { cmd: `cat ${SCENARIO.steps.read.path}` } },
      { name: "apply_patch", args: PATCHES.edit },
      { name: "apply_patch", args: PATCHES.write },
      {
        name: "exec_command",
        args: {
          cmd: SCENARIO.steps.shell.command,
          sandbox_permissions: "require_escalated",
          justification: expect.any(String),
        },
      },
      { name: "update_plan", args: { plan: SCENARIO.steps.todos.map((t) => ({ step: t.content, status: t.status })) } },
    ]);
    expect(final.content[0].text).toBe(SCENARIO.steps.answer);
    expect(files).toEqual(SCENARIO.expected);
    expect(mock.requests()).toBe(6);
  });

  it("streams the final answer as a text delta before the completed item", async () => {
    const mock = await start();
    const input = ["read", "edit", "write", "shell", "todos"].map((s) => ({
      type: "function_call_output",
      call_id: `call_${s}`,
      output: "ok",
    }));
    const { events, item } = await respond(mock, { input, tools: codexTools });
    expect(item.type).toBe("message");
    expect(events.find((e) => e.event === "response.output_text.delta")?.data.delta).toBe(SCENARIO.steps.answer);
  });

  it("answers a retry with the same step and a side request (no tools) with text, without advancing", async () => {
    const mock = await start();
    const body = {
      input: [{ type: "function_call_output", call_id: "call_read", output: "alpha" }],
      tools: codexTools,
    };
    const first = await respond(mock, body);
    const retry = await respond(mock, body);
    expect(first.item.call_id).toBe("call_edit");
    expect(retry.item).toEqual(first.item);
    const side = await respond(mock, { input: [{ type: "message", role: "user", content: [] }] });
    expect(side.item.type).toBe("message");
    expect(side.item.content[0].text).not.toBe(SCENARIO.steps.answer);
    expect((await respond(mock, body)).item.call_id).toBe("call_edit");
    expect(mock.requests()).toBe(4);
  });

  it("uses the tool shapes an older Codex offers: apply_patch as a function, the array `shell` tool", async () => {
    const mock = await start();
    const tools = [
      { type: "function", name: "shell" },
      { type: "function", name: "apply_patch" },
      { type: "function", name: "update_plan" },
    ];
    const read = await respond(mock, { input: [], tools });
    expect(read.item).toMatchObject({ type: "function_call", name: "shell", call_id: "call_read" });
    expect(JSON.parse(read.item.arguments)).toEqual({ command: ["bash", "-lc", "cat notes.txt"] });
    const edit = await respond(mock, {
      input: [{ type: "function_call_output", call_id: "call_read", output: "x" }],
      tools,
    });
    expect(edit.item).toMatchObject({ type: "function_call", name: "apply_patch", call_id: "call_edit" });
    expect(JSON.parse(edit.item.arguments)).toEqual({ input: PATCHES.edit });
  });

  it("lists no models and answers unknown routes 404", async () => {
    const mock = await start();
    const models = await fetch(`${mock.url}/models`);
    expect(models.status).toBe(200);
    expect(await models.json()).toMatchObject({ data: [] });
    expect((await fetch(`${mock.url}/nowhere`)).status).toBe(404);
  });
});

describe("Gemini API mock (Gemini CLI)", () => {
  const cwd = "/interop/ws";
  const model = "gemini-2.5-flash";
  const declarations = [
    "read_file",
    "replace",
    "write_file",
    "run_shell_command",
    "write_todos",
    "list_directory",
    "glob",
  ].map((name) => ({ name, description: name, parametersJsonSchema: { type: "object" } }));

  async function start(): Promise<GeminiMock> {
    const mock = await startGeminiMock(cwd);
    mocks.push(mock);
    return mock;
  }

  async function stream(mock: GeminiMock, body: unknown): Promise<any> {
    const res = await post(`${mock.url}/v1beta/models/${model}:streamGenerateContent?alt=sse`, body);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const events = parseSse(await res.text());
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) expect(e.event).toBeUndefined();
    const last = events.at(-1)?.data;
    expect(last.usageMetadata.totalTokenCount).toBeGreaterThan(0);
    expect(last.candidates[0].finishReason).toBe("STOP");
    return last.candidates[0].content;
  }

  it("plays the scenario to the end in Gemini CLI's tools, and the calls produce SCENARIO.expected", async () => {
    const mock = await start();
    const contents: any[] = [{ role: "user", parts: [{ text: SCENARIO.prompt }] }];
    const calls: { name: string; args: any }[] = [];
    const files: Record<string, string> = { ...SCENARIO.files };
    let answer: string | undefined;
    for (let turn = 0; turn < 10 && answer === undefined; turn++) {
      const content = await stream(mock, { contents, tools: [{ functionDeclarations: declarations }] });
      expect(content.role).toBe("model");
      const part = content.parts[0];
      if (typeof part.text === "string") {
        answer = part.text;
        break;
      }
      const { id, name, args } = part.functionCall;
      calls.push({ name, args });
      const rel = typeof args.file_path === "string" ? args.file_path.slice(cwd.length + 1) : "";
      if (name === "replace") files[rel] = (files[rel] ?? "").replace(args.old_string, args.new_string);
      if (name === "write_file") files[rel] = args.content;
      contents.push(content, { role: "user", parts: [{ functionResponse: { id, name, response: { output: "ok" } } }] });
    }
    const { read, edit, write, shell, todos } = SCENARIO.steps;
    expect(calls).toEqual([
      { name: "read_file", args: { file_path: `${cwd}/${read.path}` } },
      {
        name: "replace",
        args: {
          file_path: `${cwd}/${edit.path}`,
          old_string: edit.oldText,
          new_string: edit.newText,
          instruction: expect.any(String),
        },
      },
      { name: "write_file", args: { file_path: `${cwd}/${write.path}`, content: write.content } },
      { name: "run_shell_command", args: { command: shell.command, description: expect.any(String) } },
      { name: "write_todos", args: { todos: todos.map((t) => ({ description: t.content, status: t.status })) } },
    ]);
    expect(answer).toBe(SCENARIO.steps.answer);
    expect(files).toEqual(SCENARIO.expected);
    expect(mock.requests()).toBe(6);
  });

  it("stays on its step through a retry and a structured side check (next speaker), which gets JSON", async () => {
    const mock = await start();
    const body = {
      contents: [
        { role: "user", parts: [{ text: SCENARIO.prompt }] },
        { role: "model", parts: [{ functionCall: { name: "read_file", args: {} } }] },
        { role: "user", parts: [{ functionResponse: { name: "read_file", response: { output: "alpha" } } }] },
      ],
      tools: [{ functionDeclarations: declarations }],
    };
    const first = await stream(mock, body);
    expect(first.parts[0].functionCall.name).toBe("replace");
    expect(await stream(mock, body)).toEqual(first);

    const check = await post(`${mock.url}/v1beta/models/${model}:generateContent`, {
      contents: body.contents,
      generationConfig: { responseMimeType: "application/json", responseJsonSchema: { type: "object" } },
    });
    expect(check.status).toBe(200);
    const checked: any = await check.json();
    expect(checked.usageMetadata.totalTokenCount).toBeGreaterThan(0);
    expect(JSON.parse(checked.candidates[0].content.parts[0].text)).toMatchObject({ next_speaker: "user" });

    expect((await stream(mock, body)).parts[0].functionCall.name).toBe("replace");
    expect(mock.requests()).toBe(4);
  });

  it("answers token counts and model listings, and unknown routes 404", async () => {
    const mock = await start();
    const count = await post(`${mock.url}/v1beta/models/${model}:countTokens`, { contents: [] });
    expect(await count.json()).toEqual({ totalTokens: expect.any(Number) });
    const list = await fetch(`${mock.url}/v1beta/models`);
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual({ models: [] });
    expect((await fetch(`${mock.url}/v1beta/nowhere`)).status).toBe(404);
    expect(mock.requests()).toBe(3);
  });
});
