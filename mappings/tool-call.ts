// Tool-call enums and patch semantics (T §2.4, §3.4, T §6 rows ToolKind, ToolCallStatus): the v1 closed
// sets, the v2 → v1 downgrades, what a v2 `null` becomes on v1, and the labels of fallback titles.

import { z } from "zod";
import { defineTable } from "./table.js";

const Downgrade = z.object({
  /** Values v1 accepts (closed enum). */
  v1: z.array(z.string()).min(1),
  /** Known v2 values v1 lacks, and the v1 value shown instead (original stashed). */
  renamed: z.record(z.string(), z.string()),
  /** The v1 value for any other (`_x` or future) v2 value (original stashed). */
  unknown: z.string(),
});

/** What a v2 `null` (reset/clear) becomes in a v1 `tool_call_update`, where `null` means "unchanged". */
const NullRule = z.union([
  z.object({ v1: z.union([z.string(), z.array(z.never())]) }), // an explicit value with the same meaning
  z.literal("omit"), // v1 cannot say it: omitted, and the name kept in `cleared`
]);

export const toolCallTable = defineTable(
  "tool-call",
  z
    .object({
      kind: Downgrade,
      status: Downgrade,
      /** Labels of the fallback title of a tool call v2 announced without one (T §2.4 A↓-1). */
      kindLabels: z.record(z.string(), z.string()),
      /** Title when neither a name nor a kind label is known. */
      defaultTitle: z.string().min(1),
      /** T §2.4 A↓-2 null table, per v2 field. */
      nullToV1: z.record(z.string(), NullRule),
      /** Fields a re-sent v1 `tool_call` replaces: absent ones become `null` toward v2 (T §2.4 B↓-1). */
      replacedByToolCall: z.array(z.string()),
    })
    .refine((t) =>
      [t.kind, t.status].every(
        (d) => d.v1.includes(d.unknown) && Object.values(d.renamed).every((v) => d.v1.includes(v)),
      ),
    ),
  {
    kind: {
      v1: ["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"],
      renamed: {},
      unknown: "other",
    },
    // v2 says "treat an unrecognized status as still in progress"; cancelled is closest to failed (T §8-6).
    status: {
      v1: ["pending", "in_progress", "completed", "failed"],
      renamed: { paused: "in_progress", cancelled: "failed" },
      unknown: "in_progress",
    },
    kindLabels: {
      read: "Read",
      edit: "Edit",
      delete: "Delete",
      move: "Move",
      search: "Search",
      execute: "Execute",
      think: "Think",
      fetch: "Fetch",
      switch_mode: "Switch mode",
    },
    defaultTitle: "Tool call",
    nullToV1: {
      title: { v1: "" },
      kind: { v1: "other" },
      status: { v1: "pending" },
      content: { v1: [] },
      locations: { v1: [] },
      name: "omit",
      rawInput: "omit",
      rawOutput: "omit",
      _meta: "omit",
    },
    replacedByToolCall: ["title", "name", "kind", "status", "content", "locations", "rawInput", "rawOutput"],
  },
);

export type Downgrade = z.output<typeof Downgrade>;

/** The v1 value for a v2 enum value, and whether it differs (then the original is stashed). */
export function downgrade(d: Downgrade, value: string): { value: string; changed: boolean } {
  if (d.v1.includes(value)) return { value, changed: false };
  const renamed = Object.hasOwn(d.renamed, value) ? d.renamed[value] : undefined;
  return { value: renamed ?? d.unknown, changed: true };
}

/** Label used in a fallback title for a v2 kind, if it has one. */
export function kindLabel(kind: string): string | undefined {
  return Object.hasOwn(toolCallTable.kindLabels, kind) ? toolCallTable.kindLabels[kind] : undefined;
}
