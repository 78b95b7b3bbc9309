// Session lifecycle tables (H §4): MCP transports per version (H §4.2), the additionalDirectories
// validation reasons (H §4.10), the session/list cursor wrapping (H §4.5) and the resume replay cursor.

import { z } from "zod";
import { defineTable } from "./table.js";

const Transport = z.object({
  /** The transport's name, as in `McpCapabilities` and in error data. */
  transport: z.string().min(1),
  /** v1 `type` tag; `null` = the v1 form has no `type` key (stdio). */
  v1Tag: z.string().nullable(),
  /** v2 `type` tag; `null` = no v2 form (SSE was removed). */
  v2Tag: z.string().nullable(),
  /** Arrays v1 requires that v2 may omit (∅ ≡ []): B adds `[]`, stashing `residual.omitted`. */
  v1RequiredLists: z.array(z.string()),
  /** A: what an unsupported server of this transport gets: the `--mcp-unsupported` policy or -32602. */
  unsupportedToV2: z.enum(["policy", "reject"]),
  /** B: every v1 agent takes it (stdio is v1 baseline), else only when its capability says so. */
  v1Baseline: z.boolean(),
  /** Only in the unstable schemas. */
  unstable: z.boolean(),
  /** The string field both versions require to reach the server: a server without it is refused. */
  endpoint: z.string().min(1),
});

export type McpTransport = z.output<typeof Transport>;

export const mcpTransportTable = defineTable(
  "session/mcp",
  z.array(Transport).refine((rows) => new Set(rows.map((r) => r.transport)).size === rows.length),
  [
    // v1 clients assume stdio always works; a v2 agent may lack it (H §4.2, docs/decisions.md).
    {
      transport: "stdio",
      v1Tag: null,
      v2Tag: "stdio",
      v1RequiredLists: ["args", "env"],
      unsupportedToV2: "policy",
      v1Baseline: true,
      unstable: false,
      endpoint: "command",
    },
    // The bridge mirrored the agent's http flag to the client: sending it anyway is a violation.
    {
      transport: "http",
      v1Tag: "http",
      v2Tag: "http",
      v1RequiredLists: ["headers"],
      unsupportedToV2: "reject",
      v1Baseline: false,
      unstable: false,
      endpoint: "url",
    },
    // Removed in v2; legacy SSE endpoints are not Streamable HTTP, so no rewrite to http.
    {
      transport: "sse",
      v1Tag: "sse",
      v2Tag: null,
      v1RequiredLists: ["headers"],
      unsupportedToV2: "policy",
      v1Baseline: false,
      unstable: false,
      endpoint: "url",
    },
    {
      transport: "acp",
      v1Tag: "acp",
      v2Tag: "acp",
      v1RequiredLists: [],
      unsupportedToV2: "reject",
      v1Baseline: false,
      unstable: true,
      endpoint: "serverId",
    },
  ],
);

/** The row of a v1 server (`type` absent = stdio). */
export function transportOfV1(tag: string | undefined): McpTransport | undefined {
  return mcpTransportTable.find((r) =>
    tag === undefined ? r.v1Tag === null : r.v1Tag === tag || (r.v1Tag === null && r.v2Tag === tag),
  );
}

export const mcpReasons = defineTable("session/mcp-reasons", z.object({ toV2: z.string(), toV1: z.string() }), {
  toV2: "transport not supported",
  toV1: "transport not supported by v1 agent",
});

/** `data.reason` codes of -32602 for `additionalDirectories` and `cwd` (H §4.10 table, rules 1-6). */
export const directoryReasons = defineTable(
  "session/directory-reasons",
  z.object({
    null: z.literal("null"),
    notArray: z.literal("not_array"),
    notString: z.literal("not_string"),
    empty: z.literal("empty"),
    notAbsolute: z.literal("not_absolute"),
    unsupported: z.literal("unsupported"),
  }),
  {
    null: "null",
    notArray: "not_array",
    notString: "not_string",
    empty: "empty",
    notAbsolute: "not_absolute",
    unsupported: "unsupported",
  },
);

export type DirectoryReason = (typeof directoryReasons)[keyof typeof directoryReasons];

/**
 * session/list cursors toward v1 (H §4.5, §8-17): a v1 (JS) client may read `""` as "no more pages",
 * so the bridge sends `empty` instead; v2 cursors that start with `prefix` are escaped with `escape`
 * so the mapping stays one to one.
 */
export const cursorTable = defineTable(
  "session/cursor",
  z
    .object({ prefix: z.string().min(1), empty: z.string(), escape: z.string() })
    .refine((t) => t.empty.startsWith(t.prefix) && t.escape.startsWith(t.prefix) && !t.empty.startsWith(t.escape)),
  { prefix: "acp-bridge:", empty: "acp-bridge:empty", escape: "acp-bridge:raw:" },
);

/** v2 `ReplayFrom` cursors a v1 agent can serve (`start` = `session/load`), and the refusal reasons. */
export const replayTable = defineTable(
  "session/replay",
  z.object({ start: z.string(), unsupportedReason: z.string() }),
  { start: "start", unsupportedReason: "unsupported cursor" },
);

/**
 * The lifecycle requests whose params carry `additionalDirectories` in each version (H §4.10): the
 * roots rules apply to them in every mode, pass-through included.
 */
export const rootsMethods = defineTable(
  "session/roots-methods",
  z.object({ 1: z.array(z.string()), 2: z.array(z.string()) }),
  {
    1: ["session/new", "session/load", "session/resume", "session/fork"],
    2: ["session/new", "session/resume", "session/fork"],
  },
);
