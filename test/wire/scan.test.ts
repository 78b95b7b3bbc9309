// The scan behind the pass-through fast path: whenever it names a notification's method, the full
// path (depth check, JSON.parse, classify, UTF-8 check) reads the line as exactly that notification;
// and it does name the method of ordinary traffic (else the fast path would never fire).
import { isUtf8 } from "node:buffer";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nestsDeeperThan } from "../../src/wire/envelope.js";
import { classify } from "../../src/wire/jsonrpc.js";
import { notificationMethod } from "../../src/wire/scan.js";
import { arb, jsonValue } from "../support/arbitrary.js";
import { numRuns } from "../support/properties.js";

/** What the full path makes of a line: the method of a notification forwarded as its bytes, or undefined. */
function fullPath(line: Buffer, maxDepth: number): string | undefined {
  if (nestsDeeperThan(line, maxDepth) || !isUtf8(line)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line.toString("utf8"));
  } catch {
    return undefined;
  }
  const c = classify(value);
  return c.kind === "notification" ? c.msg.method : undefined;
}

const notification = fc.record({
  jsonrpc: fc.constant("2.0"),
  method: fc.oneof(fc.constantFrom("session/update", "_x/y", "$/cancel_request", "ü/日本"), fc.string()),
  params: fc.oneof(
    arb("v1", "SessionNotification"),
    arb("v2", "UpdateSessionNotification"),
    fc.dictionary(fc.string(), jsonValue),
    fc.array(jsonValue),
  ),
});
const message = fc.oneof(
  notification,
  notification.map(({ jsonrpc, method }) => ({ jsonrpc, method })),
  fc.record({ jsonrpc: fc.constant("2.0"), id: fc.oneof(fc.integer(), fc.string()), method: fc.string() }),
  fc.record({ jsonrpc: fc.constant("2.0"), id: fc.integer(), result: jsonValue }),
  fc.record({ jsonrpc: fc.constant("2.0"), method: fc.string(), params: jsonValue }),
  jsonValue,
);

/** A serialization, as-is or spaced out. */
const text = fc
  .tuple(message, fc.boolean())
  .map(([m, spaced]) => (spaced ? JSON.stringify(m, null, 1).replace(/\n/g, "\t") : JSON.stringify(m)));

/** Byte edits that make lines the scan must refuse or read right: cuts, insertions, swaps. */
const mutated = fc
  .tuple(
    text,
    fc.array(
      fc.tuple(
        fc.nat(),
        fc.constantFrom(
          "",
          '"',
          "\\",
          "{",
          "}",
          "[",
          "]",
          ",",
          ":",
          " ",
          '"id":1,',
          '"method":"x",',
          '"\\u0069d":1,',
          '"jsonrpc":"2.0",',
          '"params":"s",',
          "\u0001",
          "é",
          "01",
          "-",
          "1e",
          "tru",
          "\\u12",
          "\\x",
        ),
        fc.nat({ max: 3 }),
      ),
      { maxLength: 3 },
    ),
    fc.boolean(),
  )
  .map(([t, edits, badByte]) => {
    let s = t;
    for (const [at, insert, cut] of edits) {
      const i = s.length === 0 ? 0 : at % s.length;
      s = s.slice(0, i) + insert + s.slice(i + cut);
    }
    const b = Buffer.from(s);
    // Now and then a byte that is not UTF-8.
    if (badByte && b.length > 0) b[Math.floor(b.length / 2)] = 0xff;
    return b;
  });

describe("notification scan", () => {
  it("names a method only where the full path reads that very notification", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          text.map((t) => Buffer.from(t)),
          mutated,
        ),
        fc.constantFrom(512, 3, 1),
        (line, maxDepth) => {
          const scanned = notificationMethod(line, maxDepth);
          if (scanned !== undefined) expect(fullPath(line, maxDepth)).toBe(scanned);
        },
      ),
      { numRuns: numRuns() * 5 },
    );
  });

  it("names the method of every notification whose method needs no escape", () => {
    const plain = notification.filter((n) => JSON.stringify(n.method) === `"${n.method}"`);
    fc.assert(
      fc.property(plain, fc.boolean(), (n, spaced) => {
        const line = Buffer.from(spaced ? JSON.stringify(n, null, 2).replace(/\n/g, " ") : JSON.stringify(n));
        expect(notificationMethod(line, 512)).toBe(n.method);
      }),
      { numRuns: numRuns() },
    );
  });

  it("leaves to the full path what it cannot prove", () => {
    const cases = [
      '{"jsonrpc":"2.0","method":"a","id":1}', // a request
      '{"jsonrpc":"2.0","method":"a","\\u0069d":1}', // an id spelled with an escape
      '{"jsonrpc":"2.0","method":"a","method":"$/cancel_request"}', // JSON.parse keeps the last
      '{"jsonrpc":"2.0","method":"a","params":"s"}', // invalid params
      '{"jsonrpc":"2.0","method":"a"} x', // trailing bytes
      '{"jsonrpc":"2.0","method":"a","params":{"t":"\u0001"}}', // a raw control character
      '{"jsonrpc":"2.0","method":"a","params":[01]}', // a leading zero
      '{"jsonrpc":"1.0","method":"a"}',
      '{"jsonrpc":"2.0","method":1}',
      '[{"jsonrpc":"2.0","method":"a"}]', // a batch
    ];
    for (const c of cases) expect(notificationMethod(Buffer.from(c), 512), c).toBeUndefined();
    expect(notificationMethod(Buffer.from('{"jsonrpc":"2.0","method":"a","params":[[[1]]]}'), 3)).toBeUndefined();
    expect(notificationMethod(Buffer.from('{"jsonrpc":"2.0","method":"a","params":[[[1]]]}'), 4)).toBe("a");
    const bad = Buffer.from('{"jsonrpc":"2.0","method":"a","params":{"t":"xx"}}');
    bad[bad.indexOf("xx")] = 0xc3; // a truncated two-byte sequence
    expect(notificationMethod(bad, 512)).toBeUndefined();
  });
});
