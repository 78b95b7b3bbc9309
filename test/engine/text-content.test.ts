// The byte-level checks of the member fast paths (src/engine/text-content.ts) against the checks of
// the parse they stand for, and a direction-A tool call's deferred patches
// (src/engine/v1-client/state/tool-calls.ts `ToolCallEntry`) against patches applied as they come.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { plainLocations, plainLocationsAt, textItemsAt, textItemsOnly } from "../../src/engine/text-content.js";
import { scanMembers, type ScannedMembers } from "../../src/wire/member-scan.js";
import { ToolCallEntry, applyToolCallPatch } from "../../src/engine/v1-client/state/tool-calls.js";
import { anyJson, anyKey, anyString } from "../support/arbitrary.js";
import { numRuns } from "../support/properties.js";
import type { Obj } from "../../src/base/json.js";

const TAG = Buffer.from("tool_call_update");

/** The scan of a tool call update whose member `key` is `value`, as JSON.stringify writes it. */
function scanned(key: string, value: unknown): { m: ScannedMembers; k: number } | undefined {
  const update = { sessionUpdate: "tool_call_update", toolCallId: "t", [key]: value };
  const line = Buffer.from(
    JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update } }),
  );
  const m = scanMembers(line, 64, [TAG]);
  if (m === undefined) return undefined;
  return { m, k: m.indexOf(key) };
}

const textItem = anyString.map((text) => ({ type: "content", content: { type: "text", text } }));
/** Items of text as the agents write them, and near misses: other key orders, more keys, other types. */
const anyItem = fc.oneof(
  { weight: 4, arbitrary: textItem },
  { weight: 1, arbitrary: anyString.map((text) => ({ content: { type: "text", text }, type: "content" })) },
  { weight: 1, arbitrary: anyString.map((text) => ({ type: "content", content: { text, type: "text" } })) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(anyString, anyKey, anyJson)
      .map(([text, k, v]) => ({ type: "content", content: { type: "text", text, [k]: v } })),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constantFrom("content", "diff", "terminal"), content: anyJson }) },
  { weight: 1, arbitrary: anyJson },
);

const MAX_LINE = 0xffffffff;
const lineNumber = fc.oneof(
  fc.integer({ min: 0, max: MAX_LINE }),
  fc.constantFrom(-1, 0, 1, MAX_LINE, MAX_LINE + 1, 1.5, 1e21, 2 ** 53),
);
const plainLocation = fc.oneof(
  anyString.map((path) => ({ path })),
  fc.tuple(anyString, lineNumber).map(([path, line]) => ({ path, line })),
);
const anyLocation = fc.oneof(
  { weight: 4, arbitrary: plainLocation },
  { weight: 1, arbitrary: fc.tuple(anyString, lineNumber).map(([path, line]) => ({ line, path })) },
  { weight: 1, arbitrary: fc.tuple(anyString, anyKey, anyJson).map(([path, k, v]) => ({ path, [k]: v })) },
  { weight: 1, arbitrary: anyJson },
);

describe("the member fast paths' byte checks", () => {
  it("textItemsAt takes a content list only where textItemsOnly takes its parse, and every canonical one", () => {
    fc.assert(
      fc.property(fc.oneof(fc.array(anyItem, { maxLength: 4 }), anyJson), (content) => {
        const s = scanned("content", content);
        fc.pre(s !== undefined);
        const { m, k } = s;
        const parsed: unknown = JSON.parse(JSON.stringify(content));
        if (textItemsAt(m, k)) expect(textItemsOnly(parsed)).toBe(true);
      }),
      { numRuns: numRuns() * 4 },
    );
    fc.assert(
      fc.property(fc.array(textItem, { maxLength: 4 }), (content) => {
        const s = scanned("content", content);
        fc.pre(s !== undefined);
        const { m, k } = s;
        expect(textItemsAt(m, k)).toBe(true);
      }),
      { numRuns: numRuns() * 2 },
    );
  });

  it("plainLocationsAt takes locations only where plainLocations takes their parse, and every canonical one", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.array(anyLocation, { maxLength: 4 }), anyJson),
        fc.constantFrom(0 as const, 1 as const),
        (locations, firstLine) => {
          const s = scanned("locations", locations);
          fc.pre(s !== undefined);
          const { m, k } = s;
          const parsed: unknown = JSON.parse(JSON.stringify(locations));
          if (plainLocationsAt(m, k, firstLine)) expect(plainLocations(parsed, firstLine, () => true)).toBe(true);
        },
      ),
      { numRuns: numRuns() * 4 },
    );
    fc.assert(
      fc.property(fc.array(plainLocation, { maxLength: 4 }), fc.constantFrom(0 as const, 1 as const), (locs, first) => {
        const s = scanned("locations", locs);
        fc.pre(s !== undefined);
        const { m, k } = s;
        const parsed: unknown = JSON.parse(JSON.stringify(locs));
        expect(plainLocationsAt(m, k, first)).toBe(plainLocations(parsed, first, () => true));
      }),
      { numRuns: numRuns() * 3 },
    );
  });
});

/** A tool call patch as the member fast path defers one: any members but `toolCallId` and nulls, maybe a status. */
const patch = fc
  .tuple(
    fc.dictionary(anyKey, anyJson, { maxKeys: 4 }),
    fc.option(fc.constantFrom("pending", "in_progress", "completed", "failed"), { nil: undefined }),
    fc.option(fc.dictionary(anyKey, anyJson, { maxKeys: 2 }), { nil: undefined }),
  )
  .map(([members, status, meta]) => {
    const p: Obj = { sessionUpdate: "tool_call_update" };
    for (const [k, v] of Object.entries(members))
      if (k !== "toolCallId" && k !== "status" && k !== "_meta" && k !== "__proto__" && v !== null)
        Object.defineProperty(p, k, { value: v, enumerable: true, writable: true, configurable: true });
    if (status !== undefined) p.status = status;
    if (meta !== undefined) p._meta = meta;
    return p;
  });

describe("a direction-A tool call's deferred patches", () => {
  it("leave the view and status that the patches applied as they came leave, read at any point", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(patch, fc.boolean()), { maxLength: 20 }),
        fc.option(fc.constantFrom("pending", "in_progress"), { nil: undefined }),
        (ops, initial) => {
          const start = (): Obj => (initial === undefined ? { toolCallId: "t" } : { toolCallId: "t", status: initial });
          const eager = start();
          const entry = new ToolCallEntry(start(), true);
          for (const [p, read] of ops) {
            const copy = JSON.parse(JSON.stringify(p)) as Obj;
            delete copy.sessionUpdate;
            applyToolCallPatch(eager, copy);
            entry.defer(JSON.stringify(p), typeof p.status === "string" ? p.status : undefined);
            expect(entry.status).toEqual(eager.status);
            if (read) expect(JSON.stringify(entry.view)).toBe(JSON.stringify(eager));
          }
          expect(JSON.stringify(entry.view)).toBe(JSON.stringify(eager));
          expect(entry.deferring).toBe(false);
          expect(entry.toJSON().view).toBe(entry.view);
        },
      ),
      { numRuns: numRuns() * 3 },
    );
  });

  it("holds at most eight patches as text", () => {
    const entry = new ToolCallEntry({ toolCallId: "t" }, true);
    for (let i = 0; i < 7; i++) entry.defer(`{"title":"t${i}"}`, undefined);
    expect(entry.deferring).toBe(true);
    entry.defer('{"title":"t7"}', undefined);
    expect(entry.deferring).toBe(false);
    expect(entry.view).toEqual({ toolCallId: "t", title: "t7" });
  });

  it("holds no more text than about one long line", () => {
    const entry = new ToolCallEntry({ toolCallId: "t" }, true);
    const big = "x".repeat(8 * 1024);
    entry.defer(JSON.stringify({ rawInput: { a: big } }), undefined);
    expect(entry.deferring).toBe(true);
    entry.defer(JSON.stringify({ rawInput: { b: big } }), undefined);
    expect(entry.deferring).toBe(false);
    expect(entry.view).toEqual({ toolCallId: "t", rawInput: { b: big } });
  });

  it("is patched anew from a view set whole", () => {
    const entry = new ToolCallEntry({ toolCallId: "t" }, true);
    entry.defer('{"status":"completed","title":"a"}', "completed");
    entry.view = { toolCallId: "t" };
    expect(entry.deferring).toBe(false);
    expect(entry.status).toBeUndefined();
    expect(entry.view).toEqual({ toolCallId: "t" });
  });
});
