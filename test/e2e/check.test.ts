// `acp-bridge check` through the BUILT CLI (issue 23, item 3): recorded conversations (the bridge's
// own `--trace`, NDJSON of one connection bare or with `dir` markers) checked against the official
// schemas offline; a violation is one line naming the line, the method, the JSON path and what the
// schema wanted; status 0 clean, 1 on a violation, 2 on a usage error.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnRaw } from "../support/peers.js";

const TIMEOUT = 60_000;
let dir = "";

/** `acp-bridge check ARGS` (stdin from `input`), its status and both outputs. */
function check(args: readonly string[], input?: string) {
  const r = spawnSync(process.execPath, ["bin/acp-bridge.js", "check", ...args], {
    input: input ?? "",
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: undefined },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function file(name: string, lines: readonly string[]): string {
  const path = join(dir, name);
  writeFileSync(path, lines.map((l) => `${l}\n`).join(""));
  return path;
}

/** A real run: a client of `clientVersion` through the bridge (with --trace) to a demo agent of the other version. */
async function record(clientVersion: 1 | 2): Promise<string[]> {
  const trace = join(dir, `run-v${String(clientVersion)}.jsons`);
  const agent = clientVersion === 1 ? "dist/src/demo/agent-v2.js" : "dist/src/demo/agent-v1.js";
  const peer = spawnRaw(process.execPath, ["bin/acp-bridge.js", "--trace", trace, "--", process.execPath, agent]);
  try {
    const init = await peer.request(
      "initialize",
      clientVersion === 1
        ? { protocolVersion: 1, clientCapabilities: {} }
        : { protocolVersion: 2, info: { name: "test", version: "1" }, capabilities: {} },
    );
    expect(init.result).toMatchObject({ protocolVersion: clientVersion });
    const s = await peer.request("session/new", { cwd: process.cwd(), mcpServers: [] });
    const sessionId = (s.result as { sessionId: string }).sessionId;
    expect(typeof sessionId).toBe("string");
    const p = await peer.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "[chunks] [thought] [plan] [term]" }],
    });
    expect(p.error).toBeUndefined();
  } finally {
    await peer.close();
  }
  return readFileSync(trace, "utf8").split("\n").filter(Boolean);
}

let traceA: string[] = [];
let traceB: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "acp-bridge-check-"));
  [traceA, traceB] = await Promise.all([record(1), record(2)]);
}, TIMEOUT);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The 1-based line of the first trace event matching `pred`. */
function lineOf(lines: readonly string[], pred: (e: Record<string, any>) => boolean): number {
  const i = lines.findIndex((l) => pred(JSON.parse(l) as Record<string, any>));
  expect(i).toBeGreaterThanOrEqual(0);
  return i + 1;
}

/** `lines` with line `n` (1-based) rewritten by `edit`. */
function seeded(lines: readonly string[], n: number, edit: (e: Record<string, any>) => void): string[] {
  return lines.map((l, i) => {
    if (i !== n - 1) return l;
    const e = JSON.parse(l) as Record<string, any>;
    edit(e);
    return JSON.stringify(e);
  });
}

describe("acp-bridge check (built CLI)", () => {
  it("passes the bridge's own trace of a v1 client and a v2 agent with status 0", () => {
    const r = check([file("a.jsons", traceA)]);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(new RegExp(`a\\.jsons: ${String(traceA.length)} messages, 0 violations\\n$`));
    expect(r.status).toBe(0);
  });

  it("passes the bridge's own trace of a v2 client and a v1 agent with status 0", () => {
    const r = check([file("b.jsons", traceB)]);
    expect(r.stdout).toBe("");
    expect(r.status).toBe(0);
  });

  it("reports a wrong type deep in a request's params with its line, method, direction and path", () => {
    const n = lineOf(traceA, (e) => e.method === "session/prompt" && e.from === "client");
    const path = file(
      "deep.jsons",
      seeded(traceA, n, (e) => (e.params.prompt[0].text = 5)),
    );
    const r = check([path]);
    expect(r.stdout).toBe(
      `${path}:${String(n)}: session/prompt request client→acp-bridge: /params/prompt/0/text: must be string\n`,
    );
    expect(r.stderr).toContain("1 violation\n");
    expect(r.status).toBe(1);
  });

  it("reports a missing required field where the object lacks it", () => {
    const n = lineOf(traceA, (e) => e.method === "session/new" && e.to === "agent");
    const path = file(
      "missing.jsons",
      seeded(traceA, n, (e) => delete e.params.cwd),
    );
    expect(check([path]).stdout).toBe(
      `${path}:${String(n)}: session/new request acp-bridge→agent: /params: must have required property 'cwd'\n`,
    );
  });

  it("checks a response against the method of the request it answers (the trace's payload)", () => {
    const asked = traceB.map((l) => JSON.parse(l) as Record<string, any>);
    const id = asked.find((e) => e.method === "session/new" && e.to === "acp-bridge")?.id as unknown;
    const n = lineOf(traceB, (e) => e.type === "response" && e.to === "client" && e.id === id);
    const path = file(
      "shape.jsons",
      seeded(traceB, n, (e) => (e.payload.sessionId = 7)),
    );
    expect(check([path]).stdout).toBe(
      `${path}:${String(n)}: session/new response acp-bridge→client: /payload/sessionId: must be string\n`,
    );
  });

  it("reports a line that is not JSON with its number, and goes on", () => {
    const lines = [...traceA.slice(0, 2), "{oops", ...traceA.slice(2)];
    const path = file("garbage.jsons", lines);
    const r = check([path]);
    expect(r.stdout).toMatch(new RegExp(`^${path.replace(/[.]/g, "\\.")}:3: not JSON: .+\\n$`));
    expect(r.stderr).toContain(`${String(traceA.length)} messages, 1 violation`);
    expect(r.status).toBe(1);
  });

  it("judges each side of a trace by the version its initialize exchange settled", () => {
    // A v1 PromptResponse (the v1 agent's, valid) lacks v2's messageId: toward the v2 client it is a violation.
    const events = traceB.map((l) => JSON.parse(l) as Record<string, any>);
    const prompt = events.find((e) => e.method === "session/prompt" && e.from === "client");
    const n = lineOf(traceB, (e) => e.type === "response" && e.to === "client" && e.id === prompt?.id);
    const path = file(
      "versions.jsons",
      seeded(traceB, n, (e) => (e.payload = { stopReason: "end_turn" })),
    );
    expect(events.some((e) => e.from === "agent" && e.payload?.stopReason === "end_turn")).toBe(true);
    expect(check([path]).stdout).toBe(
      `${path}:${String(n)}: session/prompt response acp-bridge→client: /payload: must have required property 'messageId'\n`,
    );
  });

  describe("plain NDJSON of one connection", () => {
    const v1 = [
      '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}',
      '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[]}}',
      '{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}]}}',
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"yo"}}}}',
      '{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}',
    ];

    it("takes the version from the initialize exchange", () => {
      const r = check([file("v1.ndjson", v1)]);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain("5 messages, 0 violations");
      expect(r.status).toBe(0);
    });

    it("takes the version from --protocol over the initialize exchange", () => {
      const path = file("v1-as-v2.ndjson", v1);
      const r = check(["--protocol", "2", path]);
      expect(r.stdout).toContain(
        `${path}:5: session/prompt response: /result: must have required property 'messageId'\n`,
      );
      expect(r.stdout).toContain(`${path}:1: initialize request: /params: must have required property 'info'\n`);
      expect(r.status).toBe(1);
    });

    it("reads stdin when FILE is absent or -", () => {
      const bad = [...v1.slice(0, 4), '{"jsonrpc":"2.0","id":1,"result":{"stopReason":"done"}}'];
      for (const args of [[], ["-"]]) {
        const r = check(args, bad.join("\n"));
        expect(r.stdout).toMatch(
          /^<stdin>:5: session\/prompt response: \/result\/stopReason: must be one of "end_turn", /,
        );
        expect(r.status).toBe(1);
      }
    });

    it("with dir markers: names the direction, and the side that may not send a method", () => {
      const wire = [
        { dir: "out", msg: JSON.parse(v1[0]!) as unknown },
        { dir: "in", msg: JSON.parse(v1[1]!) as unknown },
        { dir: "in", msg: JSON.parse(v1[2]!) as unknown },
        { dir: "out", msg: { jsonrpc: "2.0", id: 1, result: { stopReason: 3 } } },
      ].map((e) => JSON.stringify(e));
      const path = file("wire.ndjson", wire);
      expect(check([path]).stdout).toBe(
        `${path}:3: session/prompt request in: /msg/method: must come from the client (the agent handles session/prompt)\n` +
          `${path}:4: session/prompt response out: /msg/result/stopReason: must be one of "end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"\n`,
      );
    });

    it("reports a line longer than --max-line-bytes and checks the next one", () => {
      const long = `{"jsonrpc":"2.0","method":"_x","params":{"pad":"${"x".repeat(4000)}"}}`;
      const path = file("long.ndjson", [v1[0]!, long, '{"jsonrpc":"1.0","id":0,"result":{"protocolVersion":1}}']);
      const r = check(["--max-line-bytes", "1024", path]);
      expect(r.stdout).toContain(`${path}:2: line too long: at most 1024 bytes`);
      expect(r.stdout).toContain(`${path}:3: initialize response: /jsonrpc: must be "2.0"`);
    });

    it("writes no colour when its outputs are not terminals", () => {
      const r = check([file("plain.ndjson", ["nope"])]);
      expect(r.stdout + r.stderr).not.toContain("\u001b[");
    });
  });

  describe("usage errors exit 2", () => {
    it.each([
      [["/nonexistent/trace.jsons"], "cannot read '/nonexistent/trace.jsons'"],
      [["--protocol", "3", "x"], "--protocol must be one of 1, 2"],
      [["--bogus"], "unknown option --bogus"],
      [["a", "b"], "one file at a time"],
      [["--max-line-bytes", "1e3"], "--max-line-bytes must be an integer"],
    ])("%j", (args, message) => {
      const r = check(args);
      expect(r.stderr).toContain(message);
      expect(r.stdout).toBe("");
      expect(r.status).toBe(2);
    });
  });

  it("--help describes its options and exits 0", () => {
    const r = check(["--help"]);
    expect(r.stdout).toContain("--protocol 1|2");
    expect(r.stdout).toContain("--max-line-bytes N");
    expect(r.status).toBe(0);
  });
});
