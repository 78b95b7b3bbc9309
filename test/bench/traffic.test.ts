// The bench's traffic (bench/traffic/): the recordings read, normalised and replayed with fresh ids
// per turn, and the real-derived mix valid on the wire of each version.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  agentUpdates,
  compile,
  idsOf,
  normalise,
  parseCorpus,
  render,
  replayable,
  type Update,
} from "../../bench/traffic/corpus.js";
import { expandTurn } from "../../bench/traffic/real-mix.js";
import { Flood, realTurns, replayTurns } from "../../bench/traffic/pool.js";
import { TextModel } from "../../bench/traffic/text-model.js";
import { expectValid } from "../support/schema.js";

const corpus = (v: 1 | 2) =>
  parseCorpus(readFileSync(new URL(`../../bench/traffic/corpus-v${v}.ndjson`, import.meta.url), "utf8"));

const update = (u: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  method: "session/update",
  params: { sessionId: "s", update: u },
});

describe("reading the recordings", () => {
  it("takes the agent side's session/update params from a client wire, a bridge trace and a fixture", () => {
    const u = { sessionUpdate: "usage_update", used: 1, size: 2 };
    const wire = [
      { dir: "out", msg: update({ sessionUpdate: "agent_message_chunk" }) },
      { dir: "in", msg: update(u) },
    ];
    const trace = [
      { type: "notification", from: "acp-bridge", to: "client", ...update({ sessionUpdate: "plan" }) },
      { type: "notification", from: "agent", to: "acp-bridge", ...update(u) },
      { type: "request", from: "agent", to: "acp-bridge", id: 1, method: "session/request_permission", params: {} },
    ];
    const fixture = [
      { from: "client", message: update({ sessionUpdate: "plan" }) },
      { from: "agent", message: update(u) },
    ];
    for (const rec of [wire, trace, fixture])
      expect(agentUpdates(rec.map((r) => JSON.stringify(r)).join("\n") + "\n")).toEqual([u]);
  });

  it("normalises scratch workspace paths and timestamps, and nothing else", () => {
    const u: Update = {
      sessionUpdate: "tool_call_update",
      toolCallId: "t",
      locations: [{ path: "/tmp/acp-interop-claude-v1-direct-v1-Ius87N/work/notes.txt" }],
      rawInput: { home: "/tmp/acp-interop-x-v2-bridge-v1-aB3dE9/home/.cfg", other: "/tmp/elsewhere" },
      updatedAt: "2026-11-28T12:36:22.286Z",
    };
    expect(normalise(u)).toEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: "t",
      locations: [{ path: "/interop/ws/notes.txt" }],
      rawInput: { home: "/interop/home/.cfg", other: "/tmp/elsewhere" },
      updatedAt: "2026-01-01T00:00:00.000Z",
    });
  });

  it("keeps the committed corpus free of scratch paths, and every line a valid update of its version", () => {
    for (const v of [1, 2] as const)
      for (const l of corpus(v)) {
        expect(JSON.stringify(l.update)).not.toContain("/tmp/acp-interop");
        expectValid(`v${v}`, v === 1 ? "SessionNotification" : "UpdateSessionNotification", {
          sessionId: "bench",
          update: l.update,
        });
      }
  });
});

describe("replaying with fresh ids per turn", () => {
  it("renames every string equal to one of a turn's tool-call, terminal and message ids, and no other", () => {
    const u = {
      sessionUpdate: "tool_call_update",
      toolCallId: "toolu_bash",
      _meta: { terminal_info: { terminal_id: "toolu_bash" } },
      content: [{ type: "terminal", terminalId: "toolu_bash" }],
      title: "toolu_bash is running",
      rawInput: { note: "toolu_bash" },
    };
    const m = { sessionUpdate: "agent_message_chunk", messageId: "msg_1", content: { type: "text", text: "msg_1 ok" } };
    const ids = idsOf([u, m]);
    expect(ids.sort()).toEqual(["msg_1", "toolu_bash"]);
    const line = JSON.stringify(u);
    const out = JSON.parse(render(compile(line, ids), "-r7")) as typeof u;
    expect(out.toolCallId).toBe("toolu_bash-r7");
    expect(out._meta.terminal_info.terminal_id).toBe("toolu_bash-r7");
    expect(out.content[0]!.terminalId).toBe("toolu_bash-r7");
    // A string that merely equals an id (not under an id key) is renamed too: the replay keeps a
    // turn's strings consistent, as the agent wrote them.
    expect(out.rawInput.note).toBe("toolu_bash-r7");
    expect(out.title).toBe("toolu_bash is running");
    expect(render(compile(JSON.stringify(m), ids), "-r7")).toBe(JSON.stringify({ ...m, messageId: "msg_1-r7" }));
  });

  it("leaves a line without ids as it is", () => {
    const line = '{"sessionUpdate":"usage_update","used":1}';
    expect(render(compile(line, ["x"]), "-r1")).toBe(line);
  });

  it("never replays a v2 idle, which would end the turn mid-flood", () => {
    expect(replayable({ sessionUpdate: "state_update", state: "idle" })).toBe(false);
    expect(replayable({ sessionUpdate: "state_update", state: "running" })).toBe(true);
    for (const t of replayTurns(corpus(2), "bench"))
      for (const l of t) expect(render(l, "-r0")).not.toContain('"state":"idle"');
  });

  it("floods turn after turn, each turn's tool calls under new ids, in one session", () => {
    const turns = replayTurns(corpus(1), "bench");
    const flood = new Flood(turns);
    const total = turns.reduce((n, t) => n + t.length, 0);
    const lines = Array.from({ length: 2 * total }, () => flood.next());
    const ids = (ls: string[]) =>
      new Set(
        ls
          .map((l) => (JSON.parse(l) as { params: { update: { toolCallId?: string } } }).params.update.toolCallId)
          .filter(Boolean),
      );
    const first = ids(lines.slice(0, total));
    const second = ids(lines.slice(total));
    expect(first.size).toBeGreaterThan(0);
    expect([...first].filter((id) => second.has(id))).toEqual([]);
    expect(second.size).toBe(first.size);
    for (const l of lines) expect((JSON.parse(l) as { params: { sessionId: string } }).params.sessionId).toBe("bench");
  });
});

describe("the real-derived mix", () => {
  it("streams chunks of 1 to 20 code units, the same for the same seed", () => {
    const a = new TextModel(5);
    const b = new TextModel(5);
    for (let i = 0; i < 5000; i++) {
      const c = a.chunk();
      expect(c).toBe(b.chunk());
      expect(c.length).toBeGreaterThanOrEqual(1);
      expect(c.length).toBeLessThanOrEqual(20);
      // No lone surrogate: an emoji is spliced whole.
      expect(c.replace(/[\ud800-\udbff][\udc00-\udfff]/g, "")).not.toMatch(/[\ud800-\udfff]/);
    }
  });

  it("keeps each recorded turn's non-text updates in order and adds a thought and a message before each tool call", () => {
    for (const v of [1, 2] as const)
      for (const [i, t] of replayTurns(corpus(v), "bench").entries()) {
        const recorded = t.map((l) => (JSON.parse(render(l, "")) as { params: { update: Update } }).params.update);
        const expanded = expandTurn(recorded, i + 1);
        const skeleton = (us: readonly Update[]) =>
          us
            .filter((u) => !u.sessionUpdate.endsWith("_chunk") || u.sessionUpdate === "user_message_chunk")
            .map((u) => u.sessionUpdate);
        expect(skeleton(expanded)).toEqual(skeleton(recorded));
        const tools = new Set(recorded.map((u) => u.toolCallId).filter((x) => typeof x === "string")).size;
        expect(expanded.filter((u) => u.sessionUpdate === "agent_thought_chunk").length).toBe(40 * tools);
      }
  });

  it("writes only valid session/update notifications of the agent's version", () => {
    for (const v of [1, 2] as const)
      for (const t of realTurns(corpus(v), "bench", 1))
        for (const l of t) {
          const msg = JSON.parse(render(l, "-r0")) as { params: unknown };
          expectValid(`v${v}`, v === 1 ? "SessionNotification" : "UpdateSessionNotification", msg.params);
        }
  });
});
