// Bounded upsert state (issue 10 item 5): what direction A remembers of a shown message stays
// within `shownMaxChars` characters however long the message grows, and the digest that stands for
// a longer one gives exactly the answers the full text gives (suffix, replacement, clear).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type * as v1 from "@agentclientprotocol/sdk";
import type { MessageKind } from "../../mappings/message.js";
import { kindOfUpdate } from "../support/message-kinds.js";
import { limits } from "../../mappings/limits.js";
import {
  chunkToV1,
  plainTextChunkState,
  upsertToV1Chunks,
  v1ChunkToV2Updates,
  type PendingUpsert,
  type SentMessage,
} from "../../src/convert/message.js";
import { appendDigest, digestOf, sameDigest, startsWithDigest } from "../../src/convert/text-digest.js";
import { value } from "../support/conv.js";
import { numRuns, options } from "../support/properties.js";
import { expectValid } from "../support/schema.js";
import type { Obj } from "../../src/base/json.js";

const opts = options("compact");
const text = (t: string) => ({ type: "text", text: t });
const image = (n: number) => ({ type: "image", mimeType: "image/png", data: `AAA${n}` });
const UPSERT: Record<string, string> = { agent: "agent_message", thought: "agent_thought" };
const CHUNK: Record<string, string> = { agent: "agent_message_chunk", thought: "agent_thought_chunk" };

/** Direction A's message state around the converters, with a given bound (Infinity: unbounded). */
class AEngine {
  readonly sent = new Map<string, SentMessage>();
  readonly idKind = new Map<string, MessageKind>();
  constructor(readonly shownMaxChars: number) {}

  update(u: Obj): v1.SessionUpdate[] {
    const k = kindOfUpdate(u.sessionUpdate as string)!;
    const id = u.messageId as string;
    const key = `${k.kind} ${id}`;
    const ctx = {
      kind: k.kind,
      firstKind: this.idKind.get(id),
      redactionNotice: true,
      shownMaxChars: this.shownMaxChars,
    };
    if (!this.idKind.has(id)) this.idKind.set(id, k.kind);
    if (k.upsert) {
      const r = value(upsertToV1Chunks(u as never, this.sent.get(key), ctx, opts));
      this.sent.set(key, r.sent);
      return r.chunks;
    }
    const c = u.content as Obj;
    // The engine's fast path for plain text chunks, as src/engine/v1-client/updates/messages.ts takes it.
    if (c.type === "text" && Object.keys(c).length === 2 && Object.keys(u).length === 3) {
      const next = plainTextChunkState(id, c.text as string, this.sent.get(key), ctx);
      if (next) {
        this.sent.set(key, next);
        return [u as v1.SessionUpdate];
      }
    }
    const r = value(chunkToV1(u as never, this.sent.get(key), ctx, opts));
    this.sent.set(key, r.sent);
    return [r.update as v1.SessionUpdate];
  }
}

// Streams over two ids and two kinds: chunks, and upserts that extend what was shown, change one
// character of it, replace it, clear it, or only patch metadata.
const kinds = fc.constantFrom<MessageKind>("agent", "thought");
const ids = fc.constantFrom("m1", "m2");
const piece = fc.string({ unit: fc.constantFrom("a", "b", "ü", "🙂", " "), maxLength: 9 });
const block = fc.oneof({ weight: 5, arbitrary: piece.map(text) }, { weight: 1, arbitrary: fc.nat(3).map(image) });
const op = fc.oneof(
  { weight: 4, arbitrary: fc.record({ t: fc.constant("chunk"), kind: kinds, id: ids, block }) },
  {
    weight: 2,
    arbitrary: fc.record({ t: fc.constant("extend"), kind: kinds, id: ids, more: fc.array(block, { maxLength: 2 }) }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("mutate"), kind: kinds, id: ids, at: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant("replace"),
      kind: kinds,
      id: ids,
      content: fc.array(block, { maxLength: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("other"), kind: kinds, id: ids, clear: fc.boolean() }) },
);

function streamOf(ops: Obj[]): Obj[] {
  const shown = new Map<string, Obj[]>();
  return ops.map((o) => {
    const kind = o.kind as string;
    const key = `${kind} ${o.id as string}`;
    const before = shown.get(key) ?? [];
    const upsert = (content: Obj[] | undefined, meta?: unknown): Obj => {
      if (content) shown.set(key, content);
      const u: Obj = { sessionUpdate: UPSERT[kind], messageId: o.id };
      if (content) u.content = content;
      if (meta !== undefined) u._meta = meta;
      return u;
    };
    switch (o.t) {
      case "chunk":
        shown.set(key, [...before, o.block as Obj]);
        return { sessionUpdate: CHUNK[kind], messageId: o.id, content: o.block };
      case "extend":
        return upsert([...before, ...(o.more as Obj[])]);
      case "mutate": {
        // One character of the shown text changed (or an image's data): never an extension.
        const all = before.map((b) => ({ ...b }));
        const texts = all.filter((b) => typeof b.text === "string" && b.text.length > 0);
        const target = texts[(o.at as number) % Math.max(1, texts.length)];
        if (target) {
          const t = target.text as string;
          const i = (o.at as number) % t.length;
          target.text = t.slice(0, i) + (t[i] === "x" ? "y" : "x") + t.slice(i + 1);
        } else if (all.length > 0) all[0] = image(99);
        return upsert(all);
      }
      case "replace":
        return upsert(o.content as Obj[]);
      default:
        return o.clear ? upsert([]) : upsert(undefined, { k: 1 });
    }
  });
}

describe("bounded upsert state (issue 10 item 5)", () => {
  it("emits exactly what the unbounded state emits, whatever the bound (a digest proves the same suffixes)", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), fc.nat(40), (ops, bound) => {
        const stream = streamOf(ops);
        const exact = new AEngine(Number.POSITIVE_INFINITY);
        const bounded = new AEngine(bound);
        for (const u of stream) {
          const want = exact.update(u);
          const got = bounded.update(u);
          expect(got).toEqual(want);
          for (const c of got) expectValid("v1", "SessionUpdate", c);
        }
        // And the bounded state keeps no more than the bound verbatim.
        for (const s of bounded.sent.values()) {
          const kept = s.blocks.reduce((n, b) => n + JSON.stringify(b).length, 0);
          expect(s.digest === undefined || s.blocks.length === 0).toBe(true);
          if (s.digest === undefined) expect(s.size ?? 0).toBeLessThanOrEqual(bound);
          expect(kept).toBeLessThanOrEqual(bound + 64 * s.blocks.length);
        }
      }),
      { numRuns: numRuns() },
    );
  });

  it("keeps constant-size state over a 6 MB message of 600-character chunks under one id", () => {
    const a = new AEngine(limits.shownTextChars.default);
    const chunk = "x".repeat(599) + "\n";
    for (let i = 0; i < 10_000; i++) {
      const out = a.update({ sessionUpdate: "agent_message_chunk", messageId: "long", content: text(chunk) });
      expect(out).toHaveLength(1);
    }
    const s = a.sent.get("agent long")!;
    expect(s.blocks).toEqual([]);
    expect(s.size).toBe(6_000_000);
    expect(JSON.stringify(s).length).toBeLessThan(400);
    // The final whole message extends what was shown: only its new suffix goes out.
    const whole = chunk.repeat(10_000) + "done";
    expect(a.update({ sessionUpdate: "agent_message", messageId: "long", content: [text(whole)] })).toEqual([
      { sessionUpdate: "agent_message_chunk", messageId: "long", content: text("done") },
    ]);
    // One character changed early on: not an extension, so a replacement (op replace), as unbounded.
    const edited = "y" + whole.slice(1);
    const out = a.update({ sessionUpdate: "agent_message", messageId: "long", content: [text(edited)] });
    expect(out.map((c) => (c as Obj).messageId)).toEqual(["long", "long~r1"]);
    expect(JSON.stringify(a.sent.get("agent long")).length).toBeLessThan(400);
  });

  it("digests a text the same however it was cut into chunks", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 20 }), { maxLength: 8 }), (parts) => {
        const whole = parts.join("");
        const incremental = parts.reduce((d, p) => appendDigest(d, p), digestOf(""));
        expect(sameDigest(incremental, digestOf(whole))).toBe(true);
        expect(startsWithDigest(whole + "tail", incremental)).toBe(true);
        if (whole.length > 0) expect(startsWithDigest("!" + whole.slice(1), incremental)).toBe(whole[0] === "!");
      }),
      { numRuns: numRuns() },
    );
  });

  it("B gathers at most limits.gatheredBlocks blocks of a fanned-out upsert, whatever count the peer claims", () => {
    // An A bridge upstream fans an upsert of 1,000 blocks out into 1,000 v1 chunks (count 1000).
    const n = 1000;
    const content = Array.from({ length: n }, (_, i) => text(`b${i} `));
    const fanned = value(
      upsertToV1Chunks(
        { sessionUpdate: "agent_message", messageId: "m", content } as never,
        undefined,
        { kind: "agent", firstKind: undefined, redactionNotice: true },
        opts,
      ),
    ).chunks;
    expect(fanned).toHaveLength(n);
    let pending: PendingUpsert | undefined;
    const out: Obj[] = [];
    let mostGathered = 0;
    for (const c of fanned) {
      const r = value(
        v1ChunkToV2Updates(c as never, pending, { kind: "agent", messageId: "m", synthetic: false }, opts),
      );
      pending = r.pending;
      mostGathered = Math.max(mostGathered, (pending?.update.content as unknown[] | undefined)?.length ?? 0);
      out.push(...(r.updates as Obj[]));
    }
    expect(pending).toBeUndefined();
    expect(mostGathered).toBe(limits.gatheredBlocks.default - 1);
    // The gathered upsert, then the rest as chunks extending it: the same content for the client.
    expect(out[0]).toMatchObject({ sessionUpdate: "agent_message", messageId: "m" });
    expect((out[0]!.content as unknown[]).length).toBe(limits.gatheredBlocks.default);
    const rest = out.slice(1);
    expect(rest.every((u) => u.sessionUpdate === "agent_message_chunk" && u.messageId === "m")).toBe(true);
    expect([...(out[0]!.content as unknown[]), ...rest.map((u) => u.content)]).toEqual(content);
    for (const u of out) expectValid("v2", "SessionUpdate", u);
  });
});
