// The `--report` collector: counts only, bounded whatever the session's length.
import { describe, expect, it } from "vitest";
import { OTHER, ReportCollector } from "../../src/report/collector.js";

/** The collector's bounds (README, "Reporting what the bridge did"). */
const MAX_KEYS = 256;
const EXAMPLE_MAX_CHARS = 300;

const note = (method: string, params: unknown = {}) => ({ jsonrpc: "2.0", method, params });

describe("ReportCollector", () => {
  it("keeps at most 256 methods, then counts the rest in one (other) row", () => {
    const c = new ReportCollector();
    for (let i = 0; i < 10_000; i++) c.onReceive("client", note(`_ext/method-${String(i)}`));
    const d = c.data();
    expect(d.kinds).toHaveLength(MAX_KEYS + 1);
    expect(d.kinds.at(-1)).toEqual({
      kind: OTHER,
      fromClient: 10_000 - MAX_KEYS,
      toAgent: 0,
      fromAgent: 0,
      toClient: 0,
    });
    expect(d.capped).toEqual(["messages"]);
    expect(d.received.client).toBe(10_000);
  });

  it("keeps at most 256 loss kinds and emulations, and cuts every example to 300 characters", () => {
    const c = new ReportCollector();
    // Redacted, still long: 16 members of 40-character keys.
    const huge = {
      nested: Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`${"k".repeat(38)}${String(i)}`, i])),
    };
    for (let i = 0; i < 1000; i++) {
      c.lost("session/update:plan_update", "agent", [{ path: ["nested"], reason: `reason ${String(i)}` }], huge);
      c.emulated("session/list", `how ${String(i)}`);
    }
    const d = c.data();
    expect(d.losses).toHaveLength(MAX_KEYS + 1);
    expect(d.losses[0]?.count).toBe(1000 - MAX_KEYS); // the (other) row, sorted first by its count
    expect(d.losses[0]?.reason).toBe(OTHER);
    for (const l of d.losses) expect(l.example.length).toBeLessThanOrEqual(EXAMPLE_MAX_CHARS + 1);
    expect(d.losses.find((l) => l.reason === "reason 0")?.example).toHaveLength(EXAMPLE_MAX_CHARS + 1);
    expect(d.emulations).toHaveLength(MAX_KEYS + 1);
    expect(d.capped).toEqual(["losses", "emulations"]);
  });

  it("groups losses by direction, message, path with array indices as *, and reason", () => {
    const c = new ReportCollector();
    const src = {
      content: [
        { type: "terminal", terminalId: "t-secret" },
        { type: "terminal", terminalId: "t2" },
      ],
    };
    c.lost(
      "session/update:tool_call_update",
      "agent",
      [{ path: ["content", 0, "terminalId"], reason: "no v1 form" }],
      src,
    );
    c.lost(
      "session/update:tool_call_update",
      "agent",
      [{ path: ["content", 1, "terminalId"], reason: "no v1 form" }],
      src,
    );
    c.lost("session/prompt", "client", [{ path: ["content", 1, "terminalId"], reason: "no v1 form" }], src);
    expect(c.data().losses).toEqual([
      {
        direction: "agent→client",
        message: "session/update:tool_call_update",
        path: "content.*.terminalId",
        reason: "no v1 form",
        count: 2,
        example: '"…(8 chars)"',
      },
      {
        direction: "client→agent",
        message: "session/prompt",
        path: "content.*.terminalId",
        reason: "no v1 form",
        count: 1,
        example: '"…(2 chars)"',
      },
    ]);
    c.lost("session/update:_x", "agent", [{ path: [], reason: "dropped" }], { sessionUpdate: "_x" });
    expect(c.data().losses.at(-1)).toMatchObject({ path: "(the whole message)", example: '{"sessionUpdate":"_x"}' });
  });

  it("names the method an answer answers, in each direction", () => {
    const c = new ReportCollector();
    c.onReceive("client", { jsonrpc: "2.0", id: 1, method: "session/new", params: {} });
    c.onSend("agent", { jsonrpc: "2.0", id: 7, method: "session/new", params: {} });
    c.onReceive("agent", { jsonrpc: "2.0", id: 7, result: { sessionId: "s" } });
    c.onSend("client", { jsonrpc: "2.0", id: 1, result: { sessionId: "s" } });
    expect(c.data().kinds).toEqual([
      { kind: "session/new", fromClient: 1, toAgent: 1, fromAgent: 0, toClient: 0 },
      { kind: "session/new (result)", fromClient: 0, toAgent: 0, fromAgent: 1, toClient: 1 },
    ]);
  });

  it("tells a relayed error from the bridge's own, and shows a peer's reason only when it is an identifier", () => {
    const c = new ReportCollector();
    c.onReceive("client", { jsonrpc: "2.0", id: 1, method: "session/load", params: {} });
    c.onReceive("client", { jsonrpc: "2.0", id: 2, method: "session/load", params: {} });
    c.onReceive("client", { jsonrpc: "2.0", id: 3, method: "session/load", params: {} });
    c.relayedError("client", 1);
    c.onSend("client", { jsonrpc: "2.0", id: 1, error: { code: -32002, message: "x", data: { reason: "not_found" } } });
    c.relayedError("client", 2);
    c.onSend("client", {
      jsonrpc: "2.0",
      id: 2,
      error: { code: -32002, message: "x", data: { reason: "in /home/a" } },
    });
    c.onSend("client", { jsonrpc: "2.0", id: 3, error: { code: -32602, message: "x", data: { reason: "bad cwd" } } });
    c.onSend("client", {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "x", data: { reason: "invalid_json" } },
    });
    expect(c.data().errors).toEqual([
      { to: "client", method: "session/load", code: -32002, reason: "not_found", origin: "relayed", count: 1 },
      { to: "client", method: "session/load", code: -32002, reason: "…(10 chars)", origin: "relayed", count: 1 },
      { to: "client", method: "session/load", code: -32602, reason: "bad cwd", origin: "bridge", count: 1 },
      {
        to: "client",
        method: "(unreadable request)",
        code: -32700,
        reason: "invalid_json",
        origin: "bridge",
        count: 1,
      },
    ]);
  });

  it("counts the messages sent with a stash and the stash's bytes, per side", () => {
    const c = new ReportCollector();
    const env = { v: 1, from: 2, hadMeta: false, residual: { planId: "p" } };
    c.stash("client", "full");
    c.onSend(
      "client",
      note("session/update", { sessionId: "s", update: { sessionUpdate: "plan", _meta: { "acp-bridge": env } } }),
    );
    c.onSend(
      "client",
      note("session/update", { sessionId: "s", update: { sessionUpdate: "plan", _meta: { other: 1 } } }),
    );
    expect(c.data().stash).toEqual({
      client: { level: "full", messages: 1, bytes: Buffer.byteLength(JSON.stringify(env)) },
      agent: { level: null, messages: 0, bytes: 0 },
    });
  });

  it("forgets the oldest unanswered requests beyond its bound", () => {
    const c = new ReportCollector();
    for (let i = 0; i < 5000; i++)
      c.onReceive("client", { jsonrpc: "2.0", id: i, method: "session/prompt", params: {} });
    c.onSend("client", { jsonrpc: "2.0", id: 0, result: {} });
    c.onSend("client", { jsonrpc: "2.0", id: 4999, result: {} });
    const kinds = c.data().kinds.map((k) => [k.kind, k.toClient]);
    expect(kinds).toContainEqual(["(unknown request) (result)", 1]);
    expect(kinds).toContainEqual(["session/prompt (result)", 1]);
  });
});
