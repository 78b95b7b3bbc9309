// NDJSON framing: how bytes become lines, whatever the reads look like.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Envelope } from "../../src/wire/envelope.js";
import { LineSplitter } from "../../src/wire/ndjson.js";
import { numRuns } from "../support/properties.js";

function split(chunks: Buffer[], max = 1 << 20) {
  const lines: string[] = [];
  const over: { bytes: number; envelope: Envelope }[] = [];
  const s = new LineSplitter(max, {
    line: (b) => lines.push(b.toString("utf8")),
    oversize: (i) => over.push(i),
  });
  for (const c of chunks) s.push(c);
  s.end();
  return { lines, over };
}

/** `text` cut into reads at the offsets `cuts` (modulo its length). */
function cut(text: Buffer, cuts: readonly number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => (text.length === 0 ? 0 : c % text.length)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let at = 0;
  for (const p of points) {
    chunks.push(text.subarray(at, p));
    at = p;
  }
  chunks.push(text.subarray(at));
  return chunks;
}

describe("NDJSON framing", () => {
  it("splits on LF, strips a trailing CR and skips blank lines", () => {
    expect(split([Buffer.from('{"a":1}\r\n\n  \r\n{"b":2}\n')]).lines).toEqual(['{"a":1}', '{"b":2}']);
  });

  it("keeps a final line that has no newline", () => {
    expect(split([Buffer.from('{"a":1}\n{"b":')], 100).lines).toEqual(['{"a":1}', '{"b":']);
  });

  it("reassembles a UTF-8 character split across reads", () => {
    const bytes = Buffer.from('{"t":"é😀"}\n');
    expect(split([bytes.subarray(0, 8), bytes.subarray(8, 9), bytes.subarray(9)]).lines).toEqual(['{"t":"é😀"}']);
  });

  it("discards a line over the limit, reports what it was, and goes on with the next", () => {
    const big = `{"jsonrpc":"2.0","id":7,"method":"x","params":"${"a".repeat(200)}"}`;
    const { lines, over } = split([Buffer.from(big.slice(0, 50)), Buffer.from(big.slice(50) + '\n{"ok":1}\n')], 100);
    expect(lines).toEqual(['{"ok":1}']);
    expect(over).toHaveLength(1);
    expect(over[0]!.bytes).toBe(big.length);
    expect(over[0]!.envelope).toEqual({ kind: "request", id: 7 });
  });

  it("gives the same lines however the bytes are chunked", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc
            .string({ unit: "grapheme", maxLength: 20 })
            .filter((s) => !s.includes("\n") && s.trim() !== "" && !s.endsWith("\r")),
          {
            maxLength: 8,
          },
        ),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.boolean(),
        (lines, cuts, crlf) => {
          const text = Buffer.from(lines.map((l) => l + (crlf ? "\r\n" : "\n")).join(""));
          const chunks = cut(text, cuts);
          expect(split(chunks).lines).toEqual(lines);
        },
      ),
      { numRuns: numRuns() },
    );
  });

  it("with blank and oversize lines too, gives what a line-by-line reading gives, however chunked", () => {
    const max = 16;
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string({ maxLength: 24 }).filter((s) => !s.includes("\n")),
            fc.constantFrom("", " ", "\t \r", '{"a":1}', "{" + "x".repeat(20)),
          ),
          { maxLength: 10 },
        ),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.boolean(),
        (raw, cuts, crlf) => {
          const rows = raw.map((l) => l + (crlf ? "\r" : ""));
          const text = Buffer.from(rows.map((l) => l + "\n").join(""));
          // The model: each row alone; the limit counts its bytes before a trailing CR is cut.
          const want = { lines: [] as string[], over: [] as number[] };
          for (const r of rows) {
            const bytes = Buffer.byteLength(r);
            if (bytes > max) want.over.push(bytes);
            else {
              const line = r.endsWith("\r") ? r.slice(0, -1) : r;
              if (!/^[ \t\r]*$/.test(line)) want.lines.push(line);
            }
          }
          const chunks = cut(text, cuts);
          const got = split(chunks, max);
          expect(got.lines).toEqual(want.lines);
          expect(got.over.map((o) => o.bytes)).toEqual(want.over);
        },
      ),
      { numRuns: numRuns() },
    );
  });

  it("finds the id of an oversize request even when it comes after megabytes of params", () => {
    const big = `{"jsonrpc":"2.0","method":"x","params":{"t":"${"a".repeat(3 << 20)}"},"id":"late"}`;
    const { over } = split([Buffer.from(big + "\n")], 1 << 20);
    expect(over[0]!.envelope).toEqual({ kind: "request", id: "late" });
  });
});
