// The command-list scans (src/wire/commands-scan.ts) remember the last list they proved: a line
// whose bytes after its session id are the remembered ones is answered from memory. Whatever a
// stream of lines gets that way must be what a fresh scan of each line gives (a scan is a pure
// function of the bytes), for lines that repeat a list under other session ids (escaped,
// non-ASCII, invalid UTF-8) and lines that differ from it by a byte, a length or a tail; and the
// memory must answer some of them (not a vacuous proof).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  forgetLists,
  listsRecalled,
  scanCommands,
  scanV2Commands,
  type ScannedCommands,
} from "../../src/wire/commands-scan.js";
import { numRuns } from "../support/properties.js";

const text = fc.oneof(
  fc.constantFrom("review", "Deep research — fan-out", 'say "hi"', "a\\b", "line\nbreak", "é🙂", ""),
  fc.string({ maxLength: 12, unit: "binary" }),
);
/** A command of either version's adapters' shape, members in the order given. */
const command = (v2: boolean) =>
  fc.tuple(text, text, fc.option(text), fc.boolean()).map(([name, description, hint, inputFirst]) => {
    const input = hint === null ? {} : { input: { ...(v2 ? { type: "text" } : {}), hint } };
    const head = v2 ? { type: "command" } : {};
    return inputFirst ? { ...input, ...head, name, description } : { ...head, name, description, ...input };
  });
const list = (v2: boolean) => fc.array(command(v2), { maxLength: 4 });

/** Session ids as agents write them, and as the scans must refuse or decode them. */
const sessionId = fc.oneof(
  fc.constantFrom("s1", "s2", "sess-0", "é", 'q"x', "tab\t", "\ud800", ""),
  fc.string({ maxLength: 6, unit: "binary" }),
);

function lineOf(id: string, commands: unknown[]): Buffer {
  return Buffer.from(
    JSON.stringify({
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId: id, update: { sessionUpdate: "available_commands_update", availableCommands: commands } },
    }),
  );
}

/** A byte edit of a line: in the id, in the list, at its end, or none. */
const edit = fc.oneof(
  { weight: 4, arbitrary: fc.constant(null) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.nat(), fc.constantFrom(0xff, 0x20, 0x22, 0x5c, 0x41, 0xc3, 0x7d, -1, -2)),
  },
);

function edited(bytes: Buffer, e: [number, number] | null): Buffer {
  if (e === null) return bytes;
  const at = e[0] % bytes.length;
  // -1 drops a byte, -2 doubles it; else the byte is replaced.
  if (e[1] === -1) return Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)]);
  if (e[1] === -2) return Buffer.concat([bytes.subarray(0, at + 1), bytes.subarray(at)]);
  const out = Buffer.from(bytes);
  out[at] = e[1];
  return out;
}

/** What a result is, in bytes: the session id, the output line, the list within it. */
function shape(r: ScannedCommands | undefined): unknown {
  return r === undefined
    ? undefined
    : { sessionId: r.sessionId, out: r.out.toString("latin1"), list: r.list.toString("latin1") };
}

describe.each([
  ["v2 lists toward v1 (scanV2Commands)", true, scanV2Commands],
  ["v1 lists toward v2 (scanCommands)", false, scanCommands],
] as const)("%s", (_name, v2, scan) => {
  it("answers a repeated list from memory exactly as a fresh scan answers it", () => {
    const before = listsRecalled();
    fc.assert(
      fc.property(
        fc.array(list(v2), { minLength: 1, maxLength: 6 }),
        // Each line's own nesting limit: bridges of other `--max-depth` share the memory.
        fc.array(fc.tuple(fc.nat(), sessionId, edit, fc.constantFrom(64, 64, 6, 5)), { minLength: 1, maxLength: 10 }),
        (lists, picks) => {
          forgetLists();
          const lines = picks.map(([k, id, e]) => edited(lineOf(id, lists[k % lists.length] ?? []), e));
          const depth = (k: number) => picks[k]?.[3] ?? 64;
          const streamed = lines.map((l, k) => shape(scan(l, depth(k))));
          const fresh = lines.map((l, k) => {
            forgetLists();
            return shape(scan(l, depth(k)));
          });
          expect(streamed).toEqual(fresh);
          // A remembered output is the bytes JSON.stringify writes for it: the line parses.
          for (const [k, r] of streamed.entries())
            if (r !== undefined) expect(() => JSON.parse(String(lines[k]))).not.toThrow();
        },
      ),
      { numRuns: numRuns() * 4 },
    );
    expect(listsRecalled() - before).toBeGreaterThan(numRuns());
  });

  it("does not keep the line it read: a reused read buffer does not change what it remembers", () => {
    forgetLists();
    const chunk = Buffer.from(
      lineOf("s1", [v2 ? { type: "command", name: "a", description: "b" } : { name: "a", description: "b" }]),
    );
    const first = shape(scan(chunk, 64));
    chunk.fill(0x20);
    const again = lineOf("s2", [
      v2 ? { type: "command", name: "a", description: "b" } : { name: "a", description: "b" },
    ]);
    const before = listsRecalled();
    const r = scan(again, 64);
    expect(listsRecalled()).toBe(before + 1);
    expect(first).toBeDefined();
    expect(r?.sessionId).toBe("s2");
    forgetLists();
    expect(shape(r)).toEqual(shape(scan(again, 64)));
  });
});
