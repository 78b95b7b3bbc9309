// `ScannedUpdate.is` (src/wire/update-scan.ts): a member compared with a `Literal` as bytes says
// what comparing its decoded value says, escapes and non-ASCII included (a scanned string is
// canonical, and the canonical form of a string is unique). Its splices leave a newline after the
// line in memory (wire/writer.ts `allocLine`).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Literal, SLOT, scanUpdate } from "../../src/wire/update-scan.js";
import { numRuns } from "../support/properties.js";

function scanned(tag: string, type: string) {
  const update = { sessionUpdate: tag, content: { type, text: "x" } };
  const line = JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update } });
  return scanUpdate(Buffer.from(line), 64);
}

const value = fc.oneof(
  fc.constantFrom("agent_message_chunk", "agent_message_chunk ", "agent_thought_chunk", "text", "", 'q"', "a\nb"),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: "grapheme", maxLength: 4 }),
);

describe("ScannedUpdate.is", () => {
  it("agrees with the decoded value for any pair of strings", () => {
    fc.assert(
      fc.property(value, value, (a, b) => {
        const u = scanned(a, b);
        // Lone surrogates are escaped as `\ud800`, which the scan does not take.
        fc.pre(u !== undefined);
        expect(u?.is(SLOT.sessionUpdate, new Literal(b))).toBe(a === b);
        expect(u?.is(SLOT["content.type"], new Literal(a))).toBe(a === b);
        expect(u?.is(SLOT.messageId, new Literal(a))).toBe(false);
      }),
      { numRuns: numRuns() },
    );
  });
});

describe("ScannedUpdate splices", () => {
  it("builds a spliced line with its newline after it in memory, for the writer to write as it lies", () => {
    const u = scanned("tool_call_update", "text");
    const spliced = [u!.splice(SLOT.sessionUpdate, Buffer.from("tool_call")), u!.withLastMember(Buffer.from(',"x":1'))];
    for (const line of spliced) {
      expect(JSON.parse(line.toString())).toBeTypeOf("object");
      expect(Buffer.from(line.buffer, line.byteOffset, line.length + 1).at(-1)).toBe(0x0a);
    }
  });
});
