// Direction B's fast path (DirectionB.fastUpdate, fastUpdateToV2 in src/engine/v2-client/updates/index.ts) against
// the full path: the same conversation through a bridge with it and one without (a receive hook
// turns fast paths off, since it must see every parsed message) writes the same bytes to both
// peers, in the same order (issue 9: every fast path is proven byte-for-byte equal).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DirectionB } from "../../src/engine/v2-client/engine.js";
import type { ScannedMembers } from "../../src/wire/member-scan.js";
import { Bridge } from "../../src/engine/bridge.js";
import { Link } from "../../src/engine/link.js";
import { createBridgeConfig, type BridgeOptions } from "../../src/engine/config.js";
import { STASH_KEY, STASH_VERSION } from "../../src/convert/stash.js";
import { silentLogger } from "../support/log.js";
import { baseOptions } from "../support/harness.js";
import { numRuns } from "../support/properties.js";
import { applyRealEdit, numberSpelling, rawInput, realEdit, realText } from "../support/real-traffic.js";
import { anyString } from "../support/arbitrary.js";
import { wireProblems } from "../support/wire-schema.js";
import type { Obj } from "../../src/base/json.js";

const S = "s1";

interface Wired {
  readonly bridge: Bridge;
  /** What the bridge wrote to each peer, as written (Buffer or string). */
  readonly toClient: (string | Buffer)[];
  readonly toAgent: (string | Buffer)[];
  client(text: string | Buffer): void;
  agent(text: string | Buffer): void;
  /** The id of the last v1 `session/prompt` the bridge sent the agent. */
  lastPromptId(): unknown;
  /** The id of the last v1 `session/load` the bridge sent the agent. */
  lastLoadId(): unknown;
}

const line = (m: unknown): Buffer => Buffer.from(JSON.stringify(m));
/** A written line as the bytes that go out (`String` of a Buffer would hide an invalid byte behind U+FFFD). */
const bytes = (l: string | Buffer): string => (typeof l === "string" ? Buffer.from(l) : l).toString("latin1");
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

function lastRequest(out: readonly (string | Buffer)[], method: string): Obj | undefined {
  for (let i = out.length - 1; i >= 0; i--) {
    const m = JSON.parse(String(out[i])) as Obj;
    if (m.method === method && m.id !== undefined) return m;
  }
  return undefined;
}

/** A v2 client and a v1 agent through one bridge, past the handshake and `session/new`. */
interface Setup {
  readonly options?: Partial<BridgeOptions>;
  /** `_meta` of the client's `initialize` request / the agent's result (a bridge's marker). */
  readonly clientMeta?: Obj;
  readonly agentMeta?: Obj;
  readonly agentCapabilities?: Obj;
}

async function wire(full: boolean, setup: Setup = {}): Promise<Wired> {
  const { options = {}, clientMeta, agentMeta, agentCapabilities = {} } = setup;
  const toClient: (string | Buffer)[] = [];
  const toAgent: (string | Buffer)[] = [];
  const config = createBridgeConfig(
    { ...baseOptions, ...options },
    silentLogger,
    full ? { onReceive: () => undefined } : {},
  );
  const bridge = new Bridge(config, { push: (l) => toClient.push(l) }, { push: (l) => toAgent.push(l) });
  const w: Wired = {
    bridge,
    toClient,
    toAgent,
    client: (t) => bridge.clientLine(typeof t === "string" ? Buffer.from(t) : t),
    agent: (t) => bridge.agentLine(typeof t === "string" ? Buffer.from(t) : t),
    lastPromptId: () => lastRequest(toAgent, "session/prompt")?.id,
    lastLoadId: () => lastRequest(toAgent, "session/load")?.id,
  };
  const init = {
    protocolVersion: 2,
    info: { name: "zed", version: "1" },
    capabilities: {},
    ...(clientMeta ? { _meta: clientMeta } : {}),
  };
  w.client(line({ jsonrpc: "2.0", id: 0, method: "initialize", params: init }));
  await tick();
  const v1 = { protocolVersion: 1, agentCapabilities, authMethods: [], ...(agentMeta ? { _meta: agentMeta } : {}) };
  for (let probe = 0; probe < 2; probe++) {
    const req = lastRequest(toAgent, "initialize");
    w.agent(line({ jsonrpc: "2.0", id: req?.id, result: v1 }));
    await tick();
  }
  expect(bridge.mode).toBe("B");
  w.client(line({ jsonrpc: "2.0", id: "new", method: "session/new", params: { cwd: "/w" } }));
  await tick();
  w.agent(line({ jsonrpc: "2.0", id: lastRequest(toAgent, "session/new")?.id, result: { sessionId: S } }));
  await tick();
  toClient.splice(0);
  toAgent.splice(0);
  return w;
}

// ---------------------------------------------------------------- generated traffic

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "grapheme", maxLength: 6 }),
  fc.string({ unit: "binary", maxLength: 6 }),
  fc.constantFrom('say "hi"', "back\\slash", "line\nfeed\ttab", "ctl \u0001\u001f\u007f", "é ✓ 😀", "\u2028/</", ""),
  // What real agents stream (issue 21 item 3): per-token text, lone surrogates, huge strings.
  realText,
);
const messageId = fc.option(fc.constantFrom("m1", "m2", "th1", `acpb:${S}:a:1`, `acpb:${S}:t:7`, "u1"), {
  nil: undefined,
});
const toolCallId = fc.constantFrom("t1", "t2", "t3");

/** An object with `keys` in a shuffled order (sometimes). */
function maybeShuffled(o: Obj): fc.Arbitrary<Obj> {
  const keys = Object.keys(o);
  return fc.shuffledSubarray(keys, { minLength: keys.length }).map((order) => {
    const out: Obj = {};
    for (const k of order) out[k] = o[k];
    return out;
  });
}

const chunk = fc
  .record({
    tag: fc.constantFrom("agent_message_chunk", "agent_thought_chunk", "user_message_chunk"),
    id: messageId,
    text,
    // Mostly text; an unknown type passes to v2 as it is, an image without data is dropped.
    type: fc.constantFrom("text", "text", "text", "image", "made_up"),
    textFirst: fc.boolean(),
    idFirst: fc.boolean(),
    extra: fc.option(fc.constantFrom({ title: "t" }, { status: "x" }), { freq: 8, nil: {} }),
  })
  .map(({ tag, id, text: t, type, textFirst, idFirst, extra }): Obj => {
    const content = textFirst ? { text: t, type } : { type, text: t };
    if (id === undefined) return { sessionUpdate: tag, content, ...extra };
    return idFirst
      ? { messageId: id, sessionUpdate: tag, content, ...extra }
      : { sessionUpdate: tag, messageId: id, content, ...extra };
  });

const toolFields = fc.record(
  {
    status: fc.constantFrom("pending", "in_progress", "completed", "failed", "weird"),
    title: text,
    kind: fc.constantFrom("read", "edit", "execute", "other", "fetch", "made_up"),
  },
  { requiredKeys: [] },
);

const toolCallUpdate = fc
  .tuple(toolCallId, toolFields, fc.boolean())
  .chain(([id, fields, tagFirst]) =>
    tagFirst
      ? fc.constant<Obj>({ sessionUpdate: "tool_call_update", toolCallId: id, ...fields })
      : maybeShuffled({ sessionUpdate: "tool_call_update", toolCallId: id, ...fields }),
  );

const otherUpdate = fc.oneof(
  fc
    .tuple(toolCallId, text, toolFields)
    .map(([id, title, fields]): Obj => ({ sessionUpdate: "tool_call", toolCallId: id, ...fields, title })),
  // As real agents announce them: rawInput (large too), locations, a field a later v1 may add.
  fc.tuple(toolCallId, text, rawInput).map(([id, title, input]): Obj => ({
    sessionUpdate: "tool_call",
    toolCallId: id,
    title,
    kind: "execute",
    status: "pending",
    rawInput: input,
    locations: [{ path: "/work/a.ts", line: 3 }],
    futureField: { x: 1 },
  })),
  toolCallId.map((id): Obj => ({
    sessionUpdate: "tool_call_update",
    toolCallId: id,
    content: [{ type: "content", content: { type: "text", text: "out" } }],
  })),
  fc.constant<Obj>({
    sessionUpdate: "plan",
    entries: [{ content: "step", priority: "high", status: "pending" }],
  }),
  fc.constant<Obj>({
    sessionUpdate: "agent_message_chunk",
    messageId: "m1",
    content: { type: "image", data: "", mimeType: "image/png" },
  }),
  fc.constant<Obj>({ sessionUpdate: "session_info_update", title: "t" }),
  // An A bridge's first chunk of an upsert fanned out into three: the next two are gathered.
  fc.constantFrom("m1", "m2").map((id): Obj => ({
    sessionUpdate: "agent_message_chunk",
    messageId: id,
    content: { type: "text", text: "first" },
    _meta: { [STASH_KEY]: { v: STASH_VERSION, from: 2, hadMeta: false, residual: { op: "upsert", count: 3 } } },
  })),
  fc.constant<Obj>({ sessionUpdate: "constructor", content: { type: "text", text: "x" } }),
  messageId.map((id): Obj => ({
    sessionUpdate: "agent_message_chunk",
    ...(id === undefined ? {} : { messageId: id }),
    content: { type: "text", text: "meta" },
    _meta: { trace: 1 },
  })),
);

/**
 * Command texts: mostly what adapters write (any graphemes, quotes and backslashes, emoji), else
 * every escape, surrogate pairs and lone surrogates, controls (a list with one such takes the full path).
 */
const commandText = fc.oneof(
  { weight: 30, arbitrary: fc.string({ unit: "grapheme", maxLength: 16 }) },
  { weight: 6, arbitrary: fc.constantFrom('say "hi"', "back\\slash", "a/b", "é ✓ 😀", "\u2028/</", "") },
  { weight: 1, arbitrary: text },
  { weight: 1, arbitrary: anyString },
);

/** A v1 command: its keys in any order, its input in every form, now and then a member the scan refuses. */
const command = fc
  .record({
    name: fc.option(commandText, { freq: 40, nil: undefined }),
    description: fc.option(commandText, { freq: 40, nil: undefined }),
    input: fc.oneof(
      { weight: 6, arbitrary: fc.constant(undefined) },
      { weight: 6, arbitrary: fc.constant(null) },
      { weight: 6, arbitrary: commandText.map((hint): unknown => ({ hint })) },
      {
        weight: 1,
        arbitrary: fc.constantFrom<unknown>(
          { hint: "h", _meta: { k: 1 } },
          { hint: 7 },
          { type: "text", hint: "h" },
          {},
          "x",
        ),
      },
    ),
    // Mostly none; now and then a `_meta`, a number of any form, an unknown key.
    extra: fc.oneof(
      { weight: 20, arbitrary: fc.constant<Obj>({}) },
      {
        weight: 1,
        arbitrary: fc.constantFrom<Obj>(
          { _meta: { trace: 1 } },
          { _meta: null },
          { n: 1.5e300 },
          { n: -0 },
          { n: 2 ** 60 },
          { n: 0.1 },
          { other: "x" },
          JSON.parse('{"__proto__":"p"}') as Obj,
        ),
      },
    ),
  })
  .chain(({ name, description, input, extra }) =>
    maybeShuffled({
      ...(name === undefined ? {} : { name }),
      ...(description === undefined ? {} : { description }),
      ...(input === undefined ? {} : { input }),
      ...extra,
    }),
  );

const commandsUpdate = fc
  .tuple(fc.array(command, { maxLength: 5 }), fc.nat(4))
  .chain(([list, shape]) =>
    shape > 0
      ? fc.constant<Obj>({ sessionUpdate: "available_commands_update", availableCommands: list })
      : maybeShuffled({ sessionUpdate: "available_commands_update", availableCommands: list, _meta: { k: 1 } }),
  );

/** A count as agents send it, and now and then one `checkUsage` refuses. */
const count = fc.oneof(
  { weight: 6, arbitrary: fc.nat({ max: 2_000_000 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(0, 2 ** 53 - 1, 2 ** 53 + 2, 1e21, -1, 1.5, "7", null) },
);
/** `_meta` as agents send it (Claude's model, Codex's thread), a stash, `null`, not an object. */
const memberMeta = fc.oneof(
  { weight: 4, arbitrary: fc.constant(undefined) },
  { weight: 4, arbitrary: fc.constantFrom<unknown>({ "_claude/model": "m" }, { codex: { threadStatus: "running" } }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(
      null,
      "x",
      { [STASH_KEY]: { v: STASH_VERSION, from: 2, hadMeta: false, synthetic: ["cost"] } },
      { deep: { [STASH_KEY]: 1 } },
    ),
  },
);
/** Mostly the tag first, as the recorded v1 agents write it (the member scan takes only that), else any order. */
const tagFirst = fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) });
/** Usage as the recorded v1 agents send it: counts, a cost now and then (or one `checkUsage` refuses), `_meta`. */
const usageUpdate = fc
  .record(
    {
      used: count,
      size: count,
      cost: fc.oneof(
        // As agents send it (any double an amount may be), or one `checkUsage` refuses.
        fc.record({
          amount: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.nat()),
          currency: fc.constantFrom("USD", "EUR"),
        }),
        fc.constantFrom<unknown>(
          { amount: 0.25, currency: "USD" },
          { amount: 0.00864, currency: "USD", _meta: { k: 1 } },
          { amount: 1, currency: "USD", _meta: null },
          { amount: 1, currency: "USD", _meta: 3 },
          { amount: 0.5, currency: "USD", extra: [1.5e-7] },
          null,
          { amount: "x" },
          {},
          "free",
        ),
      ),
      _meta: memberMeta,
    },
    { requiredKeys: ["used", "size"] },
  )
  .chain((fields) =>
    tagFirst.chain((first) => {
      const u: Obj = { sessionUpdate: "usage_update", ...fields };
      if (u._meta === undefined) delete u._meta;
      return first ? fc.constant(u) : maybeShuffled(u);
    }),
  );
/** Usage and session info (issue 21: the recorded v1 agents send them between most other updates). */
const memberUpdate = fc.oneof(
  usageUpdate,
  fc
    .record(
      {
        title: fc.oneof(text, fc.constant(null), fc.constant(7)),
        updatedAt: fc.constantFrom<unknown>(
          "2026-11-28T12:00:00Z",
          "2026-11-28T12:00:00.5+01:00",
          "2026-11-28 12:00",
          null,
          5,
        ),
        _meta: memberMeta,
      },
      { requiredKeys: [] },
    )
    .chain((fields) =>
      tagFirst.chain((first) => {
        const u: Obj = { sessionUpdate: "session_info_update", ...fields };
        if (u._meta === undefined) delete u._meta;
        return first ? fc.constant(u) : maybeShuffled(u);
      }),
    ),
);

/**
 * A v1 diff as the recorded agents send it (Claude's snippet, Codex's and Gemini's whole texts with
 * a `_meta.kind`, an add's null or empty old text), any texts, now and then a relative path, an
 * extra key, a key order of its own or a member the converter refuses.
 */
const diffItem = fc
  .record(
    {
      path: fc.constantFrom<unknown>("/interop/ws/notes.txt", "/w/a.ts", "/w/new file.py", "a.ts", 3),
      oldText: fc.oneof(text, fc.constantFrom<unknown>(null, "", "alpha\nbeta\ngamma\n")),
      newText: fc.oneof(text, fc.constantFrom<unknown>("", "alpha\nbeta\nGAMMA\n", 5)),
      _meta: fc.constantFrom<unknown>({ kind: "add" }, { kind: "modify" }, { kind: "update" }, { k: [1] }, 7),
      extra: fc.constantFrom<Obj>({ futureField: true }, { changes: [] }, { deleted: true }),
    },
    { requiredKeys: ["path", "newText"] },
  )
  .chain(({ extra, ...fields }) => {
    const item: Obj = { type: "diff", ...fields, ...(extra ?? {}) };
    return fc.oneof(fc.constant(item), maybeShuffled(item));
  });
const textItem = text.map((t): unknown => ({ type: "content", content: { type: "text", text: t } }));

/** A tool call's `content` as v1 agents send it: none, text items, diffs, now and then what v2 has otherwise. */
const toolContent = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.array(textItem, { maxLength: 3 }),
  },
  {
    weight: 2,
    arbitrary: fc.array(fc.oneof({ weight: 3, arbitrary: diffItem }, { weight: 1, arbitrary: textItem }), {
      minLength: 1,
      maxLength: 3,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(
      [{ type: "diff", path: "/w/a.ts", oldText: "a", newText: "b" }],
      [{ type: "diff", path: "/w/a.ts", oldText: null, newText: "b", _meta: { kind: "add" } }],
      [{ type: "terminal", terminalId: "term-1" }],
      [{ type: "content", content: { type: "text", text: "x", annotations: { priority: 1 } } }],
      [{ type: "content", content: { type: "image", data: "", mimeType: "image/png" } }],
      [{ type: "content", content: { type: "text", text: "x" }, _meta: { k: 1 } }],
      null,
    ),
  },
);
/** Locations: absolute (as the recorded agents send them), relative to the session cwd, line 0, extra keys. */
const toolLocations = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom<unknown>([], [{ path: "/interop/ws/notes.txt" }], [{ path: "/w/a.ts", line: 1 }]),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(
      [{ path: "a.ts" }],
      [{ path: "/w/a.ts", line: 0 }],
      [{ path: "/w/../w/a.ts" }],
      [{ path: "/w/a.ts", _meta: { k: 1 } }],
      [{ path: "/w/a.ts", line: 1.5 }],
      null,
    ),
  },
);
/** `_meta` as the recorded v1 agents send it on tool calls, the terminal convention, a stash. */
const toolMeta = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<unknown>(undefined, { claudeCode: { toolName: "Read" } }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(
      { claudeCode: { toolName: "Bash" }, terminal_info: { terminal_id: "term-1" } },
      { terminal_output: { terminal_id: "term-1", data: "out" } },
      { terminal_exit: { terminal_id: "term-1", exit_code: 0, signal: null } },
      { [STASH_KEY]: { v: STASH_VERSION, from: 2, hadMeta: false, synthetic: ["title"] } },
      null,
    ),
  },
);
/**
 * v1 tool calls of any members, the tag at any place (Claude's adapter writes `_meta`, the id, then
 * the tag; Codex and Gemini the tag first): what the member path takes, and what it must leave.
 */
const toolMembers = fc
  .record(
    {
      tag: fc.constantFrom("tool_call", "tool_call_update"),
      id: toolCallId,
      _meta: toolMeta,
      name: fc.oneof(fc.constant("Bash"), fc.constant(null), fc.constant(3)),
      title: fc.oneof(text, fc.constant(null)),
      kind: fc.constantFrom<unknown>("read", "edit", "delete", "execute", "other", "made_up", null),
      status: fc.constantFrom<unknown>("pending", "in_progress", "completed", "failed", null),
      rawInput: rawInput,
      rawOutput: fc.constantFrom<unknown>("1\talpha\n", { exit_code: 0 }, [{ type: "tool_reference" }], null),
      content: toolContent,
      locations: toolLocations,
      extra: fc.constantFrom<Obj>({ futureField: { x: 1 } }, { capabilities: { cancel: {} } }, { n: 1.5e300 }),
    },
    { requiredKeys: ["tag", "id"] },
  )
  .chain(({ tag, id, _meta, extra, ...fields }) => {
    const u: Obj = {};
    if (_meta !== undefined) u._meta = _meta;
    u.toolCallId = id;
    u.sessionUpdate = tag;
    Object.assign(u, fields, extra ?? {});
    return fc.oneof(fc.constant(u), maybeShuffled(u));
  });

/** A plan entry as agents write it (any text, v1's values and others), now and then one `checkEntry` refuses or a stash. */
const planEntry = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .record(
        {
          // Mostly what agents write (any graphemes, quotes, emoji), else any text (lone surrogates too).
          content: fc.oneof(
            { weight: 6, arbitrary: fc.string({ unit: "grapheme", maxLength: 24 }) },
            { weight: 1, arbitrary: text },
          ),
          status: fc.constantFrom("pending", "in_progress", "completed", "cancelled"),
          priority: fc.constantFrom("high", "medium", "low", "urgent"),
          _meta: fc.constantFrom<unknown>({ k: [1.5] }, null),
        },
        { requiredKeys: ["content", "status", "priority"] },
      )
      .chain((e) => fc.oneof(fc.constant<Obj>(e), maybeShuffled(e))),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(
      { content: "x", status: "pending" },
      { content: 1, status: "pending", priority: "high" },
      { content: "x", status: "pending", priority: "high", _meta: 3 },
      {
        content: "x",
        status: "completed",
        priority: "high",
        _meta: { [STASH_KEY]: { v: STASH_VERSION, from: 2, hadMeta: false, residual: { status: "cancelled" } } },
      },
      "step",
    ),
  },
);
/**
 * v1 plans (T §2.6 B↓): entries and a `_meta` as agents send them, and now and then an A bridge's
 * layout of two plans (after it, the default plan is not the only one emitted), a member v2 keeps.
 */
const planUpdate = fc
  .record(
    {
      entries: fc.oneof(
        { weight: 6, arbitrary: fc.array(planEntry, { maxLength: 4 }) },
        { weight: 1, arbitrary: fc.constantFrom<unknown>(null, {}, "x") },
      ),
      _meta: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom<unknown>(undefined, { "_claude/model": "m" }) },
        {
          weight: 1,
          arbitrary: fc.constantFrom<unknown>(null, 3, {
            [STASH_KEY]: {
              v: STASH_VERSION,
              from: 2,
              hadMeta: false,
              residual: { plans: [{ planId: "other", count: 0 }], trigger: "other" },
            },
          }),
        },
      ),
      extra: fc.oneof(
        { weight: 6, arbitrary: fc.constant<Obj>({}) },
        { weight: 1, arbitrary: fc.constant<Obj>({ futureField: 1 }) },
      ),
    },
    { requiredKeys: ["entries", "extra"] },
  )
  .chain(({ extra, ...fields }) => {
    const u: Obj = { sessionUpdate: "plan", ...fields, ...extra };
    if (u._meta === undefined) delete u._meta;
    return fc.oneof({ weight: 4, arbitrary: fc.constant(u) }, { weight: 1, arbitrary: maybeShuffled(u) });
  });

const update = fc.oneof(
  { weight: 5, arbitrary: chunk },
  { weight: 3, arbitrary: planUpdate },
  { weight: 3, arbitrary: toolMembers },
  { weight: 3, arbitrary: toolCallUpdate },
  { weight: 2, arbitrary: otherUpdate },
  { weight: 2, arbitrary: commandsUpdate },
  { weight: 3, arbitrary: memberUpdate },
);

/** A byte edit the scan must refuse (or see through): whitespace, escapes, order, extra members. */
const edit = fc.constantFrom(
  "space-after-colon",
  "escape-A",
  "escape-slash",
  "params-meta",
  "method-last",
  "raw-ff",
  "truncate",
  "upper-hex",
);

/** Byte edits of a command list's line. */
const commandsEdit = fc.constantFrom(
  "escape-name",
  "raw-ff-description",
  "duplicate-name",
  "space-in-list",
  "number-forms",
  "input-space",
  "params-meta",
  "method-last",
  "truncate",
  "trailing-space",
);

function applyEdit(text: string, e: string): Buffer {
  switch (e) {
    case "space-after-colon":
      return Buffer.from(text.replace('"update":', '"update": '));
    case "escape-A":
      return Buffer.from(text.replace('"text":"', '"text":"\\u0041'));
    case "escape-slash":
      return Buffer.from(text.replace('"text":"', '"text":"\\/'));
    case "params-meta":
      return Buffer.from(text.replace(`"params":{`, `"params":{"_meta":{"k":1},`));
    case "method-last":
      return Buffer.from(text.replace(`"method":"session/update",`, "").replace(/}$/, `,"method":"session/update"}`));
    case "raw-ff": {
      const b = Buffer.from(text);
      const at = b.indexOf('"text":"');
      return at < 0 ? b : Buffer.concat([b.subarray(0, at + 8), Buffer.from([0xff]), b.subarray(at + 8)]);
    }
    case "truncate":
      return Buffer.from(text.slice(0, -1));
    case "escape-name":
      return Buffer.from(text.replace('"name":"', '"name":"\\u0041'));
    case "raw-ff-description": {
      const b = Buffer.from(text);
      const at = b.indexOf('"description":"');
      return at < 0 ? b : Buffer.concat([b.subarray(0, at + 15), Buffer.from([0xff]), b.subarray(at + 15)]);
    }
    case "duplicate-name":
      return Buffer.from(text.replace(/([{,])"name":/, '$1"name":"dup","name":'));
    case "space-in-list":
      return Buffer.from(text.replace('"availableCommands":[', '"availableCommands": ['));
    case "number-forms":
      return Buffer.from(text.replace('{"name":', '{"n":1.0E+5,"name":'));
    case "trailing-space":
      return Buffer.from(text + " ");
    case "input-space":
      return Buffer.from(text.replace('"input":{', '"input": {'));
    default:
      // JSON.stringify writes lowercase hex for a control character.
      return Buffer.from(text.replace("\\u001f", "\\u001F"));
  }
}

/**
 * Lines of `updates`: one in ten for another session, one in `1 + unedited` edited by one of `edits`,
 * the others spelled as real traffic spells them (test/support/real-traffic.ts).
 */
const linesOf = (updates: fc.Arbitrary<Obj>, edits: fc.Arbitrary<string>, unedited = 4): fc.Arbitrary<Buffer> =>
  fc
    .record({
      update: updates,
      session: fc.oneof({ weight: 9, arbitrary: fc.constant(S) }, { weight: 1, arbitrary: fc.constant("other") }),
      // One line in five edited.
      edit: fc.oneof({ weight: unedited, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: edits }),
      real: realEdit,
      number: numberSpelling,
    })
    .map(({ update: u, session, edit: e, real, number }) => {
      const text = JSON.stringify({
        jsonrpc: "2.0",
        method: "session/update",
        params: { sessionId: session, update: u },
      });
      return e === undefined ? applyRealEdit(text, real, number) : applyEdit(text, e);
    });

const updateLine = linesOf(update, edit);

type Step =
  | { readonly kind: "update"; readonly line: Buffer }
  /** The agent echoes the prompt under two ids, then uses the second for its answer (an alias). */
  | { readonly kind: "echo"; readonly first: string; readonly second: string }
  | { readonly kind: "answer"; readonly stop: "end_turn" | "cancelled" | "error" }
  | { readonly kind: "prompt" }
  /** A resume the bridge runs as a v1 `session/load` (its replay is not forwarded), and its answer. */
  | { readonly kind: "resume" }
  | { readonly kind: "loaded" }
  | { readonly kind: "close" }
  | { readonly kind: "cancel" };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 12, arbitrary: updateLine.map((l): Step => ({ kind: "update", line: l })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom("end_turn", "cancelled", "error").map((stop): Step => ({ kind: "answer", stop })),
  },
  { weight: 1, arbitrary: fc.constant<Step>({ kind: "prompt" }) },
  { weight: 1, arbitrary: fc.constantFrom<Step>({ kind: "resume" }, { kind: "loaded" }, { kind: "close" }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom("u1", "m1"), fc.constantFrom("m1", "m2"))
      .map(([first, second]): Step => ({ kind: "echo", first, second })),
  },
  { weight: 1, arbitrary: fc.constant<Step>({ kind: "cancel" }) },
);

function play(w: Wired, steps: readonly Step[]): void {
  let prompts = 0;
  const prompt = () =>
    w.client(
      line({
        jsonrpc: "2.0",
        id: `p${String(++prompts)}`,
        method: "session/prompt",
        params: { sessionId: S, prompt: [{ type: "text", text: "go" }] },
      }),
    );
  prompt();
  for (const s of steps)
    switch (s.kind) {
      case "update":
        w.agent(s.line);
        break;
      case "prompt":
        prompt();
        break;
      case "echo": {
        const update = (tag: string, id: string) =>
          line({
            jsonrpc: "2.0",
            method: "session/update",
            params: {
              sessionId: S,
              update: { sessionUpdate: tag, messageId: id, content: { type: "text", text: "e" } },
            },
          });
        w.agent(update("user_message_chunk", s.first));
        w.agent(update("user_message_chunk", s.second));
        w.agent(update("agent_message_chunk", s.second));
        break;
      }
      case "resume":
        w.client(line({ jsonrpc: "2.0", id: "r", method: "session/resume", params: { sessionId: S, cwd: "/w" } }));
        break;
      case "close":
        w.client(line({ jsonrpc: "2.0", id: "c", method: "session/close", params: { sessionId: S } }));
        break;
      case "loaded": {
        const id = w.lastLoadId();
        if (id !== undefined) w.agent(line({ jsonrpc: "2.0", id, result: {} }));
        break;
      }
      case "cancel":
        w.client(line({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: S } }));
        break;
      case "answer": {
        const id = w.lastPromptId();
        w.agent(
          line(
            s.stop === "error"
              ? { jsonrpc: "2.0", id, error: { code: -32603, message: "boom" } }
              : { jsonrpc: "2.0", id, result: { stopReason: s.stop } },
          ),
        );
        break;
      }
    }
}

const settings = fc.constantFrom<Setup>(
  {},
  { agentCapabilities: { loadSession: true } },
  { options: { ackGraceMs: 0 } },
  { options: { stash: "full" } },
);

/**
 * Both bridges (fast paths on, off) play `steps` after a first update `ack` that acks the prompt
 * `play` sends (the updates after it may take the fast path): they write the same bytes to each peer.
 */
async function sameBytes(setup: Setup, steps: readonly Step[], ack: Obj): Promise<void> {
  const withFast = await wire(false, setup);
  const full = await wire(true, setup);
  const first: Step = {
    kind: "update",
    line: line({ jsonrpc: "2.0", method: "session/update", params: { sessionId: S, update: ack } }),
  };
  play(withFast, [first, ...steps]);
  play(full, [first, ...steps]);
  await tick();
  expect(withFast.toClient.map(bytes)).toEqual(full.toClient.map(bytes));
  expect(withFast.toAgent.map(bytes)).toEqual(full.toAgent.map(bytes));
}

/** A conversation whose lines take each fast path: a chunk, a command list, usage with a cost, then without one. */
const EVERY_FAST_PATH: readonly Step[] = [
  { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" } },
  { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "y" } },
  {
    sessionUpdate: "available_commands_update",
    availableCommands: [{ name: "init", description: "Set up", input: null }],
  },
  { sessionUpdate: "usage_update", used: 160, size: 1_000_000, cost: { amount: 0.01, currency: "USD" } },
  { sessionUpdate: "usage_update", used: 170, size: 1_000_000 },
  { sessionUpdate: "session_info_update", title: "t" },
  // A diff, converted (a deletion by the tool's kind), the rest of the line as its bytes.
  {
    sessionUpdate: "tool_call",
    toolCallId: "t9",
    title: "Delete",
    kind: "delete",
    content: [{ type: "diff", path: "/w/gone.ts", oldText: "bye\n", newText: "" }],
  },
].map((u): Step => ({
  kind: "update",
  line: line({ jsonrpc: "2.0", method: "session/update", params: { sessionId: S, update: u } }),
}));

// ---------------------------------------------------------------- tests

/**
 * Counts the lines holding `needle` that B's member path takes, from here to the test's end (its
 * spy restored after each test); the scan is consumed by the next line, so it is read at the call.
 */
function countMembersTaken(needle: string): { taken: number } {
  const original = Object.getOwnPropertyDescriptor(DirectionB.prototype, "fastMembers")?.value as (
    this: DirectionB,
    m: ScannedMembers,
  ) => boolean;
  const counter = { taken: 0 };
  vi.spyOn(DirectionB.prototype, "fastMembers").mockImplementation(function (this: DirectionB, m: ScannedMembers) {
    const holds = m.line.includes(needle);
    const taken = original.call(this, m);
    if (taken && holds) counter.taken++;
    return taken;
  });
  return counter;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("direction B fast path (issue 9)", () => {
  it("writes exactly what the full path writes, to both peers, for any conversation", async () => {
    const fast = vi.spyOn(DirectionB.prototype, "fastUpdate");
    const commands = vi.spyOn(DirectionB.prototype, "fastCommands");
    const members = vi.spyOn(DirectionB.prototype, "fastMembers");
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), settings, async (steps, setup) => {
        const withFast = await wire(false, setup);
        const full = await wire(true, setup);
        play(withFast, steps);
        play(full, steps);
        await tick();
        expect(withFast.toClient.map(bytes)).toEqual(full.toClient.map(bytes));
        expect(withFast.toAgent.map(bytes)).toEqual(full.toAgent.map(bytes));
      }),
      // The examples take each fast path, whatever the random conversations do.
      { numRuns: numRuns(), examples: [[[...EVERY_FAST_PATH], {}]] },
    );
    // Not vacuous: the fast path took lines.
    expect(fast.mock.results.some((r) => r.value === true)).toBe(true);
    expect(commands.mock.results.some((r) => r.value === true)).toBe(true);
    expect(members.mock.results.some((r) => r.value === true)).toBe(true);
  });

  it("writes exactly what the full path writes for command lists of any text and shape, and a local resume", async () => {
    const commands = vi.spyOn(DirectionB.prototype, "fastCommands");
    const lists = fc.oneof(
      {
        weight: 8,
        arbitrary: linesOf(commandsUpdate, commandsEdit, 1).map((l): Step => ({ kind: "update", line: l })),
      },
      { weight: 1, arbitrary: fc.constantFrom<Step>({ kind: "resume" }, { kind: "loaded" }) },
      { weight: 2, arbitrary: step },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(lists, { minLength: 1, maxLength: 12 }), settings, async (steps, setup) => {
        // A first plan acks the prompt `play` sends: the lists after it may take the fast path.
        await sameBytes(setup, steps, { sessionUpdate: "plan", entries: [] });
      }),
      { numRuns: numRuns() },
    );
    // Not vacuous: the fast path took lists (a fifth of the lines are edited, a quarter of the setups stash).
    expect(commands.mock.results.filter((r) => r.value === true).length).toBeGreaterThan(numRuns() / 10);
  });

  it("writes exactly what the full path writes for tool calls with diffs of any texts, their files present or not", async () => {
    const diffs = countMembersTaken('"type":"diff"');
    // A file the snippets are placed in (once, twice, not at all), one absent, one never read, a relative path.
    const dir = mkdtempSync(join(tmpdir(), "acp-bridge-fast-diffs-"));
    const file = join(dir, "notes.txt");
    writeFileSync(file, "alpha\nbeta\ngamma\ndelta\ngamma\n");
    try {
      // Texts the file holds once (pending), whose new side it holds (applied), twice, whole, or any.
      const texts = fc.oneof(
        {
          weight: 3,
          arbitrary: fc.constantFrom<[unknown, unknown]>(
            ["beta", "BETA"],
            ["BETA", "beta"],
            ["gamma", "GAMMA"],
            ["delta\n", ""],
            ["alpha\nbeta\ngamma\ndelta\ngamma\n", "alpha\nBETA\ngamma\ndelta\ngamma\n"],
            ["alpha\nbeta\ngamma\ndelta\ngamma\n", ""],
            [null, "new\n"],
            ["", "new\n"],
          ),
        },
        { weight: 1, arbitrary: fc.tuple(fc.oneof(text, fc.constant(null)), text) },
      );
      const diff = fc
        .record(
          {
            path: fc.constantFrom<unknown>(file, file, join(dir, "absent.ts"), "/interop/ws/notes.txt", "notes.txt"),
            texts,
            _meta: fc.constantFrom<unknown>({ kind: "add" }, { kind: "modify" }, { kind: "update" }),
          },
          { requiredKeys: ["path", "texts"] },
        )
        .chain(({ texts: [oldText, newText], ...fields }) =>
          maybeShuffled({ type: "diff", ...fields, oldText, newText }),
        );
      const call = fc
        .record(
          {
            tag: fc.constantFrom("tool_call", "tool_call_update"),
            id: toolCallId,
            _meta: fc.constantFrom<unknown>(undefined, { claudeCode: { toolName: "Edit" } }),
            title: text,
            kind: fc.constantFrom<unknown>("edit", "delete", "other"),
            status: fc.constantFrom<unknown>("pending", "in_progress", "completed", "failed"),
            rawInput,
            content: fc.array(fc.oneof({ weight: 3, arbitrary: diff }, { weight: 1, arbitrary: textItem }), {
              minLength: 1,
              maxLength: 3,
            }),
            locations: fc.constantFrom<unknown>([], [{ path: file }], [{ path: file, line: 3 }]),
          },
          { requiredKeys: ["tag", "id", "content"] },
        )
        .chain(({ tag, id, _meta, ...fields }) => {
          const u: Obj = {};
          if (_meta !== undefined) u._meta = _meta;
          u.toolCallId = id;
          u.sessionUpdate = tag;
          Object.assign(u, fields);
          return fc.oneof(fc.constant(u), maybeShuffled(u));
        });
      const steps = fc.oneof(
        { weight: 6, arbitrary: linesOf(call, edit, 6).map((l): Step => ({ kind: "update", line: l })) },
        { weight: 1, arbitrary: step },
      );
      const reads = fc.constantFrom<Setup>(
        { options: { diffFileMaxBytes: 1 << 16 } },
        { options: { diffFileMaxBytes: 1 << 16 } },
        {},
        { options: { diffFileMaxBytes: 8 } },
      );
      await fc.assert(
        fc.asyncProperty(fc.array(steps, { minLength: 1, maxLength: 10 }), reads, async (lines, setup) => {
          await sameBytes(setup, lines, { sessionUpdate: "session_info_update", title: "t" });
        }),
        { numRuns: numRuns() },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Not vacuous: the member path converted diffs (a fifth of the lines are edited; a re-sent
    // `tool_call`, a title of lone surrogates, a refused item take the full path).
    expect(diffs.taken).toBeGreaterThan(numRuns() / 5);
  });

  it("writes exactly what the full path writes for plans of any entries, and records them alike", async () => {
    const planLines = countMembersTaken('"sessionUpdate":"plan"');
    // A plan of other ids (as an A bridge lays them out): the plans after it clear them (the full path).
    const layout: Step = {
      kind: "update",
      line: line({
        jsonrpc: "2.0",
        method: "session/update",
        params: {
          sessionId: S,
          update: {
            sessionUpdate: "plan",
            entries: [{ content: "a", status: "pending", priority: "high" }],
            _meta: {
              [STASH_KEY]: {
                v: STASH_VERSION,
                from: 2,
                hadMeta: false,
                residual: {
                  plans: [
                    { planId: "main", count: 0 },
                    { planId: "b", count: 1 },
                  ],
                  trigger: "b",
                },
              },
            },
          },
        },
      }),
    };
    const plans = fc.oneof(
      { weight: 8, arbitrary: linesOf(planUpdate, edit, 6).map((l): Step => ({ kind: "update", line: l })) },
      // A message's chunks around a plan: a plan is a boundary (the next chunk opens another message).
      { weight: 3, arbitrary: linesOf(chunk, edit, 6).map((l): Step => ({ kind: "update", line: l })) },
      { weight: 1, arbitrary: fc.constantFrom<Step>({ kind: "resume" }, { kind: "loaded" }, layout) },
      { weight: 2, arbitrary: step },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(plans, { minLength: 1, maxLength: 12 }), settings, async (steps, setup) => {
        // Session info acks the prompt (a plan would be recorded); a layout last clears what was kept.
        await sameBytes(setup, [...steps, layout], { sessionUpdate: "session_info_update", title: "t" });
      }),
      { numRuns: numRuns() },
    );
    // Not vacuous: plans were taken in many runs (a seventh of the lines are edited, a quarter of the setups stash).
    expect(planLines.taken).toBeGreaterThan(numRuns() / 4);
  });

  it("writes exactly what the full path writes for usage snapshots of any costs in a row, and clears a forwarded one once", async () => {
    // The lines the fast path wrote that end with the null clearing a forwarded cost.
    let cleared = 0;
    const written = vi.spyOn(Link.prototype, "writeProven");
    const usages = fc.oneof(
      { weight: 6, arbitrary: linesOf(usageUpdate, edit, 6).map((l): Step => ({ kind: "update", line: l })) },
      { weight: 1, arbitrary: step },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(usages, { minLength: 2, maxLength: 16 }), settings, async (steps, setup) => {
        written.mockClear();
        await sameBytes(setup, steps, { sessionUpdate: "session_info_update", title: "t" });
        for (const [l] of written.mock.calls) if (String(l).endsWith(',"cost":null}}}')) cleared++;
      }),
      // The example clears a cost, whatever the random runs draw.
      { numRuns: numRuns(), examples: [[EVERY_FAST_PATH.slice(3), {}]] },
    );
    // Not vacuous: the fast path cleared a forwarded cost (in the example, and in random runs).
    expect(cleared).toBeGreaterThan(0);
  });

  it("takes an adapter's command list: the full path's bytes, the list a local resume answers with", async () => {
    const commands = vi.spyOn(DirectionB.prototype, "fastCommands");
    const list = [
      { name: "review", description: 'Review "the" code — carefully… ✓ 😀\n', input: null },
      { name: "init", description: "Set up", input: { hint: "path\tto" } },
      { description: "no input", name: "compact" },
    ];
    const l = line({
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId: S, update: { sessionUpdate: "available_commands_update", availableCommands: list } },
    });
    const resume = line({ jsonrpc: "2.0", id: "r", method: "session/resume", params: { sessionId: S, cwd: "/w" } });
    const withFast = await wire(false);
    const full = await wire(true);
    for (const w of [withFast, full]) {
      w.agent(l);
      w.client(resume);
      await tick();
    }
    expect(commands.mock.results.map((r) => r.value)).toEqual([true]);
    expect(withFast.toClient.map(bytes)).toEqual(full.toClient.map(bytes));
    const out = withFast.toClient.map((m) => JSON.parse(String(m)) as Obj);
    const v2List = [
      { type: "command", name: "review", description: list[0]?.description, input: null },
      { type: "command", name: "init", description: "Set up", input: { type: "text", hint: "path\tto" } },
      { type: "command", description: "no input", name: "compact" },
    ];
    expect((out[0]?.params as { update: Obj }).update).toEqual({
      sessionUpdate: "available_commands_update",
      availableCommands: v2List,
    });
    const answer = out.find((m) => m.id === "r") as { result: Obj };
    expect(answer.result.availableCommands).toEqual(v2List);
    expect(wireProblems("v2", out[0] as Obj, () => undefined)).toBeUndefined();
  });

  it("takes the bench's lines itself: chunks with an id as their very bytes, id-less ones spliced", async () => {
    const fast = vi.spyOn(DirectionB.prototype, "fastUpdate");
    const w = await wire(false);
    const update = (u: Obj) => line({ jsonrpc: "2.0", method: "session/update", params: { sessionId: S, update: u } });
    const withId = update({
      sessionUpdate: "agent_message_chunk",
      messageId: "m-0",
      content: { type: "text", text: "chunk 0: the quick brown fox" },
    });
    const idless = update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: 'more "text"\n' } });
    const tool = update({ sessionUpdate: "tool_call_update", toolCallId: "t-0", status: "in_progress", title: "Read" });
    const thought = update({
      sessionUpdate: "agent_thought_chunk",
      messageId: "th-0",
      content: { type: "text", text: "considering" },
    });
    const fresh = update({ sessionUpdate: "agent_message_chunk", content: { text: "after", type: "text" } });
    for (const l of [withId, idless, tool, thought, fresh]) w.agent(l);
    expect(fast.mock.results.map((r) => r.value)).toEqual([true, true, true, true, true]);
    // Forwarded as the very buffers that came in, where the translation is the identity.
    expect(w.toClient[0]).toBe(withId);
    expect(w.toClient[2]).toBe(tool);
    expect(w.toClient[3]).toBe(thought);
    const out = w.toClient.map((l) => JSON.parse(String(l)) as { params: { update: Obj } });
    // An id-less chunk continues the open message; after a tool call a new one gets a generated id.
    expect(out[1]?.params.update).toEqual({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: 'more "text"\n' },
      messageId: "m-0",
    });
    expect(out[4]?.params.update).toEqual({
      sessionUpdate: "agent_message_chunk",
      content: { text: "after", type: "text" },
      messageId: `acpb:${S}:a:1`,
    });
    for (const m of out) expect(wireProblems("v2", m, () => undefined)).toBeUndefined();
  });

  it("leaves to the full path what it cannot prove: the ack, a stash, a bridge, another shape", async () => {
    const fast = vi.spyOn(DirectionB.prototype, "fastUpdate");
    const chunkLine = line({
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId: S, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" } } },
    });
    // A turn waiting for its ack: the update acks it (T §1.4-2a), through the full path.
    const w = await wire(false);
    play(w, []);
    w.toClient.splice(0);
    w.agent(chunkLine);
    w.agent(chunkLine);
    expect(fast.mock.results.map((r) => r.value)).toEqual([false, true]);
    const out = w.toClient.map((l) => JSON.parse(String(l)) as Obj);
    expect(out.map((m) => ("id" in m ? "answer" : (m.params as { update: Obj }).update.sessionUpdate))).toEqual([
      "answer",
      "user_message",
      "state_update",
      "agent_message_chunk",
      "agent_message_chunk",
    ]);
    for (const m of out) expect(wireProblems("v2", m, () => "session/prompt")).toBeUndefined();
    // A client that gets a stash: every update takes the full path.
    fast.mockClear();
    const stashed = await wire(false, { options: { stash: "full" } });
    stashed.agent(chunkLine);
    expect(fast.mock.results.map((r) => r.value)).toEqual([false]);
    expect(String(stashed.toClient[0])).toContain("_meta");
    // A client that is itself a bridge (an A bridge: its marker), even with no stash: the full path.
    fast.mockClear();
    const marker = { bridge: { name: "acp-bridge", version: "0" }, clientProtocol: 1, agentProtocol: 2 };
    const chained = await wire(false, { options: { stash: "off" }, clientMeta: { [STASH_KEY]: marker } });
    chained.agent(chunkLine);
    expect(fast.mock.results.map((r) => r.value)).toEqual([false]);
    expect(chained.toClient).toHaveLength(1);
    // An agent that is an A bridge reports the lifecycle itself (T §5.5): the full path.
    fast.mockClear();
    const behind = await wire(false, { options: { stash: "off" }, agentMeta: { [STASH_KEY]: marker } });
    behind.agent(chunkLine);
    expect(fast.mock.results.map((r) => r.value)).toEqual([false]);
    expect(behind.toClient).toHaveLength(1);
  });

  it("takes the recorded agents' usage and session info as their bytes, a cost's follow-up with the null that clears it, and leaves a non-RFC 3339 time to the full path", async () => {
    const members = vi.spyOn(DirectionB.prototype, "fastMembers");
    const w = await wire(false);
    const full = await wire(true);
    const update = (u: Obj) => line({ jsonrpc: "2.0", method: "session/update", params: { sessionId: S, update: u } });
    const sent = [
      // As Claude's v1 adapter sends them (corpus-v1.ndjson), then a cost, then none again.
      update({ sessionUpdate: "usage_update", used: 150, size: 1_000_000, _meta: { "_claude/model": "m" } }),
      update({ sessionUpdate: "usage_update", used: 160, size: 1_000_000, cost: { amount: 0.01, currency: "USD" } }),
      update({ sessionUpdate: "usage_update", used: 170, size: 1_000_000 }),
      update({ sessionUpdate: "usage_update", used: 180, size: 1_000_000 }),
      // A cost again, then none after a `_meta`: the null still goes last.
      update({ sessionUpdate: "usage_update", used: 190, size: 1_000_000, cost: { amount: 0.02, currency: "USD" } }),
      update({ sessionUpdate: "usage_update", used: 200, size: 1_000_000, _meta: { "_claude/model": "m" } }),
      update({ sessionUpdate: "session_info_update", title: "Tidy notes", updatedAt: "2026-11-28T12:00:00Z" }),
      update({ sessionUpdate: "session_info_update", updatedAt: "2026-11-28 12:00" }),
      update({ sessionUpdate: "session_info_update", _meta: { codex: { threadStatus: "running" } } }),
    ];
    for (const l of sent) {
      w.agent(l);
      full.agent(l);
    }
    expect(members.mock.results.map((r) => r.value)).toEqual([true, true, true, true, true, true, true, false, true]);
    expect(w.toClient.map(bytes)).toEqual(full.toClient.map(bytes));
    const got = w.toClient.map((l) => JSON.parse(String(l)) as { params: { update: Obj } });
    // After a forwarded cost, the next snapshot without one says it is gone (`usageToV2`), once.
    expect(got[2]?.params.update.cost).toBeNull();
    expect(got[3]?.params.update).not.toHaveProperty("cost");
    expect(Object.keys(got[5]?.params.update ?? {})).toEqual(["sessionUpdate", "used", "size", "_meta", "cost"]);
    for (const k of [0, 1, 3, 4, 6, 8]) expect(bytes(w.toClient[k] ?? "")).toBe(bytes(sent[k] ?? ""));
    for (const m of got) expect(wireProblems("v2", m, () => undefined)).toBeUndefined();
  });

  it("takes the recorded agents' tool calls by their members, the tag at any place: the full path's bytes and record", async () => {
    const members = vi.spyOn(DirectionB.prototype, "fastMembers");
    const withFast = await wire(false);
    const full = await wire(true);
    const update = (u: Obj) => line({ jsonrpc: "2.0", method: "session/update", params: { sessionId: S, update: u } });
    const text = (t: string) => [{ type: "content", content: { type: "text", text: t } }];
    const sent = [
      // As Claude's v1 adapter sends them (corpus-v1.ndjson): `_meta`, the id, then the tag.
      update({
        _meta: { claudeCode: { toolName: "Read" } },
        toolCallId: "toolu_read",
        sessionUpdate: "tool_call",
        name: "Read",
        rawInput: {},
        status: "pending",
        title: "Read File",
        kind: "read",
        content: [],
        locations: [],
      }),
      update({
        _meta: { claudeCode: { toolName: "Read" } },
        toolCallId: "toolu_read",
        sessionUpdate: "tool_call_update",
        rawInput: { file_path: "/interop/ws/notes.txt" },
        title: "Read notes.txt",
        locations: [{ path: "/interop/ws/notes.txt", line: 1 }],
      }),
      update({
        _meta: { claudeCode: { toolName: "Read" } },
        toolCallId: "toolu_read",
        sessionUpdate: "tool_call_update",
        status: "completed",
        rawOutput: "1\talpha\n",
        content: text("```\n1\talpha\n```"),
      }),
      // Codex's, the tag first; then one re-sent (v2 clears what it omits: the full path's).
      update({
        sessionUpdate: "tool_call",
        toolCallId: "call_read",
        kind: "read",
        title: "Read",
        status: "in_progress",
      }),
      update({
        sessionUpdate: "tool_call_update",
        toolCallId: "call_read",
        status: "completed",
        content: text("alpha"),
      }),
      update({ sessionUpdate: "tool_call", toolCallId: "call_read", title: "Read again" }),
      // A terminal the convention shows, a relative location: the full path's.
      update({
        _meta: { terminal_info: { terminal_id: "toolu_bash" } },
        toolCallId: "toolu_bash",
        sessionUpdate: "tool_call",
        title: "Terminal",
        content: [{ type: "terminal", terminalId: "toolu_bash" }],
      }),
      // Its command, streamed later: the terminal's command update goes before it.
      update({
        _meta: { claudeCode: { toolName: "Bash" } },
        toolCallId: "toolu_bash",
        sessionUpdate: "tool_call_update",
        rawInput: { command: "ls" },
        title: "ls",
      }),
      update({ sessionUpdate: "tool_call_update", toolCallId: "call_read", locations: [{ path: "notes.txt" }] }),
      // v1's null: unchanged, which v2 says by omitting it.
      update({ sessionUpdate: "tool_call_update", toolCallId: "toolu_read", rawOutput: null }),
      // Text content with more than a text: converted as the full path converts it.
      update({
        sessionUpdate: "tool_call_update",
        toolCallId: "toolu_read",
        content: [{ ...text("x")[0], _meta: {} }],
      }),
      // Diffs as the recorded agents send them (corpus-v1.ndjson): converted, the rest as its bytes.
      update({
        _meta: { claudeCode: { toolName: "Edit" } },
        toolCallId: "toolu_edit",
        sessionUpdate: "tool_call_update",
        rawInput: { file_path: "/interop/ws/notes.txt", old_string: "gamma", new_string: "GAMMA" },
        title: "Edit notes.txt",
        content: [{ type: "diff", path: "/interop/ws/notes.txt", oldText: "gamma", newText: "GAMMA" }],
        locations: [{ path: "/interop/ws/notes.txt" }],
      }),
      update({
        sessionUpdate: "tool_call",
        toolCallId: "call_write",
        kind: "edit",
        title: "Editing files",
        status: "in_progress",
        content: [
          {
            type: "diff",
            oldText: null,
            newText: 'print("hello")\n',
            path: "/interop/ws/hello.py",
            _meta: { kind: "add" },
          },
        ],
      }),
      update({
        sessionUpdate: "tool_call_update",
        toolCallId: "replace__call_edit",
        status: "completed",
        title: "notes.txt: gamma => GAMMA",
        content: [
          {
            type: "diff",
            path: "/interop/ws/notes.txt",
            oldText: "alpha\nbeta\ngamma\n",
            newText: "alpha\nbeta\nGAMMA\n",
            _meta: { kind: "modify" },
          },
        ],
        kind: "edit",
      }),
      // A diff of a relative path (resolved against the cwd), one with a text after it, one the converter refuses.
      update({
        sessionUpdate: "tool_call_update",
        toolCallId: "call_edit",
        content: [{ type: "diff", path: "a.ts", oldText: "a", newText: "b" }, ...text("done")],
      }),
      update({ sessionUpdate: "tool_call_update", toolCallId: "call_edit", content: [{ type: "diff", path: 3 }] }),
    ];
    for (const l of sent) {
      withFast.agent(l);
      full.agent(l);
    }
    // Taken: Claude's three, Codex's two; left: the re-sent, the terminal's command, the rest. The
    // terminal's announcement (terminal content) is not even scanned (`memberDeclines`). Then the
    // text item with a `_meta`, the diffs; not the one the converter refuses.
    const taken = [true, true, true, true, true];
    const left = Array<boolean>(4).fill(false);
    expect(members.mock.results.map((r) => r.value)).toEqual([...taken, ...left, true, true, true, true, true, false]);
    expect(withFast.toClient.map(bytes)).toEqual(full.toClient.map(bytes));
    const got = withFast.toClient.map((l) => JSON.parse(String(l)) as { params: { update: Obj } });
    for (const m of got) expect(wireProblems("v2", m, () => undefined)).toBeUndefined();
    // The tag first, `_meta` last, v1's `tool_call` an upsert.
    expect(Object.keys(got[0]?.params.update ?? {})).toEqual([
      "sessionUpdate",
      "toolCallId",
      "name",
      "rawInput",
      "status",
      "title",
      "kind",
      "content",
      "locations",
      "_meta",
    ]);
    expect(got[0]?.params.update.sessionUpdate).toBe("tool_call_update");
  });

  it("forwards a tag named like an Object member as an unknown variant (no chunk kind)", async () => {
    const w = await wire(true);
    const u = { sessionUpdate: "constructor", content: { type: "text", text: "x" } };
    w.agent(line({ jsonrpc: "2.0", method: "session/update", params: { sessionId: S, update: u } }));
    expect(w.toClient.map((l) => JSON.parse(String(l)) as Obj)).toEqual([
      { jsonrpc: "2.0", method: "session/update", params: { sessionId: S, update: u } },
    ]);
  });
});
