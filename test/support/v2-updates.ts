// Random but legal v2 agent updates (T §2): the generators the model-based and chain properties share.
// Small id pools, so ids collide across kinds and upserts meet earlier chunks; nulls, unknown
// enum values and extension variants included.
import fc from "fast-check";
import { anyString, arb, fresh } from "./arbitrary.js";

type Obj = Record<string, any>;

// One id of each pool holds a lone surrogate (issue 19: every string field).
export const toolCallId = fc.constantFrom("t1", "t2", "t3", "t\ud800");
const terminalId = fc.constantFrom("term1", "term2", "\udc00");
/** Short texts: mostly tame, now and then any string (lone surrogates, controls, a huge one). */
const someText = fc.oneof({ weight: 4, arbitrary: fc.string({ maxLength: 6 }) }, { weight: 1, arbitrary: anyString });
export const text = (t: string): Obj => ({ type: "text", text: t });

const toolContentItem: fc.Arbitrary<Obj> = fc.oneof(
  { weight: 4, arbitrary: someText.map((t) => ({ type: "content", content: text(t) })) },
  { weight: 2, arbitrary: terminalId.map((id) => ({ type: "terminal", terminalId: id })) },
  {
    weight: 1,
    arbitrary: fresh({
      type: "diff",
      changes: [{ operation: "add", path: "/w/new.txt", fileType: "text" }],
      patch: {
        format: "git_patch",
        text: "diff --git /w/new.txt /w/new.txt\nnew file mode 100644\n--- /dev/null\n+++ /w/new.txt\n@@ -0,0 +1 @@\n+hi\n",
      },
    }),
  },
  { weight: 1, arbitrary: fresh({ type: "_widget", payload: { x: 1 } }) },
  { weight: 1, arbitrary: arb("v2", "ToolCallContent") as fc.Arbitrary<Obj> },
);

/** A v2 tool-call patch: omitted, `null` (reset) or a value per field, unknown kinds and statuses included. */
export const toolPatch: fc.Arbitrary<Obj> = fc.record(
  {
    title: fc.oneof(fc.constantFrom("Run tests", "Edit a.ts", ""), fc.constant(null), anyString),
    name: fc.oneof(fc.constant("shell"), fc.constant(null)),
    kind: fc.constantFrom("read", "edit", "execute", "delete", "_k", "future_kind", null),
    status: fc.constantFrom("pending", "in_progress", "completed", "failed", "cancelled", "paused", "_s", null),
    content: fc.oneof(fc.constant(null), fc.array(toolContentItem, { maxLength: 3 })),
    locations: fc.oneof(fc.constant(null), fresh([]), fresh([{ path: "/w/a.ts", line: 3 }])),
    rawInput: fc.oneof(fc.constant(null), fresh({ command: ["make"] })),
    rawOutput: fc.oneof(fc.constant(null), fresh({ ok: true })),
    capabilities: fc.oneof(fc.constant(null), fresh({ cancel: {} })),
    _meta: fc.oneof(fc.constant(null), fresh({ vendor: 1 })),
  },
  { requiredKeys: [] },
);

const planEntry: fc.Arbitrary<Obj> = fc.record({
  content: fc.oneof(fc.constantFrom("write tests", "fix bug", "日本"), anyString),
  priority: fc.constantFrom("high", "medium", "low", "_urgent"),
  status: fc.constantFrom("pending", "in_progress", "completed", "cancelled", "_blocked"),
});

export const rawUpdate: fc.Arbitrary<Obj> = fc.oneof(
  // Message chunks, with cross-kind id reuse (T §2.1) and non-text blocks now and then.
  {
    weight: 8,
    arbitrary: fc
      .tuple(
        fc.constantFrom("agent_message_chunk", "agent_thought_chunk", "user_message_chunk"),
        fc.constantFrom("m1", "m2", "f1", "m\ud83d"),
        fc.oneof({ weight: 6, arbitrary: someText.map(text) }, { weight: 1, arbitrary: arb("v2", "ContentBlock") }),
      )
      .map(([tag, id, content]) => ({ sessionUpdate: tag, messageId: id, content })),
  },
  {
    weight: 6,
    arbitrary: fc
      .tuple(toolCallId, toolPatch)
      .map(([id, p]) => ({ sessionUpdate: "tool_call_update", toolCallId: id, ...p })),
  },
  {
    weight: 4,
    arbitrary: fc
      .tuple(toolCallId, toolContentItem)
      .map(([id, c]) => ({ sessionUpdate: "tool_call_content_chunk", toolCallId: id, content: c })),
  },
  {
    weight: 3,
    arbitrary: fc.oneof(
      fc
        .tuple(
          terminalId,
          fc.option(fc.constant("cargo test"), { nil: undefined }),
          fc.option(fc.constantFrom({ exitCode: 0 }, { signal: "SIGTERM" }), { nil: undefined }),
        )
        .map(([id, command, exitStatus]) => ({
          sessionUpdate: "terminal_update",
          terminalId: id,
          ...(command !== undefined ? { command, cwd: "/w" } : {}),
          ...(exitStatus !== undefined ? { exitStatus } : {}),
        })),
      fc
        .tuple(terminalId, fc.constantFrom("ok\n", "\u001b[31mred\u001b[0m", "50%\r100%\n", "é", "\ud800\n"))
        .map(([id, s]) => ({
          sessionUpdate: "terminal_output_chunk",
          terminalId: id,
          data: Buffer.from(s).toString("base64"),
        })),
      terminalId.map((id) => ({
        sessionUpdate: "terminal_update",
        terminalId: id,
        output: { data: Buffer.from("reset\n").toString("base64") },
      })),
    ),
  },
  {
    weight: 3,
    arbitrary: fc.oneof(
      {
        weight: 4,
        arbitrary: fc
          .tuple(fc.constantFrom("p1", "p2"), fc.array(planEntry, { maxLength: 3 }))
          .map(([planId, entries]) => ({ sessionUpdate: "plan_update", plan: { type: "items", planId, entries } })),
      },
      {
        weight: 1,
        arbitrary: fresh({ sessionUpdate: "plan_update", plan: { type: "_graph", planId: "g1", nodes: [] } }),
      },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Obj>(
      { sessionUpdate: "_vendor_progress", pct: 10 },
      { sessionUpdate: "future_update", x: [1] },
    ),
  },
  {
    weight: 2,
    arbitrary: (arb("v2", "SessionUpdate") as fc.Arbitrary<Obj>).filter(
      (u) => !["state_update", "user_message", "user_message_chunk"].includes(String(u.sessionUpdate)),
    ),
  },
);
