// Chains as a property (issue 4 item 4; T §9 case 20): a v2 client → bridge B → (v1) → bridge A →
// v2 agent, both in memory, default settings. Random but legal agent turns (the updates of
// test/support/v2-updates.ts) must reach the client as a direct connection would deliver them: the
// same materialized state, and the same bytes for every update the bridges do not coalesce. Every
// message on all three wires is schema-checked, and the far peers, plain ones, get no bridge data.
import { setOwn } from "../../src/base/json.js";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Bridge } from "../../src/engine/bridge.js";
import { createBridgeConfig, type BridgeOptions } from "../../src/engine/config.js";
import { silentLogger } from "../support/log.js";
import type { SchemaVersion } from "../support/schema.js";
import { baseOptions } from "../support/harness.js";
import { arb } from "../support/arbitrary.js";
import { numRuns } from "../support/properties.js";
import { rawUpdate, text } from "../support/v2-updates.js";
import { wireProblems } from "../support/wire-schema.js";

type Obj = Record<string, any>;

const RUNS = Math.max(50, Math.floor(numRuns() / 10));
const S = "s1";
const AGENT_CAPS = {
  session: { prompt: { image: {} }, mcp: { stdio: {}, http: {} }, delete: {}, additionalDirectories: {} },
};

/** One wire: what was written on it, parsed, and its schema problems. */
class Wire {
  readonly seen: Obj[] = [];
  private readonly asked = new Map<string, string>();
  constructor(
    readonly name: string,
    readonly version: SchemaVersion,
    readonly problems: string[],
  ) {}
  /** A message one end wrote (requests are remembered to check their responses). */
  note(m: Obj): void {
    if (typeof m.method === "string" && m.id !== undefined) this.asked.set(JSON.stringify(m.id), m.method);
  }
  check(m: Obj, line: string): void {
    const problem = wireProblems(this.version, m, (id) => this.asked.get(JSON.stringify(id)));
    if (problem) this.problems.push(`${this.name}: ${problem}\n  ${line.slice(0, 400)}`);
  }
  /**
   * A wire to a plain peer at default settings: nothing of a bridge's (stash, key order, channel), but
   * the `initialize` request, which carries the bridge's marker (and stash) to whatever agent it is.
   */
  plain(m: Obj, line: string): void {
    if (m.method !== "initialize" && line.includes("acp-bridge"))
      this.problems.push(`${this.name}: bridge data for a plain peer\n  ${line.slice(0, 400)}`);
  }
}

/**
 * Two bridges back to back, in memory: the far peers speak `outer` (v2: client → B → A → agent;
 * v1: client → A → B → agent). Lines are handed on in order, as microtasks, so neither bridge re-enters.
 */
function chain(outer: 1 | 2 = 2, options: Partial<BridgeOptions> = {}) {
  const problems: string[] = [];
  const toClient: Obj[] = [];
  const toAgent: Obj[] = [];
  const outerSchema: SchemaVersion = outer === 2 ? "v2" : "v1";
  const innerVersion = outer === 2 ? 1 : 2;
  const near = new Wire(`to client (v${String(outer)})`, outerSchema, problems);
  const inner = new Wire(`between the bridges (v${String(innerVersion)})`, outer === 2 ? "v1" : "v2", problems);
  const far = new Wire(`to agent (v${String(outer)})`, outerSchema, problems);
  const opts = { ...baseOptions, ...options };
  const front: Bridge = new Bridge(
    createBridgeConfig({ ...opts, agentProtocol: innerVersion }, silentLogger),
    {
      push: (l) => {
        const m = JSON.parse(String(l)) as Obj;
        near.check(m, String(l));
        if (!options.stash) near.plain(m, String(l));
        toClient.push(m);
      },
    },
    {
      push: (l) => {
        const line = String(l);
        const m = JSON.parse(line) as Obj;
        inner.note(m);
        inner.check(m, line);
        queueMicrotask(() => back.clientLine(Buffer.from(line)));
      },
    },
  );
  const back: Bridge = new Bridge(
    createBridgeConfig({ ...opts, agentProtocol: outer }, silentLogger),
    {
      push: (l) => {
        const line = String(l);
        const m = JSON.parse(line) as Obj;
        inner.check(m, line);
        inner.note(m);
        queueMicrotask(() => front.agentLine(Buffer.from(line)));
      },
    },
    {
      push: (l) => {
        const m = JSON.parse(String(l)) as Obj;
        far.check(m, String(l));
        if (!options.stash) far.plain(m, String(l));
        toAgent.push(m);
      },
    },
  );
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  };
  return {
    problems,
    client(m: Obj) {
      near.note(m);
      front.clientLine(Buffer.from(JSON.stringify(m)));
    },
    agent(m: Obj) {
      far.note(m);
      back.agentLine(Buffer.from(JSON.stringify(m)));
    },
    takeClient: () => toClient.splice(0),
    takeAgent: () => toAgent.splice(0),
    settle,
    /** The client prompts "go"; returns the prompt as the agent got it. */
    async prompt(): Promise<Obj> {
      this.client({ jsonrpc: "2.0", id: 2, method: "session/prompt", params: { sessionId: S, prompt: [text("go")] } });
      await settle();
      vi.advanceTimersByTime(1_000);
      await settle();
      return (toAgent.splice(0) as [Obj])[0];
    },
    /** Everything in flight delivered, timers (coalescing, settle) run: what reached the client since. */
    async drain(): Promise<Obj[]> {
      await settle();
      vi.advanceTimersByTime(5_000);
      await settle();
      return toClient.splice(0);
    },
  };
}

type Chain = ReturnType<typeof chain>;

async function connect(ch: Chain): Promise<void> {
  ch.client({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: 2, info: { name: "ed", version: "1" }, capabilities: {} },
  });
  await ch.settle();
  const [init] = ch.takeAgent() as [Obj];
  expect(init).toMatchObject({ method: "initialize", params: { protocolVersion: 2 } });
  ch.agent({
    jsonrpc: "2.0",
    id: init.id,
    result: { protocolVersion: 2, info: { name: "agent", version: "1" }, capabilities: AGENT_CAPS, authMethods: [] },
  });
  await ch.settle();
  const [result] = ch.takeClient();
  expect(result).toMatchObject({ id: 0, result: { protocolVersion: 2 } });
  ch.client({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/w" } });
  await ch.settle();
  const [req] = ch.takeAgent() as [Obj];
  expect(req).toMatchObject({ method: "session/new", params: { cwd: "/w" } });
  ch.agent({ jsonrpc: "2.0", id: req.id, result: { sessionId: S } });
  await ch.settle();
  expect(ch.takeClient()).toEqual([{ jsonrpc: "2.0", id: 1, result: { sessionId: S } }]);
}

/** The client's state after applying `updates` in order (what an editor shows). */
function materialize(updates: readonly Obj[]): Obj {
  // Keyed by ids the agent chose: without a prototype, an id like `__proto__` is a key like any
  // other (on a plain object it reaches Object.prototype, which every later test would then see).
  const messages: Record<string, unknown[]> = Object.create(null) as Record<string, unknown[]>;
  const tools: Record<string, Obj> = Object.create(null) as Record<string, Obj>;
  const plans: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const other: unknown[] = [];
  const states: string[] = [];
  for (const u of updates) {
    const tag = String(u.sessionUpdate);
    const key = `${tag.replace(/_chunk$/, "")}:${String(u.messageId)}`;
    if (/_message_chunk$|_thought_chunk$/.test(tag)) (messages[key] ??= []).push(u.content);
    else if (/^(user|agent)_message$|^agent_thought$/.test(tag)) {
      if (u.content !== undefined) messages[key] = u.content === null ? [] : [...u.content];
    } else if (tag === "tool_call_update") {
      const t = (tools[u.toolCallId] ??= {});
      // A patch: null resets (T §2.4).
      for (const [k, v] of Object.entries(u)) {
        if (k === "sessionUpdate" || k === "_meta") continue;
        if (v === null) Reflect.deleteProperty(t, k);
        else setOwn(t, k, v);
      }
    } else if (tag === "tool_call_content_chunk") {
      const t = (tools[u.toolCallId] ??= { toolCallId: u.toolCallId });
      t.content = [...(Array.isArray(t.content) ? t.content : []), u.content];
    } else if (tag === "plan_update") plans[String(u.plan?.planId)] = u.plan;
    else if (tag === "state_update") states.push(`${String(u.state)}:${String(u.stopReason)}`);
    else other.push(u);
  }
  // Text as a client renders it: adjacent text blocks joined; an empty message shows nothing (A sends
  // no v1 chunk for a content-less upsert of a new message, T §2.2-3).
  const text = Object.fromEntries(
    Object.entries(messages)
      .map(([k, blocks]) => [
        k,
        (blocks as Obj[]).map((b) => (b?.type === "text" ? b.text : JSON.stringify(b))).join(""),
      ])
      .filter(([, t]) => t !== ""),
  );
  return { text, tools, plans, other, states };
}

// The bridges' timers (coalescing, settle) run on demand.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
});
afterEach(() => {
  vi.useRealTimers();
});

const COALESCED = new Set(["tool_call_content_chunk", "user_message", "agent_message", "agent_thought"]);

/**
 * The bytes to compare, in order: what the bridges do not coalesce. Whole-message upserts travel as v1
 * chunks and are rebuilt (T §2.2), and so is a chunk of a message an upsert named (content-less
 * upserts before a first chunk come back before it, several as one, T §2.2 A↓-3); content chunks
 * are coalesced on the v1 hop (T §2.4 A↓-3).
 */
function uncoalesced(updates: readonly Obj[], sent: readonly Obj[]): string[] {
  const upserted = new Set(
    sent
      .filter((u) => COALESCED.has(String(u.sessionUpdate)) && u.messageId !== undefined)
      .map((u) => `${String(u.sessionUpdate)}:${String(u.messageId)}`),
  );
  const merged = (u: Obj) => upserted.has(`${String(u.sessionUpdate).replace(/_chunk$/, "")}:${String(u.messageId)}`);
  return updates.filter((u) => !COALESCED.has(String(u.sessionUpdate)) && !merged(u)).map((u) => JSON.stringify(u));
}

const updatesOf = (msgs: readonly Obj[]): Obj[] =>
  msgs.filter((m) => m.method === "session/update").map((m) => m.params.update);

describe("chained bridges (model): v2 client → B → A → v2 agent", () => {
  it("delivers random agent turns as a direct connection would (state, and bytes where nothing is coalesced)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(rawUpdate, { maxLength: 12 }), async (updates) => {
        const ch = chain();
        await connect(ch);
        const prompt = await ch.prompt();
        expect(prompt).toMatchObject({ method: "session/prompt", params: { sessionId: S } });
        const sent: Obj[] = [
          { sessionUpdate: "user_message", messageId: "u1", content: [text("go")] },
          { sessionUpdate: "state_update", state: "running" },
          ...updates,
          { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" },
        ];
        ch.agent({ jsonrpc: "2.0", id: prompt.id, result: { messageId: "u1" } });
        for (const u of sent)
          ch.agent({ jsonrpc: "2.0", method: "session/update", params: { sessionId: S, update: u } });
        const got = await ch.drain();
        expect(ch.problems).toEqual([]);
        expect(got.find((m) => m.id === 2)).toEqual({ jsonrpc: "2.0", id: 2, result: { messageId: "u1" } });
        const received = updatesOf(got);
        expect(materialize(received)).toEqual(materialize(sent));
        expect(uncoalesced(received, sent)).toEqual(uncoalesced(sent, sent));
      }),
      { numRuns: RUNS },
    );
  });
});

describe("chained bridges (model): permissions, v2 client → B → A → v2 agent", () => {
  const permission = (arb("v2", "RequestPermissionRequest") as fc.Arbitrary<Obj>).map((p): Obj => ({
    ...p,
    sessionId: S,
  }));

  it("relays a permission request as the agent sent it and the answer as the client gave it", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rawUpdate, { maxLength: 5 }),
        permission,
        fc.oneof(
          fc.constant({ outcome: "cancelled" }),
          fc.nat().map((i) => ({ outcome: "selected", pick: i })),
        ),
        fc.array(rawUpdate, { maxLength: 5 }),
        async (before, params, answer, after) => {
          const ch = chain();
          await connect(ch);
          const prompt = await ch.prompt();
          ch.agent({ jsonrpc: "2.0", id: prompt.id, result: { messageId: "u1" } });
          const first: Obj[] = [
            { sessionUpdate: "user_message", messageId: "u1", content: [text("go")] },
            { sessionUpdate: "state_update", state: "running" },
            ...before,
            { sessionUpdate: "state_update", state: "requires_action" },
          ];
          for (const u of first)
            ch.agent({ jsonrpc: "2.0", method: "session/update", params: { sessionId: S, update: u } });
          ch.agent({ jsonrpc: "2.0", id: "perm", method: "session/request_permission", params });
          const upToRequest = await ch.drain();
          expect(ch.problems).toEqual([]);
          const request = upToRequest.find((m) => m.method === "session/request_permission");
          expect(request, "the client got the request").toBeDefined();
          expect(JSON.stringify(request?.params)).toBe(JSON.stringify(params));
          const options = Array.isArray(params.options) ? (params.options as Obj[]) : [];
          const result =
            answer.outcome === "selected" && options.length > 0
              ? {
                  outcome: {
                    outcome: "selected",
                    optionId: options[(answer as { pick: number }).pick % options.length]?.optionId,
                  },
                }
              : { outcome: { outcome: "cancelled" } };
          ch.client({ jsonrpc: "2.0", id: request?.id, result });
          await ch.settle();
          const reply = ch.takeAgent().find((m) => m.id === "perm");
          expect(reply).toEqual({ jsonrpc: "2.0", id: "perm", result });
          const rest: Obj[] = [
            { sessionUpdate: "state_update", state: "running" },
            ...after,
            { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" },
          ];
          for (const u of rest)
            ch.agent({ jsonrpc: "2.0", method: "session/update", params: { sessionId: S, update: u } });
          const received = updatesOf([...upToRequest, ...(await ch.drain())]);
          expect(ch.problems).toEqual([]);
          const sent = [...first, ...rest];
          expect(materialize(received)).toEqual(materialize(sent));
          expect(uncoalesced(received, sent)).toEqual(uncoalesced(sent, sent));
        },
      ),
      { numRuns: RUNS },
    );
  });
});

// ------------------------------------------------------------------ v1 client → A → B → v1 agent

const V1_AGENT_CAPS = { loadSession: true, promptCapabilities: { image: true }, mcpCapabilities: { http: true } };

async function connectV1(ch: Chain, extraCaps: Obj = {}): Promise<Obj> {
  ch.client({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: 1,
      clientCapabilities: {
        fs: { readTextFile: true, writeTextFile: true },
        terminal: true,
        session: { notices: {}, compaction: {}, configOptions: { boolean: {} } },
        ...extraCaps,
      },
    },
  });
  await ch.settle();
  const [init] = ch.takeAgent() as [Obj];
  expect(init).toMatchObject({ method: "initialize", params: { protocolVersion: 1 } });
  ch.agent({
    jsonrpc: "2.0",
    id: init.id,
    result: { protocolVersion: 1, agentCapabilities: V1_AGENT_CAPS, authMethods: [] },
  });
  await ch.settle();
  const [result] = ch.takeClient();
  expect(result).toMatchObject({ id: 0, result: { protocolVersion: 1, agentCapabilities: V1_AGENT_CAPS } });
  ch.client({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/w", mcpServers: [] } });
  await ch.settle();
  const [req] = ch.takeAgent() as [Obj];
  expect(req).toMatchObject({ method: "session/new", params: { cwd: "/w", mcpServers: [] } });
  ch.agent({ jsonrpc: "2.0", id: req.id, result: { sessionId: S } });
  await ch.settle();
  expect(ch.takeClient()).toEqual([{ jsonrpc: "2.0", id: 1, result: { sessionId: S } }]);
  return init;
}

/** v1 updates a v1 agent sends during a turn: the schema's own variants, plus classic id-less chunks and tool calls. */
const v1Update: fc.Arbitrary<Obj> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(fc.constantFrom("agent_message_chunk", "agent_thought_chunk"), fc.string({ maxLength: 5 }))
      .map(([tag, t]) => ({ sessionUpdate: tag, content: text(t) })),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.constantFrom("c1", "c2"),
        fc.constantFrom("Run tests", "Edit"),
        fc.constantFrom("pending", "in_progress", "completed", "failed"),
      )
      .map(([id, title, status]) => ({ sessionUpdate: "tool_call", toolCallId: id, title, kind: "execute", status })),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.constantFrom("c1", "c2"),
        fc.record(
          {
            status: fc.constantFrom("in_progress", "completed", null),
            title: fc.constantFrom("Done", null),
            content: fc.constantFrom([{ type: "content", content: text("ok") }], null),
          },
          { requiredKeys: [] },
        ),
      )
      .map(([id, patch]) => ({ sessionUpdate: "tool_call_update", toolCallId: id, ...patch })),
  },
  {
    weight: 1,
    arbitrary: fc
      .array(
        fc.record({
          content: fc.constantFrom("a", "b"),
          priority: fc.constantFrom("high", "low"),
          status: fc.constantFrom("pending", "completed"),
        }),
        { maxLength: 3 },
      )
      .map((entries) => ({ sessionUpdate: "plan", entries })),
  },
  {
    weight: 3,
    arbitrary: (arb("v1", "SessionUpdate") as fc.Arbitrary<Obj>).filter(
      (u) => !["user_message_chunk", "current_mode_update"].includes(String(u.sessionUpdate)),
    ),
  },
);

describe("chained bridges (model): v1 client → A → B → v1 agent", () => {
  it("delivers random v1 agent turns byte for byte, with the agent's stop reason", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(v1Update, { maxLength: 10 }),
        fc.constantFrom("end_turn", "max_tokens", "refusal"),
        async (updates, stopReason) => {
          const ch = chain(1);
          await connectV1(ch);
          const prompt = await ch.prompt();
          expect(prompt).toEqual({
            jsonrpc: "2.0",
            id: prompt.id,
            method: "session/prompt",
            params: { sessionId: S, prompt: [text("go")] },
          });
          for (const u of updates)
            ch.agent({ jsonrpc: "2.0", method: "session/update", params: { sessionId: S, update: u } });
          ch.agent({ jsonrpc: "2.0", id: prompt.id, result: { stopReason } });
          const got = await ch.drain();
          expect(ch.problems).toEqual([]);
          expect(got.map((m) => JSON.stringify(m))).toEqual([
            ...updates.map((u) =>
              JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: S, update: u } }),
            ),
            JSON.stringify({ jsonrpc: "2.0", id: 2, result: { stopReason } }),
          ]);
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe("chained bridges: a v1 agent's message id used for a thought and a message", () => {
  it("reaches the v1 client unrenamed (B marks the reuse, A keeps the id)", async () => {
    const ch = chain(1);
    await connectV1(ch);
    const prompt = await ch.prompt();
    const updates = [
      { sessionUpdate: "agent_thought_chunk", messageId: "m", content: text("hmm") },
      { sessionUpdate: "agent_message_chunk", messageId: "m", content: text("yes") },
    ];
    for (const u of updates)
      ch.agent({ jsonrpc: "2.0", method: "session/update", params: { sessionId: S, update: u } });
    ch.agent({ jsonrpc: "2.0", id: prompt.id, result: { stopReason: "end_turn" } });
    await ch.settle();
    expect(ch.problems).toEqual([]);
    expect(
      ch
        .takeClient()
        .filter((m) => m.method === "session/update")
        .map((m) => m.params.update),
    ).toEqual(updates);
  });
});

describe("chained bridges (model): permissions, v1 client → A → B → v1 agent", () => {
  const permission = (arb("v1", "RequestPermissionRequest") as fc.Arbitrary<Obj>).map((p): Obj => ({
    ...p,
    sessionId: S,
  }));

  it("relays a v1 permission request byte for byte, the answer too, and adds no update", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(v1Update, { maxLength: 4 }),
        permission,
        fc.option(fc.nat(), { nil: undefined }),
        async (before, params, pick) => {
          const ch = chain(1);
          await connectV1(ch);
          const prompt = await ch.prompt();
          for (const u of before)
            ch.agent({ jsonrpc: "2.0", method: "session/update", params: { sessionId: S, update: u } });
          ch.agent({ jsonrpc: "2.0", id: "perm", method: "session/request_permission", params });
          const got = await ch.drain();
          expect(ch.problems).toEqual([]);
          const request = got.find((m) => m.method === "session/request_permission");
          const options = Array.isArray(params.options) ? (params.options as Obj[]) : [];
          if (options.length === 0) {
            // v2 needs an option: B answers cancelled itself (T §4 B↓), and the client is never asked.
            expect(request).toBeUndefined();
          } else {
            expect(JSON.stringify(request?.params)).toBe(JSON.stringify(params));
            const result =
              pick !== undefined
                ? { outcome: { outcome: "selected", optionId: options[pick % options.length]?.optionId } }
                : { outcome: { outcome: "cancelled" } };
            ch.client({ jsonrpc: "2.0", id: request?.id, result });
            await ch.settle();
            expect(ch.takeAgent().find((m) => m.id === "perm")).toEqual({ jsonrpc: "2.0", id: "perm", result });
          }
          ch.agent({ jsonrpc: "2.0", id: prompt.id, result: { stopReason: "end_turn" } });
          const all = [...got, ...(await ch.drain())];
          expect(ch.problems).toEqual([]);
          expect(all.filter((m) => m.method === "session/update").map((m) => JSON.stringify(m.params.update))).toEqual(
            before.map((u) => JSON.stringify(u)),
          );
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe("chained bridges: terminals of the `_meta` convention, v1 client → A → B → v1 agent (T §2.5)", () => {
  // codex-acp's v1 shape: info and the content item on tool_call, output deltas, the exit with the status.
  const codex = [
    {
      sessionUpdate: "tool_call",
      toolCallId: "call_1",
      title: "ls",
      kind: "execute",
      status: "in_progress",
      rawInput: { command: ["bash", "-lc", "ls"] },
      content: [{ type: "terminal", terminalId: "call_1" }],
      _meta: { terminal_info: { cwd: "/w", terminal_id: "call_1" } },
    },
    {
      sessionUpdate: "tool_call_update",
      toolCallId: "call_1",
      _meta: { terminal_output: { data: "a.txt\n", terminal_id: "call_1" } },
    },
    {
      sessionUpdate: "tool_call_update",
      toolCallId: "call_1",
      status: "completed",
      _meta: { terminal_exit: { exit_code: 0, signal: null, terminal_id: "call_1" } },
    },
  ];

  for (const [label, caps, offered] of [
    ["a client that renders it", { _meta: { terminal_output: true } }, true],
    ["a client that does not", {}, false],
  ] as const)
    it(`reaches ${label} byte for byte, and the agent is offered it exactly when the client was`, async () => {
      const ch = chain(1);
      const init = await connectV1(ch, caps);
      expect(init.params.clientCapabilities._meta?.terminal_output === true).toBe(offered);
      const prompt = await ch.prompt();
      for (const u of codex)
        ch.agent({ jsonrpc: "2.0", method: "session/update", params: { sessionId: S, update: u } });
      ch.agent({ jsonrpc: "2.0", id: prompt.id, result: { stopReason: "end_turn" } });
      const got = await ch.drain();
      expect(ch.problems).toEqual([]);
      expect(got.filter((m) => m.method === "session/update").map((m) => JSON.stringify(m.params.update))).toEqual(
        codex.map((u) => JSON.stringify(u)),
      );
    });
});
