// Diffs made exact from the real files, on an in-memory bridge with a real temporary directory
// (docs/decisions.md#v2-diffs-toward-v1, T §3.3): direction A gives a v1 client `{type:"diff"}` items with the
// exact full texts, in tool calls and permission requests, pending and applied; direction B places a
// v1 agent's snippet in the file for a true v2 patch. Every message the bridge writes is schema-checked.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { diffTable } from "../../mappings/diff.js";
import { limits } from "../../mappings/limits.js";
import { gitPatchSection } from "../../src/convert/git-patch.js";
import { diffFiles } from "../../src/engine/files.js";

/** The file's text as the engine reads it for a v1 snippet diff naming it, or `undefined`. */
function readTextFile(path: string, maxBytes: number): string | undefined {
  return diffFiles([{ type: "diff", path, oldText: "x", newText: "y" }], 1, maxBytes)?.get(path);
}
import { harness, type Harness } from "../support/harness.js";

const S = "s1";
/** Every harness a test opened: what each bridge wrote must be schema-valid. */
const opened: Harness[] = [];
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "acp-bridge-diffs-"));
  mkdirSync(join(dir, "src"));
});

afterEach(() => {
  for (const h of opened.splice(0)) expect(h.violations).toEqual([]);
  rmSync(dir, { recursive: true, force: true });
});

const update = (u: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  method: "session/update",
  params: { sessionId: S, update: u },
});

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i}\n`).join("");
const OLD = lines(30);
const NEW = OLD.replace("line 15\n", "line fifteen\n");

/** What a bridge puts in its `initialize` `_meta` (T §5.5): the peer then counts as a bridge. */
const marker = (clientProtocol: 1 | 2, agentProtocol: 1 | 2) => ({
  "acp-bridge": {
    v: 1,
    from: clientProtocol,
    hadMeta: false,
    bridge: { name: "acp-bridge", version: "9" },
    clientProtocol,
    agentProtocol,
  },
});

/** A v1 client (a B bridge when `bridgeClient`) in front of a v2 agent, session cwd the temp dir. */
async function directionA(options: Parameters<typeof harness>[0] = {}, bridgeClient = false): Promise<Harness> {
  const h = harness(options);
  opened.push(h);
  const params: Record<string, unknown> = { protocolVersion: 1, clientCapabilities: {} };
  if (bridgeClient) params._meta = marker(2, 1);
  h.client({ jsonrpc: "2.0", id: 0, method: "initialize", params });
  await h.settle();
  const [probe1] = h.takeAgent();
  h.agent({
    jsonrpc: "2.0",
    id: probe1.id,
    error: { code: -32022, message: "Unsupported protocol version", data: { requested: 1, supported: [2] } },
  });
  await h.settle();
  const [probe2] = h.takeAgent();
  h.agent({
    jsonrpc: "2.0",
    id: probe2.id,
    result: { protocolVersion: 2, info: { name: "agent", version: "1" }, capabilities: { session: {} } },
  });
  await h.settle();
  h.takeClient();
  expect(h.bridge.mode).toBe("A");
  h.client({ jsonrpc: "2.0", id: "new", method: "session/new", params: { cwd: dir, mcpServers: [] } });
  const [req] = h.takeAgent();
  h.agent({ jsonrpc: "2.0", id: req.id, result: { sessionId: S } });
  await h.settle();
  h.takeClient();
  return h;
}

/** A v2 client (an A bridge when `bridgeClient`) in front of a v1 agent, session cwd the temp dir. */
async function directionB(options: Parameters<typeof harness>[0] = {}, bridgeClient = false): Promise<Harness> {
  const h = harness({ ackGraceMs: 0, ...options });
  opened.push(h);
  const params: Record<string, unknown> = { protocolVersion: 2, info: { name: "zed", version: "1" }, capabilities: {} };
  if (bridgeClient) params._meta = marker(1, 2);
  h.client({ jsonrpc: "2.0", id: 0, method: "initialize", params });
  await h.settle();
  const [probe2] = h.takeAgent();
  h.agent({ jsonrpc: "2.0", id: probe2.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
  await h.settle();
  const [probe1] = h.takeAgent();
  h.agent({ jsonrpc: "2.0", id: probe1.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
  await h.settle();
  h.takeClient();
  expect(h.bridge.mode).toBe("B");
  h.client({ jsonrpc: "2.0", id: "new", method: "session/new", params: { cwd: dir } });
  const [req] = h.takeAgent();
  h.agent({ jsonrpc: "2.0", id: req.id, result: { sessionId: S } });
  await h.settle();
  h.takeClient();
  return h;
}

function v2Edit(path: string, status: string, oldText = OLD, newText = NEW) {
  return {
    sessionUpdate: "tool_call_update",
    toolCallId: "t1",
    title: "Edit",
    kind: "edit",
    status,
    content: [
      {
        type: "diff",
        changes: [{ operation: "modify", path, fileType: "text" }],
        patch: { format: "git_patch", text: gitPatchSection("modify", path, oldText, newText) },
      },
    ],
  };
}

/** The v1 content items without the bridge's stash (what a plain v1 client relies on). */
const plain = (content: any[]) =>
  content.map((c) => {
    const rest = { ...c };
    delete rest._meta;
    return rest;
  });

describe("direction A: v2 diffs reach a v1 client as v1 diffs with the exact texts", () => {
  it("reads the file: the pending edit's texts, then the applied edit's, both exact", async () => {
    const h = await directionA();
    const path = join(dir, "src", "f.txt");
    writeFileSync(path, OLD);
    h.agent(update(v2Edit(path, "pending")));
    const [announced] = h.takeClient();
    expect(announced.params.update.sessionUpdate).toBe("tool_call");
    expect(plain(announced.params.update.content)).toEqual([{ type: "diff", path, oldText: OLD, newText: NEW }]);
    // The agent writes the file, then reports the tool completed with the same diff.
    writeFileSync(path, NEW);
    h.agent(update(v2Edit(path, "completed")));
    const [done] = h.takeClient();
    expect(done.params.update).toMatchObject({ sessionUpdate: "tool_call_update", status: "completed" });
    expect(plain(done.params.update.content)).toEqual([{ type: "diff", path, oldText: OLD, newText: NEW }]);
  });

  it("repeats on a completion without content the diff it showed, its file not read again", async () => {
    const h = await directionA();
    const path = join(dir, "src", "f.txt");
    writeFileSync(path, OLD);
    h.agent(update(v2Edit(path, "in_progress")));
    const [shown] = h.takeClient();
    expect(plain(shown.params.update.content)).toEqual([{ type: "diff", path, oldText: OLD, newText: NEW }]);
    // The file no longer fits the patch: read again, the diff would fall back to its hunks.
    writeFileSync(path, "rewritten by someone else\n");
    h.agent(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" }));
    const [done] = h.takeClient();
    expect(done.params.update).toEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: "t1",
      status: "completed",
      content: shown.params.update.content,
    });
  });

  it("reads the file again on the completion of a diff too large to remember (limits.shownContentChars)", async () => {
    const h = await directionA();
    const path = join(dir, "src", "big.txt");
    const old = lines(5000);
    const edited = old.replace("line 2500\n", "line 2.5k\n");
    expect(old.length * 2).toBeGreaterThan(limits.shownContentChars.default);
    writeFileSync(path, old);
    h.agent(update(v2Edit(path, "in_progress", old, edited)));
    const [shown] = h.takeClient();
    expect(plain(shown.params.update.content)).toEqual([{ type: "diff", path, oldText: old, newText: edited }]);
    writeFileSync(path, "rewritten by someone else\n");
    h.agent(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" }));
    const [done] = h.takeClient();
    // Read again: the file no longer fits the patch, and the hunks are all the diff has.
    const [item] = plain(done.params.update.content);
    expect(item.oldText).toBe(old.split("\n").slice(2497, 2504).join("\n") + "\n");
  });

  it("reads the file again for a diff the agent sends again, and for a repeat of content with a terminal", async () => {
    const h = await directionA();
    const path = join(dir, "src", "f.txt");
    writeFileSync(path, OLD);
    h.agent(update(v2Edit(path, "in_progress")));
    h.takeClient();
    writeFileSync(path, "rewritten by someone else\n");
    // The same diff, sent again: a new list, rendered from the file as it is now (its hunks).
    h.agent(update(v2Edit(path, "in_progress")));
    const [again] = h.takeClient();
    const hunkOld = lines(19).split("\n").slice(12).join("\n");
    expect(plain(again.params.update.content)).toEqual([
      { type: "diff", path, oldText: hunkOld, newText: hunkOld.replace("line 15\n", "line fifteen\n") },
    ]);
    // A list with a terminal shows the transcript as it stands on the completion that repeats it.
    const withTerminal = v2Edit(path, "in_progress");
    withTerminal.toolCallId = "t2";
    withTerminal.content = [...withTerminal.content, { type: "terminal", terminalId: "term1" } as never];
    h.agent(update(withTerminal));
    h.agent(
      update({ sessionUpdate: "terminal_update", terminalId: "term1", command: "make", exitStatus: { exitCode: 0 } }),
    );
    h.takeClient();
    h.agent(update({ sessionUpdate: "tool_call_update", toolCallId: "t2", status: "completed" }));
    const [done] = h.takeClient();
    expect(done.params.update.content[1]).toEqual({
      type: "content",
      content: { type: "text", text: "```console\n$ make\n```\nExited with code 0" },
    });
  });

  it("gives a permission request's subject the pending edit's exact texts", async () => {
    const h = await directionA();
    const path = join(dir, "src", "f.txt");
    writeFileSync(path, OLD);
    const toolCall: Record<string, unknown> = { ...v2Edit(path, "pending") };
    delete toolCall.sessionUpdate;
    h.agent({
      jsonrpc: "2.0",
      id: 9,
      method: "session/request_permission",
      params: {
        sessionId: S,
        title: "Edit f.txt?",
        subject: { type: "tool_call", toolCall },
        options: [{ optionId: "ok", name: "OK", kind: "allow_once" }],
      },
    });
    const out = h.takeClient();
    const perm = out.find((m) => m.method === "session/request_permission");
    expect(plain(perm.params.toolCall.content)).toEqual([{ type: "diff", path, oldText: OLD, newText: NEW }]);
    const announce = out.find((m) => m.method === "session/update");
    expect(plain(announce.params.update.content)).toEqual([{ type: "diff", path, oldText: OLD, newText: NEW }]);
  });

  it("falls back to the hunk texts as a v1 diff when the file cannot be read, or is over the bound", async () => {
    for (const [options, write] of [
      [{}, false],
      [{ diffFileMaxBytes: 100 }, true],
    ] as const) {
      const h = await directionA(options);
      const path = join(dir, "src", "f.txt");
      if (write) writeFileSync(path, OLD);
      h.agent(update(v2Edit(path, "pending")));
      const [announced] = h.takeClient();
      const [item] = announced.params.update.content;
      expect(item).toMatchObject({ type: "diff", path });
      expect(item.oldText).toBe(lines(19).split("\n").slice(12).join("\n"));
      expect(item.newText).toBe(item.oldText.replace("line 15\n", "line fifteen\n"));
      rmSync(path, { force: true });
    }
  });

  it("keeps the markdown rendering as --diff-rendering text", async () => {
    const h = await directionA({ diffRendering: "text" });
    const path = join(dir, "src", "f.txt");
    writeFileSync(path, OLD);
    h.agent(update(v2Edit(path, "pending")));
    const [announced] = h.takeClient();
    const [item] = announced.params.update.content;
    expect(item.type).toBe("content");
    expect(item.content.text).toContain("```diff");
  });
});

describe("direction B: a v1 agent's snippet diff is placed in the real file", () => {
  const FILE = "// header\n\nexport function hello() {\n  return 1;\n}\n// end";
  const PLACED = FILE.replace("return 1;", "return 2;");

  it("gives the v2 client a patch with true line numbers and the file's own end, for a relative path", async () => {
    const h = await directionB();
    const path = join(dir, "src", "hello.ts");
    writeFileSync(path, FILE);
    h.agent(
      update({
        sessionUpdate: "tool_call",
        toolCallId: "t1",
        title: "Edit hello.ts",
        kind: "edit",
        status: "pending",
        content: [{ type: "diff", path: "src/hello.ts", oldText: "return 1;", newText: "return 2;" }],
      }),
    );
    const out = h.takeClient();
    const tc = out.find((m) => m.params?.update?.sessionUpdate === "tool_call_update");
    const [diff] = tc.params.update.content;
    expect(diff.changes).toEqual([{ operation: "modify", path, fileType: "text" }]);
    expect(diff.patch.text).toBe(gitPatchSection("modify", path, FILE, PLACED));
    expect(diff.patch.text).toContain("@@ -1,6 +1,6 @@\n");
    expect(diff.patch.text).toContain(diffTable.noNewlineMarker); // the file's own end: "// end" has none
  });

  it("places an applied snippet in a completed tool call, and a pending one in a permission request", async () => {
    const h = await directionB();
    const path = join(dir, "src", "hello.ts");
    writeFileSync(path, FILE);
    const content = [{ type: "diff", path, oldText: "return 1;", newText: "return 2;" }];
    h.agent({
      jsonrpc: "2.0",
      id: 5,
      method: "session/request_permission",
      params: {
        sessionId: S,
        toolCall: { toolCallId: "t1", title: "Edit", kind: "edit", content },
        options: [{ optionId: "ok", name: "OK", kind: "allow_once" }],
      },
    });
    await h.settle();
    const perm = h.takeClient().find((m) => m.method === "session/request_permission");
    expect(perm.params.subject.toolCall.content[0].patch.text).toBe(gitPatchSection("modify", path, FILE, PLACED));
    writeFileSync(path, PLACED);
    h.agent(update({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed", content }));
    const done = h.takeClient().find((m) => m.params?.update?.sessionUpdate === "tool_call_update");
    expect(done.params.update.content[0].patch.text).toBe(gitPatchSection("modify", path, FILE, PLACED));
  });

  it("marks a snippet it cannot place once with the snippet heading (a tool_call without status is pending)", async () => {
    const h = await directionB();
    const path = join(dir, "src", "hello.ts");
    writeFileSync(path, FILE);
    h.agent(
      update({
        sessionUpdate: "tool_call",
        toolCallId: "t1",
        title: "Edit",
        content: [{ type: "diff", path, oldText: "not there", newText: "x" }],
      }),
    );
    const tc = h.takeClient().find((m) => m.params?.update?.sessionUpdate === "tool_call_update");
    expect(tc.params.update.content[0].patch.text).toContain(`@@ ${diffTable.snippetHeading}\n`);
  });
});

describe("chained bridges at the default stash level: the far end gets the source diff exactly", () => {
  it("v1 agent → B → A → v1 client: the snippet item, not the file's texts", async () => {
    const path = join(dir, "src", "f.txt");
    writeFileSync(path, OLD);
    const b = await directionB({}, true);
    const a = await directionA({}, true);
    const item = { type: "diff", path, oldText: "line 15\n", newText: "line fifteen\n" };
    b.agent(update({ sessionUpdate: "tool_call", toolCallId: "t1", title: "Edit", kind: "edit", content: [item] }));
    const v2 = b.takeClient().filter((m) => m.method === "session/update");
    expect(v2[0].params.update.content[0].patch.text).toBe(gitPatchSection("modify", path, OLD, NEW));
    for (const m of v2) a.agent(m);
    await a.settle();
    const v1 = a.takeClient().find((m) => m.params?.update?.sessionUpdate === "tool_call");
    expect(v1.params.update.content).toEqual([item]);
  });

  it("v2 agent → A → B → v2 client: the v2 diff item, not a patch made from the file's texts", async () => {
    const path = join(dir, "src", "f.txt");
    writeFileSync(path, OLD);
    const a = await directionA({}, true);
    const b = await directionB({}, true);
    const edit = v2Edit(path, "pending");
    a.agent(update(edit));
    const v1 = a.takeClient().filter((m) => m.method === "session/update");
    expect(plain(v1[0].params.update.content)).toEqual([{ type: "diff", path, oldText: OLD, newText: NEW }]);
    for (const m of v1) b.agent(m);
    await b.settle();
    const v2 = b.takeClient().find((m) => m.params?.update?.sessionUpdate === "tool_call_update");
    expect(v2.params.update.content).toEqual(edit.content);
  });
});

describe("readTextFile: bounded, regular UTF-8 text files only", () => {
  it("reads a text file exactly (BOM and CRLF kept) and nothing else", () => {
    const p = join(dir, "t.txt");
    writeFileSync(p, "\uFEFFa\r\nb");
    expect(readTextFile(p, 100)).toBe("\uFEFFa\r\nb");
    expect(readTextFile(p, 3)).toBeUndefined(); // over the bound
    expect(readTextFile(p, 0)).toBeUndefined(); // reading off
    writeFileSync(p, Buffer.from([0x61, 0x00, 0x62]));
    expect(readTextFile(p, 100)).toBeUndefined(); // NUL: binary
    writeFileSync(p, Buffer.from([0x61, 0xff]));
    expect(readTextFile(p, 100)).toBeUndefined(); // not UTF-8
    expect(readTextFile(join(dir, "src"), 100)).toBeUndefined(); // a directory
    expect(readTextFile(join(dir, "missing"), 100)).toBeUndefined();
  });

  it.skipIf(process.platform === "win32")("never blocks on a FIFO", () => {
    const p = join(dir, "fifo");
    execFileSync("mkfifo", [p]);
    expect(readTextFile(p, 100)).toBeUndefined();
  });
});
