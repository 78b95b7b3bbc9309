// The two agent→client requests: permission prompts (T §4; T §6 rows RequestPermissionSubject.type,
// PermissionOptionKind) and elicitation forms (T §5.1; T §6 row StringFormat).

import { z } from "zod";
import { defineTable } from "./table.js";

export const permissionTable = defineTable(
  "permission",
  z
    .object({
      /** PermissionOptionKind values v1 accepts (closed in v1, open in v2). */
      optionKinds: z.array(z.string()).min(1),
      /** Kinds that approve: a synthetic tool call ends `completed` after one, `failed` otherwise. */
      allowKinds: z.array(z.string()),
      /** Kind shown for unknown-kind options when no known option would remain (T §4 A↓-4). */
      unknownKindFallback: z.string(),
      /** Id of a tool call synthesized for a non-tool-call subject: prefix + v2 request id. */
      syntheticToolCallPrefix: z.string().min(1),
      /** Kind of the synthesized tool call, per subject type (`other`: absent, null or unknown). */
      syntheticKind: z.object({ command: z.string(), other: z.string() }),
      /** Status of a synthetic tool call once the permission is answered. */
      finalStatus: z.object({ allowed: z.string(), rejected: z.string() }),
      /** B↓: v2 `title` derived from the tool kind when v1 gave no title (T §4 B↓-2). */
      titleByKind: z.record(z.string(), z.string()),
      defaultTitle: z.string().min(1),
    })
    // Never map an unknown kind to allow_*: v1 auto-approve policies could select it.
    .refine((t) => t.optionKinds.includes(t.unknownKindFallback) && !t.allowKinds.includes(t.unknownKindFallback))
    .refine((t) => t.allowKinds.every((k) => t.optionKinds.includes(k))),
  {
    optionKinds: ["allow_once", "allow_always", "reject_once", "reject_always"],
    allowKinds: ["allow_once", "allow_always"],
    unknownKindFallback: "reject_once",
    syntheticToolCallPrefix: "acpb-perm-",
    syntheticKind: { command: "execute", other: "other" },
    finalStatus: { allowed: "completed", rejected: "failed" },
    titleByKind: {
      execute: "Allow command execution?",
      edit: "Allow file edit?",
      delete: "Allow deletion?",
      move: "Allow move/rename?",
      read: "Allow reading files?",
      fetch: "Allow network fetch?",
      search: "Allow search?",
      switch_mode: "Allow mode change?",
    },
    defaultTitle: "Permission required",
  },
);

/** B↓ prompt title for a tool kind (`undefined`: unknown). */
export function titleForKind(kind: string | undefined): string {
  const t = permissionTable.titleByKind;
  return kind !== undefined && Object.hasOwn(t, kind)
    ? (t[kind] ?? permissionTable.defaultTitle)
    : permissionTable.defaultTitle;
}

export function isKnownOptionKind(kind: string): boolean {
  return permissionTable.optionKinds.includes(kind);
}

export function isAllowKind(kind: string): boolean {
  return permissionTable.allowKinds.includes(kind);
}

export const elicitationTable = defineTable(
  "elicitation",
  z.object({
    /** StringFormat values v1 accepts (closed in v1, open in v2): others are dropped toward v1. */
    stringFormats: z.array(z.string()).min(1),
  }),
  { stringFormats: ["email", "uri", "date", "date-time"] },
);
