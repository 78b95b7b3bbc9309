// The editor's MCP server (H §6.5): the tools of mappings/editor-tools.ts, each a v1 client request
// made for the v2 agent, on the official MCP server SDK. A tool never throws: what the editor
// refuses, a path outside the roots, a size or concurrency bound, a timeout or a client that is
// gone all come back as tool errors (`isError: true`) saying so, and the editor is asked nothing it
// would have to refuse.
import { McpServer, type CallToolResult, type ServerContext } from "@modelcontextprotocol/server";
import * as z from "zod";
import {
  EDITOR_TOOL_META,
  editorTools,
  type EditorCapability,
  type EditorToolRow,
} from "../../mappings/editor-tools.js";
import type { Platform } from "../convert/directories.js";
import { VERSION } from "../version.js";
import { pathProblem, type Roots } from "./paths.js";

/** The client's answer to one request: its result, or its error. */
export type ClientAnswer =
  | { readonly result: unknown }
  | { readonly error: { readonly code: number; readonly message: string; readonly data?: unknown } };

/** What the tools need of the bridge for one session. */
export interface EditorPort {
  /** The session's id, once the agent's answer named it. */
  readonly sessionId: string | undefined;
  readonly roots: Roots;
  /** Ask the v1 client; an error answer when it refused, did not answer in time, or is gone. */
  ask(method: string, params: Record<string, unknown>, timeoutMs?: number): Promise<ClientAnswer>;
  /** A terminal the client created for the agent: the agent's tool call may show it (H §6.5). */
  terminalCreated(terminalId: string, input: Readonly<Record<string, unknown>>, requestMeta: unknown): void;
}

export interface EditorToolOptions {
  readonly platform: Platform;
  /** `--editor-tools-any-path`: no roots rule (absolute paths still). */
  readonly anyPath: boolean;
  /** `--editor-tools-max-bytes`. */
  readonly maxBytes: number;
  /** `--editor-tools-max-concurrent`, per session. */
  readonly maxConcurrent: number;
  /** `--editor-tools-timeout-ms`: the longest wait for one editor answer, and run_in_terminal's default. */
  readonly timeoutMs: number;
  /** How often a call that asked for progress gets some while it waits (30 s by default). */
  readonly progressMs?: number;
}

/**
 * MCP clients give up on a call that reports nothing for a while (Claude Code: 300 s over HTTP): a
 * call that sent a `progressToken` gets a progress notification this often while the editor works
 * (a long build in `run_in_terminal`).
 */
const PROGRESS_MS = 30_000;

function heartbeat(ctx: ServerContext, everyMs: number): () => void {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return () => undefined;
  let progress = 0;
  const timer = setInterval(() => {
    const params = { progressToken: token, progress: ++progress, message: "waiting for the editor" };
    ctx.mcpReq.notify({ method: "notifications/progress", params }).catch(() => undefined);
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** The client capabilities the tools need (mappings/editor-tools.ts `needs`). */
export type EditorCapabilities = Readonly<Record<EditorCapability, boolean>>;

/** The tools a client with `caps` can serve. */
function offeredTools(caps: EditorCapabilities): EditorToolRow[] {
  return editorTools.filter((t) => caps[t.needs]);
}

/** The error code of an `ask` the bridge gave up waiting on (engine/v1-client/editor.ts makes it). */
const TIMED_OUT = -32001;

const text = (t: string): CallToolResult => ({ content: [{ type: "text", text: t }] });
const toolError = (t: string): CallToolResult => ({ content: [{ type: "text", text: t }], isError: true });

const absolutePath = z.string().describe("An absolute path");
const terminalId = z.string().describe("The terminalId terminal_create returned");
const timeoutMs = z.number().int().positive().optional();
const command = {
  command: z.string().min(1).describe("The program to run (a shell command line when no args are given)"),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional().describe("Environment variables to set"),
  cwd: absolutePath.optional().describe("The working directory: absolute, inside the session's directories"),
  outputByteLimit: z.number().int().positive().optional().describe("Keep at most this many bytes of output"),
};

const INPUTS = {
  read_text_file: z.object({
    path: absolutePath,
    line: z.number().int().positive().optional().describe("First line to read, 1-based"),
    limit: z.number().int().positive().optional().describe("Most lines to read"),
  }),
  write_text_file: z.object({ path: absolutePath, content: z.string() }),
  run_in_terminal: z.object({ ...command, timeoutMs }),
  terminal_create: z.object(command),
  terminal_output: z.object({ terminalId }),
  terminal_wait_for_exit: z.object({ terminalId, timeoutMs }),
  terminal_kill: z.object({ terminalId }),
  terminal_release: z.object({ terminalId }),
} as const;

type Inputs = { [K in keyof typeof INPUTS]: z.output<(typeof INPUTS)[K]> };
type Args = Record<string, unknown>;

function failure(tool: string, answer: ClientAnswer): string | undefined {
  if (!("error" in answer)) return undefined;
  return `The editor refused ${tool}: ${answer.error.message}`;
}

function obj(v: unknown): Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function exitLine(status: unknown): string {
  const s = obj(status);
  if (typeof s.signal === "string") return `killed by signal ${s.signal}`;
  return typeof s.exitCode === "number" ? `exit code ${s.exitCode}` : "exit status unknown";
}

/** The text of a terminal's output answer, bounded to `max` bytes (its tail). */
function outputText(result: unknown, max: number): string {
  const r = obj(result);
  let out = typeof r.output === "string" ? r.output : "";
  let cut = r.truncated === true;
  if (Buffer.byteLength(out) > max) {
    out = Buffer.from(out).subarray(-max).toString("utf8");
    cut = true;
  }
  const status = r.exitStatus === undefined || r.exitStatus === null ? "still running" : exitLine(r.exitStatus);
  return `${cut ? "[earlier output truncated]\n" : ""}${out}${out.endsWith("\n") || out === "" ? "" : "\n"}[${status}]`;
}

/** One session's tool handlers: the v1 requests behind each tool. */
class Handlers {
  private inFlight = 0;

  constructor(
    private readonly port: EditorPort,
    private readonly opts: EditorToolOptions,
  ) {}

  /** Bounds, session and paths checked before the editor is asked; the handler's own errors contained. */
  async run(row: EditorToolRow, args: Args, meta: unknown, signal?: AbortSignal): Promise<CallToolResult> {
    const sessionId = this.port.sessionId;
    if (sessionId === undefined) return toolError("The editor session is not open yet; try again.");
    for (const field of row.paths) {
      const path = args[field];
      if (typeof path !== "string") continue;
      const problem = pathProblem(path, this.port.roots, this.opts.platform, this.opts.anyPath);
      if (problem) return toolError(`Refused by acp-bridge: ${problem}. The editor was not asked.`);
    }
    if (this.inFlight >= this.opts.maxConcurrent)
      return toolError(`Refused by acp-bridge: ${this.opts.maxConcurrent} editor tool calls are already in flight.`);
    this.inFlight++;
    try {
      return await this.dispatch(row.tool, sessionId, args, meta, signal);
    } catch (e) {
      return toolError(`acp-bridge could not complete ${row.tool}: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      this.inFlight--;
    }
  }

  private dispatch(
    tool: string,
    sessionId: string,
    args: Args,
    meta: unknown,
    signal: AbortSignal | undefined,
  ): Promise<CallToolResult> {
    switch (tool) {
      case "read_text_file":
        return this.read(sessionId, args as Inputs["read_text_file"]);
      case "write_text_file":
        return this.write(sessionId, args as Inputs["write_text_file"]);
      case "terminal_create":
        return this.create(sessionId, args as Inputs["terminal_create"], meta).then((r) =>
          "failed" in r ? r.failed : text(`terminalId: ${r.terminalId}`),
        );
      case "terminal_output":
        return this.output(sessionId, (args as Inputs["terminal_output"]).terminalId);
      case "terminal_wait_for_exit":
        return this.wait(sessionId, args as Inputs["terminal_wait_for_exit"]);
      case "terminal_kill":
      case "terminal_release":
        return this.simple(tool, sessionId, (args as Inputs["terminal_kill"]).terminalId);
      case "run_in_terminal":
        return this.runInTerminal(sessionId, args as Inputs["run_in_terminal"], meta, signal);
      default:
        return Promise.resolve(toolError(`unknown tool ${tool}`));
    }
  }

  private async read(sessionId: string, a: Inputs["read_text_file"]): Promise<CallToolResult> {
    const answer = await this.port.ask("fs/read_text_file", {
      sessionId,
      path: a.path,
      ...(a.line === undefined ? {} : { line: a.line }),
      ...(a.limit === undefined ? {} : { limit: a.limit }),
    });
    const refused = failure("read_text_file", answer);
    if (refused !== undefined) return toolError(refused);
    const content = "result" in answer ? obj(answer.result).content : undefined;
    if (typeof content !== "string") return toolError("The editor's answer to read_text_file has no text content.");
    if (Buffer.byteLength(content) > this.opts.maxBytes)
      return toolError(
        `Refused by acp-bridge: the file is larger than ${this.opts.maxBytes} bytes; read it in parts with line and limit.`,
      );
    return text(content);
  }

  private async write(sessionId: string, a: Inputs["write_text_file"]): Promise<CallToolResult> {
    const bytes = Buffer.byteLength(a.content);
    if (bytes > this.opts.maxBytes)
      return toolError(`Refused by acp-bridge: the content is larger than ${this.opts.maxBytes} bytes.`);
    const answer = await this.port.ask("fs/write_text_file", { sessionId, path: a.path, content: a.content });
    const refused = failure("write_text_file", answer);
    return refused !== undefined ? toolError(refused) : text(`Wrote ${bytes} bytes to ${a.path} through the editor.`);
  }

  private async create(
    sessionId: string,
    a: Inputs["terminal_create"],
    meta: unknown,
  ): Promise<{ readonly terminalId: string } | { readonly failed: CallToolResult }> {
    const limit = Math.min(a.outputByteLimit ?? this.opts.maxBytes, this.opts.maxBytes);
    const answer = await this.port.ask("terminal/create", {
      sessionId,
      command: a.command,
      ...(a.args === undefined ? {} : { args: a.args }),
      env: Object.entries(a.env ?? {}).map(([name, value]) => ({ name, value })),
      cwd: a.cwd ?? this.port.roots.cwd,
      outputByteLimit: limit,
    });
    const refused = failure("terminal_create", answer);
    if (refused !== undefined) return { failed: toolError(refused) };
    const id = "result" in answer ? obj(answer.result).terminalId : undefined;
    if (typeof id !== "string")
      return { failed: toolError("The editor's answer to terminal_create has no terminalId.") };
    this.port.terminalCreated(id, a, meta);
    return { terminalId: id };
  }

  private async output(sessionId: string, terminalId: string): Promise<CallToolResult> {
    const answer = await this.port.ask("terminal/output", { sessionId, terminalId });
    const refused = failure("terminal_output", answer);
    if (refused !== undefined) return toolError(refused);
    return text(outputText("result" in answer ? answer.result : undefined, this.opts.maxBytes));
  }

  /** `terminal/wait_for_exit`, given up on (the command left running) after `timeoutMs`. */
  private async waitFor(
    sessionId: string,
    terminalId: string,
    ms: number | undefined,
  ): Promise<ClientAnswer | "timeout"> {
    const asked = this.port.ask("terminal/wait_for_exit", { sessionId, terminalId }, ms);
    const answer = await asked;
    if ("error" in answer && answer.error.code === TIMED_OUT && ms !== undefined) return "timeout";
    return answer;
  }

  private async wait(sessionId: string, a: Inputs["terminal_wait_for_exit"]): Promise<CallToolResult> {
    const answer = await this.waitFor(sessionId, a.terminalId, a.timeoutMs);
    if (answer === "timeout") return text(`Still running after ${a.timeoutMs} ms.`);
    const refused = failure("terminal_wait_for_exit", answer);
    if (refused !== undefined) return toolError(refused);
    return text(`Exited: ${exitLine("result" in answer ? answer.result : undefined)}.`);
  }

  private async simple(
    tool: "terminal_kill" | "terminal_release",
    sessionId: string,
    id: string,
  ): Promise<CallToolResult> {
    const method = tool === "terminal_kill" ? "terminal/kill" : "terminal/release";
    const answer = await this.port.ask(method, { sessionId, terminalId: id });
    const refused = failure(tool, answer);
    return refused !== undefined ? toolError(refused) : text(tool === "terminal_kill" ? "Killed." : "Released.");
  }

  /** create, wait (killing it past the timeout), output, release: what a model mostly wants. */
  private async runInTerminal(
    sessionId: string,
    a: Inputs["run_in_terminal"],
    meta: unknown,
    signal: AbortSignal | undefined,
  ): Promise<CallToolResult> {
    const { timeoutMs: limit, ...create } = a;
    const created = await this.create(sessionId, create, meta);
    if ("failed" in created) return created.failed;
    const id = created.terminalId;
    try {
      // The agent cancelling the call (MCP cancellation) ends the command as its timeout would.
      const cancelled = new Promise<"timeout">((resolve) => {
        if (signal?.aborted) resolve("timeout");
        signal?.addEventListener("abort", () => resolve("timeout"), { once: true });
      });
      const waited = await Promise.race([this.waitFor(sessionId, id, limit ?? this.opts.timeoutMs), cancelled]);
      if (waited === "timeout") await this.port.ask("terminal/kill", { sessionId, terminalId: id });
      const out = await this.port.ask("terminal/output", { sessionId, terminalId: id });
      if ("error" in out)
        return toolError(`The editor refused run_in_terminal (terminal/output): ${out.error.message}`);
      const body = outputText(out.result, this.opts.maxBytes);
      if (waited === "timeout")
        return toolError(`Killed after ${limit ?? this.opts.timeoutMs} ms (timeout). Output:\n${body}`);
      const waitRefused = failure("run_in_terminal (terminal/wait_for_exit)", waited);
      return waitRefused !== undefined ? toolError(`${waitRefused}\n${body}`) : text(body);
    } finally {
      await this.port.ask("terminal/release", { sessionId, terminalId: id });
    }
  }
}

/** An MCP server factory for one session's port: a fresh server per request, as the MCP SDK asks. */
export function editorServerFactory(
  port: EditorPort,
  caps: EditorCapabilities,
  opts: EditorToolOptions,
): () => McpServer {
  const handlers = new Handlers(port, opts);
  const tools = offeredTools(caps);
  return () => {
    const server = new McpServer({ name: "acp-bridge-editor", version: VERSION });
    for (const row of tools) {
      // One schema type for the registration: the handlers narrow the parsed input per tool.
      const inputSchema = INPUTS[row.tool as keyof typeof INPUTS] as unknown as z.ZodObject<z.ZodRawShape>;
      server.registerTool(
        row.tool,
        { description: row.description, inputSchema, annotations: row.annotations, _meta: { ...EDITOR_TOOL_META } },
        async (args: Args, ctx) => {
          const stop = heartbeat(ctx, opts.progressMs ?? PROGRESS_MS);
          try {
            return await handlers.run(row, args, ctx.mcpReq._meta, ctx.mcpReq.signal);
          } finally {
            stop();
          }
        },
      );
    }
    return server;
  };
}
