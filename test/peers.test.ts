// The demo peers work on their own, without a bridge: SDK clients against the demo agents over
// real processes, every wire message schema-checked. Also the wire checker and the turn scripts.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v1 from "@agentclientprotocol/sdk";
import * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { afterAll, describe, expect, it } from "vitest";
import { gitPatch, idGenerator, parseTags, planTurn } from "../src/demo/scenario.js";
import {
  AGENT_V1,
  AGENT_V2,
  checkWire,
  type ClientHandlers,
  readWireLog,
  spawnRaw,
  spawnWithClient,
  type SpawnedClient,
  type WireEntry,
  findWireProblems,
} from "./support/peers.js";
import { expectValid } from "./support/schema.js";

const NODE = process.execPath;
const CWD = "/work/demo-project";
const scratch = mkdtempSync(join(tmpdir(), "acp-peers-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const V2_INIT: v2.InitializeRequest = {
  protocolVersion: v2.PROTOCOL_VERSION,
  info: { name: "peers-test", version: "0.0.0" },
};
const V1_INIT: v1.InitializeRequest = {
  protocolVersion: v1.PROTOCOL_VERSION,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: false } },
};

/** Inbound messages from index `from` as labels: `result:<method>`, `request:<method>`, `<sessionUpdate>[:state|status][:stopReason]`. */
function trace(wire: readonly WireEntry[], from = 0): string[] {
  const sent = new Map<string, string>();
  const out: string[] = [];
  wire.forEach((e, i) => {
    const m = e.msg as any;
    if (e.dir === "out") {
      if (m.method && "id" in m) sent.set(JSON.stringify(m.id), m.method);
      return;
    }
    if (i < from) return;
    if (m.method === "session/update") {
      const u = m.params.update;
      const detail = u.sessionUpdate === "state_update" ? [u.state, u.stopReason] : [u.status];
      out.push([u.sessionUpdate, ...detail.filter((d: unknown) => d != null)].join(":"));
    } else if (m.method) {
      out.push("id" in m ? `request:${m.method}` : `notify:${m.method}`);
    } else {
      const method = sent.get(JSON.stringify(m.id));
      out.push("error" in m ? `error:${method}:${m.error.code}` : `result:${method}`);
    }
  });
  return out;
}

function isIdle(u: { update: { sessionUpdate: string; state?: unknown } }): boolean {
  return u.update.sessionUpdate === "state_update" && u.update.state === "idle";
}

async function finish(peer: SpawnedClient<any>, version: 1 | 2): Promise<void> {
  const exit = await peer.close();
  expect(exit.code, peer.stderr).toBe(0);
  checkWire(version, peer.wire);
}

function startV2(env?: Record<string, string>): SpawnedClient<2> {
  return spawnWithClient(2, NODE, [AGENT_V2], env ? { env } : {});
}

async function v2Session(peer: SpawnedClient<2>): Promise<string> {
  await peer.ctx.request(v2.methods.agent.initialize, V2_INIT);
  const r = await peer.ctx.request(v2.methods.agent.session.new, { cwd: CWD });
  return r.sessionId;
}

function startV1(env?: Record<string, string>, handlers?: ClientHandlers<1>): SpawnedClient<1> {
  return spawnWithClient(1, NODE, [AGENT_V1], { ...(env ? { env } : {}), ...(handlers ? { handlers } : {}) });
}

async function v1Session(peer: SpawnedClient<1>): Promise<string> {
  await peer.ctx.request(v1.methods.agent.initialize, V1_INIT);
  const r = await peer.ctx.request(v1.methods.agent.session.new, { cwd: CWD, mcpServers: [] });
  // Sent right after the response; wait so it does not race into a turn's trace.
  await peer.waitForUpdate((u) => u.update.sessionUpdate === "available_commands_update");
  return r.sessionId;
}

describe("agent-v2 with a v2 SDK client (prompt lifecycle T §1.1, H §4)", () => {
  it("runs a [tool] turn: insertion answer, echo, running, permission in v2 shape, completion, idle end_turn", async () => {
    const peer = startV2();
    const sessionId = await v2Session(peer);
    const from = peer.wire.length;
    const { messageId } = await peer.ctx.request(v2.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "Run it [tool]" }],
    });
    const idle = await peer.waitForUpdate(isIdle);
    expect(idle.update).toMatchObject({ state: "idle", stopReason: "end_turn" });
    expect(trace(peer.wire, from)).toEqual([
      "result:session/prompt",
      "user_message",
      "state_update:running",
      "session_info_update",
      "tool_call_update:pending",
      "state_update:requires_action",
      "request:session/request_permission",
      "state_update:running",
      "tool_call_update:in_progress",
      "tool_call_update:completed",
      "state_update:idle:end_turn",
    ]);
    const echo = peer.updates.find((u) => u.update.sessionUpdate === "user_message");
    expect(echo?.update).toMatchObject({ messageId, content: [{ type: "text", text: "Run it [tool]" }] });
    const [permission] = peer.permissionRequests;
    expect(permission).toMatchObject({
      sessionId,
      title: "Run the tests?",
      subject: { type: "tool_call", toolCall: { title: "Run the tests", kind: "execute" } },
      options: [
        { optionId: "allow", kind: "allow_once" },
        { optionId: "reject", kind: "reject_once" },
      ],
    });
    await finish(peer, 2);
  });

  it("fails the tool call and still ends the turn when the permission is rejected", async () => {
    const peer = startV2();
    peer.setPermissionHandler(() => ({ outcome: { outcome: "selected", optionId: "reject" } }));
    const sessionId = await v2Session(peer);
    await peer.ctx.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "[tool]" }] });
    const idle = await peer.waitForUpdate(isIdle);
    expect(idle.update).toMatchObject({ stopReason: "end_turn" });
    const last = peer.updates.filter((u) => u.update.sessionUpdate === "tool_call_update").at(-1);
    expect(last?.update).toMatchObject({ status: "failed" });
    await finish(peer, 2);
  });

  it("runs the default demo turn (chunks, plan, tool) when the prompt has no tag", async () => {
    const peer = startV2();
    const sessionId = await v2Session(peer);
    await peer.ctx.request(v2.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "Fix the failing test" }],
    });
    await peer.waitForUpdate(isIdle);
    const kinds = new Set(peer.updates.map((u) => u.update.sessionUpdate));
    for (const k of ["agent_message_chunk", "plan_update", "tool_call_update"]) expect(kinds).toContain(k);
    expect(peer.permissionRequests).toHaveLength(1);
    await finish(peer, 2);
  });

  it("streams [chunks] under one message id, [thought] chunks under another, and a [plan] of items", async () => {
    const peer = startV2();
    const sessionId = await v2Session(peer);
    await peer.ctx.request(v2.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "[thought] [chunks] [plan]" }],
    });
    await peer.waitForUpdate(isIdle);
    const ids = (tag: string) =>
      new Set(peer.updates.filter((u) => u.update.sessionUpdate === tag).map((u) => (u.update as any).messageId));
    expect(peer.updates.filter((u) => u.update.sessionUpdate === "agent_message_chunk")).toHaveLength(4);
    expect(ids("agent_message_chunk").size).toBe(1);
    expect(ids("agent_thought_chunk").size).toBe(1);
    expect([...ids("agent_message_chunk")][0]).not.toBe([...ids("agent_thought_chunk")][0]);
    const plan = peer.updates.find((u) => u.update.sessionUpdate === "plan_update")?.update as any;
    expect(plan.plan.type).toBe("items");
    expect(plan.plan.entries).toHaveLength(3);
    await finish(peer, 2);
  });

  it("sends a [diff] tool call with changes and an absolute-path git_patch", async () => {
    const peer = startV2();
    const sessionId = await v2Session(peer);
    await peer.ctx.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "[diff]" }] });
    await peer.waitForUpdate(isIdle);
    const done = peer.updates.find((u) => (u.update as any).status === "completed")?.update as any;
    const diff = done.content.find((c: any) => c.type === "diff");
    expect(diff.changes).toEqual([
      { operation: "modify", path: `${CWD}/src/hello.ts`, fileType: "text" },
      { operation: "add", path: `${CWD}/NOTES.md`, fileType: "text" },
    ]);
    expect(diff.patch.format).toBe("git_patch");
    expect(diff.patch.text).toContain(`diff --git ${CWD}/src/hello.ts ${CWD}/src/hello.ts\n`);
    expect(diff.patch.text).toContain("--- /dev/null\n");
    await finish(peer, 2);
  });

  it("ends an [error] turn with idle stopReason error and the error object", async () => {
    const peer = startV2();
    const sessionId = await v2Session(peer);
    await peer.ctx.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "[error]" }] });
    const idle = await peer.waitForUpdate(isIdle);
    expect(idle.update).toEqual({
      sessionUpdate: "state_update",
      state: "idle",
      stopReason: "error",
      error: { code: -32603, message: "Scripted failure", data: { tag: "error" } },
    });
    await finish(peer, 2);
  });

  it("ends a [slow] turn with idle cancelled on session/cancel", async () => {
    const peer = startV2();
    const sessionId = await v2Session(peer);
    await peer.ctx.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "[slow]" }] });
    await peer.waitForUpdate((u) => u.update.sessionUpdate === "agent_message_chunk");
    await peer.ctx.notify(v2.methods.agent.session.cancel, { sessionId });
    const idle = await peer.waitForUpdate(isIdle);
    expect(idle.update).toMatchObject({ stopReason: "cancelled" });
    await finish(peer, 2);
  });

  it("cancels its pending permission request with $/cancel_request on session/cancel", async () => {
    const peer = startV2();
    peer.setPermissionHandler(
      (_params, signal) =>
        new Promise((resolve) =>
          signal.addEventListener("abort", () => resolve({ outcome: { outcome: "cancelled" } }), { once: true }),
        ),
    );
    const sessionId = await v2Session(peer);
    await peer.ctx.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "[tool]" }] });
    const asked = await peer.waitForWire(
      (e) => e.dir === "in" && (e.msg as any).method === "session/request_permission",
    );
    const from = peer.wire.length;
    await peer.ctx.notify(v2.methods.agent.session.cancel, { sessionId });
    const idle = await peer.waitForUpdate(isIdle);
    expect(idle.update).toMatchObject({ stopReason: "cancelled" });
    const cancel = await peer.waitForWire((e) => e.dir === "in" && (e.msg as any).method === "$/cancel_request");
    expect((cancel.msg as any).params).toEqual({ requestId: (asked.msg as any).id });
    expect(trace(peer.wire, from)).not.toContain("state_update:running");
    expect(trace(peer.wire, from)).toContain("tool_call_update:cancelled");
    await finish(peer, 2);
  });

  it("holds a prompt sent during a turn and answers it on insertion, after the turn's idle", async () => {
    const peer = startV2();
    const sessionId = await v2Session(peer);
    await peer.ctx.request(v2.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "[slow:1500]" }],
    });
    const second = await peer.ctx.request(v2.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "[chunks]" }],
    });
    const labels = trace(peer.wire);
    expect(labels.indexOf("state_update:idle:end_turn")).toBeGreaterThan(-1);
    expect(labels.lastIndexOf("result:session/prompt")).toBeGreaterThan(labels.indexOf("state_update:idle:end_turn"));
    const echo = await peer.waitForUpdate(
      (u) => u.update.sessionUpdate === "user_message" && (u.update as any).messageId === second.messageId,
    );
    expect(echo.update).toMatchObject({ content: [{ type: "text", text: "[chunks]" }] });
    await peer.waitForUpdate((u) => isIdle(u) && peer.updates.indexOf(u) > peer.updates.indexOf(echo));
    await finish(peer, 2);
  });

  it("answers a held prompt -32800 on session/cancel", async () => {
    const peer = startV2();
    const sessionId = await v2Session(peer);
    await peer.ctx.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "[slow]" }] });
    const held = peer.ctx.request(v2.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "[chunks]" }],
    });
    held.catch(() => undefined);
    await peer.waitForWire(
      (e) =>
        e.dir === "out" &&
        (e.msg as any).method === "session/prompt" &&
        (e.msg as any).params.prompt[0].text === "[chunks]",
    );
    await peer.ctx.notify(v2.methods.agent.session.cancel, { sessionId });
    await expect(held).rejects.toMatchObject({ code: -32800 });
    expect((await peer.waitForUpdate(isIdle)).update).toMatchObject({ stopReason: "cancelled" });
    await finish(peer, 2);
  });

  it("on session/close cancels the turn and its permission request and answers held prompts before responding", async () => {
    const peer = startV2();
    peer.setPermissionHandler(
      (_params, signal) =>
        new Promise((resolve) =>
          signal.addEventListener("abort", () => resolve({ outcome: { outcome: "cancelled" } }), { once: true }),
        ),
    );
    const sessionId = await v2Session(peer);
    await peer.ctx.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "[tool]" }] });
    const held = peer.ctx.request(v2.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "[chunks]" }],
    });
    held.catch(() => undefined);
    await peer.waitForWire((e) => e.dir === "in" && (e.msg as any).method === "session/request_permission");
    const from = peer.wire.length;
    expect(await peer.ctx.request(v2.methods.agent.session.close, { sessionId })).toEqual({});
    await expect(held).rejects.toMatchObject({ code: -32800 });
    const labels = trace(peer.wire, from);
    expect(labels).toContain("notify:$/cancel_request");
    expect(labels.indexOf("state_update:idle:cancelled")).toBeLessThan(labels.indexOf("result:session/close"));
    expect(labels.indexOf("error:session/prompt:-32800")).toBeLessThan(labels.indexOf("result:session/close"));
    await finish(peer, 2);
  });

  it("exits with code 3 in the middle of a [crash] turn, after flushing what it sent", async () => {
    const peer = startV2();
    const sessionId = await v2Session(peer);
    await peer.ctx.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "[crash]" }] });
    expect((await peer.exit).code).toBe(3);
    expect(peer.updates.some((u) => (u.update as any).content?.text === "About to crash.")).toBe(true);
    expect(peer.updates.some(isIdle)).toBe(false);
    checkWire(2, peer.wire);
  });

  it("reports the MCP servers and roots it was given for [mcp] [dirs]", async () => {
    const peer = startV2();
    await peer.ctx.request(v2.methods.agent.initialize, V2_INIT);
    const { sessionId } = await peer.ctx.request(v2.methods.agent.session.new, {
      cwd: CWD,
      additionalDirectories: ["/work/lib"],
      mcpServers: [{ type: "stdio", name: "files", command: "/bin/mcp", args: [], env: [] }],
    });
    await peer.ctx.request(v2.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "[mcp] [dirs]" }],
    });
    await peer.waitForUpdate(isIdle);
    const texts = peer.updates
      .filter((u) => u.update.sessionUpdate === "agent_message_chunk")
      .map((u) => (u.update as any).content.text);
    expect(texts.map((t) => JSON.parse(t))).toEqual([
      { mcpServers: [{ name: "files", type: "stdio" }] },
      { cwd: CWD, additionalDirectories: ["/work/lib"] },
    ]);
    await finish(peer, 2);
  });

  it("returns config options (mode select, model) and commands from session/new and sets an option", async () => {
    const peer = startV2();
    await peer.ctx.request(v2.methods.agent.initialize, V2_INIT);
    const created = await peer.ctx.request(v2.methods.agent.session.new, { cwd: CWD });
    expect(created.configOptions?.map((o) => [o.configId, o.category, o.type, (o as any).currentValue])).toEqual([
      ["mode", "mode", "select", "ask"],
      ["model", "model", "select", "fast"],
    ]);
    expect(created.availableCommands?.length).toBeGreaterThan(0);
    const from = peer.wire.length;
    const set = await peer.ctx.request(v2.methods.agent.session.setConfigOption, {
      sessionId: created.sessionId,
      configId: "mode",
      type: "id",
      value: "code",
    });
    expect((set.configOptions[0] as any).currentValue).toBe("code");
    expect(trace(peer.wire, from)).toEqual(["config_option_update", "result:session/set_config_option"]);
    await expect(
      peer.ctx.request(v2.methods.agent.session.setConfigOption, {
        sessionId: created.sessionId,
        configId: "mode",
        type: "id",
        value: "yolo",
      }),
    ).rejects.toMatchObject({ code: -32602 });
    await finish(peer, 2);
  });

  it("replays history on resume with replayFrom start, then the state snapshot, then the response", async () => {
    const peer = startV2();
    const sessionId = await v2Session(peer);
    await peer.ctx.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Fix it" }] });
    await peer.waitForUpdate(isIdle);
    await peer.ctx.request(v2.methods.agent.session.close, { sessionId });
    await expect(
      peer.ctx.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "x" }] }),
    ).rejects.toMatchObject({
      code: -32002,
    });

    let from = peer.wire.length;
    await peer.ctx.request(v2.methods.agent.session.resume, { sessionId, cwd: CWD, replayFrom: { type: "start" } });
    expect(trace(peer.wire, from)).toEqual([
      "user_message",
      "agent_message",
      "plan_update",
      "tool_call_update:completed",
      "state_update:idle",
      "result:session/resume",
    ]);
    const replayedTool = (
      peer.wire.slice(from).find((e) => (e.msg as any).params?.update?.sessionUpdate === "tool_call_update")!.msg as any
    ).params.update;
    expect(replayedTool).toMatchObject({ title: "Run the tests", kind: "execute", rawInput: { command: "npm test" } });
    const replayedText = peer.wire
      .slice(from)
      .find((e) => (e.msg as any).params?.update?.sessionUpdate === "agent_message")!;
    expect((replayedText.msg as any).params.update.content).toEqual([
      { type: "text", text: "Sure. Here is a short answer in four chunks." },
    ]);

    from = peer.wire.length;
    await peer.ctx.request(v2.methods.agent.session.resume, { sessionId, cwd: CWD });
    expect(trace(peer.wire, from)).toEqual(["state_update:idle", "result:session/resume"]);
    await expect(
      peer.ctx.request(v2.methods.agent.session.resume, { sessionId, cwd: CWD, replayFrom: { type: "_later" } as any }),
    ).rejects.toMatchObject({
      code: -32602,
    });
    await finish(peer, 2);
  });

  it("lists sessions with their titles and deletes them", async () => {
    const peer = startV2();
    const sessionId = await v2Session(peer);
    await peer.ctx.request(v2.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "Title me [chunks]" }],
    });
    await peer.waitForUpdate(isIdle);
    const listed = await peer.ctx.request(v2.methods.agent.session.list, { cwd: CWD });
    expect(listed.sessions).toEqual([expect.objectContaining({ sessionId, cwd: CWD, title: "Title me [chunks]" })]);
    expect(await peer.ctx.request(v2.methods.agent.session.list, { cwd: "/elsewhere" })).toEqual({ sessions: [] });
    await peer.ctx.request(v2.methods.agent.session.delete, { sessionId });
    expect((await peer.ctx.request(v2.methods.agent.session.list, {})).sessions).toEqual([]);
    await expect(peer.ctx.request(v2.methods.agent.session.resume, { sessionId, cwd: CWD })).rejects.toMatchObject({
      code: -32002,
    });
    await finish(peer, 2);
  });

  it("advertises session capabilities and agent auth, and requires auth/login when asked to", async () => {
    const peer = startV2({ ACP_DEMO_REQUIRE_AUTH: "1" });
    const init = await peer.ctx.request(v2.methods.agent.initialize, V2_INIT);
    expect(init.capabilities?.session).toMatchObject({
      mcp: { stdio: {}, http: {} },
      delete: {},
      additionalDirectories: {},
      prompt: {},
    });
    expect(init.authMethods).toEqual([expect.objectContaining({ type: "agent", methodId: "demo-login" })]);
    await expect(peer.ctx.request(v2.methods.agent.session.new, { cwd: CWD })).rejects.toMatchObject({ code: -32000 });
    await peer.ctx.request(v2.methods.agent.auth.login, { methodId: "demo-login" });
    await peer.ctx.request(v2.methods.agent.session.new, { cwd: CWD });
    await peer.ctx.request(v2.methods.agent.auth.logout, {});
    await expect(peer.ctx.request(v2.methods.agent.session.new, { cwd: CWD })).rejects.toMatchObject({ code: -32000 });
    await finish(peer, 2);
  });

  it("writes every message it sends and receives to ACP_WIRE_LOG, mirroring the client's wire", async () => {
    const log = join(scratch, "v2-wire.jsonl");
    const peer = startV2({ ACP_WIRE_LOG: log });
    const sessionId = await v2Session(peer);
    await peer.ctx.request(v2.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hello" }] });
    await peer.waitForUpdate(isIdle);
    await finish(peer, 2);
    const agentSide = readWireLog(log);
    checkWire(2, agentSide, { side: "agent" });
    const flip = (e: WireEntry) => ({ dir: e.dir === "in" ? "out" : "in", msg: e.msg });
    expect(agentSide.map(flip)).toEqual(peer.wire.map((e) => ({ dir: e.dir, msg: e.msg })));
  });
});

describe("agent-v1 with a v1 SDK client (v1 lifecycle, T §1.1, H §4.3, H §5)", () => {
  it("runs the default turn: chunks, plan, tool_call, permission in v1 shape, updates, then {stopReason}", async () => {
    const peer = startV1();
    const sessionId = await v1Session(peer);
    const from = peer.wire.length;
    const result = await peer.ctx.request(v1.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "Fix the failing test" }],
    });
    expect(result).toEqual({ stopReason: "end_turn" });
    expect(trace(peer.wire, from)).toEqual([
      "session_info_update",
      "agent_message_chunk",
      "agent_message_chunk",
      "agent_message_chunk",
      "agent_message_chunk",
      "plan",
      "tool_call:pending",
      "request:session/request_permission",
      "tool_call_update:in_progress",
      "tool_call_update:completed",
      "result:session/prompt",
    ]);
    expect(peer.permissionRequests[0]).toMatchObject({
      sessionId,
      toolCall: { title: "Run the tests", kind: "execute" },
    });
    // A plain v1 agent sends no message ids and does not echo the prompt.
    expect(peer.updates.some((u) => "messageId" in u.update)).toBe(false);
    expect(peer.updates.some((u) => u.update.sessionUpdate === "user_message_chunk")).toBe(false);
    await finish(peer, 1);
  });

  it("echoes the prompt as user_message_chunk for [echo] and sends message ids when ACP_DEMO_V1_FULL=1", async () => {
    const peer = startV1({ ACP_DEMO_V1_FULL: "1" });
    const sessionId = await v1Session(peer);
    await peer.ctx.request(v1.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "[echo] [chunks]" }],
    });
    const echo = peer.updates.find((u) => u.update.sessionUpdate === "user_message_chunk")?.update as any;
    expect(echo).toMatchObject({ content: { type: "text", text: "[echo] [chunks]" }, messageId: expect.any(String) });
    const chunks = peer.updates
      .filter((u) => u.update.sessionUpdate === "agent_message_chunk")
      .map((u) => (u.update as any).messageId);
    expect(new Set(chunks).size).toBe(1);
    expect(chunks[0]).toEqual(expect.any(String));
    await finish(peer, 1);
  });

  it("calls fs/read_text_file for [fs], reports the -32601 of a client without fs, and still ends end_turn", async () => {
    const peer = startV1();
    const sessionId = await v1Session(peer);
    const result = await peer.ctx.request(v1.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "[fs]" }],
    });
    expect(result.stopReason).toBe("end_turn");
    const request = peer.wire.find((e) => (e.msg as any).method === "fs/read_text_file")!;
    expect((request.msg as any).params).toEqual({ sessionId, path: `${CWD}/README.md` });
    const text = peer.updates
      .map((u) => (u.update as any).content?.text)
      .find((t) => typeof t === "string" && t.startsWith("fs/"));
    expect(text).toMatch(/^fs\/read_text_file failed with -32601/);
    await finish(peer, 1);
  });

  it("reads the file through the client for [fs] when the client serves fs", async () => {
    const peer = startV1(undefined, { readTextFile: () => ({ content: "# Demo\n" }) });
    const sessionId = await v1Session(peer);
    await peer.ctx.request(v1.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "[fs]" }] });
    expect(
      peer.updates.some((u) => (u.update as any).content?.text === `Read 7 characters from ${CWD}/README.md.`),
    ).toBe(true);
    await finish(peer, 1);
  });

  it("answers an [error] turn with a JSON-RPC error, the v1 convention for a failed turn", async () => {
    const peer = startV1();
    const sessionId = await v1Session(peer);
    await expect(
      peer.ctx.request(v1.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "[error]" }] }),
    ).rejects.toMatchObject({
      code: -32603,
      message: "Scripted failure",
      data: { tag: "error" },
    });
    await finish(peer, 1);
  });

  it("answers {stopReason: cancelled} after session/cancel during a [slow] turn", async () => {
    const peer = startV1();
    const sessionId = await v1Session(peer);
    const prompt = peer.ctx.request(v1.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "[slow]" }],
    });
    await peer.waitForUpdate((u) => u.update.sessionUpdate === "agent_message_chunk");
    await peer.ctx.notify(v1.methods.agent.session.cancel, { sessionId });
    expect(await prompt).toEqual({ stopReason: "cancelled" });
    await finish(peer, 1);
  });

  it("ends cancelled without waiting for the client's answer to a pending permission, and fails the tool call", async () => {
    let answer: (r: v1.RequestPermissionResponse) => void = () => undefined;
    const peer = startV1(undefined, { requestPermission: () => new Promise((resolve) => (answer = resolve)) });
    const sessionId = await v1Session(peer);
    const prompt = peer.ctx.request(v1.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "[tool]" }],
    });
    await peer.waitForWire((e) => e.dir === "in" && (e.msg as any).method === "session/request_permission");
    await peer.ctx.notify(v1.methods.agent.session.cancel, { sessionId });
    expect(await prompt).toEqual({ stopReason: "cancelled" });
    answer({ outcome: { outcome: "cancelled" } });
    const last = peer.updates.filter((u) => u.update.sessionUpdate === "tool_call_update").at(-1);
    expect(last?.update).toMatchObject({ status: "failed" });
    await finish(peer, 1);
  });

  it("exits with code 3 in the middle of a [crash] turn, leaving the prompt unanswered", async () => {
    const peer = startV1();
    const sessionId = await v1Session(peer);
    const prompt = peer.ctx.request(v1.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "[crash]" }],
    });
    prompt.catch(() => undefined);
    expect((await peer.exit).code).toBe(3);
    await expect(prompt).rejects.toBeDefined();
    expect(peer.updates.some((u) => (u.update as any).content?.text === "About to crash.")).toBe(true);
    expect(trace(peer.wire)).not.toContain("result:session/prompt");
    checkWire(1, peer.wire);
  });

  it("sends v1 diff items (oldText/newText; no oldText for an added file) for [diff]", async () => {
    const peer = startV1();
    const sessionId = await v1Session(peer);
    await peer.ctx.request(v1.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "[diff]" }] });
    const done = peer.updates.find((u) => (u.update as any).status === "completed")?.update as any;
    expect(done.content.filter((c: any) => c.type === "diff")).toEqual([
      {
        type: "diff",
        path: `${CWD}/src/hello.ts`,
        oldText: 'export function hello() {\n  return "hi";\n}\n',
        newText: 'export function hello() {\n  return "hello";\n}\n',
      },
      { type: "diff", path: `${CWD}/NOTES.md`, newText: "# Notes\n\nGreeting changed to hello.\n" },
    ]);
    await finish(peer, 1);
  });

  it("switches modes with session/set_mode and reports current_mode_update; sets the model option", async () => {
    const peer = startV1();
    await peer.ctx.request(v1.methods.agent.initialize, V1_INIT);
    const created = await peer.ctx.request(v1.methods.agent.session.new, { cwd: CWD, mcpServers: [] });
    expect(created.modes).toMatchObject({ currentModeId: "ask", availableModes: [{ id: "ask" }, { id: "code" }] });
    expect(created.configOptions).toEqual([
      expect.objectContaining({ id: "model", category: "model", type: "select", currentValue: "fast" }),
    ]);
    await peer.waitForUpdate((u) => u.update.sessionUpdate === "available_commands_update");
    const from = peer.wire.length;
    expect(
      await peer.ctx.request(v1.methods.agent.session.setMode, { sessionId: created.sessionId, modeId: "code" }),
    ).toEqual({});
    expect(trace(peer.wire, from)).toEqual(["current_mode_update", "result:session/set_mode"]);
    expect(peer.updates.at(-1)?.update).toEqual({ sessionUpdate: "current_mode_update", currentModeId: "code" });
    const set = await peer.ctx.request(v1.methods.agent.session.setConfigOption, {
      sessionId: created.sessionId,
      configId: "model",
      value: "smart",
    });
    expect((set.configOptions[0] as any).currentValue).toBe("smart");
    await expect(
      peer.ctx.request(v1.methods.agent.session.setMode, { sessionId: created.sessionId, modeId: "yolo" }),
    ).rejects.toMatchObject({
      code: -32602,
    });
    await finish(peer, 1);
  });

  it("replays the conversation on session/load in a later process (ACP_DEMO_STORE)", async () => {
    const store = join(scratch, "v1-store");
    const first = startV1({ ACP_DEMO_STORE: store });
    const sessionId = await v1Session(first);
    await first.ctx.request(v1.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "Fix the failing test" }],
    });
    const live = first.updates.filter(
      (u) => !["available_commands_update", "session_info_update"].includes(u.update.sessionUpdate),
    );
    await finish(first, 1);

    const second = startV1({ ACP_DEMO_STORE: store });
    await second.ctx.request(v1.methods.agent.initialize, V1_INIT);
    const loaded = await second.ctx.request(v1.methods.agent.session.load, { sessionId, cwd: CWD, mcpServers: [] });
    expect(loaded.modes?.currentModeId).toBe("ask");
    const replayed = second.updates.filter((u) => u.update.sessionUpdate !== "available_commands_update");
    expect(replayed[0]?.update).toEqual({
      sessionUpdate: "user_message_chunk",
      content: { type: "text", text: "Fix the failing test" },
    });
    expect(replayed.slice(1)).toEqual(live);
    await finish(second, 1);
  });

  it("answers -32601 to session/list and session/close unless ACP_DEMO_V1_FULL=1", async () => {
    const plain = startV1();
    const init = await plain.ctx.request(v1.methods.agent.initialize, V1_INIT);
    expect(init.agentCapabilities?.sessionCapabilities).toEqual({});
    expect(init.agentCapabilities?.loadSession).toBe(true);
    await expect(plain.ctx.request(v1.methods.agent.session.list, {})).rejects.toMatchObject({ code: -32601 });
    await expect(plain.ctx.request(v1.methods.agent.session.close, { sessionId: "s" })).rejects.toMatchObject({
      code: -32601,
    });
    await expect(plain.ctx.request(v1.methods.agent.logout, {})).rejects.toMatchObject({ code: -32601 });
    await finish(plain, 1);

    const full = startV1({ ACP_DEMO_V1_FULL: "1" });
    const fullInit = await full.ctx.request(v1.methods.agent.initialize, V1_INIT);
    expect(fullInit.agentCapabilities?.sessionCapabilities).toMatchObject({
      list: {},
      close: {},
      resume: {},
      delete: {},
    });
    const { sessionId } = await full.ctx.request(v1.methods.agent.session.new, { cwd: CWD, mcpServers: [] });
    expect((await full.ctx.request(v1.methods.agent.session.list, {})).sessions).toEqual([
      expect.objectContaining({ sessionId, cwd: CWD }),
    ]);
    expect(await full.ctx.request(v1.methods.agent.session.close, { sessionId })).toEqual({});
    expect(await full.ctx.request(v1.methods.agent.session.resume, { sessionId, cwd: CWD })).toMatchObject({
      modes: { currentModeId: "ask" },
    });
    expect(await full.ctx.request(v1.methods.agent.logout, {})).toEqual({});
    await finish(full, 1);
  });
});

describe("version mismatch without a bridge (H §1.2)", () => {
  it("agent-v2 rejects a v1 client's initialize with -32022 {requested: 1, supported: [2]}", async () => {
    const peer = spawnWithClient(1, NODE, [AGENT_V2]);
    await expect(peer.ctx.request(v1.methods.agent.initialize, V1_INIT)).rejects.toMatchObject({
      code: -32022,
      data: { requested: 1, supported: [2] },
    });
    await finish(peer, 1);
  });

  it("agent-v1 answers a v2 initialize with protocolVersion 1, which the v2 SDK client refuses", async () => {
    const raw = spawnRaw(NODE, [AGENT_V1]);
    const answer = await raw.request("initialize", V2_INIT);
    expect(answer.result.protocolVersion).toBe(1);
    expect((await raw.close()).code).toBe(0);

    const peer = spawnWithClient(2, NODE, [AGENT_V1]);
    // The SDK's own response parsing refuses it (a ZodError: a v1 result has no `info`), not a RequestError.
    await expect(peer.ctx.request(v2.methods.agent.initialize, V2_INIT)).rejects.toMatchObject({ name: "ZodError" });
    const reply = peer.wire.find((e) => e.dir === "in")?.msg as any;
    expectValid("v1", "InitializeResponse", reply.result);
    await peer.close();
  });
});

describe("raw line client (hostile input)", () => {
  it("gets a -32700 parse error with id null for a line that is not JSON, and the agent keeps serving", async () => {
    const raw = spawnRaw(NODE, [AGENT_V2]);
    raw.send("{not json\n");
    const error = await raw.waitFor((m) => m.error?.code === -32700);
    expect(error.id).toBeNull();
    const init = await raw.request("initialize", V2_INIT);
    expect(init.result.protocolVersion).toBe(2);
    expect((await raw.close()).code).toBe(0);
  });
});

describe("checkWire", () => {
  const req = (dir: "in" | "out", id: number, method: string, params: unknown): WireEntry => ({
    dir,
    msg: { jsonrpc: "2.0", id, method, params },
  });
  const res = (dir: "in" | "out", id: number, result: unknown): WireEntry => ({
    dir,
    msg: { jsonrpc: "2.0", id, result },
  });
  const note = (dir: "in" | "out", method: string, params: unknown): WireEntry => ({
    dir,
    msg: { jsonrpc: "2.0", method, params },
  });

  it("accepts a valid v2 exchange seen from the client", () => {
    expect(
      findWireProblems(2, [
        req("out", 1, "session/prompt", { sessionId: "s", prompt: [{ type: "text", text: "hi" }] }),
        res("in", 1, { messageId: "u1" }),
        note("in", "session/update", {
          sessionId: "s",
          update: { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" },
        }),
      ]),
    ).toEqual([]);
  });

  it("reports params that break the method's $def", () => {
    const problems = findWireProblems(2, [req("out", 1, "session/prompt", { sessionId: "s", prompt: [] })]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/session\/prompt params is not a valid v2 PromptRequest/);
  });

  it("reports a result that breaks the response $def of its request's method", () => {
    const problems = findWireProblems(1, [
      req("out", 7, "session/prompt", { sessionId: "s", prompt: [] }),
      res("in", 7, { messageId: "u1" }),
    ]);
    expect(problems).toEqual([expect.stringMatching(/session\/prompt result is not a valid v1 PromptResponse/)]);
  });

  it("reports a v1-only method on a v2 wire, a message sent by the wrong side, and a non-JSON line", () => {
    const problems = findWireProblems(2, [
      req("in", 3, "fs/read_text_file", { sessionId: "s", path: "/a" }),
      note("out", "session/update", { sessionId: "s", update: { sessionUpdate: "state_update", state: "running" } }),
      { dir: "in", raw: "{oops" },
    ]);
    expect(problems).toEqual([
      expect.stringMatching(/fs\/read_text_file is not in the v2 schema/),
      expect.stringMatching(/session\/update is handled by the client, but the client sent it/),
      expect.stringMatching(/not a JSON-RPC object/),
    ]);
  });

  it("checks an agent-side log with the directions reversed", () => {
    expect(findWireProblems(2, [req("in", 1, "initialize", V2_INIT)], { side: "agent" })).toEqual([]);
    expect(findWireProblems(2, [req("in", 1, "initialize", V2_INIT)])).toEqual([
      expect.stringMatching(/handled by the agent, but the agent sent it/),
    ]);
  });

  it("checks the items of a batch the recorder sent, and reports a batch it received", () => {
    const batch = [
      { jsonrpc: "2.0", id: 1, method: "session/cancel", params: {} },
      { jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "s" } },
    ];
    expect(findWireProblems(2, [{ dir: "out", msg: batch }])).toEqual([
      expect.stringMatching(/^#0 \(out\)\[0\]: request session\/cancel is not in the v2 schema/),
    ]);
    expect(findWireProblems(2, [{ dir: "in", msg: [] }])).toEqual([expect.stringMatching(/not a JSON-RPC object/)]);
  });

  it("reports a result for an id no request carried, and validates error objects", () => {
    expect(findWireProblems(2, [res("in", 9, {})])).toEqual([expect.stringMatching(/no request on this wire carries/)]);
    expect(findWireProblems(2, [{ dir: "in", msg: { jsonrpc: "2.0", id: 1, error: { code: "bad" } } }])).toEqual([
      expect.stringMatching(/error response is not a valid v2 Error/),
    ]);
  });
});

describe("turn scripts (scenario.ts)", () => {
  it("reads known tags and the [slow:<ms>] argument, ignoring unknown tags", () => {
    const { tags, slowMs } = parseTags("please [tool] and [slow:250] but not [nope]");
    expect([...tags]).toEqual(["tool", "slow"]);
    expect(slowMs).toBe(250);
  });

  it("plans the demo turn (chunks, plan, tool with permission) for a prompt without tags", () => {
    const script = planTurn("Fix the failing test", {
      cwd: CWD,
      additionalDirectories: [],
      mcpServers: [],
      nextId: idGenerator(),
    });
    expect(script.steps.map((s) => s.type)).toEqual(["say", "plan", "tool"]);
    const tool = script.steps[2] as Extract<(typeof script.steps)[number], { type: "tool" }>;
    expect(tool.tool.permission).toBe(true);
  });

  it("writes a git patch with absolute paths, /dev/null for an added file and context-trimmed hunks", () => {
    expect(
      gitPatch([
        { path: "/w/a.txt", oldText: "1\n2\n3\n4\n5\n6\n", newText: "1\n2\n3\nfour\n5\n6\n" },
        { path: "/w/b.txt", oldText: null, newText: "x\ny\n" },
        { path: "/w/c.txt", oldText: "gone\n", newText: "" },
      ]),
    ).toBe(
      [
        "diff --git /w/a.txt /w/a.txt",
        "--- /w/a.txt",
        "+++ /w/a.txt",
        "@@ -1,6 +1,6 @@",
        " 1",
        " 2",
        " 3",
        "-4",
        "+four",
        " 5",
        " 6",
        "diff --git /w/b.txt /w/b.txt",
        "new file mode 100644",
        "--- /dev/null",
        "+++ /w/b.txt",
        "@@ -0,0 +1,2 @@",
        "+x",
        "+y",
        "diff --git /w/c.txt /w/c.txt",
        "--- /w/c.txt",
        "+++ /w/c.txt",
        "@@ -1 +0,0 @@",
        "-gone",
        "",
      ].join("\n"),
    );
  });

  it("produces tool updates that validate against the v2 schema", () => {
    expectValid("v2", "ToolCallContent", {
      type: "diff",
      changes: [{ operation: "add", path: "/w/b.txt", fileType: "text" }],
      patch: { format: "git_patch", text: gitPatch([{ path: "/w/b.txt", oldText: null, newText: "x\n" }]) },
    });
  });
});
