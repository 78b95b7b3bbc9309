// Direction B's tool-call table keeps a kind as a code of the process's interned values
// (slot-table.ts `codeOf`, 64 at most). Past them, a kind has no code: the entry is kept as its
// object, and the kind is not lost (its own file: the interned values are process state).
import { describe, expect, it } from "vitest";
import { codeOf } from "../../src/engine/slot-table.js";
import { ToolSeenTable } from "../../src/engine/v2-client/state/tool-calls.js";

describe("ToolSeenTable past the interned codes", () => {
  it("keeps a kind that has no code, by set and by patchStrings", () => {
    for (let i = 0; codeOf(`filler-${i}`) !== undefined; i++);
    expect(codeOf("kind-without-code")).toBeUndefined();
    const table = new ToolSeenTable(8);
    table.set("a", { title: "t", kind: "kind-without-code" });
    expect(table.get("a")).toEqual({ title: "t", kind: "kind-without-code" });
    expect(table.patchStrings("b", "t", "kind-without-code")).toBe(false);
    table.set("b", { title: "t" });
    expect(table.patchStrings("b", undefined, "kind-without-code")).toBe(false);
    expect(table.get("b")).toEqual({ title: "t" });
  });
});
