// The per-connection core: parses and classifies lines from both peers, accepts batches (never
// emits them toward the other peer), enforces the pre-initialize rules (H §1.3), runs the version
// handshake (H §1.4) and then hands every message to the translator of the negotiated mode.
import { limits } from "../../mappings/limits.js";
import { notInitialized, rpcErrors, translationFailed, type ErrorData } from "../base/errors.js";
import type { Logger } from "../log.js";
import { DEFAULT_MAX_DEPTH, nestsDeeperThan, EnvelopeScanner, type Envelope } from "../wire/envelope.js";
import type { OversizeLine } from "../wire/ndjson.js";
import type { ScannedCall } from "../wire/call-scan.js";
import {
  type Classified,
  classify,
  errorResponse,
  type Id,
  type RequestMessage,
  type RpcError,
} from "../wire/jsonrpc.js";
import { causeOf, stackOf } from "./barrier.js";
import { negotiate, type HandshakeConfig, type Negotiated } from "./handshake.js";
import { fastPathFor, type FastPath } from "./fast-lines.js";
import { Link, type Outlet } from "./link.js";
import { idKey } from "./relay.js";
import type { ExitInfo, Incoming, Translator } from "./translator.js";
import { bridgeMade, type BridgeObserver } from "./observer.js";

export interface BridgeConfig extends HandshakeConfig {
  readonly log: Logger;
  /** Nesting refused before parsing (default DEFAULT_MAX_DEPTH). */
  readonly maxDepth?: number;
  /** Unanswered requests accepted from one peer (`--max-pending-requests`, mappings/limits.ts). */
  readonly maxPendingRequests?: number;
  /** Called for every message written to either side (traces, tests). */
  readonly onSend?: ((to: "client" | "agent", msg: unknown) => void) | undefined;
  /** Called for every message read from either side. */
  readonly onReceive?: ((from: "client" | "agent", msg: unknown) => void) | undefined;
  /** Told what the run did (`--report`); its engines get it through their own configuration. */
  readonly observer?: BridgeObserver | undefined;
}

type Phase = "awaiting-init" | "negotiating" | "ready" | "closed";

/**
 * Agent notifications kept while the handshake runs (beyond: dropped, logged).
 * @internal Exported for the test at the limit (test/engine/core.test.ts).
 */
export const MAX_EARLY_NOTIFICATIONS = 64;

/** Collects the answers to one received batch, to send them back as one array (H §7.7). */
interface BatchCollector {
  readonly ids: Set<string>;
  readonly replies: unknown[];
  remaining: number;
  /** The array went out: later answers are no longer this batch's. */
  sent: boolean;
}

/** An integer id JSON.parse could not hold exactly (beyond 2^53). */
function inexactId(id: unknown): id is number {
  return typeof id === "number" && Number.isInteger(id) && !Number.isSafeInteger(id);
}

export class Bridge {
  readonly client: Link;
  readonly agent: Link;
  private phase: Phase = "awaiting-init";
  private translator: Translator | undefined;
  /** Lines the negotiated mode handles without parsing (fast-lines.ts); none while a hook must see every message. */
  private fast: FastPath | undefined;
  private negotiated: Negotiated | undefined;
  private readonly batches = new Map<Link, BatchCollector[]>();
  /** The client's initialize while the handshake runs (answered at once if the agent dies). */
  private initRequest: RequestMessage | undefined;
  /**
   * Agent notifications received while the handshake runs: an agent may notify right after its
   * `initialize` answer, before the bridge has answered the client (Codex's adapter sends
   * `_auth/status_update` then). They follow the client's answer, as they followed the agent's.
   */
  private early: Incoming[] = [];
  /** Set when the agent could not be started: the answer to every client request. */
  private unavailable: RpcError | undefined;
  private refusedOne: () => void = () => undefined;
  private readonly refusal = new Promise<void>((resolve) => (this.refusedOne = resolve));

  constructor(
    private readonly config: BridgeConfig,
    clientOut: Outlet,
    agentOut: Outlet,
  ) {
    this.client = new Link("client", clientOut, config.onSend && ((m) => config.onSend?.("client", m)), config.log);
    this.agent = new Link("agent", agentOut, config.onSend && ((m) => config.onSend?.("agent", m)), config.log);
    this.client.observer = this.agent.observer = config.observer;
  }

  get mode(): Translator["mode"] | undefined {
    return this.translator?.mode;
  }

  get versions(): { client: 1 | 2; agent: 1 | 2 } | undefined {
    return this.negotiated && { client: this.negotiated.clientVersion, agent: this.negotiated.agentVersion };
  }

  clientLine(line: Buffer): void {
    this.line(this.client, line);
  }

  agentLine(line: Buffer): void {
    this.line(this.agent, line);
  }

  /** A line over the size limit was discarded: answer what it was (hostile input, item 1). */
  oversize(from: "client" | "agent", info: OversizeLine): void {
    const link = from === "client" ? this.client : this.agent;
    this.config.log.warn(`discarded a ${info.bytes}-byte message from the ${from}: over the size limit`);
    this.unreadable(link, info.envelope, {
      message: "Message too large",
      data: { reason: "message_too_large", bytes: info.bytes },
    });
  }

  /**
   * A message the bridge will not parse: a request gets -32600; a response settles the request it
   * answers with -32603 (its requester must not wait forever); anything else is logged and dropped.
   */
  private unreadable(link: Link, envelope: Envelope, why: { message: string; data: ErrorData }): void {
    if (envelope.kind === "request" && envelope.id !== undefined) {
      link.refuse(envelope.id, rpcErrors.invalidRequest(why.message, why.data));
    } else if (envelope.kind === "response" && envelope.id !== undefined) {
      const settled = link.deliver(
        bridgeMade({
          jsonrpc: "2.0",
          id: envelope.id,
          error: rpcErrors.internal(`The ${link.name}'s answer was unreadable: ${why.message}`, why.data),
        }),
      );
      if (!settled) this.config.log.debug(`dropped an unreadable ${link.name} response to no request`, envelope.id);
    } else if (envelope.kind === "request") {
      // No id the framing could find: nothing can be answered (documented limit).
      this.config.log.warn(`dropped a request from the ${link.name} whose id could not be read`);
    }
  }

  /** A malformed answer settles the request it answers (never a reply to a response). */
  private malformedAnswer(from: Link, c: { id: Id; reason: string }): void {
    this.unreadable(
      from,
      { kind: "response", id: c.id },
      { message: "Malformed response", data: { reason: "malformed_response", detail: c.reason } },
    );
  }

  private line(from: Link, line: Buffer): void {
    if (this.phase === "closed") {
      if (this.unavailable && from === this.client) this.refuse(line, this.unavailable);
      return;
    }
    if (this.fast !== undefined)
      try {
        if (this.fast(from, line)) return;
      } catch (e) {
        this.failedLine(from, line, e);
        return;
      }
    const maxDepth = this.config.maxDepth ?? DEFAULT_MAX_DEPTH;
    if (nestsDeeperThan(line, maxDepth)) {
      // Before parsing: JSON.stringify (and any recursive code) would overflow the stack on it.
      this.config.log.warn(`refused a message from the ${from.name} nested deeper than ${maxDepth}`);
      const scanner = new EnvelopeScanner();
      scanner.push(line);
      this.unreadable(from, scanner.result(), {
        message: "Message nested too deeply",
        data: { reason: "too_deep", maxDepth },
      });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(line.toString("utf8"));
    } catch {
      from.refuse(null, rpcErrors.parse({ reason: "invalid_json" }));
      return;
    }
    if (Array.isArray(value)) {
      this.batch(from, value);
      return;
    }
    this.one(from, value, line);
  }

  /** The negotiated version of this peer is 2 (unknown before the handshake). */
  private speaksV2(link: Link): boolean {
    const n = this.negotiated;
    if (!n) return false;
    return (link === this.client ? n.clientVersion : n.agentVersion) === 2;
  }

  /** Answer a client request with `error` (the agent could not be started). */
  private refuse(line: Buffer, error: RpcError): void {
    let value: unknown;
    try {
      value = JSON.parse(line.toString("utf8"));
    } catch {
      return;
    }
    for (const item of Array.isArray(value) ? value : [value]) {
      const c = classify(item);
      if (c.kind !== "request") continue;
      this.client.refuse(c.msg.id, error);
      this.refusedOne();
    }
  }

  private one(from: Link, value: unknown, line: Buffer | undefined): void {
    const c = classify(value, line);
    this.config.onReceive?.(from.name, value);
    if (c.kind === "invalid") {
      // Never reply to a response: a malformed answer settles the request it answers instead.
      if (looksLikeResponse(value)) this.malformedAnswer(from, c);
      else from.refuse(c.id, rpcErrors.invalidRequest("Invalid Request", { reason: c.reason }));
      return;
    }
    if (c.kind === "request") {
      const refusal = this.admission(from, c.msg.id, line);
      if (refusal) return from.refuse(refusal.id, refusal.error);
    }
    this.dispatch(from, c);
  }

  private dispatch(from: Link, m: Incoming): void {
    try {
      if (from === this.client) this.fromClient(m);
      else this.fromAgent(m);
    } catch (e) {
      this.failed(from, m, e);
    }
  }

  /**
   * The crash barrier: handling `m` threw (a bug, never an input the bridge means to refuse). The
   * message is refused as malformed input is, and the bridge keeps serving: a request gets -32603
   * `translation_failed` (if nothing answered it yet: a far-side request it had caused is withdrawn),
   * a response settles the request it answers with that error, a notification is dropped.
   */
  private failed(from: Link, m: Incoming, e: unknown): void {
    const method = m.kind === "response" ? undefined : m.msg.method;
    const what = `a ${m.kind}${method === undefined ? "" : ` '${method.slice(0, 100)}'`} from the ${from.name}`;
    this.config.log.warn(`dropped ${what}: the bridge failed to translate it: ${causeOf(e)}`);
    this.config.log.debug("stack", stackOf(e));
    try {
      if (m.kind === "request") this.refuseFailed(from, m.msg, translationFailed(m.msg.method, causeOf(e)));
      else if (m.kind === "response") {
        // The request it answers, if the throw came before `deliver` took it (Link.deliver settles it otherwise).
        const asked = from.pending.peek(m.msg.id);
        if (asked)
          from.deliver(
            bridgeMade({ jsonrpc: "2.0", id: m.msg.id, error: translationFailed(asked.method, causeOf(e)) }),
          );
      }
    } catch (again) {
      this.config.log.error(`could not refuse ${what}: ${causeOf(again)}`);
    }
  }

  /** A request whose handling threw, answered with `error` unless it already was. */
  private refuseFailed(from: Link, msg: RequestMessage, error: RpcError): void {
    const route =
      this.translator &&
      (from === this.client ? this.translator.pendingFromClient() : this.translator.pendingFromAgent());
    const entry = route?.inbound.get(msg.id);
    if (route && entry) {
      if (entry.answered) return;
      route.reply(entry, { error });
      // Its answer, if one comes, finds the entry answered and is dropped.
      if (entry.outboundId !== undefined) route.to.notify("$/cancel_request", { requestId: entry.outboundId });
    } else if (from.owes(msg.id)) from.fail(msg.id, error);
  }

  /** A fast path threw on `line`: the message is refused as if the full path had thrown on it. */
  private failedLine(from: Link, line: Buffer, e: unknown): void {
    let value: unknown;
    try {
      value = JSON.parse(line.toString("utf8"));
    } catch {
      value = undefined;
    }
    const c = classify(value);
    if (c.kind === "invalid") this.config.log.warn(`dropped a message from the ${from.name}: ${causeOf(e)}`);
    else this.failed(from, c, e);
  }

  /**
   * Admit a request before it is handled, or say how to refuse it at once. Every admitted request
   * gets exactly one answer under its own id; a refusal is written under `id` (null when the id
   * itself is what is wrong), outside any batch collector.
   */
  private admission(from: Link, id: Id, line: Buffer | undefined): { id: Id; error: RpcError } | undefined {
    if (this.speaksV2(from) && !isV2RequestId(id)) {
      // One rule in every mode (H §7.2): v2 request ids are strings or integers, never null.
      return {
        id: null,
        error: rpcErrors.invalidRequest("ACP v2 request IDs must be strings or integers", { reason: "invalid_id", id }),
      };
    }
    if (inexactId(id) && line) {
      // An integer id beyond 2^53 was rounded by JSON.parse: answer it with the token it came with.
      const scanner = new EnvelopeScanner();
      scanner.push(line);
      const token = scanner.token();
      if (token !== undefined && !from.keepExactId(id, token))
        return {
          id: null,
          error: rpcErrors.invalidRequest("Request id collides with one in flight", { reason: "id_collision" }),
        };
    }
    if (this.overPending(from)) {
      const max = this.config.maxPendingRequests ?? limits.pendingRequests.default;
      this.config.log.warn(`refused a request from the ${from.name}: ${max} of its requests are unanswered`);
      return { id, error: rpcErrors.limit(limits.pendingRequests, max) };
    }
    // A reused id would make two answers indistinguishable (and a batch could collect the wrong
    // one): the later request is refused at once, the earlier one keeps its single answer.
    if (!from.admit(id))
      return {
        id,
        error: rpcErrors.invalidRequest("Request id already in flight", { reason: "duplicate_id_in_flight" }),
      };
    return undefined;
  }

  /**
   * The admission of a request a fast path took (an integer id of at most 15 digits: valid in v2,
   * exact): what `admission` would let through to the translator, admitted; false, and nothing
   * done, for anything the full path handles otherwise (a re-initialize, a refusal).
   */
  private admitsFast(from: Link, call: ScannedCall): boolean {
    if (from === this.client && call.method === "initialize") return false;
    return !this.overPending(from) && from.admit(call.id);
  }

  /** `from` has as many requests awaiting an answer as the limit allows (a batch's admitted ones count at once). */
  private overPending(from: Link): boolean {
    return from.unansweredCount >= (this.config.maxPendingRequests ?? limits.pendingRequests.default);
  }

  private batch(from: Link, items: unknown[]): void {
    if (items.length === 0) {
      from.refuse(null, rpcErrors.invalidRequest("Invalid Request", { reason: "empty_batch" }));
      return;
    }
    const collector: BatchCollector = { ids: new Set(), replies: [], remaining: 0, sent: false };
    // Exactly one answer per request: a repeated id would make two answers indistinguishable, so
    // each repetition (in this batch, or of a request still in flight) gets its own error entry
    // and is not processed. Whatever is refused at once is an entry here, never a line of its own.
    const accepted: Exclude<Classified, { kind: "invalid" }>[] = [];
    for (const item of items) {
      const c = classify(item);
      if (c.kind === "invalid") {
        if (looksLikeResponse(item)) this.malformedAnswer(from, c);
        else
          collector.replies.push(
            errorResponse(c.id, rpcErrors.invalidRequest("Invalid Request", { reason: c.reason })),
          );
      } else if (c.kind === "request") {
        const key = idKey(c.msg.id);
        const refusal = collector.ids.has(key)
          ? { id: c.msg.id, error: rpcErrors.invalidRequest("Duplicate request id", { reason: "duplicate_id" }) }
          : inexactId(c.msg.id)
            ? // A batch entry has no line of its own to keep the id's exact token from: rather than
              // answer under a rounded id (another request's), it is refused under null.
              {
                id: null,
                error: rpcErrors.invalidRequest("Request id beyond 2^53 inside a batch", {
                  reason: "inexact_id_in_batch",
                }),
              }
            : this.admission(from, c.msg.id, undefined);
        if (refusal) {
          collector.replies.push(errorResponse(refusal.id, refusal.error));
          continue;
        }
        collector.ids.add(key);
        collector.remaining++;
        accepted.push(c);
      } else accepted.push(c);
    }
    if (collector.remaining > 0) this.collect(from, collector);
    for (const c of accepted) {
      this.config.onReceive?.(from.name, c.msg);
      this.dispatch(from, c);
    }
    if (!collector.sent && collector.remaining === 0 && collector.replies.length > 0) {
      collector.sent = true;
      from.sendArray(collector.replies);
    }
  }

  private collect(link: Link, collector: BatchCollector): void {
    let list = this.batches.get(link);
    if (!list) {
      const active: BatchCollector[] = [];
      this.batches.set(link, (list = active));
      link.intercept = (msg) => {
        const o = msg as { id?: Id; method?: unknown };
        if (o.method !== undefined || o.id === undefined) return false;
        const key = idKey(o.id);
        const owner = active.find((b) => b.ids.has(key));
        if (!owner) return false;
        owner.ids.delete(key);
        owner.replies.push(msg);
        if (--owner.remaining === 0) {
          active.splice(active.indexOf(owner), 1);
          owner.sent = true;
          link.sendArray(owner.replies);
        }
        return true;
      };
    }
    list.push(collector);
  }

  private fromClient(m: Incoming): void {
    if (this.phase === "ready" && this.translator) {
      if (m.kind === "request" && m.msg.method === "initialize") return this.reinitialize(m.msg);
      this.translator.fromClient(m);
      return;
    }
    switch (m.kind) {
      case "request":
        if (m.msg.method === "initialize" && this.phase === "awaiting-init") {
          this.handshake(m.msg).catch((e: unknown) => this.handshakeFailed(m.msg, e));
          return;
        }
        this.client.fail(
          m.msg.id,
          notInitialized(m.msg.method, this.phase === "negotiating" ? "initialize_in_progress" : "not_initialized"),
        );
        return;
      case "notification":
        this.config.log.debug(`dropped '${m.msg.method}' received before initialize`);
        return;
      case "response":
        this.client.deliver(m.msg);
        return;
    }
  }

  private fromAgent(m: Incoming): void {
    if (this.phase === "ready" && this.translator) {
      this.translator.fromAgent(m);
      return;
    }
    switch (m.kind) {
      case "response":
        if (!this.agent.deliver(m.msg)) this.config.log.debug("dropped an agent response to no request", m.msg.id);
        return;
      case "request":
        this.agent.fail(m.msg.id, notInitialized(m.msg.method));
        return;
      case "notification":
        if (this.phase === "negotiating" && this.early.length < MAX_EARLY_NOTIFICATIONS) {
          this.early.push(m);
          return;
        }
        this.config.log.debug(`dropped agent '${m.msg.method}' received before initialize`);
        return;
    }
  }

  private async handshake(req: RequestMessage): Promise<void> {
    this.phase = "negotiating";
    this.initRequest = req;
    const outcome = await negotiate(this.config, this.agent, req.params);
    this.initRequest = undefined;
    if ((this.phase as Phase) === "closed") return;
    const early = this.early.splice(0);
    if ("error" in outcome) {
      this.phase = "awaiting-init";
      this.client.fail(req.id, outcome.error);
      if (early.length > 0)
        this.config.log.debug(`dropped ${early.length} agent notification(s) of a failed handshake`);
      return;
    }
    this.negotiated = outcome;
    this.translator = outcome.createTranslator(this.client, this.agent);
    if (!this.config.onReceive)
      this.fast = fastPathFor(
        this.translator,
        this.client,
        this.agent,
        this.config.maxDepth ?? DEFAULT_MAX_DEPTH,
        (from, call) => this.admitsFast(from, call),
      );
    this.phase = "ready";
    this.config.observer?.negotiated(outcome.clientVersion, outcome.agentVersion, this.translator.mode);
    this.config.log.info(
      `client speaks v${outcome.clientVersion}, agent speaks v${outcome.agentVersion}: ${this.translator.mode === "pass" ? "pass-through" : `direction ${this.translator.mode}`}`,
    );
    this.client.respond(req.id, outcome.clientResult);
    for (const m of early) this.dispatch(this.agent, m);
  }

  /** The crash barrier of the handshake: the client's `initialize` is refused, a new one may follow. */
  private handshakeFailed(req: RequestMessage, e: unknown): void {
    this.config.log.warn(`the handshake failed: ${causeOf(e)}`);
    this.config.log.debug("stack", stackOf(e));
    if (this.phase === "negotiating") {
      this.phase = "awaiting-init";
      this.initRequest = undefined;
      this.early = [];
    }
    if (this.client.owes(req.id)) this.client.fail(req.id, translationFailed(req.method, causeOf(e)));
  }

  /** A repeated client `initialize`: answered from the cached result (H §1.3). */
  private reinitialize(req: RequestMessage): void {
    const n = this.negotiated;
    if (!n) return;
    const requested = (req.params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    const wanted = typeof requested === "number" ? Math.min(requested, 2) : undefined;
    if (wanted !== n.clientVersion) {
      this.client.fail(
        req.id,
        rpcErrors.invalidRequest("initialize may not change the protocol version of a connection", {
          reason: "version_change",
          protocolVersion: n.clientVersion,
        }),
      );
      return;
    }
    this.client.respond(req.id, n.clientResult);
  }

  /** The agent process ended or its stdout closed. */
  /**
   * The client left (its stdin ended): what the bridge still awaits from it can never come. Each such
   * request is answered with an error: the agent's relayed requests, and the editor's tools' (H §6.5).
   */
  clientGone(): void {
    this.client.abandon(rpcErrors.internal("Client connection closed", { reason: "client_gone" }));
  }

  agentGone(info: ExitInfo): void {
    if (this.phase === "closed") return;
    const data = {
      reason: info.reason ?? "agent_exited",
      exitCode: info.code,
      ...(info.signal ? { signal: info.signal } : {}),
    };
    const handshakeFailed = rpcErrors.internal("Agent handshake failed", data);
    if (this.initRequest) {
      this.client.fail(this.initRequest.id, handshakeFailed);
      this.initRequest = undefined;
      this.refusedOne();
    } else if (!this.translator)
      // Gone before the client's initialize arrived (it can exit before the bridge has loaded):
      // that request, when it comes, is answered with the exit, as for an agent that never started.
      this.unavailable = handshakeFailed;
    if (this.translator)
      try {
        this.translator.agentGone(info);
      } catch (e) {
        // The crash barrier: whatever the translator still owed is answered below all the same.
        this.config.log.warn(`failed to wind down the translation: ${causeOf(e)}`);
      }
    // Whatever the agent still owed: the bridge's own calls (handshake, emulation) ...
    this.agent.abandon(rpcErrors.internal("Agent connection closed", data));
    // ... and the client's requests relayed to it.
    if (this.translator) {
      const route = this.translator.pendingFromClient();
      for (const entry of route.inbound.all())
        route.reply(entry, { error: rpcErrors.internal("Agent connection closed", data) });
      // Requests the agent made of the client can no longer be answered: withdraw them.
      const up = this.translator.pendingFromAgent();
      for (const entry of up.inbound.all()) {
        if (entry.outboundId !== undefined) this.client.notify("$/cancel_request", { requestId: entry.outboundId });
        entry.answered = true;
        up.inbound.close(entry.id);
      }
    }
    this.phase = "closed";
  }

  /**
   * The agent could not be started: every request of the client (its initialize first) is answered
   * with `error`, which names the command and the cause.
   */
  agentUnavailable(error: RpcError): void {
    this.unavailable = error;
    if (this.initRequest) {
      this.client.fail(this.initRequest.id, error);
      this.initRequest = undefined;
      this.refusedOne();
    }
    this.agent.abandon(error);
    this.phase = "closed";
  }

  /** Resolves once a request was refused because the agent could not be started or was gone before the handshake. */
  refused(): Promise<void> {
    return this.refusal;
  }

  /** Client requests are refused: the agent never started, or was gone before the handshake. */
  refusesClient(): boolean {
    return this.unavailable !== undefined;
  }
}

function isV2RequestId(id: Id): boolean {
  return typeof id === "string" || (typeof id === "number" && Number.isInteger(id));
}

/** An object with an id and `result` or `error` but no `method`: meant as an answer, however malformed. */
function looksLikeResponse(v: unknown): boolean {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  return (
    Object.hasOwn(v, "id") && !Object.hasOwn(v, "method") && (Object.hasOwn(v, "result") || Object.hasOwn(v, "error"))
  );
}

export type { RpcError };
