// The template of `scanUpdate` (src/wire/update-scan.ts): a line whose bytes before and after its
// text are the last proven line's is proven by scanning its text alone. Over streams of real-shaped
// lines (per-token texts, escapes, lone surrogates, invalid UTF-8, other members, edits of the
// envelope), what it proves is exactly what a fresh scan of the line proves: taken or not, every
// member's decoded value, the key orders and where the update closes.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  scanUpdate,
  scanUpdateByTemplate,
  scanUpdateFresh,
  SLOT,
  TEMPLATE_MAX_BYTES,
  type ScannedUpdate,
} from "../../src/wire/update-scan.js";
import { numRuns } from "../support/properties.js";
import { applyRealEdit, realEdit, realText } from "../support/real-traffic.js";

const NAMES: readonly (keyof typeof SLOT)[] = [
  "sessionId",
  "sessionUpdate",
  "messageId",
  "toolCallId",
  "status",
  "title",
  "kind",
  "content.type",
  "content.text",
];

/** Everything a fast path reads of a scan, as plain data. */
function proof(u: ScannedUpdate | undefined): unknown {
  if (u === undefined) return undefined;
  return {
    keys: [...u.keys],
    contentKeys: [...u.contentKeys],
    updateClose: u.updateClose,
    strings: NAMES.map((n) => u.string(SLOT[n])),
    // Splicing reads the slots' byte ranges: the spliced line shows them.
    spliced:
      u.string(SLOT["content.text"]) === undefined
        ? undefined
        : u.splice(SLOT["content.text"], Buffer.from("X")).toString("latin1"),
    last: u.withLastMember(Buffer.from(',"m":1')).toString("latin1"),
  };
}

/** A chunk line: the session, tag, message id and member order of its stream, and its own text. */
const stream = fc.record({
  sessionId: fc.oneof(fc.constantFrom("s", "bench", "sess-\u00e9"), fc.string({ maxLength: 6 })),
  tag: fc.constantFrom("agent_message_chunk", "agent_thought_chunk", "user_message_chunk", "tool_call_update"),
  messageId: fc.oneof(fc.constantFrom("m1", "msg_interop_8-t0-r0"), fc.string({ maxLength: 8 })),
  order: fc.constantFrom("tag-content-id", "tag-id-content", "content-tag", "id-first"),
  typeFirst: fc.boolean(),
});
type Stream = typeof stream extends fc.Arbitrary<infer T> ? T : never;

function chunkLine(s: Stream, text: string): string {
  const content = s.typeFirst ? { type: "text", text } : { text, type: "text" };
  const members: [string, unknown][] =
    s.order === "tag-content-id"
      ? [
          ["sessionUpdate", s.tag],
          ["content", content],
          ["messageId", s.messageId],
        ]
      : s.order === "tag-id-content"
        ? [
            ["sessionUpdate", s.tag],
            ["messageId", s.messageId],
            ["content", content],
          ]
        : s.order === "content-tag"
          ? [
              ["content", content],
              ["sessionUpdate", s.tag],
            ]
          : [
              ["messageId", s.messageId],
              ["sessionUpdate", s.tag],
              ["content", content],
            ];
  const update = Object.fromEntries(members);
  return JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: s.sessionId, update } });
}

/** A message's chunks, plainly written. */
const plainStream: Stream = {
  sessionId: "s",
  tag: "agent_message_chunk",
  messageId: "m1",
  order: "tag-content-id",
  typeFirst: true,
};

/** One line of a stream: mostly its next text, sometimes another stream's line or an edited one. */
const step = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("text" as const), text: realText }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("other" as const), stream, text: realText }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("edit" as const), text: realText, edit: realEdit }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("byte" as const),
      text: realText,
      at: fc.nat(),
      byte: fc.constantFrom(0x22, 0x5c, 0x7d, 0x2c, 0x0a, 0x00, 0x80, 0xff, 0x61),
    }),
  },
);

describe("scanUpdate's template", () => {
  it("proves exactly what a fresh scan proves, line after line", () => {
    fc.assert(
      fc.property(stream, fc.array(step, { minLength: 1, maxLength: 12 }), (first, steps) => {
        let s = first;
        let hits = 0;
        for (const st of steps) {
          if (st.kind === "other") s = st.stream;
          let line: Buffer = Buffer.from(chunkLine(s, st.text));
          if (st.kind === "edit") line = applyRealEdit(line.toString(), st.edit);
          if (st.kind === "byte") {
            line = Buffer.from(line);
            line[st.at % line.length] = st.byte;
          }
          const viaTemplate = proof(scanUpdate(line, 64));
          const fresh = proof(scanUpdateFresh(line, 64));
          expect(viaTemplate).toEqual(fresh);
          if (fresh !== undefined) hits++;
        }
        return hits >= 0;
      }),
      { numRuns: numRuns() * 4 },
    );
  });

  it("proves exactly what a fresh scan proves while several streams interleave", () => {
    fc.assert(
      fc.property(
        fc.array(stream, { minLength: 1, maxLength: 6 }),
        fc.array(fc.record({ pick: fc.nat(), text: realText, edit: fc.option(realEdit, { freq: 5 }) }), {
          minLength: 1,
          maxLength: 24,
        }),
        (streams, steps) => {
          for (const st of steps) {
            const s = streams[st.pick % streams.length] as Stream;
            let line: Buffer = Buffer.from(chunkLine(s, st.text));
            if (st.edit !== null) line = applyRealEdit(line.toString(), st.edit);
            expect(proof(scanUpdate(line, 64))).toEqual(proof(scanUpdateFresh(line, 64)));
          }
        },
      ),
      { numRuns: numRuns() * 2 },
    );
  });

  it("keeps a template for each of four interleaved streams (message chunks with and without an id, thoughts)", () => {
    const base = plainStream;
    const four: Stream[] = [
      base,
      { ...base, order: "content-tag" },
      { ...base, tag: "agent_thought_chunk", messageId: "th1" },
      { ...base, tag: "user_message_chunk", messageId: "u1" },
    ];
    for (const s of four) scanUpdate(Buffer.from(chunkLine(s, "first")), 64);
    // Round after round, each stream's next chunk is proven by its template, without a fresh scan.
    for (let round = 0; round < 3; round++)
      for (const s of four) {
        const text = `chunk ${String(round)} "of" ${s.tag}`;
        expect(scanUpdateByTemplate(Buffer.from(chunkLine(s, text)), 64)?.string(SLOT["content.text"])).toBe(text);
      }
  });

  it("keeps no template of a line longer than TEMPLATE_MAX_BYTES (a copy held until four other texts came)", () => {
    // A shape no other test used: no template of it yet.
    const own: Stream = { ...plainStream, sessionId: "long-lines" };
    const long = "x".repeat(TEMPLATE_MAX_BYTES);
    expect(scanUpdate(Buffer.from(chunkLine(own, long)), 64)?.string(SLOT["content.text"])).toBe(long);
    // The same shape again, long or short: no template fits, the line is scanned afresh.
    expect(scanUpdateByTemplate(Buffer.from(chunkLine(own, `${long}y`)), 64)).toBeUndefined();
    const short = Buffer.from(chunkLine(own, "short"));
    expect(scanUpdateByTemplate(short, 64)).toBeUndefined();
    expect(scanUpdate(short, 64)?.string(SLOT["content.text"])).toBe("short");
    // A short line was kept: its next chunk fits.
    expect(scanUpdateByTemplate(Buffer.from(chunkLine(own, "next")), 64)?.string(SLOT["content.text"])).toBe("next");
  });

  it("takes the next chunk of a stream from the template, and refuses what differs around the text", () => {
    const s = plainStream;
    const a = Buffer.from(chunkLine(s, "first"));
    expect(scanUpdate(a, 64)?.string(SLOT["content.text"])).toBe("first");
    // The text differs in length, holds escapes: the template proves it.
    const b = Buffer.from(chunkLine(s, 'a "quoted"\nline'));
    expect(scanUpdate(b, 64)?.string(SLOT["content.text"])).toBe('a "quoted"\nline');
    expect(scanUpdate(b, 64)?.string(SLOT.messageId)).toBe("m1");
    // Another message id after the text: a fresh scan, with the new id.
    const c = Buffer.from(chunkLine({ ...s, messageId: "m2" }, "x"));
    expect(scanUpdate(c, 64)?.string(SLOT.messageId)).toBe("m2");
    // A non-canonical escape or a raw control character in the text: refused as a fresh scan refuses it.
    expect(scanUpdate(Buffer.from(chunkLine(s, "x").replace('"x"', '"\\u0041"')), 64)).toBeUndefined();
    expect(scanUpdate(Buffer.from(chunkLine(s, "x").replace('"x"', '"\u0001"')), 64)).toBeUndefined();
    // Invalid UTF-8 in the text: refused.
    const bad = Buffer.from(chunkLine(s, "xy"));
    bad[bad.indexOf("xy")] = 0xff;
    expect(scanUpdate(bad, 64)).toBeUndefined();
    // Depth below four: refused before any template.
    expect(scanUpdate(a, 3)).toBeUndefined();
  });
});
