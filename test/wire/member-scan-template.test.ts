// The templates of `scanMembers` (src/wire/member-scan.ts): a line whose bytes from its tag on are
// the template line's but for the digits of its counts is proven without a scan. Over streams of
// real-shaped lines (counts in every JSON spelling, session ids of any length, escapes and non-ASCII
// text, invalid UTF-8, other members, edits anywhere, updates of several tags interleaved), what a
// template proves is exactly what a fresh scan of the line proves.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { scanMembers, scanMembersByTemplate, type ScannedMembers } from "../../src/wire/member-scan.js";
import { anyString } from "../support/arbitrary.js";
import { numRuns } from "../support/properties.js";
import { numberSpelling, realText } from "../support/real-traffic.js";

const TAGS = [Buffer.from("usage_update"), Buffer.from("state_update"), Buffer.from("session_info_update")];
const ANYWHERE = TAGS.slice(2);
const DECLINES = [Buffer.from('{"type":"diff"')];

/** Everything a fast path reads of a scan, as plain data. */
function proof(m: ScannedMembers | undefined): unknown {
  if (m === undefined) return undefined;
  const count = m.count;
  return {
    tag: m.tag,
    tagAt: m.tagAt,
    updateOpen: m.updateOpen,
    sessionId: m.sessionId(),
    keys: m.keys.slice(0, count),
    keyStarts: m.keyStarts.slice(0, count),
    starts: m.starts.slice(0, count),
    ends: m.ends.slice(0, count),
    updateClose: m.updateClose,
    values: Array.from({ length: count }, (_, k) => m.line.subarray(m.starts[k], m.ends[k]).toString("latin1")),
  };
}

/** A count as agents write it, or in another spelling the template must not take for one. */
const count = fc.oneof(
  { weight: 4, arbitrary: fc.nat().map(String) },
  { weight: 2, arbitrary: fc.constantFrom("0", "7", "1000000", "999999999999999") },
  {
    weight: 2,
    arbitrary: fc.constantFrom("1000000000000000", "12345678901234567", "007", "00", "-1", "1.5", "1e3", "1E3", "-0"),
  },
  { weight: 1, arbitrary: numberSpelling },
);

/** A member's raw JSON text: a count, or any other value (strings with escapes, objects, `_meta`). */
const other = fc.oneof(
  realText.map((t) => JSON.stringify(t)),
  fc.constantFrom('{"_claude/model":"claude-interop-mock"}', '{"codex":{"threadStatus":"running"}}', "null", "true"),
  fc.constantFrom('"running"', '"idle"', '"requires_action"', '[{"type":"diff"}]', '{"a":[1,"é",{"b":null}]}'),
);

/** One update kind of a stream: its tag, session id and members (which are counts, which not). */
const shape = fc.record({
  tag: fc.constantFrom("usage_update", "state_update", "session_info_update", "plan_update"),
  sessionId: fc.oneof(fc.constantFrom("bench", "s", "sess-\u00e9", 'q"uote', "\\"), anyString),
  members: fc.array(
    fc.tuple(fc.constantFrom("used", "size", "state", "_meta", "title", "cost", "é", "content"), fc.boolean()),
    {
      maxLength: 4,
    },
  ),
  tagLast: fc.boolean(),
});
type Shape = typeof shape extends fc.Arbitrary<infer T> ? T : never;

/** One line of a shape: its counts and other values drawn anew, now and then its session id, an edit or a bad byte. */
function lineOf(s: Shape): fc.Arbitrary<Buffer> {
  return fc
    .tuple(
      fc.tuple(...s.members.map(([, isCount]) => (isCount ? count : other))),
      fc.oneof({ weight: 5, arbitrary: fc.constant(s.sessionId) }, { weight: 1, arbitrary: anyString }),
      fc.oneof(
        { weight: 6, arbitrary: fc.constant(null) },
        {
          weight: 1,
          arbitrary: fc.tuple(fc.nat(), fc.constantFrom(" ", "}", '"', ",", "\\", "0", "9", "e", ".", "\u00ff")),
        },
      ),
      fc.oneof({ weight: 8, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.nat() }),
    )
    .map(([values, sessionId, edit, bad]) => {
      const members = s.members.map(([key], k) => `${JSON.stringify(key)}:${values[k] ?? "0"}`);
      const tag = `"sessionUpdate":${JSON.stringify(s.tag)}`;
      const update = (s.tagLast ? [...members, tag] : [tag, ...members]).join(",");
      let text = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":${JSON.stringify(sessionId)},"update":{${update}}}}`;
      if (edit !== null) {
        const at = edit[0] % text.length;
        text = text.slice(0, at) + edit[1] + text.slice(at + 1);
      }
      const b = Buffer.from(text);
      if (bad !== null) b[bad % b.length] = 0xff;
      return b;
    });
}

/** Lines of a few shapes, interleaved as an agent interleaves its updates. */
const stream = fc
  .array(shape, { minLength: 1, maxLength: 3 })
  .chain((shapes) => fc.array(fc.oneof(...shapes.map(lineOf)), { minLength: 1, maxLength: 30 }));

/** A template's proof of each line, where one fits, against a fresh scan's; a line no template fits becomes one. */
function replay(lines: readonly Buffer[], maxDepth = 64): { fits: number } {
  let fits = 0;
  for (const line of lines) {
    const byTemplate = proof(scanMembersByTemplate(line, maxDepth, TAGS, ANYWHERE, DECLINES));
    const fresh = proof(scanMembers(line, maxDepth, TAGS, ANYWHERE, DECLINES, byTemplate === undefined));
    if (byTemplate === undefined) continue;
    fits++;
    expect(byTemplate).toEqual(fresh);
  }
  return { fits };
}

describe("scanMembers' templates", () => {
  it("prove exactly what a fresh scan proves, over streams of real-shaped lines", () => {
    let fits = 0;
    fc.assert(
      fc.property(stream, (lines) => {
        fits += replay(lines).fits;
      }),
      { numRuns: numRuns() },
    );
    // Not vacuous: the random streams fit templates often (their counts change, their bytes mostly not).
    expect(fits).toBeGreaterThan(0);
  });

  it("fit a usage update again whatever its counts' lengths, and nothing of another spelling, tag or question", () => {
    const usage = (used: string, size = "1000000", sessionId = "bench") =>
      Buffer.from(
        `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"${sessionId}","update":{"sessionUpdate":"usage_update","used":${used},"size":${size},"_meta":{"_claude/model":"m"}}}}`,
      );
    // No template of the test before (its random streams may have kept this very state update): a
    // line kept under another question drops them.
    scanMembers(usage("1"), 64, [...TAGS], ANYWHERE, DECLINES, true);
    // The first is scanned and kept; the others fit it, counts longer and shorter, another session id.
    expect(
      replay([usage("121"), usage("9"), usage("123456789012345", "0"), usage("7", "15", "another-session")]),
    ).toEqual({
      fits: 3,
    });
    for (const spelling of ["1.0", "1e3", "-1", "007", "1234567890123456"])
      expect(scanMembersByTemplate(usage(spelling), 64, TAGS, ANYWHERE, DECLINES)).toBeUndefined();
    // Another question (depth, tags) is not the template's.
    expect(scanMembersByTemplate(usage("5"), 63, TAGS, ANYWHERE, DECLINES)).toBeUndefined();
    expect(scanMembersByTemplate(usage("5"), 64, [...TAGS], ANYWHERE, DECLINES)).toBeUndefined();
    // A state update fits a template of its own, not the usage one.
    const state = Buffer.from(
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"bench","update":{"sessionUpdate":"state_update","state":"running"}}}',
    );
    expect(scanMembersByTemplate(state, 64, TAGS, ANYWHERE, DECLINES)).toBeUndefined();
    expect(replay([state, state, usage("3")])).toEqual({ fits: 2 });
  });
});
