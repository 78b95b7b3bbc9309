// The severe defect of issue 19, end to end with the BUILT CLI: a content block whose `uri` is no
// URI and holds a lone surrogate (valid JSON) killed the bridge (`URIError` from
// `encodeURIComponent`, exit status 1). From either peer it now crosses with a stand-in URI, and the
// bridge keeps serving.
import { afterEach, describe, expect, it } from "vitest";
import { AGENT_V2, spawnRaw, tsxArgs, type RawPeer } from "../support/peers.js";
import { expectValid } from "../support/schema.js";

const BRIDGE = ["bin/acp-bridge.js", "--log-level", "error"];
const TIMEOUT = 30_000;
const uri = "not a uri \ud800";
const standIn = "urn:acp-bridge:invalid-uri:not%20a%20uri%20%EF%BF%BD";
const peers: RawPeer[] = [];

afterEach(() => {
  for (const p of peers.splice(0)) p.kill("SIGKILL");
});

function bridge(agent: string[]): RawPeer {
  const peer = spawnRaw(process.execPath, [...BRIDGE, "--", process.execPath, ...agent]);
  peers.push(peer);
  return peer;
}

describe("a uri holding a lone surrogate (built CLI)", () => {
  it(
    "from a v1 client's prompt: the v2 agent gets it and the turn ends normally",
    async () => {
      const peer = bridge(tsxArgs(AGENT_V2));
      await peer.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      const created = await peer.request("session/new", { cwd: process.cwd(), mcpServers: [] });
      const answer = await peer.request("session/prompt", {
        sessionId: created.result.sessionId,
        prompt: [
          { type: "text", text: "[chunks]" },
          { type: "resource_link", name: "n", uri },
          { type: "resource", resource: { uri, text: "t" } },
          { type: "image", data: "aGk=", mimeType: "image/png", uri },
        ],
      });
      expect(answer.result).toMatchObject({ stopReason: "end_turn" });
      expectValid("v1", "PromptResponse", answer.result);
      // Still serving, and leaves cleanly.
      expect((await peer.request("session/new", { cwd: process.cwd(), mcpServers: [] })).result).toBeDefined();
      expect((await peer.close()).code).toBe(0);
      expect(peer.stderr).not.toContain("URIError");
    },
    TIMEOUT,
  );

  it(
    "from a v1 agent's message chunks and tool call: the v2 client gets stand-in URIs and the turn ends normally",
    async () => {
      const peer = bridge([...tsxArgs("test/fixtures/faulty-agent.ts"), "malformed-uri"]);
      await peer.request("initialize", { protocolVersion: 2, info: { name: "c", version: "1" }, capabilities: {} });
      await peer.request("session/new", { cwd: process.cwd(), mcpServers: [] });
      const from = peer.lines.length;
      const answer = await peer.request("session/prompt", { sessionId: "s1", prompt: [{ type: "text", text: "hi" }] });
      expect(answer.error).toBeUndefined();
      // v2 acknowledges a prompt at once: the turn's updates are all in once it went idle.
      await peer.waitFor(
        (m) => m.params?.update?.sessionUpdate === "state_update" && m.params.update.state === "idle",
        {
          from,
        },
      );
      const updates = peer.lines
        .slice(from)
        .map((l) => JSON.parse(l) as { method?: string; params?: { update?: unknown } })
        .filter((m) => m.method === "session/update");
      const text = JSON.stringify(updates);
      expect(text.split(standIn).length - 1).toBeGreaterThanOrEqual(6);
      for (const m of updates) expectValid("v2", "UpdateSessionNotification", m.params);
      expect((await peer.request("session/new", { cwd: process.cwd(), mcpServers: [] })).result).toBeDefined();
      expect((await peer.close()).code).toBe(0);
    },
    TIMEOUT,
  );
});
