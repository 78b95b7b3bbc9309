// A raw NDJSON ACP client for the interop suite: it records every wire message, schema-checks what
// it receives against the official schema of its version, advertises `_meta.terminal_output` and
// no fs/terminal capabilities (as Zed-like editors do when they render agent-run terminals), answers
// permission requests with the first allow option, still answers fs/terminal requests properly if
// an agent sends them, and plays initialize -> session/new -> session/prompt -> turn end.
// With `editor` (the editor scenario, v1 only), it advertises fs and terminals and plays an editor
// with unsaved buffers: reads see the buffer before the disk, writes go to the buffer, never to disk.
import { spawn, type ChildProcess } from "node:child_process";
import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { findWireProblems, type WireEntry } from "../test/support/peers.js";
import type { AcpVersion, Launch } from "./agents/recipe.js";
import { SCENARIO } from "./scenario.js";
import { isObject } from "../src/base/json.js";

type Json = Record<string, unknown>;

export interface ClientRun {
  readonly version: AcpVersion;
  readonly wire: WireEntry[];
  /** Schema problems of the wire (what the client received and sent). */
  readonly problems: string[];
  /** Empty when the turn ended; else why not. */
  readonly failure: string;
  readonly stderr: string;
}

export interface ClientOptions {
  readonly version: AcpVersion;
  readonly launch: Launch;
  /** The process environment (PATH, HOME, the recipe's env). */
  readonly env: NodeJS.ProcessEnv;
  /** The session's cwd. */
  readonly cwd: string;
  readonly timeoutMs: number;
  /** How long to keep listening after the turn ended, for trailing title/usage updates (1500 ms). */
  readonly settleMs?: number;
  /** Play an editor: advertise fs and terminals, keep these buffers (absolute path -> text). */
  readonly editor?: { readonly buffers: Readonly<Record<string, string>>; readonly prompt: string };
}

interface Terminal {
  output: string;
  exit?: { exitCode: number | null; signal: string | null };
  done: Promise<void>;
}

/** `text` from 1-based `line`, at most `limit` lines (fs/read_text_file's selection). */
function lines(text: string, line: unknown, limit: unknown): string {
  if (typeof line !== "number" && typeof limit !== "number") return text;
  const all = text.split(/(?<=\n)/);
  const from = typeof line === "number" ? Math.max(0, line - 1) : 0;
  return all.slice(from, typeof limit === "number" ? from + limit : undefined).join("");
}

/** Run the scenario's turn against one agent process (direct, or the bridge in front of one). */
export async function runClient(opts: ClientOptions): Promise<ClientRun> {
  const { version } = opts;
  const wire: WireEntry[] = [];
  let stderr = "";
  const child: ChildProcess = spawn(opts.launch.command, [...opts.launch.args], {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (d: string) => {
    stderr = (stderr + d).slice(-20_000);
  });
  const pending = new Map<number, { resolve: (m: Json) => void }>();
  let nextId = 1;
  let turnEnded: (() => void) | undefined;
  let exited: ((why: string) => void) | undefined;
  const exitP = new Promise<string>((resolve) => (exited = resolve));
  child.on("exit", (code, signal) => exited?.(`agent exited (code ${String(code)}, signal ${String(signal)})`));
  child.on("error", (e) => exited?.(`spawn failed: ${e.message}`));
  const terminals = new Map<string, Terminal>();
  const buffers = new Map(Object.entries(opts.editor?.buffers ?? {}));

  const send = (msg: Json): void => {
    wire.push({ dir: "out", msg });
    child.stdin?.write(JSON.stringify(msg) + "\n");
  };
  const request = (method: string, params: Json): Promise<Json> => {
    const id = nextId++;
    const p = new Promise<Json>((resolve) => pending.set(id, { resolve }));
    send({ jsonrpc: "2.0", id, method, params });
    return p;
  };
  const answer = (id: unknown, result: Json): void => send({ jsonrpc: "2.0", id, result });
  const fail = (id: unknown, message: string): void => send({ jsonrpc: "2.0", id, error: { code: -32603, message } });

  const onRequest = async (id: unknown, method: string, params: Json): Promise<void> => {
    switch (method) {
      case "session/request_permission": {
        const options = Array.isArray(params.options) ? params.options.filter(isObject) : [];
        const allow = options.find((o) => typeof o.kind === "string" && o.kind.startsWith("allow")) ?? options[0];
        answer(
          id,
          allow
            ? { outcome: { outcome: "selected", optionId: allow.optionId } }
            : { outcome: { outcome: "cancelled" } },
        );
        return;
      }
      case "fs/read_text_file": {
        const path = String(params.path);
        const text = buffers.get(path) ?? (await readFile(path, "utf8"));
        answer(id, { content: opts.editor ? lines(text, params.line, params.limit) : text });
        return;
      }
      case "fs/write_text_file":
        // An editor updates its buffer (the user saves later); the plain client writes the disk.
        if (opts.editor) buffers.set(String(params.path), String(params.content));
        else await writeFile(String(params.path), String(params.content));
        answer(id, {});
        return;
      case "terminal/create": {
        const terminalId = `term-${terminals.size + 1}`;
        const args = Array.isArray(params.args) ? params.args.map(String) : [];
        const t: Terminal = { output: "", done: Promise.resolve() };
        t.done = new Promise<void>((resolve) => {
          const p = execFile(
            String(params.command),
            args,
            { cwd: typeof params.cwd === "string" ? params.cwd : opts.cwd, shell: args.length === 0 },
            () => resolve(),
          );
          p.stdout?.on("data", (d: Buffer | string) => (t.output += String(d)));
          p.stderr?.on("data", (d: Buffer | string) => (t.output += String(d)));
          p.on("exit", (code, signal) => (t.exit = { exitCode: code, signal }));
        });
        terminals.set(terminalId, t);
        answer(id, { terminalId });
        return;
      }
      case "terminal/output": {
        const t = terminals.get(String(params.terminalId));
        if (!t) return fail(id, "unknown terminal");
        answer(id, { output: t.output, truncated: false, ...(t.exit ? { exitStatus: t.exit } : {}) });
        return;
      }
      case "terminal/wait_for_exit": {
        const t = terminals.get(String(params.terminalId));
        if (!t) return fail(id, "unknown terminal");
        await t.done;
        answer(id, t.exit ?? { exitCode: null, signal: null });
        return;
      }
      case "terminal/kill":
      case "terminal/release":
        answer(id, {});
        return;
      default:
        send({ jsonrpc: "2.0", id, error: { code: -32601, message: `method not found: ${method}` } });
    }
  };

  let buf = "";
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line === "") continue;
      let msg: unknown;
      try {
        msg = JSON.parse(line);
      } catch {
        wire.push({ dir: "in", raw: line });
        continue;
      }
      wire.push({ dir: "in", msg });
      if (!isObject(msg)) continue;
      if (typeof msg.method === "string") {
        const params = isObject(msg.params) ? msg.params : {};
        if ("id" in msg) {
          void onRequest(msg.id, msg.method, params).catch((e: unknown) => fail(msg.id, String(e)));
        } else if (
          version === 2 &&
          msg.method === "session/update" &&
          isObject(params.update) &&
          params.update.sessionUpdate === "state_update" &&
          params.update.state === "idle"
        ) {
          turnEnded?.();
        }
      } else if (typeof msg.id === "number") {
        pending.get(msg.id)?.resolve(msg);
        pending.delete(msg.id);
      }
    }
  });

  const clientInfo = { name: "acp-bridge-interop", version: "0.0.0" };
  const steps = async (): Promise<string> => {
    const init = await request(
      "initialize",
      version === 1
        ? {
            protocolVersion: 1,
            clientCapabilities: {
              fs: { readTextFile: !!opts.editor, writeTextFile: !!opts.editor },
              terminal: !!opts.editor,
              _meta: { terminal_output: true },
            },
            clientInfo,
          }
        : { protocolVersion: 2, info: clientInfo, capabilities: { _meta: { terminal_output: true } } },
    );
    if (!isObject(init.result)) return `initialize failed: ${JSON.stringify(init.error)}`;
    const created = await request("session/new", { cwd: opts.cwd, mcpServers: [] });
    if (!isObject(created.result) || typeof created.result.sessionId !== "string")
      return `session/new failed: ${JSON.stringify(created.error)}`;
    const sessionId = created.result.sessionId;
    const idle = new Promise<void>((resolve) => (turnEnded = resolve));
    const prompted = await request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: opts.editor?.prompt ?? SCENARIO.prompt }],
    });
    if (!isObject(prompted.result)) return `session/prompt failed: ${JSON.stringify(prompted.error)}`;
    if (version === 2) await idle;
    // Let trailing notifications (title, usage) arrive before the wire is closed.
    await new Promise((r) => setTimeout(r, opts.settleMs ?? 1500));
    return "";
  };

  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`timed out after ${opts.timeoutMs} ms`), opts.timeoutMs);
  });
  const failure = await Promise.race([
    steps().catch((e: unknown) => `client error: ${String(e)}`),
    exitP.then((why) => `${why} before the turn ended`),
    timeout,
  ]);
  clearTimeout(timer);
  child.stdin?.end();
  await Promise.race([exitP, new Promise((r) => setTimeout(r, 3000))]);
  if (child.exitCode === null) child.kill("SIGTERM");
  await Promise.race([exitP, new Promise((r) => setTimeout(r, 2000))]);
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  return { version, wire, problems: findWireProblems(version, wire), failure, stderr };
}
