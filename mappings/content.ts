// Content block and tool-call content variants (T §3.1, §3.2, §2.5, T §6 rows ContentBlock.type,
// ToolCallContent.type, Role): the closed v1 sets and the placeholder texts shown for what v1 lacks.

import { z } from "zod";
import { defineTable } from "./table.js";

export const contentTable = defineTable(
  "content",
  z
    .object({
      /** `ContentBlock.type` values v1 knows (closed union; v2 adds `_x` and future ones). */
      blockTypes: z.array(z.string()).min(1),
      /** `ToolCallContent.type` values v1 knows (closed union; v2 is open). */
      toolContentTypes: z.array(z.string()).min(1),
      /** `Role` values v1 accepts in `annotations.audience` (closed; v2 is open). */
      roles: z.array(z.string()).min(1),
      /** Texts v1 clients see instead of what they cannot render; `{…}` are filled in. */
      placeholders: z.object({
        /** A v2 content block of a type v1 lacks (A↓, T §3.1). */
        unsupportedContent: z.string().includes("{type}"),
        /** A v2 tool-call content item of a type v1 lacks (A↓, T §3.2). */
        unsupportedToolOutput: z.string().includes("{type}"),
        /** A v2 display terminal when the engine gives no transcript (A↓, T §2.5). */
        terminal: z.string().includes("{id}"),
        /** A v1 client terminal a v2 client cannot show (B↓, T §2.5-2). */
        terminalUnavailable: z.string().includes("{id}"),
      }),
      /** v2 wants an RFC 3986 `uri` where v1 takes any string (B↓): this prefix + the percent-encoded v1 value, which is stashed. */
      invalidUriPrefix: z.string().regex(/^[a-z][a-z0-9+.-]*:/),
    })
    .refine((t) => t.toolContentTypes.includes("content") && t.blockTypes.includes("text")),
  {
    blockTypes: ["text", "image", "audio", "resource_link", "resource"],
    toolContentTypes: ["content", "diff", "terminal"],
    roles: ["assistant", "user"],
    placeholders: {
      unsupportedContent: "[unsupported content: {type}]",
      unsupportedToolOutput: "[unsupported tool output: {type}]",
      terminal: "[terminal {id}]",
      terminalUnavailable: "[terminal {id}: output not available]",
    },
    invalidUriPrefix: "urn:acp-bridge:invalid-uri:",
  },
);

export const V1_BLOCK_TYPES: ReadonlySet<string> = new Set(contentTable.blockTypes);
export const V1_ROLES: ReadonlySet<string> = new Set(contentTable.roles);

/** A placeholder text with its `{name}` slots filled. */
export function placeholder(
  name: keyof typeof contentTable.placeholders,
  vars: Readonly<Record<string, string>>,
): string {
  return contentTable.placeholders[name].replace(/\{(\w+)\}/g, (m, k: string) =>
    Object.hasOwn(vars, k) ? (vars[k] ?? m) : m,
  );
}
