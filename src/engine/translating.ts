// What both translating modes (A and B) share: the two request routes, dispatch by message kind,
// the extension rule (H §7.4: `_` methods pass untouched, `_acp-bridge/` is reserved; so do methods
// no schema defines, extensions written before the prefix rule), and the answers a converter
// failure turns into.
import {
  BRIDGE_METHOD_PREFIX,
  EXTENSION_PREFIX,
  isSchemaMethod,
  methodTable,
  refusal,
  rowsFrom,
  type Direction,
  type Handlers,
  type MethodRow,
  type Sender,
} from "../../mappings/methods.js";
import { rpcErrors } from "../base/errors.js";
import type { Conv } from "../convert/result.js";
import type { Logger } from "../log.js";
import type { NotificationMessage, RequestMessage, ResponseMessage, RpcError } from "../wire/jsonrpc.js";
import { recordKeyOrder } from "../wire/key-order.js";
import { isObject } from "../base/json.js";
import { dispatchTable } from "./dispatch.js";
import { bridgeMade, noteLost, updateKind, type BridgeObserver } from "./observer.js";
import { inputProblem, resultProblem } from "./guard.js";
import type { Link } from "./link.js";
import type { Outgoing } from "./outgoing.js";
import { RequestRoute, type Answer } from "./relay.js";
import type { Admit, ExitInfo, Incoming, Translator } from "./translator.js";
import type { ScannedCall } from "../wire/call-scan.js";

export function failedConv<T>(r: Conv<T>): r is Extract<Conv<T>, { ok: false }> {
  return !r.ok;
}

/**
 * A converter failure on the agent's update `src` of variant `what`: logged, and the message is
 * dropped. A success tells the observer what the conversion lost.
 */
export function dropped<T>(
  r: Conv<T>,
  ctx: { readonly log: Logger; readonly observer?: BridgeObserver | undefined },
  what: string,
  src: unknown,
): r is Extract<Conv<T>, { ok: false }> {
  if (r.ok) {
    // Every translated update passes here: its kind's name is built only for an observer.
    if (ctx.observer !== undefined) noteLost(ctx.observer, updateKind(what), "agent", src, r);
    return false;
  }
  ctx.log.warn(`dropped a malformed ${what} from the agent`, r.error.data);
  return true;
}

/**
 * A response whose schema is an object: `null` becomes `{}` (H §0, null results); anything else
 * that is not an object (or holds a `_meta` that is not one) is an error for the requester.
 */
export function objectResult(resp: ResponseMessage): Answer {
  if (resp.error) return { error: resp.error };
  const result = resp.result ?? {};
  const problem = resultProblem(result);
  if (problem)
    return {
      error: rpcErrors.internal("Malformed result", {
        reason: "malformed_result",
        field: problem.field,
        detail: problem.reason,
      }),
    };
  return { result };
}

/**
 * The methods whose results `checkedAnswer` checks: every schema method of either version but those
 * with an opaque result (`mcp/message`). Extensions and methods no schema defines cross as they are.
 */
const CHECKED_ANSWERS: ReadonlySet<string> = new Set(
  methodTable.flatMap((r) => (r.opaqueResult ? [] : [r.v1, r.v2])).filter((n): n is string => n !== null),
);

/**
 * A peer's answer to a request of the bridge, before any handler maps it: a result that is not an
 * object (or holds a `_meta` that is not one) where the schemas want one becomes the -32603 that
 * `objectResult` gives, so no converter copies it into the other version. `null` is left to the
 * handlers (H §0, null results).
 */
function checkedAnswer(from: Link, resp: ResponseMessage): ResponseMessage {
  if (resp.result === undefined || resp.result === null) return resp;
  const call = from.pending.peek(resp.id);
  if (call === undefined || !CHECKED_ANSWERS.has(call.method)) return resp;
  const answer = objectResult(resp);
  return "error" in answer ? bridgeMade({ jsonrpc: "2.0", id: resp.id, error: answer.error }) : resp;
}

/** The client's answer when the agent's result cannot be converted. */
export function malformed(method: string, detail: unknown): Answer {
  return {
    error: rpcErrors.internal("Agent sent a malformed result", { reason: "malformed_agent_result", method, detail }),
  };
}

/**
 * `_` methods are extensions (H §7.4), except the reserved `_acp-bridge/` ones and `__proto__`: a
 * JavaScript peer dispatching through a plain object would reach `Object.prototype` with it, so it
 * is an unknown method (-32601), never forwarded.
 */
function isExtension(method: string): boolean {
  return method.startsWith(EXTENSION_PREFIX) && !method.startsWith(BRIDGE_METHOD_PREFIX) && method !== "__proto__";
}

/**
 * A method without the `_` prefix that no schema of either version defines: an extension written
 * before the prefix rule, which real agents still send; it crosses as `_` methods do. A method of
 * the other version only keeps its route (refused or emulated). Neither `""` nor a name of
 * `Object.prototype` (`toString`, `constructor`) is one, for the reason `__proto__` is no extension.
 */
function isUnprefixedExtension(method: string): boolean {
  return (
    method !== "" &&
    !method.startsWith(EXTENSION_PREFIX) &&
    !isSchemaMethod(method) &&
    !Object.hasOwn(Object.prototype, method)
  );
}

/** `table` with the input guard (guard.ts) around every handler of a method that crosses. */
function guarded<H>(
  d: Direction,
  from: Sender,
  kind: "request" | "notification",
  table: ReadonlyMap<string, H>,
  wrap: (handle: H, row: MethodRow) => H,
): ReadonlyMap<string, H> {
  const rows = rowsFrom(d, from, kind);
  const out = new Map<string, H>();
  for (const [method, handle] of table) {
    const row = rows.get(method);
    // A refused method keeps its -32601: what it carries does not matter.
    out.set(method, row && row[d] !== "refuse" ? wrap(handle, row) : handle);
  }
  return out;
}

/** An engine's handler of one request method; `params` as the engine narrowed them. */
type RequestHandler<P> = (msg: RequestMessage, params: P) => void;
/** An engine's handler of one notification method; `line` is its original bytes when known. */
type NotificationHandler<P> = (msg: NotificationMessage, params: P, line: Buffer | undefined) => void;

export abstract class TranslatingMode implements Translator {
  abstract readonly mode: "A" | "B";
  /** Requests from the client, re-issued to the agent. */
  protected readonly down: RequestRoute;
  /** Requests from the agent, re-issued to the client. */
  protected readonly up: RequestRoute;

  /** Record the key order of what this side sends (its version), because the other side is a bridge. */
  private recordClient: 1 | 2 | undefined;
  private recordAgent: 1 | 2 | undefined;

  constructor(
    protected readonly client: Link,
    protected readonly agent: Link,
    protected readonly log: Logger,
  ) {
    this.down = new RequestRoute(client, agent, (out) => this.write(out));
    this.up = new RequestRoute(agent, client, (out) => this.write(out));
  }

  /** The engine core's one writer: what handlers return, in order (outgoing.ts). */
  protected write(out: readonly Outgoing[]): void {
    for (const o of out) {
      const to = o.to === "client" ? this.client : this.agent;
      switch (o.kind) {
        case "notify":
          to.notify(o.method, o.params);
          break;
        case "raw":
          to.sendRaw(o.line, o.msg);
          break;
        case "fail":
          to.fail(o.id, o.error);
          break;
        case "answer":
          // The client's requests travel down, the agent's up.
          (o.to === "client" ? this.down : this.up).reply(o.entry, o.answer);
          break;
        case "request":
          o.issued(to.request(o.method, o.params, o.answered));
          break;
      }
    }
  }

  /**
   * Chains keep key order (wire/key-order.ts): each link applies the records of its own version, and
   * what a peer sends is recorded when the far side of this bridge is another bridge that gets a stash
   * (`bridges`: which sides are, as their stash level toward them says).
   */
  protected keepKeyOrder(clientVersion: 1 | 2, bridges: { client: boolean; agent: boolean }): void {
    const agentVersion = clientVersion === 1 ? 2 : 1;
    this.client.orderVersion = clientVersion;
    this.agent.orderVersion = agentVersion;
    if (bridges.agent) this.recordClient = clientVersion;
    if (bridges.client) this.recordAgent = agentVersion;
  }

  /**
   * An extension request (H §7.4: forwarded untouched) and the result of any request forwarded
   * untouched cross with their ids spliced (fast-lines.ts), unless the other side is a bridge that
   * records key order.
   */
  fastCall(from: Link, call: ScannedCall, line: Buffer, admit: Admit): boolean {
    if (this.recordClient !== undefined || this.recordAgent !== undefined) return false;
    if (call.kind === "result") {
      // A result `checkedAnswer` would check takes the full path, which decides on it.
      const method = from.pending.peek(call.id)?.method;
      return method !== undefined && !CHECKED_ANSWERS.has(method) && from.deliverLine(call.id, line, call.idEnd);
    }
    if (!isExtension(call.method)) return false;
    return (from === this.client ? this.down : this.up).forwardLine(call, line, admit);
  }

  private recordOrder(m: Incoming, version: 1 | 2 | undefined): void {
    if (version === undefined) return;
    if (m.kind === "response" ? m.msg.result === undefined : this.opaque(m.msg.method)) return;
    // Content chunks are coalesced (T §2.4 A↓-3: no byte identity promised), and a record, like any
    // notification `_meta`, would stop the coalescing.
    if (
      m.kind === "notification" &&
      isObject(m.msg.params) &&
      isObject(m.msg.params.update) &&
      m.msg.params.update.sessionUpdate === "tool_call_content_chunk"
    )
      return;
    recordKeyOrder(m.msg as unknown as Record<string, unknown>, version);
  }

  pendingFromClient(): RequestRoute {
    return this.down;
  }

  pendingFromAgent(): RequestRoute {
    return this.up;
  }

  /** Params of an extension are opaque: nothing is recorded in them. */
  private opaque(method: string): boolean {
    return method.startsWith(EXTENSION_PREFIX) || isUnprefixedExtension(method);
  }

  /** `m` crosses untouched: an extension, prefixed or not (the latter logged: the peer breaks the prefix rule). */
  private crosses(m: Exclude<Incoming, { kind: "response" }>, from: Sender): boolean {
    const method = m.msg.method;
    if (isExtension(method)) return true;
    if (!isUnprefixedExtension(method)) return false;
    this.log.debug(
      `forwarded ${from} ${m.kind} '${method}' unchanged: no ACP schema defines it (an extension without the _ prefix)`,
    );
    return true;
  }

  fromClient(m: Incoming): void {
    this.recordOrder(m, this.recordClient);
    switch (m.kind) {
      case "request":
        if (m.msg.method.startsWith(BRIDGE_METHOD_PREFIX))
          this.fail(m.msg, rpcErrors.methodNotFound({ method: m.msg.method, reason: "reserved for acp-bridge peers" }));
        else if (this.crosses(m, "client")) this.down.forward(m.msg, m.msg.method, m.msg.params);
        else this.clientRequest(m.msg);
        return;
      case "notification":
        if (this.crosses(m, "client")) this.pass(this.agent, m.msg, m.line);
        else this.clientNotification(m.msg);
        return;
      case "response":
        this.client.deliver(checkedAnswer(this.client, m.msg));
        return;
    }
  }

  fromAgent(m: Incoming): void {
    this.recordOrder(m, this.recordAgent);
    switch (m.kind) {
      case "request":
        if (this.crosses(m, "agent")) this.up.forward(m.msg, m.msg.method, m.msg.params);
        else this.agentRequest(m.msg);
        return;
      case "notification":
        if (this.crosses(m, "agent")) this.pass(this.client, m.msg, m.line);
        else this.agentNotification(m.msg, m.line);
        return;
      case "response":
        this.agent.deliver(checkedAnswer(this.agent, m.msg));
        return;
    }
  }

  /** Forward a notification as it is, its original bytes when we have them. */
  protected pass(to: Link, msg: NotificationMessage, line: Buffer | undefined): void {
    if (line) to.sendRaw(line, msg);
    else to.send(msg);
  }

  protected fail(msg: RequestMessage, error: RpcError): void {
    this.client.fail(msg.id, error);
  }

  /** The handler table of the requests `from` sends, for direction `d` (dispatch.ts). */
  protected requestRoutes<D extends Direction, S extends Sender, P>(
    d: D,
    from: S,
    handlers: Handlers<D, S, "request", RequestHandler<P>>,
  ): ReadonlyMap<string, RequestHandler<P>> {
    const route = from === "client" ? this.down : this.up;
    const sender = from === "client" ? this.client : this.agent;
    const rows = rowsFrom(d, from, "request");
    const table = dispatchTable<D, S, "request", RequestHandler<P>>(d, from, "request", handlers, {
      forward: () => (msg) =>
        void route.forward(msg, msg.method, msg.params, rows.get(msg.method)?.opaqueResult ? undefined : objectResult),
      refuse: (row) => (msg) => sender.fail(msg.id, rpcErrors.methodNotFound(refusal(d, from, row))),
    });
    // An input the bridge cannot translate into a valid message is refused before its handler.
    return guarded(d, from, "request", table, (handle, row) => (msg, params) => {
      const problem = inputProblem(row, msg.params);
      if (problem) sender.fail(msg.id, rpcErrors.invalidParams(problem));
      else handle(msg, params);
    });
  }

  /** The handler table of the notifications `from` sends, for direction `d` (dispatch.ts). */
  protected notificationRoutes<D extends Direction, S extends Sender, P>(
    d: D,
    from: S,
    handlers: Handlers<D, S, "notification", NotificationHandler<P>>,
  ): ReadonlyMap<string, NotificationHandler<P>> {
    const to = from === "client" ? this.agent : this.client;
    const table = dispatchTable<D, S, "notification", NotificationHandler<P>>(d, from, "notification", handlers, {
      forward: () => (msg, _params, line) => this.pass(to, msg, line),
      refuse: (row) => (msg) =>
        this.log.debug(`dropped ${from} notification '${msg.method}': ${refusal(d, from, row).reason}`),
    });
    return guarded(d, from, "notification", table, (handle, row) => (msg, params, line) => {
      const problem = inputProblem(row, msg.params);
      if (problem) this.log.warn(`dropped ${from} notification '${msg.method}': it cannot be translated`, problem);
      else handle(msg, params, line);
    });
  }

  /** `initialize` after the handshake: the connection's versions are settled (H §1.2). */
  protected reinitialize(msg: RequestMessage): void {
    this.fail(
      msg,
      rpcErrors.methodNotFound({ method: msg.method, reason: "initialize is answered once, at the handshake" }),
    );
  }

  protected unknownMethod(method: string): RpcError {
    return rpcErrors.methodNotFound({
      method,
      reason: "unknown method: it cannot be translated between ACP v1 and v2",
    });
  }

  protected abstract clientRequest(msg: RequestMessage): void;
  protected abstract clientNotification(msg: NotificationMessage): void;
  protected abstract agentRequest(msg: RequestMessage): void;
  protected abstract agentNotification(msg: NotificationMessage, line: Buffer | undefined): void;
  abstract agentGone(info: ExitInfo): void;
}
