// What a bridge does differently when the other side is a bridge (T §5.5, H §1.5, H §4.1): markers
// in initialize both ways, key-order records only toward a bridge, and A's follow-up
// `available_commands_update` dropped by a B that already gave the client the list.
import { afterEach, describe, expect, it } from "vitest";
import { harness, type Harness } from "../support/harness.js";
import type { StashSetting } from "../../src/convert/stash.js";
import { KEY_ORDER_KEY } from "../../src/wire/key-order.js";

const S = "s1";
let current: Harness | undefined;

afterEach(() => {
  if (current) expect(current.violations).toEqual([]);
  current = undefined;
});

const A_MARKER = {
  v: 1,
  from: 1,
  hadMeta: false,
  bridge: { name: "acp-bridge", version: "9" },
  clientProtocol: 1,
  agentProtocol: 2,
};

/** A B bridge in front of a v1 agent; the v2 client is an A bridge when `clientIsBridge`. */
async function connectB(clientIsBridge: boolean, stash: StashSetting = "auto"): Promise<Harness> {
  const h = harness({ ackGraceMs: 0, agentProtocol: 1, stash });
  current = h;
  const params: Record<string, unknown> = { protocolVersion: 2, info: { name: "ed", version: "1" }, capabilities: {} };
  if (clientIsBridge) params._meta = { "acp-bridge": A_MARKER };
  h.client({ jsonrpc: "2.0", id: 0, method: "initialize", params });
  await h.settle();
  const [init] = h.takeAgent();
  expect(init.params.protocolVersion).toBe(1);
  // Keys in an order no converter would choose.
  h.agent({
    jsonrpc: "2.0",
    id: init.id,
    result: { authMethods: [], agentCapabilities: { loadSession: true }, protocolVersion: 1 },
  });
  await h.settle();
  const [result] = h.takeClient();
  // The marker answers a bridge's own; a plain client gets none (it looks for none).
  if (clientIsBridge)
    expect(result.result._meta["acp-bridge"]).toMatchObject({
      bridge: { name: "acp-bridge" },
      clientProtocol: 2,
      agentProtocol: 1,
    });
  else if (stash === "auto") expect(JSON.stringify(result)).not.toContain("acp-bridge");
  else expect(result.result._meta?.["acp-bridge"]?.bridge).toBeUndefined();
  expect(h.bridge.mode).toBe("B");
  return h;
}

async function newSessionB(h: Harness, result: Record<string, unknown>): Promise<any> {
  h.client({ jsonrpc: "2.0", id: "new", method: "session/new", params: { cwd: "/w" } });
  const [req] = h.takeAgent();
  h.agent({ jsonrpc: "2.0", id: req.id, result: { sessionId: S, ...result } });
  await h.settle();
  return h.takeClient()[0];
}

const hasRecord = (m: unknown) => JSON.stringify(m).includes(KEY_ORDER_KEY);

describe("a bridge facing another bridge", () => {
  it("B records the v1 agent's key order for an A bridge in front, and only for it", async () => {
    for (const [bridge, stash, expected] of [
      [true, "auto", true],
      [false, "auto", false],
      [true, "compact", true],
      [false, "compact", false],
      [true, "off", false],
    ] as const) {
      const h = await connectB(bridge, stash);
      const created = await newSessionB(h, { configOptions: [] });
      h.agent({
        jsonrpc: "2.0",
        method: "session/update",
        params: { update: { title: "T", sessionUpdate: "session_info_update" }, sessionId: S },
      });
      await h.settle();
      const [u] = h.takeClient();
      expect(hasRecord(created), `session/new result, bridge=${String(bridge)} stash=${stash}`).toBe(expected);
      expect(hasRecord(u), `update, bridge=${String(bridge)} stash=${stash}`).toBe(expected);
      if (expected)
        expect(u.params._meta[KEY_ORDER_KEY]).toEqual({
          v: 1,
          hadMeta: false,
          keys: { "": ["update", "sessionId"], "/update": ["title", "sessionUpdate"] },
        });
    }
  });

  it("B drops A's follow-up available_commands_update when the client got that list in the result, and forwards a different one", async () => {
    const h = await connectB(true);
    const commands = [{ name: "test", description: "Run the tests" }];
    const followUpMeta = { "acp-bridge": { v: 1, from: 2, hadMeta: false, synthetic: ["commandsFollowUp"] } };
    // The list rides in the v1 result's stash, as A writes it (H §4.1).
    const v2Commands = [{ type: "command", name: "test", description: "Run the tests" }];
    const created = await newSessionB(h, {
      _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { availableCommands: v2Commands } } },
    });
    expect(created.result.availableCommands).toEqual(v2Commands);
    const followUp = (list: unknown) => ({
      jsonrpc: "2.0",
      method: "session/update",
      params: {
        sessionId: S,
        update: { sessionUpdate: "available_commands_update", availableCommands: list },
        _meta: followUpMeta,
      },
    });
    h.agent(followUp(commands));
    await h.settle();
    expect(h.takeClient()).toEqual([]);
    const other = [{ name: "plan", description: "Write a plan" }];
    h.agent(followUp(other));
    await h.settle();
    const [u] = h.takeClient();
    expect(u.params.update).toMatchObject({
      sessionUpdate: "available_commands_update",
      availableCommands: [{ name: "plan" }],
    });
    // The follow-up's envelope is consumed; only the key-order record for the A in front rides on.
    expect(Object.keys(u.params._meta)).toEqual([KEY_ORDER_KEY]);
  });

  it("A identifies itself in the v2 initialize request and marks its follow-up available_commands_update (stash forced on)", async () => {
    const h = harness({ agentProtocol: 2, stash: "compact" });
    current = h;
    h.client({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
    await h.settle();
    const [init] = h.takeAgent();
    expect(init.params._meta["acp-bridge"]).toMatchObject({
      bridge: { name: "acp-bridge" },
      clientProtocol: 1,
      agentProtocol: 2,
    });
    h.agent({
      jsonrpc: "2.0",
      id: init.id,
      result: { protocolVersion: 2, info: { name: "a", version: "1" }, capabilities: { session: {} } },
    });
    await h.settle();
    h.takeClient();
    h.client({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/w", mcpServers: [] } });
    const [req] = h.takeAgent();
    h.agent({
      jsonrpc: "2.0",
      id: req.id,
      result: { sessionId: S, availableCommands: [{ type: "command", name: "test", description: "Run" }] },
    });
    await h.settle();
    const [result, followUp] = h.takeClient();
    expect(result.result._meta["acp-bridge"].residual.availableCommands).toEqual([
      { type: "command", name: "test", description: "Run" },
    ]);
    expect(followUp.params.update.sessionUpdate).toBe("available_commands_update");
    expect(followUp.params._meta["acp-bridge"].synthetic).toEqual(["commandsFollowUp"]);
    // A plain v1 client: no key-order records.
    expect(hasRecord(result) || hasRecord(followUp)).toBe(false);
  });
});
