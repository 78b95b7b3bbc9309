// The editor's tools (issue 20, H §6.5): the MCP server a direction-A bridge offers a v2 agent so
// that the v1 client's files and terminals, which ACP v2 removed from the protocol, stay reachable
// ("expose a special MCP server to the agent", the v2 RFD). One tool per v1 client method the
// client's capabilities allow, plus `run_in_terminal`, which chains create, wait, output and release.
// The one place a tool's name, its v1 method and the capability it needs are written; the engine
// (src/editor/tools.ts), the tests and the README read it.
import { z } from "zod";
import { defineTable } from "./table.js";

/** The capability flag of the v1 client (mappings/capabilities.ts) a tool needs. */
const Needs = z.enum(["fsRead", "fsWrite", "terminals"]);
export type EditorCapability = z.output<typeof Needs>;

const Row = z.object({
  tool: z.string().regex(/^[a-z_]+$/),
  /** The v1 client method it calls; `null`: several (run_in_terminal). */
  method: z.string().nullable(),
  needs: Needs,
  /** Input fields that are paths: absolute, inside the session's roots (src/editor/paths.ts). */
  paths: z.array(z.string()),
  /** What the model reads: says the call goes through the user's editor. */
  description: z.string(),
  /**
   * MCP tool annotations, honest ones (agents decide approvals from them): only reads are
   * read-only; a write replaces a file; a command may do anything.
   */
  annotations: z.object({ readOnlyHint: z.boolean(), destructiveHint: z.boolean(), openWorldHint: z.boolean() }),
});

export type EditorToolRow = z.output<typeof Row>;

/**
 * The `_meta` of every tool in `tools/list`: `anthropic/alwaysLoad` asks Claude Code not to defer the
 * tool behind its ToolSearch (a key its binary reads; other agents ignore it), so the editor's tools
 * are offered to the model as its own Read/Write/Bash are, without the user setting anything.
 */
export const EDITOR_TOOL_META: Readonly<Record<string, unknown>> = { "anthropic/alwaysLoad": true };

/** The server's name in `mcpServers` (another one when the client already declares this name). */
export const EDITOR_SERVER_NAME = "editor";
export const EDITOR_SERVER_FALLBACK_NAME = "acp-bridge-editor";

export const editorTools = defineTable("editor-tools", z.array(Row), [
  {
    tool: "read_text_file",
    method: "fs/read_text_file",
    needs: "fsRead",
    paths: ["path"],
    description:
      "Read a text file through the user's editor. Returns the editor's current buffer, unsaved edits included, which may differ from the file on disk. `path` must be absolute; `line` (1-based) and `limit` select lines.",
    annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  },
  {
    tool: "write_text_file",
    method: "fs/write_text_file",
    needs: "fsWrite",
    paths: ["path"],
    description:
      "Write a text file through the user's editor, which updates its open buffer and its undo history. Replaces the whole file with `content`. `path` must be absolute.",
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  },
  {
    tool: "run_in_terminal",
    method: null,
    needs: "terminals",
    paths: ["cwd"],
    description:
      "Run a command in a terminal of the user's editor, where the user sees it, wait for it to exit and return its output and exit status. `args` are passed without a shell when given; `timeoutMs` kills the command when it runs longer.",
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
  },
  {
    tool: "terminal_create",
    method: "terminal/create",
    needs: "terminals",
    paths: ["cwd"],
    description:
      "Start a command in a new terminal of the user's editor, where the user sees it, without waiting. Returns its terminalId for terminal_output, terminal_wait_for_exit, terminal_kill and terminal_release.",
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
  },
  {
    tool: "terminal_output",
    method: "terminal/output",
    needs: "terminals",
    paths: [],
    description: "The output so far of a terminal started with terminal_create, and its exit status once it exited.",
    annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  },
  {
    tool: "terminal_wait_for_exit",
    method: "terminal/wait_for_exit",
    needs: "terminals",
    paths: [],
    description:
      "Wait for a terminal started with terminal_create to exit and return its exit status; with `timeoutMs`, stop waiting after that long (the command keeps running).",
    annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  },
  {
    tool: "terminal_kill",
    method: "terminal/kill",
    needs: "terminals",
    paths: [],
    description: "Kill the command of a terminal started with terminal_create; the terminal stays for terminal_output.",
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  },
  {
    tool: "terminal_release",
    method: "terminal/release",
    needs: "terminals",
    paths: [],
    description:
      "Release a terminal started with terminal_create: its command is killed if still running and its terminalId becomes invalid. Release every terminal you create.",
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  },
]);
