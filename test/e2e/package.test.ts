// The package as a user installs it before it is published (README "Installing the CLI"): `npm pack`
// of the built tree, installed from the tarball into an empty prefix without dev dependencies. The
// installed `acp-bridge` must run on what the tarball and its dependencies hold, nothing of this
// clone: `--version`, then a translated turn between a v1 SDK client and the v2-only demo agent,
// with `--strict` so that the schemas load from the installed SDK, every message schema-checked.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkWire, readWireLog, spawnWithClient, type SpawnedClient } from "../support/peers.js";

const run = promisify(execFile);
const TIMEOUT = 60_000;
const AGENT_V2 = resolve("dist/src/demo/agent-v2.js");
const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };

// A parent `npm test` hands its config to children as npm_config_*: the install must not inherit the
// clone's (its prefix, a --global, --ignore-scripts); where the cache and registry are, it may.
const KEEP = new Set(["npm_config_cache", "npm_config_registry", "npm_config_userconfig"]);
const npmEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith("npm_") || KEEP.has(k.toLowerCase())),
);

let dir = "";
let bin = "";
let packed: string[] = [];
const peers: SpawnedClient<1>[] = [];

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "acp-bridge-package-")));
  // The global setup built the tree: pack it as it is.
  const pack = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], { env: npmEnv });
  const [info] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
  if (info === undefined) throw new Error(`npm pack wrote no package: ${pack.stdout}`);
  packed = info.files.map((f) => f.path).sort();
  const prefix = join(dir, "prefix");
  await run(
    "npm",
    [
      "install",
      "--prefix",
      prefix,
      "--omit=dev",
      "--no-audit",
      "--no-fund",
      "--prefer-offline",
      join(dir, info.filename),
    ],
    { env: npmEnv, cwd: dir },
  );
  bin = join(prefix, "node_modules", ".bin", "acp-bridge");
}, 120_000);

afterAll(async () => {
  for (const p of peers.splice(0)) {
    p.kill("SIGKILL");
    await p.exit;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the packed package, installed without dev dependencies", () => {
  it("holds the launcher and the bundle, and none of the sources, tests or tables", () => {
    expect(packed).toContain("bin/acp-bridge.js");
    // What makes the launcher CommonJS (it answers --version before the ES module loader starts).
    expect(packed).toContain("bin/package.json");
    expect(packed).toContain("dist/bundle/cli.js");
    // The launcher's early start (src/early.ts), CommonJS.
    expect(packed).toContain("dist/bundle/early.cjs");
    expect(
      packed.filter(
        (f) =>
          !/^(bin\/acp-bridge\.js|bin\/package\.json|dist\/bundle\/[^/]+\.c?js|package\.json|README\.md|LICEN[CS]E(\.\w+)?)$/.test(
            f,
          ),
      ),
    ).toEqual([]);
  });

  it(
    "answers --version with the package's version",
    async () => {
      const { stdout, stderr } = await run(bin, ["--version"], { cwd: dir });
      expect(stdout.trim()).toBe(version);
      expect(stderr).toBe("");
    },
    TIMEOUT,
  );

  it(
    "translates a turn between a v1 client and the v2-only demo agent",
    async () => {
      const wireLog = join(dir, "agent-wire.jsonl");
      const peer = spawnWithClient(1, bin, ["--strict", "--", process.execPath, AGENT_V2], {
        cwd: dir,
        env: { ACP_WIRE_LOG: wireLog, ACP_DEMO_CHUNK_MS: "0" },
      });
      peers.push(peer);
      const init = await peer.ctx.request("initialize", {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
      });
      expect(init.protocolVersion).toBe(1);
      const { sessionId } = await peer.ctx.request("session/new", { cwd: dir, mcpServers: [] });
      const r = await peer.ctx.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "[chunks][tool] go" }],
      });
      expect(r.stopReason).toBe("end_turn");
      const kinds = peer.updates.map((u) => u.update.sessionUpdate);
      expect(kinds).toContain("agent_message_chunk");
      expect(kinds).toContain("tool_call");
      expect(await peer.close()).toEqual({ code: 0, signal: null });
      // --strict found nothing to report, and nothing else was worth a warning.
      expect(peer.stderr).toBe("");
      checkWire(1, peer.wire);
      // The agent's wire opens with the v1 probe it refused (H §1.4): v2 from its answer on.
      const agentWire = readWireLog(wireLog);
      expect(agentWire[0]?.msg).toMatchObject({ method: "initialize", params: { protocolVersion: 1 } });
      checkWire(2, agentWire.slice(2), { side: "agent" });
    },
    TIMEOUT,
  );
});
