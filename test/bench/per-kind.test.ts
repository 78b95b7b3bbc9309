// The kinds `in-process.ts --per-kind` times lines by, and its table.
import { describe, expect, it } from "vitest";
import { KindTimes, lineKind } from "../../bench/per-kind.js";

const line = (update: unknown) =>
  JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update } });

describe("lineKind", () => {
  it("names an update by its tag, content item types, status and raw members", () => {
    expect(lineKind(line({ sessionUpdate: "usage_update", used: 1, size: 2 }))).toBe("usage_update");
    expect(
      lineKind(
        line({
          sessionUpdate: "tool_call_update",
          toolCallId: "t",
          status: "completed",
          content: [{ type: "content", content: { type: "text", text: "x" } }, { type: "diff" }],
          rawInput: {},
          rawOutput: null,
        }),
      ),
    ).toBe("tool_call_update[content/text,diff]/completed+ri+ro");
    expect(lineKind(line({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" } }))).toBe(
      "agent_message_chunk<text>",
    );
  });

  it("names what is not an update as such", () => {
    expect(lineKind("{")).toBe("(not JSON)");
    expect(lineKind('{"jsonrpc":"2.0","id":1,"result":{}}')).toBe("(no update)");
    expect(lineKind(line({ content: [] }))).toBe("(no tag)[]");
  });
});

describe("KindTimes", () => {
  it("tabulates µs a line per kind, the largest excess over parse+stringify first", () => {
    const t = new KindTimes();
    t.add("a", 1000, 3000);
    t.add("b", 9000, 1000, true);
    t.add("b", 7000, 1000);
    t.add("a", 1000, 3000);
    const rows = t.table().trim().split("\n");
    expect(rows[0]).toContain("| kind |");
    // b: half the lines, 8 µs against 1: 14 µs of excess over 4 lines, 3,500 per 1,000.
    expect(rows[2]).toBe("| b | 50.0% | 50% | 8.00 | 1.00 | 3500 |");
    expect(rows[3]).toBe("| a | 50.0% | 0% | 1.00 | 3.00 | -1000 |");
    expect(t.table(1).trim().split("\n")).toHaveLength(3);
  });

  it("splits the lines and the bridge's time between the fast paths and the full path", () => {
    const t = new KindTimes();
    t.add("a", 1000, 3000);
    t.add("a", 1000, 3000);
    t.add("b", 9000, 1000, true);
    t.add("b", 7000, 1000);
    const rows = t.paths().trim().split("\n");
    expect(rows[0]).toContain("| path |");
    // Three lines took 9 µs of 18 on a fast path; one took 9 on the full path.
    expect(rows[2]).toBe("| a fast path | 75.0% | 50.0% | 3.00 | 2.33 |");
    expect(rows[3]).toBe("| the full path | 25.0% | 50.0% | 9.00 | 1.00 |");
  });
});
