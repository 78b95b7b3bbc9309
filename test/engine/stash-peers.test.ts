// The stash goes only where it is used (issue 7, item 5; docs/decisions.md#the-stash): its level is
// chosen per destination, once that peer's `initialize` said whether it is a bridge. `auto` (the
// default): `full` toward a bridge, nothing toward a plain peer; a forced level goes to every peer.
import { afterEach, describe, expect, it } from "vitest";
import type { StashSetting } from "../../src/convert/stash.js";
import { KEY_ORDER_KEY } from "../../src/wire/key-order.js";
import { harness, type Harness } from "../support/harness.js";

const S = "s1";
let current: Harness | undefined;

afterEach(() => {
  if (current) expect(current.violations).toEqual([]);
  current = undefined;
});

/** The marker a bridge writes: part of its root envelope, from the version its message came from. */
const marker = (from: 1 | 2, clientProtocol: 1 | 2, agentProtocol: 1 | 2) => ({
  "acp-bridge": {
    v: 1,
    from,
    hadMeta: false,
    bridge: { name: "acp-bridge", version: "9" },
    clientProtocol,
    agentProtocol,
  },
});
/** A stash, key-order record or marker (`"acp-bridge…":` keys), or a bridge channel message. */
const BRIDGE_DATA = /"acp-bridge(\/[^"]*)?":|"_acp-bridge\//;
const bridgeData = (m: unknown) => BRIDGE_DATA.test(JSON.stringify(m));

interface Peers {
  /** The client named itself a bridge in its initialize request. */
  readonly clientIsBridge: boolean;
  /** The agent named itself a bridge in its initialize result. */
  readonly agentIsBridge: boolean;
  readonly stash?: StashSetting;
}

/** v1 client → bridge → v2 agent, a session open; returns the harness and the two initialize messages. */
async function connectA(p: Peers): Promise<{ h: Harness; initRequest: any; initResult: any }> {
  const h = harness({ agentProtocol: 2, ...(p.stash ? { stash: p.stash } : {}) });
  current = h;
  const params: Record<string, unknown> = {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
  };
  if (p.clientIsBridge) params._meta = marker(2, 2, 1);
  h.client({ jsonrpc: "2.0", id: 0, method: "initialize", params });
  await h.settle();
  const [initRequest] = h.takeAgent();
  const result: Record<string, unknown> = {
    protocolVersion: 2,
    info: { name: "agent", version: "1" },
    capabilities: { session: {} },
  };
  if (p.agentIsBridge) result._meta = marker(1, 2, 1);
  h.agent({ jsonrpc: "2.0", id: initRequest.id, result });
  await h.settle();
  const [initResult] = h.takeClient();
  h.client({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/w", mcpServers: [] } });
  const [req] = h.takeAgent();
  h.agent({ jsonrpc: "2.0", id: req.id, result: { sessionId: S } });
  await h.settle();
  h.takeClient();
  return { h, initRequest, initResult };
}

/** One message each way that the converters stash something on (toward any peer that takes a stash). */
async function exchangeA(h: Harness): Promise<{ toAgent: any; toClient: any }> {
  // A negative size: v2 sizes are unsigned, the v1 value is kept (content.ts).
  const link = { type: "resource_link", name: "a", uri: "file:///w/a", size: -1 };
  h.client({ jsonrpc: "2.0", id: 2, method: "session/prompt", params: { sessionId: S, prompt: [link] } });
  const [toAgent] = h.takeAgent();
  // `cancelled` has no v1 status: `failed`, the original kept (T §2.4).
  h.agent({
    jsonrpc: "2.0",
    method: "session/update",
    params: { sessionId: S, update: { sessionUpdate: "tool_call_update", toolCallId: "t", title: "T" } },
  });
  h.agent({
    jsonrpc: "2.0",
    method: "session/update",
    params: { sessionId: S, update: { sessionUpdate: "tool_call_update", toolCallId: "t", status: "cancelled" } },
  });
  await h.settle();
  const [, toClient] = h.takeClient();
  expect(toClient.params.update).toMatchObject({ toolCallId: "t", status: "failed" });
  return { toAgent, toClient };
}

describe("direction A: the stash level of each destination", () => {
  it("plain peers at the default get no bridge data; the initialize request is the one exception", async () => {
    const { h, initRequest, initResult } = await connectA({ clientIsBridge: false, agentIsBridge: false });
    // Sent before the agent said what it is: the marker (to find a chained bridge) and the client's
    // original capabilities (for it to restore them), as the only chance to hand them on.
    expect(initRequest.params._meta["acp-bridge"]).toMatchObject({ bridge: { name: "acp-bridge" } });
    expect(initRequest.params.capabilities._meta["acp-bridge"].residual).toBeDefined();
    expect(bridgeData(initResult)).toBe(false);
    const { toAgent, toClient } = await exchangeA(h);
    expect(bridgeData(toAgent)).toBe(false);
    expect(bridgeData(toClient)).toBe(false);
  });

  it("a bridge client gets the marker and the stash; the plain agent still gets none", async () => {
    const { h, initResult } = await connectA({ clientIsBridge: true, agentIsBridge: false });
    expect(initResult.result._meta["acp-bridge"]).toMatchObject({ bridge: { name: "acp-bridge" }, clientProtocol: 1 });
    const { toAgent, toClient } = await exchangeA(h);
    expect(toClient.params.update._meta["acp-bridge"].residual).toEqual({ status: "cancelled" });
    expect(toClient.params._meta[KEY_ORDER_KEY]).toBeDefined();
    expect(bridgeData(toAgent)).toBe(false);
  });

  it("a bridge agent gets the stash; the plain client still gets none", async () => {
    const { h, initResult } = await connectA({ clientIsBridge: false, agentIsBridge: true });
    expect(bridgeData(initResult)).toBe(false);
    const { toAgent, toClient } = await exchangeA(h);
    expect(toAgent.params.prompt[0]._meta["acp-bridge"].residual).toEqual({ size: -1 });
    expect(toAgent.params._meta[KEY_ORDER_KEY]).toBeDefined();
    expect(bridgeData(toClient)).toBe(false);
  });

  it("a forced level goes to every peer: compact to plain peers too, off to bridges too", async () => {
    const compact = await connectA({ clientIsBridge: false, agentIsBridge: false, stash: "compact" });
    const c = await exchangeA(compact.h);
    expect(c.toClient.params.update._meta["acp-bridge"].residual).toEqual({ status: "cancelled" });
    expect(c.toAgent.params.prompt[0]._meta["acp-bridge"].residual).toEqual({ size: -1 });
    // Key-order records and the result's marker are for bridges only, whatever the level.
    expect(JSON.stringify([c.toClient, c.toAgent])).not.toContain(KEY_ORDER_KEY);
    expect(compact.initResult.result._meta?.["acp-bridge"]?.bridge).toBeUndefined();

    const off = await connectA({ clientIsBridge: true, agentIsBridge: true, stash: "off" });
    const o = await exchangeA(off.h);
    expect(bridgeData(o.toClient)).toBe(false);
    expect(bridgeData(o.toAgent)).toBe(false);
    // Still a bridge: it is told this is one too.
    expect(off.initResult.result._meta["acp-bridge"].bridge).toBeDefined();
  });

  it("a plain client's prompt failing on an agent exit: the cause in data, no stash of it", async () => {
    for (const [clientIsBridge, stashed] of [
      [false, false],
      [true, true],
    ] as const) {
      const { h } = await connectA({ clientIsBridge, agentIsBridge: false });
      h.client({
        jsonrpc: "2.0",
        id: 2,
        method: "session/prompt",
        params: { sessionId: S, prompt: [{ type: "text", text: "go" }] },
      });
      h.takeAgent();
      h.bridge.agentGone({ code: 1, signal: null });
      const [answer] = h.takeClient();
      expect(answer.error.data).toMatchObject({ reason: "agent_exited", exitCode: 1 });
      expect(Object.hasOwn(answer.error.data, "acp-bridge")).toBe(stashed);
    }
  });
});

/** v2 client → bridge → v1 agent, a session open. */
async function connectB(p: Peers): Promise<{ h: Harness; initResult: any }> {
  const h = harness({ agentProtocol: 1, ackGraceMs: 0, ...(p.stash ? { stash: p.stash } : {}) });
  current = h;
  const params: Record<string, unknown> = { protocolVersion: 2, info: { name: "ed", version: "1" }, capabilities: {} };
  if (p.clientIsBridge) params._meta = marker(1, 1, 2);
  h.client({ jsonrpc: "2.0", id: 0, method: "initialize", params });
  await h.settle();
  const [initRequest] = h.takeAgent();
  expect(initRequest.params._meta["acp-bridge"]).toMatchObject({ bridge: { name: "acp-bridge" } });
  const result: Record<string, unknown> = { protocolVersion: 1, agentCapabilities: {}, authMethods: [] };
  if (p.agentIsBridge) result._meta = marker(2, 1, 2);
  h.agent({ jsonrpc: "2.0", id: initRequest.id, result });
  await h.settle();
  const [initResult] = h.takeClient();
  return { h, initResult };
}

const V1_DIFF = { type: "diff", path: "/w/a.txt", oldText: "one\n", newText: "two\n" };

/** The session opened (v1 needs mcpServers: B invents them), then a v1 diff from the agent. */
async function exchangeB(h: Harness): Promise<{ newRequest: any; diff: any }> {
  h.client({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/w" } });
  const [newRequest] = h.takeAgent();
  h.agent({ jsonrpc: "2.0", id: newRequest.id, result: { sessionId: S } });
  await h.settle();
  h.takeClient();
  h.agent({
    jsonrpc: "2.0",
    method: "session/update",
    params: {
      sessionId: S,
      update: { sessionUpdate: "tool_call", toolCallId: "t", title: "Edit", kind: "edit", content: [V1_DIFF] },
    },
  });
  await h.settle();
  const [u] = h.takeClient();
  const diff = u.params.update.content[0];
  expect(diff).toMatchObject({ type: "diff", changes: [{ operation: "modify", path: "/w/a.txt" }] });
  return { newRequest, diff };
}

describe("direction B: the stash level of each destination", () => {
  it("a plain v2 client and a plain v1 agent get no bridge data at the default", async () => {
    const { h, initResult } = await connectB({ clientIsBridge: false, agentIsBridge: false });
    expect(bridgeData(initResult)).toBe(false);
    const { newRequest, diff } = await exchangeB(h);
    expect(bridgeData(newRequest)).toBe(false);
    expect(bridgeData(diff)).toBe(false);
  });

  it("a bridge client gets what it needs to restore the v1 diff exactly (full: the texts), a plain agent nothing", async () => {
    const { h } = await connectB({ clientIsBridge: true, agentIsBridge: false });
    const { newRequest, diff } = await exchangeB(h);
    expect(diff._meta["acp-bridge"].residual.v1Diff).toEqual({
      path: V1_DIFF.path,
      newText: V1_DIFF.newText,
      oldText: V1_DIFF.oldText,
    });
    expect(bridgeData(newRequest)).toBe(false);
  });

  it("a bridge agent gets the stash of what B invented for it", async () => {
    const { h } = await connectB({ clientIsBridge: false, agentIsBridge: true });
    const { newRequest, diff } = await exchangeB(h);
    expect(newRequest.params._meta["acp-bridge"].synthetic).toEqual(["mcpServers"]);
    expect(bridgeData(diff)).toBe(false);
  });

  it("forced compact: a bridge client still gets a modified file's exact v1 texts (bounded)", async () => {
    const { h } = await connectB({ clientIsBridge: true, agentIsBridge: false, stash: "compact" });
    const { diff } = await exchangeB(h);
    expect(diff._meta?.["acp-bridge"]?.residual?.v1Diff).toEqual({
      path: "/w/a.txt",
      oldText: "one\n",
      newText: "two\n",
    });
  });
});
