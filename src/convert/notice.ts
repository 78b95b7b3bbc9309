// Notices and context compaction, `notice` / `compaction_update` / `compaction_summary_chunk`
// (T §2.10, D7): the same shapes in both versions, but v1 clients opt into them by capability.

import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { kindInfo, messageTable, noticeFallbackText } from "../../mappings/message.js";
import {
  contentBlockToV1,
  contentBlockToV2,
  expectObject,
  expectString,
  invalid,
  prefixLosses,
  unwrap,
} from "./content.js";
import { isString, type Obj, withMembers, copyMembers } from "../base/json.js";
import { attempt, type Conv, type Converted, type Loss, ok, type Path } from "./result.js";
import { type ConvertOptions, setMeta, Stash } from "./stash.js";

const NOTICE = "notice";
const COMPACTION_UPDATE = "compaction_update";
const COMPACTION_CHUNK = "compaction_summary_chunk";

function checkNotice(n: unknown): Obj & { severity: string; title: string } {
  const src = expectObject(n, []);
  expectString(src.severity, ["severity"]);
  // Both versions require a non-empty title.
  if (expectString(src.title, ["title"]) === "") invalid(["title"], "empty");
  if (src.description !== undefined && src.description !== null) expectString(src.description, ["description"]);
  return src as Obj & { severity: string; title: string };
}

/** B↓ `notice`: identical in v2. */
export function noticeToV2(n: v1.Notice): Conv<v2.Notice> {
  return attempt(() => ok({ ...checkNotice(n) }));
}

type BlockConv = (b: never, o: ConvertOptions) => Conv<unknown>;

function compactionUpdate(u: unknown, opts: ConvertOptions, block: BlockConv): Converted<Obj> {
  const src = expectObject(u, []);
  expectString(src.compactionId, ["compactionId"]);
  expectString(src.status, ["status"]);
  if (src.error !== undefined && src.error !== null) expectString(src.error, ["error"]);
  const out: Obj = copyMembers(src);
  const lost: Loss[] = [];
  if (src.summary !== undefined && src.summary !== null) {
    if (!Array.isArray(src.summary)) invalid(["summary"], "expected_array");
    out.summary = src.summary.map((b: unknown, i) => {
      const r = unwrap(block(b as never, opts), ["summary", i]);
      lost.push(...prefixLosses(["summary", i], r.lost));
      return r.value;
    });
  }
  return ok(out, lost);
}

function summaryChunk(c: unknown, opts: ConvertOptions, block: BlockConv): Converted<Obj> {
  const src = expectObject(c, []);
  expectString(src.compactionId, ["compactionId"]);
  const r = unwrap(block(src.content as never, opts), ["content"]);
  return ok(withMembers(src, { content: r.value }), prefixLosses(["content"], r.lost));
}

/** B↓ `compaction_update`. */
export function compactionUpdateToV2(u: v1.CompactionUpdate, opts: ConvertOptions): Conv<v2.CompactionUpdate> {
  return attempt(() => compactionUpdate(u, opts, contentBlockToV2) as Converted<v2.CompactionUpdate>);
}

/** B↓ `compaction_summary_chunk`. */
export function compactionSummaryChunkToV2(
  c: v1.CompactionSummaryChunk,
  opts: ConvertOptions,
): Conv<v2.CompactionSummaryChunk> {
  return attempt(() => summaryChunk(c, opts, contentBlockToV2) as Converted<v2.CompactionSummaryChunk>);
}

/** What the v1 client accepts of these updates (T §2.10, T §7.1). */
export interface NoticeGate {
  /** The client advertised `clientCapabilities.session.notices`. */
  readonly notices: boolean;
  /** The client advertised `clientCapabilities.session.compaction`. */
  readonly compaction: boolean;
  /** `agent_message`: a notice the client cannot show becomes an agent message (its severities permitting). */
  readonly noticeFallback: "drop" | "agent_message";
  /** A fresh agent-message id for that message (the engine's). */
  readonly fallbackMessageId?: string | undefined;
}

/**
 * A↓ a whole `notice`, `compaction_update` or `compaction_summary_chunk` update: forwarded when the
 * client opted in, else dropped (`null`) or, for a warning or error notice with the fallback on,
 * an `agent_message_chunk` carrying the notice in its stash (`raw`, restored by B).
 */
export function gatedUpdateToV1(
  update: v2.SessionUpdate,
  gate: NoticeGate,
  opts: ConvertOptions,
): Conv<v1.SessionUpdate | null> {
  return attempt<v1.SessionUpdate | null>(() => {
    const src = expectObject(update, []);
    const tag = expectString(src.sessionUpdate, ["sessionUpdate"]);
    const dropped = (why: string): Converted<null> => ok(null, [{ path: [] as Path, reason: why }]);
    if (tag === COMPACTION_UPDATE || tag === COMPACTION_CHUNK) {
      if (!gate.compaction) return dropped("the v1 client did not opt into compaction updates");
      const r =
        tag === COMPACTION_UPDATE
          ? compactionUpdate(src, opts, contentBlockToV1)
          : summaryChunk(src, opts, contentBlockToV1);
      return ok(r.value as v1.SessionUpdate, r.lost);
    }
    if (tag !== NOTICE) invalid(["sessionUpdate"], "unknown_variant", { value: tag });
    const n = checkNotice(src);
    if (gate.notices) return ok({ ...n } as v1.SessionUpdate);
    if (gate.noticeFallback !== "agent_message" || !messageTable.noticeFallbackSeverities.includes(n.severity))
      return dropped("the v1 client did not opt into notices");
    const text = noticeFallbackText(n.title, isString(n.description) ? n.description : undefined);
    const out: Obj = { sessionUpdate: kindInfo("agent").chunk, content: { type: "text", text } };
    if (gate.fallbackMessageId !== undefined) out.messageId = gate.fallbackMessageId;
    setMeta(out, new Stash(2, opts).keep("raw", src).into(undefined));
    return ok(out as v1.SessionUpdate, [
      { path: [], reason: "the v1 client did not opt into notices: shown as a message" },
    ]);
  });
}
