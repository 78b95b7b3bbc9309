// The V8 flags a bridge sets on itself (src/v8-tuning.ts): each is one this node knows (a flag a
// later V8 dropped would only print an error and tune nothing), and one node was started with wins.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { V8_FLAGS, tuneV8 } from "../src/v8-tuning.js";

describe("V8 tuning", () => {
  it("sets only flags this node's V8 knows", () => {
    const known = execFileSync(process.execPath, ["--v8-options"], { encoding: "utf8" });
    for (const f of V8_FLAGS) expect(known).toContain(`  ${f.split("=")[0] ?? ""} (`);
  });

  it("leaves a flag node was started with to node, spelled either way", () => {
    const name = (V8_FLAGS[0] ?? "").split("=")[0] ?? "";
    expect(tuneV8([`${name}=920`])).toEqual([]);
    expect(tuneV8([name.replace(/-/g, "_").replace(/^__/, "--")])).toEqual([]);
    expect(tuneV8(["--inspect"])).toEqual(V8_FLAGS);
  });
});
