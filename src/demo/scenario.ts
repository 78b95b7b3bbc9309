// Scripted turn behaviour shared by the demo agents (v1 and v2): a prompt's `[tag]`s pick what the
// turn does; each agent renders the version-neutral steps in its own protocol version.
//
// Tags: [chunks] [thought] [plan] [slow] or [slow:<ms>] [tool] (asks permission) [diff] [fs] (v1:
// fs/read_text_file) [mcp] [dirs] (report what the session got) [echo] (v1: echo the prompt)
// [crash] (exit 3 mid-turn) [error] (turn fails) [term] (a command shown in a terminal: v2 display
// terminal, v1 the `_meta` terminal convention, sent unasked as codex-acp does). No tag: chunks +
// plan + tool, the demo's turn.
// Environment: ACP_WIRE_LOG=<file>, ACP_DEMO_STORE=<dir> (sessions outlive the process),
// ACP_DEMO_REQUIRE_AUTH=1, ACP_DEMO_SLOW_MS, ACP_DEMO_CHUNK_MS, ACP_DEMO_V1_FULL=1 (agent-v1).
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const KNOWN_TAGS = [
  "chunks",
  "thought",
  "plan",
  "slow",
  "tool",
  "diff",
  "fs",
  "mcp",
  "dirs",
  "echo",
  "crash",
  "error",
  "term",
] as const;
/** The demo scenario's tags. */
type Tag = (typeof KNOWN_TAGS)[number];

/** What a prompt without any known tag does: the demo's turn. */
const DEFAULT_TAGS: readonly Tag[] = ["chunks", "plan", "tool"];
const DEFAULT_SLOW_MS = 30_000;
export const CRASH_EXIT_CODE = 3;
const SCRIPTED_ERROR = { code: -32603, message: "Scripted failure", data: { tag: "error" } } as const;

interface PlanEntrySpec {
  readonly content: string;
  readonly priority: "high" | "medium" | "low";
  readonly status: "pending" | "in_progress" | "completed";
}

/** One file a tool call changed; `oldText: null` means the file was added. */
export interface FileChange {
  readonly path: string;
  readonly oldText: string | null;
  readonly newText: string;
}

export interface ToolSpec {
  readonly toolCallId: string;
  readonly title: string;
  readonly kind: "execute" | "edit";
  readonly rawInput: Record<string, string>;
  readonly locations: readonly string[];
  /** Ask `session/request_permission` before running. */
  readonly permission: boolean;
  readonly output: string;
  readonly diff?: readonly FileChange[];
  /** Shown in a terminal (the command runs in `cwd`, exits 0 with `output`). */
  readonly terminal?: { readonly cwd: string };
}

/** The demo scenario's steps. */
type Step =
  | {
      readonly type: "say";
      readonly role: "agent" | "thought";
      readonly messageId: string;
      readonly chunks: readonly string[];
    }
  | { readonly type: "plan"; readonly planId: string; readonly entries: readonly PlanEntrySpec[] }
  | { readonly type: "wait"; readonly ms: number }
  | { readonly type: "tool"; readonly tool: ToolSpec }
  | { readonly type: "read_file"; readonly path: string; readonly messageId: string }
  | { readonly type: "crash" }
  | { readonly type: "fail" };

export interface Script {
  readonly tags: ReadonlySet<Tag>;
  readonly steps: readonly Step[];
}

export interface TurnContext {
  readonly cwd: string;
  readonly additionalDirectories: readonly string[];
  readonly mcpServers: readonly { readonly name: string; readonly type: string }[];
  readonly nextId: (prefix: string) => string;
  readonly slowMs?: number;
}

export type PermissionAnswer = "allow" | "reject" | "cancelled";

export type ToolResult =
  | { readonly status: "completed"; readonly text: string }
  | { readonly status: "failed"; readonly text: string }
  | { readonly status: "cancelled" };

type ReadResult =
  | { readonly ok: true; readonly content: string }
  | { readonly ok: false; readonly code: number; readonly message: string };

interface TurnError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

export type TurnOutcome =
  { readonly stopReason: "end_turn" | "cancelled" } | { readonly stopReason: "error"; readonly error: TurnError };

/** What a version-specific agent provides to run a script. */
export interface TurnHost {
  say(role: "agent" | "thought", messageId: string, chunks: readonly string[]): Promise<void>;
  plan(planId: string, entries: readonly PlanEntrySpec[]): Promise<void>;
  toolAnnounce(tool: ToolSpec): Promise<void>;
  toolProgress(tool: ToolSpec): Promise<void>;
  toolFinish(tool: ToolSpec, result: ToolResult): Promise<void>;
  askPermission(tool: ToolSpec, signal: AbortSignal): Promise<PermissionAnswer>;
  /** Absent in v2, which has no client file system. */
  readTextFile?: (path: string) => Promise<ReadResult>;
  crash(): Promise<never>;
}

/**
 * The tags in a prompt text, and the `[slow:<ms>]` argument if given.
 * @internal Runs inside the demo agents' prompt handling; exported for test/peers.test.ts.
 */
export function parseTags(text: string): { tags: Set<Tag>; slowMs?: number } {
  const tags = new Set<Tag>();
  let slowMs: number | undefined;
  for (const m of text.matchAll(/\[([a-z_]+)(?::(\d+))?\]/g)) {
    const name = m[1] as Tag;
    if (!(KNOWN_TAGS as readonly string[]).includes(name)) continue;
    tags.add(name);
    if (name === "slow" && m[2] !== undefined) slowMs = Number(m[2]);
  }
  return slowMs === undefined ? { tags } : { tags, slowMs };
}

/** The text of a prompt's text blocks (other blocks do not script anything). */
export function promptText(prompt: readonly unknown[]): string {
  return prompt
    .map((b) =>
      typeof b === "object" && b !== null && (b as { type?: unknown }).type === "text"
        ? String((b as { text?: unknown }).text)
        : "",
    )
    .join("\n");
}

export function planTurn(text: string, ctx: TurnContext): Script {
  const parsed = parseTags(text);
  const scripted = [...parsed.tags].some((t) => t !== "echo");
  const tags = scripted ? parsed.tags : new Set<Tag>([...parsed.tags, ...DEFAULT_TAGS]);
  const steps: Step[] = [];
  const say = (role: "agent" | "thought", chunks: readonly string[]): void => {
    steps.push({ type: "say", role, messageId: ctx.nextId(role === "agent" ? "m" : "th"), chunks });
  };
  if (tags.has("thought")) say("thought", ["Let me think", " about what", " the user wants."]);
  if (tags.has("chunks")) say("agent", ["Sure.", " Here is", " a short answer", " in four chunks."]);
  if (tags.has("plan")) {
    steps.push({
      type: "plan",
      planId: ctx.nextId("plan"),
      entries: [
        { content: "Read the code", priority: "high", status: "completed" },
        { content: "Run the tests", priority: "medium", status: "in_progress" },
        { content: "Summarize the result", priority: "low", status: "pending" },
      ],
    });
  }
  if (tags.has("slow")) {
    say("agent", ["Working on it slowly…"]);
    steps.push({ type: "wait", ms: parsed.slowMs ?? ctx.slowMs ?? DEFAULT_SLOW_MS });
  }
  if (tags.has("tool")) {
    steps.push({
      type: "tool",
      tool: {
        toolCallId: ctx.nextId("call"),
        title: "Run the tests",
        kind: "execute",
        rawInput: { command: "npm test" },
        locations: [],
        permission: true,
        output: "All 3 tests passed.",
      },
    });
  }
  if (tags.has("diff")) steps.push({ type: "tool", tool: diffTool(ctx) });
  if (tags.has("term")) {
    steps.push({
      type: "tool",
      tool: {
        toolCallId: ctx.nextId("call"),
        title: "List the files",
        kind: "execute",
        rawInput: { command: "ls" },
        locations: [],
        permission: false,
        output: "README.md\nsrc\n",
        terminal: { cwd: ctx.cwd },
      },
    });
  }
  if (tags.has("fs")) steps.push({ type: "read_file", path: join(ctx.cwd, "README.md"), messageId: ctx.nextId("m") });
  if (tags.has("mcp")) say("agent", [JSON.stringify({ mcpServers: ctx.mcpServers })]);
  if (tags.has("dirs"))
    say("agent", [JSON.stringify({ cwd: ctx.cwd, additionalDirectories: ctx.additionalDirectories })]);
  if (tags.has("crash")) {
    say("agent", ["About to crash."]);
    steps.push({ type: "crash" });
  }
  if (tags.has("error")) steps.push({ type: "fail" });
  return { tags, steps };
}

function diffTool(ctx: TurnContext): ToolSpec {
  const hello = join(ctx.cwd, "src", "hello.ts");
  const notes = join(ctx.cwd, "NOTES.md");
  return {
    toolCallId: ctx.nextId("call"),
    title: "Edit src/hello.ts and add NOTES.md",
    kind: "edit",
    rawInput: { path: hello },
    locations: [hello, notes],
    permission: false,
    output: "Edited 2 files.",
    diff: [
      {
        path: hello,
        oldText: 'export function hello() {\n  return "hi";\n}\n',
        newText: 'export function hello() {\n  return "hello";\n}\n',
      },
      { path: notes, oldText: null, newText: "# Notes\n\nGreeting changed to hello.\n" },
    ],
  };
}

/** Runs a script; resolves with how the turn ended. Cancellation is `signal` (the session's cancel). */
export async function runScript(script: Script, host: TurnHost, signal: AbortSignal): Promise<TurnOutcome> {
  for (const step of script.steps) {
    if (signal.aborted) return { stopReason: "cancelled" };
    switch (step.type) {
      case "say":
        await host.say(step.role, step.messageId, step.chunks);
        break;
      case "plan":
        await host.plan(step.planId, step.entries);
        break;
      case "wait":
        if (!(await sleep(step.ms, signal))) return { stopReason: "cancelled" };
        break;
      case "tool": {
        const { tool } = step;
        await host.toolAnnounce(tool);
        if (tool.permission) {
          const answer = await host.askPermission(tool, signal);
          if (answer === "cancelled" || signal.aborted) {
            await host.toolFinish(tool, { status: "cancelled" });
            return { stopReason: "cancelled" };
          }
          if (answer === "reject") {
            await host.toolFinish(tool, { status: "failed", text: "The user rejected this tool call." });
            break;
          }
        }
        await host.toolProgress(tool);
        await host.toolFinish(tool, { status: "completed", text: tool.output });
        break;
      }
      case "read_file": {
        if (!host.readTextFile) {
          await host.say("agent", step.messageId, ["This agent has no client file system to read from."]);
          break;
        }
        const r = await host.readTextFile(step.path);
        const text = r.ok
          ? `Read ${r.content.length} characters from ${step.path}.`
          : `fs/read_text_file failed with ${r.code}: ${r.message}`;
        await host.say("agent", step.messageId, [text]);
        break;
      }
      case "crash":
        return host.crash();
      case "fail":
        return { stopReason: "error", error: SCRIPTED_ERROR };
    }
  }
  return { stopReason: signal.aborted ? "cancelled" : "end_turn" };
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Resolves with `promise`'s value, or with `onAbort` once `signal` aborts (the promise keeps running). */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal, onAbort: T): Promise<T> {
  if (signal.aborted) return Promise.resolve(onAbort);
  return new Promise<T>((resolve, reject) => {
    const abort = (): void => resolve(onAbort);
    signal.addEventListener("abort", abort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", abort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", abort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

// ---- git patch text (v2 `DiffPatch` format `git_patch`: absolute paths, no a/ b/ prefixes) ----

function lines(text: string): string[] {
  if (text === "") return [];
  const body = text.endsWith("\n") ? text.slice(0, -1) : text;
  return body.split("\n");
}

function range(start: number, count: number): string {
  // Unified diff: an empty side names the line before it.
  const first = count === 0 ? start - 1 : start;
  return count === 1 ? `${first}` : `${first},${count}`;
}

/** One `diff --git` section per change, each a single hunk with up to 3 lines of context. */
export function gitPatch(changes: readonly FileChange[]): string {
  return changes.map(gitSection).join("");
}

function gitSection(c: FileChange): string {
  const head = `diff --git ${c.path} ${c.path}\n`;
  const oldLines = lines(c.oldText ?? "");
  const newLines = lines(c.newText);
  let prefix = 0;
  while (prefix < oldLines.length && prefix < newLines.length && oldLines[prefix] === newLines[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < oldLines.length - prefix &&
    suffix < newLines.length - prefix &&
    oldLines[oldLines.length - 1 - suffix] === newLines[newLines.length - 1 - suffix]
  )
    suffix++;
  const ctxBefore = Math.min(3, prefix);
  const ctxAfter = Math.min(3, suffix);
  const from = prefix - ctxBefore;
  const oldEnd = oldLines.length - suffix + ctxAfter;
  const newEnd = newLines.length - suffix + ctxAfter;
  const body = [
    ...oldLines.slice(from, prefix).map((l) => ` ${l}`),
    ...oldLines.slice(prefix, oldLines.length - suffix).map((l) => `-${l}`),
    ...newLines.slice(prefix, newLines.length - suffix).map((l) => `+${l}`),
    ...newLines.slice(newLines.length - suffix, newEnd).map((l) => ` ${l}`),
  ];
  const hunk = `@@ -${range(from + 1, oldEnd - from)} +${range(from + 1, newEnd - from)} @@\n${body.map((l) => `${l}\n`).join("")}`;
  if (c.oldText === null) return `${head}new file mode 100644\n--- /dev/null\n+++ ${c.path}\n${hunk}`;
  return `${head}--- ${c.path}\n+++ ${c.path}\n${hunk}`;
}

// ---- sessions that outlive a process (ACP_DEMO_STORE) ----

export interface StoredSession<H> {
  readonly sessionId: string;
  cwd: string;
  additionalDirectories: string[];
  title: string | null;
  updatedAt: string;
  config: Record<string, string>;
  history: H[];
}

const SAFE_ID = /^[A-Za-z0-9._-]{1,200}$/;

/** Session records in memory, mirrored to `<dir>/<sessionId>.json` when a directory is given. */
/** Sessions per `session/list` page. */
const LIST_PAGE = 50;

export class SessionStore<H> {
  private readonly memory = new Map<string, StoredSession<H>>();

  constructor(private readonly dir?: string) {
    if (dir) mkdirSync(dir, { recursive: true });
  }

  get(sessionId: string): StoredSession<H> | undefined {
    const known = this.memory.get(sessionId);
    if (known || !this.dir || !SAFE_ID.test(sessionId)) return known;
    const file = join(this.dir, `${sessionId}.json`);
    if (!existsSync(file)) return undefined;
    const loaded = JSON.parse(readFileSync(file, "utf8")) as StoredSession<H>;
    this.memory.set(sessionId, loaded);
    return loaded;
  }

  save(s: StoredSession<H>): void {
    this.memory.set(s.sessionId, s);
    if (this.dir && SAFE_ID.test(s.sessionId)) writeFileSync(join(this.dir, `${s.sessionId}.json`), JSON.stringify(s));
  }

  delete(sessionId: string): boolean {
    const had = this.get(sessionId) !== undefined;
    this.memory.delete(sessionId);
    if (this.dir && SAFE_ID.test(sessionId)) rmSync(join(this.dir, `${sessionId}.json`), { force: true });
    return had;
  }

  list(): StoredSession<H>[] {
    if (this.dir) {
      for (const f of readdirSync(this.dir)) if (f.endsWith(".json")) this.get(f.slice(0, -5));
    }
    return [...this.memory.values()].sort((a, b) =>
      a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0,
    );
  }
  /**
   * One page of `session/list` (the SessionInfo shape is the same in both versions): sessions in
   * `cwd` (all when absent) from the numeric `cursor`; `undefined` for a cursor it never issued.
   */
  page(
    cwd: string | null | undefined,
    cursor: string | null | undefined,
  ):
    | {
        sessions: {
          sessionId: string;
          cwd: string;
          additionalDirectories?: string[];
          title?: string | null;
          updatedAt?: string | null;
        }[];
        nextCursor?: string;
      }
    | undefined {
    const all = this.list().filter((s) => cwd == null || s.cwd === cwd);
    const start = cursor == null ? 0 : Number(cursor);
    if (!Number.isInteger(start) || start < 0 || start > all.length) return undefined;
    return {
      sessions: all.slice(start, start + LIST_PAGE).map((s) => ({
        sessionId: s.sessionId,
        cwd: s.cwd,
        ...(s.additionalDirectories.length ? { additionalDirectories: s.additionalDirectories } : {}),
        title: s.title,
        updatedAt: s.updatedAt,
      })),
      ...(start + LIST_PAGE < all.length ? { nextCursor: String(start + LIST_PAGE) } : {}),
    };
  }
}

/** Options the demo agents read from the environment. */
export interface DemoOptions {
  readonly wireLog?: string;
  readonly store?: string;
  readonly requireAuth: boolean;
  readonly slowMs?: number;
  /** Pause between streamed chunks, so a demo shows streaming. */
  readonly chunkDelayMs?: number;
  /** agent-v1 only: advertise and serve session/list, close, resume, delete and logout; send message ids. */
  readonly v1Full: boolean;
}

export function demoOptions(env: NodeJS.ProcessEnv = process.env): DemoOptions {
  const slow = Number(env.ACP_DEMO_SLOW_MS);
  const chunk = Number(env.ACP_DEMO_CHUNK_MS);
  return {
    ...(env.ACP_WIRE_LOG ? { wireLog: env.ACP_WIRE_LOG } : {}),
    ...(env.ACP_DEMO_STORE ? { store: env.ACP_DEMO_STORE } : {}),
    requireAuth: env.ACP_DEMO_REQUIRE_AUTH === "1",
    ...(Number.isFinite(slow) && slow >= 0 && env.ACP_DEMO_SLOW_MS ? { slowMs: slow } : {}),
    ...(Number.isFinite(chunk) && chunk > 0 ? { chunkDelayMs: chunk } : {}),
    v1Full: env.ACP_DEMO_V1_FULL === "1",
  };
}

/** A short title from the first prompt, as agents show in session lists. */
export function titleFrom(text: string): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > 60 ? `${t.slice(0, 57)}…` : t || "Untitled";
}

/** Whether this module is the process's entry point (run directly, not imported). */
export function isEntry(moduleUrl: string): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return moduleUrl === pathToFileURL(realpathSync(script)).href;
  } catch {
    return false;
  }
}

/** Id generator: `<prefix>-<n>` with one counter per process (ids stay unique across sessions). */
export function idGenerator(): (prefix: string) => string {
  let n = 0;
  const run = Date.now().toString(36);
  return (prefix) => `${prefix}-${run}-${++n}`;
}
