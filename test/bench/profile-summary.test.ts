// The .cpuprofile summary (bench/profile/summary.ts): source maps decoded, frames put in categories.
import { describe, expect, it } from "vitest";
import { categorise, decodeVlq, SourceMap, summarise, type CpuProfile } from "../../bench/profile/summary.js";

describe("the profile summary", () => {
  it("decodes base64 VLQ segments as the source map spec writes them", () => {
    expect(decodeVlq("AAAA")).toEqual([0, 0, 0, 0]);
    expect(decodeVlq("CACC")).toEqual([1, 0, 1, 1]);
    expect(decodeVlq("D")).toEqual([-1]);
    expect(decodeVlq("gB")).toEqual([16]);
  });

  it("maps a generated position to the source of the last segment at or before it", () => {
    // Line 0: column 0 from source 0, column 10 from source 1; line 1: column 4 from source 1 (the
    // source index carries over lines, the column does not).
    const map = new SourceMap({ sources: ["../../src/a.ts", "../../src/b.ts"], mappings: "AAAA,UCAA;IAAA" });
    expect(map.sourceAt(0, 3)).toBe("../../src/a.ts");
    expect(map.sourceAt(0, 12)).toBe("../../src/b.ts");
    expect(map.sourceAt(1, 9)).toBe("../../src/b.ts");
    expect(map.sourceAt(5, 0)).toBeUndefined();
  });

  it("puts the scanners, JSON.parse's and JSON.stringify's callers, the converters and the writer in their categories", () => {
    expect(categorise("src/wire/update-scan.ts", "scanUpdate")).toBe("scanning");
    expect(categorise("src/wire/json-string.ts", "stringEnd")).toBe("scanning");
    expect(categorise("src/engine/bridge.ts", "line")).toBe("parsing");
    expect(categorise("src/wire/envelope.ts", "x")).toBe("parsing");
    expect(categorise("src/engine/link.ts", "write")).toBe("writing");
    expect(categorise("src/wire/writer.ts", "push")).toBe("writing");
    expect(categorise("src/convert/diff.ts", "")).toBe("converting");
    expect(categorise("src/engine/v1-client/updates/index.ts", "renderUpdate")).toBe("converting");
    expect(categorise("src/wire/ndjson.ts", "push")).toBe("framing");
    expect(categorise("node:internal/streams/readable", "push")).toBe("node streams and I/O");
    expect(categorise("", "(garbage collector)")).toBe("garbage collection");
    expect(categorise("", "stringify")).toBe("writing");
  });

  it("sums each sample's time into its frame's category, idle left out", () => {
    const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0, columnNumber: 0 });
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame("(idle)", "") },
        { id: 2, callFrame: frame("scanUpdate", "src/wire/update-scan.ts") },
        { id: 3, callFrame: frame("line", "src/engine/bridge.ts") },
      ],
      samples: [1, 2, 3, 2],
      timeDeltas: [0, 100, 10, 20],
    };
    const s = summarise(profile, (f) => f.url);
    // A sample lasts until the next one; the last, its own delta.
    expect(s.byCategory.get("scanning")).toBe(10 + 20);
    expect(s.byCategory.get("parsing")).toBe(20);
    expect(s.busyUs).toBe(50);
  });
});
