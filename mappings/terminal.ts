// The v1 `_meta` terminal convention (T §2.5): not in any ACP schema; read from the public code of Zed
// (acp_thread / agent_servers) and of the v1 builds of claude-agent-acp 0.100.0 and codex-acp 2.6.0.
// Key names and payload fields are written once here; src/convert/terminal.ts reads them. The client's
// opt-in (`clientCapabilities._meta.terminal_output: true`) is a row of mappings/capabilities.ts.

import { z } from "zod";
import { defineTable } from "./table.js";

export const terminalConventionTable = defineTable(
  "terminal",
  z.object({
    /** Tool-call `_meta` keys. */
    keys: z.object({
      /** `{terminal_id, cwd?}` on the v1 `tool_call` that first shows the terminal. */
      info: z.literal("terminal_info"),
      /** `{terminal_id, data}`: raw text appended to the terminal (escapes included). */
      output: z.literal("terminal_output"),
      /** The same payload under the name codex-acp and claude-agent-acp use for appends without the capability. */
      outputDelta: z.literal("terminal_output_delta"),
      /** `{terminal_id, exit_code: int|null, signal: string|null}`. */
      exit: z.literal("terminal_exit"),
    }),
    fields: z.object({
      terminalId: z.literal("terminal_id"),
      cwd: z.literal("cwd"),
      data: z.literal("data"),
      exitCode: z.literal("exit_code"),
      signal: z.literal("signal"),
    }),
    /** Written before a replacement snapshot the client cannot append (the convention has no reset). */
    reset: z.literal("\u001bc"),
  }),
  {
    keys: {
      info: "terminal_info",
      output: "terminal_output",
      outputDelta: "terminal_output_delta",
      exit: "terminal_exit",
    },
    fields: { terminalId: "terminal_id", cwd: "cwd", data: "data", exitCode: "exit_code", signal: "signal" },
    reset: "\u001bc",
  },
);
