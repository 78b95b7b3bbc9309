// The slot-table state of both directions (src/engine/v1-client/state/tool-calls.ts, src/engine/v1-client/state/messages.ts,
// src/engine/message-kinds.ts, src/engine/v2-client/state/tool-calls.ts) against the object maps it replaced: whatever
// a session writes, reading it back gives the objects the maps gave (for A's, with their keys in the
// same order), in the same forgetting order.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LruMap } from "../../src/engine/bounded.js";
import { ShownContents, ToolCallEntry, ToolCallTable } from "../../src/engine/v1-client/state/tool-calls.js";
import { SentMessages } from "../../src/engine/v1-client/state/messages.js";
import { MessageKinds } from "../../src/engine/message-kinds.js";
import { ToolSeenTable } from "../../src/engine/v2-client/state/tool-calls.js";
import type { ToolSeen } from "../../src/engine/v2-client/session.js";
import type { ToolCallView } from "../../src/engine/v1-client/session.js";
import { maxChars, plainTextChunkState, type SentMessage } from "../../src/convert/message.js";
import type { MessageKind } from "../../mappings/message.js";
import { NIL } from "../../src/engine/slot-table.js";
import { numRuns } from "../support/properties.js";
import type { Obj } from "../../src/base/json.js";

const ids = fc.constantFrom("t1", "t2", "t3", "t4", "t5", "t6", "x".repeat(40), "y".repeat(41), "ü€😀");
const title = fc.oneof(fc.string({ maxLength: 8 }), fc.constant("T".repeat(120)), fc.constant("L".repeat(121)));
const value = fc.constantFrom("pending", "in_progress", "completed", "failed", "read", "edit", "other");
/** A fast-path patch: string fields in any order, sometimes a field a compact entry cannot keep. */
const patch = fc
  .record({ title, status: value, kind: value, rawInput: fc.string({ maxLength: 3 }) }, { requiredKeys: [] })
  .chain((p) => fc.shuffledSubarray(Object.keys(p), { minLength: Object.keys(p).length }).map((ks) => ({ p, ks })))
  .map(({ p, ks }) => Object.fromEntries(ks.map((k) => [k, (p as Obj)[k]])));

const op = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.constant("patch" as const), ids, patch) },
  { weight: 2, arbitrary: fc.tuple(fc.constant("get" as const), ids, fc.constant({})) },
  { weight: 1, arbitrary: fc.tuple(fc.constant("retire" as const), ids, fc.constant({})) },
  { weight: 1, arbitrary: fc.tuple(fc.constant("set" as const), ids, fc.constant({})) },
  { weight: 1, arbitrary: fc.tuple(fc.constant("clear" as const), ids, fc.constant({})) },
);

function fresh(toolCallId: string): ToolCallView {
  return new ToolCallEntry({ toolCallId }, false);
}

function apply(t: ToolCallView, p: Obj): void {
  for (const k in p) t.view[k] = p[k];
  t.announced = true;
}

describe("ToolCallTable", () => {
  it("gives back what an LruMap of full entries gives, whichever entries it keeps compact", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(op, { maxLength: 80 }), (limit, ops) => {
        const table = new ToolCallTable(limit);
        const model = new LruMap<string, ToolCallView>(limit);
        for (const [name, id, p] of ops) {
          if (name === "patch") {
            // As the fast path records a string-only update (src/engine/v1-client/updates/tool-calls.ts).
            const withId = { toolCallId: id, ...p };
            const slot = table.find(id);
            const known = slot === NIL ? undefined : table.fullEntry(slot);
            if (known !== undefined || table.patchCompact(slot, id, withId) === NIL) {
              let t = table.get(id);
              if (t === undefined) table.set(id, (t = fresh(id)));
              apply(t, withId);
            }
            let m = model.get(id);
            if (m === undefined) model.set(id, (m = fresh(id)));
            apply(m, withId);
          } else if (name === "get") expect(JSON.stringify(table.get(id))).toBe(JSON.stringify(model.get(id)));
          else if (name === "retire") {
            table.retire(id);
            model.retire(id);
          } else if (name === "set") {
            table.set(id, fresh(id));
            model.set(id, fresh(id));
          } else {
            table.clear();
            model.clear();
          }
          expect(JSON.stringify(table.toJSON().map((e) => e[1]))).toBe(JSON.stringify([...model.values()]));
          expect(table.size).toBe(model.size);
        }
      }),
      { numRuns: numRuns() },
    );
  });
});

const kinds = fc.constantFrom<MessageKind>("user", "agent", "thought");
const digest = fc.record({
  length: fc.nat(),
  h1: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  h2: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
});
/** A shown message: its usual form (kept as numbers), or that form with one thing otherwise (kept as the object). */
const sent = (id: string): fc.Arbitrary<SentMessage> => {
  const usual = fc.record({
    v1Id: fc.constant<string | undefined>(id),
    blocks: fc.constant<SentMessage["blocks"]>([]),
    size: fc.nat(),
    digest: fc.record({ count: fc.nat(), head: digest, last: fc.record({ text: digest }) }),
    started: fc.constant(true),
    rev: fc.constant(0),
  });
  const otherwise: ((s: SentMessage) => SentMessage)[] = [
    (s) => ({ ...s, v1Id: `${id}~r1` }),
    (s) => ({ ...s, v1Id: undefined }),
    (s) => ({ ...s, blocks: [{ type: "text", text: "x" }] }),
    (s) => ({ ...s, size: undefined }),
    (s) => ({ ...s, digest: undefined }),
    (s) => ({ ...s, digest: s.digest && { ...s.digest, last: { other: s.digest.head } } }),
    (s) => ({ ...s, started: false }),
    (s) => ({ ...s, rev: 1 }),
    (s) => ({ ...s, deferredMeta: { a: 1 } }),
    (s) => ({ ...s, extra: 1 }) as SentMessage,
  ];
  return fc.tuple(usual, fc.option(fc.constantFrom(...otherwise), { nil: undefined })).map(([s, f]) => (f ? f(s) : s));
};

const messageOp = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(fc.constant("set" as const), kinds, ids)
      .chain(([n, k, id]) => sent(id).map((s) => [n, k, id, s] as const)),
  },
  { weight: 4, arbitrary: fc.tuple(fc.constant("append" as const), kinds, ids, fc.string({ maxLength: 4 })) },
  // The same from a JSON string's bytes (lone surrogates and escapes too), as the chunk fast path reads it.
  {
    weight: 4,
    arbitrary: fc.tuple(
      fc.constant("appendJson" as const),
      kinds,
      ids,
      fc.oneof(
        fc.string({ maxLength: 4 }),
        fc.string({ unit: "binary", maxLength: 4 }),
        fc.constantFrom("\ud83d", '"\n/', ""),
      ),
    ),
  },
  { weight: 2, arbitrary: fc.tuple(fc.constant("get" as const), kinds, ids, fc.constant(undefined)) },
  { weight: 1, arbitrary: fc.tuple(fc.constant("clear" as const), kinds, ids, fc.constant(undefined)) },
);

describe("SentMessages and MessageKinds", () => {
  it("give back what LruMaps give, in the same order", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(messageOp, { maxLength: 80 }), (limit, ops) => {
        const table = new SentMessages(limit);
        const model = new LruMap<string, SentMessage>(limit);
        const idKind = new MessageKinds(limit);
        const idKindModel = new LruMap<string, MessageKind>(limit);
        for (const [name, kind, id, s] of ops) {
          if ((name === "append" || name === "appendJson") && typeof s === "string") {
            // As direction A takes a plain text chunk (src/engine/v1-client/updates/messages.ts `takePlainChunk`;
            // `takePlainChunkBytes` from the bytes of its JSON string, escapes as JSON.stringify writes them).
            const ctx = { kind, firstKind: kind };
            const json = Buffer.from(JSON.stringify(s));
            const fromBytes =
              name === "appendJson" &&
              (table.appendTextJson(kind, id, json, 1, json.length - 1) ||
                table.startTextJson(kind, id, json, 1, json.length - 1, maxChars(ctx)));
            if (!fromBytes && !table.appendText(kind, id, s)) {
              const next = plainTextChunkState(id, s, table.get(kind, id), ctx);
              if (next) table.set(kind, id, next);
            }
            const next = plainTextChunkState(id, s, model.get(`${kind}:${id}`), ctx);
            if (next) model.set(`${kind}:${id}`, next);
          } else if (name === "set" && s !== undefined) {
            table.set(kind, id, s);
            model.set(`${kind}:${id}`, s);
            idKind.set(id, kind);
            idKindModel.set(id, kind);
          } else if (name === "get") {
            expect(JSON.stringify(table.get(kind, id))).toBe(JSON.stringify(model.get(`${kind}:${id}`)));
            expect(idKind.get(id)).toBe(idKindModel.get(id));
          } else {
            table.clear();
            model.clear();
            idKind.clear();
            idKindModel.clear();
          }
          expect(JSON.stringify(table.toJSON().map((e) => e[2]))).toBe(JSON.stringify([...model.values()]));
          expect(idKind.toJSON().map((e) => e[1])).toEqual([...idKindModel.values()]);
        }
      }),
      { numRuns: numRuns() },
    );
  });
});

/** What B keeps of a tool call: string fields as a v1 agent streams them, or content too. */
const seen: fc.Arbitrary<ToolSeen> = fc.record(
  {
    title: fc.option(title, { nil: undefined }),
    kind: fc.option(value, { nil: undefined }),
    lastContent: fc.constantFrom([], [{ type: "content" as const, content: { type: "text" as const, text: "x" } }]),
  },
  { requiredKeys: [] },
);

const seenOp = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(fc.constant("set" as const), ids, seen) },
  // B's fast path: a string-only update's title and kind (`patchStrings`, else `get` and `set`).
  {
    weight: 3,
    arbitrary: fc.tuple(
      fc.constant("patch" as const),
      ids,
      seen.map(({ title, kind }) => ({ title, kind })),
    ),
  },
  { weight: 2, arbitrary: fc.tuple(fc.constant("get" as const), ids, fc.constant({})) },
  { weight: 1, arbitrary: fc.tuple(fc.constant("clear" as const), ids, fc.constant({})) },
);

describe("ToolSeenTable", () => {
  it("gives back what an LruMap gives, in the same order", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(seenOp, { maxLength: 80 }), (limit, ops) => {
        const table = new ToolSeenTable(limit);
        const model = new LruMap<string, ToolSeen>(limit);
        for (const [name, id, s] of ops) {
          if (name === "set") {
            table.set(id, { ...s });
            model.set(id, { ...s });
          } else if (name === "patch") {
            const patch = (cur: ToolSeen | undefined): ToolSeen => {
              const next: ToolSeen = { ...cur };
              if (s.title !== undefined) next.title = s.title;
              if (s.kind !== undefined) next.kind = s.kind;
              return next;
            };
            if (!table.patchStrings(id, s.title, s.kind)) table.set(id, patch(table.get(id)));
            model.set(id, patch(model.get(id)));
          } else if (name === "get") expect(table.get(id)).toEqual(model.get(id));
          else {
            table.clear();
            model.clear();
          }
          expect(table.toJSON().map((e) => e[1])).toEqual([...model.values()]);
          expect(table.size).toBe(model.size);
        }
      }),
      { numRuns: numRuns() },
    );
  });
});

describe("the content lists a connection remembers having shown (limits.shownContents)", () => {
  const rendering = (text: string) => ({ ok: true as const, value: [{ type: "content", text }], lost: [] });

  it("recalls a list by identity only, forgets the oldest beyond its capacity, and is no state", () => {
    const shown = new ShownContents(2, 100);
    const [a, b, c] = [[{ type: "diff" }], [{ type: "diff" }], [{ type: "diff" }]];
    shown.remember(a, rendering("a"));
    shown.remember(b, rendering("b"));
    // An equal list is another list: its items may have been read from another line.
    expect(shown.recall([{ type: "diff" }])).toBeUndefined();
    expect(shown.recall(a)).toEqual(rendering("a"));
    // Remembered again: replaced in place, nothing forgotten.
    shown.remember(a, rendering("a2"));
    expect([shown.recall(a), shown.recall(b)]).toEqual([rendering("a2"), rendering("b")]);
    shown.remember(c, rendering("c"));
    expect([shown.recall(a), shown.recall(b), shown.recall(c)]).toEqual([undefined, rendering("b"), rendering("c")]);
    expect(JSON.stringify({ shown })).toBe("{}");
  });

  it("keeps no rendering of more characters than its bound, nor an earlier one of that list", () => {
    // Keys count: `type` and `text` are 8 characters, the values the rest.
    const shown = new ShownContents(2, 20);
    const a = [{ type: "diff" }];
    shown.remember(a, rendering("x".repeat(5)));
    expect(shown.recall(a)).toEqual(rendering("x".repeat(5)));
    shown.remember(a, rendering("x".repeat(6)));
    expect(shown.recall(a)).toBeUndefined();
    const deep = { ok: true as const, value: [{ type: "diff", parts: [["x".repeat(30)]] }], lost: [] };
    shown.remember(a, deep);
    expect(shown.recall(a)).toBeUndefined();
  });
});
