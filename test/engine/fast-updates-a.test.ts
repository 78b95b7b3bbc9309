// Direction A's fast path (src/engine/v1-client/updates/index.ts `fastUpdateToV1`, from the scan of
// src/wire/update-scan.ts) against the full path: the same conversation through a bridge with fast
// paths and one without (a receive hook turns them off, since it must see every parsed message)
// writes the same bytes to both peers, in the same order, whatever the agent streams and however
// its lines are spelled. Every message written to the client is schema-checked.
import { SentMessages } from "../../src/engine/v1-client/state/messages.js";
import { isUtf8 } from "node:buffer";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { limits } from "../../mappings/limits.js";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { Bridge } from "../../src/engine/bridge.js";
import { createBridgeConfig, type BridgeOptions } from "../../src/engine/config.js";
import type { DiffRendering } from "../../src/convert/diff-options.js";
import { scanUpdate } from "../../src/wire/update-scan.js";
import { scanV2Commands } from "../../src/wire/commands-scan.js";
import type { SessionA } from "../../src/engine/v1-client/session.js";
import { silentLogger } from "../support/log.js";
import { baseOptions } from "../support/harness.js";
import { numRuns } from "../support/properties.js";
import { applyRealEdit, numberSpelling, rawInput, realEdit, realText } from "../support/real-traffic.js";
import { anyJson, anyKey, anyString } from "../support/arbitrary.js";
import { scanMembers } from "../../src/wire/member-scan.js";
import { MEMBER_TAGS } from "../../src/engine/v1-client/updates/index.js";
import { DirectionA } from "../../src/engine/v1-client/engine.js";
import { PromptLifecycle } from "../../src/engine/v1-client/prompt-lifecycle.js";
import type { ScannedMembers } from "../../src/wire/member-scan.js";
import { wireProblems } from "../support/wire-schema.js";
import type { Obj } from "../../src/base/json.js";

interface Wired {
  readonly bridge: Bridge;
  readonly toClient: string[];
  readonly toAgent: string[];
}

/**
 * The translation state of a bridge as plain data (maps as entry lists, no timers or functions): the
 * fast path must leave exactly the state the full path leaves, even where no output shows it yet.
 */
function stateOf(bridge: Bridge): string {
  const seen = new WeakSet<object>();
  const plain = (v: unknown): unknown => {
    if (typeof v === "function") return undefined;
    if (typeof v !== "object" || v === null) return v;
    // Timers, and the links and writers every session points back to, are not translation state.
    // The class, from the prototype: a peer's data may have an own `constructor` key (`{"constructor": null}`).
    const name = (Object.getPrototypeOf(v) as { constructor?: { name?: string } } | null)?.constructor?.name;
    if (name === "Timeout" || name === "Link" || name === "RequestRoute") return name;
    if (seen.has(v)) return "[seen]";
    seen.add(v);
    // Slot tables keep entries in typed arrays: compared by what they stand for.
    if ("toJSON" in v && typeof v.toJSON === "function") return plain((v as { toJSON(): unknown }).toJSON());
    if (v instanceof Map) return [...v.entries()].map(([k, x]) => [plain(k), plain(x)]);
    if (v instanceof Set) return [...v.values()].map(plain);
    if (Array.isArray(v)) return v.map(plain);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  };
  const translator = (bridge as unknown as { translator: { sessions: unknown } }).translator;
  return JSON.stringify(plain(translator.sessions));
}

/**
 * The bridge with fast paths wrote what the one without wrote, to both peers, and left the same
 * translation state; every line the client got is schema-valid.
 */
function expectSameRuns([fast, full]: [Wired, Wired]): void {
  expect(fast.toClient).toEqual(full.toClient);
  expect(fast.toAgent).toEqual(full.toAgent);
  expect(stateOf(fast.bridge)).toBe(stateOf(full.bridge));
  for (const l of fast.toClient) expect(wireProblems("v1", JSON.parse(l), methodOfClientId)).toBeUndefined();
}

/** The ids of the client's `session/load` requests in these conversations (its prompts' are below). */
const LOAD_IDS = 1_000_000;

/** The method of the client's request `id` in these conversations. */
const methodOfClientId = (id: unknown): string =>
  id === 0
    ? "initialize"
    : id === 1
      ? "session/new"
      : typeof id === "number" && id >= LOAD_IDS
        ? "session/load"
        : "session/prompt";

const settle = () => new Promise((r) => setImmediate(r));

function wire(full: boolean, stash?: "auto" | "compact", options: Partial<BridgeOptions> = {}): Wired {
  const toClient: string[] = [];
  const toAgent: string[] = [];
  const config = createBridgeConfig(
    { ...baseOptions, agentProtocol: 2, clientProtocol: 1, ...(stash === undefined ? {} : { stash }), ...options },
    silentLogger,
    full ? { onReceive: () => undefined } : {},
  );
  // Bytes a peer would get: a line of invalid UTF-8 stays visible (String() would mend it).
  const text = (l: string | Buffer): string =>
    typeof l === "string" || isUtf8(l) ? String(l) : `invalid UTF-8: ${l.toString("hex")}`;
  const bridge = new Bridge(config, { push: (l) => toClient.push(text(l)) }, { push: (l) => toAgent.push(text(l)) });
  return { bridge, toClient, toAgent };
}

/** Feeds both bridges the same line from the same side. */
/** A `session/update` of session s1, as an SDK writes it. */
function agentUpdate(update: Obj): string {
  return JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s1", update } });
}

function both(ws: readonly Wired[], side: "client" | "agent", line: string | Buffer): void {
  for (const w of ws)
    if (side === "client") w.bridge.clientLine(Buffer.from(line));
    else w.bridge.agentLine(Buffer.from(line));
}

/**
 * How the agent acks the prompts it is asked: at once or at the next call (`later`: the user's
 * messages meanwhile wait on the ack), with the user's message id or none (its echo is then found by content).
 */
interface PromptAcks {
  later: boolean;
  messageId: string | undefined;
  /** The prompts of each wire left for the next call. */
  readonly waiting: string[][];
}

/** The agent answers what each bridge asked it since the last call (the same ids in both). */
function answerAgentRequests(ws: readonly Wired[], seen: number[], acks?: PromptAcks): void {
  ws.forEach((w, k) => {
    const fresh = [...(acks?.waiting[k]?.splice(0) ?? []), ...w.toAgent.slice(seen[k])];
    seen[k] = w.toAgent.length;
    for (const l of fresh) {
      const m = JSON.parse(l) as { id?: unknown; method?: string; params?: Obj };
      if (m.id === undefined || m.method === undefined) continue;
      let result: unknown = {};
      if (m.method === "session/new") result = { sessionId: "s1" };
      else if ((m.method === "session/prompt" || m.method === "session/resume") && acks?.later === true) {
        acks.waiting[k]?.push(l);
        continue;
      } else if (m.method === "session/prompt")
        result = acks?.messageId === undefined ? {} : { messageId: acks.messageId };
      w.bridge.agentLine(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: m.id, result })));
    }
  });
}

async function handshake(ws: readonly Wired[], clientCapabilities: Obj = {}): Promise<void> {
  both(
    ws,
    "client",
    JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: 1, clientCapabilities },
    }),
  );
  await settle();
  for (const w of ws) {
    const probe = JSON.parse(w.toAgent.at(-1) ?? "{}") as { id: number; params: { protocolVersion: number } };
    const result = {
      protocolVersion: 2,
      info: { name: "a", version: "1" },
      capabilities: { session: {} },
      authMethods: [],
    };
    w.bridge.agentLine(
      Buffer.from(
        JSON.stringify(
          probe.params.protocolVersion === 2
            ? { jsonrpc: "2.0", id: probe.id, result }
            : {
                jsonrpc: "2.0",
                id: probe.id,
                error: {
                  code: -32022,
                  message: "Unsupported protocol version",
                  data: { requested: 1, supported: [2] },
                },
              },
        ),
      ),
    );
  }
  await settle();
  for (const w of ws) {
    const probe = JSON.parse(w.toAgent.at(-1) ?? "{}") as { id: number; params: { protocolVersion: number } };
    if (probe.params.protocolVersion === 2)
      w.bridge.agentLine(
        Buffer.from(
          JSON.stringify({
            jsonrpc: "2.0",
            id: probe.id,
            result: {
              protocolVersion: 2,
              info: { name: "a", version: "1" },
              capabilities: { session: {} },
              authMethods: [],
            },
          }),
        ),
      );
  }
  await settle();
  for (const w of ws) expect(w.bridge.mode).toBe("A");
}

/** The client's prompt `id` to session `s1`, on every wire. */
function prompt(ws: readonly Wired[], id: number): void {
  both(
    ws,
    "client",
    JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "session/prompt",
      params: { sessionId: "s1", prompt: [{ type: "text", text: "go" }] },
    }),
  );
}

/**
 * The handshake, then session `s1` opened on every wire (its agent answering): what each wire's
 * agent was sent so far, for `answerAgentRequests` to go on from.
 */
async function openSession(ws: readonly Wired[], clientCapabilities: Obj = {}): Promise<number[]> {
  await handshake(ws, clientCapabilities);
  const seen = ws.map((w) => w.toAgent.length);
  both(
    ws,
    "client",
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/tmp", mcpServers: [] } }),
  );
  await settle();
  answerAgentRequests(ws, seen);
  await settle();
  return seen;
}

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('say "hi"', "a\\b", "line\nbreak\ttab", "\u0001\u001f", "é ü 漢字 🙂", "\u2028\u2029", ""),
  // What real agents stream (issue 21 item 3): per-token text, lone surrogates, huge strings.
  realText,
);
const messageId = fc.constantFrom("m1", "m2", "m3");
const toolCallId = fc.constantFrom("t1", "t2");
const status = fc.constantFrom("pending", "in_progress", "completed", "failed", "cancelled", "paused");
const kind = fc.constantFrom("read", "edit", "execute", "think", "other", "switch_mode", "browse");

/** A tool call's content as agents send it: text items mostly, now and then a diff or a terminal. */
const textItem = realText.map((t) => ({ type: "content", content: { type: "text", text: t } }));
const DIFF_ITEM = {
  type: "diff",
  changes: [{ operation: "modify", path: "/work/a.ts" }],
  patch: { format: "git_patch", text: "diff --git a/a.ts b/a.ts\n--- a/a.ts\n+++ b/a.ts\n@@ -1 +1 @@\n-a\n+b\n" },
};
const toolContentItem = fc.oneof(
  { weight: 8, arbitrary: textItem },
  { weight: 1, arbitrary: fc.constantFrom<unknown>({ type: "terminal", terminalId: "term1" }, DIFF_ITEM) },
);
const toolContent = fc.array(toolContentItem, { maxLength: 3 });
const locations = fc.array(
  fc.record(
    { path: fc.constantFrom("/work/a.ts", "/work/é.ts"), line: fc.nat({ max: 400 }) },
    { requiredKeys: ["path"] },
  ),
  { maxLength: 2 },
);

const update: fc.Arbitrary<Obj> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      sessionUpdate: fc.constantFrom("agent_message_chunk", "agent_thought_chunk", "user_message_chunk"),
      messageId,
      content: fc.record({ type: fc.constant("text"), text }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record(
      {
        sessionUpdate: fc.constant("tool_call_update"),
        toolCallId,
        status,
        title: fc.oneof(text, fc.constant(null)),
        kind,
        content: fc.constantFrom(
          [{ type: "content", content: { type: "text", text: "out" } }],
          [{ type: "terminal", terminalId: "term1" }],
        ),
      },
      { requiredKeys: ["sessionUpdate", "toolCallId"] },
    ),
  },
  {
    // A tool call as real agents announce it: rawInput (large too), locations, fields v2 may add later.
    weight: 2,
    arbitrary: fc.record(
      {
        sessionUpdate: fc.constant("tool_call_update"),
        toolCallId,
        title: text,
        kind,
        status,
        rawInput,
        locations: fc.constant([{ path: "/work/a.ts", line: 3 }]),
        futureField: fc.constant({ x: 1 }),
      },
      { requiredKeys: ["sessionUpdate", "toolCallId"] },
    ),
  },
  {
    // A tool call as Claude's and Codex's adapters send it (issue 21): announced with its members, updated
    // with rawInput, locations, results as text content or rawOutput, completed with content.
    weight: 4,
    arbitrary: fc.record(
      {
        sessionUpdate: fc.constant("tool_call_update"),
        toolCallId: fc.constantFrom("t1", "t2", "t3"),
        name: realText,
        rawInput,
        status,
        title: text,
        kind,
        locations,
        content: toolContent,
        rawOutput: fc.oneof(rawInput, realText),
        _meta: fc.constantFrom<unknown>({ is_mcp_tool_call: true }, { trace: "x", n: null }, {}),
      },
      { requiredKeys: ["sessionUpdate", "toolCallId"] },
    ),
  },
  {
    // A bare completion: of a tool call with content, it repeats that content (v1-client/updates/tool-calls.ts).
    weight: 1,
    arbitrary: fc.record({
      sessionUpdate: fc.constant("tool_call_update"),
      toolCallId,
      status: fc.constantFrom("completed", "failed"),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      sessionUpdate: fc.constant("tool_call_content_chunk"),
      toolCallId,
      content: fc.record({ type: fc.constant("content"), content: fc.record({ type: fc.constant("text"), text }) }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      sessionUpdate: fc.constantFrom("agent_message", "agent_thought"),
      messageId,
      content: fc.array(fc.record({ type: fc.constant("text"), text }), { maxLength: 2 }),
    }),
  },
  {
    // The states as Codex's and Claude's adapters report them (busy ones take a fast path), and others.
    weight: 2,
    arbitrary: fc.constantFrom<Obj>(
      { sessionUpdate: "state_update", state: "running" },
      { sessionUpdate: "state_update", state: "running", background: [] },
      { sessionUpdate: "state_update", state: "requires_action", background: [] },
      { sessionUpdate: "state_update", state: "requires_action" },
      { sessionUpdate: "state_update", state: "running", background: [{ type: "terminal", terminalId: "term-1" }] },
      { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" },
      { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn", background: [] },
      { sessionUpdate: "state_update", state: "idle" },
      { sessionUpdate: "state_update", state: "idle", background: [{ type: "terminal", terminalId: "term-1" }] },
      { sessionUpdate: "state_update", state: "runnin" },
      { sessionUpdate: "state_update", state: "running ", extra: 1 },
      { sessionUpdate: "state_update", state: null },
      { sessionUpdate: "state_update", state: 1 },
      { sessionUpdate: "state_update" },
    ),
  },
);

/** How a line is spelled: as JSON.stringify writes it, or otherwise (which the scan must not take wrongly). */
const spelling = fc.constantFrom(
  "plain",
  "plain",
  "plain",
  "reordered",
  "space",
  "escapeU",
  "escapeSlash",
  "meta",
  "otherSession",
  "paramsReordered",
  "tagLast",
  "tagLast",
  "tagThird",
  "escapeState",
);

function spell(u: Obj, how: string): string {
  let params: Obj = { sessionId: how === "otherSession" ? "s9" : "s1", update: u };
  if (how === "reordered") params = { sessionId: "s1", update: Object.fromEntries(Object.entries(u).reverse()) };
  if (how === "meta") params = { sessionId: "s1", update: { ...u, _meta: { x: 1 } } };
  if (how === "paramsReordered") params = { update: u, sessionId: "s1" };
  // As Claude's v1 adapter writes a tool call: `_meta` and the id, then the tag, then the rest.
  if (how === "tagThird") {
    const rest = Object.entries(u).filter(([k]) => k !== "sessionUpdate");
    rest.splice(Math.min(2, rest.length), 0, ["sessionUpdate", u.sessionUpdate]);
    params = { sessionId: "s1", update: Object.fromEntries(rest) };
  }
  // As Claude's adapter writes a tool call: the tag after the other members.
  if (how === "tagLast") params = { sessionId: "s1", update: { ...u, sessionUpdate: undefined, tag: u.sessionUpdate } };
  let line = JSON.stringify({ jsonrpc: "2.0", method: "session/update", params });
  if (how === "tagLast") {
    // The update's last member (a value's own "tag" key comes before it).
    const at = line.lastIndexOf('"tag":');
    line = `${line.slice(0, at)}"sessionUpdate":${line.slice(at + 6)}`;
  }
  if (how === "space") return line.replace('"update":', '"update": ');
  if (how === "escapeU") return line.replace(/"(text|title|messageId)":"/, '"$1":"\\u0041');
  if (how === "escapeSlash") return line.replace(/"(text|title|messageId)":"/, '"$1":"\\/');
  // A busy state escaped: JSON.parse reads "running", JSON.stringify would not write it so.
  if (how === "escapeState") return line.replace('"state":"r', '"state":"\\u0072');
  return line;
}

type Step =
  | { kind: "agent"; update: Obj; how: string; edit: string; number: string }
  | { kind: "prompt"; later: boolean; messageId: string | undefined }
  | { kind: "cancel" }
  | { kind: "time"; ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      kind: fc.constant("agent" as const),
      update,
      how: spelling,
      edit: realEdit,
      number: numberSpelling,
    }),
  },
  {
    // Acked at once or later (the user's chunks meanwhile wait), with one of the streams' message ids or none.
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("prompt" as const),
      later: fc.boolean(),
      messageId: fc.constantFrom(undefined, "m1", "m2"),
    }),
  },
  { weight: 1, arbitrary: fc.constant<Step>({ kind: "cancel" }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("time" as const), ms: fc.constantFrom(10, 60, 500) }) },
);

// ---- usage and session info (member-scan.ts): lines spelled byte by byte, any member values ----

/** A JSON text for `v` as a peer may write it: as JSON.stringify writes it, or spelled otherwise. */
const spelledJson = (v: unknown, spelling: number): string => {
  const canonical = JSON.stringify(v);
  // Mostly as JSON.stringify writes it (what the scan takes), else one of the other spellings.
  if (spelling % 10 < 8) return canonical;
  const how = (spelling % 10) - 7 + Math.floor(spelling / 10);
  if (typeof v === "number") {
    const forms = [canonical, `${canonical}.0`, v.toExponential(), canonical.toUpperCase(), v === 0 ? "-0" : canonical];
    return forms[how % forms.length] ?? canonical;
  }
  if (typeof v === "string") {
    const forms = [
      canonical,
      // Every code unit escaped (lone surrogates too), lowercase or uppercase hex.
      `"${Array.from({ length: v.length }, (_, k) => `\\u${v.charCodeAt(k).toString(16).padStart(4, "0")}`).join("")}"`,
      `"${Array.from({ length: v.length }, (_, k) => `\\u${v.charCodeAt(k).toString(16).padStart(4, "0").toUpperCase()}`).join("")}"`,
      canonical.replace(/\//g, "\\/"),
    ];
    return forms[how % forms.length] ?? canonical;
  }
  return how % 5 === 4 ? JSON.stringify(v, null, 1) : canonical;
};

/** Integers as usage counts: small, large, unsafe, negative, and the odd non-integer. */
const count = fc.oneof(
  { weight: 6, arbitrary: fc.nat({ max: 2_000_000 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(0, 2 ** 53 - 1, 2 ** 53 + 2, 1e21, -1, 1.5, "7", null) },
);
const cost = fc.oneof(
  fc.record({
    amount: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.nat()),
    currency: fc.constantFrom("USD", "EUR"),
  }),
  fc.record({ amount: fc.nat(), currency: fc.constant("USD"), _meta: fc.constantFrom<unknown>({ k: 1 }, null) }),
  fc.constantFrom<unknown>(null, "free", 3),
  // Costs `checkUsage` refuses, and one with a member of its own.
  fc.constantFrom<unknown>(
    { amount: "1", currency: "USD" },
    { amount: 1, currency: 1 },
    { amount: 1, currency: "USD", _meta: 3 },
    {},
    { amount: 0.5, currency: "USD", extra: [1] },
  ),
);
/** A `_meta`: any object, a stash envelope of each version (direction A unstashes a v1 one), or not an object. */
const meta = fc.oneof(
  { weight: 3, arbitrary: fc.dictionary(anyKey, anyJson, { maxKeys: 3 }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom<unknown>(
      { "_claude/model": "claude-interop-mock" },
      { codex: { threadStatus: { type: "active", activeFlags: ["waitingOnApproval"] } } },
      { "_claude/origin": { kind: "human" }, n: -12, t: true, z: null },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(
      { "acp-bridge": { v: 1, from: 1, hadMeta: false, residual: { cost: { amount: 1, currency: "USD" } } } },
      { "acp-bridge": { v: 1, from: 1, hadMeta: true, synthetic: ["cost"] }, x: 1 },
      { "acp-bridge": { v: 1, from: 1, hadMeta: false, residual: { updatedAt: "2026-01-01" } } },
      { "acp-bridge": { v: 1, from: 2, hadMeta: false } },
      { deep: { "acp-bridge": 1 } },
      {},
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, "m", 1, []) },
);
const textish = fc.oneof(
  { weight: 4, arbitrary: anyString },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 5, {}) },
);

/** Entries in the order generated, one moved to the front, reversed or rotated. */
const reordered = (entries: [string, unknown][], n: number): Obj => {
  if (entries.length > 1 && n % 4 === 1) entries.unshift(...entries.splice(n % entries.length, 1));
  if (n % 4 === 2) entries.reverse();
  if (n % 4 === 3) entries.push(...entries.splice(0, Math.floor(n / 4) % entries.length));
  return Object.fromEntries<unknown>(entries);
};
/** Mostly what the scan takes (a lone surrogate is escaped, which it leaves to the full path), else any string. */
const commandText = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: "grapheme", maxLength: 12 }) },
  { weight: 1, arbitrary: anyString },
);
const shortText = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 5) },
);
const commandInput = fc.oneof(
  { weight: 4, arbitrary: fc.record({ type: fc.constant("text"), hint: commandText }) },
  {
    weight: 1,
    arbitrary: fc.record(
      { type: fc.constantFrom<unknown>("text", "other", 1), hint: shortText, _meta: meta },
      { requiredKeys: [] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(null, "x", [], { type: "text" }, { type: "text", hint: 5 }, { hint: "h" }),
  },
);
/** A command as an agent may list it: mostly well formed, now and then of another type or shape. */
const command = fc
  .tuple(
    fc.oneof(
      {
        weight: 5,
        arbitrary: fc.record({ type: fc.constant("command"), name: commandText, description: commandText }),
      },
      {
        weight: 2,
        arbitrary: fc.record(
          { type: fc.constantFrom<unknown>("command", "skill", null), name: shortText, description: shortText },
          { requiredKeys: [] },
        ),
      },
    ),
    fc.option(commandInput),
    fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: meta }),
    fc.oneof(
      { weight: 4, arbitrary: fc.constant<[string, unknown][]>([]) },
      { weight: 1, arbitrary: fc.array(fc.tuple(anyKey, anyJson), { minLength: 1, maxLength: 1 }) },
    ),
    fc.nat(),
  )
  .map(([base, input, m, extra, n]) => {
    const entries: [string, unknown][] = [...Object.entries(base), ...extra];
    if (input !== null) entries.push(["input", input]);
    if (m !== null) entries.push(["_meta", m]);
    return reordered(entries, n);
  });
const commands = fc.oneof(
  { weight: 5, arbitrary: fc.array(command, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, {}, "x") },
);

/** A plan entry: v1's values (what the fast path takes), v2's others, a `_meta` of any kind, one `checkEntry` refuses. */
const planEntry = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      {
        content: textish,
        status: fc.oneof(
          { weight: 8, arbitrary: fc.constantFrom<unknown>("pending", "in_progress", "completed") },
          { weight: 1, arbitrary: fc.constant<unknown>("cancelled") },
        ),
        priority: fc.oneof(
          { weight: 8, arbitrary: fc.constantFrom<unknown>("high", "medium", "low") },
          { weight: 1, arbitrary: fc.constant<unknown>("urgent") },
        ),
        _meta: fc.oneof(
          { weight: 4, arbitrary: fc.constant<unknown>({ k: 1.5 }) },
          { weight: 1, arbitrary: fc.constantFrom<unknown>(null, { "acp-bridge": { v: 1, from: 1, hadMeta: false } }) },
        ),
      },
      { requiredKeys: ["content", "status", "priority"] },
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom<unknown>({ content: "x", status: "pending" }, { content: 1 }, "step") },
);
/** A plan's content: an items plan of a few ids (several kept at once), another type, a member v1 drops. */
const planContent = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      {
        type: fc.constant("items"),
        planId: fc.constantFrom("plan", "codex-structured-plan", "main"),
        entries: fc.array(planEntry, { maxLength: 3 }),
        _meta: fc.constantFrom<unknown>({ k: 1 }, null, 3),
        extra: fc.constant(1),
      },
      { requiredKeys: ["type", "planId", "entries"] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(
      { type: "markdown", planId: "notes", content: "# x" },
      { type: "items", planId: "plan" },
      { type: "items", planId: 3, entries: [] },
      null,
    ),
  },
);

/** An update's members as [key, value] in the order written, the tag first (the scan's shape) or not. */
const memberUpdate: fc.Arbitrary<[string, unknown][]> = fc
  .tuple(
    fc.oneof(
      {
        weight: 3,
        arbitrary: fc.tuple(
          fc.constant("usage_update"),
          fc.record({ used: count, size: count, _meta: meta }, { requiredKeys: ["used", "size"] }),
        ),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(
          fc.constant("usage_update"),
          fc.record({ used: count, size: count, cost, _meta: meta }, { requiredKeys: ["used", "size", "cost"] }),
        ),
      },
      {
        weight: 2,
        arbitrary: fc.tuple(
          fc.constant("session_info_update"),
          fc.record({ title: textish, updatedAt: textish, _meta: meta }, { requiredKeys: [] }),
        ),
      },
      {
        weight: 2,
        arbitrary: fc.tuple(
          fc.constant("available_commands_update"),
          fc.record({ availableCommands: commands, _meta: meta }, { requiredKeys: ["availableCommands"] }),
        ),
      },
      {
        weight: 2,
        arbitrary: fc.tuple(
          fc.constant("plan_update"),
          fc.record({ plan: planContent, _meta: meta }, { requiredKeys: ["plan"] }),
        ),
      },
      // Any tag with any of these members (another variant's lines too).
      {
        weight: 1,
        arbitrary: fc.tuple(
          fc.constantFrom("usage_update", "session_info_update", "plan_update"),
          fc.record({ used: count, title: textish, cost, _meta: meta }, { requiredKeys: [] }),
        ),
      },
    ),
    fc.oneof(
      { weight: 3, arbitrary: fc.constant<[string, unknown][]>([]) },
      { weight: 1, arbitrary: fc.array(fc.tuple(anyKey, anyJson), { minLength: 1, maxLength: 2 }) },
    ),
    fc.nat(),
  )
  .map(([[tag, known], extra, shuffle]) => {
    const members: [string, unknown][] = [...Object.entries(known), ...extra];
    // A key order: as generated, or one member moved ahead (the tag stays first but now and then).
    if (members.length > 1 && shuffle % 3 === 0) members.unshift(...members.splice(shuffle % members.length, 1));
    return shuffle % 7 === 0 ? [...members, ["sessionUpdate", tag]] : [["sessionUpdate", tag], ...members];
  });

/** The line's bytes: members spelled per `how`, and now and then a byte of invalid UTF-8 or whitespace. */
function memberLine(members: readonly [string, unknown][], how: readonly number[], damage: number): Buffer {
  const body = members.map(([k, v], i) => `${JSON.stringify(k)}:${spelledJson(v, how[i % how.length] ?? 0)}`).join(",");
  const text = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{${body}}}}`;
  const bytes = Buffer.from(text);
  if (damage % 11 === 1) {
    // Inside a string: a title's if there is one, else the session id's.
    const at = text.includes('"title":"') ? text.indexOf('"title":"') + 9 : text.indexOf('"sessionId":"') + 13;
    return Buffer.concat([bytes.subarray(0, at), Buffer.from([0xff]), bytes.subarray(at)]);
  }
  if (damage % 11 === 2) return Buffer.from(text.replace('"update":{', '"update": {'));
  return bytes;
}

type MemberStep =
  | { kind: "line"; members: [string, unknown][]; how: number[]; damage: number }
  | { kind: "chunk"; text: string }
  | { kind: "prompt" }
  | { kind: "time" };

const memberStep: fc.Arbitrary<MemberStep> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant("line" as const),
      members: memberUpdate,
      how: fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
      damage: fc.nat(),
    }),
  },
  // A tool's content chunk waits to be flushed: a usage line then flushes it first (full path).
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("chunk" as const), text: fc.string({ maxLength: 5 }) }) },
  { weight: 1, arbitrary: fc.constant<MemberStep>({ kind: "prompt" }) },
  { weight: 1, arbitrary: fc.constant<MemberStep>({ kind: "time" }) },
);

/**
 * Plays steps into both bridges (`ws`: fast paths on, off), each one (`play`) settled and the agent's
 * requests answered, then the windows closed.
 */
async function playSteps<S>(
  ws: readonly Wired[],
  seen: number[],
  steps: readonly S[],
  play: (s: S) => void,
): Promise<void> {
  for (const s of steps) {
    play(s);
    await settle();
    answerAgentRequests(ws, seen);
    await settle();
  }
  vi.advanceTimersByTime(1000);
  await settle();
}

/** Plays member steps into both bridges (`playSteps`); `scanned` is told of each line the member scan takes. */
async function playMembers(
  ws: readonly Wired[],
  seen: number[],
  steps: readonly MemberStep[],
  scanned: () => void = () => undefined,
): Promise<void> {
  let id = 2;
  await playSteps(ws, seen, steps, (s) => {
    if (s.kind === "line") {
      const line = memberLine(s.members, s.how, s.damage);
      if (scanMembers(line, 64, MEMBER_TAGS) !== undefined) scanned();
      for (const w of ws) w.bridge.agentLine(line);
    } else if (s.kind === "chunk")
      both(
        ws,
        "agent",
        agentUpdate({
          sessionUpdate: "tool_call_content_chunk",
          toolCallId: "t1",
          content: { type: "content", content: { type: "text", text: s.text } },
        }),
      );
    else if (s.kind === "prompt") prompt(ws, id++);
    else vi.advanceTimersByTime(60);
  });
}

// ---- tool calls of any members (member-scan.ts, `fastToolCallMembers`): lines spelled byte by byte ----

/** A content item: mostly a text item as agents send it, else one the fast path must leave to the full path. */
const anyToolContentItem = fc.oneof(
  { weight: 8, arbitrary: textItem },
  {
    weight: 3,
    arbitrary: fc.constantFrom<unknown>(
      { type: "terminal", terminalId: "term1" },
      { type: "terminal", terminalId: "term2", extra: 1 },
      DIFF_ITEM,
      { content: { text: "keys the other way", type: "text" }, type: "content" },
      { type: "content", content: { type: "text", text: "annotated", annotations: { audience: ["user", "tool"] } } },
      { type: "content", content: { type: "text", text: "item meta" }, _meta: { k: 1 } },
      {
        type: "content",
        content: { type: "text", text: "stashed" },
        _meta: {
          "acp-bridge": {
            v: 1,
            from: 1,
            hadMeta: false,
            residual: { raw: { type: "content", content: { type: "text", text: "restored" } } },
          },
        },
      },
      { type: "content", content: { type: "text", text: "block meta", _meta: { k: null } } },
      { type: "content", content: { type: "image", data: "AA==", mimeType: "image/png" } },
      { type: "content", content: { type: "text", text: 5 } },
      { type: "content", content: { type: "text" } },
      { type: "content" },
      { type: "future_item", x: 1 },
      "x",
      null,
    ),
  },
);
const anyToolContent = fc.oneof(
  { weight: 8, arbitrary: fc.array(anyToolContentItem, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, {}, "x") },
);
const anyLocation = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      {
        path: fc.oneof(fc.constantFrom("/work/a.ts", "rel/b.ts", "/work/é 漢.ts"), anyString),
        line: fc.oneof(
          { weight: 4, arbitrary: fc.nat({ max: 5000 }) },
          { weight: 1, arbitrary: fc.constantFrom<unknown>(0, 2 ** 32 - 1, 2 ** 32, -1, 1.5, 1e21, null, "3") },
        ),
      },
      { requiredKeys: ["path"] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(
      { line: 3, path: "/work/keys-reversed.ts" },
      { path: "/a", _meta: { k: 1 } },
      { path: "/a", _meta: { "acp-bridge": { v: 1, from: 1, hadMeta: false, residual: { line: 0 } } } },
      { path: "/a", extra: true },
      { line: 3 },
      { path: 5 },
      "x",
      null,
    ),
  },
);
const anyLocations = fc.oneof(
  { weight: 8, arbitrary: fc.array(anyLocation, { maxLength: 2 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, "x", {}) },
);
/** A tool call's `_meta`: plain, as Codex's adapter sends it, or with a stash of either version, or not an object. */
const toolMeta = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<unknown>({ is_mcp_tool_call: true }, { trace: "x", n: null }, {}) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(
      { "acp-bridge": { v: 1, from: 1, hadMeta: false, residual: { op: "tool_call" } } },
      { "acp-bridge": { v: 1, from: 1, hadMeta: false, residual: { op: "tool_call_update" } } },
      { "acp-bridge": { v: 1, from: 1, hadMeta: false, synthetic: ["forPermission"] } },
      { "acp-bridge": { v: 1, from: 1, hadMeta: true, residual: { kind: "browse" } }, x: 1 },
      { "acp-bridge": { v: 1, from: 2, hadMeta: false } },
      { deep: { "acp-bridge": 1 } },
      null,
      "m",
    ),
  },
);
/** Mostly a valid value, now and then a null (v2's reset) or a value of the wrong type. */
const orOdd = <T>(x: fc.Arbitrary<T>, ...odd: unknown[]): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 8, arbitrary: x }, { weight: 1, arbitrary: fc.constantFrom<unknown>(null, ...odd) });
/** The members as Claude's and Codex's adapters send them: values v1 has, nothing stashed. */
const realToolCallFields = fc.record(
  {
    toolCallId: fc.constantFrom("t1", "t2", "t3", "t-é"),
    name: realText,
    title: realText,
    kind: fc.constantFrom("read", "edit", "execute", "search", "fetch", "other"),
    status: fc.constantFrom("pending", "in_progress", "completed", "failed"),
    rawInput,
    rawOutput: fc.oneof(rawInput, realText),
    content: fc.array(textItem, { maxLength: 2 }),
    locations: fc.array(
      fc.record(
        { path: fc.constantFrom("/work/a.ts", "/work/é 漢.ts"), line: fc.nat({ max: 5000 }) },
        { requiredKeys: ["path"] },
      ),
      { maxLength: 2 },
    ),
    _meta: fc.constantFrom<unknown>({ is_mcp_tool_call: true }, { trace: "x", n: null }, {}),
  },
  { requiredKeys: ["toolCallId"] },
);
/** Any members: values v1 lacks, nulls, stashes, content and locations the fast path must leave alone. */
const toolCallFields = fc.record(
  {
    toolCallId: orOdd(fc.constantFrom("t1", "t2", "t3", "t-é"), 7),
    name: orOdd(realText, 3),
    title: orOdd(realText, 3, {}),
    kind: orOdd(kind, 1, "_vendor"),
    status: orOdd(status, "", "_vendor"),
    rawInput: orOdd(rawInput),
    rawOutput: orOdd(fc.oneof(rawInput, realText)),
    content: anyToolContent,
    locations: anyLocations,
    _meta: toolMeta,
  },
  { requiredKeys: [] },
);
/** A tool_call_update's members in the order written: the tag first (SDKs), last (Claude's adapter) or between. */
const toolCallUpdate: fc.Arbitrary<[string, unknown][]> = fc
  .tuple(
    fc.oneof(
      { weight: 8, arbitrary: realToolCallFields },
      { weight: 4, arbitrary: toolCallFields },
      { weight: 1, arbitrary: fc.constant({}) },
    ),
    fc.oneof(
      { weight: 6, arbitrary: fc.constant<[string, unknown][]>([]) },
      {
        weight: 1,
        arbitrary: fc.array(
          fc.tuple(
            fc.oneof(fc.constantFrom("futureField", "capabilities", "__proto__", "messageId", "constructor"), anyKey),
            anyJson,
          ),
          { minLength: 1, maxLength: 2 },
        ),
      },
    ),
    fc.nat(),
    fc.nat(),
  )
  .map(([fields, extra, order, place]) => {
    // The id mostly first, as every adapter writes it.
    const { toolCallId, ...rest } = fields as Obj;
    const entries = Object.entries(reordered([...Object.entries(rest), ...extra], order));
    if (toolCallId !== undefined) entries.unshift(["toolCallId", toolCallId]);
    const tag: [string, unknown] = ["sessionUpdate", "tool_call_update"];
    if (place % 5 < 2) return [tag, ...entries];
    if (place % 5 < 4) return [...entries, tag];
    entries.splice(Math.floor(place / 5) % (entries.length + 1), 0, tag);
    return entries;
  });

type ToolStep =
  | { kind: "line"; members: [string, unknown][]; how: number[]; damage: number }
  | { kind: "chunk"; id: string; text: string }
  | { kind: "terminal"; update: Obj }
  | { kind: "permission"; id: string }
  | { kind: "prompt" }
  | { kind: "time"; ms: number };

/** Spellings: mostly JSON.stringify's (the scan's), else another per member (memberLine). */
const spellings = fc.array(fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat() }), {
  minLength: 1,
  maxLength: 4,
});
const toolStep: fc.Arbitrary<ToolStep> = fc.oneof(
  {
    weight: 14,
    arbitrary: fc.record({
      kind: fc.constant("line" as const),
      members: toolCallUpdate,
      how: spellings,
      damage: fc.nat(),
    }),
  },
  // Content chunks wait to be flushed (a pending tool call), and make a tool call's content.
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("chunk" as const), id: fc.constantFrom("t1", "t2"), text: realText }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("terminal" as const),
      update: fc.constantFrom<Obj>(
        { sessionUpdate: "terminal_update", terminalId: "term1", command: "ls" },
        { sessionUpdate: "terminal_update", terminalId: "term1", output: { data: "aGkK" } },
        { sessionUpdate: "terminal_update", terminalId: "term1", exitStatus: { exitCode: 0 } },
      ),
    }),
  },
  // A permission request announces its subject's tool call (agent-requests.ts `markAnnounced`).
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("permission" as const), id: fc.constantFrom("t2", "t3") }) },
  { weight: 1, arbitrary: fc.constant<ToolStep>({ kind: "prompt" }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("time" as const), ms: fc.constantFrom(10, 60, 500) }) },
);

/** The tool-call lines the member fast path took, on the bridges with fast paths (counted while the tests run). */
let toolCallsTaken = 0;
let statesTaken = 0;
let plansTaken = 0;
const TOOL_CALL_TAG = MEMBER_TAGS.findIndex((t) => t.toString() === "tool_call_update");
const STATE_TAG = MEMBER_TAGS.findIndex((t) => t.toString() === "state_update");
const PLAN_TAG = MEMBER_TAGS.findIndex((t) => t.toString() === "plan_update");
const USER_MESSAGE_TAG = MEMBER_TAGS.findIndex((t) => t.toString() === "user_message");
let usersTaken = 0;
const fastMembers = Object.getOwnPropertyDescriptor(DirectionA.prototype, "fastMembers")?.value as (
  this: DirectionA,
  m: ScannedMembers,
) => boolean;

describe("direction A fast path", () => {
  beforeAll(() => {
    DirectionA.prototype.fastMembers = function (this: DirectionA, m: ScannedMembers): boolean {
      const tag = m.tag;
      const taken = fastMembers.call(this, m);
      if (taken && tag === TOOL_CALL_TAG) toolCallsTaken++;
      if (taken && tag === STATE_TAG) statesTaken++;
      if (taken && tag === PLAN_TAG) plansTaken++;
      if (taken && tag === USER_MESSAGE_TAG) usersTaken++;
      return taken;
    };
  });
  afterAll(() => {
    DirectionA.prototype.fastMembers = fastMembers;
  });
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("writes exactly what the full path writes, to both peers, for any stream", async () => {
    let taken = 0;
    toolCallsTaken = 0;
    statesTaken = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 30 }), fc.boolean(), async (steps, convention) => {
        const ws = [wire(false), wire(true)];
        // A client that renders the `_meta` terminal convention changes how tool calls are shown (T §2.5).
        const seen = await openSession(ws, convention ? { _meta: { terminal_output: true } } : {});
        const acks: PromptAcks = { later: false, messageId: undefined, waiting: [[], []] };
        let id = 2;
        for (const s of steps) {
          acks.later = false;
          if (s.kind === "agent") {
            const line = applyRealEdit(spell(s.update, s.how), s.edit, s.number);
            if (scanUpdate(line, 64) !== undefined) taken++;
            both(ws, "agent", line);
          } else if (s.kind === "prompt") {
            acks.later = s.later;
            acks.messageId = s.messageId;
            prompt(ws, id++);
          } else if (s.kind === "cancel")
            both(
              ws,
              "client",
              JSON.stringify({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "s1" } }),
            );
          else vi.advanceTimersByTime(s.ms);
          await settle();
          answerAgentRequests(ws, seen, acks);
          await settle();
        }
        vi.advanceTimersByTime(1000);
        await settle();
        expectSameRuns(ws as [Wired, Wired]);
      }),
      { numRuns: numRuns() },
    );
    // The generated streams do reach the fast paths (not only their refusals), tool calls of any members too.
    expect(taken).toBeGreaterThan(0);
    expect(toolCallsTaken).toBeGreaterThan(0);
  });

  for (const stash of ["auto", "compact"] as const)
    it(`writes exactly what the full path writes for usage, session info and plans, however spelled (stash ${stash})`, async () => {
      let taken = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(memberStep, { maxLength: 25 }), async (steps) => {
          const ws = [wire(false, stash), wire(true, stash)];
          const seen = await openSession(ws);
          await playMembers(ws, seen, steps, () => taken++);
          expectSameRuns(ws as [Wired, Wired]);
        }),
        { numRuns: numRuns() },
      );
      expect(taken).toBeGreaterThan(0);
    });

  it("writes exactly what the full path writes for plans of any entries, several kept at once", async () => {
    plansTaken = 0;
    // Mostly plans as agents write them (the tag first, canonical), now and then spelled otherwise.
    const planStep = fc.oneof(
      {
        weight: 8,
        arbitrary: fc
          .record(
            { plan: planContent, _meta: meta, spelling: fc.nat(), damage: fc.nat() },
            { requiredKeys: ["plan", "spelling", "damage"] },
          )
          .map(({ plan, _meta, spelling, damage }): MemberStep => {
            const members: [string, unknown][] = [
              ["sessionUpdate", "plan_update"],
              ["plan", plan],
            ];
            if (_meta !== undefined) members.push(["_meta", _meta]);
            return {
              kind: "line",
              members,
              how: [spelling % 4 === 0 ? spelling : 0],
              damage: damage % 3 === 0 ? damage : 0,
            };
          }),
      },
      { weight: 2, arbitrary: memberStep },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(planStep, { minLength: 1, maxLength: 12 }), fc.boolean(), async (steps, crowded) => {
        const ws = [wire(false), wire(true)];
        const seen = await openSession(ws);
        // Now and then as many plans as a session keeps first: the steps' new ones drop the oldest.
        if (crowded)
          for (let k = 0; k < limits.plans.default; k++) {
            const plan = {
              type: "items",
              planId: `p${k}`,
              entries: [{ content: "x", status: "pending", priority: "low" }],
            };
            const line = memberLine(
              [
                ["sessionUpdate", "plan_update"],
                ["plan", plan],
              ],
              [0],
              0,
            );
            for (const w of ws) w.bridge.agentLine(line);
          }
        await playMembers(ws, seen, steps);
        expectSameRuns(ws as [Wired, Wired]);
      }),
      { numRuns: numRuns() },
    );
    // Not vacuous: plans were taken by their members in many runs.
    expect(plansTaken).toBeGreaterThan(numRuns() / 4);
  });

  it("writes exactly what the full path writes for command lists, whatever their commands", async () => {
    let taken = 0;
    // Lists the single-pass scan (commands-scan.ts `scanV2Commands`) takes, ahead of the member scan.
    let scanned = 0;
    // The adapters' own lists (Claude's: tens of commands of type, name, description, a text input
    // now and then), members in any order, text as real traffic has it.
    const adapterCommand = fc
      .tuple(realText, realText, fc.option(realText), fc.nat())
      .map(([name, description, hint, n]) =>
        reordered(
          [
            ["type", "command"],
            ["name", name],
            ["description", description],
            ...(hint === null ? [] : [["input", n % 3 === 0 ? null : { type: "text", hint }] as [string, unknown]]),
          ],
          n,
        ),
      );
    const lists = fc.oneof(
      { weight: 2, arbitrary: fc.array(adapterCommand, { maxLength: 6 }) },
      { weight: 1, arbitrary: commands },
    );
    const line = fc.record({
      members: fc.tuple(lists, fc.option(meta, { freq: 2 }), fc.nat()).map(([list, m, n]): [string, unknown][] => [
        ["sessionUpdate", "available_commands_update"],
        ...Object.entries(
          reordered(
            m === null
              ? [["availableCommands", list]]
              : [
                  ["availableCommands", list],
                  ["_meta", m],
                ],
            n,
          ),
        ),
      ]),
      how: fc.oneof(
        { weight: 3, arbitrary: fc.constant([0]) },
        { weight: 1, arbitrary: fc.array(fc.nat(), { minLength: 1, maxLength: 4 }) },
      ),
      damage: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat() }),
      edit: fc.constantFrom(
        "none",
        "none",
        "none",
        "duplicate-name",
        "invalid-utf8",
        "escaped-letter",
        "escaped-hint",
        "space",
      ),
    });
    /** Byte edits of a list's line the scans must not be fooled by (JSON.parse reads a repeated key's last value). */
    const edited = (bytes: Buffer, edit: string): Buffer => {
      const text = bytes.toString("latin1");
      const at = (needle: string) => text.indexOf(needle);
      if (edit === "duplicate-name" && at('"name":"') >= 0)
        return Buffer.from(text.replace('"name":"', '"name":"first","name":"'), "latin1");
      if (edit === "invalid-utf8" && at('"description":"') >= 0) {
        const i = at('"description":"') + 15;
        return Buffer.concat([bytes.subarray(0, i), Buffer.from([0xff]), bytes.subarray(i)]);
      }
      if (edit === "escaped-letter" && at('"description":"') >= 0)
        return Buffer.from(text.replace('"description":"', '"description":"\\u0041'), "latin1");
      if (edit === "escaped-hint" && at('"hint":"') >= 0)
        return Buffer.from(text.replace('"hint":"', '"hint":"\\u0041'), "latin1");
      if (edit === "space" && at("},{") >= 0) return Buffer.from(text.replace("},{", "}, {"), "latin1");
      return bytes;
    };
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 4 }), async (lines) => {
        const ws = [wire(false), wire(true)];
        await openSession(ws);
        // The session's state opens on the full path.
        both(ws, "agent", agentUpdate({ sessionUpdate: "state_update", state: "running" }));
        for (const l of lines) {
          const bytes = edited(memberLine(l.members, l.how, l.damage), l.edit);
          const before = ws[0]?.toClient.length ?? 0;
          for (const w of ws) w.bridge.agentLine(bytes);
          const grew = (ws[0]?.toClient.length ?? 0) > before;
          if (scanMembers(bytes, 64, MEMBER_TAGS) !== undefined && grew) taken++;
          if (scanV2Commands(bytes, 64) !== undefined && grew) scanned++;
        }
        const [fast, full] = ws as [Wired, Wired];
        expect(fast.toClient).toEqual(full.toClient);
        for (const l of fast.toClient) expect(wireProblems("v1", JSON.parse(l), methodOfClientId)).toBeUndefined();
      }),
      { numRuns: numRuns() },
    );
    expect(taken).toBeGreaterThan(0);
    expect(scanned).toBeGreaterThan(0);
  });

  it("writes exactly what the full path writes for tool calls of any members, however written", async () => {
    toolCallsTaken = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(toolStep, { minLength: 1, maxLength: 25, size: "medium" }),
        fc.boolean(),
        async (steps, convention) => {
          const ws = [wire(false), wire(true)];
          const seen = await openSession(ws, convention ? { _meta: { terminal_output: true } } : {});
          let id = 2;
          let agentId = 100;
          const update = (u: Obj): string =>
            JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s1", update: u } });
          await playSteps(ws, seen, steps, (s) => {
            if (s.kind === "line") {
              const line = memberLine(s.members, s.how, s.damage);
              for (const w of ws) w.bridge.agentLine(line);
            } else if (s.kind === "chunk")
              both(
                ws,
                "agent",
                update({
                  sessionUpdate: "tool_call_content_chunk",
                  toolCallId: s.id,
                  content: { type: "content", content: { type: "text", text: s.text } },
                }),
              );
            else if (s.kind === "terminal") both(ws, "agent", update(s.update));
            else if (s.kind === "permission")
              both(
                ws,
                "agent",
                JSON.stringify({
                  jsonrpc: "2.0",
                  id: agentId++,
                  method: "session/request_permission",
                  params: {
                    sessionId: "s1",
                    title: "Run it?",
                    subject: { type: "tool_call", toolCall: { toolCallId: s.id, title: "asked" } },
                    options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }],
                  },
                }),
              );
            else if (s.kind === "prompt") prompt(ws, id++);
            else vi.advanceTimersByTime(s.ms);
          });
          expectSameRuns(ws as [Wired, Wired]);
        },
      ),
      { numRuns: numRuns() },
    );
    // Not a vacuous proof: a fair share of the lines takes the fast path.
    expect(toolCallsTaken).toBeGreaterThan(numRuns() / 2);
  });

  it("writes exactly what the full path writes around tool calls with diffs of any patches, their files present or not", async () => {
    // A file the patches' context matches (or not), one absent, one never read.
    const dir = mkdtempSync(join(tmpdir(), "acp-bridge-fast-diffs-a-"));
    const file = join(dir, "notes.txt");
    writeFileSync(file, "alpha\nbeta\ngamma\ndelta\n");
    // A file the same hunk reads both ways (removing its second line, or the edit done, adding one):
    // the tool call's status says which (`diffStage`).
    const twice = join(dir, "twice.txt");
    writeFileSync(twice, "a\na\na\n");
    const modify = (path: string, body: string): string =>
      `diff --git ${path} ${path}\n--- ${path}\n+++ ${path}\n${body}`;
    // As the recorded agents send them: Claude's and Codex's modify and add, with a file type or a
    // `_meta`, a change of two files, hunks that do not fit the file, a patch that is not one.
    const diff = fc
      .record(
        {
          path: fc.constantFrom(file, twice, twice, join(dir, "absent.ts"), "/interop/ws/notes.txt"),
          patch: fc.oneof(
            {
              weight: 4,
              arbitrary: fc.constantFrom(
                "@@ -2,2 +2,2 @@\n beta\n-gamma\n+GAMMA\n",
                "@@ -1,4 +1,4 @@\n alpha\n beta\n-gamma\n+GAMMA\n delta\n",
                "@@ -1 +1 @@\n-zeta\n+ZETA\n",
              ),
            },
            { weight: 1, arbitrary: realText.map((t) => `@@ -1 +1 @@\n-${t}\n+x\n`) },
          ),
          fileType: fc.constantFrom("text", "binary"),
          _meta: fc.constantFrom<unknown>({ kind: "update" }, { k: [1] }),
          add: fc.boolean(),
          broken: fc.nat({ max: 9 }),
        },
        { requiredKeys: ["path", "patch", "add", "broken"] },
      )
      .map(({ path, patch, fileType, _meta, add, broken }): unknown => {
        const change: Obj = { operation: add ? "add" : "modify", path };
        if (fileType !== undefined) change.fileType = fileType;
        const text = add
          ? `diff --git ${path} ${path}\nnew file mode 100644\n--- /dev/null\n+++ ${path}\n@@ -0,0 +1 @@\n+print("hello")\n`
          : modify(path, path === twice ? "@@ -1,2 +1 @@\n a\n-a\n" : patch);
        const item: Obj = { type: "diff", changes: [change], patch: { format: "git_patch", text } };
        if (_meta !== undefined) item._meta = _meta;
        // Now and then what the converter refuses or falls back on.
        if (broken === 1) item.patch = { format: "git_patch", text: "not a patch" };
        if (broken === 2) item.changes = [change, { operation: "modify", path: "/work/b.ts" }];
        if (broken === 3) item.patch = 5;
        return item;
      });
    const diffCall: fc.Arbitrary<[string, unknown][]> = fc
      .tuple(
        fc.record(
          {
            toolCallId: fc.constantFrom("t1", "t2"),
            title: realText,
            kind: fc.constantFrom("edit", "other"),
            status: fc.constantFrom("pending", "in_progress", "completed", "failed"),
            rawInput,
            content: fc.array(fc.oneof({ weight: 3, arbitrary: diff }, { weight: 1, arbitrary: textItem }), {
              minLength: 1,
              maxLength: 3,
            }),
            locations: fc.constant([{ path: file }]),
            _meta: fc.constantFrom<unknown>({ claudeCode: { toolName: "Edit" } }, {}),
          },
          { requiredKeys: ["toolCallId", "content"] },
        ),
        fc.nat(),
      )
      .map(([fields, place]) => {
        const { toolCallId, ...rest } = fields as Obj;
        const entries: [string, unknown][] = [["toolCallId", toolCallId], ...Object.entries(rest)];
        const tag: [string, unknown] = ["sessionUpdate", "tool_call_update"];
        return place % 2 === 0 ? [tag, ...entries] : [...entries, tag];
      });
    // Around them: announcements with text, a bare completion (which repeats a diff as it was shown).
    const steps = fc.array(
      fc.oneof(
        { weight: 4, arbitrary: diffCall },
        { weight: 1, arbitrary: toolCallUpdate },
        {
          weight: 3,
          arbitrary: fc
            .record({ id: fc.constantFrom("t1", "t2"), status: fc.constantFrom("completed", "failed") })
            .map(({ id, status }): [string, unknown][] => [
              ["sessionUpdate", "tool_call_update"],
              ["toolCallId", id],
              ["status", status],
            ]),
        },
      ),
      { minLength: 1, maxLength: 12 },
    );
    const settings = fc.record({
      diffRendering: fc.constantFrom<DiffRendering>("full", "hunks", "safe", "text"),
      diffFileMaxBytes: fc.constantFrom(1 << 16, 0, 8),
    });
    toolCallsTaken = 0;
    try {
      await fc.assert(
        fc.asyncProperty(steps, settings, spellings, async (lines, options, how) => {
          const ws = [wire(false, undefined, options), wire(true, undefined, options)];
          const seen = await openSession(ws);
          await playSteps(ws, seen, lines, (members) => {
            const line = memberLine(members, how, 0);
            for (const w of ws) w.bridge.agentLine(line);
          });
          expectSameRuns(ws as [Wired, Wired]);
        }),
        { numRuns: numRuns() },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Not vacuous: the member path took the lines around the diffs (whose patches it defers).
    expect(toolCallsTaken).toBeGreaterThan(numRuns() / 5);
  });

  it("takes a usage update's cost as the full path does: kept as the last cost, refused when malformed", async () => {
    const costs: unknown[] = [
      { amount: 0.00864, currency: "USD" },
      { amount: 1, currency: "USD", _meta: { k: 1 } },
      { amount: 1, currency: "USD", _meta: null },
      { amount: "1", currency: "USD" },
      { amount: 1, currency: 1 },
      { amount: 1, currency: "USD", _meta: 3 },
      {},
      null,
      "free",
    ];
    for (const cost of costs) {
      const ws = [wire(false), wire(true)];
      await openSession(ws);
      const usage = (u: Obj) =>
        JSON.stringify({
          jsonrpc: "2.0",
          method: "session/update",
          params: { sessionId: "s1", update: { sessionUpdate: "usage_update", used: 1, size: 2, ...u } },
        });
      both(ws, "agent", usage({ cost }));
      // The next update without a cost gets the last one again.
      both(ws, "agent", usage({}));
      await settle();
      expectSameRuns(ws as [Wired, Wired]);
    }
  });

  it("streams a message's chunks as the full path does, their text read from the bytes", async () => {
    const fromBytes = vi.spyOn(SentMessages.prototype, "appendTextJson");
    const chunk = fc.record({
      kind: fc.constantFrom("agent_message_chunk", "agent_thought_chunk"),
      // Each kind's own messages, now and then an id of the other kind's (a collision: the full path's).
      messageId: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom("1", "2") },
        { weight: 1, arbitrary: fc.constant("x") },
      ),
      text: fc.oneof(realText, anyString, fc.constantFrom("\ud83d", "\ude00", "🙂", "\u0000", "")),
      // Mostly as an SDK writes it (the fast path's), now and then otherwise.
      edit: fc.oneof({ weight: 3, arbitrary: fc.constant("none") }, { weight: 1, arbitrary: realEdit }),
      number: numberSpelling,
    });
    // Between a message's chunks, now and then the agent's state (busy ones take their own fast path).
    const state = fc.constantFrom(
      { sessionUpdate: "state_update", state: "running" },
      { sessionUpdate: "state_update", state: "requires_action", background: [] },
      { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" },
    );
    statesTaken = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(chunk, chunk, chunk, state), { minLength: 10, maxLength: 40 }),
        async (chunks) => {
          const ws = [wire(false), wire(true)];
          await openSession(ws);
          for (const c of chunks) {
            if (!("kind" in c)) {
              both(ws, "agent", spell({ ...c }, "plain"));
              continue;
            }
            const messageId =
              c.messageId === "x" ? "m1" : `${c.kind === "agent_message_chunk" ? "m" : "t"}${c.messageId}`;
            const u = { sessionUpdate: c.kind, messageId, content: { type: "text", text: c.text } };
            both(ws, "agent", applyRealEdit(spell(u, "plain"), c.edit, c.number));
          }
          await settle();
          expectSameRuns(ws as [Wired, Wired]);
        },
      ),
      { numRuns: numRuns() },
    );
    // The streams do reach the bytes' path (a message's chunks after its first), and busy states theirs.
    expect(fromBytes.mock.results.filter((r) => r.value === true).length).toBeGreaterThan(numRuns());
    expect(statesTaken).toBeGreaterThan(numRuns() / 2);
    fromBytes.mockRestore();
  });

  it("takes a user's chunks and messages where the prompt lifecycle decides at once, as the full path does", async () => {
    const decided = vi.spyOn(PromptLifecycle.prototype, "userMessageAtOnce");
    usersTaken = 0;
    const chunk = fc.record({
      kind: fc.constantFrom(
        "user_message_chunk",
        "user_message_chunk",
        "agent_message_chunk",
        "user_message",
        "user_message",
      ),
      // The prompts' own ids (their echoes), another user message, an id the agent's message has too.
      // Or, now and then, an id of its own (a whole message is taken on its id's first sighting).
      messageId: fc.constantFrom("u1", "u2", "u3", "a1", "new", "new"),
      text: fc.oneof(realText, anyString, fc.constantFrom("go", "\ud83d", "🙂", "")),
      edit: fc.oneof({ weight: 4, arbitrary: fc.constant("none") }, { weight: 1, arbitrary: realEdit }),
      number: numberSpelling,
      blocks: fc.constantFrom(1, 1, 1, 0, 2),
      textFirst: fc.boolean(),
      how: fc.constantFrom(
        "plain",
        "plain",
        "plain",
        "plain",
        "meta",
        "reordered",
        "tagLast",
        "escapeU",
        "escapeSlash",
      ),
    });
    const other = fc.oneof(
      // A prompt acked at once or at the next step, with one of the ids or none (its echo found by content).
      fc.record({
        kind: fc.constant("prompt" as const),
        later: fc.boolean(),
        messageId: fc.constantFrom(undefined, "u1", "u2"),
      }),
      fc.record({ kind: fc.constant("prompt" as const), later: fc.constant(true), messageId: fc.constant("u1") }),
      // A reload (v1 `session/load`, a v2 resume) answered at once or later: its history is forwarded whole.
      fc.record({ kind: fc.constant("load" as const), later: fc.boolean() }),
      fc.constantFrom(
        { kind: "state" as const, update: { sessionUpdate: "state_update", state: "running" } },
        { kind: "state" as const, update: { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" } },
      ),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(chunk, chunk, other), { minLength: 5, maxLength: 30 }), async (steps) => {
        const ws = [wire(false), wire(true)];
        const seen = await openSession(ws);
        const acks: PromptAcks = { later: false, messageId: undefined, waiting: [[], []] };
        let id = 2;
        let fresh = 0;
        for (const st of steps) {
          acks.later = false;
          if (st.kind === "prompt") {
            acks.later = st.later;
            acks.messageId = st.messageId;
            prompt(ws, id++);
          } else if (st.kind === "load") {
            acks.later = st.later;
            const load = { sessionId: "s1", cwd: "/tmp", mcpServers: [] };
            both(
              ws,
              "client",
              JSON.stringify({ jsonrpc: "2.0", id: LOAD_IDS + id++, method: "session/load", params: load }),
            );
          } else if (st.kind === "state") both(ws, "agent", spell({ ...st.update }, "plain"));
          else {
            const block = { type: "text", text: st.text };
            // A whole message (Claude's echo of a prompt): one block mostly, its keys in either order, or more.
            const content =
              st.kind !== "user_message"
                ? block
                : st.blocks === 1
                  ? [st.textFirst ? { text: st.text, type: "text" } : block]
                  : Array.from({ length: st.blocks }, () => block);
            const messageId = st.messageId === "new" ? `n${fresh++}` : st.messageId;
            const u = { sessionUpdate: st.kind, messageId, content };
            both(ws, "agent", applyRealEdit(spell(u, st.how), st.edit, st.number));
          }
          await settle();
          answerAgentRequests(ws, seen, acks);
          await settle();
        }
        // What still waits is answered: the user's messages held meanwhile are released.
        acks.later = false;
        answerAgentRequests(ws, seen, acks);
        await settle();
        expectSameRuns(ws as [Wired, Wired]);
      }),
      { numRuns: numRuns() },
    );
    // Every decision is reached: a chunk or message forwarded, an echo dropped, one left to the full path.
    const results = decided.mock.results.map((r) => r.value as unknown);
    // (About 40, 145, 15 and 20 of each in 100 runs: the bounds leave room for the seed's luck.)
    expect(usersTaken).toBeGreaterThan(numRuns() / 10);
    expect(results.filter((r) => r === "forward").length).toBeGreaterThan(numRuns() / 2);
    expect(results.filter((r) => r === "drop").length).toBeGreaterThan(numRuns() / 50);
    expect(results.filter((r) => r === undefined).length).toBeGreaterThan(numRuns() / 50);
    decided.mockRestore();
  });

  it("lets a busy state flush a tool call's coalesced chunks first, as the full path does", async () => {
    const ws = [wire(false), wire(true)];
    await openSession(ws);
    const update = (u: Obj) =>
      JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s1", update: u } });
    const chunk = (text: string) =>
      update({
        sessionUpdate: "tool_call_content_chunk",
        toolCallId: "t1",
        content: { type: "content", content: { type: "text", text } },
      });
    both(
      ws,
      "agent",
      update({ sessionUpdate: "tool_call_update", toolCallId: "t1", title: "Run", status: "in_progress" }),
    );
    both(ws, "agent", chunk("one"));
    both(ws, "agent", update({ sessionUpdate: "state_update", state: "requires_action", background: [] }));
    both(ws, "agent", chunk("two"));
    vi.advanceTimersByTime(1000);
    await settle();
    expectSameRuns(ws as [Wired, Wired]);
    // The chunks went out in two updates: the state flushed the first.
    expect(ws[0]?.toClient.filter((l) => l.includes('"text":"one"')).length).toBe(2);
  });

  it("takes the bench's chunk, tool-call update, usage, session info and busy state lines without parsing", async () => {
    const [w] = [wire(false)];
    await openSession([w]);
    // The session's first update opens its state on the full path.
    w.bridge.agentLine(
      Buffer.from(
        JSON.stringify({
          jsonrpc: "2.0",
          method: "session/update",
          params: { sessionId: "s1", update: { sessionUpdate: "state_update", state: "running" } },
        }),
      ),
    );
    const parse = vi.spyOn(JSON, "parse");
    const lines = [
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","messageId":"m-0","content":{"type":"text","text":"chunk 0"}}}}',
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_thought_chunk","messageId":"th-0","content":{"type":"text","text":"hmm"}}}}',
    ];
    for (const l of lines) w.bridge.agentLine(Buffer.from(l));
    expect(parse).not.toHaveBeenCalled();
    expect(w.toClient.slice(-2)).toEqual(lines);
    // A tool call's first sighting becomes a v1 tool_call (the tag spliced); its updates go as they are.
    const announce =
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"t-0","status":"in_progress","title":"Read"}}}';
    w.bridge.agentLine(Buffer.from(announce));
    expect(parse).not.toHaveBeenCalled();
    expect(w.toClient.at(-1)).toBe(announce.replace('"tool_call_update"', '"tool_call"'));
    const next =
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"t-0","status":"completed","title":"Read a.ts"}}}';
    w.bridge.agentLine(Buffer.from(next));
    expect(parse).not.toHaveBeenCalled();
    expect(w.toClient.at(-1)).toBe(next);
    // Usage and session info as Claude's and Codex's adapters send them (member-scan.ts): as they are.
    const usage =
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"usage_update","used":150,"size":1000000,"_meta":{"_claude/model":"claude-interop-mock"}}}}';
    const info =
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"session_info_update","_meta":{"codex":{"threadStatus":{"type":"active","activeFlags":[]}}}}}}';
    for (const l of [usage, info]) w.bridge.agentLine(Buffer.from(l));
    expect(parse).not.toHaveBeenCalled();
    expect(w.toClient.slice(-2)).toEqual([usage, info]);
    // A busy state as Codex's adapter sends it: noted, nothing written.
    const written = w.toClient.length;
    w.bridge.agentLine(
      Buffer.from(
        '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"state_update","state":"requires_action","background":[]}}}',
      ),
    );
    expect(parse).not.toHaveBeenCalled();
    expect(w.toClient.length).toBe(written);
    // Claude's tool calls, their tag last, with rawInput, locations and text content (the member
    // scan): the tag goes first, and nothing is parsed while nothing reads the tool call's view.
    const claude = [
      '{"toolCallId":"t-1","name":"Read","rawInput":{},"status":"pending","title":"Read File","kind":"read","locations":[],"content":[],"sessionUpdate":"tool_call_update"}',
      '{"toolCallId":"t-1","rawInput":{"file_path":"/w/a.ts"},"title":"Read a.ts","locations":[{"path":"/w/a.ts","line":1}],"sessionUpdate":"tool_call_update"}',
      '{"toolCallId":"t-1","status":"completed","rawOutput":"1\\talpha\\n","content":[{"type":"content","content":{"type":"text","text":"```\\nalpha\\n```"}}],"sessionUpdate":"tool_call_update"}',
    ];
    const inLine = (u: string) =>
      `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":${u}}}`;
    for (const u of claude) w.bridge.agentLine(Buffer.from(inLine(u)));
    expect(parse).not.toHaveBeenCalled();
    const tagFirst = (u: string, tag: string) =>
      inLine(`{"sessionUpdate":"${tag}",${u.slice(1).replace(',"sessionUpdate":"tool_call_update"', "")}`);
    expect(w.toClient.slice(-3)).toEqual([
      tagFirst(claude[0] ?? "", "tool_call"),
      tagFirst(claude[1] ?? "", "tool_call_update"),
      tagFirst(claude[2] ?? "", "tool_call_update"),
    ]);
    parse.mockRestore();
    // Recorded as the full path records it: the view as last set, finished, so retired.
    const sessions = (w.bridge as unknown as { translator: { sessions: { get(id: string): SessionA } } }).translator
      .sessions;
    const entry = (view: Obj) => ({
      view,
      announced: true,
      synthetic: false,
      pendingChunks: [],
      pendingMeta: undefined,
      flushTimer: undefined,
    });
    expect(sessions.get("s1").toolCalls.toJSON()).toEqual([
      ["t-0", entry({ toolCallId: "t-0", status: "completed", title: "Read a.ts" }), true],
      [
        "t-1",
        entry({
          toolCallId: "t-1",
          name: "Read",
          rawInput: { file_path: "/w/a.ts" },
          status: "completed",
          title: "Read a.ts",
          kind: "read",
          locations: [{ path: "/w/a.ts", line: 1 }],
          content: [{ type: "content", content: { type: "text", text: "```\nalpha\n```" } }],
          rawOutput: "1\talpha\n",
        }),
        true,
      ],
    ]);
  });
});
