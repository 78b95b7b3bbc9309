// The pass-through fast path (src/engine/fast-lines.ts) against the full path: the same traffic
// through a bridge with it and one without (a receive hook turns fast paths off, since it must see
// every parsed message) gives the same bytes to both peers, in the same order.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Bridge } from "../../src/engine/bridge.js";
import { createBridgeConfig } from "../../src/engine/config.js";
import { fastPathFor } from "../../src/engine/fast-lines.js";
import { Link } from "../../src/engine/link.js";
import type { Translator } from "../../src/engine/translator.js";
import { silentLogger } from "../support/log.js";
import { arb, jsonValue } from "../support/arbitrary.js";
import { baseOptions } from "../support/harness.js";
import { numRuns } from "../support/properties.js";

/** A mode with no fast update of its own: only what fastPathFor reads. */
function stubTranslator(mode: Translator["mode"]): Translator {
  return { mode } as unknown as Translator;
}

interface Wired {
  readonly bridge: Bridge;
  readonly toClient: string[];
  readonly toAgent: string[];
}

async function passThrough(full: boolean, version: 1 | 2, maxPendingRequests?: number): Promise<Wired> {
  const toClient: string[] = [];
  const toAgent: string[] = [];
  const options = {
    ...baseOptions,
    agentProtocol: version,
    clientProtocol: version,
    ...(maxPendingRequests !== undefined ? { maxPendingRequests } : {}),
  };
  const config = createBridgeConfig(options, silentLogger, full ? { onReceive: () => undefined } : {});
  const bridge = new Bridge(
    config,
    { push: (l) => toClient.push(String(l)) },
    { push: (l) => toAgent.push(String(l)) },
  );
  const init =
    version === 1
      ? { protocolVersion: 1, clientCapabilities: {} }
      : { protocolVersion: 2, info: { name: "c", version: "1" }, capabilities: {} };
  bridge.clientLine(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: init })));
  await new Promise((r) => setImmediate(r));
  const probe = JSON.parse(toAgent.splice(0)[0] ?? "{}") as { id: number };
  const result =
    version === 1
      ? { protocolVersion: 1, agentCapabilities: {}, authMethods: [] }
      : { protocolVersion: 2, info: { name: "a", version: "1" }, capabilities: {}, authMethods: [] };
  bridge.agentLine(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: probe.id, result })));
  await new Promise((r) => setImmediate(r));
  expect(bridge.mode).toBe("pass");
  toClient.splice(0);
  return { bridge, toClient, toAgent };
}

/** The dominant shape, as SDKs write it (the update scan's): plain chunks and string-only tool updates. */
const sdkUpdate = fc
  .tuple(
    fc.constantFrom("s", "s\u0001", "ü"),
    fc.oneof(
      fc.record({
        sessionUpdate: fc.constantFrom("agent_message_chunk", "agent_thought_chunk", "user_message_chunk"),
        messageId: fc.constantFrom("m1", 'm"2'),
        content: fc.record({ type: fc.constantFrom("text", "image"), text: fc.string({ maxLength: 40 }) }),
      }),
      fc.record(
        {
          sessionUpdate: fc.constantFrom("tool_call_update", "tool_call"),
          toolCallId: fc.constantFrom("t1", "t2"),
          status: fc.constantFrom("pending", "completed"),
          title: fc.string({ maxLength: 20 }),
        },
        { requiredKeys: ["sessionUpdate"] },
      ),
    ),
  )
  .map(([sessionId, u]) => ({ jsonrpc: "2.0", method: "session/update", params: { sessionId, update: u } }));

const update = fc.oneof(
  sdkUpdate,
  arb("v1", "SessionNotification").map((params) => ({ jsonrpc: "2.0", method: "session/update", params })),
  fc.record({ jsonrpc: fc.constant("2.0"), method: fc.constantFrom("_x/note", "$/cancel_request"), params: jsonValue }),
  fc.record({
    jsonrpc: fc.constant("2.0"),
    id: fc.integer({ min: 1, max: 5 }),
    method: fc.constantFrom("session/prompt", "_x/ask"),
    params: fc.constant({ sessionId: "s", prompt: [] }),
  }),
  fc.record({ jsonrpc: fc.constant("2.0"), id: fc.integer({ min: 1, max: 5 }), result: jsonValue }),
);

/** A line as sent: the message's JSON, or that JSON with a byte edit (malformed input too). */
const line = fc
  .tuple(
    update,
    fc.option(fc.tuple(fc.nat(), fc.constantFrom("", "}", '"', ",", "\\", '"id":9,', "\u00ff"))),
    fc.option(fc.constantFrom("}", " ", "x", ",{}")),
  )
  .map(([m, edit, tail]) => {
    let s = JSON.stringify(m);
    if (edit) {
      const at = edit[0] % s.length;
      s = s.slice(0, at) + edit[1] + s.slice(at + 1);
    }
    // Bytes after the message: whitespace is JSON, anything else is not.
    return tail === null ? s : s + tail;
  });

const traffic = fc.array(fc.tuple(fc.boolean(), line), { maxLength: 25 });

/** Ids a peer may use: SDK integers (the fast path's), reused ones, strings, big and odd ones. */
const callId = fc.oneof(
  { weight: 6, arbitrary: fc.nat({ max: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>("7", 2 ** 53 + 2, 10 ** 15, 1.5, -1, null) },
);
const callMethod = fc.constantFrom("_x/ask", "session/prompt", "initialize", "session/new", "fs/read_text_file");
const callValue = fc.oneof(
  jsonValue,
  fc.constantFrom<unknown>({ a: 1, b: [true, null, "ü"] }, { "1": 0, b: 1 }, 1.5, {
    cwd: "/w",
    additionalDirectories: [],
  }),
);
/** How a call is written: as an SDK writes it, with spaces, or with a byte edit (malformed). */
const form = fc.oneof(
  { weight: 4, arbitrary: fc.constant<"sdk">("sdk") },
  { weight: 1, arbitrary: fc.constant<"spaced">("spaced") },
  { weight: 1, arbitrary: fc.tuple(fc.nat(), fc.constantFrom("", "}", '"', ",", "0", "\u00ff")) },
);
const callAction = fc.oneof(
  fc.record({
    t: fc.constant<"request">("request"),
    fromClient: fc.boolean(),
    id: callId,
    method: callMethod,
    params: fc.option(fc.oneof(fc.dictionary(fc.string({ maxLength: 4 }), callValue, { maxKeys: 3 }), callValue)),
    form,
  }),
  fc.record({
    t: fc.constant<"answer">("answer"),
    byAgent: fc.boolean(),
    pick: fc.nat(),
    error: fc.boolean(),
    value: callValue,
    form,
  }),
);

function written(msg: object, how: "sdk" | "spaced" | [number, string]): string {
  if (how === "sdk") return JSON.stringify(msg);
  if (how === "spaced") return JSON.stringify(msg, null, 1);
  const s = JSON.stringify(msg);
  const at = how[0] % s.length;
  return s.slice(0, at) + how[1] + s.slice(at + 1);
}

/** Ids of the requests written to a peer so far (what it may answer), in order. */
function requestIds(lines: readonly string[]): unknown[] {
  const ids: unknown[] = [];
  for (const l of lines) {
    const m = JSON.parse(l) as { id?: unknown; method?: unknown };
    if (typeof m.method === "string" && m.id !== undefined) ids.push(m.id);
  }
  return ids;
}

describe("pass-through fast path", () => {
  it("maps request and result ids exactly as the full path does, both ways, for any calls", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(callAction, { maxLength: 30 }),
        fc.constantFrom<1 | 2>(1, 2),
        fc.option(fc.integer({ min: 1, max: 3 })),
        async (actions, version, maxPending) => {
          const fast = await passThrough(false, version, maxPending ?? undefined);
          const full = await passThrough(true, version, maxPending ?? undefined);
          const seenByAgent: string[] = [];
          const seenByClient: string[] = [];
          for (const a of actions) {
            let text: string;
            let fromClient: boolean;
            if (a.t === "request") {
              fromClient = a.fromClient;
              const msg = {
                jsonrpc: "2.0",
                id: a.id,
                method: a.method,
                ...(a.params !== null ? { params: a.params } : {}),
              };
              text = written(msg, a.form);
            } else {
              fromClient = !a.byAgent;
              const ids = requestIds(a.byAgent ? full.toAgent : full.toClient);
              const id = ids.length > 0 ? ids[a.pick % ids.length] : 99;
              const msg = a.error
                ? { jsonrpc: "2.0", id, error: { code: -32000, message: "no", data: a.value } }
                : { jsonrpc: "2.0", id, result: a.value };
              text = written(msg, a.form);
            }
            for (const w of [fast, full])
              if (fromClient) w.bridge.clientLine(Buffer.from(text));
              else w.bridge.agentLine(Buffer.from(text));
            await new Promise((r) => setImmediate(r));
          }
          seenByAgent.push(...full.toAgent);
          seenByClient.push(...full.toClient);
          expect(fast.toAgent).toEqual(seenByAgent);
          expect(fast.toClient).toEqual(seenByClient);
        },
      ),
      { numRuns: numRuns() },
    );
  });

  it("writes exactly what the full path writes, to both peers, for any traffic", async () => {
    await fc.assert(
      fc.asyncProperty(traffic, fc.constantFrom<1 | 2>(1, 2), async (lines, version) => {
        const fast = await passThrough(false, version);
        const full = await passThrough(true, version);
        for (const [fromClient, text] of lines)
          for (const w of [fast, full])
            if (fromClient) w.bridge.clientLine(Buffer.from(text));
            else w.bridge.agentLine(Buffer.from(text));
        await new Promise((r) => setImmediate(r));
        expect(fast.toClient).toEqual(full.toClient);
        expect(fast.toAgent).toEqual(full.toAgent);
      }),
      { numRuns: numRuns() },
    );
  });

  it("takes a notification itself, as its very bytes, and leaves calls to the mode (stub: none)", () => {
    const toClient: (string | Buffer)[] = [];
    const client = new Link("client", { push: (l) => toClient.push(l) });
    const agent = new Link("agent", { push: () => undefined });
    const fast = fastPathFor(stubTranslator("pass"), client, agent, 512, () => false);
    const text = Buffer.from('{ "jsonrpc": "2.0", "method": "session/update", "params": { "sessionId": "s" } }');
    expect(fast?.(agent, text)).toBe(true);
    expect(toClient).toEqual([text]);
    expect(fast?.(agent, Buffer.from('{"jsonrpc":"2.0","id":1,"method":"x"}'))).toBe(false);
    expect(fastPathFor(stubTranslator("A"), client, agent, 512, () => false)).toBeUndefined();
  });
});
