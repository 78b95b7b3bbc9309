// `--strict` (issue "Hostile input and faults", item 3): every message the bridge writes is checked
// against its side's schema and a violation is reported, without changing what is written.
import { describe, expect, it } from "vitest";
import { Bridge } from "../../src/engine/bridge.js";
import { createBridgeConfig } from "../../src/engine/config.js";
import { silentLogger } from "../support/log.js";
import { strictHooks } from "../../src/schema/strict.js";
import { baseOptions } from "../support/harness.js";

async function strictPassThrough(version: 1 | 2) {
  const violations: string[] = [];
  const toClient: string[] = [];
  const toAgent: string[] = [];
  const hooks = strictHooks(silentLogger, (v) => violations.push(v));
  const bridge = new Bridge(
    createBridgeConfig({ ...baseOptions }, silentLogger, hooks),
    { push: (l) => toClient.push(String(l)) },
    { push: (l) => toAgent.push(String(l)) },
  );
  const params =
    version === 1
      ? { protocolVersion: 1, clientCapabilities: {} }
      : { protocolVersion: 2, info: { name: "c", version: "1" }, capabilities: {} };
  bridge.clientLine(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params })));
  await new Promise((r) => setImmediate(r));
  const probe = JSON.parse(toAgent.shift()!) as { id: number };
  const result =
    version === 1
      ? { protocolVersion: 1, agentCapabilities: {}, authMethods: [] }
      : { protocolVersion: 2, info: { name: "a", version: "1" }, capabilities: {}, authMethods: [] };
  bridge.agentLine(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: probe.id, result })));
  await new Promise((r) => setImmediate(r));
  toClient.splice(0);
  return { bridge, violations, toClient, toAgent };
}

describe("--strict", () => {
  it("reports a message the bridge writes that its side's schema rejects, and still writes it", async () => {
    const { bridge, violations, toClient } = await strictPassThrough(1);
    bridge.agentLine(Buffer.from('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":5,"update":{}}}'));
    expect(toClient).toHaveLength(1);
    expect(violations).toHaveLength(1);
    expect(violations[0]).toContain(
      "to the client (v1): session/update params are not a valid v1u SessionNotification",
    );
  });

  it("checks a response against the result of the method it answers", async () => {
    const { bridge, violations, toAgent } = await strictPassThrough(2);
    bridge.clientLine(
      Buffer.from('{"jsonrpc":"2.0","id":"n","method":"session/new","params":{"cwd":"/w","mcpServers":[]}}'),
    );
    const fwd = JSON.parse(toAgent.shift()!) as { id: number };
    bridge.agentLine(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: fwd.id, result: { sessionId: 7 } })));
    expect(violations).toEqual([expect.stringContaining("session/new result is not a valid v2u NewSessionResponse")]);
  });

  it("says nothing about valid traffic", async () => {
    const { bridge, violations } = await strictPassThrough(2);
    bridge.agentLine(
      Buffer.from(
        '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"}}}',
      ),
    );
    expect(violations).toEqual([]);
  });
});
