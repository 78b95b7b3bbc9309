// The rests of long update lines pass-through proved (src/wire/proven-rests.ts): a line it takes
// again is one JSON.parse reads as a `session/update` notification nested exactly as deep as the
// remembered one, whatever its session id's bytes; any other byte changed, and it is not taken.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ProvenRests } from "../../src/wire/proven-rests.js";
import { nestsDeeperThan } from "../../src/wire/envelope.js";
import { numRuns } from "../support/properties.js";
import { realText } from "../support/real-traffic.js";

const MIN = 200;

/** A long update as an agent writes it: a command list of real-looking text, nested a varying depth. */
const body = fc
  .tuple(
    fc.array(fc.record({ name: fc.string({ maxLength: 8 }), description: realText }), { minLength: 1, maxLength: 4 }),
    fc.nat({ max: 4 }),
  )
  .map(([commands, depth]) => {
    let meta: unknown = { long: "x".repeat(MIN) };
    for (let k = 0; k < depth; k++) meta = { k: [meta] };
    return { sessionUpdate: "available_commands_update", availableCommands: commands, _meta: meta };
  });

/** Session ids as bytes: plain, escaped, non-ASCII, and ones JSON or UTF-8 refuse. */
const sessionId = fc.constantFrom(
  '"s"',
  '"another-session"',
  '"\\u0041\\n"',
  '"ü"',
  '"\\x"',
  '"a\u0001"',
  "7",
  "null",
  '"\\"',
);

function lineOf(id: string, update: unknown): Buffer {
  return Buffer.from(
    `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":${id},"update":${JSON.stringify(update)}}}`,
  );
}

/** What JSON.parse makes of the line: a session/update notification, or nothing. */
function parsedUpdate(line: Buffer): unknown {
  try {
    const v = JSON.parse(line.toString("utf8")) as { method?: unknown; params?: { update?: unknown } };
    return v.method === "session/update" ? v.params?.update : undefined;
  } catch {
    return undefined;
  }
}

describe("proven update rests", () => {
  it("take a remembered line under any valid session id, and prove what the full path would parse", () => {
    fc.assert(
      fc.property(
        body,
        sessionId,
        sessionId,
        fc.option(fc.tuple(fc.nat(), fc.constantFrom("}", '"', "x", "\u00ff"))),
        (u, id1, id2, edit) => {
          const rests = new ProvenRests(4, MIN, 64 * 1024);
          const first = lineOf('"s"', u);
          rests.remember(first);
          let again = lineOf(id2, u);
          if (edit !== null) {
            const s = again.toString("latin1");
            const at = edit[0] % s.length;
            again = Buffer.from(s.slice(0, at) + edit[1] + s.slice(at + 1), "latin1");
          }
          const taken = rests.proves(again);
          if (taken) {
            // Sound: the line parses to the same update, as deep as the proven one at every limit.
            expect(parsedUpdate(again)).toEqual(u);
            for (let d = 1; d < 12; d++) expect(nestsDeeperThan(again, d)).toBe(nestsDeeperThan(first, d));
          }
          // Complete where it means to be: the same update under an id JSON reads as a string is taken.
          if (edit === null && typeof parsedSessionId(id2) === "string") expect(taken).toBe(true);
          // A line the full path would parse and forward (a string id) proves itself again once remembered.
          const under = lineOf(id1, u);
          if (typeof parsedSessionId(id1) === "string" && parsedUpdate(under) !== undefined) {
            const other = new ProvenRests(4, MIN, 64 * 1024);
            other.remember(under);
            expect(other.proves(under)).toBe(true);
          }
        },
      ),
      { numRuns: numRuns() * 3 },
    );
  });

  it("keeps the last rests used, and none too short or too long", () => {
    const lines = [0, 1, 2, 3, 4].map((k) =>
      lineOf('"s"', { sessionUpdate: "plan", entries: [], pad: "p".repeat(300 + k) }),
    );
    const rests = new ProvenRests(4, MIN, 64 * 1024);
    for (const l of lines.slice(0, 4)) rests.remember(l);
    expect(rests.proves(lines[0]!)).toBe(true); // used: now the most recent
    rests.remember(lines[4]!); // forgets the least recently used, lines[1]
    expect(lines.map((l) => rests.proves(l))).toEqual([true, false, true, true, true]);
    const short = lineOf('"s"', { sessionUpdate: "plan", entries: [] });
    const long = lineOf('"s"', { sessionUpdate: "plan", entries: [], pad: "p".repeat(2000) });
    const small = new ProvenRests(4, MIN, 1000);
    small.remember(short);
    small.remember(long);
    expect([small.proves(short), small.proves(long)]).toEqual([false, false]);
    // Invalid UTF-8 is never remembered: the full path re-serializes such a line.
    const bad = Buffer.concat([
      lineOf('"s"', { sessionUpdate: "plan", pad: "p".repeat(300) }).subarray(0, -3),
      Buffer.from([0xff]),
      Buffer.from('"}}'),
    ]);
    small.remember(bad);
    expect(small.proves(bad)).toBe(false);
  });
});

/** The session id's value as JSON reads it, or undefined. */
function parsedSessionId(id: string): unknown {
  try {
    return JSON.parse(id) as unknown;
  } catch {
    return undefined;
  }
}
