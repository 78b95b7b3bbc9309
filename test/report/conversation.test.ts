// `--report`'s contents on scripted conversations through the in-memory bridge: known losses,
// emulations and refusals, counted exactly, examples redacted (every message the bridge writes is
// schema-checked by the harness).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gitPatchSection } from "../../src/convert/git-patch.js";
import { ReportCollector, type ReportData } from "../../src/report/collector.js";
import { handshakeA, handshakeB, harness, type Harness } from "../support/harness.js";

const S = "s1";
let current: Harness | undefined;

afterEach(() => {
  if (current) expect(current.violations).toEqual([]);
  current = undefined;
});

/** A bridge whose every message and engine event the collector sees, as `--report` wires it. */
function reported(): { h: Harness; c: ReportCollector } {
  const c = new ReportCollector();
  const h = harness({}, undefined, {
    onReceive: (from, msg) => c.onReceive(from, msg),
    onSend: (to, msg) => c.onSend(to, msg),
    observer: c,
  });
  current = h;
  return { h, c };
}

const update = (u: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  method: "session/update",
  params: { sessionId: S, update: u },
});

function kind(d: ReportData, k: string) {
  return d.kinds.find((r) => r.kind === k);
}

describe("--report on direction A (v1 client, v2 agent)", () => {
  async function conversation(): Promise<ReportData & { h: Harness }> {
    const { h, c } = reported();
    await handshakeA(h, {}, { session: { mcp: { stdio: {} } } });
    h.client({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/home/alice/secret", mcpServers: [] } });
    const [req] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: req.id, result: { sessionId: S } });
    await h.settle();
    // A plan with an id, twice: v1 has one plan and no ids (T §2.6).
    for (const planId of ["first plan", "second plan"])
      h.agent(
        update({
          sessionUpdate: "plan_update",
          plan: { type: "items", planId, entries: [{ content: "rm -rf /", priority: "high", status: "pending" }] },
        }),
      );
    // A variant v1 has no form for: dropped.
    h.agent(update({ sessionUpdate: "_vendor_widget", payload: "private words" }));
    // v2 removed the client's fs methods: refused by the bridge (H §2.1).
    h.agent({ jsonrpc: "2.0", id: 50, method: "fs/read_text_file", params: { sessionId: S, path: "/etc/passwd" } });
    // No mode option: the bridge refuses set_mode itself.
    h.client({ jsonrpc: "2.0", id: 2, method: "session/set_mode", params: { sessionId: S, modeId: "code" } });
    // The agent's own error, relayed: its reason is no identifier, so it is shown as a length.
    h.client({ jsonrpc: "2.0", id: 3, method: "session/list", params: {} });
    const [list] = h.takeAgent().filter((m) => m.method === "session/list");
    h.agent({
      jsonrpc: "2.0",
      id: list.id,
      error: { code: -32000, message: "no", data: { reason: "disk at /srv is full" } },
    });
    await h.settle();
    h.takeClient();
    h.takeAgent();
    return { ...c.data(), h };
  }

  it("counts each method and update variant in each direction", async () => {
    const d = await conversation();
    expect(d.negotiated).toEqual({ client: 1, agent: 2, mode: "A" });
    expect(kind(d, "session/new")).toEqual({
      kind: "session/new",
      fromClient: 1,
      toAgent: 1,
      fromAgent: 0,
      toClient: 0,
    });
    expect(kind(d, "session/new (result)")).toEqual({
      kind: "session/new (result)",
      fromClient: 0,
      toAgent: 0,
      fromAgent: 1,
      toClient: 1,
    });
    expect(kind(d, "session/update:plan_update")).toMatchObject({ fromAgent: 2, toClient: 0 });
    expect(kind(d, "session/update:plan")).toMatchObject({ fromAgent: 0, toClient: 2 });
    expect(kind(d, "fs/read_text_file (error)")).toMatchObject({ toAgent: 1 });
    expect(d.received).toEqual({ client: 4, agent: 8 });
  });

  it("lists the converters' losses by kind, with counts and one redacted example each", async () => {
    const d = await conversation();
    expect(d.losses).toContainEqual({
      direction: "agent→client",
      message: "session/update:plan_update",
      path: "plan.planId",
      reason: "v1 has a single plan without an id",
      count: 2,
      example: '"…(10 chars)"',
    });
    expect(d.losses).toContainEqual({
      direction: "agent→client",
      message: "session/update:_vendor_widget",
      path: "(the whole message)",
      reason: "no v1 form: dropped",
      count: 1,
      example: '{"sessionUpdate":"_vendor_widget","payload":"…(13 chars)"}',
    });
    expect(d.losses).toContainEqual(
      expect.objectContaining({ direction: "client→agent", message: "initialize", path: "clientInfo", count: 1 }),
    );
    // No text, path or command of the conversation reaches the report.
    const text = JSON.stringify(d.losses);
    for (const secret of ["first plan", "rm -rf", "/home/alice", "private words", "/etc/passwd", "/srv"])
      expect(text).not.toContain(secret);
  });

  it("tells the bridge's refusals from the agent's errors it relays, by method and reason", async () => {
    const d = await conversation();
    expect(d.errors).toEqual([
      {
        to: "agent",
        method: "fs/read_text_file",
        code: -32601,
        reason: "ACP v2 removed this client method; a v2 agent must not call it",
        origin: "bridge",
        count: 1,
      },
      {
        to: "client",
        method: "session/set_mode",
        code: -32602,
        reason: "session has no modes",
        origin: "bridge",
        count: 1,
      },
      { to: "client", method: "session/list", code: -32000, reason: "…(20 chars)", origin: "relayed", count: 1 },
    ]);
    expect(d.emulations).toEqual([]);
    expect(d.stash).toEqual({
      client: { level: "off", messages: 0, bytes: 0 },
      // The initialize request carries this bridge's marker to every agent (H §1.5).
      agent: { level: "off", messages: 1, bytes: expect.any(Number) as number },
    });
  });
});

describe("--report on a v2 diff toward a v1 client", () => {
  it("works a diff's losses out exactly: none for a v1 rendering that converts back, where coarse said one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "acp-bridge-report-"));
    try {
      const path = join(dir, "a.txt");
      const OLD = "one\ntwo\nthree\n";
      writeFileSync(path, OLD);
      const { h, c } = reported();
      await handshakeA(h, {}, { session: {} });
      h.client({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: dir, mcpServers: [] } });
      const [req] = h.takeAgent();
      h.agent({ jsonrpc: "2.0", id: req.id, result: { sessionId: S } });
      await h.settle();
      h.agent(
        update({
          sessionUpdate: "tool_call_update",
          toolCallId: "t1",
          title: "Edit",
          kind: "edit",
          status: "completed",
          content: [
            {
              type: "diff",
              changes: [{ operation: "modify", path, fileType: "text" }],
              patch: { format: "git_patch", text: gitPatchSection("modify", path, OLD, OLD.replace("two", "2")) },
            },
          ],
        }),
      );
      await h.settle();
      h.takeClient();
      const d = c.data();
      expect(d.diffs).toEqual({ exact: 1, hunkOnly: 0 });
      const diffLosses = d.losses.filter((l) => l.message === "session/update:tool_call_update");
      expect(diffLosses.map((l) => [l.path, l.reason])).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("--report on direction B (v2 client, v1 agent)", () => {
  it("counts the bridge's emulations of what the v1 agent lacks, and its refusals", async () => {
    const { h, c } = reported();
    await handshakeB(h, {});
    h.client({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/w", mcpServers: [] } });
    const [req] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: req.id, result: { sessionId: S } });
    await h.settle();
    h.client({ jsonrpc: "2.0", id: 2, method: "session/list", params: {} });
    h.client({ jsonrpc: "2.0", id: 3, method: "session/list", params: { cwd: "/w" } });
    // A v1 chunk without a messageId: the bridge makes one up (T §2.1 B↓).
    h.agent(update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hello alice" } }));
    h.agent({ jsonrpc: "2.0", id: 9, method: "fs/read_text_file", params: { sessionId: S, path: "/w/a" } });
    h.client({ jsonrpc: "2.0", id: 4, method: "session/close", params: { sessionId: S } });
    await h.settle();
    h.takeClient();
    h.takeAgent();
    const d = c.data();
    expect(d.negotiated).toEqual({ client: 2, agent: 1, mode: "B" });
    expect(d.emulations).toEqual([
      { method: "session/list", how: "answered by the bridge from the sessions it has seen", count: 2 },
      { method: "session/close", how: "answered by the bridge, a running turn cancelled first", count: 1 },
    ]);
    expect(kind(d, "session/list")).toMatchObject({ fromClient: 2, toAgent: 0 });
    expect(kind(d, "session/list (result)")).toMatchObject({ toClient: 2, fromAgent: 0 });
    expect(d.errors).toEqual([
      expect.objectContaining({ to: "agent", method: "fs/read_text_file", code: -32601, origin: "bridge", count: 1 }),
    ]);
    expect(d.losses).toContainEqual({
      direction: "agent→client",
      message: "session/update:agent_message_chunk",
      path: "messageId",
      reason: expect.any(String) as string,
      count: 1,
      example: '{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"…(11 chars)"}}',
    });
  });

  it("counts the diffs made exact from their files and those left with their hunks", async () => {
    const dir = mkdtempSync(join(tmpdir(), "acp-bridge-report-"));
    try {
      const present = join(dir, "present.txt");
      writeFileSync(present, "one\ntwo\nthree\n");
      const { h, c } = reported();
      await handshakeB(h, {});
      h.client({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: dir, mcpServers: [] } });
      const [req] = h.takeAgent();
      h.agent({ jsonrpc: "2.0", id: req.id, result: { sessionId: S } });
      await h.settle();
      const diff = (path: string) => ({ type: "diff", path, oldText: "two\n", newText: "2\n" });
      h.agent(
        update({
          sessionUpdate: "tool_call",
          toolCallId: "t1",
          title: "edit",
          kind: "edit",
          status: "completed",
          content: [diff(present), diff(join(dir, "absent.txt"))],
        }),
      );
      await h.settle();
      h.takeClient();
      expect(c.data().diffs).toEqual({ exact: 1, hunkOnly: 1 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
