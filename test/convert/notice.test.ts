import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { v1ChunkToV2Updates } from "../../src/convert/message.js";
import {
  compactionSummaryChunkToV2,
  compactionUpdateToV2,
  gatedUpdateToV1,
  type NoticeGate,
  noticeToV2,
} from "../../src/convert/notice.js";
import type { Conv } from "../../src/convert/result.js";
import type { ConvertOptions } from "../../src/convert/stash.js";
import { arb } from "../support/arbitrary.js";
import { convertsLosslessly, options } from "../support/properties.js";
import { expectValid } from "../support/schema.js";
import { value } from "../support/conv.js";

const opts = options("compact");
const off = options("off");
const all: NoticeGate = { notices: true, compaction: true, noticeFallback: "drop" };
const none: NoticeGate = { notices: false, compaction: false, noticeFallback: "drop" };

/** v1 `uri` fields are plain strings, v2 ones `format: uri`; blocks pass them (T §3.1): generate URIs. */
const URIS = ["file:///w/a.txt", "https://example.com/x?y=1", "urn:isbn:0451450523"];
function withUri(def: string): fc.Arbitrary<unknown> {
  return fc.tuple(arb("v1", def), fc.constantFrom(...URIS)).map(([v, uri]) => {
    const o = v as Record<string, unknown>;
    return typeof o.uri === "string" ? { ...o, uri } : o;
  });
}
const uriOverrides = {
  overrides: Object.fromEntries(
    ["ResourceLink", "ImageContent", "TextResourceContents", "BlobResourceContents"].map((d) => [d, withUri(d)]),
  ),
};

/** A body toward v1 through the engine's gate (a client that opted into everything), untagged again. */
function gatedBodyToV1(tag: string) {
  return (x: unknown, o: ConvertOptions): Conv<unknown> => {
    const r = gatedUpdateToV1({ ...(x as object), sessionUpdate: tag } as never, all, o);
    if (!r.ok) return r;
    const body: Record<string, unknown> = { ...(r.value as object) };
    Reflect.deleteProperty(body, "sessionUpdate");
    return { ...r, value: body };
  };
}

const warning = { sessionUpdate: "notice", severity: "warning", title: "Rate limited", description: "Retrying in 5 s" };

describe("notice and compaction updates toward v1 (T §2.10, D7)", () => {
  it("forwards a notice unchanged to a client that advertised session.notices", () => {
    const out = value(gatedUpdateToV1(warning as never, all, opts));
    expect(out).toEqual(warning);
    expectValid("v1", "SessionUpdate", out);
  });

  it("drops a notice for a client without session.notices and reports it", () => {
    const r = gatedUpdateToV1(warning as never, none, opts);
    expect(r.ok && r.value).toBeNull();
    expect(r.ok && r.lost.map((l) => l.path)).toEqual([[]]);
  });

  it("renders a warning as an agent message with a fresh id under noticeFallback agent_message", () => {
    const gate: NoticeGate = { ...none, noticeFallback: "agent_message", fallbackMessageId: "acpb:notice:1" };
    const out = value(gatedUpdateToV1(warning as never, gate, opts));
    expect(out).toEqual({
      sessionUpdate: "agent_message_chunk",
      messageId: "acpb:notice:1",
      content: { type: "text", text: "**Rate limited:** Retrying in 5 s" },
      _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { raw: warning } } },
    });
    expectValid("v1", "SessionUpdate", out);
  });

  it("restores the notice from its agent-message rendering toward v2", () => {
    const gate: NoticeGate = { ...none, noticeFallback: "agent_message", fallbackMessageId: "n1" };
    const chunk = value(gatedUpdateToV1(warning as never, gate, opts));
    const r = value(
      v1ChunkToV2Updates(chunk as never, undefined, { kind: "agent", messageId: "n1", synthetic: false }, opts),
    );
    expect(r.updates).toEqual([warning]);
    expectValid("v2", "SessionUpdate", r.updates[0]);
  });

  it("renders info notices too, as Claude's v1 adapter does (bold title), and drops custom severities", () => {
    const gate: NoticeGate = { ...none, noticeFallback: "agent_message", fallbackMessageId: "n1" };
    const out = value(gatedUpdateToV1({ sessionUpdate: "notice", severity: "info", title: "Hi" } as never, gate, off));
    expect(out).toEqual({
      sessionUpdate: "agent_message_chunk",
      messageId: "n1",
      content: { type: "text", text: "**Hi**" },
    });
    expectValid("v1", "SessionUpdate", out);
    const r = gatedUpdateToV1({ sessionUpdate: "notice", severity: "_debug", title: "Hi" } as never, gate, opts);
    expect(r.ok && r.value).toBeNull();
  });

  it("drops compaction updates for a client without session.compaction", () => {
    const u = { sessionUpdate: "compaction_update", compactionId: "c1", status: "in_progress" };
    const r = gatedUpdateToV1(u as never, { ...all, compaction: false }, opts);
    expect(r.ok && r.value).toBeNull();
    const c = { sessionUpdate: "compaction_summary_chunk", compactionId: "c1", content: { type: "text", text: "s" } };
    expect(value(gatedUpdateToV1(c as never, { ...all, compaction: false }, opts))).toBeNull();
  });

  it("forwards compaction updates with their blocks converted to a client that opted in", () => {
    const u = {
      sessionUpdate: "compaction_update",
      compactionId: "c1",
      status: "completed",
      summary: [
        { type: "text", text: "done" },
        { type: "_chart", points: [] },
      ],
    };
    const out = value(gatedUpdateToV1(u as never, all, opts)) as unknown as Record<string, unknown>;
    expect((out.summary as unknown[])[0]).toEqual({ type: "text", text: "done" });
    expect((out.summary as { type: string }[])[1]!.type).toBe("text");
    expectValid("v1", "SessionUpdate", out);
  });

  it("answers an update it does not gate with the typed error", () => {
    const r = gatedUpdateToV1({ sessionUpdate: "plan_update" } as never, all, opts);
    expect(r.ok).toBe(false);
  });

  it("passes notices and compaction updates toward v2 (B↓)", () => {
    const n = { severity: "_custom", title: "x", description: null };
    expect(value(noticeToV2(n))).toEqual(n);
    const c = { compactionId: "c", status: "_paused", summary: null, error: null };
    expect(value(compactionUpdateToV2(c, opts))).toEqual(c);
  });
});

convertsLosslessly({
  name: "Notice",
  v1: { schema: "v1", def: "Notice" },
  v2: { schema: "v2", def: "Notice" },
  toV2: (x) => noticeToV2(x as never),
  toV1: gatedBodyToV1("notice"),
  interpreted: { v1: [["severity"], ["title"]], v2: [["severity"], ["title"]] },
});

convertsLosslessly({
  name: "CompactionUpdate",
  v1: { schema: "v1", def: "CompactionUpdate", arb: arb("v1", "CompactionUpdate", uriOverrides) },
  v2: { schema: "v2", def: "CompactionUpdate" },
  toV2: (x, o) => compactionUpdateToV2(x as never, o),
  toV1: gatedBodyToV1("compaction_update"),
  interpreted: { v1: [["compactionId"], ["summary", "*", "type"]], v2: [["compactionId"], ["summary", "*", "type"]] },
});

convertsLosslessly({
  name: "CompactionSummaryChunk",
  v1: { schema: "v1", def: "CompactionSummaryChunk", arb: arb("v1", "CompactionSummaryChunk", uriOverrides) },
  v2: { schema: "v2", def: "CompactionSummaryChunk" },
  toV2: (x, o) => compactionSummaryChunkToV2(x as never, o),
  toV1: gatedBodyToV1("compaction_summary_chunk"),
  interpreted: { v1: [["content", "type"]], v2: [["content", "type"]] },
});
