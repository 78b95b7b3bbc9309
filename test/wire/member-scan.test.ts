// scanMembers (src/wire/member-scan.ts) against JSON.parse and JSON.stringify: whatever it takes is
// a `session/update` of an asked-for tag that JSON.stringify of its parse writes back byte for byte,
// with the session id, the members (keys, value bytes) and the update's end it reports; and it
// takes every such line an SDK writes with plain values (not a vacuous proof).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { scanMembers } from "../../src/wire/member-scan.js";
import { keysHeld } from "../../src/wire/call-scan.js";
import { setOwn } from "../../src/base/json.js";
import { anyJson, anyKey, anyString, jsonValue } from "../support/arbitrary.js";
import { numRuns } from "../support/properties.js";

const TAGS = [Buffer.from("usage_update"), Buffer.from("session_info_update")];
const tag = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom("usage_update", "session_info_update") },
  { weight: 1, arbitrary: fc.constantFrom("usage_updates", "usage", "plan_update", "") },
);
const value = fc.oneof(
  anyJson,
  jsonValue,
  anyString,
  fc.constantFrom<unknown>(1.5, -0, 1e21, 2 ** 53, 10 ** 15 - 1, 10 ** 15, -7, 0.1, { "1": 0 }, { a: { b: [1, 2] } }),
  // Strings JSON.stringify escapes: a quote, a backslash, a newline, a control character, a lone surrogate.
  fc.constantFrom<unknown>('say "hi"', "a\\b", "line\nbreak", "\u0001", "\ud800", "é"),
);
const members = fc.array(
  fc.tuple(fc.oneof(anyKey, fc.constantFrom("used", "_meta", "1", "__proto__", 'a"b', "\\", "\n", "é")), value),
  {
    maxLength: 4,
  },
);
const message = fc
  .tuple(fc.oneof(anyString, fc.constant("s1")), tag, members, fc.boolean())
  .map(([sessionId, t, ms, tagLast]) => {
    const entries: [string, unknown][] = tagLast ? [...ms, ["sessionUpdate", t]] : [["sessionUpdate", t], ...ms];
    return {
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId, update: Object.fromEntries(entries) },
    };
  });

/** The message's JSON, maybe with a byte edit, whitespace, a duplicate or trailing bytes. */
/** Now and then (one in four) `x`, else null. */
const rarely = <T>(x: fc.Arbitrary<T>): fc.Arbitrary<T | null> =>
  fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: x });
const line = fc
  .tuple(
    message,
    rarely(fc.tuple(fc.nat(), fc.constantFrom("", " ", "}", '"', ",", "\\", "0", "e", ".", "\u00ff", "\\u0041"))),
    rarely(fc.constantFrom(" ", "x", "}", ',"used":1}}}')),
    rarely(fc.nat()),
  )
  .map(([m, edit, tail, bad]) => {
    let s = JSON.stringify(m);
    if (edit) {
      const at = edit[0] % s.length;
      s = s.slice(0, at) + edit[1] + s.slice(at + 1);
    }
    if (tail !== null) s = tail.startsWith(",") ? s.slice(0, -3) + tail : s + tail;
    const b = Buffer.from(s);
    // A byte no UTF-8 text holds, anywhere.
    if (bad !== null) b[bad % b.length] = 0xff;
    return b;
  });

/**
 * A session info update written as Claude's adapters write their tool calls: the tag after other
 * members (`_meta` and the id, or all of them), now and then a tag's look-alike.
 */
const lastTagLine = fc
  .tuple(
    fc.constantFrom("s1", "ś"),
    fc.array(fc.tuple(fc.constantFrom("title", "_meta", "x", "é"), value), { maxLength: 3 }),
    fc.nat(3),
    fc.constantFrom("session_info_update", "session_info_update", "session_info_updat", "session_info_update2"),
  )
  .map(([sessionId, ms, at, t]) => {
    const entries: [string, unknown][] = [...ms];
    entries.splice(Math.min(at, entries.length), 0, ["sessionUpdate", t]);
    return Buffer.from(
      JSON.stringify({
        jsonrpc: "2.0",
        method: "session/update",
        params: { sessionId, update: Object.fromEntries(entries) },
      }),
    );
  });

function parse(b: Buffer): unknown {
  try {
    return JSON.parse(b.toString("utf8"));
  } catch {
    return undefined;
  }
}

describe("scanMembers", () => {
  it("takes only lines JSON.stringify writes back, reporting the tag, session id and members", () => {
    let taken = 0;
    fc.assert(
      fc.property(line, (b) => {
        const m = scanMembers(b, 64, TAGS);
        if (m === undefined) return;
        taken++;
        const v = parse(b) as { params: { sessionId: string; update: Record<string, unknown> } } | undefined;
        expect(v).toBeDefined();
        expect(Buffer.from(JSON.stringify(v))).toEqual(b);
        const update = v?.params.update ?? {};
        expect(Object.keys(v?.params ?? {})).toEqual(["sessionId", "update"]);
        expect(m.sessionId()).toBe(v?.params.sessionId);
        expect(Object.keys(update)[0]).toBe("sessionUpdate");
        expect(update.sessionUpdate).toBe(TAGS[m.tag]?.toString());
        expect(m.keys.slice(0, m.count)).toEqual(Object.keys(update));
        for (let k = 0; k < m.count; k++) {
          const bytes = b.subarray(m.starts[k], m.ends[k]).toString("utf8");
          expect(bytes).toBe(JSON.stringify(update[m.keys[k] ?? ""]));
          // A string member's text, escapes read as JSON reads them (lone surrogates too).
          const value = update[m.keys[k] ?? ""];
          expect(m.text(k)).toBe(typeof value === "string" ? value : undefined);
        }
        // A member added last lands where JSON.stringify of the update with it writes it.
        const added = m.withLastMember(Buffer.from(',"zz":[1,"é"]'));
        expect(added.toString("utf8")).toBe(
          JSON.stringify({ ...v, params: { ...v?.params, update: { ...update, zz: [1, "é"] } } }),
        );
      }),
      { numRuns: numRuns() },
    );
    expect(taken).toBeGreaterThan(0);
  });

  it("takes a tag asked for at any place among the update's members, and relays the members as JSON.stringify writes them", () => {
    let last = 0;
    fc.assert(
      fc.property(fc.oneof(line, lastTagLine), fc.integer({ min: -1, max: 4 }), (b, pick) => {
        const m = scanMembers(b, 64, TAGS, [TAGS[1] ?? Buffer.alloc(0)]);
        if (m === undefined) return;
        const v = parse(b) as { params: { sessionId: string; update: Record<string, unknown> } } | undefined;
        expect(Buffer.from(JSON.stringify(v))).toEqual(b);
        const update = v?.params.update ?? {};
        const keys = Object.keys(update);
        expect(m.keys.slice(0, m.count)).toEqual(keys);
        expect(m.keys[m.tagAt]).toBe("sessionUpdate");
        expect(update.sessionUpdate).toBe(TAGS[m.tag]?.toString());
        if (m.tagAt !== 0) {
          // Only the tag asked for at any place.
          last++;
          expect(update.sessionUpdate).toBe("session_info_update");
        }
        expect(JSON.parse(m.updateText())).toEqual(update);
        // The tag first with another value, then the members in order but one moved last.
        const moved = pick < m.count ? pick : -1;
        const relaid: Record<string, unknown> = { sessionUpdate: "x_tag" };
        for (const [k, value] of Object.entries(update))
          if (k !== "sessionUpdate" && k !== keys[moved]) setOwn(relaid, k, value);
        if (moved >= 0 && keys[moved] !== "sessionUpdate") setOwn(relaid, keys[moved] ?? "", update[keys[moved] ?? ""]);
        expect(m.relaid(Buffer.from('"x_tag"'), moved).toString("utf8")).toBe(
          JSON.stringify({ ...v, params: { ...v?.params, update: relaid } }),
        );
        const spliced = { ...update };
        setOwn(spliced, "sessionUpdate", "y");
        expect(m.spliceTag(Buffer.from("y")).toString("utf8")).toBe(
          JSON.stringify({ ...v, params: { ...v?.params, update: spliced } }),
        );
      }),
      { numRuns: numRuns() },
    );
    expect(last).toBeGreaterThan(0);
  });

  it("takes every usage and session info update an SDK writes with plain values", () => {
    const plain = fc.oneof(
      fc.nat(),
      fc.string({ maxLength: 12 }),
      fc.boolean(),
      fc.constant(null),
      fc.dictionary(fc.constantFrom("a", "_claude/model", "codex"), fc.oneof(fc.string(), fc.nat()), { maxKeys: 2 }),
    );
    fc.assert(
      fc.property(
        fc.constantFrom("usage_update", "session_info_update"),
        fc.dictionary(fc.constantFrom("used", "size", "title", "_meta", "updatedAt", "x"), plain, { maxKeys: 4 }),
        (t, rest) => {
          const b = Buffer.from(
            JSON.stringify({
              jsonrpc: "2.0",
              method: "session/update",
              params: { sessionId: "s1", update: { sessionUpdate: t, ...rest } },
            }),
          );
          const m = scanMembers(b, 64, TAGS);
          expect(m?.count).toBe(1 + Object.keys(rest).length);
        },
      ),
      { numRuns: numRuns() },
    );
  });

  it("reads each key as its bytes say, also one of the same length and slot as a key read before", () => {
    // `"xa"` and `"x!"`: the same length, bytes 64 apart. `"xa"`, `"yB"` and `"z#"`: the same hash
    // (one more in the first byte, 31 fewer in the second), so three keys for one pair of slots of
    // the key cache, the oldest evicted in turn.
    for (const keys of [
      ["xa", "x!", "xa"],
      ["é", "xa", "x!"],
      ["xa", "yB", "xa", "z#", "yB", "xa", "z#", "z#", "yB"],
    ])
      for (const k of keys) {
        const update = { sessionUpdate: "usage_update", [k]: 1 };
        const b = Buffer.from(
          JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s1", update } }),
        );
        const m = scanMembers(b, 64, TAGS);
        expect(m?.keys.slice(0, m.count)).toEqual(Object.keys(update));
      }
  });

  it("takes a line with nested objects again and again (what one scan saw of their keys is gone with it)", () => {
    const b = Buffer.from(
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"usage_update","_meta":{"a":1,"b":{"a":2}},"x":[{"a":1},{"a":1}]}}}',
    );
    for (let i = 0; i < 3; i++) expect(scanMembers(b, 64, TAGS)?.count).toBe(3);
    expect(keysHeld()).toBe(0);
    // A duplicate key stays refused.
    expect(scanMembers(Buffer.from(b.toString().replace('"b":{"a":2}', '"a":2')), 64, TAGS)).toBeUndefined();
  });

  it("leaves lines nested deeper than the limit to the full path", () => {
    const b = Buffer.from(
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"usage_update","_meta":{"a":{"b":1}}}}}',
    );
    expect(scanMembers(b, 5, TAGS)).toBeDefined();
    expect(scanMembers(b, 4, TAGS)).toBeUndefined();
    expect(scanMembers(b, 64, [])).toBeUndefined();
  });

  it("reads a string member's text as JSON.parse does, escapes and all", () => {
    let taken = 0;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom("title", "toolCallId", "x", "é"), fc.oneof(anyString, value)), {
          maxLength: 4,
        }),
        (ms) => {
          const update: Record<string, unknown> = { sessionUpdate: "usage_update" };
          for (const [k, v] of ms) setOwn(update, k, v);
          const b = Buffer.from(
            JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update } }),
          );
          const m = scanMembers(b, 64, TAGS);
          // (A lone surrogate's escape is left to the full path.)
          if (m === undefined) return;
          taken++;
          for (let k = 0; k < m.count; k++) {
            const v = update[m.keys[k] ?? ""];
            expect(m.text(k)).toBe(typeof v === "string" ? v : undefined);
          }
        },
      ),
      { numRuns: numRuns() * 2 },
    );
    expect(taken).toBeGreaterThan(numRuns());
  });

  it("gives up at a content list the caller declines (the tag elsewhere: such a list anywhere), and takes every other line as without declines", () => {
    const DECLINES = [Buffer.from('{"type":"diff"'), Buffer.from('{"type":"terminal"')];
    const item = fc.oneof(
      fc.constantFrom<unknown>(
        { type: "diff", path: "/a", newText: "x" },
        { type: "terminal", terminalId: "t" },
        { type: "content", content: { type: "text", text: "hi" } },
        { kind: "diff" },
        "diff",
      ),
      anyJson,
    );
    const withContent = fc
      .tuple(fc.array(item, { maxLength: 3 }), fc.nat(2), members, fc.constantFrom("content", "contents", "Content"))
      .map(([content, at, ms, key]) => {
        const entries: [string, unknown][] = ms.filter(([k]) => k !== key);
        entries.splice(Math.min(at, entries.length), 0, [key, content]);
        // Now and then a nested object's list (in a `rawInput`): declined only for a tag elsewhere.
        if (at === 2) entries.unshift(["rawInput", { content: [{ type: "diff" }] }]);
        // The tag last, as Claude's adapter writes a tool call (the scan meets the content first), or first.
        if (at === 1) entries.unshift(["sessionUpdate", "usage_update"]);
        else entries.push(["sessionUpdate", "usage_update"]);
        const update: Record<string, unknown> = {};
        for (const [k, v] of entries) setOwn(update, k, v);
        return Buffer.from(
          JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update } }),
        );
      });
    fc.assert(
      fc.property(fc.oneof(withContent, line), (l) => {
        const plain = scanMembers(l, 64, TAGS, TAGS);
        const count = plain?.count;
        const content = plain === undefined ? -1 : plain.indexOf("content");
        const declined =
          content >= 0 && DECLINES.some((d) => plain?.startsWithBytes(content, Buffer.concat([Buffer.from("["), d])));
        const tagElsewhere = !l.includes('"update":{"sessionUpdate":');
        const anywhere = DECLINES.some((d) => l.includes(Buffer.concat([Buffer.from('"content":['), d])));
        const withDeclines = scanMembers(l, 64, TAGS, TAGS, DECLINES);
        if (declined || (tagElsewhere && anywhere) || plain === undefined) expect(withDeclines).toBeUndefined();
        else expect(withDeclines?.count).toBe(count);
      }),
      { numRuns: numRuns() * 2 },
    );
  });
});
