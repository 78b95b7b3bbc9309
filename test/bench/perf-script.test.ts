// The perf profile summary (bench/profile/perf-script.ts): `perf script`'s samples read, summed per function.
import { describe, expect, it } from "vitest";
import { callersOf, frameName, functionTimes, parsePerfScript } from "../../bench/profile/perf-script.js";

// Three samples as `perf script` prints them (call graphs on), innermost frame first.
const TEXT = [
  "node 101 11317.173417:     250000 cpu-clock:pppH: ",
  "\t          b7ac32 v8::internal::Builtin_JsonStringify+0x72 (/usr/bin/node)",
  "\t    7f19935b08a8 JS:*send file:///p/dist/src/engine/link.js:50:9+0x1c (/tmp/perf-101.map)",
  "\t    7f19935b0000 JS:*fromAgent file:///p/dist/src/engine/bridge.js:402:14+0x80 (/tmp/perf-101.map)",
  "",
  "node 101 11317.173915:     250000 cpu-clock:pppH: ",
  "\t    7f19935b08a8 JS:*send file:///p/dist/src/engine/link.js:50:9+0x10 (/tmp/perf-101.map)",
  "\t    7f19935b0000 JS:*fromAgent file:///p/dist/src/engine/bridge.js:402:14+0x80 (/tmp/perf-101.map)",
  "",
  "node 101 11317.174162:     250000 cpu-clock:pppH: ",
  "\t    7f19935b0100 JS:*walk file:///p/dist/src/x.js:3:1+0x1 (/tmp/perf-101.map)",
  "\t    7f19935b0100 JS:*walk file:///p/dist/src/x.js:3:1+0x9 (/tmp/perf-101.map)",
  "\t    7f19935b0000 JS:*fromAgent file:///p/dist/src/engine/bridge.js:402:14+0x80 (/tmp/perf-101.map)",
  "",
].join("\n");

describe("the perf profile summary", () => {
  it("reads each sample's frames, innermost first, without offsets or objects", () => {
    const stacks = parsePerfScript(TEXT);
    expect(stacks).toHaveLength(3);
    expect(stacks[0]).toEqual([
      "v8::internal::Builtin_JsonStringify",
      "JS:*send file:///p/dist/src/engine/link.js:50:9",
      "JS:*fromAgent file:///p/dist/src/engine/bridge.js:402:14",
    ]);
    // The last sample needs no blank line after it.
    expect(parsePerfScript(TEXT.trimEnd())).toEqual(stacks);
    expect(frameName("copy_to_iter+0x6 ([kernel.kallsyms])")).toBe("copy_to_iter");
  });

  it("counts a function once a sample however deep it recurses, and self time at the top only", () => {
    const times = functionTimes(parsePerfScript(TEXT));
    const of = (name: string) => times.find((t) => t.name.startsWith(name));
    expect(of("JS:*fromAgent")).toMatchObject({ inclusive: 3, self: 0 });
    expect(of("JS:*send")).toMatchObject({ inclusive: 2, self: 1 });
    expect(of("JS:*walk")).toMatchObject({ inclusive: 1, self: 1 });
    expect(of("v8::internal::Builtin_JsonStringify")).toMatchObject({ inclusive: 1, self: 1 });
    expect(times[0]?.name).toMatch(/^JS:\*fromAgent/);
  });

  it("names a native frame's JavaScript callers", () => {
    const stacks = parsePerfScript(TEXT);
    expect(callersOf(stacks, /JsonStringify/, 2)).toEqual([
      {
        callers:
          "JS:*send file:///p/dist/src/engine/link.js:50:9 <- JS:*fromAgent file:///p/dist/src/engine/bridge.js:402:14",
        samples: 1,
      },
    ]);
    // The callers of a recursing function are outside it.
    expect(callersOf(stacks, /walk/)).toEqual([
      { callers: "JS:*fromAgent file:///p/dist/src/engine/bridge.js:402:14", samples: 1 },
    ]);
  });
});
