// `acp-bridge convert` through the BUILT CLI (issue 23, item 3): the input forms (the interop
// fixtures', bare NDJSON, `dir` markers, a `--trace` file), each written back in its own form;
// `-o`; usage errors (status 2); a message the engine refuses (status 1, its line named); a
// recording already in the target version (written unchanged).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { traceEvent } from "../../src/transport/trace.js";

const TIMEOUT = 60_000;
const dir = mkdtempSync(join(tmpdir(), "acp-bridge-convert-e2e-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Obj = Record<string, unknown>;

function convert(args: readonly string[], input = "") {
  const r = spawnSync(process.execPath, ["bin/acp-bridge.js", "convert", ...args], {
    input,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

let n = 0;
function file(text: string, ext = "ndjson"): string {
  const path = join(dir, `f${String(++n)}.${ext}`);
  writeFileSync(path, text);
  return path;
}

const FIXTURE = "interop/fixtures/gemini-v1.ndjson";
const entries = readFileSync(FIXTURE, "utf8")
  .split("\n")
  .filter((l) => l !== "")
  .map((l) => JSON.parse(l) as { from: "client" | "agent"; message: Obj });
const text = (lines: readonly unknown[]) => lines.map((l) => `${JSON.stringify(l)}\n`).join("");
const parsed = (out: string): Obj[] =>
  out
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Obj);

/** The fixture's conversion, as fixture entries: the reference the other forms are held to. */
const reference = () => parsed(convert(["--to", "2", FIXTURE]).stdout) as unknown as { from: string; message: Obj }[];

describe("acp-bridge convert (built CLI)", () => {
  it("--help prints its usage and options, status 0", () => {
    const r = convert(["--help"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^acp-bridge convert --to 1\|2/);
    for (const o of ["--to", "--stash", "--connection", "--output", "--max-line-bytes"]) expect(r.stdout).toContain(o);
  });

  it(
    "writes the interop fixtures' form as that form, and says what it read and wrote",
    () => {
      const r = convert(["--to", "2", FIXTURE]);
      expect(r.status, r.stderr).toBe(0);
      const out = reference();
      expect(out.every((e) => (e.from === "client" || e.from === "agent") && e.message.jsonrpc === "2.0")).toBe(true);
      expect(out[0]?.message).toMatchObject({ method: "initialize", params: { protocolVersion: 2 } });
      expect(r.stderr).toContain(
        `${FIXTURE}: v1 → v2: ${String(entries.length)} messages read, ${String(out.length)} written, 0 skipped`,
      );
    },
    TIMEOUT,
  );

  it("reads bare NDJSON (senders told by method and id) and writes bare NDJSON, the same messages", () => {
    const r = convert(["--to", "2", file(text(entries.map((e) => e.message)))]);
    expect(r.status, r.stderr).toBe(0);
    expect(parsed(r.stdout)).toEqual(reference().map((e) => e.message));
  });

  it("reads stdin when FILE is absent, with dir markers relative to the recording peer, and keeps them", () => {
    // Recorded by the agent: what the client sent is `in`.
    const wire = entries.map((e) => ({ dir: e.from === "agent" ? "out" : "in", msg: e.message }));
    const r = convert(["--to", "2"], text(wire));
    expect(r.status, r.stderr).toBe(0);
    expect(parsed(r.stdout)).toEqual(
      reference().map((e) => ({ dir: e.from === "agent" ? "out" : "in", msg: e.message })),
    );
  });

  it("reads a --trace file's client connection and writes its events, with its names and each cause's ts", () => {
    // Both connections of a bridge run: the agent's (acp-bridge ⇄ agent) is not written.
    const events = entries.flatMap((e, i) => {
      const [from, to] = e.from === "client" ? ["client", "acp-bridge"] : ["acp-bridge", "client"];
      const [from2, to2] = e.from === "client" ? ["acp-bridge", "agent"] : ["agent", "acp-bridge"];
      return [traceEvent(e.message, from, to, i + 1), traceEvent(e.message, from2, to2, i + 1.5)];
    });
    const r = convert(["--to", "2", file(text(events), "jsons")]);
    expect(r.status, r.stderr).toBe(0);
    const out = parsed(r.stdout);
    const want = reference().map((e) => {
      const [from, to] = e.from === "client" ? ["client", "acp-bridge"] : ["acp-bridge", "client"];
      return JSON.parse(JSON.stringify(traceEvent(e.message, from, to, 0))) as Obj;
    });
    expect(out.map((e) => ({ ...e, ts: 0 }))).toEqual(want);
    // Each event's ts is that of the input event that caused it (the initialize answer: line 2's).
    expect(out[0]?.ts).toBe(1);
    expect(out[1]?.ts).toBe(2);
    expect(r.stderr).toContain(`${String(entries.length)} of the other connection not written`);
  });

  it("writes to -o FILE instead of stdout", () => {
    const target = join(dir, "out.ndjson");
    const r = convert(["--to", "2", "-o", target, FIXTURE]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe("");
    expect(parsed(readFileSync(target, "utf8"))).toEqual(reference());
  });

  it("writes a recording already in the target version unchanged, and says so", () => {
    const r = convert(["--to", "1", FIXTURE]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(readFileSync(FIXTURE, "utf8"));
    expect(r.stderr).toContain("already speaks v1: written unchanged");
  });

  it("names a message the bridge refuses with its line, skips its answer, and exits 1", () => {
    const bad = [
      ...entries.slice(0, 2),
      { from: "client", message: { jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: 5, mcpServers: [] } } },
      { from: "agent", message: { jsonrpc: "2.0", id: 1, result: { sessionId: "s1" } } },
    ];
    const r = convert(["--to", "2", file(text(bad))]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /:3: not converted the client's 'session\/new' request: the bridge refused it: Invalid params/,
    );
    expect(r.stderr).toMatch(/:4: skipped the agent's answer to request 1/);
    expect(parsed(r.stdout)).toHaveLength(2);
  });

  it.each([
    [[FIXTURE], "--to 1|2 is required"],
    [["--to", "3", FIXTURE], "--to must be one of 1, 2"],
    [["--to", "2", "--stash", "compact", FIXTURE], "--stash must be one of full, off"],
    [["--to", "2", "--bogus", FIXTURE], "unknown option --bogus"],
    [["--to", "2", FIXTURE, FIXTURE], "one file at a time"],
    [["--to", "2", "/nonexistent/x.ndjson"], "cannot read '/nonexistent/x.ndjson'"],
    [["--to", "2", "-o", "/nonexistent/dir/out", FIXTURE], "cannot write '/nonexistent/dir/out'"],
  ])("a usage error (%j) is status 2 with the problem named", (args, problem) => {
    const r = convert(args);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(problem);
    expect(r.stdout).toBe("");
  });
});
