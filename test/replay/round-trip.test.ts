// `acp-bridge convert` on RECORDED conversations (interop/fixtures, real agents' wires), in-process:
// converting to the other version and back gives the original (ids, order, every message) with
// `--stash full`, and every message written validates against the target version's schema.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { ConversationChecker } from "../../src/check/conversation.js";
import { Chain } from "../../src/replay/chain.js";
import { runConvert } from "../../src/replay/command.js";

const dir = mkdtempSync(join(tmpdir(), "acp-bridge-convert-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `acp-bridge convert ARGS` in-process: its status, stdout and stderr. */
async function convert(args: readonly string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const sink = (add: (s: string) => void) =>
    new Writable({
      write(chunk: Buffer, _enc, cb) {
        add(String(chunk));
        cb();
      },
    });
  const status = await runConvert(args, {
    stdin: Readable.from([]),
    stdout: sink((s) => (stdout += s)),
    stderr: sink((s) => (stderr += s)),
    env: { NO_COLOR: "1" },
  });
  return { status, stdout, stderr };
}

let n = 0;
function file(text: string): string {
  const path = join(dir, `in-${String(++n)}.ndjson`);
  writeFileSync(path, text);
  return path;
}

const lines = (text: string): string[] => text.split("\n").filter((l) => l !== "");

/** The messages of a fixture-form text. */
const messages = (text: string): unknown[] => lines(text).map((l) => JSON.parse(l) as unknown);

/** Violations of `check --protocol v` on a fixture-form text. */
function violations(text: string, v: 1 | 2): string[] {
  const checker = new ConversationChecker({ protocol: v, maxPending: 1024 });
  return lines(text).flatMap((l, i) =>
    checker.line(l, i + 1).map((x) => `${String(x.line)} ${x.subject} ${x.path} ${x.wanted}`),
  );
}

describe.each([
  { fixture: "codex-v1", from: 1, to: 2 },
  { fixture: "gemini-v1", from: 1, to: 2 },
  { fixture: "codex-v2", from: 2, to: 1 },
] as const)("$fixture: v$from → v$to → v$from", ({ fixture, from, to }) => {
  const path = `interop/fixtures/${fixture}.ndjson`;
  const original = readFileSync(path, "utf8");

  it("converting to the other version and back gives every original message, in order, with its id", async () => {
    const there = await convert(["--to", String(to), path]);
    expect(there.status, there.stderr).toBe(0);
    const back = await convert(["--to", String(from), file(there.stdout)]);
    expect(back.status, back.stderr).toBe(0);
    expect(messages(back.stdout)).toEqual(messages(original));
  });

  it("gives back the very bytes of every line, the initialize request's member order included", async () => {
    const there = await convert(["--to", String(to), path]);
    const back = await convert(["--to", String(from), file(there.stdout)]);
    expect(lines(back.stdout)).toEqual(lines(original));
  });

  it(`writes only messages valid in v${String(to)}, and says what it read and wrote`, async () => {
    const there = await convert(["--to", String(to), path]);
    expect(violations(there.stdout, to)).toEqual([]);
    expect(violations(original, from)).toEqual([]);
    expect(there.stderr).toMatch(
      new RegExp(
        `v${String(from)} → v${String(to)}: ${String(lines(original).length)} messages read, ${String(lines(there.stdout).length)} written, 0 skipped`,
      ),
    );
  });

  it("with --stash off writes no bridge data at all, still valid", async () => {
    const there = await convert(["--to", String(to), "--stash", "off", path]);
    expect(there.status, there.stderr).toBe(0);
    expect(there.stdout).not.toContain("acp-bridge");
    expect(violations(there.stdout, to)).toEqual([]);
  });
});

describe("the load fixtures (a second connection loading the session back)", () => {
  it.each([
    { fixture: "codex-v1.load", from: 1, to: 2 },
    { fixture: "gemini-v1.load", from: 1, to: 2 },
    // Its replay opens each message with a content-less upsert before the chunk (T §2.2 A↓-3).
    { fixture: "codex-v2.load", from: 2, to: 1 },
  ] as const)(
    "$fixture: v$from → v$to → v$from gives every original line, byte for byte",
    async ({ fixture, from, to }) => {
      const path = `interop/fixtures/${fixture}.ndjson`;
      const there = await convert(["--to", String(to), path]);
      expect(there.status, there.stderr).toBe(0);
      const back = await convert(["--to", String(from), file(there.stdout)]);
      expect(lines(back.stdout)).toEqual(lines(readFileSync(path, "utf8")));
    },
  );
});

describe("the bridge fixtures (a live bridge's client side: its stash and marker inside)", () => {
  /** Who sent each message, its id, its method, and whether it is an error: what a round trip keeps. */
  const shape = (text: string) =>
    (messages(text) as { from: string; message: Record<string, unknown> }[]).map(({ from, message: m }) => ({
      from,
      id: m.id,
      method: m.method,
      error: "error" in m,
    }));

  it.each([
    { fixture: "codex-v1-bridge-v2", from: 1, to: 2 },
    { fixture: "codex-v1-bridge-v2.load", from: 1, to: 2 },
    { fixture: "codex-v2-bridge-v1", from: 2, to: 1 },
    { fixture: "codex-v2-bridge-v1.load", from: 2, to: 1 },
    { fixture: "gemini-v2-bridge-v1", from: 2, to: 1 },
    { fixture: "gemini-v2-bridge-v1.load", from: 2, to: 1 },
  ] as const)(
    "$fixture: v$from → v$to → v$from gives every message back, in order, with its id and its kind (no wait for a channel the recorded bridge never opened)",
    async ({ fixture, from, to }) => {
      const original = readFileSync(`interop/fixtures/${fixture}.ndjson`, "utf8");
      const there = await convert(["--to", String(to), `interop/fixtures/${fixture}.ndjson`]);
      expect(there.status, there.stderr).toBe(0);
      expect(there.stderr).toMatch(/, 0 skipped\n$/);
      expect(violations(there.stdout, to)).toEqual([]);
      const back = await convert(["--to", String(from), file(there.stdout)]);
      expect(back.status, back.stderr).toBe(0);
      expect(back.stderr).toMatch(/, 0 skipped\n$/);
      expect(shape(back.stdout)).toEqual(shape(original));
    },
  );
});

describe("a client asking v2 of an agent that answers v1 (the v1 negotiation rule)", () => {
  // gemini-v1's client asking 2: the agent's answer (1) settles the recording's version.
  const original = readFileSync("interop/fixtures/gemini-v1.ndjson", "utf8").replace(
    '"protocolVersion":1',
    '"protocolVersion":2',
  );

  it("is read as the version the agent answered: converted to v2, valid", async () => {
    const there = await convert(["--to", "2", file(original)]);
    expect(there.status, there.stderr).toBe(0);
    expect(there.stderr).toMatch(/v1 → v2: 22 messages read, \d+ written, 0 skipped/);
    expect(violations(there.stdout, 2)).toEqual([]);
  });

  it("is written unchanged to v1, the version it speaks", async () => {
    const there = await convert(["--to", "1", file(original)]);
    expect(there.status, there.stderr).toBe(0);
    expect(there.stderr).toContain("the recording already speaks v1: written unchanged");
    expect(there.stdout).toBe(original);
  });

  it("round trips but for the version the client asked for: back in v1 it asks 1, as a v1 client does", async () => {
    const there = await convert(["--to", "2", file(original)]);
    const back = await convert(["--to", "1", file(there.stdout)]);
    expect(back.status, back.stderr).toBe(0);
    const [init, ...rest] = messages(back.stdout) as { message: { params: { protocolVersion: number } } }[];
    const [origInit, ...origRest] = messages(original) as typeof rest;
    expect(rest).toEqual(origRest);
    expect(init).toEqual({
      ...origInit,
      message: { ...origInit?.message, params: { ...origInit?.message.params, protocolVersion: 1 } },
    });
  });
});

describe("an elicitation tied to a pending request (its requestId names that request)", () => {
  // The agent asks the user while the client's session/new (recorded id 41) waits; the ids are not
  // the ones the bridges allocate, so a requestId left as the recording's names no request of theirs.
  const recording = (v: 1 | 2): string =>
    [
      {
        from: "client",
        message: {
          jsonrpc: "2.0",
          id: 40,
          method: "initialize",
          params:
            v === 1
              ? {
                  protocolVersion: 1,
                  clientInfo: { name: "editor", version: "1" },
                  clientCapabilities: { elicitation: { form: {} } },
                }
              : {
                  protocolVersion: 2,
                  info: { name: "editor", version: "1" },
                  capabilities: { elicitation: { form: {} } },
                },
        },
      },
      {
        from: "agent",
        message: {
          jsonrpc: "2.0",
          id: 40,
          result:
            v === 1
              ? {
                  protocolVersion: 1,
                  agentInfo: { name: "agent", version: "1" },
                  agentCapabilities: {},
                  authMethods: [],
                }
              : {
                  protocolVersion: 2,
                  info: { name: "agent", version: "1" },
                  capabilities: { session: {} },
                  authMethods: [],
                },
        },
      },
      {
        from: "client",
        message: { jsonrpc: "2.0", id: 41, method: "session/new", params: { cwd: "/ws", mcpServers: [] } },
      },
      {
        from: "agent",
        message: {
          jsonrpc: "2.0",
          id: "ask-1",
          method: "elicitation/create",
          params: {
            message: "Which profile?",
            mode: "form",
            requestId: 41,
            requestedSchema: { type: "object", properties: { profile: { type: "string" } } },
          },
        },
      },
      {
        from: "client",
        message: { jsonrpc: "2.0", id: "ask-1", result: { action: "accept", content: { profile: "work" } } },
      },
      { from: "agent", message: { jsonrpc: "2.0", id: 41, result: { sessionId: "s1" } } },
    ]
      .map((e) => `${JSON.stringify(e)}\n`)
      .join("");

  it.each([
    { from: 1, to: 2 },
    { from: 2, to: 1 },
  ] as const)("v$from → v$to: is written naming the recorded request, and round trips", async ({ from, to }) => {
    const original = recording(from);
    const there = await convert(["--to", String(to), file(original)]);
    expect(there.status, there.stderr).toBe(0);
    expect(there.stderr).toContain("6 messages read, 6 written, 0 skipped");
    expect(violations(there.stdout, to)).toEqual([]);
    const asked = messages(there.stdout).find(
      (e) => (e as { message: { method?: string } }).message.method === "elicitation/create",
    );
    expect(asked).toMatchObject({ from: "agent", message: { id: "ask-1", params: { requestId: 41 } } });
    const back = await convert(["--to", String(from), file(there.stdout)]);
    expect(back.status, back.stderr).toBe(0);
    expect(messages(back.stdout)).toEqual(messages(original));
  });
});

describe("the chain's own bookkeeping", () => {
  it("a v2 recording's prompt is acked to its client by the A bridge's prompt_accepted, under the B bridge's own id", async () => {
    const entries = lines(readFileSync("interop/fixtures/codex-v2.ndjson", "utf8")).map(
      (l) => JSON.parse(l) as { from: "client" | "agent"; message: Record<string, unknown> },
    );
    const toClient: Record<string, unknown>[] = [];
    const chain = new Chain({
      from: 2,
      to: 1,
      stash: "full",
      recordedBetweenBridges: false,
      maxPending: 1024,
      write: () => undefined,
      skip: () => undefined,
      atEnd: (peer, msg) => {
        if (peer === "client") toClient.push(msg);
      },
    });
    for (const [i, e] of entries.entries()) await chain.feed({ from: e.from, msg: e.message, line: i + 1 });
    chain.end();
    const prompt = entries.find((e) => e.message.method === "session/prompt")?.message;
    const answers = toClient.filter((m) => m.method === undefined && m.id === prompt?.id);
    // The ack (the agent's own message id), and no "never accepted" error at the turn's end.
    expect(answers).toEqual([{ jsonrpc: "2.0", id: prompt?.id, result: { messageId: expect.any(String) } }]);
  });
});

describe("output for people (issue 23, item 4)", () => {
  /** convert from stdin delivered in two chunks 250 ms apart, stderr a terminal. */
  async function onTerminal(env: NodeJS.ProcessEnv, input: string): Promise<string> {
    let stderr = "";
    const half = Math.floor(input.length / 2);
    async function* slowly() {
      yield Buffer.from(input.slice(0, half));
      await new Promise((r) => setTimeout(r, 250));
      yield Buffer.from(input.slice(half));
    }
    const tty = Object.assign(
      new Writable({
        write(chunk: Buffer, _enc, cb) {
          stderr += String(chunk);
          cb();
        },
      }),
      { isTTY: true },
    );
    await runConvert(["--to", "2"], {
      stdin: Readable.from(slowly()),
      stdout: new Writable({ write: (_c, _e, cb) => cb() }),
      stderr: tty,
      env,
    });
    return stderr;
  }
  const refused = `${readFileSync("interop/fixtures/gemini-v1.ndjson", "utf8")}{"from":"client","message":{"jsonrpc":"2.0","id":9,"method":"session/new","params":{"cwd":5,"mcpServers":[]}}}\n`;

  it("shows progress on a terminal and marks what was not converted in red", async () => {
    const stderr = await onTerminal({}, refused);
    expect(stderr).toContain("\r\u001b[Kconverting <stdin>: ");
    expect(stderr).toContain("\u001b[31mnot converted\u001b[0m");
  });

  it("writes no colour with NO_COLOR, even on a terminal", async () => {
    const stderr = await onTerminal({ NO_COLOR: "1" }, refused);
    expect(stderr).toContain("not converted");
    expect(stderr).not.toContain("\u001b[31m");
  });
});
