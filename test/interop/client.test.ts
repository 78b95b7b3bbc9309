// The interop suite's raw client (interop/client.ts) against scripted fake agents: it plays the
// turn, answers permission requests with the first allow option, answers fs/terminal requests
// although it did not advertise them, detects the turn end of each version, and reports timeouts.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runClient } from "../../interop/client.js";

/** A fake agent: answers initialize and session/new, then plays `turn` (JS source) on the prompt. */
function fakeAgent(version: 1 | 2, turn: string): string {
  return `
const rl = require("node:readline").createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\\n");
const waiting = new Map();
let next = 100;
const ask = (method, params) => new Promise((resolve) => { const id = next++; waiting.set(id, resolve); send({ id, method, params }); });
rl.on("close", () => process.exit(0));
const update = (update) => send({ method: "session/update", params: { sessionId: "s", update } });
rl.on("line", async (line) => {
  const m = JSON.parse(line);
  if (m.id !== undefined && m.method === undefined) { waiting.get(m.id)?.(m); return; }
  if (m.method === "initialize")
    send({ id: m.id, result: ${version === 1 ? "{ protocolVersion: 1, agentCapabilities: {} }" : '{ protocolVersion: 2, info: { name: "fake", version: "1" }, capabilities: {} }'} });
  if (m.method === "session/new") send({ id: m.id, result: { sessionId: "s" } });
  if (m.method === "session/prompt") { ${turn} }
});
`;
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), "interop-client-"));
  dirs.push(dir);
  writeFileSync(join(dir, "a.txt"), "hello\n");
  return dir;
}

const env = { PATH: process.env.PATH ?? "" };

describe("interop raw client", () => {
  it("v1: answers permission, fs and terminal requests, and ends the turn on the prompt response", async () => {
    const cwd = workspace();
    const turn = `
      const perm = await ask("session/request_permission", { sessionId: "s", toolCall: { toolCallId: "t" },
        options: [{ optionId: "no", name: "No", kind: "reject_once" }, { optionId: "yes", name: "Yes", kind: "allow_once" }] });
      const read = await ask("fs/read_text_file", { sessionId: "s", path: process.cwd() + "/a.txt" });
      await ask("fs/write_text_file", { sessionId: "s", path: process.cwd() + "/b.txt", content: read.result.content.toUpperCase() });
      const term = await ask("terminal/create", { sessionId: "s", command: "echo", args: ["hi"] });
      const exit = await ask("terminal/wait_for_exit", { sessionId: "s", terminalId: term.result.terminalId });
      const output = await ask("terminal/output", { sessionId: "s", terminalId: term.result.terminalId });
      await ask("terminal/release", { sessionId: "s", terminalId: term.result.terminalId });
      update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: JSON.stringify([perm.result, exit.result, output.result.output]) } });
      send({ id: m.id, result: { stopReason: "end_turn" } });`;
    const run = await runClient({
      version: 1,
      launch: { command: process.execPath, args: ["-e", fakeAgent(1, turn)], env: {} },
      env,
      cwd,
      timeoutMs: 20_000,
      settleMs: 0,
    });
    expect(run.failure).toBe("");
    expect(run.problems).toEqual([]);
    expect(readFileSync(join(cwd, "b.txt"), "utf8")).toBe("HELLO\n");
    const init = run.wire[0]!.msg as any;
    expect(init.params.clientCapabilities).toEqual({
      fs: { readTextFile: false, writeTextFile: false },
      terminal: false,
      _meta: { terminal_output: true },
    });
    const said = run.wire.find((e) => (e.msg as any).params?.update?.sessionUpdate === "agent_message_chunk");
    expect(JSON.parse((said!.msg as any).params.update.content.text)).toEqual([
      { outcome: { outcome: "selected", optionId: "yes" } },
      { exitCode: 0, signal: null },
      "hi\n",
    ]);
  });

  it("as an editor: advertises fs and terminals, reads the unsaved buffer before the disk, and writes only the buffer", async () => {
    const cwd = workspace();
    const turn = `
      const buffered = await ask("fs/read_text_file", { sessionId: "s", path: process.cwd() + "/a.txt" });
      const lines = await ask("fs/read_text_file", { sessionId: "s", path: process.cwd() + "/a.txt", line: 2, limit: 1 });
      await ask("fs/write_text_file", { sessionId: "s", path: process.cwd() + "/b.txt", content: "new\\n" });
      const back = await ask("fs/read_text_file", { sessionId: "s", path: process.cwd() + "/b.txt" });
      update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: JSON.stringify([buffered.result.content, lines.result.content, back.result.content]) } });
      send({ id: m.id, result: { stopReason: "end_turn" } });`;
    const run = await runClient({
      version: 1,
      launch: { command: process.execPath, args: ["-e", fakeAgent(1, turn)], env: {} },
      env,
      cwd,
      timeoutMs: 20_000,
      settleMs: 0,
      editor: { buffers: { [join(cwd, "a.txt")]: "one\ntwo\nthree\n" }, prompt: "edit" },
    });
    expect(run.failure).toBe("");
    expect(run.problems).toEqual([]);
    expect((run.wire[0]!.msg as any).params.clientCapabilities).toEqual({
      fs: { readTextFile: true, writeTextFile: true },
      terminal: true,
      _meta: { terminal_output: true },
    });
    const said = run.wire.find((e) => (e.msg as any).params?.update?.sessionUpdate === "agent_message_chunk");
    expect(JSON.parse((said!.msg as any).params.update.content.text)).toEqual(["one\ntwo\nthree\n", "two\n", "new\n"]);
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("hello\n");
    expect(existsSync(join(cwd, "b.txt"))).toBe(false);
  });

  it("v2: waits for the idle state_update after the prompt response", async () => {
    const turn = `
      send({ id: m.id, result: { messageId: "u1" } });
      update({ sessionUpdate: "state_update", state: "running" });
      setTimeout(() => update({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" }), 300);`;
    const run = await runClient({
      version: 2,
      launch: { command: process.execPath, args: ["-e", fakeAgent(2, turn)], env: {} },
      env,
      cwd: workspace(),
      timeoutMs: 20_000,
      settleMs: 0,
    });
    expect(run.failure).toBe("");
    expect(run.problems).toEqual([]);
    expect((run.wire[0]!.msg as any).params.capabilities).toEqual({ _meta: { terminal_output: true } });
    expect(run.wire.some((e) => (e.msg as any).params?.update?.state === "idle")).toBe(true);
  });

  it("reports a turn that never ends, and an agent that exits", async () => {
    const hang = await runClient({
      version: 2,
      launch: {
        command: process.execPath,
        args: ["-e", fakeAgent(2, `send({ id: m.id, result: { messageId: "u" } });`)],
        env: {},
      },
      env,
      cwd: workspace(),
      timeoutMs: 1_000,
      settleMs: 0,
    });
    expect(hang.failure).toBe("timed out after 1000 ms");
    const exit = await runClient({
      version: 1,
      launch: { command: process.execPath, args: ["-e", fakeAgent(1, "process.exit(3);")], env: {} },
      env,
      cwd: workspace(),
      timeoutMs: 20_000,
      settleMs: 0,
    });
    expect(exit.failure).toMatch(/agent exited \(code 3/);
  });
});
