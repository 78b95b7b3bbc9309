// The hot path forwards a plain text chunk's original bytes; it must give exactly what the full
// conversion gives (docs/decisions.md#performance-budget), for any stream of chunks.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SessionA } from "../../src/engine/v1-client/session.js";
import { updateToV1, type UpdateContext } from "../../src/engine/v1-client/updates/index.js";
import type { Outgoing } from "../../src/engine/outgoing.js";
import { silentLogger } from "../support/log.js";
import { numRuns, options } from "../support/properties.js";

const context: UpdateContext = {
  opts: options("compact"),
  flags: { booleanOptions: false, notices: false, compaction: false, plan: false, bridgePeer: false },
  log: silentLogger,
  diffRendering: "safe",
  redactionNotice: true,
  flushMs: 0,
  terminalFlushMs: 0,
  terminalMaxBytes: 1024,
  write: () => undefined,
};

/** What the client would read of the messages returned. */
function wire(out: readonly Outgoing[]): unknown[] {
  return out.map((o) => {
    if (o.kind === "raw") return JSON.parse(o.line.toString("utf8"));
    if (o.kind === "notify") return { jsonrpc: "2.0", method: o.method, params: o.params };
    throw new Error(`unexpected ${o.kind}`);
  });
}

const session = () =>
  new SessionA("s", {
    idleSettleMs: 10,
    connection: { agentReportsBusy: true },
    forwardPromptEcho: true,
    write: () => undefined,
    log: silentLogger,
  });

const chunk = fc.record({
  tag: fc.constantFrom("agent_message_chunk", "agent_thought_chunk", "user_message_chunk", "agent_message"),
  id: fc.constantFrom("m1", "m2", "m3"),
  text: fc.string({ maxLength: 8 }),
  meta: fc.boolean(),
});

describe("direction A fast path (performance budget)", () => {
  it("forwards exactly what the full conversion would send, and leaves the same state", () => {
    fc.assert(
      fc.property(fc.array(chunk, { maxLength: 12 }), (chunks) => {
        const fast: unknown[] = [];
        const full: unknown[] = [];
        const a = session();
        const b = session();
        for (const c of chunks) {
          const update =
            c.tag === "agent_message"
              ? { sessionUpdate: c.tag, messageId: c.id, content: [{ type: "text", text: c.text }] }
              : { sessionUpdate: c.tag, messageId: c.id, content: { type: "text", text: c.text } };
          const params: Record<string, unknown> = c.meta
            ? { sessionId: "s", update, _meta: { x: 1 } }
            : { sessionId: "s", update };
          const msg = { jsonrpc: "2.0", method: "session/update", params };
          fast.push(...wire(updateToV1(a, params, { line: Buffer.from(JSON.stringify(msg)), msg }, context)));
          const before = full.length;
          full.push(...wire(updateToV1(b, params, undefined, context)));
          // The notification's `_meta` rides on everything emitted for it (H §7.5).
          if (c.meta)
            for (const m of full.slice(before))
              expect((m as { params: { _meta?: unknown } }).params._meta).toEqual({ x: 1 });
        }
        expect(fast).toEqual(full);
        expect(a.sent.toJSON()).toEqual(b.sent.toJSON());
      }),
      { numRuns: numRuns() },
    );
  });
});
