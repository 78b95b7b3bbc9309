// End to end, diffs (README "Diffs"): the BUILT CLI between real SDK peers and the bundled demo
// agents' `[diff]` edit, in a real working directory. A v1 client gets a v1 diff with the exact
// full texts of the file the v2 agent edits; a v2 client gets a v1 agent's texts placed in the real
// file (true line numbers). Every message on both wires is schema-checked.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gitPatchSection } from "../../src/convert/git-patch.js";
import { checkWire, readWireLog, spawnWithClient, type SpawnedClient } from "../support/peers.js";

const BRIDGE = ["bin/acp-bridge.js", "--log-level", "error", "--"];
const AGENT_V2 = [process.execPath, "dist/src/demo/agent-v2.js"];
const AGENT_V1 = [process.execPath, "dist/src/demo/agent-v1.js"];
const TIMEOUT = 60_000;

// The demo's edit of src/hello.ts (src/demo/scenario.ts, diffTool): the whole of its small file.
const HELLO_OLD = 'export function hello() {\n  return "hi";\n}\n';
const HELLO_NEW = 'export function hello() {\n  return "hello";\n}\n';

let dir: string | undefined;
const peers: SpawnedClient<1 | 2>[] = [];

afterEach(async () => {
  for (const p of peers.splice(0)) {
    p.kill("SIGKILL");
    await p.exit;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A working directory whose src/hello.ts holds `text`; returns the directory (real path). */
function workdir(text: string): string {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "acp-bridge-e2e-diffs-")));
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src", "hello.ts"), text);
  return dir;
}

function checkAgentWire(wireLog: string, agentVersion: 1 | 2): void {
  const agentWire = readWireLog(wireLog);
  const first = agentWire[0]?.msg as { method?: string; params?: { protocolVersion?: number } } | undefined;
  const probe = first?.method === "initialize" && first.params?.protocolVersion !== agentVersion ? 2 : 0;
  checkWire(agentVersion, agentWire.slice(probe), { side: "agent" });
}

describe("diffs end to end", () => {
  it(
    "a v1 client gets the v2 agent's edit as a v1 diff with the file's exact full texts",
    async () => {
      // More lines than the agent's patch shows: the full texts come from the file.
      const file = HELLO_OLD + "\nexport const tail = 1;\n// end\n";
      const cwd = workdir(file);
      const wireLog = join(cwd, "agent-wire.jsonl");
      const peer = spawnWithClient(1, process.execPath, [...BRIDGE, ...AGENT_V2], {
        env: { ACP_WIRE_LOG: wireLog, ACP_DEMO_CHUNK_MS: "0" },
      });
      peers.push(peer);
      await peer.ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      const s = await peer.ctx.request("session/new", { cwd, mcpServers: [] });
      await peer.ctx.request("session/prompt", {
        sessionId: s.sessionId,
        prompt: [{ type: "text", text: "[diff] go" }],
      });
      const diffs = peer.updates
        .flatMap((u) => ((u.update as { content?: unknown[] }).content ?? []) as Record<string, unknown>[])
        .filter((c) => c.type === "diff");
      const hello = join(cwd, "src", "hello.ts");
      expect(diffs.map((d) => ({ path: d.path, oldText: d.oldText, newText: d.newText }))).toEqual([
        { path: hello, oldText: file, newText: file.replace('"hi"', '"hello"') },
        { path: join(cwd, "NOTES.md"), oldText: undefined, newText: "# Notes\n\nGreeting changed to hello.\n" },
      ]);
      // No markdown rendering of the patch anywhere.
      expect(JSON.stringify(peer.updates)).not.toContain("```diff");
      expect(readFileSync(hello, "utf8")).toBe(file);
      await peer.close();
      checkWire(1, peer.wire);
      checkAgentWire(wireLog, 2);
    },
    TIMEOUT,
  );

  it(
    "a v2 client gets a v1 agent's texts placed in the real file: true line numbers",
    async () => {
      // The edit is applied (the tool completed): the new text sits after a header in the file.
      const head = "// header\n// more\n\n";
      const tail = "\nexport const tail = 1;\n";
      const cwd = workdir(head + HELLO_NEW + tail);
      const wireLog = join(cwd, "agent-wire.jsonl");
      const peer = spawnWithClient(2, process.execPath, [...BRIDGE, ...AGENT_V1], {
        env: { ACP_WIRE_LOG: wireLog, ACP_DEMO_CHUNK_MS: "0" },
      });
      peers.push(peer);
      await peer.ctx.request("initialize", {
        protocolVersion: 2,
        info: { name: "ed", version: "1" },
        capabilities: {},
      });
      const s = await peer.ctx.request("session/new", { cwd });
      const from = peer.updates.length;
      await peer.ctx.request("session/prompt", {
        sessionId: s.sessionId,
        prompt: [{ type: "text", text: "[diff] go" }],
      });
      await peer.waitForUpdate(
        (u) => {
          const up = u.update as { sessionUpdate: string; state?: string };
          return up.sessionUpdate === "state_update" && up.state === "idle";
        },
        { from },
      );
      const diffs = peer.updates
        .flatMap((u) => ((u.update as { content?: unknown[] }).content ?? []) as Record<string, any>[])
        .filter((c) => c.type === "diff");
      const hello = join(cwd, "src", "hello.ts");
      const patches = diffs.map((d) => d.patch?.text as string);
      const expected = gitPatchSection("modify", hello, head + HELLO_OLD + tail, head + HELLO_NEW + tail);
      expect(patches).toContain(expected);
      expect(expected).toContain("\n@@ -2,7 +2,7 @@\n // more\n");
      await peer.close();
      checkWire(2, peer.wire);
      checkAgentWire(wireLog, 1);
    },
    TIMEOUT,
  );
});
