// The real-traffic spellings the fast-path properties use (test/support/real-traffic.ts) mean what
// they say: each edit that keeps a line valid keeps its meaning (or adds only what it names), so a
// fast path that differs on them from the full path is a fast-path bug, not a generator's.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyRealEdit, numberSpelling, realText } from "../support/real-traffic.js";
import { numRuns } from "../support/properties.js";

const lineOf = (text: string) =>
  JSON.stringify({
    jsonrpc: "2.0",
    method: "session/update",
    params: { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } },
  });

describe("real-traffic line edits", () => {
  it("keep the message (spelling-only edits), or add exactly what they name", () => {
    fc.assert(
      fc.property(realText, numberSpelling, (text, n) => {
        const line = lineOf(text);
        const same = JSON.parse(line);
        for (const e of ["key-order", "whitespace", "escape-every-char"])
          expect(JSON.parse(applyRealEdit(line, e, n).toString("utf8"))).toEqual(same);
        const pair = JSON.parse(applyRealEdit(line, "surrogate-pair-escape", n).toString("utf8"));
        expect(pair.params.update.content.text).toBe(`\u{1f600}${text}`);
        const lone = JSON.parse(applyRealEdit(line, "lone-surrogate-escape", n).toString("utf8"));
        expect(lone.params.update.content.text).toBe(`\udc00${text}`);
        const num = JSON.parse(applyRealEdit(line, "number-forms", n).toString("utf8"));
        expect(num.params.n).toBe(JSON.parse(n));
        const inUpdate = JSON.parse(applyRealEdit(line, "update-number-forms", n).toString("utf8"));
        expect(inUpdate.params.update).toEqual({ ...same.params.update, n: JSON.parse(n), m: { k: [JSON.parse(n)] } });
        const meta = JSON.parse(applyRealEdit(line, "update-meta", n).toString("utf8"));
        expect(meta.params.update._meta).toEqual({ trace: "x" });
        expect(applyRealEdit(line, "invalid-utf8", n).includes(Buffer.from([0xc3, 0x28, 0xff]))).toBe(true);
      }),
      { numRuns: numRuns() },
    );
  });
});
