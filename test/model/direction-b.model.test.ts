// Model-based conversations through direction B (T §1.1, §1.4, §1.5, §2, §4 B↓, §9 cases 15-19;
// docs/decisions.md#how-we-know-it-works 3): a scripted v2 client and a random but legal v1 agent talk
// through the in-memory bridge. A reference model of T §1.4 and §2.1, written from the spec, predicts
// every message the bridge writes to either side, in order, for each input; the run then checks
// what the v2 client materialized (tool calls, plans, usage, mode, commands) against the v1 stream.
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  connectB,
  openSessionB,
  V1_MODES,
  v1Update,
  type OrderedHarness,
  type Sent,
} from "../support/conversation-b.js";
import type { StashSetting } from "../../src/convert/stash.js";
import { numRuns } from "../support/properties.js";

type Obj = Record<string, any>;
interface RpcErr {
  code: number;
  message: string;
  data?: unknown;
}
type Kind = "user" | "agent" | "thought";

const RUNS = Math.max(50, Math.floor(numRuns() / 10));
const SESSION_IDS = ["s1", "s2"];
const GRACE_MS = 100;
const EXIT_CODE = 1;

const CHUNK_KIND: Record<string, Kind> = {
  user_message_chunk: "user",
  agent_message_chunk: "agent",
  agent_thought_chunk: "thought",
};
/** D11: v1 variant names a v2 peer must never see. */
const REMOVED_IN_V2 = new Set(["tool_call", "plan", "current_mode_update"]);
/** T §2.4 B↓-1: the fields a re-sent v1 `tool_call` replaces (absent ones become `null`). */
const REPLACED = ["title", "name", "kind", "status", "content", "locations", "rawInput", "rawOutput"];
/** T §4 B↓-2: the permission title derived from the tool kind. */
const KIND_TITLES: Record<string, string> = {
  execute: "Allow command execution?",
  edit: "Allow file edit?",
  delete: "Allow deletion?",
  move: "Allow move/rename?",
  read: "Allow reading files?",
  fetch: "Allow network fetch?",
  search: "Allow search?",
  switch_mode: "Allow mode change?",
};
const CANCELLED_OUTCOME = { outcome: { outcome: "cancelled" } };
const REQUEST_CANCELLED = { code: -32800, message: "Request cancelled" };

const isObj = (x: unknown): x is Obj => typeof x === "object" && x !== null && !Array.isArray(x);
const json = (x: unknown) => JSON.stringify(x);
const text = (t: string): Obj => ({ type: "text", text: t });

/** The value without the bridge's own `_meta["acp-bridge"]` envelopes (peers must not read them). */
function strip(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(strip);
  if (!isObj(x)) return x;
  const out: Obj = {};
  for (const [k, v] of Object.entries(x)) {
    if (k === "_meta" && isObj(v)) {
      const rest = { ...v };
      delete rest["acp-bridge"];
      if (Object.keys(rest).length > 0) out._meta = strip(rest);
      continue;
    }
    out[k] = strip(v);
  }
  return out;
}

/** Key order does not matter in JSON objects. */
function canonical(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(canonical);
  if (!isObj(x)) return x;
  return Object.fromEntries(
    Object.keys(x)
      .sort()
      .map((k) => [k, canonical(x[k])]),
  );
}

const same = (a: unknown, b: unknown) => json(canonical(strip(a))) === json(canonical(strip(b)));

// ---------------------------------------------------------------------------------------- steps

type ClientAnswer = "allow" | "reject" | "cancelled" | "unknown" | "error";
/** How a v1 chunk names its message: omitted, `null`, the agent's current id of that kind, a new one. */
type IdChoice = "none" | "null" | "continue" | "new";

type UpdateSpec =
  | { readonly u: "chunk"; readonly tag: string; readonly id: IdChoice; readonly content: Obj }
  | { readonly u: "echo"; readonly id: IdChoice }
  | { readonly u: "toolCall"; readonly tc: string; readonly fields: Obj }
  | { readonly u: "toolUpdate"; readonly tc: string; readonly fields: Obj }
  | { readonly u: "plan"; readonly entries: Obj[] }
  | { readonly u: "mode"; readonly mode: string }
  | { readonly u: "commands"; readonly names: string[] }
  | { readonly u: "usage"; readonly used: number; readonly cost: "omit" | "null" | number }
  | { readonly u: "info"; readonly title: string | null };

interface PermSpec {
  readonly tc: string;
  readonly fields: Obj;
  readonly kinds: string[];
}

/** What the client does while the second replay runs: nothing, a prompt (held), then maybe withdraws or cancels it. */
type DuringLoad = "none" | "prompt" | "withdraw" | "cancel" | "exit";

type Step =
  | { readonly t: "prompt"; readonly s: number; readonly words: string[] }
  | { readonly t: "cancel"; readonly s: number }
  | { readonly t: "cancelRequest"; readonly pick: number }
  | { readonly t: "answer"; readonly pick: number; readonly how: ClientAnswer }
  | { readonly t: "update"; readonly s: number; readonly u: UpdateSpec }
  | { readonly t: "perm"; readonly s: number; readonly perm: PermSpec }
  | { readonly t: "respond"; readonly s: number; readonly reason: string; readonly meta: boolean }
  | { readonly t: "fail"; readonly s: number; readonly error: RpcErr }
  | { readonly t: "load"; readonly s: number; readonly held: DuringLoad }
  | { readonly t: "time"; readonly ms: number }
  | { readonly t: "close"; readonly s: number };

const session = fc.nat(1);
const pick = fc.nat(7);
/** Prompt words; `[image]` is an image block, `[widget]` a v2 block type v1 cannot express (T §1.4-1). */
const word = fc.constantFrom("fix", "the", "test", "ünï", "日本", "a b", "/plan", "[image]", "[widget]");
const promptBlock = (w: string, i: number, n: number): Obj =>
  w === "[image]" && i > 0
    ? { type: "image", data: "aGk=", mimeType: "image/png" }
    : w === "[widget]" && i > 0
      ? { type: "_widget", payload: { x: 1 } }
      : text(i === 0 ? `${w} #${n}` : w);
const block: fc.Arbitrary<Obj> = fc.oneof(
  { weight: 8, arbitrary: fc.string({ maxLength: 6 }).map(text) },
  { weight: 1, arbitrary: fc.constant({ type: "image", data: "aGk=", mimeType: "image/png" }) },
  { weight: 1, arbitrary: fc.constant({ type: "resource_link", uri: "file:///w/a.ts", name: "a.ts" }) },
);
const idChoice = fc.constantFrom<IdChoice>("none", "none", "none", "null", "continue", "new");
const toolId = fc.constantFrom("t1", "t2", "t3");
const toolKind = fc.constantFrom(
  "read",
  "edit",
  "delete",
  "move",
  "search",
  "execute",
  "think",
  "fetch",
  "switch_mode",
  "other",
);
const toolStatus = fc.constantFrom("pending", "in_progress", "completed", "failed");
const toolItem: fc.Arbitrary<Obj> = fc.oneof(
  { weight: 5, arbitrary: fc.string({ maxLength: 5 }).map((t) => ({ type: "content", content: text(t) })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Obj>(
      { type: "diff", path: "/w/a.ts", oldText: "a\n", newText: "b\n" },
      { type: "diff", path: "/w/new.ts", newText: "hi\n" },
    ),
  },
  { weight: 1, arbitrary: fc.constant({ type: "terminal", terminalId: "term1" }) },
);
const locations = fc.constantFrom<Obj[]>(
  [],
  [{ path: "/w/a.ts", line: 3 }],
  [{ path: "src/b.ts" }],
  [{ path: "/w/c.ts", line: 0 }],
);
const callFields: fc.Arbitrary<Obj> = fc.record(
  {
    title: fc.constantFrom("Run tests", "Edit a.ts", ""),
    name: fc.constantFrom("shell", null),
    kind: toolKind,
    status: toolStatus,
    content: fc.array(toolItem, { maxLength: 3 }),
    locations,
    rawInput: fc.constant({ command: ["make", "test"] }),
    rawOutput: fc.constant({ ok: true }),
  },
  { requiredKeys: ["title"] },
);
const updateFields: fc.Arbitrary<Obj> = fc.record(
  {
    title: fc.constantFrom("Run tests again", "Edit b.ts", "", null),
    name: fc.constantFrom("bash", null),
    kind: fc.oneof(toolKind, fc.constant(null)),
    status: fc.oneof(toolStatus, fc.constant(null)),
    content: fc.oneof(fc.array(toolItem, { maxLength: 3 }), fc.constant(null)),
    locations: fc.oneof(locations, fc.constant(null)),
    rawInput: fc.constantFrom<unknown>({ command: ["ls"] }, null),
    rawOutput: fc.constantFrom<unknown>({ exit: 0 }, null),
  },
  { requiredKeys: [] },
);
const planEntry: fc.Arbitrary<Obj> = fc.record({
  content: fc.constantFrom("write tests", "fix bug", "日本"),
  priority: fc.constantFrom("high", "medium", "low"),
  status: fc.constantFrom("pending", "in_progress", "completed"),
});

const updateSpec: fc.Arbitrary<UpdateSpec> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.record({
      u: fc.constant("chunk" as const),
      tag: fc.constantFrom("agent_message_chunk", "agent_message_chunk", "agent_thought_chunk", "user_message_chunk"),
      id: idChoice,
      content: block,
    }),
  },
  { weight: 3, arbitrary: fc.record({ u: fc.constant("echo" as const), id: idChoice }) },
  { weight: 3, arbitrary: fc.record({ u: fc.constant("toolCall" as const), tc: toolId, fields: callFields }) },
  { weight: 4, arbitrary: fc.record({ u: fc.constant("toolUpdate" as const), tc: toolId, fields: updateFields }) },
  {
    weight: 2,
    arbitrary: fc.record({ u: fc.constant("plan" as const), entries: fc.array(planEntry, { maxLength: 3 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      u: fc.constant("mode" as const),
      mode: fc.constantFrom(...V1_MODES.availableModes.map((m) => m.id)),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      u: fc.constant("commands" as const),
      names: fc.uniqueArray(fc.constantFrom("plan", "test", "review"), { maxLength: 3 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      u: fc.constant("usage" as const),
      used: fc.nat(5000),
      cost: fc.oneof(fc.constantFrom<"omit" | "null">("omit", "null"), fc.constantFrom(0.25, 1.5)),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ u: fc.constant("info" as const), title: fc.constantFrom("Fixing tests", null) }),
  },
);

const permSpec: fc.Arbitrary<PermSpec> = fc.record({
  tc: fc.constantFrom("t1", "t2", "t3", "t9"),
  fields: fc.record(
    {
      title: fc.constantFrom("Run make?", "", null),
      kind: fc.oneof(toolKind, fc.constant(null)),
      status: fc.constantFrom("pending", null),
      rawInput: fc.constant({ command: ["make"] }),
    },
    { requiredKeys: [] },
  ),
  kinds: fc.oneof(
    {
      weight: 12,
      arbitrary: fc.uniqueArray(fc.constantFrom("allow_once", "allow_always", "reject_once", "reject_always"), {
        minLength: 1,
        maxLength: 4,
      }),
    },
    { weight: 1, arbitrary: fc.constant<string[]>([]) },
  ),
});

const stopReason = fc.constantFrom(
  "end_turn",
  "end_turn",
  "end_turn",
  "max_tokens",
  "max_turn_requests",
  "refusal",
  "cancelled",
);
const agentError = fc.constantFrom<RpcErr>(
  { code: -32000, message: "Authentication required" },
  { code: -32603, message: "Internal error", data: { detail: "model crashed" } },
  { code: -32602, message: "Invalid params" },
);

function steps(withTime: boolean): fc.Arbitrary<Step> {
  return fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record({
        t: fc.constant("prompt" as const),
        s: session,
        words: fc.array(word, { minLength: 1, maxLength: 2 }),
      }),
    },
    { weight: 2, arbitrary: fc.record({ t: fc.constant("cancel" as const), s: session }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant("cancelRequest" as const), pick }) },
    {
      weight: 4,
      arbitrary: fc.record({
        t: fc.constant("answer" as const),
        pick,
        how: fc.constantFrom<ClientAnswer>("allow", "allow", "reject", "cancelled", "unknown", "error"),
      }),
    },
    { weight: 14, arbitrary: fc.record({ t: fc.constant("update" as const), s: session, u: updateSpec }) },
    { weight: 3, arbitrary: fc.record({ t: fc.constant("perm" as const), s: session, perm: permSpec }) },
    {
      weight: 5,
      arbitrary: fc.record({ t: fc.constant("respond" as const), s: session, reason: stopReason, meta: fc.boolean() }),
    },
    { weight: 2, arbitrary: fc.record({ t: fc.constant("fail" as const), s: session, error: agentError }) },
    {
      weight: 1,
      arbitrary: fc.record({
        t: fc.constant("load" as const),
        s: session,
        held: fc.constantFrom<DuringLoad>("none", "prompt", "prompt", "withdraw", "cancel", "exit"),
      }),
    },
    {
      weight: withTime ? 3 : 0,
      arbitrary: fc.record({ t: fc.constant("time" as const), ms: fc.constantFrom(10, 60, GRACE_MS, 250) }),
    },
    { weight: 1, arbitrary: fc.record({ t: fc.constant("close" as const), s: session }) },
  );
}

// ---------------------------------------------------------------------------------------- models

/** A v2 `session/prompt` of the client. */
interface PromptRec {
  readonly n: number;
  readonly v2Id: string | number;
  readonly sid: string;
  readonly prompt: Obj[];
  state: "held" | "active" | "done";
  answers: number;
  /** KNOWN BUG B-CLOSE-HELD: held while a close drained the turn, never answered. */
  lost?: boolean;
}

/** A permission request of the v1 agent, and its relayed v2 copy. */
interface AgentPerm {
  readonly id: string | number;
  readonly sid: string;
  readonly options: Obj[];
  answers: number;
  turn: RefTurn | undefined;
  client: ClientPerm | undefined;
}

interface ClientPerm {
  readonly id: unknown;
  readonly agent: AgentPerm;
  answered: boolean;
  /** The bridge sent `$/cancel_request` for it: a late answer must go nowhere. */
  withdrawn: boolean;
}

/** The reference model's turn (T §1.4 `turn`). */
interface RefTurn {
  readonly p: PromptRec;
  acked: boolean;
  withdrawn: boolean;
  cancelRequested: boolean;
  echoOpen: boolean;
  echoCount: number;
  blockers: number;
  readonly startedAt: number;
  /** Timers of equal deadline fire in the order they were set. */
  readonly seq: number;
  userMsgId: string | undefined;
  relayed: AgentPerm[];
}

/** A message of the v2 client (T §2.1): its id is learned from its first chunk. */
interface Group {
  readonly kind: Kind;
  id: string | undefined;
}

/** The reference model's session (T §1.4, §2.1 B↓, §2.4 B↓). */
interface RefSession {
  readonly sid: string;
  turn: RefTurn | undefined;
  queue: PromptRec[];
  loadInFlight: boolean;
  /** The client's `session/close` waiting for the turn to end (H §2.3 emulation, T §1.4-9). */
  closing: string | undefined;
  /** Closed until a successful resume: prompts get -32002, v1 updates are dropped (H §2.3). */
  closed: boolean;
  open: Group | undefined;
  /** `kind|id` of every v2 message id used since the last replay started. */
  used: Set<string>;
  readonly alias: Map<string, string>;
  /** Ids that reached the client through `alias` (KNOWN BUG B-IDS: the counter may re-issue them). */
  aliased: Set<string>;
  readonly seenTools: Set<string>;
  /** The tool calls as a v1 client would hold them (the v1 stream, permission tool calls included). */
  readonly v1Tools: Map<string, Obj>;
  /** KNOWN BUG B-TITLE: tool calls whose last title or kind came from a permission or a re-sent tool_call without a kind. */
  readonly staleTitle: Set<string>;
  /** KNOWN BUG B-WITHDRAWN: states were reported for a withdrawn prompt, the client may stay busy. */
  tainted: boolean;
}

/** What the v2 client materialized for one session. */
interface ClientView {
  state: string;
  readonly tools: Map<string, Obj>;
  readonly plans: Map<string, Obj[]>;
  usage: Obj | undefined;
  configOptions: Obj[];
  commands: Obj[] | undefined;
  title: string | null | undefined;
}

type HistoryItem = { readonly update: Obj } | { readonly marker: { readonly prompt: Obj[]; echoed: boolean } };

/** The v1 agent (legal v1 behaviour: one prompt at a time, `cancelled` after a cancel, no turn end with a permission pending). */
interface AgentSession {
  readonly sid: string;
  current:
    | {
        v1Id: unknown;
        p: PromptRec;
        cancelled: boolean;
        marker: { prompt: Obj[]; echoed: boolean };
        lastId: Partial<Record<Kind, string>>;
      }
    | undefined;
  readonly tools: Set<string>;
  readonly history: HistoryItem[];
  perms: AgentPerm[];
  mode: string;
  ids: number;
  /** The v1 stream's latest plan, usage, commands and title (what a v1 client would show). */
  plan: Obj[] | undefined;
  usage: Obj | undefined;
  commands: Obj[] | undefined;
  title: string | null | undefined;
}

interface Matcher {
  readonly to: "client" | "agent";
  readonly what: string;
  /** `undefined` when `m` is this message, else why not. */
  check(m: Obj): string | undefined;
  /** Learn from the matched message (generated ids). */
  then?(m: Obj): void;
}

/** Engine bugs this model found (each pinned by a "fixed B-…" example below). */
type KnownBug = "ids" | "title" | "echoPlan" | "withdrawnState" | "closeHeld" | "closedReplay";
const KNOWN_BUGS: ReadonlySet<KnownBug> = new Set(
  // All fixed; a bug name in B_LENIENT excuses its check again (for bisecting).
  (["ids", "title", "echoPlan", "withdrawnState", "closeHeld", "closedReplay"] as const).filter((b) =>
    (process.env.B_LENIENT ?? "").split(",").includes(b),
  ),
);

interface WorldConfig {
  readonly sessions: number;
  readonly graceMs: number;
  /** The engine bugs (see the "fixed B-…" examples below) whose checks are left out (B_LENIENT). */
  readonly known: ReadonlySet<KnownBug>;
  /** Neither peer gets bridge data: the stash setting is `auto` (both peers plain) or `off`. */
  readonly noBridgeData?: boolean;
}

/** The one bridge datum a plain v2 client gets: an emulated method's result says so (H §2.3). */
function withoutEmulatedFlag(msg: Obj): Obj {
  const meta = isObj(msg.result) && isObj(msg.result._meta) ? msg.result._meta : undefined;
  const flag = meta?.["acp-bridge"];
  if (!meta || !isObj(flag) || Object.keys(flag).join() !== "emulated") return msg;
  const rest = Object.fromEntries(Object.entries(meta).filter(([k]) => k !== "acp-bridge"));
  return { ...msg, result: { ...msg.result, _meta: rest } };
}

function kindOfTitle(kind: unknown): string {
  return (typeof kind === "string" ? KIND_TITLES[kind] : undefined) ?? "Permission required";
}

const nonEmpty = (s: unknown): string | undefined => (typeof s === "string" && s !== "" ? s : undefined);

/** T §2.5 B↓-2 and §3.2: a v1 tool-call content item as the v2 client gets it (`diff` compared by type). */
function itemToV2(item: Obj): Obj | "diff" {
  if (item.type === "terminal")
    return { type: "content", content: text(`[terminal ${item.terminalId}: output not available]`) };
  if (item.type === "diff") return "diff";
  return item;
}

/** T §3.4 B↓: relative paths resolved against the cwd, `line: 0` → `null`. */
function locationToV2(loc: Obj): Obj {
  const out: Obj = { path: String(loc.path).startsWith("/") ? loc.path : `/w/${loc.path}` };
  if ("line" in loc) out.line = loc.line === 0 ? null : loc.line;
  return out;
}

function sameContent(v1: unknown, v2: unknown): string | undefined {
  const a = Array.isArray(v1) ? v1 : [];
  const b = Array.isArray(v2) ? v2 : [];
  if (a.length !== b.length) return `content ${json(v1)} became ${json(v2)}`;
  for (let i = 0; i < a.length; i++) {
    const want = itemToV2(a[i]);
    const got = b[i];
    if (want === "diff" ? !isObj(got) || got.type !== "diff" : !same(want, got))
      return `content item ${json(a[i])} became ${json(got)}`;
  }
  return undefined;
}

function sameLocations(v1: unknown, v2: unknown): string | undefined {
  const want = (Array.isArray(v1) ? v1 : []).map(locationToV2);
  return same(want, Array.isArray(v2) ? v2 : []) ? undefined : `locations ${json(v1)} became ${json(v2)}`;
}

/** One field of a v1 tool call as v2 must carry it (T §2.4 B↓, §3). */
function sameField(key: string, v1: unknown, v2: unknown): string | undefined {
  if (key === "content") return sameContent(v1, v2);
  if (key === "locations") return sameLocations(v1, v2);
  return same(v1, v2) ? undefined : `${key} ${json(v1)} became ${json(v2)}`;
}

/**
 * T §2.4 B↓-1/2: a v1 tool call → v2 `tool_call_update`. `create`: an unseen id, every field;
 * `replace`: a re-sent `tool_call`, absent fields `null`; `update`: v1 nulls (unchanged) dropped.
 */
function toolCallProblem(src: Obj, out: Obj, mode: "create" | "replace" | "update"): string | undefined {
  if (out.toolCallId !== src.toolCallId) return `toolCallId ${json(out.toolCallId)}`;
  const keys = new Set(Object.keys(out).filter((k) => !["sessionUpdate", "toolCallId", "_meta"].includes(k)));
  for (const [k, v] of Object.entries(src)) {
    if (["sessionUpdate", "toolCallId", "_meta"].includes(k)) continue;
    keys.delete(k);
    if (v === null) {
      if (mode === "update" && k in out) return `v1 ${k}:null (unchanged) was sent as ${json(out[k])}`;
      if (mode !== "update" && out[k] !== undefined && out[k] !== null)
        return `v1 ${k}:null (none) was sent as ${json(out[k])}`;
      if (mode === "replace" && out[k] !== null) return `v1 ${k}:null of a re-sent tool_call was not cleared`;
      continue;
    }
    if (!(k in out)) return `${k} is missing`;
    const p = sameField(k, v, out[k]);
    if (p) return p;
  }
  if (mode === "replace")
    for (const k of REPLACED) {
      if (k in src) continue;
      keys.delete(k);
      if (out[k] !== null) return `${k}, absent from a re-sent tool_call, is ${json(out[k])} (expected null)`;
    }
  if (keys.size > 0) return `unexpected fields ${json([...keys])}`;
  return undefined;
}

function v1Error(e: RpcErr): Obj {
  return e.data === undefined
    ? { code: e.code, message: e.message }
    : { code: e.code, message: e.message, data: e.data };
}

// ---------------------------------------------------------------------------------------- world

class World {
  readonly problems: string[] = [];
  readonly trace: string[] = [];
  readonly seen: Record<string, number> = {};
  readonly prompts: PromptRec[] = [];
  readonly agentPerms: AgentPerm[] = [];
  readonly clientPerms: ClientPerm[] = [];
  /** Message ids of each replay (two rounds per load step must agree). */
  readonly replayIds: string[][] = [];
  private readonly refs: RefSession[];
  private readonly agents: AgentSession[];
  private readonly views: ClientView[];
  /** The client's `session/resume` and `session/close` requests: session and how often each was answered. */
  private readonly requests = new Map<string, { sid: string; method: string; answers: number }>();
  private closeCount = 0;
  private at = 0;
  private now = 0;
  private promptCount = 0;
  private permCount = 0;
  private turnCount = 0;
  private loadCount = 0;
  private exited = false;
  /** The agent permission being injected (links the relayed request to it). */
  private relaying: AgentPerm | undefined;
  /** Ids of the replay being recorded. */
  private replaying: { sid: string; ids: string[] } | undefined;
  private loadRequest: Obj | undefined;
  /** The client's `session/resume` the agent is replaying for. */
  private resumeInFlight: string | undefined;

  constructor(
    readonly h: OrderedHarness,
    readonly cfg: WorldConfig,
    initialConfig: Obj[],
  ) {
    const sids = SESSION_IDS.slice(0, cfg.sessions);
    this.refs = sids.map((sid) => ({
      sid,
      turn: undefined,
      queue: [],
      loadInFlight: false,
      closing: undefined,
      closed: false,
      open: undefined,
      used: new Set(),
      alias: new Map(),
      aliased: new Set(),
      seenTools: new Set(),
      v1Tools: new Map(),
      staleTitle: new Set(),
      tainted: false,
    }));
    this.agents = sids.map((sid) => ({
      sid,
      current: undefined,
      tools: new Set(),
      history: [],
      perms: [],
      mode: V1_MODES.currentModeId,
      ids: 0,
      plan: undefined,
      usage: undefined,
      commands: undefined,
      title: undefined,
    }));
    this.views = sids.map(() => ({
      state: "idle",
      tools: new Map(),
      plans: new Map(),
      usage: undefined,
      configOptions: initialConfig,
      commands: undefined,
      title: undefined,
    }));
  }

  count(what: string): void {
    this.seen[what] = (this.seen[what] ?? 0) + 1;
  }

  private problem(what: string): void {
    this.problems.push(`#${this.at}: ${what}`);
  }

  private index(sid: string): number {
    return SESSION_IDS.indexOf(sid);
  }

  private ref(sid: string): RefSession {
    return this.refs[this.index(sid)]!;
  }

  private agentOf(s: number): AgentSession {
    return this.agents[s % this.agents.length]!;
  }

  private view(sid: string): ClientView {
    return this.views[this.index(sid)]!;
  }

  // ------------------------------------------------------------------ wire

  /** Inject one message and check that the bridge wrote exactly `expected`, in that order, to both sides. */
  private inject(side: "client" | "agent", msg: Obj, expected: Matcher[]): void {
    const at = ++this.at;
    this.trace.push(`#${at} ${side === "client" ? "C→B" : "A→B"} ${json(msg)}`);
    if (side === "client") this.h.client(msg);
    else this.h.agent(msg);
    this.settle(expected, false);
  }

  private settle(expected: Matcher[], unordered: boolean): void {
    const out = this.h.takeOrdered();
    for (const m of out) this.trace.push(`    B→${m.to === "client" ? "C" : "A"} ${json(m.msg)}`);
    if (this.cfg.noBridgeData)
      for (const m of out)
        if (json(withoutEmulatedFlag(m.msg)).includes("acp-bridge")) this.problem(`bridge data for the plain ${m.to}`);
    if (unordered) this.compareUnordered(out, expected);
    else this.compare(out, expected);
    for (const m of out) {
      if (m.to === "client") this.observeClient(m.msg);
      else this.observeAgent(m.msg);
    }
  }

  private compare(out: Sent[], expected: Matcher[]): void {
    let i = 0;
    for (const e of expected) {
      const a = out[i];
      const miss =
        a === undefined ? "nothing more was written" : a.to !== e.to ? `it went to the ${a.to}` : e.check(a.msg);
      if (miss === undefined) {
        e.then?.(a!.msg);
        i++;
        continue;
      }
      this.problem(`expected → ${e.to}: ${e.what}; got ${a ? `→ ${a.to}: ${json(a.msg)}` : "nothing"} (${miss})`);
      return;
    }
    if (i < out.length)
      this.problem(
        `unexpected ${out
          .slice(i)
          .map((m) => `→ ${m.to}: ${json(m.msg)}`)
          .join(" ")}`,
      );
  }

  private compareUnordered(out: Sent[], expected: Matcher[]): void {
    const rest = [...out];
    for (const e of expected) {
      const i = rest.findIndex((a) => a.to === e.to && e.check(a.msg) === undefined);
      if (i < 0) {
        this.problem(`expected → ${e.to}: ${e.what}; not written`);
        continue;
      }
      e.then?.(rest[i]!.msg);
      rest.splice(i, 1);
    }
    if (rest.length > 0) this.problem(`unexpected ${rest.map((m) => `→ ${m.to}: ${json(m.msg)}`).join(" ")}`);
  }

  // ------------------------------------------------------------------ matchers

  private update(
    sid: string,
    tag: string,
    what: string,
    check: (u: Obj, params: Obj) => string | undefined,
    then?: (u: Obj) => void,
  ): Matcher {
    return {
      to: "client",
      what: `${tag} of ${sid} (${what})`,
      check: (m) => {
        if (m.method !== "session/update" || m.params?.sessionId !== sid) return "not a session/update of this session";
        const u = m.params.update;
        if (u?.sessionUpdate !== tag) return `not ${tag}`;
        return check(u, m.params);
      },
      ...(then ? { then: (m: Obj) => then(m.params.update) } : {}),
    };
  }

  private state(sid: string, state: string, extra: Obj = {}): Matcher {
    const want = { sessionUpdate: "state_update", state, ...extra };
    return this.update(sid, "state_update", json(want), (u) => (same(u, want) ? undefined : `expected ${json(want)}`));
  }

  private promptAnswer(
    p: PromptRec,
    what: string,
    check: (m: Obj) => string | undefined,
    then?: (m: Obj) => void,
  ): Matcher {
    return {
      to: "client",
      what: `the answer to prompt ${json(p.v2Id)}: ${what}`,
      check: (m) => (m.method === undefined && json(m.id) === json(p.v2Id) ? check(m) : "not that answer"),
      ...(then ? { then } : {}),
    };
  }

  private promptError(p: PromptRec, error: RpcErr | Obj, label: string): Matcher {
    return this.promptAnswer(
      p,
      `error ${json(error)}`,
      (m) => (m.error && same(m.error, error) ? undefined : "a different answer"),
      () => this.count(label),
    );
  }

  private toAgent(what: string, check: (m: Obj) => string | undefined, then?: (m: Obj) => void): Matcher {
    return { to: "agent", what, check, ...(then ? { then } : {}) };
  }

  private toClient(what: string, check: (m: Obj) => string | undefined, then?: (m: Obj) => void): Matcher {
    return { to: "client", what, check, ...(then ? { then } : {}) };
  }

  private agentAnswer(ap: AgentPerm, want: { result: Obj } | { error: Obj }): Matcher {
    return this.toAgent(`the answer ${json(want)} to permission ${json(ap.id)}`, (m) => {
      if (m.method !== undefined || json(m.id) !== json(ap.id)) return "not that answer";
      if ("result" in want)
        return m.result !== undefined && same(m.result, want.result) ? undefined : "a different answer";
      return m.error !== undefined && same(m.error, want.error) ? undefined : "a different answer";
    });
  }

  // ------------------------------------------------------------------ the reference model (T §1.4, §2.1)

  /** A new message's id must be new since the replay started (ids are unique per kind, T §2.1). */
  private reused(r: RefSession, kind: Kind, id: string): boolean {
    const key = `${kind}|${id}`;
    return r.used.has(key) && !(this.cfg.known.has("ids") && r.aliased.has(key));
  }

  private boundary(r: RefSession): void {
    r.open = undefined;
  }

  /** T §1.4-2: the ack, `user_message`, `running`; `adopt` is the agent's own id of the user message. */
  private ack(r: RefSession, turn: RefTurn, adopt?: string): Matcher[] {
    turn.acked = true;
    turn.echoOpen = true;
    turn.echoCount = 0;
    const p = turn.p;
    return [
      this.promptAnswer(
        p,
        adopt === undefined ? "{messageId: a new user message id}" : `{messageId: ${json(adopt)}}`,
        (m) => {
          const id = m.result?.messageId;
          if (typeof id !== "string") return "no messageId";
          if (adopt !== undefined && id !== adopt) return `messageId is not the agent's own ${json(adopt)}`;
          if (adopt === undefined && this.reused(r, "user", id)) return `messageId ${json(id)} is an earlier message's`;
          return undefined;
        },
        (m) => {
          turn.userMsgId = m.result.messageId;
          r.used.add(`user|${turn.userMsgId}`);
          this.count(adopt === undefined ? "ack" : "ack:adopted");
        },
      ),
      this.update(r.sid, "user_message", "the inserted prompt", (u) =>
        same(u, { sessionUpdate: "user_message", messageId: turn.userMsgId, content: p.prompt })
          ? undefined
          : `expected messageId ${json(turn.userMsgId)} and the prompt`,
      ),
      this.state(r.sid, "running"),
    ];
  }

  private startTurn(r: RefSession, p: PromptRec): Matcher[] {
    this.boundary(r);
    p.state = "active";
    const turn: RefTurn = {
      p,
      acked: false,
      withdrawn: false,
      cancelRequested: false,
      echoOpen: false,
      echoCount: 0,
      blockers: 0,
      startedAt: this.now,
      seq: this.turnCount++,
      userMsgId: undefined,
      relayed: [],
    };
    r.turn = turn;
    const out: Matcher[] = [
      this.toAgent(`session/prompt of ${json(p.v2Id)}`, (m) =>
        m.method === "session/prompt" && m.id !== undefined && same(m.params, { sessionId: p.sid, prompt: p.prompt })
          ? undefined
          : "not that prompt",
      ),
    ];
    if (this.cfg.graceMs <= 0) out.push(...this.ack(r, turn));
    return out;
  }

  private startNext(r: RefSession): Matcher[] {
    if (r.turn || r.loadInFlight || r.closed) return [];
    const next = r.queue.shift();
    return next ? this.startTurn(r, next) : [];
  }

  /** Trigger (a): any v1 message of the session acks the active prompt first. */
  private trigger(r: RefSession, update?: Obj): Matcher[] {
    const turn = r.turn;
    if (!turn || turn.acked || turn.withdrawn) return [];
    const adopt =
      update?.sessionUpdate === "user_message_chunk" && typeof update.messageId === "string"
        ? update.messageId
        : undefined;
    return this.ack(r, turn, adopt);
  }

  private expectUpdate(r: RefSession, update: Obj): Matcher[] {
    const out = this.trigger(r, update);
    const tag = String(update.sessionUpdate);
    const kind = CHUNK_KIND[tag];
    if (kind) {
      out.push(this.expectChunk(r, update, kind));
      return out;
    }
    // T §1.4-3: the first non-user update closes the echo window; read with §2.1-3, metadata updates
    // that are no message boundary (usage, commands, session info, mode) do not.
    switch (tag) {
      case "tool_call":
      case "tool_call_update": {
        this.boundary(r);
        if (r.turn) r.turn.echoOpen = false;
        const id = String(update.toolCallId);
        const mode = tag === "tool_call_update" ? "update" : r.seenTools.has(id) ? "replace" : "create";
        r.seenTools.add(id);
        if (mode === "replace" && !("kind" in update)) r.staleTitle.add(id);
        else if (tag === "tool_call" && typeof update.kind === "string") r.staleTitle.delete(id);
        this.applyV1Tool(r, update, tag === "tool_call");
        out.push(
          this.update(
            r.sid,
            "tool_call_update",
            `${mode} of ${id}`,
            (u) => toolCallProblem(update, u, mode),
            () => this.count(`tool:${mode}`),
          ),
        );
        return out;
      }
      case "plan":
        this.boundary(r);
        if (r.turn && !this.cfg.known.has("echoPlan")) r.turn.echoOpen = false;
        out.push(
          this.update(r.sid, "plan_update", "the plan as planId main", (u) =>
            same(u.plan, { type: "items", planId: "main", entries: update.entries }) &&
            Object.keys(u).every((k) => ["sessionUpdate", "plan", "_meta"].includes(k))
              ? undefined
              : "a different plan",
          ),
        );
        return out;
      case "current_mode_update":
        out.push(
          this.update(r.sid, "config_option_update", `mode ${update.currentModeId}`, (u) => {
            const mode = (Array.isArray(u.configOptions) ? u.configOptions : []).find(
              (o: Obj) => o.category === "mode",
            );
            return mode?.currentValue === update.currentModeId
              ? undefined
              : `the mode option reads ${json(mode?.currentValue)}`;
          }),
        );
        return out;
      case "available_commands_update": {
        const want = (update.availableCommands as Obj[]).map((c) => ({
          type: "command",
          ...c,
          ...(isObj(c.input) ? { input: { type: "text", ...c.input } } : {}),
        }));
        out.push(
          this.update(r.sid, tag, "typed commands", (u) =>
            same(u.availableCommands, want) ? undefined : `expected ${json(want)}`,
          ),
        );
        return out;
      }
      case "usage_update":
        out.push(
          this.update(r.sid, tag, "used, size, cost", (u) => {
            if (u.used !== update.used || u.size !== update.size) return "used/size changed";
            if ("cost" in update && !same(u.cost, update.cost))
              return `cost ${json(update.cost)} became ${json(u.cost)}`;
            return undefined;
          }),
        );
        return out;
      case "session_info_update":
        out.push(this.update(r.sid, tag, "the title", (u) => (same(u, update) ? undefined : "a different update")));
        return out;
    }
    this.problem(`the model has no expectation for ${tag}`);
    return out;
  }

  /** T §1.4-3 echo window, §2.1 B↓ message ids. */
  private expectChunk(r: RefSession, update: Obj, kind: Kind): Matcher {
    const turn = r.turn;
    const tag = String(update.sessionUpdate);
    const v1Id = typeof update.messageId === "string" ? update.messageId : undefined;
    if (turn?.acked && turn.echoOpen && kind === "user") {
      const first = turn.echoCount++ === 0;
      const want = (): Obj => ({
        sessionUpdate: first ? "user_message" : "user_message_chunk",
        messageId: turn.userMsgId,
        content: first ? [update.content] : update.content,
      });
      return this.update(
        r.sid,
        first ? "user_message" : "user_message_chunk",
        "the echo of the inserted prompt",
        (u) => (same(u, want()) ? undefined : `expected ${json(want())}`),
        () => {
          if (v1Id !== undefined && v1Id !== turn.userMsgId) {
            r.alias.set(v1Id, turn.userMsgId!);
            this.count("echo:alias");
          }
          this.count(first ? "echo:first" : "echo:more");
        },
      );
    }
    if (turn) turn.echoOpen = false;
    if (r.open && r.open.kind !== kind) this.boundary(r);
    let group: Group;
    let fresh = false;
    if (v1Id !== undefined) {
      group = { kind, id: r.alias.get(v1Id) ?? v1Id };
      if (r.alias.has(v1Id)) r.aliased.add(`${kind}|${group.id}`);
      r.open = group;
    } else if (r.open?.kind === kind) group = r.open;
    else {
      group = { kind, id: undefined };
      r.open = group;
      fresh = true;
    }
    return this.update(
      r.sid,
      tag,
      fresh ? "a new message id" : `message ${json(group.id)}`,
      (u) => {
        const id = u.messageId;
        if (typeof id !== "string") return "no messageId";
        if (!same(u.content, update.content)) return `content ${json(update.content)} became ${json(u.content)}`;
        if (fresh) return this.reused(r, kind, id) ? `${json(id)} is an earlier ${kind} message's id` : undefined;
        return id === group.id ? undefined : `expected messageId ${json(group.id)}`;
      },
      (u) => {
        group.id = u.messageId;
        r.used.add(`${kind}|${u.messageId}`);
        if (this.replaying?.sid === r.sid) this.replaying.ids.push(u.messageId);
        this.count(fresh ? "chunk:new" : v1Id !== undefined ? "chunk:ownId" : "chunk:same");
      },
    );
  }

  /** The v1 client's view of tool calls: `tool_call` replaces, updates set non-null fields (v1 null = unchanged). */
  private applyV1Tool(r: RefSession, u: Obj, replace: boolean): void {
    const id = String(u.toolCallId);
    const view: Obj = replace ? { toolCallId: id } : (r.v1Tools.get(id) ?? { toolCallId: id });
    for (const [k, v] of Object.entries(u)) if (k !== "sessionUpdate" && v !== null && v !== undefined) view[k] = v;
    r.v1Tools.set(id, view);
  }

  // ------------------------------------------------------------------ observing what the bridge wrote

  private observeClient(m: Obj): void {
    if (m.method === undefined) {
      const p = this.prompts.find((x) => json(x.v2Id) === json(m.id));
      if (p) {
        p.answers++;
        if (p.answers > 1) this.problem(`prompt ${json(p.v2Id)} answered twice: ${json(m)}`);
        return;
      }
      const req = this.requests.get(json(m.id));
      if (req) {
        req.answers++;
        if (m.error && !this.exited) this.problem(`${req.method} failed: ${json(m)}`);
        else if (Array.isArray(m.result?.configOptions)) this.view(req.sid).configOptions = m.result.configOptions;
        return;
      }
      this.problem(`the client got an answer to nothing it asked: ${json(m)}`);
      return;
    }
    if (m.id !== undefined) {
      if (m.method !== "session/request_permission")
        return this.problem(`the client got an unexpected request ${json(m)}`);
      const ap = this.relaying;
      if (!ap) return this.problem(`a permission request the agent did not make: ${json(m)}`);
      const c: ClientPerm = { id: m.id, agent: ap, answered: false, withdrawn: false };
      ap.client = c;
      this.clientPerms.push(c);
      this.applyV2Tool(String(m.params?.sessionId), m.params?.subject?.toolCall);
      return;
    }
    if (m.method === "$/cancel_request") {
      const c = this.clientPerms.find((x) => json(x.id) === json(m.params?.requestId));
      if (!c) this.problem(`$/cancel_request for nothing the client was asked: ${json(m)}`);
      else if (c.answered) this.problem(`$/cancel_request for a request the client already answered: ${json(m)}`);
      else c.withdrawn = true;
      return;
    }
    if (m.method !== "session/update") return this.problem(`the client got an unexpected notification ${json(m)}`);
    const sid = String(m.params?.sessionId);
    const u = m.params?.update as Obj;
    const tag = String(u?.sessionUpdate);
    if (REMOVED_IN_V2.has(tag)) this.problem(`D11: a v1-only '${tag}' update reached the v2 client: ${json(m)}`);
    if (tag.endsWith("_chunk") || ["user_message", "agent_message", "agent_thought"].includes(tag)) {
      if (tag !== "tool_call_content_chunk" && tag !== "compaction_summary_chunk" && typeof u.messageId !== "string")
        this.problem(`a message update without a messageId: ${json(m)}`);
    }
    if (this.index(sid) < 0) return this.problem(`an update of an unknown session: ${json(m)}`);
    const v = this.view(sid);
    switch (tag) {
      case "state_update":
        v.state = String(u.state);
        return;
      case "tool_call_update":
        this.applyV2Tool(sid, u);
        return;
      case "plan_update":
        if (isObj(u.plan)) v.plans.set(String(u.plan.planId), Array.isArray(u.plan.entries) ? u.plan.entries : []);
        return;
      case "usage_update": {
        const next: Obj = { used: u.used, size: u.size };
        const cost = "cost" in u ? u.cost : v.usage?.cost;
        if (cost !== undefined && cost !== null) next.cost = cost;
        v.usage = next;
        return;
      }
      case "config_option_update":
        v.configOptions = Array.isArray(u.configOptions) ? u.configOptions : [];
        return;
      case "available_commands_update":
        v.commands = u.availableCommands;
        return;
      case "session_info_update":
        if ("title" in u) v.title = u.title;
        return;
    }
  }

  /** v2 upsert semantics: omitted = unchanged, `null` = reset, a value replaces. */
  private applyV2Tool(sid: string, u: unknown): void {
    if (!isObj(u) || this.index(sid) < 0) return;
    const tools = this.view(sid).tools;
    const id = String(u.toolCallId);
    const view = tools.get(id) ?? { toolCallId: id };
    for (const [k, val] of Object.entries(u)) {
      if (k === "sessionUpdate" || k === "_meta") continue;
      if (val === null) Reflect.deleteProperty(view, k);
      else view[k] = val;
    }
    tools.set(id, view);
  }

  private observeAgent(m: Obj): void {
    if (m.method === "session/prompt" && m.id !== undefined) {
      const a = this.agents.find((x) => x.sid === m.params?.sessionId);
      const p = this.prompts.find((x) => x.sid === m.params?.sessionId && same(x.prompt, m.params?.prompt));
      if (!a || !p) return this.problem(`the agent got a prompt nobody sent: ${json(m)}`);
      if (a.current)
        return this.problem(
          `v1 allows one prompt at a time: the agent got ${json(p.v2Id)} while ${json(a.current.p.v2Id)} runs`,
        );
      const marker = { prompt: p.prompt, echoed: false };
      a.current = { v1Id: m.id, p, cancelled: false, marker, lastId: {} };
      a.history.push({ marker });
      return;
    }
    if (m.method === "session/load" && m.id !== undefined) {
      this.loadRequest = m;
      return;
    }
    if (m.method === "session/cancel") {
      const a = this.agents.find((x) => x.sid === m.params?.sessionId);
      if (!a) return this.problem(`session/cancel of an unknown session: ${json(m)}`);
      if (a.current) a.current.cancelled = true;
      return;
    }
    if (m.method === undefined) {
      const ap = this.agentPerms.find((x) => json(x.id) === json(m.id));
      if (!ap) return this.problem(`the agent got an answer to nothing it asked: ${json(m)}`);
      ap.answers++;
      if (ap.answers > 1) this.problem(`permission ${json(ap.id)} answered twice: ${json(m)}`);
      const a = this.agents.find((x) => x.sid === ap.sid)!;
      a.perms = a.perms.filter((x) => x !== ap);
      return;
    }
    this.problem(`the agent got an unexpected message ${json(m)}`);
  }

  // ------------------------------------------------------------------ the v2 client

  prompt(s: number, words: string[]): void {
    const r = this.refs[s % this.refs.length]!;
    const n = this.promptCount++;
    const p: PromptRec = {
      n,
      v2Id: n % 2 === 0 ? 10 + n : `q${n}`,
      sid: r.sid,
      prompt: words.map((w, i) => promptBlock(w, i, n)),
      state: "held",
      answers: 0,
    };
    this.prompts.push(p);
    let expected: Matcher[] = [];
    if (r.closed) {
      p.state = "done";
      expected = [
        this.promptAnswer(
          p,
          "-32002",
          (m) => (m.error?.code === -32002 && m.error.data?.sessionId === r.sid ? undefined : "not -32002"),
          () => this.count("answer:closedSession"),
        ),
      ];
    } else if (p.prompt.some((b) => b.type === "_widget")) {
      // Rejected before it is held or forwarded: the user's prompt is never rewritten silently.
      p.state = "done";
      expected = [
        this.promptAnswer(
          p,
          "-32602",
          (m) => (m.error?.code === -32602 && typeof m.error.data?.reason === "string" ? undefined : "not -32602"),
          () => this.count("answer:rejectedPrompt"),
        ),
      ];
    } else if (r.turn || r.loadInFlight) {
      r.queue.push(p);
      this.count("held");
    } else expected = this.startTurn(r, p);
    this.inject(
      "client",
      { jsonrpc: "2.0", id: p.v2Id, method: "session/prompt", params: { sessionId: r.sid, prompt: p.prompt } },
      expected,
    );
  }

  /** T §1.4-7. */
  cancel(s: number): void {
    const r = this.refs[s % this.refs.length]!;
    const expected: Matcher[] = [
      this.toAgent("session/cancel", (m) =>
        m.method === "session/cancel" && same(m.params, { sessionId: r.sid }) ? undefined : "not session/cancel",
      ),
    ];
    for (const p of r.queue.splice(0)) {
      p.state = "done";
      expected.push(this.promptError(p, REQUEST_CANCELLED, "answer:heldCancelled"));
    }
    const turn = r.turn;
    if (turn) {
      turn.cancelRequested = true;
      for (const ap of turn.relayed.splice(0)) {
        expected.push(this.agentAnswer(ap, { result: CANCELLED_OUTCOME }));
        expected.push(
          this.toClient(`$/cancel_request of permission ${json(ap.id)}`, (m) =>
            m.method === "$/cancel_request" && json(m.params?.requestId) === json(ap.client?.id)
              ? undefined
              : "not that $/cancel_request",
          ),
        );
        this.count("perm:cancelledBySession");
      }
    }
    this.inject("client", { jsonrpc: "2.0", method: "session/cancel", params: { sessionId: r.sid } }, expected);
  }

  /** T §1.4-8. */
  cancelRequest(n: number): void {
    const open = this.prompts.filter((p) => p.answers === 0);
    const p = open[n % Math.max(1, open.length)];
    if (!p) return;
    const r = this.ref(p.sid);
    const expected: Matcher[] = [];
    if (p.state === "held" && r.queue.includes(p)) {
      r.queue = r.queue.filter((x) => x !== p);
      p.state = "done";
      expected.push(this.promptError(p, REQUEST_CANCELLED, "answer:heldWithdrawn"));
    } else if (r.turn?.p === p && !r.turn.acked) {
      r.turn.withdrawn = true;
      this.count("withdraw:active");
      expected.push(
        this.toAgent("session/cancel", (m) =>
          m.method === "session/cancel" && same(m.params, { sessionId: r.sid }) ? undefined : "not session/cancel",
        ),
      );
    }
    this.inject("client", { jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: p.v2Id } }, expected);
  }

  /** The client answers a relayed permission (T §1.4-4, §4 B↓-5). */
  answer(n: number, how: ClientAnswer): void {
    const open = this.clientPerms.filter((c) => !c.answered);
    const c = open[n % Math.max(1, open.length)];
    if (!c) return;
    c.answered = true;
    const ap = c.agent;
    const options = ap.options;
    const option = (prefix: string) => options.find((o) => String(o.kind).startsWith(prefix)) ?? options[0]!;
    let msg: Obj;
    let forAgent: { result: Obj } | { error: Obj };
    if (c.withdrawn || how === "cancelled") {
      msg = { jsonrpc: "2.0", id: c.id, result: CANCELLED_OUTCOME };
      forAgent = { result: CANCELLED_OUTCOME };
    } else if (how === "unknown") {
      msg = { jsonrpc: "2.0", id: c.id, result: { outcome: { outcome: "_later", until: "tomorrow" } } };
      forAgent = { result: CANCELLED_OUTCOME };
    } else if (how === "error") {
      const error = { code: -32603, message: "Client failed", data: { why: "dialog crashed" } };
      msg = { jsonrpc: "2.0", id: c.id, error };
      forAgent = ap.turn?.cancelRequested ? { result: CANCELLED_OUTCOME } : { error };
    } else {
      const selected = {
        outcome: { outcome: "selected", optionId: option(how === "allow" ? "allow" : "reject").optionId },
      };
      msg = { jsonrpc: "2.0", id: c.id, result: selected };
      forAgent = { result: selected };
    }
    const expected: Matcher[] = [];
    if (!c.withdrawn && !this.exited) {
      this.count(`perm:${how}`);
      const turn = ap.turn;
      const r = this.ref(ap.sid);
      if (turn && r.turn === turn) {
        turn.relayed = turn.relayed.filter((x) => x !== ap);
        turn.blockers--;
        // `running` again before the answer reaches the agent, never after a cancel.
        if (turn.blockers === 0 && !turn.cancelRequested && (turn.acked || this.cfg.known.has("withdrawnState")))
          expected.push(this.state(r.sid, "running"));
      }
      expected.push(this.agentAnswer(ap, forAgent));
    } else this.count("perm:lateAnswerDropped");
    this.inject("client", msg, expected);
  }

  /** v2 `session/resume` with a replay from the start, twice (T §1.4-10, §2.1 B↓-5, §9 case 19). */
  load(s: number, held: DuringLoad): void {
    const r = this.refs[s % this.refs.length]!;
    const a = this.agents.find((x) => x.sid === r.sid)!;
    if (this.exited || r.turn || r.queue.length > 0 || r.loadInFlight || r.closing !== undefined || a.current) return;
    this.count(r.closed ? "load:closed" : "load");
    // KNOWN BUG B-CLOSED-REPLAY: the first replay of a session closed on this connection is dropped.
    const dropped = r.closed && this.cfg.known.has("closedReplay");
    const rounds: string[][] = [];
    for (let round = 0; round < 2; round++) {
      const id = `resume-${this.loadCount++}`;
      this.requests.set(json(id), { sid: r.sid, method: "session/resume", answers: 0 });
      r.loadInFlight = true;
      this.boundary(r);
      r.used = new Set();
      r.aliased = new Set();
      this.loadRequest = undefined;
      this.inject(
        "client",
        {
          jsonrpc: "2.0",
          id,
          method: "session/resume",
          params: { sessionId: r.sid, cwd: "/w", replayFrom: { type: "start" } },
        },
        [
          this.toAgent("session/load", (m) =>
            m.method === "session/load" && same(m.params, { sessionId: r.sid, cwd: "/w", mcpServers: [] })
              ? undefined
              : "not session/load",
          ),
        ],
      );
      const req = this.loadRequest as Obj | undefined;
      if (!req) return;
      this.replaying = { sid: r.sid, ids: [] };
      const history = this.replayOf(a);
      const during = () => {
        if (held === "none" || round === 0) return;
        this.prompt(this.index(r.sid), ["while loading"]);
        if (held === "withdraw") this.cancelRequest(this.prompts.filter((p) => p.answers === 0).length - 1);
        if (held === "cancel") this.cancel(this.index(r.sid));
        if (held === "exit") this.exit();
      };
      this.resumeInFlight = id;
      for (const [i, u] of history.entries()) {
        if (i === Math.floor(history.length / 2)) during();
        if (this.exited) return;
        this.inject("agent", v1Update(a.sid, u), dropped && round === 0 ? [] : this.expectUpdate(r, u));
      }
      if (history.length === 0) during();
      if (this.exited) return;
      this.resumeInFlight = undefined;
      rounds.push(this.replaying.ids);
      this.replaying = undefined;
      r.loadInFlight = false;
      r.closed = false;
      this.boundary(r);
      const expected: Matcher[] = [
        this.state(r.sid, "idle"),
        this.toClient(`the resume answer ${id}`, (m) =>
          m.method === undefined && m.id === id && isObj(m.result) ? undefined : "not the resume result",
        ),
        ...this.startNext(r),
      ];
      this.inject(
        "agent",
        { jsonrpc: "2.0", id: req.id, result: { modes: { ...V1_MODES, currentModeId: a.mode } } },
        expected,
      );
    }
    if (dropped) return;
    this.replayIds.push(...rounds);
    if (json(rounds[0]) !== json(rounds[1]))
      this.problem(
        `two replays of the same history gave different message ids: ${json(rounds[0])} vs ${json(rounds[1])}`,
      );
  }

  private replayOf(a: AgentSession): Obj[] {
    const out: Obj[] = [];
    for (const item of a.history) {
      if ("update" in item) out.push(item.update);
      else if (!item.marker.echoed)
        for (const b of item.marker.prompt) out.push({ sessionUpdate: "user_message_chunk", content: b });
    }
    return out;
  }

  /** v2 `session/close`, emulated for a v1 agent without close (T §1.4-9, H §2.3). */
  close(s: number): void {
    const r = this.refs[s % this.refs.length]!;
    if (r.closing !== undefined || r.loadInFlight) return;
    const id = `close-${this.closeCount++}`;
    this.requests.set(json(id), { sid: r.sid, method: "session/close", answers: 0 });
    const expected: Matcher[] = [];
    for (const p of r.queue.splice(0)) {
      p.state = "done";
      expected.push(this.promptError(p, REQUEST_CANCELLED, "answer:closeHeld"));
    }
    if (r.turn) {
      r.turn.cancelRequested = true;
      r.closing = id;
      this.count("close:drain");
      expected.push(
        this.toAgent("session/cancel", (m) =>
          m.method === "session/cancel" && same(m.params, { sessionId: r.sid }) ? undefined : "not session/cancel",
        ),
      );
    } else {
      r.closed = true;
      this.count("close");
      expected.push(this.closeAnswer(id));
    }
    this.inject("client", { jsonrpc: "2.0", id, method: "session/close", params: { sessionId: r.sid } }, expected);
  }

  private closeAnswer(id: string): Matcher {
    return this.toClient(`the close answer ${id}`, (m) =>
      m.method === undefined && m.id === id && isObj(m.result) ? undefined : "not the close result",
    );
  }

  time(ms: number): void {
    if (this.cfg.graceMs <= 0) return;
    const at = ++this.at;
    this.trace.push(`#${at} time +${ms}ms`);
    this.now += ms;
    const due = this.refs
      .filter((r) => r.turn && !r.turn.acked && !r.turn.withdrawn && r.turn.startedAt + this.cfg.graceMs <= this.now)
      .sort((x, y) => x.turn!.startedAt - y.turn!.startedAt || x.turn!.seq - y.turn!.seq);
    const expected = due.flatMap((r) => {
      this.count("ack:timer");
      return this.ack(r, r.turn!);
    });
    vi.advanceTimersByTime(ms);
    this.settle(expected, false);
  }

  // ------------------------------------------------------------------ the v1 agent

  agentUpdate(s: number, spec: UpdateSpec): void {
    const a = this.agentOf(s);
    const cur = a.current;
    const r = this.ref(a.sid);
    if (r.closed) return; // the model's agent keeps quiet on a closed session
    const say = (u: Obj) => {
      a.history.push({ update: u });
      this.inject("agent", v1Update(a.sid, u), this.expectUpdate(r, u));
    };
    const messageId = (kind: Kind, choice: IdChoice): Obj => {
      if (choice === "none") return {};
      if (choice === "null") return { messageId: null };
      let id = choice === "continue" ? cur?.lastId[kind] : undefined;
      id ??= `${kind[0]}m-${a.sid}-${a.ids++}`;
      if (cur) cur.lastId[kind] = id;
      return { messageId: id };
    };
    switch (spec.u) {
      case "chunk": {
        if (!cur) return;
        const kind = CHUNK_KIND[spec.tag]!;
        say({ sessionUpdate: spec.tag, content: spec.content, ...messageId(kind, spec.id) });
        return;
      }
      case "echo": {
        if (!cur || cur.marker.echoed) return;
        cur.marker.echoed = true;
        const id = messageId("user", spec.id);
        for (const b of cur.p.prompt) say({ sessionUpdate: "user_message_chunk", content: b, ...id });
        return;
      }
      case "toolCall":
      case "toolUpdate": {
        if (!cur) return;
        cur.lastId = {};
        if (spec.u === "toolUpdate" && a.tools.has(spec.tc))
          say({ sessionUpdate: "tool_call_update", toolCallId: spec.tc, ...spec.fields });
        else {
          const fields =
            spec.u === "toolCall"
              ? spec.fields
              : { ...Object.fromEntries(Object.entries(spec.fields).filter(([, v]) => v !== null)), title: "Run" };
          a.tools.add(spec.tc);
          say({ sessionUpdate: "tool_call", toolCallId: spec.tc, ...fields });
        }
        return;
      }
      case "plan":
        if (!cur) return;
        a.plan = spec.entries;
        say({ sessionUpdate: "plan", entries: spec.entries });
        return;
      case "mode":
        a.mode = spec.mode;
        say({ sessionUpdate: "current_mode_update", currentModeId: spec.mode });
        return;
      case "commands": {
        const commands = spec.names.map((name, i) =>
          i % 2 === 0 ? { name, description: `/${name}` } : { name, description: `/${name}`, input: { hint: "args" } },
        );
        a.commands = commands;
        say({ sessionUpdate: "available_commands_update", availableCommands: commands });
        return;
      }
      case "usage": {
        const u: Obj = { sessionUpdate: "usage_update", used: spec.used, size: 200000 };
        if (spec.cost === "null") u.cost = null;
        else if (spec.cost !== "omit") u.cost = { amount: spec.cost, currency: "USD" };
        a.usage = { used: spec.used, size: 200000, ...(isObj(u.cost) ? { cost: u.cost } : {}) };
        say(u);
        return;
      }
      case "info":
        a.title = spec.title;
        say({ sessionUpdate: "session_info_update", title: spec.title });
        return;
    }
  }

  /** T §1.4-4, §4 B↓. */
  agentPermission(s: number, spec: PermSpec): void {
    const a = this.agentOf(s);
    if (!a.current) return;
    const r = this.ref(a.sid);
    const n = this.permCount++;
    const id = n % 2 === 0 ? 500 + n : `perm-${n}`;
    const toolCall: Obj = { toolCallId: spec.tc, ...spec.fields };
    const options = spec.kinds.map((kind) => ({ optionId: `o-${kind}`, name: kind, kind }));
    const ap: AgentPerm = { id, sid: a.sid, options, answers: 0, turn: undefined, client: undefined };
    this.agentPerms.push(ap);
    const expected = this.trigger(r);
    this.boundary(r);
    a.current.lastId = {};
    if (options.length === 0) {
      this.count("perm:noOptions");
      expected.push(this.agentAnswer(ap, { result: CANCELLED_OUTCOME }));
    } else {
      a.perms.push(ap);
      const before = r.v1Tools.get(spec.tc);
      const title =
        nonEmpty(toolCall.title) ??
        nonEmpty(before?.title) ??
        kindOfTitle(typeof toolCall.kind === "string" ? toolCall.kind : before?.kind);
      if (!r.seenTools.has(spec.tc)) {
        r.seenTools.add(spec.tc);
        this.count("perm:unseenTool");
        expected.push(
          this.update(r.sid, "tool_call_update", `the permission's tool call ${spec.tc} first`, (u) =>
            toolCallProblem(toolCall, u, "update"),
          ),
        );
      }
      this.applyV1Tool(r, toolCall, false);
      const stale = this.cfg.known.has("title") && nonEmpty(toolCall.title) === undefined && r.staleTitle.has(spec.tc);
      if (typeof toolCall.title === "string" || typeof toolCall.kind === "string") r.staleTitle.add(spec.tc);
      const turn = r.turn;
      if (turn && !turn.acked) r.tainted = true;
      if (turn && turn.blockers === 0 && !turn.cancelRequested && (turn.acked || this.cfg.known.has("withdrawnState")))
        expected.push(this.state(r.sid, "requires_action"));
      if (turn) {
        turn.blockers++;
        turn.relayed.push(ap);
        ap.turn = turn;
      }
      expected.push(
        this.toClient(`session/request_permission titled ${json(title)}`, (m) => {
          if (m.method !== "session/request_permission" || m.id === undefined) return "not a permission request";
          const p = m.params;
          if (p?.sessionId !== a.sid) return "another session";
          if (stale ? typeof p.title !== "string" || p.title === "" : p.title !== title)
            return `title ${json(p?.title)}, expected ${json(title)}`;
          if ("description" in p) return "a description was invented";
          if (!same(p.options, options)) return "options changed";
          if (
            p.subject?.type !== "tool_call" ||
            Object.keys(p.subject).some((k) => !["type", "toolCall", "_meta"].includes(k))
          )
            return "subject is not the tool call";
          return toolCallProblem(toolCall, p.subject.toolCall, "update");
        }),
      );
    }
    this.relaying = ap;
    this.inject(
      "agent",
      { jsonrpc: "2.0", id, method: "session/request_permission", params: { sessionId: a.sid, toolCall, options } },
      expected,
    );
    this.relaying = undefined;
  }

  /** The agent ends its turn: T §1.4-5/6, §1.5. */
  agentEnds(s: number, end: { reason: string; meta: boolean } | { error: RpcErr }): void {
    const a = this.agentOf(s);
    const cur = a.current;
    if (!cur || a.perms.length > 0) return;
    const r = this.ref(a.sid);
    const turn = r.turn;
    a.current = undefined;
    let response: Obj;
    if ("error" in end) response = { error: v1Error(end.error) };
    else {
      // A v1 agent MUST answer `cancelled` after a cancel.
      const stopReason = cur.cancelled ? "cancelled" : end.reason;
      response = { result: { stopReason, ...(end.meta ? { _meta: { vendor: "x" } } : {}) } };
    }
    if (!turn || turn.p !== cur.p) {
      this.problem(`the agent ends ${json(cur.p.v2Id)} but the model's turn is ${json(turn?.p.v2Id)}`);
      this.inject("agent", { jsonrpc: "2.0", id: cur.v1Id, ...response }, []);
      return;
    }
    const p = turn.p;
    const expected: Matcher[] = [];
    if (turn.withdrawn && !turn.acked) expected.push(this.promptError(p, REQUEST_CANCELLED, "answer:withdrawn"));
    else if ("error" in response && !turn.acked)
      expected.push(this.promptError(p, response.error, "answer:errorBeforeAck"));
    else {
      if (!turn.acked) expected.push(...this.ack(r, turn));
      this.boundary(r);
      let idle: Obj;
      if ("error" in response)
        idle = turn.cancelRequested ? { stopReason: "cancelled" } : { stopReason: "error", error: response.error };
      else
        idle = {
          stopReason: response.result.stopReason,
          ...(response.result._meta ? { _meta: response.result._meta } : {}),
        };
      expected.push(this.state(r.sid, "idle", idle));
      this.count(`idle:${idle.stopReason}`);
    }
    this.boundary(r);
    p.state = "done";
    r.turn = undefined;
    if (r.closing !== undefined) {
      // The close waited for this turn; prompts sent meanwhile were held and must still be answered.
      expected.push(this.closeAnswer(r.closing));
      this.count("close");
      r.closing = undefined;
      r.closed = true;
      // KNOWN BUG B-CLOSE-HELD: the engine keeps them queued on the closed session, unanswered.
      if (this.cfg.known.has("closeHeld")) for (const held of r.queue) held.lost = true;
      else
        for (const held of r.queue.splice(0)) {
          held.state = "done";
          expected.push(
            this.promptAnswer(
              held,
              "an error (closed)",
              (m) => (m.error ? undefined : "not an error"),
              () => this.count("answer:closeLate"),
            ),
          );
        }
    } else expected.push(...this.startNext(r));
    this.inject("agent", { jsonrpc: "2.0", id: cur.v1Id, ...response }, expected);
  }

  /** T §1.4-11: the agent process exits. */
  exit(): void {
    const at = ++this.at;
    this.trace.push(`#${at} the agent exits (code ${EXIT_CODE})`);
    this.exited = true;
    this.count("exit");
    const error = (m: unknown) =>
      isObj(m) &&
      m.code === -32603 &&
      m.message === "Agent process exited" &&
      isObj(m.data) &&
      m.data.exitCode === EXIT_CODE;
    const expected: Matcher[] = [];
    for (const r of this.refs) {
      for (const p of r.queue.splice(0)) {
        p.state = "done";
        expected.push(
          this.promptAnswer(
            p,
            "the exit error",
            (m) => (error(m.error) ? undefined : "not the exit error"),
            () => this.count("answer:exitHeld"),
          ),
        );
      }
      const turn = r.turn;
      if (!turn) continue;
      if (turn.acked)
        expected.push(
          this.update(r.sid, "state_update", "idle with the exit error", (u) =>
            u.state === "idle" && u.stopReason === "error" && error(u.error) ? undefined : "not the exit idle",
          ),
        );
      else
        expected.push(
          this.promptAnswer(
            turn.p,
            "the exit error",
            (m) => (error(m.error) ? undefined : "not the exit error"),
            () => this.count("answer:exitActive"),
          ),
        );
      turn.p.state = "done";
      r.turn = undefined;
      if (r.closing !== undefined) {
        const id = r.closing;
        expected.push(
          this.toClient(`an answer to ${id}`, (m) => (m.method === undefined && m.id === id ? undefined : "no")),
        );
        r.closing = undefined;
      }
    }
    const resume = this.resumeInFlight;
    if (resume !== undefined)
      expected.push(
        this.toClient(
          `an error for ${resume}`,
          (m) => (m.id === resume && m.error?.code === -32603 ? undefined : "no"),
          () => this.count("exit:duringLoad"),
        ),
      );
    for (const c of this.clientPerms)
      if (!c.answered && !c.withdrawn) {
        this.count("exit:withdrawnPermission");
        expected.push(
          this.toClient(`$/cancel_request of ${json(c.id)}`, (m) =>
            m.method === "$/cancel_request" && json(m.params?.requestId) === json(c.id) ? undefined : "no",
          ),
        );
      }
    this.h.bridge.agentGone({ code: EXIT_CODE, signal: null });
    this.settle(expected, true);
    // The client still answers what it was asked; nothing may reach the gone agent.
    for (const c of this.clientPerms.filter((x) => !x.answered))
      this.answer(this.clientPerms.filter((x) => !x.answered).indexOf(c), "cancelled");
  }

  // ------------------------------------------------------------------ run

  run(steps: readonly Step[], exit: boolean): void {
    try {
      for (const step of steps) if (!this.exited || step.t === "answer") this.step(step);
      if (exit && !this.exited) this.exit();
      else if (!this.exited) this.finish();
      this.checkEnd();
    } catch (e) {
      this.problem(`the model threw: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    }
  }

  step(step: Step): void {
    switch (step.t) {
      case "prompt":
        return this.prompt(step.s, step.words);
      case "cancel":
        return this.cancel(step.s);
      case "cancelRequest":
        return this.cancelRequest(step.pick);
      case "answer":
        return this.answer(step.pick, step.how);
      case "update":
        return this.agentUpdate(step.s, step.u);
      case "perm":
        return this.agentPermission(step.s, step.perm);
      case "respond":
        return this.agentEnds(step.s, { reason: step.reason, meta: step.meta });
      case "fail":
        return this.agentEnds(step.s, { error: step.error });
      case "load":
        return this.load(step.s, step.held);
      case "time":
        return this.time(step.ms);
      case "close":
        return this.close(step.s);
    }
  }

  /** The client answers everything, the agent ends every turn, held prompts run in turn. */
  private finish(): void {
    this.trace.push("-- finale --");
    for (let round = 0; round < 200; round++) {
      let moved = false;
      for (const c of this.clientPerms.filter((x) => !x.answered)) {
        this.answer(this.clientPerms.filter((x) => !x.answered).indexOf(c), "allow");
        moved = true;
      }
      for (const a of this.agents)
        if (a.current && a.perms.length === 0) {
          this.agentEnds(this.agents.indexOf(a), { reason: "end_turn", meta: false });
          moved = true;
        }
      if (this.cfg.graceMs > 0 && this.refs.some((r) => r.turn && !r.turn.acked && !r.turn.withdrawn)) {
        this.time(this.cfg.graceMs);
        moved = true;
      }
      if (!moved) break;
    }
  }

  private checkEnd(): void {
    for (const p of this.prompts)
      if (p.lost ? p.answers > 1 : p.answers !== 1)
        this.problem(`prompt ${json(p.v2Id)} was answered ${p.answers} times`);
    for (const [id, { method, answers }] of this.requests)
      if (answers !== 1) this.problem(`${method} ${id} was answered ${answers} times`);
    for (const ap of this.agentPerms)
      if (this.exited ? ap.answers > 1 : ap.answers !== 1)
        this.problem(`permission ${json(ap.id)} of the agent was answered ${ap.answers} times`);
    for (const c of this.clientPerms)
      if (!c.answered) this.problem(`permission ${json(c.id)} left unanswered by the client model`);
    if (!this.exited) {
      for (const a of this.agents)
        if (a.current) this.problem(`the agent still works on ${json(a.current.p.v2Id)} at the end`);
      if (this.h.bridge.agent.pending.size > 0)
        this.problem(`${this.h.bridge.agent.pending.size} request(s) of the bridge to the agent left unanswered`);
      if (this.h.bridge.client.pending.size > 0)
        this.problem(`${this.h.bridge.client.pending.size} request(s) of the bridge to the client left unanswered`);
    }
    for (const v of this.h.violations) this.problem(`schema: ${v}`);
    for (const [i, v] of this.views.entries()) {
      const sid = SESSION_IDS[i]!;
      const excused = this.cfg.known.has("withdrawnState") && this.ref(sid).tainted;
      if (v.state !== "idle" && !excused)
        this.problem(`session ${sid} ends in state ${json(v.state)} on the v2 client, not idle`);
      if (!this.exited) this.checkMaterialized(sid, v);
    }
  }

  /** What the v2 client shows equals what the v1 stream says (T §2.4, §2.6, §2.7, §2.8, §2.9). */
  private checkMaterialized(sid: string, v: ClientView): void {
    const r = this.ref(sid);
    const a = this.agents.find((x) => x.sid === sid)!;
    for (const [id, t1] of r.v1Tools) {
      const t2 = v.tools.get(id);
      if (!t2) {
        this.problem(`tool call ${sid}/${id} never reached the v2 client`);
        continue;
      }
      this.count("check:tool");
      const p =
        (t1.title !== t2.title ? `title ${json(t1.title)} reads ${json(t2.title)}` : undefined) ??
        (t1.name !== t2.name ? `name ${json(t1.name)} reads ${json(t2.name)}` : undefined) ??
        ((t1.kind ?? "other") !== (t2.kind ?? "other") ? `kind ${json(t1.kind)} reads ${json(t2.kind)}` : undefined) ??
        ((t1.status ?? "pending") !== (t2.status ?? "pending")
          ? `status ${json(t1.status)} reads ${json(t2.status)}`
          : undefined) ??
        (!same(t1.rawInput, t2.rawInput) ? `rawInput ${json(t1.rawInput)} reads ${json(t2.rawInput)}` : undefined) ??
        (!same(t1.rawOutput, t2.rawOutput)
          ? `rawOutput ${json(t1.rawOutput)} reads ${json(t2.rawOutput)}`
          : undefined) ??
        sameContent(t1.content, t2.content) ??
        sameLocations(t1.locations, t2.locations);
      if (p) this.problem(`tool call ${sid}/${id} on the v2 client: ${p}`);
    }
    if (a.plan !== undefined) {
      this.count("check:plan");
      if (!same([...v.plans.keys()], ["main"]) || !same(v.plans.get("main"), a.plan))
        this.problem(`plan of ${sid} reads ${json([...v.plans])}, the agent's is ${json(a.plan)}`);
    }
    if (a.usage !== undefined) {
      this.count("check:usage");
      if (!same(v.usage, a.usage))
        this.problem(`usage of ${sid} reads ${json(v.usage)}, the agent's is ${json(a.usage)}`);
    }
    if (
      a.commands !== undefined &&
      !same(
        v.commands?.map((c) => ({ ...c, type: undefined, input: c.input && { ...c.input, type: undefined } })),
        a.commands,
      )
    )
      this.problem(`commands of ${sid} read ${json(v.commands)}, the agent's are ${json(a.commands)}`);
    if (a.title !== undefined && v.title !== a.title)
      this.problem(`title of ${sid} reads ${json(v.title)}, the agent's is ${json(a.title)}`);
    const mode = v.configOptions.find((o) => o.category === "mode");
    if (mode?.currentValue !== a.mode)
      this.problem(`mode of ${sid} reads ${json(mode?.currentValue)}, the agent's is ${json(a.mode)}`);
  }

  report(): string {
    const trace = this.trace.length > 400 ? ["…", ...this.trace.slice(-400)] : this.trace;
    return `${this.problems.join("\n")}\n--- trace ---\n${trace.join("\n")}`;
  }
}

// ---------------------------------------------------------------------------------------- runs

interface Scenario {
  readonly sessions: number;
  readonly stash?: StashSetting;
  readonly exit: boolean;
  readonly steps: readonly Step[];
}

async function play(scenario: Scenario, graceMs: number, known: ReadonlySet<KnownBug> = KNOWN_BUGS): Promise<World> {
  const stash = scenario.stash ?? "compact";
  const h = await connectB({ ackGraceMs: graceMs, stash });
  let config: Obj[] = [];
  for (const sid of SESSION_IDS.slice(0, scenario.sessions)) config = (await openSessionB(h, sid)).configOptions;
  const noBridgeData = stash === "auto" || stash === "off";
  const w = new World(h, { sessions: scenario.sessions, graceMs, known, noBridgeData }, config);
  w.run(scenario.steps, scenario.exit);
  return w;
}

async function holds(scenario: Scenario, graceMs: number): Promise<void> {
  const w = await play(scenario, graceMs);
  if (w.problems.length > 0) throw new Error(w.report());
}

const scenario = (graceMs: number, maxLength: number): fc.Arbitrary<Scenario> =>
  fc.record({
    sessions: fc.integer({ min: 1, max: 2 }),
    // `auto` (the default) toward plain peers gives no stash: checked on every message.
    stash: fc.constantFrom<StashSetting>("auto", "auto", "compact", "off", "full"),
    exit: fc.constantFrom(false, false, false, true),
    steps: fc.array(steps(graceMs > 0), { minLength: 1, maxLength, size: "max" }),
  });

const fakeTimers = () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
};

describe("direction B conversations, prompts acked at once (T §1.4, §1.5, §2.1, §2.4 B↓, §4 B↓, §9 cases 15-19)", () => {
  fakeTimers();

  it("gives a legal v2 conversation: every prompt answered once, inserted turns framed by user_message, running and one idle with the v1 stop reason, held prompts in order", async () => {
    await fc.assert(
      fc.asyncProperty(scenario(0, 60), (s) => holds(s, 0)),
      { numRuns: RUNS },
    );
  });
});

describe("direction B conversations with an ack grace window (T §1.4-2 triggers, §1.4-6 early errors, §1.4-8 withdrawal)", () => {
  fakeTimers();

  it("acks on the first agent message, the prompt response or the timer, and fails or withdraws a prompt never inserted without any update", async () => {
    await fc.assert(
      fc.asyncProperty(scenario(GRACE_MS, 50), (s) => holds(s, GRACE_MS)),
      { numRuns: RUNS },
    );
  });
});

describe("direction B conversation model: worked examples (T §9 cases 15-19)", () => {
  fakeTimers();

  const one = (steps: Step[], exit = false): Scenario => ({ sessions: 1, exit, steps });
  const say = (u: UpdateSpec): Step => ({ t: "update", s: 0, u });
  const traceOf = (w: World) => w.trace.join("\n");

  it("case 15: a basic turn with id-less chunks split at a tool call, a re-sent tool call with nulls, end_turn", async () => {
    const w = await play(
      one([
        { t: "prompt", s: 0, words: ["Fix the failing test"] },
        say({ u: "chunk", tag: "agent_message_chunk", id: "none", content: text("Running ") }),
        say({ u: "chunk", tag: "agent_message_chunk", id: "none", content: text("the tests.") }),
        say({ u: "toolCall", tc: "t1", fields: { title: "cargo test", kind: "execute", status: "pending" } }),
        say({ u: "toolCall", tc: "t1", fields: { title: "cargo test", status: "in_progress" } }),
        say({ u: "chunk", tag: "agent_thought_chunk", id: "none", content: text("hmm") }),
        say({ u: "chunk", tag: "agent_message_chunk", id: "none", content: text("Done.") }),
        { t: "respond", s: 0, reason: "end_turn", meta: false },
      ]),
      0,
    );
    expect(w.problems).toEqual([]);
    expect(traceOf(w)).toContain('"kind":null,"content":null,"locations":null,"rawInput":null,"rawOutput":null');
    expect(w.seen["chunk:new"]).toBe(3);
    expect(w.seen["chunk:same"]).toBe(1);
    expect(w.seen["idle:end_turn"]).toBe(1);
  });

  it("case 16: an error before the ack fails the prompt, after it gives idle(error), after a cancel idle(cancelled); an exit fails held prompts", async () => {
    const w = await play(
      one(
        [
          { t: "prompt", s: 0, words: ["a"] },
          { t: "fail", s: 0, error: { code: -32000, message: "Authentication required" } },
          { t: "prompt", s: 0, words: ["b"] },
          { t: "time", ms: GRACE_MS },
          { t: "fail", s: 0, error: { code: -32603, message: "Internal error", data: { detail: "model crashed" } } },
          { t: "prompt", s: 0, words: ["c"] },
          say({ u: "chunk", tag: "agent_message_chunk", id: "none", content: text("x") }),
          { t: "cancel", s: 0 },
          { t: "fail", s: 0, error: { code: -32603, message: "Internal error" } },
          { t: "prompt", s: 0, words: ["d"] },
          { t: "prompt", s: 0, words: ["e"] },
          { t: "time", ms: GRACE_MS },
        ],
        true,
      ),
      GRACE_MS,
    );
    expect(w.problems).toEqual([]);
    expect(w.seen["answer:errorBeforeAck"]).toBe(1);
    expect(w.seen["idle:error"]).toBe(1);
    expect(w.seen["idle:cancelled"]).toBe(1);
    expect(w.seen["answer:exitHeld"]).toBe(1);
  });

  it("case 17: a held prompt starts after the idle; $/cancel_request and session/cancel answer held prompts -32800, not later ones", async () => {
    const w = await play(
      one([
        { t: "prompt", s: 0, words: ["first"] },
        { t: "prompt", s: 0, words: ["second"] },
        { t: "prompt", s: 0, words: ["third"] },
        { t: "cancelRequest", pick: 2 },
        { t: "respond", s: 0, reason: "end_turn", meta: false },
        { t: "prompt", s: 0, words: ["fourth"] },
        { t: "cancel", s: 0 },
        { t: "prompt", s: 0, words: ["fifth"] },
        { t: "respond", s: 0, reason: "end_turn", meta: false },
      ]),
      0,
    );
    expect(w.problems).toEqual([]);
    expect(w.seen["answer:heldWithdrawn"]).toBe(1);
    expect(w.seen["answer:heldCancelled"]).toBe(1);
    expect(w.seen["idle:cancelled"]).toBe(1);
    expect(w.prompts.map((p) => p.answers)).toEqual([1, 1, 1, 1, 1]);
  });

  it("case 18: requires_action before the request, running before the answer, none after a cancel; unknown outcomes are cancelled", async () => {
    const w = await play(
      one([
        { t: "prompt", s: 0, words: ["go"] },
        say({ u: "toolCall", tc: "t1", fields: { title: "cargo test", kind: "execute", status: "pending" } }),
        { t: "perm", s: 0, perm: { tc: "t1", fields: {}, kinds: ["allow_once", "reject_once"] } },
        { t: "answer", pick: 0, how: "unknown" },
        { t: "perm", s: 0, perm: { tc: "t2", fields: { kind: "delete" }, kinds: ["allow_once"] } },
        { t: "perm", s: 0, perm: { tc: "t1", fields: {}, kinds: ["allow_once"] } },
        { t: "answer", pick: 0, how: "allow" },
        { t: "cancel", s: 0 },
        { t: "answer", pick: 0, how: "allow" },
        { t: "respond", s: 0, reason: "end_turn", meta: false },
      ]),
      0,
    );
    expect(w.problems).toEqual([]);
    expect(traceOf(w)).toContain('"title":"cargo test"');
    expect(traceOf(w)).toContain('"title":"Allow deletion?"');
    expect(w.seen["perm:cancelledBySession"]).toBe(1);
    expect(w.seen["perm:lateAnswerDropped"]).toBe(1);
    expect(w.seen["idle:cancelled"]).toBe(1);
  });

  it("case 19: two replays of the same history give the same ids; the idle snapshot precedes the answer; a prompt sent during the load is held", async () => {
    const w = await play(
      one([
        { t: "prompt", s: 0, words: ["hi"] },
        say({ u: "echo", id: "new" }),
        say({ u: "chunk", tag: "agent_message_chunk", id: "none", content: text("hel") }),
        say({ u: "chunk", tag: "agent_message_chunk", id: "none", content: text("lo") }),
        say({ u: "toolCall", tc: "t1", fields: { title: "ls" } }),
        say({ u: "chunk", tag: "agent_message_chunk", id: "new", content: text("done") }),
        say({ u: "chunk", tag: "agent_message_chunk", id: "none", content: text("!") }),
        { t: "respond", s: 0, reason: "end_turn", meta: true },
        { t: "prompt", s: 0, words: ["again"] },
        say({ u: "chunk", tag: "agent_thought_chunk", id: "none", content: text("t") }),
        { t: "respond", s: 0, reason: "max_tokens", meta: false },
        { t: "load", s: 0, held: "prompt" },
      ]),
      0,
    );
    expect(w.problems).toEqual([]);
    expect(w.replayIds).toHaveLength(2);
    expect(w.replayIds[0]).toEqual(w.replayIds[1]);
    expect(w.replayIds[0]!.length).toBe(7);
    expect(w.seen.held).toBe(1);
  });

  it("adopts the agent's own id of the echoed prompt when that echo triggers the ack (T §1.4-2)", async () => {
    const w = await play(
      one([
        { t: "prompt", s: 0, words: ["hi", "there"] },
        say({ u: "echo", id: "new" }),
        { t: "respond", s: 0, reason: "end_turn", meta: false },
      ]),
      GRACE_MS,
    );
    expect(w.problems).toEqual([]);
    expect(w.seen["ack:adopted"]).toBe(1);
    expect(w.seen["echo:first"]).toBe(1);
    expect(w.seen["echo:more"]).toBe(1);
  });

  const strict = new Set<KnownBug>();

  // BUG B-IDS (engine, v2-client/updates/messages.ts chunk + convert/message.ts assignChunkId): the echo alias maps the
  // agent's own user-message id to a GENERATED id (acpb:s1:u:1), but the per-kind counter restarts at
  // each replay and does not count ids reached through the alias. Replaying this history gives the
  // echoed first prompt acpb:s1:u:1 (alias) and the second, id-less user message acpb:s1:u:1 again
  // (counter): the v2 client merges two user messages; a live prompt after a replay can reuse such
  // an id too, and its `user_message` then overwrites the replayed one.
  it("fixed B-IDS: gives two user messages of one replay different ids after an echo with the agent's own id (T §2.1 B↓-5)", async () => {
    const w = await play(
      one([
        { t: "prompt", s: 0, words: ["a"] },
        say({ u: "echo", id: "new" }),
        say({ u: "chunk", tag: "agent_message_chunk", id: "none", content: text("ok") }),
        { t: "respond", s: 0, reason: "end_turn", meta: false },
        { t: "prompt", s: 0, words: ["b"] },
        { t: "respond", s: 0, reason: "end_turn", meta: false },
        { t: "load", s: 0, held: "none" },
      ]),
      0,
      strict,
    );
    expect(w.problems).toEqual([]);
  });

  // BUG B-WITHDRAWN (engine, v2-client willBlock / blocking): a prompt withdrawn with
  // $/cancel_request before its ack was never inserted (no running, no idle), yet a permission the
  // v1 agent sends in that window (it raced the session/cancel) is bracketed with requires_action and
  // running; the turn then ends with -32800 and no idle, so the v2 client stays busy forever.
  it("fixed B-WITHDRAWN: reports no state for a prompt withdrawn before its ack (T §1.4-4, §1.4-8)", async () => {
    const w = await play(
      one([
        { t: "prompt", s: 0, words: ["a"] },
        { t: "cancelRequest", pick: 0 },
        { t: "perm", s: 0, perm: { tc: "t1", fields: {}, kinds: ["allow_once"] } },
      ]),
      GRACE_MS,
      strict,
    );
    expect(w.problems).toEqual([]);
  });

  // BUG B-TITLE (engine, v2-client/agent-requests.ts permission): lastTitle/lastKind (T §2.4 B↓, §4 B↓-2) are not
  // updated by a permission's own tool call (which T §4 B↓-1 applies like a tool_call_update) and
  // keep a kind a re-sent tool_call cleared; here the second request is titled "Permission
  // required" although the tool call is a `read` on both sides.
  it("fixed B-TITLE: titles a permission from the tool call's last kind, also one an earlier permission gave (T §4 B↓-2)", async () => {
    const w = await play(
      one([
        { t: "prompt", s: 0, words: ["a"] },
        { t: "perm", s: 0, perm: { tc: "t2", fields: { kind: "read" }, kinds: ["allow_once"] } },
        { t: "perm", s: 0, perm: { tc: "t2", fields: {}, kinds: ["allow_once"] } },
      ]),
      0,
      strict,
    );
    expect(w.problems).toEqual([]);
  });

  // BUG B-ECHO-PLAN (engine, v2-client/updates/): only other-kind chunks and tool calls close the echo
  // window; a `plan` (a message boundary, T §2.1-3) does not, so a user chunk after it overwrites the
  // inserted prompt (`user_message` with the prompt's id) instead of starting a new user message.
  it("fixed B-ECHO-PLAN: closes the echo window at a plan (T §1.4-3)", async () => {
    const w = await play(
      one([{ t: "prompt", s: 0, words: ["a"] }, say({ u: "plan", entries: [] }), say({ u: "echo", id: "none" })]),
      0,
      strict,
    );
    expect(w.problems).toEqual([]);
  });

  // BUG B-CLOSE-HELD (engine, v2-client/emulation.ts close / finishTurn): a prompt the client sends while an
  // emulated session/close waits for the running turn is held; when the turn ends, the close marks
  // the session closed and startNext refuses to start it, and nothing answers it: the v2 prompt hangs
  // (only a later $/cancel_request, session/cancel or agent exit would answer it).
  it("fixed B-CLOSE-HELD: answers a prompt held while session/close drains the turn (T §1.4-9)", async () => {
    const w = await play(
      one([
        { t: "prompt", s: 0, words: ["a"] },
        { t: "close", s: 0 },
        { t: "prompt", s: 0, words: ["b"] },
        { t: "respond", s: 0, reason: "cancelled", meta: false },
      ]),
      0,
      strict,
    );
    expect(w.problems).toEqual([]);
  });

  // BUG B-CLOSED-REPLAY (engine, v2-client/engine.ts agentNotification): after an emulated session/close,
  // session/resume with replayFrom start is answered successfully, but every replayed v1 update is
  // dropped because the session counts as closed until the resume response (H §2.3 read literally):
  // the client asked for the history and gets none.
  it("fixed B-CLOSED-REPLAY: replays the history when a closed session is resumed (T §1.4-10, H §2.3)", async () => {
    const w = await play(
      one([
        { t: "prompt", s: 0, words: ["a"] },
        say({ u: "chunk", tag: "agent_message_chunk", id: "none", content: text("hi") }),
        { t: "respond", s: 0, reason: "end_turn", meta: false },
        { t: "close", s: 0 },
        { t: "load", s: 0, held: "none" },
      ]),
      0,
      strict,
    );
    expect(w.problems).toEqual([]);
  });

  it("exercises every behaviour the model generates (the generator is not vacuous)", async () => {
    const seen: Record<string, number> = {};
    for (const [grace, seed] of [
      [0, 20240611],
      [GRACE_MS, 20240612],
    ] as const) {
      for (const sc of fc.sample(scenario(grace, 60), { numRuns: 100, seed })) {
        const w = await play(sc, grace);
        if (w.problems.length > 0) throw new Error(`${json(sc)}\n${w.report()}`);
        for (const [k, v] of Object.entries(w.seen)) seen[k] = (seen[k] ?? 0) + v;
      }
    }
    for (const what of [
      "ack",
      "ack:adopted",
      "ack:timer",
      "held",
      "answer:heldCancelled",
      "answer:heldWithdrawn",
      "answer:withdrawn",
      "answer:errorBeforeAck",
      "answer:exitHeld",
      "answer:exitActive",
      "idle:end_turn",
      "idle:cancelled",
      "idle:error",
      "idle:refusal",
      "idle:max_tokens",
      "idle:max_turn_requests",
      "echo:first",
      "echo:more",
      "echo:alias",
      "chunk:new",
      "chunk:same",
      "chunk:ownId",
      "tool:create",
      "tool:replace",
      "tool:update",
      "perm:allow",
      "perm:reject",
      "perm:error",
      "perm:unknown",
      "perm:noOptions",
      "perm:unseenTool",
      "perm:cancelledBySession",
      "perm:lateAnswerDropped",
      "exit:withdrawnPermission",
      "exit:duringLoad",
      "answer:rejectedPrompt",
      "answer:closedSession",
      "answer:closeHeld",
      "close",
      "close:drain",
      "load:closed",
      "load",
      "check:tool",
      "check:plan",
      "check:usage",
    ])
      expect(seen[what] ?? 0, what).toBeGreaterThan(0);
  });
});
