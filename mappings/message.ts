// Message kinds and the ids the bridge writes for them (T §2.1, §2.2, §2.10): update names per kind,
// collision-rename suffixes, generated-id format, replacement-id suffix, and the texts shown to v1 users.

import { z } from "zod";
import { defineTable } from "./table.js";

export type MessageKind = "user" | "agent" | "thought";

const KindRow = z.object({
  kind: z.enum(["user", "agent", "thought"]),
  /** `sessionUpdate` of a chunk (same name in v1 and v2). */
  chunk: z.string(),
  /** `sessionUpdate` of the v2 whole-message upsert. */
  upsert: z.string(),
  /** Letter in generated ids, `gen(kind)` (T §2.1 B↓-5). */
  letter: z.string().length(1),
  /** Appended to a v2 id reused across kinds, toward v1 (T §2.1 A↓). */
  collisionSuffix: z.string().min(1),
});

export const messageTable = defineTable(
  "message",
  z.object({
    kinds: z.array(KindRow).length(3),
    /** `gen(kind)` = prefix + sep + sessionId + sep + letter + sep + n. */
    generatedIdPrefix: z.string().min(1),
    generatedIdSeparator: z.string().length(1),
    /** v1 id of the rev-th replacement of a message: `<id>` + suffix + rev (T §2.2 A↓-4). */
    replaceSuffix: z.string().min(1),
    /** Appended to the old v1 message when the agent replaces or clears it (`config.redactionNotice`). */
    redactionNotice: z.string().min(1),
    /** Severities rendered as an agent message with `noticeFallback: "agent_message"` (T §2.10). */
    noticeFallbackSeverities: z.array(z.string()),
  }),
  {
    kinds: [
      { kind: "user", chunk: "user_message_chunk", upsert: "user_message", letter: "u", collisionSuffix: "#u" },
      { kind: "agent", chunk: "agent_message_chunk", upsert: "agent_message", letter: "a", collisionSuffix: "#a" },
      { kind: "thought", chunk: "agent_thought_chunk", upsert: "agent_thought", letter: "t", collisionSuffix: "#t" },
    ],
    generatedIdPrefix: "acpb",
    generatedIdSeparator: ":",
    replaceSuffix: "~r",
    redactionNotice: "[message content was replaced by the agent]",
    // Claude's v1 adapter shows every severity of these as a transcript line (issue 7 item 3d).
    noticeFallbackSeverities: ["info", "warning", "error"],
  },
);

export type KindInfo = z.output<typeof KindRow>;

const byKind = new Map(messageTable.kinds.map((k) => [k.kind, k]));

export function kindInfo(kind: MessageKind): KindInfo {
  const info = byKind.get(kind);
  if (!info) throw new Error(`mappings/message: no kind ${kind}`);
  return info;
}

/** `gen(kind)` (T §2.1 B↓-5): `acpb:<sessionId>:<u|a|t>:<n>`. */
export function generatedMessageId(sessionId: string, kind: MessageKind, n: number): string {
  const sep = messageTable.generatedIdSeparator;
  return [messageTable.generatedIdPrefix, sessionId, kindInfo(kind).letter, String(n)].join(sep);
}

/** v1 id of a v2 id reused by another kind (T §2.1 A↓). */
export function collisionId(id: string, kind: MessageKind): string {
  return id + kindInfo(kind).collisionSuffix;
}

/** v1 id of the `rev`-th replacement of the message sent as `v1Id` (T §2.2 A↓-4). */
export function replacementId(baseV1Id: string, rev: number): string {
  return `${baseV1Id}${messageTable.replaceSuffix}${rev}`;
}

/** The id of the agent message that stands for the `n`th notice of a session (its own message). */
export function noticeMessageId(sessionId: string, n: number): string {
  const sep = messageTable.generatedIdSeparator;
  return [messageTable.generatedIdPrefix, sessionId, "notice", String(n)].join(sep);
}

/**
 * Text of an agent message standing for a notice a v1 client cannot show (T §2.10): the bold-label
 * line agents' own v1 builds send such clients (Claude's adapter: `**title:** description`).
 */
export function noticeFallbackText(title: string, description: string | null | undefined): string {
  return description ? `**${title}:** ${description}` : `**${title}**`;
}
