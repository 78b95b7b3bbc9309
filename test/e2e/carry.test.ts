// End to end (issue 7 item 3): the BUILT CLI between a real v2 SDK client and a scripted v1 agent
// that sends what legacy v1 builds send (models, turn usage, a title). Both wires schema-checked.
import { afterEach, describe, expect, it } from "vitest";
import { checkWire, spawnWithClient, tsxArgs, type SpawnedClient } from "../support/peers.js";

const BRIDGE = ["bin/acp-bridge.js", "--log-level", "error", "--agent-protocol", "1", "--"];
const LEGACY_V1 = [process.execPath, ...tsxArgs("test/support/legacy-agent-v1.ts")];
const TIMEOUT = 60_000;

const peers: SpawnedClient<2>[] = [];

afterEach(async () => {
  for (const p of peers.splice(0)) {
    p.kill("SIGKILL");
    await p.exit;
  }
});

/** The raw params of the `session/update`s the client received (the SDK's parsed ones may drop keys). */
function rawUpdates(peer: SpawnedClient<2>): any[] {
  return peer.wire
    .filter((e) => e.dir === "in" && (e.msg as { method?: string }).method === "session/update")
    .map((e) => (e.msg as { params: { update: unknown } }).params.update);
}

describe("direction B end to end with a legacy v1 agent", () => {
  it(
    "shows legacy models as a model option, sets it with session/set_model, and carries usage and the title",
    async () => {
      const peer = spawnWithClient(2, process.execPath, [...BRIDGE, ...LEGACY_V1]);
      peers.push(peer);
      await peer.ctx.request("initialize", {
        protocolVersion: 2,
        info: { name: "ed", version: "1" },
        capabilities: {},
      });
      const created: any = await peer.ctx.request("session/new", { cwd: process.cwd() });
      const sessionId = created.sessionId as string;
      expect(created.configOptions).toMatchObject([{ configId: "model", category: "model", currentValue: "gpt-5" }]);
      const set: any = await peer.ctx.request("session/set_config_option", {
        sessionId,
        configId: "model",
        type: "id",
        value: "gpt-5-mini",
      });
      expect(set.configOptions[0].currentValue).toBe("gpt-5-mini");
      await peer.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
      await peer.waitForWire(
        (e) =>
          e.dir === "in" &&
          JSON.stringify(e.msg).includes('"state":"idle"') &&
          JSON.stringify(e.msg).includes('"usage"'),
      );
      const idle = rawUpdates(peer).find((u) => u.sessionUpdate === "state_update" && u.state === "idle");
      expect(idle).toEqual({
        sessionUpdate: "state_update",
        state: "idle",
        stopReason: "end_turn",
        usage: { totalTokens: 12, inputTokens: 5, outputTokens: 7 },
      });
      expect(rawUpdates(peer).some((u) => u.content?.text === "on gpt-5-mini")).toBe(true);
      const from = peer.wire.length;
      await peer.ctx.request("session/resume", { sessionId, cwd: process.cwd() });
      await peer.waitForWire((e) => e.dir === "in" && JSON.stringify(e.msg).includes("session_info_update"), {
        from,
      });
      expect(rawUpdates(peer).filter((u) => u.sessionUpdate === "session_info_update")).toEqual([
        { sessionUpdate: "session_info_update", title: "Legacy session" },
        { sessionUpdate: "session_info_update", title: "Legacy session" },
      ]);
      checkWire(2, peer.wire);
    },
    TIMEOUT,
  );
});
