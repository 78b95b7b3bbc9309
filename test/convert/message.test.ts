import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { messageTable, type MessageKind } from "../../mappings/message.js";
import {
  assignChunkId,
  type ChunkIdState,
  type ChunkToV2Context,
  chunkToV1,
  closeOpenMessage,
  flushPendingUpsert,
  initialChunkIds,
  nextGeneratedId,
  type PendingUpsert,
  type SentMessage,
  upsertToV1Chunks,
  v1ChunkMessageId,
  v1ChunkToV2Updates,
} from "../../src/convert/message.js";
import type { Conv } from "../../src/convert/result.js";
import type { ConvertOptions, StashLevel } from "../../src/convert/stash.js";
import { arb } from "../support/arbitrary.js";
import { convertsLosslessly, norm, numRuns, options } from "../support/properties.js";
import { expectValid } from "../support/schema.js";
import { value } from "../support/conv.js";
import { kindOfUpdate } from "../support/message-kinds.js";
import type { Obj } from "../../src/base/json.js";

/** A plain v1 chunk through the path the product runs (`v1ChunkToV2Updates`), as the ContentChunk it carries. */
function chunkToV2(chunk: unknown, ctx: ChunkToV2Context, o: ConvertOptions): Conv<v2.ContentChunk> {
  const r = v1ChunkToV2Updates(chunk as v1.ContentChunk, undefined, ctx, o);
  if (!r.ok) return r;
  expect(r.value.updates).toHaveLength(1);
  const chunkOf: Record<string, unknown> = { ...r.value.updates[0] };
  delete chunkOf.sessionUpdate;
  return { ...r, value: chunkOf as v2.ContentChunk };
}

const opts = options("compact");
const off = options("off");
const text = (t: string): v2.ContentBlock => ({ type: "text", text: t });
const UPSERT: Record<MessageKind, string> = { user: "user_message", agent: "agent_message", thought: "agent_thought" };
const CHUNK: Record<MessageKind, string> = {
  user: "user_message_chunk",
  agent: "agent_message_chunk",
  thought: "agent_thought_chunk",
};

/** v1 `uri` fields are plain strings, v2 ones `format: uri`; blocks pass them (T §3.1): generate URIs. */
const URIS = ["file:///w/a.txt", "https://example.com/x?y=1", "urn:isbn:0451450523"];
function withUri(def: string): fc.Arbitrary<unknown> {
  return fc.tuple(arb("v1", def), fc.constantFrom(...URIS)).map(([v, uri]) => {
    const o = v as Obj;
    return typeof o.uri === "string" ? { ...o, uri } : o;
  });
}
const uriOverrides = {
  overrides: Object.fromEntries(
    ["ResourceLink", "ImageContent", "TextResourceContents", "BlobResourceContents"].map((d) => [d, withUri(d)]),
  ),
};

// ---- a minimal A engine and B engine around the converters (the state of T §7.1) ----

class AEngine {
  readonly sent = new Map<string, SentMessage>();
  readonly idKind = new Map<string, MessageKind>();
  constructor(
    readonly opts: ConvertOptions,
    readonly redactionNotice = true,
  ) {}

  update(u: Obj): v1.SessionUpdate[] {
    const k = kindOfUpdate(u.sessionUpdate as string)!;
    const id = u.messageId as string;
    const key = `${k.kind} ${id}`;
    const ctx = { kind: k.kind, firstKind: this.idKind.get(id), redactionNotice: this.redactionNotice };
    let out: v1.SessionUpdate[];
    if (k.upsert) {
      const r = value(upsertToV1Chunks(u as never, this.sent.get(key), ctx, this.opts));
      this.sent.set(key, r.sent);
      out = r.chunks;
    } else {
      const r = value(chunkToV1(u as never, this.sent.get(key), ctx, this.opts));
      this.sent.set(key, r.sent);
      out = [r.update as v1.SessionUpdate];
    }
    if (!this.idKind.has(id)) this.idKind.set(id, k.kind);
    for (const c of out) expectValid("v1", "SessionUpdate", c);
    return out;
  }
}

class BEngine {
  ids: ChunkIdState = initialChunkIds;
  pending: PendingUpsert | undefined;
  constructor(readonly opts: ConvertOptions) {}

  update(u: Obj): v2.SessionUpdate[] {
    const kind = kindOfUpdate(u.sessionUpdate as string)!.kind;
    const a = assignChunkId(this.ids, "s1", kind, v1ChunkMessageId(u as never));
    this.ids = a.state;
    const r = value(
      v1ChunkToV2Updates(u as never, this.pending, { kind, messageId: a.messageId, synthetic: a.synthetic }, this.opts),
    );
    this.pending = r.pending;
    for (const x of r.updates) expectValid("v2", "SessionUpdate", x);
    return r.updates;
  }

  flush(): v2.SessionUpdate[] {
    const out = flushPendingUpsert(this.pending);
    this.pending = undefined;
    return out;
  }
}

describe("message chunks A↓ (T §2.1)", () => {
  it("forwards a chunk with its messageId and content unchanged", () => {
    const c = { sessionUpdate: "agent_message_chunk", messageId: "m-1", content: text("Running the tests.") };
    const r = value(
      chunkToV1(c as never, undefined, { kind: "agent", firstKind: undefined, shownMaxChars: 8192 }, opts),
    );
    expect(r.update).toEqual(c);
    expect(r.sent).toEqual({ v1Id: "m-1", blocks: [c.content], size: 18, started: true, rev: 0 });
    expectValid("v1", "SessionUpdate", r.update);
  });

  it("renames an id reused by another kind with #t and stashes the original (T §9 case 10)", () => {
    const c = { messageId: "m", content: text("thinking") };
    const r = chunkToV1(c, undefined, { kind: "thought", firstKind: "agent" }, opts);
    const out = value(r).update;
    expect(out).toEqual({
      messageId: "m#t",
      content: text("thinking"),
      _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { messageId: "m" } } },
    });
    expect(r.ok && r.lost.map((l) => l.path)).toEqual([["messageId"]]);
    expect(v1ChunkMessageId(out)).toBe("m");
    expect(value(chunkToV2(out, { kind: "thought", messageId: "m", synthetic: false }, opts))).toEqual(c);
  });

  it("uses #u and #a for user and agent messages reusing an id", () => {
    const a = value(
      chunkToV1({ messageId: "x", content: text("a") }, undefined, { kind: "user", firstKind: "thought" }, off),
    );
    expect(a.update.messageId).toBe("x#u");
    const b = value(
      chunkToV1({ messageId: "x", content: text("a") }, undefined, { kind: "agent", firstKind: "user" }, off),
    );
    expect(b.update.messageId).toBe("x#a");
  });

  it("omits the messageId on every chunk of a message whose first chunk B marked synthetic", () => {
    const a = new AEngine(opts);
    const first = {
      sessionUpdate: "agent_message_chunk",
      messageId: "acpb:s1:a:1",
      content: text("a"),
      _meta: { "acp-bridge": { v: 1, from: 1, hadMeta: false, synthetic: ["messageId"] } },
    };
    expect(a.update(first)).toEqual([{ sessionUpdate: "agent_message_chunk", content: text("a") }]);
    expect(a.update({ sessionUpdate: "agent_message_chunk", messageId: "acpb:s1:a:1", content: text("b") })).toEqual([
      { sessionUpdate: "agent_message_chunk", content: text("b") },
    ]);
  });

  it("answers a chunk without a string messageId with the typed error", () => {
    const r = chunkToV1({ content: text("a") } as never, undefined, { kind: "agent", firstKind: undefined }, opts);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.data).toMatchObject({ field: "messageId" });
  });
});

describe("message ids B↓ (T §2.1 B↓)", () => {
  it("generates acpb:<session>:<kind>:<n> per kind and session", () => {
    let s = initialChunkIds;
    const a = assignChunkId(s, "s1", "agent", undefined);
    expect(a).toMatchObject({ messageId: "acpb:s1:a:1", synthetic: true });
    s = a.state;
    const u = nextGeneratedId(s, "s1", "user");
    expect(u.messageId).toBe("acpb:s1:u:1");
    expect(assignChunkId(u.state, "s1", "thought", undefined).messageId).toBe("acpb:s1:t:1");
  });

  it("keeps ID-less chunks of one kind in the open message, marking only its first", () => {
    const a1 = assignChunkId(initialChunkIds, "s1", "agent", undefined);
    const a2 = assignChunkId(a1.state, "s1", "agent", undefined);
    expect(a2).toMatchObject({ messageId: "acpb:s1:a:1", synthetic: false });
  });

  it("starts a new message at each kind change: thought → agent → thought gives three", () => {
    let s = initialChunkIds;
    const ids: string[] = [];
    for (const k of ["thought", "agent", "thought"] as const) {
      const r = assignChunkId(s, "s1", k, undefined);
      ids.push(r.messageId);
      s = r.state;
    }
    expect(ids).toEqual(["acpb:s1:t:1", "acpb:s1:a:1", "acpb:s1:t:2"]);
  });

  it("starts a new message after a boundary such as a tool call", () => {
    const a1 = assignChunkId(initialChunkIds, "s1", "agent", undefined);
    const a2 = assignChunkId(closeOpenMessage(a1.state), "s1", "agent", undefined);
    expect(a2.messageId).toBe("acpb:s1:a:2");
  });

  it("forwards a v1 id, and lets a following ID-less chunk inherit it, marked", () => {
    const a1 = assignChunkId(initialChunkIds, "s1", "agent", "m7");
    expect(a1).toMatchObject({ messageId: "m7", synthetic: false });
    const a2 = assignChunkId(a1.state, "s1", "agent", undefined);
    expect(a2).toMatchObject({ messageId: "m7", synthetic: true });
  });

  it("marks the first chunk of a generated message synthetic, and an A bridge restores the ID-less stream", () => {
    const b = new BEngine(opts);
    const a = new AEngine(opts);
    const v1Stream: Obj[] = [
      { sessionUpdate: "agent_thought_chunk", content: text("hm") },
      { sessionUpdate: "agent_message_chunk", content: text("Hel") },
      { sessionUpdate: "agent_message_chunk", content: text("lo"), messageId: null },
      { sessionUpdate: "agent_message_chunk", messageId: "own", content: text("x") },
      { sessionUpdate: "agent_message_chunk", content: text("y") },
    ];
    const v2Stream = v1Stream.flatMap((u) => b.update(u));
    expect(v2Stream.map((u) => (u as Obj).messageId)).toEqual([
      "acpb:s1:t:1",
      "acpb:s1:a:1",
      "acpb:s1:a:1",
      "own",
      "own",
    ]);
    expect(v2Stream[0]).toEqual({
      sessionUpdate: "agent_thought_chunk",
      messageId: "acpb:s1:t:1",
      content: text("hm"),
      _meta: { "acp-bridge": { v: 1, from: 1, hadMeta: false, synthetic: ["messageId"] } },
    });
    expect(v2Stream.flatMap((u) => a.update(u as Obj))).toEqual(v1Stream);
  });
});

describe("whole-message upserts A↓ (T §2.2, T §9 case 10)", () => {
  it("sends only the new suffix when an upsert extends what chunks already showed", () => {
    const a = new AEngine(opts);
    a.update({ sessionUpdate: "agent_message_chunk", messageId: "m", content: text("Hel") });
    a.update({ sessionUpdate: "agent_message_chunk", messageId: "m", content: text("lo") });
    const out = a.update({ sessionUpdate: "agent_message", messageId: "m", content: [text("Hello world")] });
    expect(out).toEqual([{ sessionUpdate: "agent_message_chunk", messageId: "m", content: text(" world") }]);
  });

  it("sends a replacement under <id>~r1 with op replace, after a notice on the old id", () => {
    const a = new AEngine(opts);
    a.update({ sessionUpdate: "agent_message_chunk", messageId: "m", content: text("Hello") });
    const out = a.update({ sessionUpdate: "agent_message", messageId: "m", content: [text("Bye")] });
    expect(out).toEqual([
      {
        sessionUpdate: "agent_message_chunk",
        messageId: "m",
        content: text(messageTable.redactionNotice),
        _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, synthetic: ["notice"] } },
      },
      {
        sessionUpdate: "agent_message_chunk",
        messageId: "m~r1",
        content: text("Bye"),
        _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { op: "replace", target: "m", count: 1 } } },
      },
    ]);
    // Later chunks go to the replacement, naming the v2 id.
    expect(a.update({ sessionUpdate: "agent_message_chunk", messageId: "m", content: text("!") })).toEqual([
      {
        sessionUpdate: "agent_message_chunk",
        messageId: "m~r1",
        content: text("!"),
        _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { messageId: "m" } } },
      },
    ]);
    const again = a.update({ sessionUpdate: "agent_message", messageId: "m", content: [text("Ciao")] });
    expect(again.map((c) => (c as Obj).messageId)).toEqual(["m~r1", "m~r2"]);
  });

  it("sends a clear as an empty marker chunk with op clear, plus the notice", () => {
    const a = new AEngine(opts);
    a.update({ sessionUpdate: "agent_message_chunk", messageId: "m", content: text("secret") });
    const out = a.update({ sessionUpdate: "agent_message", messageId: "m", content: null });
    expect(out).toEqual([
      {
        sessionUpdate: "agent_message_chunk",
        messageId: "m",
        content: text(""),
        _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { op: "clear", target: "m" } } },
      },
      {
        sessionUpdate: "agent_message_chunk",
        messageId: "m",
        content: text(messageTable.redactionNotice),
        _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, synthetic: ["notice"] } },
      },
    ]);
  });

  it("never drops a clear silently, even with the notice and the stash off", () => {
    const a = new AEngine(off, false);
    a.update({ sessionUpdate: "agent_message_chunk", messageId: "m", content: text("x") });
    expect(a.update({ sessionUpdate: "agent_message", messageId: "m", content: [] })).toEqual([
      { sessionUpdate: "agent_message_chunk", messageId: "m", content: text("") },
    ]);
  });

  it("fans a new message out as one chunk per block, the first carrying op upsert, count and the metadata", () => {
    const a = new AEngine(opts);
    const out = a.update({
      sessionUpdate: "agent_thought",
      messageId: "t1",
      content: [text("a"), text("b")],
      _meta: { k: 1 },
    });
    expect(out).toEqual([
      {
        sessionUpdate: "agent_thought_chunk",
        messageId: "t1",
        content: text("a"),
        _meta: {
          "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { op: "upsert", count: 2, meta: { k: 1 } } },
        },
      },
      { sessionUpdate: "agent_thought_chunk", messageId: "t1", content: text("b") },
    ]);
  });

  it("emits nothing for new messages without content and attaches their metadata to the first chunk, as upsert count 0", () => {
    const a = new AEngine(opts);
    expect(a.update({ sessionUpdate: "agent_message", messageId: "m", _meta: { a: 1, b: 2 } })).toEqual([]);
    expect(a.update({ sessionUpdate: "agent_message", messageId: "m", content: null, _meta: { b: null } })).toEqual([]);
    expect(a.update({ sessionUpdate: "agent_message_chunk", messageId: "m", content: text("hi") })).toEqual([
      {
        sessionUpdate: "agent_message_chunk",
        messageId: "m",
        content: text("hi"),
        _meta: {
          "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { op: "upsert", count: 0, meta: { a: 1 } } },
        },
      },
    ]);
  });

  it("keeps the one content-less upsert before the first chunk as it came: its content and its metadata patch", () => {
    const a = new AEngine(opts);
    expect(a.update({ sessionUpdate: "user_message", messageId: "u", content: [], _meta: null })).toEqual([]);
    expect(a.update({ sessionUpdate: "user_message_chunk", messageId: "u", content: text("q") })).toEqual([
      {
        sessionUpdate: "user_message_chunk",
        messageId: "u",
        content: text("q"),
        _meta: {
          "acp-bridge": {
            v: 1,
            from: 2,
            hadMeta: false,
            residual: { op: "upsert", count: 0, content: [], meta: null },
          },
        },
      },
    ]);
  });

  it("sends a metadata-only upsert of a shown message as an empty marker with op meta", () => {
    const a = new AEngine(opts);
    a.update({ sessionUpdate: "user_message", messageId: "u", content: [text("q")] });
    expect(a.update({ sessionUpdate: "user_message", messageId: "u", _meta: null })).toEqual([
      {
        sessionUpdate: "user_message_chunk",
        messageId: "u",
        content: text(""),
        _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { op: "meta", target: "u", meta: null } } },
      },
    ]);
    expect(a.update({ sessionUpdate: "user_message", messageId: "u" })).toEqual([]);
  });

  it("sends nothing for an upsert equal to what v1 shows", () => {
    const a = new AEngine(opts);
    a.update({
      sessionUpdate: "agent_message",
      messageId: "m",
      content: [text("x"), { type: "image", data: "AA==", mimeType: "image/png" }],
    });
    expect(
      a.update({
        sessionUpdate: "agent_message",
        messageId: "m",
        content: [text("x"), { type: "image", data: "AA==", mimeType: "image/png" }],
      }),
    ).toEqual([]);
  });

  it("answers an upsert whose content is not an array with the typed error", () => {
    const r = upsertToV1Chunks(
      { messageId: "m", content: "x" } as never,
      undefined,
      { kind: "agent", firstKind: undefined, redactionNotice: true },
      opts,
    );
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.data).toMatchObject({ field: "content", reason: "expected_array" });
  });
});

describe("whole-message upserts B↓ restore (T §2.2 B↓)", () => {
  function chain(stream: Obj[], level: StashLevel = "compact"): v2.SessionUpdate[] {
    const a = new AEngine(options(level));
    const b = new BEngine(options(level));
    return [...stream.flatMap((u) => a.update(u)).flatMap((c) => b.update(c as Obj)), ...b.flush()];
  }

  it("restores a fanned-out upsert as the one upsert, metadata included", () => {
    const u = {
      sessionUpdate: "agent_message",
      messageId: "m",
      content: [text("a"), text("b"), text("c")],
      _meta: { k: [1] },
    };
    expect(chain([u])).toEqual([u]);
  });

  it.each([
    { what: "an empty content and a null metadata patch", upsert: { content: [], _meta: null } },
    { what: "no content and no metadata", upsert: {} },
    { what: "a null content and a metadata patch", upsert: { content: null, _meta: { k: 1 } } },
  ])("restores a content-less upsert before the first chunk, then the chunk: $what", ({ upsert }) => {
    const stream: Obj[] = [
      { sessionUpdate: "user_message", messageId: "u", ...upsert },
      { sessionUpdate: "user_message_chunk", messageId: "u", content: text("q") },
      { sessionUpdate: "user_message_chunk", messageId: "u", content: text("r") },
    ];
    expect(chain(stream)).toEqual(stream);
  });

  it("restores several content-less upserts before the first chunk as one, their metadata merged, then the chunk", () => {
    const stream: Obj[] = [
      { sessionUpdate: "agent_message", messageId: "m", _meta: { a: 1, b: 2 } },
      { sessionUpdate: "agent_message", messageId: "m", content: null, _meta: { b: null } },
      { sessionUpdate: "agent_message_chunk", messageId: "m", content: text("hi") },
    ];
    expect(chain(stream)).toEqual([
      { sessionUpdate: "agent_message", messageId: "m", _meta: { a: 1 } },
      { sessionUpdate: "agent_message_chunk", messageId: "m", content: text("hi") },
    ]);
  });

  it("restores replace, clear and meta, and drops the redaction notices", () => {
    const stream: Obj[] = [
      { sessionUpdate: "agent_message_chunk", messageId: "m", content: text("Hello") },
      { sessionUpdate: "agent_message", messageId: "m", content: [text("Bye"), text("!")] },
      { sessionUpdate: "agent_message_chunk", messageId: "m", content: text("?") },
      { sessionUpdate: "agent_message", messageId: "m", _meta: { x: 1 } },
      { sessionUpdate: "agent_message", messageId: "m", content: [] },
    ];
    expect(chain(stream)).toEqual(stream);
  });

  it("restores the kind-colliding message under its original id", () => {
    const stream: Obj[] = [
      { sessionUpdate: "agent_message_chunk", messageId: "m", content: text("a") },
      { sessionUpdate: "agent_thought", messageId: "m", content: [text("t"), text("u")] },
      { sessionUpdate: "agent_thought_chunk", messageId: "m", content: text("v") },
    ];
    expect(chain(stream)).toEqual(stream);
  });

  it("gives back what it gathered when the fan-out is interrupted", () => {
    const a = new AEngine(opts);
    const b = new BEngine(opts);
    const chunks = a.update({ sessionUpdate: "agent_message", messageId: "m", content: [text("a"), text("b")] });
    expect(b.update(chunks[0] as Obj)).toEqual([]);
    const other = { sessionUpdate: "user_message_chunk", messageId: "u", content: text("q") };
    expect(b.update(other)).toEqual([{ sessionUpdate: "agent_message", messageId: "m", content: [text("a")] }, other]);
  });

  it("passes plain chunks through when the stash is off", () => {
    const out = chain(
      [{ sessionUpdate: "agent_message", messageId: "m", content: [text("a"), text("b")], _meta: { k: 1 } }],
      "off",
    );
    expect(out).toEqual([
      { sessionUpdate: "agent_message_chunk", messageId: "m", content: text("a") },
      { sessionUpdate: "agent_message_chunk", messageId: "m", content: text("b") },
    ]);
  });
});

// ---- properties ----

const chunkIdOf = (x: unknown) => v1ChunkMessageId(x as never);

convertsLosslessly({
  name: "ContentChunk",
  v1: { schema: "v1", def: "ContentChunk", arb: arb("v1", "ContentChunk", uriOverrides) },
  v2: { schema: "v2", def: "ContentChunk" },
  toV2: (x, o) =>
    chunkToV2(
      x as never,
      { kind: "agent", messageId: chunkIdOf(x) ?? "acpb:s1:a:1", synthetic: chunkIdOf(x) === undefined },
      o,
    ),
  toV1: (x, o) => {
    const r = chunkToV1(x, undefined, { kind: "agent", firstKind: undefined }, o);
    return r.ok ? { ...r, value: r.value.update } : r;
  },
  interpreted: { v1: [["messageId"], ["content", "type"]], v2: [["messageId"], ["content", "type"]] },
  levels: ["compact", "full"],
});

convertsLosslessly({
  name: "ContentChunk (id reused by another kind)",
  v1: { schema: "v1", def: "ContentChunk", arb: arb("v1", "ContentChunk", uriOverrides) },
  v2: { schema: "v2", def: "ContentChunk" },
  toV2: (x, o) =>
    chunkToV2(
      x as never,
      { kind: "thought", messageId: chunkIdOf(x) ?? "acpb:s1:t:1", synthetic: chunkIdOf(x) === undefined },
      o,
    ),
  toV1: (x, o) => {
    const r = chunkToV1(x, undefined, { kind: "thought", firstKind: "agent" }, o);
    return r.ok ? { ...r, value: r.value.update } : r;
  },
  skip: { v1RoundTrip: "a v1 id never collides: the rename applies to v2 ids only (T §2.1 A↓)" },
});

/** The v2 client's view: per message, content (adjacent plain text merged) and stored `_meta`. */
function materialize(stream: readonly unknown[]): Map<string, { content: unknown[]; meta: Obj }> {
  const msgs = new Map<string, { content: unknown[]; meta: Obj }>();
  for (const raw of stream) {
    const u = raw as Obj;
    const k = kindOfUpdate(u.sessionUpdate as string);
    if (!k) continue;
    const key = `${k.kind} ${u.messageId as string}`;
    const m = msgs.get(key) ?? { content: [], meta: {} };
    if (!k.upsert) m.content = [...m.content, u.content];
    else {
      if (Object.hasOwn(u, "content")) m.content = Array.isArray(u.content) ? [...(u.content as unknown[])] : [];
      if (u._meta === null) m.meta = {};
      else if (typeof u._meta === "object" && u._meta !== null)
        for (const [mk, mv] of Object.entries(u._meta)) {
          if (mv === null) Reflect.deleteProperty(m.meta, mk);
          else m.meta[mk] = mv;
        }
    }
    msgs.set(key, m);
  }
  for (const m of msgs.values()) {
    const merged: unknown[] = [];
    for (const b of m.content) {
      const last = merged[merged.length - 1] as Obj | undefined;
      const plain = (x: unknown) => {
        const o = x as Obj;
        return o.type === "text" && Object.keys(o).every((key) => key === "type" || key === "text");
      };
      if (last && plain(last) && plain(b))
        merged[merged.length - 1] = { type: "text", text: (last.text as string) + ((b as Obj).text as string) };
      else merged.push(b);
    }
    m.content = norm(merged) as unknown[];
  }
  return msgs;
}

const upsertArb = (kind: MessageKind) => {
  const def = kind === "user" ? "UserMessage" : kind === "agent" ? "AgentMessage" : "AgentThought";
  return arb("v2", def).map((u): Obj => ({ ...(u as Obj), sessionUpdate: UPSERT[kind] }));
};
const anyKind = fc.constantFrom<MessageKind>("user", "agent", "thought");

describe("whole-message upserts through A and B (T §2.2, properties)", () => {
  const runs = { numRuns: numRuns() };

  it("a v2 upsert of a new message becomes valid v1 chunks that B restores to the same upsert", () => {
    fc.assert(
      fc.property(anyKind.chain(upsertArb), fc.constantFrom<StashLevel>("compact", "full"), (u, level) => {
        const a = new AEngine(options(level));
        const b = new BEngine(options(level));
        const chunks = a.update(u);
        const back = [...chunks.flatMap((c) => b.update(c as Obj)), ...b.flush()];
        const content = u.content as unknown[] | null | undefined;
        if (content && content.length > 0) expect(norm(back)).toEqual([norm(u)]);
        else expect(chunks).toEqual([]);
      }),
      runs,
    );
  });

  it("with the stash off, B still shows the same content unless a block lost something, and the metadata is reported lost", () => {
    fc.assert(
      fc.property(anyKind.chain(upsertArb), (u) => {
        const kind = kindOfUpdate(u.sessionUpdate as string)!.kind;
        const r = upsertToV1Chunks(u as never, undefined, { kind, firstKind: undefined, redactionNotice: true }, off);
        const chunks = value(r).chunks;
        expect(JSON.stringify(chunks)).not.toContain("acp-bridge");
        const b = new BEngine(off);
        const back = chunks.flatMap((c) => b.update(c as Obj));
        const content = u.content as unknown[] | null | undefined;
        const contentLost = r.ok && r.lost.some((l) => l.path[0] === "content");
        if (content && content.length > 0 && !contentLost) {
          const key = `${kind} ${u.messageId as string}`;
          expect(materialize(back).get(key)?.content).toEqual(materialize([u]).get(key)?.content);
        }
        const lostPaths = r.ok ? r.lost.map((l) => String(l.path[0])) : [];
        if (Object.hasOwn(u, "_meta") && content && content.length > 0) expect(lostPaths).toContain("_meta");
      }),
      runs,
    );
  });

  // Streams of chunks and upserts over a few ids and kinds: whatever A sends, B rebuilds what a v2
  // client would hold (content and metadata of every message that has content).
  const ids = fc.constantFrom("m1", "m2");
  const texts = fc.constantFrom("a", "b", "Hello", " world", "ü", "");
  const block = fc.oneof(
    { weight: 4, arbitrary: texts.map(text) },
    { weight: 1, arbitrary: arb("v2", "ContentBlock") },
  );
  const meta = fc.oneof(
    fc.constant(null),
    fc.dictionary(fc.constantFrom("a", "b", "c"), fc.oneof(fc.constant(null), fc.integer()), { maxKeys: 2 }),
  );
  const op = fc.oneof(
    fc.record({ t: fc.constant("chunk" as const), kind: anyKind, id: ids, block }),
    fc.record(
      {
        t: fc.constant("upsert" as const),
        kind: anyKind,
        id: ids,
        content: fc.oneof(fc.constant(null), fc.array(block, { maxLength: 3 })),
        extend: fc.boolean(),
        meta,
      },
      { requiredKeys: ["t", "kind", "id", "extend"] },
    ),
  );

  function streamOf(ops: readonly fc.Arbitrary<unknown>[] | unknown[]): Obj[] {
    const shown = new Map<string, unknown[]>();
    return (ops as Obj[]).map((o) => {
      const kind = o.kind as MessageKind;
      const key = `${kind} ${o.id as string}`;
      if (o.t === "chunk") {
        shown.set(key, [...(shown.get(key) ?? []), o.block]);
        return { sessionUpdate: CHUNK[kind], messageId: o.id, content: o.block };
      }
      const u: Obj = { sessionUpdate: UPSERT[kind], messageId: o.id };
      if (Object.hasOwn(o, "content")) {
        // "extend": the final whole message after streaming (the prefix case).
        const content =
          o.extend && Array.isArray(o.content) ? [...(shown.get(key) ?? []), ...(o.content as unknown[])] : o.content;
        u.content = content;
        shown.set(key, Array.isArray(content) ? (content as unknown[]) : []);
      }
      if (Object.hasOwn(o, "meta")) u._meta = o.meta;
      return u;
    });
  }

  it("streams of chunks and upserts reach a v2 client through A and B as the agent sent them", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 12 }), fc.boolean(), (ops, notice) => {
        const stream = streamOf(ops);
        const a = new AEngine(opts, notice);
        const b = new BEngine(opts);
        const back = [...stream.flatMap((u) => a.update(u)).flatMap((c) => b.update(c as Obj)), ...b.flush()];
        const want = materialize(stream);
        const got = materialize(back);
        for (const [key, m] of want) {
          if (m.content.length === 0) {
            expect(got.get(key)?.content ?? []).toEqual([]);
            continue;
          }
          expect(got.get(key), key).toEqual(m);
        }
      }),
      runs,
    );
  });
});

describe("v1 chunk streams through B and A (T §2.1 B↓, properties)", () => {
  // v1 ids are unique per session, so an explicit id belongs to one kind.
  const chunkOp = fc.record({
    kind: anyKind,
    id: fc.constantFrom<"absent" | "null" | "x1" | "x2">("absent", "null", "x1", "x2"),
    text: fc.constantFrom("a", "b", "ü"),
  });
  const op = fc.oneof({ weight: 4, arbitrary: chunkOp }, { weight: 1, arbitrary: fc.constant("boundary" as const) });

  it("a v1 agent's chunks (ids absent, null or its own) reach a v1 client through B and A unchanged", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 14 }), (ops) => {
        const b = new BEngine(opts);
        const a = new AEngine(opts);
        const sent: Obj[] = [];
        const got: unknown[] = [];
        for (const o of ops) {
          if (o === "boundary") {
            b.ids = closeOpenMessage(b.ids);
            continue;
          }
          const c: Obj = { sessionUpdate: CHUNK[o.kind], content: text(o.text) };
          if (o.id === "null") c.messageId = null;
          else if (o.id !== "absent") c.messageId = `${o.kind}-${o.id}`;
          sent.push(c);
          got.push(...b.update(c).flatMap((u) => a.update(u as Obj)));
        }
        expect(got).toEqual(sent);
      }),
      { numRuns: numRuns() },
    );
  });
});
