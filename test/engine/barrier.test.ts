// The crash barrier (issue 19): an exception thrown while the bridge handles one message never
// ends the process. The message is refused as malformed input is (a request gets -32603
// `translation_failed` naming its method, a response settles its request so, a notification is
// dropped with a warning) and the bridge keeps serving. First the defect that showed the need: a
// `uri` holding a lone surrogate (valid JSON) made `encodeURIComponent` throw.
import { describe, expect, it } from "vitest";
import { handshakeA, handshakeB, harness, type Harness } from "../support/harness.js";

const bad = "not a uri \ud800";
const blocks = [
  { type: "resource_link", name: "n", uri: bad },
  { type: "resource", resource: { uri: bad, text: "t" } },
  { type: "image", data: "aGk=", mimeType: "image/png", uri: bad },
];

async function directionA(): Promise<Harness> {
  const h = harness();
  await handshakeA(h, {}, { session: {}, promptCapabilities: { image: true, embeddedContext: true } });
  h.client({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/w", mcpServers: [] } });
  const [create] = h.takeAgent();
  h.agent({ jsonrpc: "2.0", id: create.id, result: { sessionId: "s" } });
  await h.settle();
  h.takeClient();
  expect(h.bridge.mode).toBe("A");
  return h;
}

async function directionB(): Promise<Harness> {
  const h = harness();
  await handshakeB(h, { promptCapabilities: { image: true, embeddedContext: true } });
  h.client({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/w", mcpServers: [] } });
  const [create] = h.takeAgent();
  h.agent({ jsonrpc: "2.0", id: create.id, result: { sessionId: "s" } });
  await h.settle();
  h.takeClient();
  expect(h.bridge.mode).toBe("B");
  return h;
}

describe("a uri holding a lone surrogate (the defect)", () => {
  it("direction A: a v1 client's prompt with such resource_link, resource and image blocks reaches the agent with stand-in URIs", async () => {
    const h = await directionA();
    h.client({ jsonrpc: "2.0", id: 2, method: "session/prompt", params: { sessionId: "s", prompt: blocks } });
    await h.settle();
    const [sent] = h.takeAgent();
    expect(sent.method).toBe("session/prompt");
    const uris = (sent.params.prompt as { uri?: string; resource?: { uri: string } }[]).map(
      (b) => b.uri ?? b.resource?.uri,
    );
    expect(uris).toEqual(Array(3).fill("urn:acp-bridge:invalid-uri:not%20a%20uri%20%EF%BF%BD"));
    expect(h.takeClient()).toEqual([]);
    expect(h.violations).toEqual([]);
  });

  for (const [what, update] of [
    ...blocks.map((content) => [
      `agent_message_chunk (${content.type})`,
      { sessionUpdate: "agent_message_chunk", content },
    ]),
    [
      "tool_call content",
      {
        sessionUpdate: "tool_call",
        toolCallId: "t",
        title: "read",
        content: blocks.map((content) => ({ type: "content", content })),
      },
    ],
  ] as const)
    it(`direction B: a v1 agent's ${what} with such a block reaches the v2 client with a stand-in URI`, async () => {
      const h = await directionB();
      h.agent({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update } });
      await h.settle(30);
      const out = h.takeClient();
      expect(out.length).toBeGreaterThan(0);
      expect(JSON.stringify(out)).toContain("urn:acp-bridge:invalid-uri:not%20a%20uri%20%EF%BF%BD");
      expect(h.violations).toEqual([]);
      // Still serving.
      h.client({ jsonrpc: "2.0", id: 9, method: "session/new", params: { cwd: "/w", mcpServers: [] } });
      expect(h.takeAgent()).toMatchObject([{ method: "session/new" }]);
    });
});
