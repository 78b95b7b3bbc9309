// Model-based conversations through direction A (T §1.1-1.3, §2, §4, §9 cases 1-14;
// docs/decisions.md#how-we-know-it-works 3): random but legal v2 agent behaviour, driven by a
// scripted v1 client, must give a legal v1 conversation. The expected prompt answers come from the
// agent model's own notion of which foreground work each prompt was inserted into (T §1.2-4 stated
// from the agent's side), never from the engine's code.
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { StashSetting } from "../../src/convert/stash.js";
import { connectA, openSessionA, sessionUpdate } from "../support/conversation.js";
import type { Harness } from "../support/harness.js";
import { numRuns } from "../support/properties.js";
import { rawUpdate, text, toolCallId, toolPatch } from "../support/v2-updates.js";

type Obj = Record<string, any>;
interface RpcErr {
  code: number;
  message: string;
  data?: unknown;
}

const RUNS = Math.max(50, Math.floor(numRuns() / 10));
const SESSION_IDS = ["s1", "s2"];
const SETTLE_MS = 1000;

const V1_STOP_REASONS = new Set(["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]);
/** What a plain v1 client (no notices, compaction or unstable capabilities) may receive. */
const V1_PLAIN_UPDATES = new Set([
  "user_message_chunk",
  "agent_message_chunk",
  "agent_thought_chunk",
  "tool_call",
  "tool_call_update",
  "plan",
  "available_commands_update",
  "current_mode_update",
  "config_option_update",
  "session_info_update",
  "usage_update",
]);
const V1_TOOL_KINDS = new Set([
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
]);
const V1_TOOL_STATUSES = new Set(["pending", "in_progress", "completed", "failed"]);
const V1_PLAN_STATUSES = new Set(["pending", "in_progress", "completed"]);
const V1_PLAN_PRIORITIES = new Set(["high", "medium", "low"]);
const MESSAGE_TAGS: Record<string, { kind: "user" | "agent" | "thought"; whole: boolean }> = {
  user_message_chunk: { kind: "user", whole: false },
  agent_message_chunk: { kind: "agent", whole: false },
  agent_thought_chunk: { kind: "thought", whole: false },
  user_message: { kind: "user", whole: true },
  agent_message: { kind: "agent", whole: true },
  agent_thought: { kind: "thought", whole: true },
};
const V1_CHUNK_KIND: Record<string, string> = {
  user_message_chunk: "user",
  agent_message_chunk: "agent",
  agent_thought_chunk: "thought",
};

// ---------------------------------------------------------------------------------------- steps

type Outcome = "allow" | "reject" | "cancel";
type StateMove = "snapshot" | "bare" | "custom" | "requires_action" | "resume";

interface PermSpec {
  readonly subject: "tool_call" | "command" | "command_tc" | "command_null" | "absent" | "null" | "unknown";
  readonly toolCallId: string;
  readonly patch: Obj;
  readonly kinds: string[];
  readonly block: boolean;
  readonly title: string;
}

type UpsertMode = "extend" | "grow" | "replace" | "null" | "empty" | "meta";

type UpdateSpec =
  | { readonly kind: "raw"; readonly update: Obj }
  | {
      readonly kind: "upsert";
      readonly tag: string;
      readonly id: string;
      readonly mode: UpsertMode;
      readonly text: string;
    };

type Step =
  | { readonly t: "prompt"; readonly s: number; readonly words: string[] }
  | { readonly t: "cancel"; readonly s: number }
  | { readonly t: "cancelRequest"; readonly pick: number }
  | { readonly t: "answer"; readonly pick: number; readonly outcome: Outcome }
  | { readonly t: "work"; readonly s: number }
  | { readonly t: "insert"; readonly s: number; readonly pick: number; readonly order: number }
  | { readonly t: "reject"; readonly s: number; readonly pick: number; readonly error: RpcErr }
  | { readonly t: "deferred"; readonly s: number; readonly pick: number }
  | { readonly t: "state"; readonly s: number; readonly move: StateMove }
  | { readonly t: "end"; readonly s: number; readonly idle: Obj }
  | { readonly t: "perm"; readonly s: number; readonly perm: PermSpec }
  | { readonly t: "withdraw"; readonly pick: number }
  | { readonly t: "update"; readonly s: number; readonly u: UpdateSpec }
  | { readonly t: "time"; readonly ms: number }
  /** A v1 `session/load`; `end`: the running foreground work ends during it (issue 19). */
  | { readonly t: "load"; readonly s: number; readonly end?: Obj | undefined };

const session = fc.nat(1);
const pick = fc.nat(7);
const word = fc.constantFrom("fix", "the", "test", "ünï", "日本", "", "a b");

/** Ends of foreground work (T §1.3 rows): every v1 stop reason, `error` with and without its object, none, unknown. */
const idleBody: fc.Arbitrary<Obj> = fc
  .tuple(
    fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...V1_STOP_REASONS).map((r) => ({ stopReason: r })) },
      {
        weight: 2,
        arbitrary: fc.constantFrom<Obj>(
          { stopReason: "error", error: { code: -32000, message: "Authentication required" } },
          { stopReason: "error", error: { code: -32603, message: "model crashed", data: { detail: "x" } } },
          { stopReason: "error" },
          { stopReason: "error", error: null },
        ),
      },
      { weight: 1, arbitrary: fc.constantFrom<Obj>({}, { stopReason: null }) },
      { weight: 1, arbitrary: fc.constantFrom("_vendor_stop", "future_stop").map((r) => ({ stopReason: r })) },
    ),
    fc.option(
      fc.constantFrom<unknown[]>(
        [],
        [{ type: "tool_call", toolCallId: "t1" }],
        [{ type: "terminal", terminalId: "term1" }],
      ),
      { nil: undefined },
    ),
    fc.option(fc.constant({ trace: "t-1" }), { nil: undefined }),
  )
  .map(([body, background, meta]) => ({
    ...body,
    ...(background !== undefined ? { background } : {}),
    ...(meta !== undefined ? { _meta: meta } : {}),
  }));

/** The error the bridge answers for an agent answer over the size limit (the agent's line is never parsed). */
const OVERSIZE_BYTES = 70_000;
const TOO_LARGE: RpcErr = {
  code: -32603,
  message: "The agent's answer was unreadable: Message too large",
  data: { reason: "message_too_large", bytes: OVERSIZE_BYTES },
};

/** The agent's answers to a prompt it does not insert; TOO_LARGE stands for an answer over the size limit. */
const agentError: fc.Arbitrary<RpcErr> = fc.constantFrom<RpcErr>(
  TOO_LARGE,
  { code: -32602, message: "Invalid params", data: { reason: "bad prompt" } },
  { code: -32000, message: "Authentication required" },
  { code: -32603, message: "Internal error" },
  { code: -32800, message: "Request cancelled" },
);

const upsert: fc.Arbitrary<UpdateSpec> = fc.record({
  kind: fc.constant("upsert" as const),
  tag: fc.constantFrom("agent_message", "agent_thought", "user_message"),
  id: fc.constantFrom("m1", "m2", "f1"),
  mode: fc.constantFrom<UpsertMode>("extend", "extend", "grow", "grow", "replace", "null", "empty", "meta"),
  text: fc.string({ minLength: 1, maxLength: 4 }),
});

const permSpec: fc.Arbitrary<PermSpec> = fc.record({
  subject: fc.constantFrom(
    "tool_call",
    "tool_call",
    "command",
    "command_tc",
    "command_null",
    "absent",
    "null",
    "unknown",
  ),
  toolCallId,
  patch: toolPatch,
  kinds: fc.uniqueArray(fc.constantFrom("allow_once", "allow_always", "reject_once", "reject_always", "_defer"), {
    minLength: 1,
    maxLength: 4,
  }),
  block: fc.boolean(),
  title: fc.constantFrom("Run make?", "Delete build?", "允许?"),
});

/** Steps of a compliant agent and a v1 client (the interpreter skips a step its state cannot take). */
const compliantStep: fc.Arbitrary<Step> = fc.oneof(
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
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant("answer" as const),
      pick,
      outcome: fc.constantFrom<Outcome>("allow", "reject", "cancel"),
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("work" as const), s: session }) },
  { weight: 6, arbitrary: fc.record({ t: fc.constant("insert" as const), s: session, pick, order: fc.nat(15) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("reject" as const), s: session, pick, error: agentError }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant("deferred" as const), s: session, pick }) },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant("state" as const),
      s: session,
      move: fc.constantFrom<StateMove>("snapshot", "bare", "custom", "requires_action", "resume"),
    }),
  },
  { weight: 5, arbitrary: fc.record({ t: fc.constant("end" as const), s: session, idle: idleBody }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("perm" as const), s: session, perm: permSpec }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("withdraw" as const), pick }) },
  {
    weight: 8,
    arbitrary: fc.record({
      t: fc.constant("update" as const),
      s: session,
      u: fc.oneof(
        { weight: 3, arbitrary: rawUpdate.map((update) => ({ kind: "raw" as const, update })) },
        { weight: 1, arbitrary: upsert },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("time" as const), ms: fc.constantFrom(1, 60, 120, 300) }) },
  {
    weight: 2,
    arbitrary: fc.record({ t: fc.constant("load" as const), s: session, end: fc.option(idleBody, { nil: undefined }) }),
  },
);

// ---------------------------------------------------------------------------------------- model

interface PromptRec {
  readonly sid: string;
  readonly v1Id: string | number;
  readonly prompt: Obj[];
  v2Id?: unknown;
  cancelRequested: boolean;
  where: "sending" | "inbox" | "inserted" | "withdrawing" | "rejected" | "bridge";
  messageId?: string;
  ackAt?: number;
  rejection?: { error: RpcErr; at: number };
  /** The idle that ended the foreground work the prompt was inserted into. */
  closing?: { idle: Obj; at: number };
  /** Settle-fallback timers (non-compliant agents): idles after the ack, with their deadlines. */
  timers: { deadline: number; idle: Obj }[];
  answers: number;
}

interface AgentSession {
  readonly sid: string;
  /** The state the agent last reported. */
  state: string;
  lastIdle: Obj | undefined;
  /** Prompts received and held (not inserted, not answered). */
  inbox: PromptRec[];
  /** Prompts inserted into the current foreground work (or, non-compliant agents, since the last idle). */
  segment: PromptRec[] | undefined;
  cancelPending: boolean;
  /** Acks and echoes of inserted prompts, and -32800 answers to withdrawn held prompts, sent later. */
  deferred: { p: PromptRec; what: "ack" | "echo" | "withdrawn" }[];
  messages: number;
}

interface AgentPerm {
  readonly id: string | number;
  readonly sid: string;
  answers: number;
  withdrawn: boolean;
  client?: ClientPerm;
}

interface ClientPerm {
  readonly v1Id: unknown;
  readonly sid: string;
  readonly options: Obj[];
  readonly agent: AgentPerm | undefined;
  answered: boolean;
  mustCancel: boolean;
  withdrawn: boolean;
  answer?: Obj;
}

interface V2Message {
  blocks: Obj[];
  plain: boolean;
  cleared: boolean;
}

interface WorldConfig {
  readonly sessions: number;
  readonly forwardPromptEcho: boolean;
  /** A compliant agent reports running/requires_action; a non-compliant one only ever idles (T §1.2-4 fallback). */
  readonly compliant: boolean;
  /** Neither peer gets bridge data: the stash setting is `auto` (both peers plain) or `off`. */
  readonly noBridgeData?: boolean;
}

const isObj = (x: unknown): x is Obj => typeof x === "object" && x !== null && !Array.isArray(x);
const idKey = (id: unknown) => JSON.stringify(id);
const json = (x: unknown) => JSON.stringify(x);
const isPlainText = (b: unknown) =>
  isObj(b) && b.type === "text" && typeof b.text === "string" && Object.keys(b).length === 2;

function mapToolStatus(s: unknown): string {
  if (s === undefined || s === null) return "pending";
  if (s === "cancelled") return "failed";
  return typeof s === "string" && V1_TOOL_STATUSES.has(s) ? s : "in_progress";
}

function mapToolKind(k: unknown): string {
  return typeof k === "string" && V1_TOOL_KINDS.has(k) ? k : "other";
}

/** The v1 answer T §1.3 gives a prompt whose turn ended with `idle`. */
function answerFromIdle(idle: Obj, cancelRequested: boolean): { result: Obj } | { error: RpcErr } {
  const r = idle.stopReason;
  if (typeof r === "string" && V1_STOP_REASONS.has(r)) return { result: { stopReason: r } };
  if (r === "error") {
    if (cancelRequested) return { result: { stopReason: "cancelled" } };
    const e = idle.error;
    const valid = isObj(e) && Number.isInteger(e.code) && typeof e.message === "string";
    return { error: valid ? (e as RpcErr) : { code: -32603, message: "Agent error" } };
  }
  return { result: { stopReason: cancelRequested ? "cancelled" : "end_turn" } };
}

function withoutBridgeKey(x: unknown): unknown {
  if (!isObj(x)) return x;
  const rest = { ...x };
  delete rest["acp-bridge"];
  return rest;
}

class World {
  readonly problems: string[] = [];
  readonly trace: string[] = [];
  /** What the run exercised (for the generator's sanity, see the coverage test). */
  readonly seen: Record<string, number> = {};
  readonly agents: AgentSession[];
  readonly prompts: PromptRec[] = [];
  readonly clientPerms: ClientPerm[] = [];
  readonly agentPerms = new Map<string, AgentPerm>();
  private at = 0;
  private now = 0;
  private readonly agentQueue: Obj[] = [];
  private sending: PromptRec | undefined;
  private lastAgentPerm: AgentPerm | undefined;
  private promptCount = 0;
  private permCount = 0;
  private withdrawn = 0;
  private readonly echoIds = new Set<string>();
  /** The client's other requests (session/load), by id: how often each was answered. */
  private readonly clientRequests = new Map<string, { method: string; answers: number }>();
  /** The session being reloaded: its replayed history (prompts included) is shown in full. */
  private loading: string | undefined;
  private resumeAsked: Obj | undefined;
  private loadCount = 0;
  private exitAt: number | undefined;
  private readonly v2Messages = new Map<string, V2Message>();
  private readonly v1Messages = new Map<string, { text: string; order: number }>();
  private v1MessageOrder = 0;
  private readonly v2Tools = new Map<string, Obj>();
  private readonly v1Tools = new Map<string, Obj>();
  private readonly v2Plans = new Map<string, Map<string, Obj>>();
  private readonly v1Plans = new Map<string, Obj[]>();

  constructor(
    readonly h: Harness,
    readonly cfg: WorldConfig,
  ) {
    this.agents = SESSION_IDS.slice(0, cfg.sessions).map((sid) => ({
      sid,
      state: "idle",
      lastIdle: undefined,
      inbox: [],
      segment: undefined,
      cancelPending: false,
      deferred: [],
      messages: 0,
    }));
  }

  private count(what: string): void {
    this.seen[what] = (this.seen[what] ?? 0) + 1;
  }

  private problem(what: string): void {
    this.problems.push(`#${this.at}: ${what}`);
  }

  private agentOf(s: number): AgentSession {
    return this.agents[s % this.agents.length]!;
  }

  // ------------------------------------------------------------------ wire

  private inject(side: "client" | "agent", msg: Obj): number {
    const at = ++this.at;
    this.trace.push(`#${at} ${side === "client" ? "C→B" : "A→B"} ${json(msg)}`);
    if (side === "agent" && msg.error === TOO_LARGE) {
      // A line over the size limit: the framing reports only its envelope (issue 19).
      this.count("oversizeAnswer");
      this.h.bridge.oversize("agent", { bytes: OVERSIZE_BYTES, envelope: { kind: "response", id: msg.id } });
    } else if (side === "agent") {
      this.applyV2(msg);
      this.h.agent(msg);
    } else this.h.client(msg);
    this.drain(at);
    return at;
  }

  private drain(at: number): void {
    for (;;) {
      const toClient = this.h.takeClient();
      const toAgent = this.h.takeAgent();
      if (toClient.length === 0 && toAgent.length === 0) break;
      for (const m of toClient) {
        this.trace.push(`    B→C ${json(m)}`);
        this.plain(m, "client");
        this.observeClient(m, at);
      }
      for (const m of toAgent) {
        this.trace.push(`    B→A ${json(m)}`);
        this.plain(m, "agent");
        this.agentReceives(m);
      }
    }
    while (this.agentQueue.length > 0) this.inject("agent", this.agentQueue.shift()!);
  }

  /** A plain peer gets no stash, key order record or channel message: nothing named "acp-bridge". */
  private plain(m: Obj, to: "client" | "agent"): void {
    if (this.cfg.noBridgeData && json(m).includes("acp-bridge")) this.problem(`bridge data for the plain ${to}`);
  }

  /** Fake time passes: flush timers (coalescing, settle fallback) fire. */
  advance(ms: number): void {
    const at = ++this.at;
    this.trace.push(`#${at} time +${ms}ms`);
    const before = this.now;
    this.now += ms;
    this.windows.push({ at, from: before, to: this.now });
    vi.advanceTimersByTime(ms);
    this.drain(at);
  }

  /** Each time step: its index and the model clock before and after it. */
  private readonly windows: { at: number; from: number; to: number }[] = [];

  // ------------------------------------------------------------------ the v1 client

  prompt(s: number, words: string[]): void {
    const a = this.agentOf(s);
    const n = this.promptCount++;
    const v1Id = n % 2 === 0 ? `p${n}` : 100 + n;
    const p: PromptRec = {
      sid: a.sid,
      v1Id,
      prompt: words.map(text),
      cancelRequested: false,
      where: "sending",
      timers: [],
      answers: 0,
    };
    this.prompts.push(p);
    this.sending = p;
    this.inject("client", {
      jsonrpc: "2.0",
      id: v1Id,
      method: "session/prompt",
      params: { sessionId: a.sid, prompt: p.prompt },
    });
    this.sending = undefined;
    if (p.where === "sending") p.where = "bridge";
  }

  /** v1 `session/cancel`: every unanswered prompt of the session is cancel-requested (T §1.2-5). */
  cancel(s: number): void {
    const a = this.agentOf(s);
    for (const p of this.prompts) if (p.sid === a.sid && p.answers === 0) p.cancelRequested = true;
    // v1: the client itself answers its pending permission requests `cancelled`.
    for (const c of this.clientPerms) if (c.sid === a.sid && !c.answered) c.mustCancel = true;
    this.inject("client", { jsonrpc: "2.0", method: "session/cancel", params: { sessionId: a.sid } });
  }

  /** v1 `$/cancel_request` on one unanswered prompt (T §1.2-6). */
  cancelRequest(n: number): void {
    const open = this.prompts.filter((p) => p.answers === 0);
    const p = open[n % Math.max(1, open.length)];
    if (!p) return;
    p.cancelRequested = true;
    this.inject("client", { jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: p.v1Id } });
  }

  answerPermission(n: number, outcome: Outcome): void {
    const open = this.clientPerms.filter((c) => !c.answered);
    const c = open[n % Math.max(1, open.length)];
    if (!c) return;
    let result: Obj;
    if (c.mustCancel || c.withdrawn || outcome === "cancel" || c.options.length === 0)
      result = { outcome: { outcome: "cancelled" } };
    else {
      const prefix = outcome === "allow" ? "allow" : "reject";
      const o = c.options.find((x) => String(x.kind).startsWith(prefix)) ?? c.options[0]!;
      result = { outcome: { outcome: "selected", optionId: o.optionId } };
    }
    c.answered = true;
    c.answer = result;
    this.inject("client", { jsonrpc: "2.0", id: c.v1Id, result });
  }

  private observeClient(m: Obj, at: number): void {
    if (m.method === undefined) {
      const p = this.prompts.find((x) => x.v1Id === m.id);
      const other = this.clientRequests.get(idKey(m.id));
      if (p) this.checkAnswer(p, m, at);
      else if (other) {
        other.answers++;
        if (other.answers > 1 || m.error !== undefined)
          this.problem(`${other.method} ${json(m.id)} answered wrongly: ${json(m)}`);
      } else this.problem(`the client got a response to nothing it asked: ${json(m)}`);
      return;
    }
    if (m.id !== undefined) {
      if (m.method !== "session/request_permission") {
        this.problem(`the client got an unexpected request ${json(m)}`);
        return;
      }
      this.clientPermission(m);
      return;
    }
    if (m.method === "session/update") return this.checkUpdate(m.params);
    if (m.method === "$/cancel_request") {
      const c = this.clientPerms.find((x) => idKey(x.v1Id) === idKey(m.params?.requestId));
      if (!c) this.problem(`$/cancel_request for a request the client never got: ${json(m)}`);
      else if (c.answered) this.problem(`$/cancel_request for a request the client already answered: ${json(m)}`);
      else c.withdrawn = true;
      return;
    }
    this.problem(`the client got an unexpected notification ${json(m)}`);
  }

  private checkAnswer(p: PromptRec, m: Obj, at: number): void {
    p.answers++;
    const label = `prompt ${json(p.v1Id)}`;
    if (p.answers > 1) return this.problem(`${label} answered twice: ${json(m)}`);
    let expected: { result: Obj } | { error: RpcErr };
    let expectedAt: number | undefined;
    if (this.exitAt !== undefined && at === this.exitAt) {
      // T §1.2-9: every pending prompt fails visibly when the agent is gone.
      expectedAt = this.exitAt;
      this.count("answer:exit");
      expected = { error: { code: -32603, message: "Agent connection closed" } };
      if (m.error?.data?.reason !== "agent_exited")
        this.problem(`${label}: the exit error has no reason agent_exited: ${json(m)}`);
    } else if (p.where === "rejected" && p.rejection) {
      expectedAt = p.rejection.at;
      expected =
        p.cancelRequested && p.rejection.error.code === -32800
          ? { result: { stopReason: "cancelled" } }
          : { error: p.rejection.error };
    } else if (!this.cfg.compliant) {
      // T §1.2-4 settle fallback: the earliest timer started by an idle after the ack fires.
      const fired = [...p.timers].sort((x, y) => x.deadline - y.deadline)[0];
      if (!fired || fired.deadline > this.now)
        return this.problem(`${label} answered before any settle timer of it fired: ${json(m)}`);
      expectedAt = this.windows.find((w) => w.from < fired.deadline && fired.deadline <= w.to)?.at;
      expected = answerFromIdle(fired.idle, p.cancelRequested);
    } else if (p.closing && p.ackAt !== undefined) {
      expectedAt = Math.max(p.closing.at, p.ackAt);
      expected = answerFromIdle(p.closing.idle, p.cancelRequested);
    } else {
      return this.problem(`${label} answered before the turn it was inserted into ended: ${json(m)}`);
    }
    this.count(
      p.where === "rejected"
        ? "answer:rejected"
        : `answer:${"result" in expected ? String(expected.result.stopReason) : "error"}`,
    );
    if (at !== expectedAt) this.problem(`${label} answered at #${at}, expected at #${expectedAt}: ${json(m)}`);
    if ("result" in expected) {
      if (m.result?.stopReason !== expected.result.stopReason)
        this.problem(`${label}: expected ${json(expected)}, got ${json(m)}`);
    } else {
      const e = m.error as Obj | undefined;
      const sameData =
        p.where === "rejected"
          ? json(e?.data) === json(expected.error.data)
          : expected.error.data === undefined || json(withoutBridgeKey(e?.data)) === json(expected.error.data);
      if (!e || e.code !== expected.error.code || e.message !== expected.error.message || !sameData)
        this.problem(`${label}: expected ${json(expected)}, got ${json(m)}`);
    }
  }

  private clientPermission(m: Obj): void {
    const sid = String(m.params?.sessionId);
    const tc = m.params?.toolCall;
    const id = tc?.toolCallId;
    if (!this.v1Tools.has(`${sid}|${id}`))
      this.problem(`permission request for a tool call never announced: ${json(m)}`);
    else this.applyV1Patch(sid, tc);
    this.noTerminalItems(tc?.content, m);
    const agent = this.lastAgentPerm;
    const c: ClientPerm = {
      v1Id: m.id,
      sid,
      options: Array.isArray(m.params?.options) ? m.params.options : [],
      agent,
      answered: false,
      mustCancel: false,
      withdrawn: false,
    };
    if (agent) agent.client = c;
    else this.problem(`a permission request the agent did not ask: ${json(m)}`);
    this.clientPerms.push(c);
  }

  private noTerminalItems(content: unknown, m: Obj): void {
    if (Array.isArray(content) && content.some((i) => isObj(i) && i.type === "terminal"))
      this.problem(`a v1 terminal content item reached the client: ${json(m)}`);
  }

  private applyV1Patch(sid: string, u: Obj): void {
    const view = this.v1Tools.get(`${sid}|${u.toolCallId}`)!;
    for (const [k, v] of Object.entries(u)) if (k !== "sessionUpdate" && v !== null && v !== undefined) view[k] = v;
  }

  private checkUpdate(params: Obj): void {
    const sid = String(params.sessionId);
    const u = params.update as Obj;
    const tag = String(u.sessionUpdate);
    const m = { params };
    this.count(`v1:${tag}`);
    if (!V1_PLAIN_UPDATES.has(tag)) return this.problem(`the v1 client got a '${tag}' update: ${json(params)}`);
    if (tag === "tool_call") {
      this.v1Tools.set(`${sid}|${u.toolCallId}`, { ...u });
      this.noTerminalItems(u.content, m);
      return;
    }
    if (tag === "tool_call_update") {
      if (!this.v1Tools.has(`${sid}|${u.toolCallId}`))
        return this.problem(`tool_call_update before any tool_call: ${json(params)}`);
      this.applyV1Patch(sid, u);
      this.noTerminalItems(u.content, m);
      return;
    }
    if (tag === "plan") {
      this.v1Plans.set(sid, Array.isArray(u.entries) ? u.entries : []);
      return;
    }
    const kind = V1_CHUNK_KIND[tag];
    if (kind === undefined) return;
    const id = String(u.messageId ?? "");
    if (kind === "user" && this.loading === sid) this.count("v1:replayedUser");
    else if (kind === "user" && !this.cfg.forwardPromptEcho) {
      for (const echo of this.echoIds)
        if (echo.startsWith(`${sid}|`) && [id, id.split("#")[0], id.split("~")[0]].includes(echo.slice(sid.length + 1)))
          this.problem(`the echo of the client's own prompt was forwarded: ${json(params)}`);
    }
    const key = `${sid}|${kind}|${id}`;
    let msg = this.v1Messages.get(key);
    if (!msg) this.v1Messages.set(key, (msg = { text: "", order: this.v1MessageOrder++ }));
    if (isObj(u.content) && u.content.type === "text") msg.text += String(u.content.text);
  }

  // ------------------------------------------------------------------ the v2 agent

  private agentReceives(m: Obj): void {
    if (m.method === "session/prompt" && m.id !== undefined) {
      const p = this.sending;
      if (!p || p.where !== "sending" || p.sid !== m.params?.sessionId)
        return this.problem(`the agent got a prompt nobody sent: ${json(m)}`);
      if (json(m.params.prompt) !== json(p.prompt)) this.problem(`the prompt was not forwarded unchanged: ${json(m)}`);
      p.v2Id = m.id;
      p.where = "inbox";
      this.agents.find((a) => a.sid === p.sid)!.inbox.push(p);
      return;
    }
    if (m.method === "session/resume" && m.id !== undefined) {
      if (this.loading !== m.params?.sessionId || m.params?.replayFrom?.type !== "start")
        this.problem(`unexpected session/resume ${json(m)}`);
      this.resumeAsked = m;
      return;
    }
    if (m.method === "session/cancel") {
      const a = this.agents.find((x) => x.sid === m.params?.sessionId);
      if (!a) return this.problem(`session/cancel for an unknown session: ${json(m)}`);
      // D10: held prompts are answered -32800 (now or a little later); the foreground work ends `cancelled`.
      for (const p of a.inbox) this.withdrawHeld(a, p);
      a.inbox = [];
      if (a.state !== "idle" || (!this.cfg.compliant && a.segment !== undefined)) a.cancelPending = true;
      return;
    }
    if (m.method === "$/cancel_request") {
      const target = m.params?.requestId;
      for (const a of this.agents) {
        const p = a.inbox.find((x) => x.v2Id === target);
        if (p) {
          a.inbox = a.inbox.filter((x) => x !== p);
          this.withdrawHeld(a, p);
        }
      }
      return;
    }
    if (m.method === undefined) {
      const ap = this.agentPerms.get(idKey(m.id));
      if (!ap) return this.problem(`the agent got a response to nothing it asked: ${json(m)}`);
      ap.answers++;
      if (ap.answers > 1) return this.problem(`permission ${json(ap.id)} answered twice: ${json(m)}`);
      const c = ap.client;
      if (!c?.answer) return this.problem(`permission ${json(ap.id)} answered without the client's answer: ${json(m)}`);
      if (json(m.result?.outcome) !== json(c.answer.outcome))
        this.problem(`permission ${json(ap.id)}: the client chose ${json(c.answer)}, the agent got ${json(m)}`);
      return;
    }
    this.problem(`the agent got an unexpected message ${json(m)}`);
  }

  private withdrawHeld(a: AgentSession, p: PromptRec): void {
    p.where = "withdrawing";
    if (this.withdrawn++ % 2 === 0) this.rejectPrompt(p, { code: -32800, message: "Request cancelled" });
    else a.deferred.push({ p, what: "withdrawn" });
  }

  private rejectPrompt(p: PromptRec, error: RpcErr): void {
    p.where = "rejected";
    // The response goes out after the message being handled: its index is the next one.
    this.agentQueue.push({ jsonrpc: "2.0", id: p.v2Id, error });
    p.rejection = { error, at: this.at + this.agentQueue.length };
  }

  private say(a: AgentSession, update: Obj): number {
    return this.inject("agent", sessionUpdate(a.sid, update));
  }

  private setState(a: AgentSession, state: string): void {
    a.state = state;
    this.say(a, { sessionUpdate: "state_update", state });
  }

  private ack(p: PromptRec): void {
    // Set first: replaying the log at the ack may answer the prompt while the ack is handled.
    p.ackAt = this.at + 1;
    this.inject("agent", { jsonrpc: "2.0", id: p.v2Id, result: { messageId: p.messageId } });
  }

  private echo(a: AgentSession, p: PromptRec): void {
    if (p.prompt.length > 1 && a.messages % 2 === 0) {
      for (const block of p.prompt)
        this.say(a, { sessionUpdate: "user_message_chunk", messageId: p.messageId, content: block });
    } else this.say(a, { sessionUpdate: "user_message", messageId: p.messageId, content: p.prompt });
  }

  /** The agent work starts (agent-initiated, or a pre-insertion hook). */
  work(s: number): void {
    const a = this.agentOf(s);
    if (!this.cfg.compliant || a.state !== "idle") return;
    a.segment = [];
    this.setState(a, "running");
  }

  /**
   * Insert a held prompt. When idle, insertion starts foreground work: `running` comes before, between
   * or after the ack and the echo (or after a snapshot idle); when busy, the prompt joins the work.
   * An ack or echo may be deferred (T §9 case 4 variant: the ack after the final idle).
   */
  insert(s: number, n: number, order: number): void {
    const a = this.agentOf(s);
    const p = a.inbox[n % Math.max(1, a.inbox.length)];
    if (!p) return;
    a.inbox = a.inbox.filter((x) => x !== p);
    p.where = "inserted";
    p.messageId = `u${a.messages++}-${a.sid}`;
    this.echoIds.add(`${a.sid}|${p.messageId}`);
    const idle = a.state === "idle";
    a.segment ??= [];
    a.segment.push(p);
    type Move = "run" | "ack" | "echo" | "snap" | "deferAck" | "deferEcho";
    const idleOrders: Move[][] = [
      ["run", "ack", "echo"],
      ["run", "echo", "ack"],
      ["ack", "echo", "run"],
      ["echo", "ack", "run"],
      ["ack", "run", "echo"],
      ["echo", "run", "ack"],
      ["ack", "snap", "echo", "run"],
      ["echo", "run", "deferAck"],
      ["ack", "run", "deferEcho"],
      ["echo", "snap", "run", "deferAck"],
    ];
    const busyOrders: Move[][] = [
      ["ack", "echo"],
      ["echo", "ack"],
      ["echo", "deferAck"],
      ["ack", "deferEcho"],
    ];
    let moves: Move[];
    if (!this.cfg.compliant) moves = order % 2 === 0 ? ["ack", "echo"] : ["echo", "ack"];
    else if (idle) moves = idleOrders[order % idleOrders.length]!;
    else moves = busyOrders[order % busyOrders.length]!;
    for (const move of moves) {
      if (move === "run") this.setState(a, "running");
      else if (move === "ack") this.ack(p);
      else if (move === "echo") this.echo(a, p);
      else if (move === "snap") this.say(a, { sessionUpdate: "state_update", state: "idle", ...(a.lastIdle ?? {}) });
      else if (move === "deferAck") a.deferred.push({ p, what: "ack" });
      else a.deferred.push({ p, what: "echo" });
    }
  }

  /** The agent refuses a held prompt without inserting it. */
  reject(s: number, n: number, error: RpcErr): void {
    const a = this.agentOf(s);
    const p = a.inbox[n % Math.max(1, a.inbox.length)];
    if (!p) return;
    a.inbox = a.inbox.filter((x) => x !== p);
    this.rejectPrompt(p, error);
    this.drain(this.at);
  }

  deliverDeferred(s: number, n: number): void {
    const a = this.agentOf(s);
    const d = a.deferred[n % Math.max(1, a.deferred.length)];
    if (!d) return;
    a.deferred = a.deferred.filter((x) => x !== d);
    if (d.what === "ack") this.ack(d.p);
    else if (d.what === "echo") this.echo(a, d.p);
    else {
      this.rejectPrompt(d.p, { code: -32800, message: "Request cancelled" });
      this.drain(this.at);
    }
  }

  moveState(s: number, move: StateMove): void {
    const a = this.agentOf(s);
    if (!this.cfg.compliant) {
      if (move === "bare" || move === "snapshot") this.say(a, { sessionUpdate: "state_update", state: "idle" });
      return;
    }
    switch (move) {
      case "snapshot":
        // Repeated snapshots are idempotent; an idle one may repeat the last stop reason.
        this.say(a, {
          sessionUpdate: "state_update",
          state: a.state,
          ...(a.state === "idle" ? (a.lastIdle ?? {}) : {}),
        });
        return;
      case "bare":
        this.say(a, { sessionUpdate: "state_update", state: a.state });
        return;
      case "custom":
        if (a.state !== "idle") this.setState(a, "_paused");
        return;
      case "requires_action":
        if (a.state !== "idle") this.setState(a, "requires_action");
        return;
      case "resume":
        if (a.state === "requires_action" || a.state === "_paused") this.setState(a, "running");
        return;
    }
  }

  /** The foreground work ends: every prompt inserted into it is completed by this idle. */
  end(s: number, body: Obj): void {
    const a = this.agentOf(s);
    if (this.cfg.compliant ? a.state === "idle" : a.segment === undefined) return;
    const idle = a.cancelPending ? { stopReason: "cancelled" } : body;
    a.state = "idle";
    a.lastIdle = idle;
    a.cancelPending = false;
    const segment = a.segment ?? [];
    a.segment = undefined;
    const at = this.at + 1;
    for (const p of segment) p.closing = { idle, at };
    if (!this.cfg.compliant) this.startSettleTimers(a.sid, idle);
    this.say(a, { sessionUpdate: "state_update", state: "idle", ...idle });
  }

  /** T §1.2-4 fallback, read literally: each idle with a stop reason after a prompt's ack starts a timer. */
  private startSettleTimers(sid: string, idle: Obj): void {
    if (idle.stopReason === undefined || idle.stopReason === null) return;
    for (const p of this.prompts)
      if (p.sid === sid && p.answers === 0 && p.ackAt !== undefined && p.where === "inserted")
        p.timers.push({ deadline: this.now + SETTLE_MS, idle });
  }

  permission(s: number, spec: PermSpec): void {
    const a = this.agentOf(s);
    const n = this.permCount++;
    const id = n % 2 === 0 ? 900 + n : `perm-${n}`;
    let subject: unknown;
    switch (spec.subject) {
      case "tool_call":
        subject = { type: "tool_call", toolCall: { ...spec.patch, toolCallId: spec.toolCallId } };
        break;
      case "command":
        subject = { type: "command", command: "make test", cwd: "/w" };
        break;
      case "command_tc":
        subject = { type: "command", command: "make test", cwd: "/w", toolCallId: spec.toolCallId };
        break;
      case "command_null":
        subject = { type: "command", command: "rm -rf build", cwd: "/w/sub dir", toolCallId: null, terminalId: null };
        break;
      case "null":
        subject = null;
        break;
      case "unknown":
        subject = { type: "_x_subject", what: "network" };
        break;
      case "absent":
        subject = undefined;
    }
    const params: Obj = {
      sessionId: a.sid,
      title: spec.title,
      options: spec.kinds.map((kind) => ({ optionId: `o-${kind}`, name: kind, kind })),
      ...(subject !== undefined ? { subject } : {}),
    };
    const ap: AgentPerm = { id, sid: a.sid, answers: 0, withdrawn: false };
    this.agentPerms.set(idKey(id), ap);
    this.lastAgentPerm = ap;
    this.inject("agent", { jsonrpc: "2.0", id, method: "session/request_permission", params });
    this.lastAgentPerm = undefined;
    if (spec.block && this.cfg.compliant && a.state !== "idle") this.setState(a, "requires_action");
  }

  /** The agent withdraws one of its permission requests (D10). */
  withdraw(n: number): void {
    const open = [...this.agentPerms.values()].filter((p) => p.answers === 0 && !p.withdrawn);
    const ap = open[n % Math.max(1, open.length)];
    if (!ap) return;
    ap.withdrawn = true;
    this.inject("agent", { jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: ap.id } });
  }

  update(s: number, u: UpdateSpec): void {
    const a = this.agentOf(s);
    if (u.kind === "raw") {
      this.say(a, u.update);
      return;
    }
    const current = this.v2Messages.get(`${a.sid}|${MESSAGE_TAGS[u.tag]!.kind}|${u.id}`);
    const blocks = current?.blocks ?? [];
    const body: Obj = { sessionUpdate: u.tag, messageId: u.id };
    switch (u.mode) {
      case "extend":
        body.content = [...blocks, text(u.text)];
        break;
      case "grow": {
        const last = blocks[blocks.length - 1];
        body.content = isPlainText(last)
          ? [...blocks.slice(0, -1), text(String(last!.text) + u.text)]
          : [...blocks, text(u.text)];
        break;
      }
      case "replace":
        body.content = [text(`${u.text}!`)];
        break;
      case "null":
        body.content = null;
        break;
      case "empty":
        body.content = [];
        break;
      case "meta":
        body._meta = { rev: u.text };
    }
    this.say(a, body);
  }

  /** What the agent sent, materialized the v2 way (omit = unchanged, null = reset, arrays replace). */
  private applyV2(msg: Obj): void {
    if (msg.method === "session/request_permission") {
      const subject = msg.params?.subject;
      if (isObj(subject) && subject.type === "tool_call" && isObj(subject.toolCall))
        this.applyV2Tool(String(msg.params.sessionId), subject.toolCall);
      return;
    }
    if (msg.method !== "session/update") return;
    const sid = String(msg.params.sessionId);
    const u = msg.params.update as Obj;
    const tag = String(u.sessionUpdate);
    const message = MESSAGE_TAGS[tag];
    if (message) {
      const id = String(u.messageId);
      // Suppressed echoes are not part of what the v1 client reads (T §2.2 A↓-1).
      if (message.kind === "user" && this.echoIds.has(`${sid}|${id}`) && !this.cfg.forwardPromptEcho) return;
      const key = `${sid}|${message.kind}|${id}`;
      let m = this.v2Messages.get(key);
      if (!m) this.v2Messages.set(key, (m = { blocks: [], plain: true, cleared: false }));
      if (!message.whole) {
        m.blocks.push(u.content);
        m.plain &&= isPlainText(u.content);
      } else if (u.content === null || (Array.isArray(u.content) && u.content.length === 0)) {
        if (m.blocks.length > 0) m.cleared = true;
        m.blocks = [];
      } else if (Array.isArray(u.content)) {
        m.blocks = [...u.content];
        m.plain &&= u.content.every(isPlainText);
      }
      return;
    }
    if (tag === "tool_call_update") this.applyV2Tool(sid, u);
    else if (tag === "tool_call_content_chunk") {
      const view = this.v2ToolView(sid, String(u.toolCallId));
      view.content = [...(Array.isArray(view.content) ? view.content : []), u.content];
    } else if (tag === "plan_update" && isObj(u.plan)) {
      let plans = this.v2Plans.get(sid);
      if (!plans) this.v2Plans.set(sid, (plans = new Map()));
      plans.set(String(u.plan.planId), u.plan);
    }
  }

  private v2ToolView(sid: string, id: string): Obj {
    let view = this.v2Tools.get(`${sid}|${id}`);
    if (!view) this.v2Tools.set(`${sid}|${id}`, (view = { toolCallId: id }));
    return view;
  }

  private applyV2Tool(sid: string, patch: Obj): void {
    const view = this.v2ToolView(sid, String(patch.toolCallId));
    for (const [k, v] of Object.entries(patch)) {
      if (k === "sessionUpdate") continue;
      if (v === null) Reflect.deleteProperty(view, k);
      else view[k] = v;
    }
  }

  /**
   * v1 `session/load` (T §9 case 3): the agent replays its history, prompts included, then sends
   * the state snapshot before answering; the snapshot completes nothing. A load may come while a
   * turn runs (every prompt of the session inserted and acked, no permission open); that turn may
   * end during it (`end`, issue 19): its prompts end with that idle, as they would without the load.
   */
  load(s: number, end?: Obj): void {
    const a = this.agentOf(s);
    const open = this.prompts.filter((p) => p.sid === a.sid && p.answers === 0);
    const settled = open.every((p) => p.where === "inserted" && p.ackAt !== undefined && p.closing === undefined);
    const asking = this.clientPerms.some((c) => c.sid === a.sid && !c.answered);
    if (!this.cfg.compliant || !settled || asking || a.inbox.length > 0 || a.deferred.length > 0) return;
    if (open.length > 0 && a.state === "idle") return;
    for (const key of [...this.v1Messages.keys()]) if (key.startsWith(`${a.sid}|`)) this.v1Messages.delete(key);
    const id = `load-${this.loadCount++}`;
    this.clientRequests.set(idKey(id), { method: "session/load", answers: 0 });
    this.loading = a.sid;
    this.count("load");
    this.inject("client", {
      jsonrpc: "2.0",
      id,
      method: "session/load",
      params: { sessionId: a.sid, cwd: "/w", mcpServers: [] },
    });
    const req = this.resumeAsked;
    this.resumeAsked = undefined;
    if (!req) {
      this.loading = undefined;
      return this.problem("session/load did not reach the agent as session/resume");
    }
    for (const p of this.prompts)
      if (p.sid === a.sid && p.messageId !== undefined)
        this.say(a, { sessionUpdate: "user_message", messageId: p.messageId, content: p.prompt });
    for (const [key, m] of [...this.v2Messages]) {
      const [sid, kind, messageId] = key.split("|") as [string, string, string];
      if (sid !== a.sid) continue;
      this.say(a, {
        sessionUpdate: kind === "thought" ? "agent_thought" : `${kind}_message`,
        messageId,
        content: m.blocks,
      });
    }
    // Replay re-upserts tool calls and plans too (T §7.1: plans reset, tool calls kept).
    for (const [key, view] of [...this.v2Tools])
      if (key.startsWith(`${a.sid}|`)) this.say(a, { ...view, sessionUpdate: "tool_call_update" });
    for (const plan of [...(this.v2Plans.get(a.sid)?.values() ?? [])])
      this.say(a, { sessionUpdate: "plan_update", plan });
    if (a.state !== "idle") {
      this.count("load:busy");
      if (end !== undefined) {
        this.count("load:endedDuring");
        this.end(s, end);
      }
    }
    this.say(a, { sessionUpdate: "state_update", state: a.state, ...(a.state === "idle" ? (a.lastIdle ?? {}) : {}) });
    this.inject("agent", { jsonrpc: "2.0", id: req.id, result: {} });
    this.loading = undefined;
  }

  /** The agent process ends with work outstanding (T §1.2-9). */
  exit(): void {
    const at = ++this.at;
    this.trace.push(`#${at} the agent exits (code 3)`);
    this.exitAt = at;
    this.count("exit");
    this.h.bridge.agentGone({ code: 3, signal: null });
    this.drain(at);
    // The v1 client still answers what it was asked; nothing reaches the gone agent.
    for (const c of this.clientPerms)
      if (!c.answered) {
        if (!c.withdrawn) this.problem(`permission ${json(c.v1Id)} was not withdrawn when the agent exited`);
        this.count("exit:withdrawnPermission");
        c.answered = true;
        this.inject("client", { jsonrpc: "2.0", id: c.v1Id, result: { outcome: { outcome: "cancelled" } } });
      }
    this.advance(5000);
  }

  // ------------------------------------------------------------------ run

  async run(steps: readonly Step[], exit = false): Promise<void> {
    for (const step of steps) {
      this.step(step);
      await Promise.resolve();
      this.drain(this.at);
    }
    if (exit) this.exit();
    else await this.finish();
    this.checkEnd(exit);
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
        return this.answerPermission(step.pick, step.outcome);
      case "work":
        return this.work(step.s);
      case "insert":
        return this.insert(step.s, step.pick, step.order);
      case "reject":
        return this.reject(step.s, step.pick, step.error);
      case "deferred":
        return this.deliverDeferred(step.s, step.pick);
      case "state":
        return this.moveState(step.s, step.move);
      case "end":
        return this.end(step.s, step.idle);
      case "perm":
        return this.permission(step.s, step.perm);
      case "withdraw":
        return this.withdraw(step.pick);
      case "update":
        return this.update(step.s, step.u);
      case "time":
        return this.advance(step.ms);
      case "load":
        return this.load(step.s, step.end);
    }
  }

  /** The client answers everything, the agent acks, inserts and ends every turn; time runs out. */
  private async finish(): Promise<void> {
    this.trace.push("-- finale --");
    for (let round = 0; round < 50; round++) {
      let moved = false;
      for (const c of this.clientPerms.filter((x) => !x.answered)) {
        this.answerPermission(this.clientPerms.filter((x) => !x.answered).indexOf(c), "allow");
        moved = true;
      }
      for (const a of this.agents) {
        while (a.deferred.length > 0) {
          this.deliverDeferred(this.agents.indexOf(a), 0);
          moved = true;
        }
        if (this.cfg.compliant ? a.state !== "idle" : a.segment !== undefined) {
          this.end(this.agents.indexOf(a), { stopReason: "end_turn" });
          moved = true;
        } else if (a.inbox.length > 0) {
          this.insert(this.agents.indexOf(a), 0, 2);
          moved = true;
        }
      }
      if (!this.cfg.compliant) this.advance(SETTLE_MS + 1);
      await Promise.resolve();
      this.drain(this.at);
      if (!moved) break;
    }
    this.advance(5000);
  }

  private checkEnd(exited: boolean): void {
    for (const p of this.prompts) {
      if (p.answers !== 1) this.problem(`prompt ${json(p.v1Id)} was answered ${p.answers} times`);
      if (!exited && p.v2Id !== undefined && p.where !== "rejected" && p.ackAt === undefined)
        this.problem(`prompt ${json(p.v1Id)}: the agent never acked it`);
    }
    for (const [id, r] of this.clientRequests)
      if (r.answers !== 1) this.problem(`${r.method} ${id} was answered ${r.answers} times`);
    for (const ap of this.agentPerms.values())
      if (exited ? ap.answers > 1 : ap.answers !== 1)
        this.problem(`permission ${json(ap.id)} of the agent was answered ${ap.answers} times`);
    if (exited) {
      for (const v of this.h.violations) this.problem(`schema: ${v}`);
      return;
    }
    for (const c of this.clientPerms)
      if (!c.answered) this.problem(`permission ${json(c.v1Id)} left unanswered by the client model`);
    for (const v of this.h.violations) this.problem(`schema: ${v}`);
    this.checkToolCalls();
    this.checkMessages();
    this.checkPlans();
  }

  /** Every tool call the agent reported is known to the v1 client with the mapped status and kind (T §2.4, §3.4). */
  private checkToolCalls(): void {
    for (const [key, v2] of this.v2Tools) {
      const v1 = this.v1Tools.get(key);
      if (!v1) {
        this.problem(`tool call ${key} was never announced to the v1 client`);
        continue;
      }
      this.count("check:toolCall");
      const status = v1.status ?? "pending";
      if (status !== mapToolStatus(v2.status))
        this.problem(
          `tool call ${key}: v2 status ${json(v2.status ?? null)} shows as ${json(status)} on v1 (expected ${mapToolStatus(v2.status)})`,
        );
      const kind = v1.kind ?? "other";
      if (kind !== mapToolKind(v2.kind))
        this.problem(`tool call ${key}: v2 kind ${json(v2.kind ?? null)} shows as ${json(kind)} on v1`);
      if (typeof v2.title === "string" && v1.title !== v2.title)
        this.problem(`tool call ${key}: v2 title ${json(v2.title)} shows as ${json(v1.title)} on v1`);
      // Plain text output must read the same (chunks append, arrays replace, null clears).
      const content: unknown[] = Array.isArray(v2.content) ? v2.content : [];
      if (
        content.every((i) => isObj(i) && i.type === "content" && Object.keys(i).length === 2 && isPlainText(i.content))
      ) {
        this.count("check:toolContent");
        if (json(v1.content ?? []) !== json(content))
          this.problem(`tool call ${key}: v2 content ${json(content)} shows as ${json(v1.content)} on v1`);
      }
    }
  }

  /** Text messages the agent never cleared read the same on v1 (the latest rendering of each, T §2.1-2.2). */
  private checkMessages(): void {
    for (const [key, m] of this.v2Messages) {
      if (!m.plain || m.cleared) continue;
      const want = m.blocks.map((b) => String(b.text)).join("");
      if (want === "") continue;
      const [sid, kind, id] = key.split("|") as [string, string, string];
      let latest: { text: string; order: number } | undefined;
      for (const [k1, v] of this.v1Messages) {
        const [sid1, kind1, id1] = k1.split("|") as [string, string, string];
        if (sid1 !== sid || kind1 !== kind) continue;
        if (id1 !== id && !id1.startsWith(`${id}#`) && !id1.startsWith(`${id}~`)) continue;
        if (!latest || v.order > latest.order) latest = v;
      }
      this.count("check:message");
      if (latest?.text !== want)
        this.problem(`message ${key} reads ${json(latest?.text)} on v1, the agent's is ${json(want)}`);
    }
  }

  /** The v1 plan is every v2 `items` plan, in first-seen order, entries mapped (T §2.6). */
  private checkPlans(): void {
    for (const [sid, plans] of this.v2Plans) {
      const want = [...plans.values()]
        .filter((p) => p.type === "items" && Array.isArray(p.entries))
        .flatMap((p) => p.entries as Obj[])
        .map((e) => ({
          content: e.content,
          status: e.status === "cancelled" ? "completed" : V1_PLAN_STATUSES.has(e.status) ? e.status : "pending",
          priority: V1_PLAN_PRIORITIES.has(e.priority) ? e.priority : "medium",
        }));
      const got = (this.v1Plans.get(sid) ?? []).map((e) => ({
        content: e.content,
        status: e.status,
        priority: e.priority,
      }));
      this.count("check:plan");
      if (json(got) !== json(want))
        this.problem(`plan of ${sid} reads ${json(got)} on v1, the agent's is ${json(want)}`);
    }
  }

  report(): string {
    const trace = this.trace.length > 400 ? ["…", ...this.trace.slice(-400)] : this.trace;
    return `${this.problems.join("\n")}\n--- trace ---\n${trace.join("\n")}`;
  }
}

// ---------------------------------------------------------------------------------------- runs

interface Scenario {
  /** The agent process exits at the end instead of finishing its turns. */
  readonly exit?: boolean;
  readonly sessions: number;
  readonly forwardPromptEcho: boolean;
  readonly stash: StashSetting;
  readonly steps: readonly Step[];
}

async function play(scenario: Scenario, compliant: boolean): Promise<World> {
  const h = await connectA({
    idleSettleMs: SETTLE_MS,
    forwardPromptEcho: scenario.forwardPromptEcho,
    stash: scenario.stash,
  });
  for (const sid of SESSION_IDS.slice(0, scenario.sessions)) await openSessionA(h, sid);
  const w = new World(h, {
    sessions: scenario.sessions,
    forwardPromptEcho: scenario.forwardPromptEcho,
    compliant,
    noBridgeData: scenario.stash === "auto" || scenario.stash === "off",
  });
  await w.run(scenario.steps, scenario.exit ?? false);
  return w;
}

async function holds(scenario: Scenario, compliant: boolean): Promise<void> {
  const w = await play(scenario, compliant);
  if (w.problems.length > 0) throw new Error(w.report());
}

const scenario = (step: fc.Arbitrary<Step>, maxLength: number): fc.Arbitrary<Scenario> =>
  fc.record({
    exit: fc.constantFrom(false, false, false, true),
    sessions: fc.integer({ min: 1, max: 2 }),
    forwardPromptEcho: fc.boolean(),
    // `auto` (the default) toward plain peers gives no stash: checked on every message.
    stash: fc.constantFrom<StashSetting>("auto", "auto", "compact", "off", "full"),
    steps: fc.array(step, { minLength: 1, maxLength, size: "max" }),
  });

describe("direction A conversations with a compliant v2 agent (T §1.2-1.3, §2, §4, §9 cases 1-14)", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("gives a legal v1 conversation: each prompt answered once with its own turn's stop reason, tool calls announced first, nothing v1 cannot carry", async () => {
    await fc.assert(
      fc.asyncProperty(scenario(compliantStep, 60), (s) => holds(s, true)),
      { numRuns: RUNS },
    );
  });
});

describe("direction A prompt completion with an agent that never reports running (T §1.2-4 settle fallback)", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const nonCompliantStep: fc.Arbitrary<Step> = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        t: fc.constant("prompt" as const),
        s: session,
        words: fc.array(word, { minLength: 1, maxLength: 2 }),
      }),
    },
    { weight: 1, arbitrary: fc.record({ t: fc.constant("cancel" as const), s: session }) },
    { weight: 5, arbitrary: fc.record({ t: fc.constant("insert" as const), s: session, pick, order: fc.nat(3) }) },
    // Without `running`, only an idle with a stop reason can end a turn (the fallback needs one).
    {
      weight: 4,
      arbitrary: fc.record({
        t: fc.constant("end" as const),
        s: session,
        idle: idleBody.filter((b) => typeof b.stopReason === "string"),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ t: fc.constant("state" as const), s: session, move: fc.constant<StateMove>("bare") }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        t: fc.constant("update" as const),
        s: session,
        u: rawUpdate
          .filter((u) => String(u.sessionUpdate).endsWith("_chunk"))
          .map((update) => ({ kind: "raw" as const, update })),
      }),
    },
    {
      weight: 4,
      arbitrary: fc.record({ t: fc.constant("time" as const), ms: fc.constantFrom(10, 400, 900, SETTLE_MS + 100) }),
    },
  );

  it("completes each prompt with the first idle after its ack once idleSettleMs pass", async () => {
    await fc.assert(
      fc.asyncProperty(scenario(nonCompliantStep, 25), (s) => holds(s, false)),
      { numRuns: RUNS },
    );
  });
});

describe("direction A conversation model: worked examples and known bugs (T §9 cases 2-5, 8, 13)", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const base = { sessions: 1, forwardPromptEcho: false, stash: "compact" as StashSetting };
  const answerOf = (w: World, n: number) =>
    w.trace.find(
      (l) =>
        l.includes(`"id":${json(w.prompts[n]!.v1Id)},"result"`) ||
        l.includes(`"id":${json(w.prompts[n]!.v1Id)},"error"`),
    );

  it("completes a held prompt with its own turn, also when the ack comes after that turn's idle (case 4 variant)", async () => {
    const w = await play(
      {
        ...base,
        steps: [
          { t: "work", s: 0 },
          { t: "prompt", s: 0, words: ["fix"] },
          { t: "end", s: 0, idle: { stopReason: "end_turn" } },
          { t: "insert", s: 0, pick: 0, order: 7 }, // echo, running, ack deferred
          { t: "end", s: 0, idle: { stopReason: "refusal" } },
          { t: "deferred", s: 0, pick: 0 },
        ],
      },
      true,
    );
    expect(w.problems).toEqual([]);
    expect(answerOf(w, 0)).toContain('"stopReason":"refusal"');
  });

  it("does not complete a prompt with the snapshot idle between its ack and running (case 2)", async () => {
    const w = await play(
      {
        ...base,
        steps: [
          { t: "prompt", s: 0, words: ["a"] },
          { t: "insert", s: 0, pick: 0, order: 0 },
          { t: "end", s: 0, idle: { stopReason: "end_turn" } },
          { t: "prompt", s: 0, words: ["b"] },
          { t: "insert", s: 0, pick: 0, order: 6 }, // ack, idle snapshot (end_turn), echo, running
          { t: "end", s: 0, idle: { stopReason: "max_tokens" } },
          { t: "state", s: 0, move: "snapshot" },
        ],
      },
      true,
    );
    expect(w.problems).toEqual([]);
    expect(answerOf(w, 1)).toContain('"stopReason":"max_tokens"');
  });

  it("completes nothing with a session/load replay and its snapshot; replayed prompts are shown (case 3)", async () => {
    const w = await play(
      {
        ...base,
        steps: [
          { t: "prompt", s: 0, words: ["a"] },
          { t: "insert", s: 0, pick: 0, order: 2 },
          {
            t: "update",
            s: 0,
            u: { kind: "raw", update: { sessionUpdate: "agent_message_chunk", messageId: "m1", content: text("hi") } },
          },
          { t: "end", s: 0, idle: { stopReason: "end_turn" } },
          { t: "load", s: 0 },
          { t: "prompt", s: 0, words: ["b"] },
          { t: "insert", s: 0, pick: 0, order: 0 },
          { t: "end", s: 0, idle: { stopReason: "refusal" } },
        ],
      },
      true,
    );
    expect(w.problems).toEqual([]);
    expect(w.seen["v1:replayedUser"]).toBe(1);
    expect(answerOf(w, 1)).toContain('"stopReason":"refusal"');
  });

  it("ends a cancelled turn with a pending permission as cancelled, the held prompt too (case 5)", async () => {
    const w = await play(
      {
        ...base,
        steps: [
          { t: "prompt", s: 0, words: ["a"] },
          { t: "insert", s: 0, pick: 0, order: 0 },
          { t: "prompt", s: 0, words: ["b"] },
          {
            t: "perm",
            s: 0,
            perm: {
              subject: "tool_call",
              toolCallId: "t2",
              patch: { title: "rm -rf build", kind: "delete" },
              kinds: ["allow_once", "reject_once"],
              block: true,
              title: "Delete?",
            },
          },
          { t: "cancel", s: 0 },
          { t: "answer", pick: 0, outcome: "allow" }, // the client answers `cancelled` after its cancel
          { t: "withdraw", pick: 0 },
          {
            t: "update",
            s: 0,
            u: { kind: "raw", update: { sessionUpdate: "tool_call_update", toolCallId: "t2", status: "cancelled" } },
          },
          { t: "end", s: 0, idle: { stopReason: "end_turn" } }, // a compliant agent ends it `cancelled`
        ],
      },
      true,
    );
    expect(w.problems).toEqual([]);
    expect(answerOf(w, 0)).toContain('"stopReason":"cancelled"');
    expect(answerOf(w, 1)).toContain('"stopReason":"cancelled"');
  });

  it("fails every pending prompt with -32603 and withdraws relayed permissions when the agent exits (T §1.2-9)", async () => {
    const w = await play(
      {
        ...base,
        exit: true,
        steps: [
          { t: "prompt", s: 0, words: ["a"] },
          { t: "insert", s: 0, pick: 0, order: 0 },
          { t: "prompt", s: 0, words: ["b"] },
          {
            t: "perm",
            s: 0,
            perm: {
              subject: "command",
              toolCallId: "t1",
              patch: {},
              kinds: ["allow_once"],
              block: false,
              title: "Run?",
            },
          },
        ],
      },
      true,
    );
    expect(w.problems).toEqual([]);
    expect(w.seen["answer:exit"]).toBe(2);
  });

  // Was bug B1 (prompt-lifecycle.ts maybeSettle): each idle restarted a pending prompt's settle
  // timer, so with an agent that never reports `running`, a prompt answered within idleSettleMs of
  // the next turn's idle got THAT turn's stop reason (here p0 would get `refusal`, its own turn ended
  // `end_turn`). T §1.2-4 starts a timer per idle; only a non-idle state cancels it.
  it("fixed B1: completes a prompt of a running-less agent with its own turn's idle, not the next one (T §1.2-4)", async () => {
    const w = await play(
      {
        ...base,
        steps: [
          { t: "prompt", s: 0, words: ["a"] },
          { t: "prompt", s: 0, words: ["b"] },
          { t: "insert", s: 0, pick: 0, order: 0 },
          { t: "end", s: 0, idle: { stopReason: "end_turn" } },
          { t: "time", ms: 400 },
          { t: "insert", s: 0, pick: 0, order: 0 },
          { t: "end", s: 0, idle: { stopReason: "refusal" } },
          { t: "time", ms: 700 },
        ],
      },
      false,
    );
    expect(w.problems).toEqual([]);
  });

  // Was bug B2 (v1-client/agent-requests.ts permission / updates/tool-calls.ts emitToolCall): a tool call the bridge
  // synthesized for a `command` permission subject stayed "synthetic" after the agent reported that
  // toolCallId for real: the bridge sent a tool_call_update (not the full tool_call T §4 A↓-2 asks
  // for, so kind stayed `execute` and the other synthetic fields stayed) and, when the permission was
  // answered, still finalized it `completed`/`failed` over the agent's own status.
  it("fixed B2: lets the agent's real tool call replace a synthesized one and stops finalizing it (T §4 A↓-2)", async () => {
    const w = await play(
      {
        ...base,
        steps: [
          {
            t: "perm",
            s: 0,
            perm: {
              subject: "command_tc",
              toolCallId: "t1",
              patch: {},
              kinds: ["allow_once"],
              block: false,
              title: "Run?",
            },
          },
          {
            t: "update",
            s: 0,
            u: { kind: "raw", update: { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "in_progress" } },
          },
          { t: "answer", pick: 0, outcome: "allow" },
        ],
      },
      true,
    );
    expect(w.problems).toEqual([]);
  });

  it("exercises every behaviour the model generates (the generator is not vacuous)", async () => {
    const seen: Record<string, number> = {};
    for (const sc of fc.sample(scenario(compliantStep, 60), { numRuns: 120, seed: 20240611 })) {
      const w = await play(sc, true);
      expect(w.problems).toEqual([]);
      for (const [k, v] of Object.entries(w.seen)) seen[k] = (seen[k] ?? 0) + v;
    }
    for (const what of [
      "answer:end_turn",
      "answer:cancelled",
      "answer:error",
      "answer:rejected",
      "answer:refusal",
      "answer:exit",
      "check:toolCall",
      "check:message",
      "check:plan",
      "check:toolContent",
      "v1:tool_call_update",
      "v1:replayedUser",
      "load",
      "load:busy",
      "load:endedDuring",
      "oversizeAnswer",
      "exit:withdrawnPermission",
    ])
      expect(seen[what] ?? 0, what).toBeGreaterThan(0);
  });
});
