// `acp-bridge doctor` through the BUILT CLI (issue 23, item 1): against the demo agents of both
// versions (status 0, what each editor gets), and against scripted agents with one known defect
// each (test/fixtures/doctor-agent.ts), each finding with its tier, each exit status.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AGENT_V1, AGENT_V2, tsxArgs } from "../support/peers.js";

const TIMEOUT = 60_000;

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `acp-bridge doctor ARGS`, stdout and stderr piped, its status and both outputs. */
function doctor(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["bin/acp-bridge.js", "doctor", ...args], {
      env: { ...process.env, NO_COLOR: undefined, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

const fixture = (mode: string, ...opts: string[]) => [
  ...opts,
  "--",
  process.execPath,
  ...tsxArgs("test/fixtures/doctor-agent.ts"),
  mode,
];

interface Finding {
  tier: string;
  code: string;
  message: string;
  spec: string;
  probe: string;
}
interface Report {
  ok: boolean;
  findings: Finding[];
  [k: string]: any;
}

async function report(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<{ run: Run; json: Report }> {
  const run = await doctor(["--json", ...args], env);
  return { run, json: JSON.parse(run.stdout) as Report };
}

/** The process exists and is no zombie (an orphan's, which a container's pid 1 may never reap). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^State:\s*Z/m.test(readFileSync(`/proc/${String(pid)}/status`, "utf8"));
  } catch {
    // Gone since (Linux), or no /proc to tell a zombie by.
    return process.platform !== "linux";
  }
}

/** One run per demo agent, shared by the tests that read it (each run starts the agent four times). */
const once = <T>(f: () => Promise<T>) => {
  let p: Promise<T> | undefined;
  return () => (p ??= f());
};
const humanV1 = once(() => doctor(["--", process.execPath, AGENT_V1]));
const jsonV2 = once(() => report(["--", process.execPath, AGENT_V2]));

describe("acp-bridge doctor against the demo agents", () => {
  it(
    "reports a v1 agent usable by both editors: pass-through for v1, translated for v2, no findings",
    async () => {
      const run = await humanV1();
      expect(run.status).toBe(0);
      expect(run.stdout).toContain("A v1 editor through the bridge: usable");
      expect(run.stdout).toContain("negotiated: v1 ↔ v1, pass-through");
      expect(run.stdout).toContain("A v2 editor through the bridge: usable");
      expect(run.stdout).toContain("negotiated: v2 editor ↔ v1 agent, translated");
      expect(run.stdout).toContain("auth methods: demo-login (Demo login); sessions need a login: no");
      expect(run.stdout).toMatch(/fs\/read_text_file \(request\): .*ACP v2 removed the client fs/);
      // The v1 demo agent has no list or close: the bridge answers them for the v2 editor (H §2.3).
      expect(run.stdout).toContain("session/list ok (emulated by the bridge)");
      expect(run.stdout).toContain("session/close: the v1 agent has no close");
      expect(run.stdout).toContain("Findings: none");
      expect(run.stdout).toContain("An editor of each version can use this agent through the bridge.");
    },
    TIMEOUT,
  );

  it(
    "prints one plain progress line per probe on stderr when piped: no spinner, no colour",
    async () => {
      const run = await humanV1();
      const lines = run.stderr.split("\n").filter(Boolean);
      expect(lines).toHaveLength(4);
      expect(lines.map((l) => /\[(\d)\/4\]/.exec(l)?.[1])).toEqual(["1", "2", "3", "4"]);
      for (const l of lines) expect(l).toMatch(/\(\d+ ms\)$/);
      expect(run.stderr).not.toContain("\r");
      expect(run.stderr).not.toContain("\u001b");
      expect(run.stdout).not.toContain("\u001b");
    },
    TIMEOUT,
  );

  it(
    "reports, as JSON, a v2 agent: -32022 to v1, a translated v1 editor with the editor's tools, pass-through for v2",
    async () => {
      const { run, json } = await jsonV2();
      expect(run.status).toBe(0);
      expect(json.ok).toBe(true);
      expect(json.findings).toEqual([]);
      expect(json.direct.v1).toMatchObject({ outcome: "error", error: { code: -32022 } });
      expect(json.direct.v2).toMatchObject({ outcome: "answered", protocolVersion: 2 });
      const v1 = json.editors.v1;
      expect(v1).toMatchObject({ usable: true, agentVersion: 2, loginNeeded: false });
      expect(v1.requests).toEqual({
        initialize: "ok",
        "session/new": "ok",
        "session/list": "ok",
        "session/close": "ok",
      });
      expect(v1.capabilities).toContain("sessionCapabilities.list");
      expect(v1.editorTools).toMatch(/MCP server 'editor' over http/);
      expect(v1.notReaching.map((x: { capability: string }) => x.capability)).toEqual(
        expect.arrayContaining(["fs", "terminal", "MCP servers over sse"]),
      );
      expect(v1.methods.refused.map((x: { method: string }) => x.method)).toContain("terminal/create");
      expect(json.editors.v2).toMatchObject({ usable: true, agentVersion: 2, methods: { passThrough: true } });
      expect(json.editors.v2.authMethods).toEqual([{ id: "demo-login", name: "Demo login" }]);
    },
    TIMEOUT,
  );

  it(
    "says sessions need a login when session/new asks for one, and still exits 0",
    async () => {
      const { run, json } = await report(["--", process.execPath, AGENT_V2], { ACP_DEMO_REQUIRE_AUTH: "1" });
      expect(run.status).toBe(0);
      expect(json.editors.v1).toMatchObject({ usable: true, loginNeeded: true });
      expect(json.editors.v2.requests["session/new"]).toBe("login needed");
    },
    TIMEOUT,
  );

  it(
    "has the JSON shape the README documents, key for key",
    async () => {
      const { json } = await jsonV2();
      const readme = readFileSync("README.md", "utf8");
      const section = readme.slice(
        readme.indexOf("<!-- doctor-json:start -->"),
        readme.indexOf("<!-- doctor-json:end -->"),
      );
      const documented = [...section.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]);
      const keys = (o: object, prefix: string): string[] => Object.keys(o).map((k) => `${prefix}${k}`);
      const actual = [
        ...keys(json, ""),
        ...keys(json.direct.v1, "direct.v1."),
        ...keys(json.editors.v1, "editors.v1."),
        ...keys(json.findings[0] ?? { tier: 0, code: 0, message: 0, spec: 0, probe: 0 }, "findings[]."),
      ];
      const expected = documented.map((k) =>
        k?.replace("direct.vN.", "direct.v1.").replace("editors.vN.", "editors.v1."),
      );
      for (const k of actual) expect(expected).toContain(k);
    },
    TIMEOUT,
  );
});

describe("acp-bridge doctor against agents with one defect each", () => {
  // The silent agent is waited for; 1 s each is enough to tell.
  const cases: [mode: string, tier: string, code: string, status: number][] = [
    ["schema-violation", "MANDATORY", "schema-violation", 1],
    ["refuses-list", "CAPABILITY", "advertised-but-refused", 0],
    ["unprefixed-notification", "ADVISORY", "extension-without-underscore", 0],
    ["slow-exit", "ADVISORY", "slow-exit", 0],
    ["stderr-noise", "INFORMATIONAL", "stderr-output", 0],
    ["contradictory-versions", "MANDATORY", "contradictory-versions", 1],
    ["silent", "MANDATORY", "initialize-unanswered", 1],
  ];

  it(
    "finds nothing wrong with the control agent (exit 0)",
    async () => {
      const { run, json } = await report(fixture("fine"));
      expect(run.status).toBe(0);
      expect(json.findings).toEqual([]);
    },
    TIMEOUT,
  );

  for (const [mode, tier, code, status] of cases)
    it(
      `reports an agent in mode ${mode} as ${tier} ${code}, exit ${String(status)}`,
      async () => {
        const { run, json } = await report(fixture(mode, "--timeout-ms", mode === "silent" ? "1000" : "5000"));
        expect(json.findings.map((f) => `${f.tier} ${f.code}`)).toContain(`${tier} ${code}`);
        for (const f of json.findings) expect(f.spec).not.toBe("");
        expect(run.status).toBe(status);
        expect(json.ok).toBe(status === 0);
      },
      TIMEOUT,
    );

  it(
    "leaves no process of the agent running: a slow one and the child it started are ended with their group",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "doctor-"));
      try {
        const pids = join(dir, "pids");
        const run = await doctor(fixture("slow-exit", "--json"), { DOCTOR_AGENT_PIDS: pids });
        expect(run.status).toBe(0);
        const started = readFileSync(pids, "utf8").split("\n").filter(Boolean).map(Number);
        // Four probes, each an agent and its child.
        expect(started).toHaveLength(8);
        const alive = started.filter(running);
        // Ended here if the doctor left them: a failing run leaves nothing behind either.
        for (const pid of alive) process.kill(pid, "SIGKILL");
        expect(alive).toEqual([]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    TIMEOUT,
  );

  it(
    "shows a finding's tier and spec reference in the human report",
    async () => {
      const run = await doctor(fixture("unprefixed-notification"));
      expect(run.stdout).toMatch(/ADVISORY extension-without-underscore: sends the notification 'status\/changed'/);
      expect(run.stdout).toContain("spec: ACP spec: Extensibility");
    },
    TIMEOUT,
  );

  it(
    "makes a v1 editor unusable when the bridge must pass it an initialize answer its schema refuses",
    async () => {
      const { json } = await report(fixture("schema-violation"));
      expect(json.editors.v1.usable).toBe(false);
      expect(json.findings.map((f) => f.code)).toContain("editor-gets-invalid-message");
    },
    TIMEOUT,
  );

  it(
    "exits 1 when the agent cannot be started",
    async () => {
      const run = await doctor(["--", "/nonexistent/acp-agent"]);
      expect(run.status).toBe(1);
      expect(run.stdout).toContain("the agent could not be started");
    },
    TIMEOUT,
  );
});

describe("acp-bridge doctor's usage", () => {
  it.each([
    [["--json"], "no agent command"],
    [["--timeout-ms", "abc", "--", "x"], "--timeout-ms must be an integer"],
    [["--bogus", "--", "x"], "unknown argument --bogus"],
    [["--cwd", "/nonexistent/dir", "--", "x"], "does not exist"],
  ])("answers %j with status 2 and says why", async (args, why) => {
    const run = await doctor(args);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(why);
    expect(run.stdout).toBe("");
  });

  it("prints its help with status 0", async () => {
    const run = await doctor(["--help"]);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("acp-bridge doctor [--json]");
    expect(run.stdout).toContain("--timeout-ms");
  });
});
