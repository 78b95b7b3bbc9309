// The fast paths of src/engine/fast-lines.ts (pass-through lines; calls in every mode) against the
// full path: the same traffic through a bridge with them and one without (a receive hook turns fast
// paths off, since it must see every parsed message) gives the same bytes to both peers, in order.
import { Writable } from "node:stream";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { fastPathFor } from "../../src/engine/fast-lines.js";
import { Link } from "../../src/engine/link.js";
import { LineWriter } from "../../src/wire/writer.js";
import type { Translator } from "../../src/engine/translator.js";
import { silentLogger } from "../support/log.js";
import { arb, jsonValue } from "../support/arbitrary.js";
import { handshakeA, handshakeB, harness, type Harness } from "../support/harness.js";
import { numRuns } from "../support/properties.js";
import { applyRealEdit, numberSpelling, realEdit, realText } from "../support/real-traffic.js";

/** A mode with no fast update of its own: only what fastPathFor reads. */
function stubTranslator(mode: Translator["mode"]): Translator {
  return { mode } as unknown as Translator;
}

/** The dominant shape, as SDKs write it (the update scan's): plain chunks and string-only tool updates. */
const sdkUpdate = fc
  .tuple(
    fc.constantFrom("s", "s\u0001", "ü"),
    fc.oneof(
      fc.record({
        sessionUpdate: fc.constantFrom("agent_message_chunk", "agent_thought_chunk", "user_message_chunk"),
        messageId: fc.constantFrom("m1", 'm"2'),
        content: fc.record({
          type: fc.constantFrom("text", "image"),
          text: fc.oneof(fc.string({ maxLength: 40 }), realText),
        }),
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
    // The spellings real traffic has (test/support/real-traffic.ts); invalid UTF-8 bytes included.
    realEdit,
    numberSpelling,
  )
  .map(([m, edit, tail, real, number]): string | Buffer => {
    if (real !== "none" && edit === null && tail === null) return applyRealEdit(JSON.stringify(m), real, number);
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

type CallMode = "pass1" | "pass2" | "A" | "B";

/** A bridge in `mode` after its handshake, with fast paths or (`full`) without. */
async function opened(mode: CallMode, full: boolean, maxPendingRequests?: number): Promise<Harness> {
  const versions = { pass1: [1, 1], pass2: [2, 2], A: [1, 2], B: [2, 1] } as const;
  const [clientProtocol, agentProtocol] = versions[mode];
  const h = harness(
    {
      // A and B negotiate as their handshakes expect; pass-through is fixed to its version.
      ...(mode.startsWith("pass") ? { clientProtocol, agentProtocol } : {}),
      ...(maxPendingRequests !== undefined ? { maxPendingRequests } : {}),
    },
    silentLogger,
    full ? { onReceive: () => undefined } : {},
  );
  if (mode === "A") await handshakeA(h, {}, { session: {} });
  else if (mode === "B") await handshakeB(h, {});
  else {
    h.client({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params:
        clientProtocol === 1
          ? { protocolVersion: 1, clientCapabilities: {} }
          : { protocolVersion: 2, info: { name: "c", version: "1" }, capabilities: {} },
    });
    await h.settle();
    const [probe] = h.takeAgent();
    h.agent({
      jsonrpc: "2.0",
      id: probe.id,
      result:
        clientProtocol === 1
          ? { protocolVersion: 1, agentCapabilities: {}, authMethods: [] }
          : { protocolVersion: 2, info: { name: "a", version: "1" }, capabilities: {}, authMethods: [] },
    });
    await h.settle();
  }
  expect(h.bridge.mode).toBe(mode === "A" || mode === "B" ? mode : "pass");
  h.takeClient();
  h.takeAgent();
  return h;
}

/** The same line, from the same side, to each of the twin bridges. */
function feedBoth(twins: readonly Harness[], fromClient: boolean, text: string | Buffer): void {
  for (const h of twins)
    if (fromClient) h.bridge.clientLine(Buffer.from(text));
    else h.bridge.agentLine(Buffer.from(text));
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
  it("maps request and result ids exactly as the full path does, both ways, in every mode", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(callAction, { maxLength: 30 }),
        fc.constantFrom<CallMode>("pass1", "pass2", "A", "B"),
        fc.option(fc.integer({ min: 1, max: 3 })),
        async (actions, mode, maxPending) => {
          const fast = await opened(mode, false, maxPending ?? undefined);
          const full = await opened(mode, true, maxPending ?? undefined);
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
              const ids = requestIds(a.byAgent ? full.written.agent : full.written.client);
              const id = ids.length > 0 ? ids[a.pick % ids.length] : 99;
              const msg = a.error
                ? { jsonrpc: "2.0", id, error: { code: -32000, message: "no", data: a.value } }
                : { jsonrpc: "2.0", id, result: a.value };
              text = written(msg, a.form);
            }
            feedBoth([fast, full], fromClient, text);
            await fast.settle();
          }
          expect(fast.written.agent).toEqual(full.written.agent);
          // Garbage in is passed on by both alike (pass-through validates nothing): equality is the claim.
          expect(fast.written.client).toEqual(full.written.client);
        },
      ),
      { numRuns: numRuns() },
    );
  });

  it("takes a ping and its result in every mode without parsing either", async () => {
    for (const mode of ["pass1", "pass2", "A", "B"] as const) {
      const h = await opened(mode, false);
      const parse = vi.spyOn(JSON, "parse");
      h.bridge.clientLine(Buffer.from('{"jsonrpc":"2.0","id":41,"method":"_bench/ping","params":{"n":[1,"ü"]}}'));
      const out = h.written.agent.at(-1) ?? "";
      const outId = /^\{"jsonrpc":"2\.0","id":(\d+),/.exec(out)?.[1];
      expect(out).toBe(`{"jsonrpc":"2.0","id":${outId ?? "?"},"method":"_bench/ping","params":{"n":[1,"ü"]}}`);
      h.bridge.agentLine(Buffer.from(`{"jsonrpc":"2.0","id":${outId ?? "?"},"result":{"ok":true}}`));
      expect(h.written.client.at(-1)).toBe('{"jsonrpc":"2.0","id":41,"result":{"ok":true}}');
      // The agent's own extension request crosses the same way toward the client.
      h.bridge.agentLine(Buffer.from('{"jsonrpc":"2.0","id":7,"method":"_x/ask"}'));
      expect(h.written.client.at(-1)).toMatch(/^\{"jsonrpc":"2\.0","id":\d+,"method":"_x\/ask"\}$/);
      expect(parse).not.toHaveBeenCalled();
      parse.mockRestore();
    }
  });

  it("leaves a result holding a key-order record to a translating mode's full path", async () => {
    const record = '{"b":1,"a":2,"_meta":{"acp-bridge/order":{"v":1,"hadMeta":false,"keys":{"":["a","b","_meta"]}}}}';
    for (const mode of ["A", "B"] as const)
      for (const byClient of [false, true]) {
        const twins = [await opened(mode, false), await opened(mode, true)];
        const outs = twins.map((h) => {
          const [asker, answerer] = byClient ? (["agent", "client"] as const) : (["client", "agent"] as const);
          const ask = Buffer.from('{"jsonrpc":"2.0","id":5,"method":"_x/ask","params":{}}');
          if (asker === "client") h.bridge.clientLine(ask);
          else h.bridge.agentLine(ask);
          const outId = /"id":(\d+)/.exec(h.written[answerer].at(-1) ?? "")?.[1] ?? "?";
          const answer = Buffer.from(`{"jsonrpc":"2.0","id":${outId},"result":${record}}`);
          if (answerer === "client") h.bridge.clientLine(answer);
          else h.bridge.agentLine(answer);
          return h.written[asker].at(-1);
        });
        expect(outs[0]).toBe(outs[1]);
      }
  });

  it("writes exactly what the full path writes, to both peers, for any traffic", async () => {
    await fc.assert(
      fc.asyncProperty(traffic, fc.constantFrom<1 | 2>(1, 2), async (lines, version) => {
        const fast = await opened(version === 1 ? "pass1" : "pass2", false);
        const full = await opened(version === 1 ? "pass1" : "pass2", true);
        for (const [fromClient, text] of lines) feedBoth([fast, full], fromClient, text);
        await fast.settle();
        expect(fast.written.client).toEqual(full.written.client);
        expect(fast.written.agent).toEqual(full.written.agent);
      }),
      { numRuns: numRuns() },
    );
  });

  it("takes a long update again as the full path took it the first time, under any session id, edited or not", async () => {
    // A few long updates, so that lines repeat: command lists and plans of over 1 KiB, some of them
    // nested past the bridge's depth limit; sent under session ids JSON reads or refuses, with byte edits.
    const longUpdate = fc.constantFrom(
      { sessionUpdate: "available_commands_update", availableCommands: [{ name: "a", description: "d".repeat(1200) }] },
      { sessionUpdate: "plan", entries: [{ content: "ü ".repeat(700), status: "pending", priority: "low" }] },
      {
        sessionUpdate: "plan",
        entries: [],
        _meta: { deep: JSON.parse(`${"[".repeat(80)}"${"x".repeat(1100)}"${"]".repeat(80)}`) as unknown },
      },
    );
    const id = fc.constantFrom('"s"', '"s2"', '"\\u0041"', '"ü"', '"a\u0001"', "1", '"\\x"');
    /** One long update a run, sent again and again: under an id, with an edit or none, as UTF-8 or Latin-1 bytes. */
    const variant = fc.tuple(
      id,
      fc.option(fc.tuple(fc.nat(), fc.constantFrom("}", '"', "x", "\u00ff", " "))),
      fc.boolean(),
    );
    const longLine = (u: unknown, [sid, edit, bytes]: [string, [number, string] | null, boolean]): string | Buffer => {
      let s = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":${sid},"update":${JSON.stringify(u)}}}`;
      if (edit) {
        const at = edit[0] % s.length;
        s = s.slice(0, at) + edit[1] + s.slice(at + 1);
      }
      // Latin-1 bytes: an edit of \u00ff is then an invalid UTF-8 byte.
      return bytes ? Buffer.from(s, "latin1") : s;
    };
    await fc.assert(
      fc.asyncProperty(
        longUpdate,
        fc.array(fc.tuple(fc.boolean(), fc.oneof(variant, line)), { maxLength: 20 }),
        fc.constantFrom<1 | 2>(1, 2),
        async (u, lines, version) => {
          const fast = await opened(version === 1 ? "pass1" : "pass2", false);
          const full = await opened(version === 1 ? "pass1" : "pass2", true);
          for (const [fromClient, l] of lines)
            feedBoth([fast, full], fromClient, Array.isArray(l) ? longLine(u, l) : l);
          await fast.settle();
          expect(fast.written.client).toEqual(full.written.client);
          expect(fast.written.agent).toEqual(full.written.agent);
        },
      ),
      { numRuns: numRuns() * 3 },
    );
  });

  it("parses a long update the agent sent before no more, under another session id, and never one from the client", async () => {
    const h = await opened("pass1", false);
    const list = `{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"a","description":"${"d".repeat(2000)}"}]}`;
    const long = (sid: string) =>
      Buffer.from(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"${sid}","update":${list}}}`);
    h.bridge.agentLine(long("s1"));
    const parse = vi.spyOn(JSON, "parse");
    h.bridge.agentLine(long("s1"));
    h.bridge.agentLine(long("s2"));
    expect(parse).not.toHaveBeenCalled();
    expect(h.written.client.slice(-3)).toEqual([long("s1"), long("s1"), long("s2")].map(String));
    h.bridge.clientLine(long("s3"));
    expect(parse).toHaveBeenCalled();
    parse.mockRestore();
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

  it("splices an id into a line that has its newline after it in memory, so it is written without a copy", () => {
    const pushed: Buffer[] = [];
    const writes: Buffer[] = [];
    const stream = new Writable({ write: (_c, _e, cb) => cb() });
    stream.write = ((chunk: Buffer) => writes.push(chunk) > 0) as typeof stream.write;
    const writer = new LineWriter(stream);
    const client = new Link("client", {
      push: (l) => {
        pushed.push(l as Buffer);
        writer.push(l);
      },
    });
    const result = Buffer.from('{"jsonrpc":"2.0","id":7,"result":{"a":[1]}}');
    client.respondLine(123456, result, result.indexOf(',"result"')); // where the id token ends
    writer.flush();
    const line = pushed[0]!;
    expect(line.toString()).toBe('{"jsonrpc":"2.0","id":123456,"result":{"a":[1]}}');
    expect(Buffer.from(line.buffer, line.byteOffset, line.length + 1).at(-1)).toBe(0x0a);
    expect(writes).toHaveLength(1);
    expect(writes[0]!.buffer).toBe(line.buffer);
    expect(writes[0]!.toString()).toBe(`${line.toString()}\n`);
  });
});
