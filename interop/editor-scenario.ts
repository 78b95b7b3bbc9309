// The editor scenario (issue 20 item 6): a v1 client that offers fs (read and write) and terminals
// keeps an unsaved buffer that differs from the file on disk; through the bridge, a v2 agent reaches
// them as the `editor` MCP server's tools (H §6.5). The scripted model reads the file (it must get
// the buffer), writes a new file (the editor gets it, the disk does not) and runs a command in the
// editor's terminal (its output comes back in the tool result). This module holds the script and the
// pure checks; interop/editor-run.ts plays it against the real agents.
import { isObject, type Obj } from "../src/base/json.js";
import type { WireEntry } from "../test/support/peers.js";

export const EDITOR_SCENARIO = {
  prompt: "Please look at draft.md as it is open in my editor, save a summary and run the check.",
  /** On disk before the turn. */
  files: { "draft.md": "draft on disk: disk-copy-3a9\n" } as Readonly<Record<string, string>>,
  /** The editor's unsaved buffers (relative to the session's cwd), consulted before the disk. */
  buffers: { "draft.md": "draft in the editor: editor-buffer-7d1 (unsaved)\n" } as Readonly<Record<string, string>>,
  /** Markers: the read's result must contain the buffer's and not the disk's. */
  bufferMarker: "editor-buffer-7d1",
  diskMarker: "disk-copy-3a9",
  steps: {
    read: { path: "draft.md" },
    /** Written through the editor: must reach fs/write_text_file and not the disk. */
    write: { path: "summary.md", content: "summary written through the editor\n" },
    terminal: { command: "echo", args: ["editor-terminal-ok"], expectOutput: "editor-terminal-ok" },
    answer: "Done: read the buffer, wrote summary.md through the editor, ran the check in its terminal.",
  },
} as const;

export type EditorStep = "read" | "write" | "terminal";
export const EDITOR_STEPS: readonly EditorStep[] = ["read", "write", "terminal"];

/** The editor tool each step calls. */
export const EDITOR_STEP_TOOL: Readonly<Record<EditorStep, string>> = {
  read: "read_text_file",
  write: "write_text_file",
  terminal: "run_in_terminal",
};

/** The tool input of a step; paths are absolute under `cwd` (the editor's tools want them so). */
export function editorStepInput(step: EditorStep, cwd: string): Obj {
  const s = EDITOR_SCENARIO.steps;
  switch (step) {
    case "read":
      return { path: `${cwd}/${s.read.path}` };
    case "write":
      return { path: `${cwd}/${s.write.path}`, content: s.write.content };
    case "terminal":
      return { command: s.terminal.command, args: [...s.terminal.args] };
  }
}

/**
 * The model-visible name of an editor tool among `names` (`mcp__editor__read_text_file` for Claude
 * Code and Codex; another server name, e.g. `acp-bridge-editor`, sanitized the agent's way, is
 * accepted too), or undefined when the request does not offer it.
 */
export function findEditorTool(names: readonly string[], tool: string): string | undefined {
  return (
    names.find((n) => n === `mcp__editor__${tool}`) ??
    names.find((n) => n.startsWith("mcp__") && n.endsWith(`__${tool}`))
  );
}

/** What the model got back for one scripted call (undefined: no result yet). */
export interface EditorResults {
  readonly read?: string;
  readonly write?: string;
  readonly terminal?: string;
}

/** The mcpServers entry the bridge added to the agent's session/new (from the agent side of its trace). */
export function editorServerEntry(agentWire: readonly WireEntry[]): Obj | undefined {
  for (const e of agentWire) {
    const m = e.msg;
    if (e.dir !== "out" || !isObject(m) || m.method !== "session/new" || !isObject(m.params)) continue;
    const servers = Array.isArray(m.params.mcpServers) ? m.params.mcpServers.filter(isObject) : [];
    return servers.find((s) => s.name === "editor" || s.name === "acp-bridge-editor");
  }
  return undefined;
}

/** How the agent was offered the editor, e.g. `http (http://127.0.0.1:PORT/mcp)`. */
export function transportOf(entry: Obj | undefined): string {
  if (entry === undefined) return "none (no editor server in session/new)";
  const type = typeof entry.type === "string" ? entry.type : "stdio";
  return type === "http" && typeof entry.url === "string" ? `http (${entry.url.replace(/:\d+\//, ":PORT/")})` : type;
}

/** The requests the client received for `method`, their params in order. */
export function clientRequests(wire: readonly WireEntry[], method: string): Obj[] {
  return wire.flatMap((e) =>
    e.dir === "in" && isObject(e.msg) && e.msg.method === method && "id" in e.msg && isObject(e.msg.params)
      ? [e.msg.params]
      : [],
  );
}

export interface EditorCheckInput {
  readonly cwd: string;
  readonly clientWire: readonly WireEntry[];
  readonly results: EditorResults;
  /** Whether the written file exists on disk after the turn (it must not). */
  readonly writtenOnDisk: boolean;
}

export interface EditorVerdict {
  readonly read: boolean;
  readonly write: boolean;
  readonly terminal: boolean;
  readonly failures: readonly string[];
}

const short = (s: string | undefined): string =>
  s === undefined ? "no result" : JSON.stringify(s.length > 200 ? `${s.slice(0, 200)}…` : s);

/** The three checks of the scenario (turn end and schema problems are the harness's). */
export function checkEditorRun(input: EditorCheckInput): EditorVerdict {
  const sc = EDITOR_SCENARIO;
  const failures: string[] = [];
  const readPath = `${input.cwd}/${sc.steps.read.path}`;
  const readAsked = clientRequests(input.clientWire, "fs/read_text_file").some((p) => p.path === readPath);
  const r = input.results.read;
  const gotBuffer = r !== undefined && r.includes(sc.bufferMarker) && !r.includes(sc.diskMarker);
  if (!readAsked) failures.push(`read: the client got no fs/read_text_file for ${readPath}`);
  if (!gotBuffer) failures.push(`read: the model's tool result is ${short(r)}, not the buffer's text`);
  const read = readAsked && gotBuffer;

  const writePath = `${input.cwd}/${sc.steps.write.path}`;
  const writeAsked = clientRequests(input.clientWire, "fs/write_text_file").some(
    (p) => p.path === writePath && p.content === sc.steps.write.content,
  );
  if (!writeAsked) failures.push(`write: the client got no fs/write_text_file of ${writePath} with the content`);
  if (input.writtenOnDisk) failures.push(`write: ${writePath} exists on disk (the agent wrote it itself)`);
  if (input.results.write === undefined) failures.push("write: the model got no tool result");
  const write = writeAsked && !input.writtenOnDisk && input.results.write !== undefined;

  const t = sc.steps.terminal;
  const created = clientRequests(input.clientWire, "terminal/create").some(
    (p) => p.command === t.command && JSON.stringify(p.args ?? []) === JSON.stringify(t.args),
  );
  if (!created) failures.push(`terminal: the client got no terminal/create for ${t.command} ${t.args.join(" ")}`);
  const out = input.results.terminal;
  const outputBack = out !== undefined && out.includes(t.expectOutput);
  if (!outputBack) failures.push(`terminal: the model's tool result is ${short(out)}, without ${t.expectOutput}`);
  return { read, write, terminal: created && outputBack, failures };
}
