// One side of the bridge (the client or the agent): how to write to it, and the requests the bridge
// sent it that await an answer. A response always finds its way back through the closure stored
// with its outbound id (no global lookup by method).
import { isUtf8 } from "node:buffer";
import { rpcErrors } from "../base/errors.js";
import { IdTable } from "../wire/id-table.js";
import { PendingRequests } from "../wire/ids.js";
import {
  errorResponse,
  isId,
  notification,
  request,
  resultResponse,
  type Id,
  type ResponseMessage,
  type RpcError,
} from "../wire/jsonrpc.js";
import { KEY_ORDER_KEY, restoreKeyOrder } from "../wire/key-order.js";
import { limits } from "../../mappings/limits.js";
import { CALL_HEAD } from "../wire/call-scan.js";
import { allocLine } from "../wire/writer.js";
import { translationFailed } from "../base/errors.js";
import type { Logger } from "../log.js";
import { causeOf, contained } from "./barrier.js";
import { bridgeMade, type BridgeObserver } from "./observer.js";

const KEY_ORDER_BYTES = Buffer.from(KEY_ORDER_KEY);

export interface Outlet {
  push(line: string | Buffer): void;
}

export interface PendingCall {
  readonly method: string;
  readonly params: unknown;
  answer(resp: ResponseMessage): void;
  /**
   * For a request whose answer goes back unchanged but for its id (a forward without a mapping):
   * pass on the result `line`, its id ending at `idEnd`, as `answer` would; false, having done
   * nothing, when this cannot be proven (call-scan.ts).
   */
  readonly answerLine?: ((line: Buffer, idEnd: number) => boolean) | undefined;
}

export class Link {
  readonly pending = new PendingRequests<PendingCall>();
  /** Requests of the bridge this peer may owe at once (forwards and emulation calls; mappings/limits.ts). */
  maxPending: number = limits.bridgeRequests.default;
  /** Sees every outgoing message first; returning true keeps it from being written (batch replies). */
  intercept: ((msg: unknown) => boolean) | undefined;
  /** Told which errors going to this peer are relayed from the other (`--report`); set by the core. */
  observer: BridgeObserver | undefined;
  /** The version this peer speaks, once a translating mode runs: key-order records of it are applied (wire/key-order.ts). */
  orderVersion: 1 | 2 | undefined;
  /**
   * Request ids of this peer that a JS number cannot hold exactly (beyond 2^53), by their rounded
   * value: the original token, written back in the answer.
   */
  private readonly exactIds = new Map<number, string>();
  /**
   * This peer's requests the bridge admitted and has not answered yet, by id. Ids are unique
   * among them (a request reusing one is refused, `admit`), so an answer, and a batch collecting
   * answers by id, can never be taken for another request's. Bounded by the peer's open requests.
   */
  private readonly unanswered = new IdTable<true>();

  constructor(
    readonly name: "client" | "agent",
    private readonly out: Outlet,
    private readonly onSend?: (msg: unknown) => void,
    /** Where an answer callback run outside any message logs what it throws (the crash barrier). */
    private readonly log?: Logger,
  ) {}

  send(message: object): void {
    const msg = this.orderVersion === undefined ? message : restoreKeyOrder(message, this.orderVersion);
    this.settle(msg);
    if (this.intercept?.(msg)) return;
    this.write(msg, true);
  }

  private write(msg: object, settles: boolean): void {
    this.onSend?.(msg);
    this.out.push(this.exactIds.size > 0 ? this.withExactId(msg, settles) : JSON.stringify(msg));
  }

  /** An answer going to this peer closes the request it answers. */
  private settle(msg: object): void {
    if (this.unanswered.size > 0 && !("method" in msg) && "id" in msg && isId(msg.id)) this.unanswered.delete(msg.id);
  }

  /** A request of this peer with id `id` was admitted and is not answered yet. */
  owes(id: Id): boolean {
    return this.unanswered.has(id);
  }

  /** This peer's admitted requests not answered yet. */
  get unansweredCount(): number {
    return this.unanswered.size;
  }

  /**
   * Admit a request of this peer before it is handled; false if a request with the same id is
   * still unanswered (JSON-RPC wants ids unique among requests in flight): the caller refuses it.
   */
  admit(id: Id): boolean {
    if (this.unanswered.has(id)) return false;
    this.unanswered.set(id, true);
    return true;
  }

  /**
   * Answer a message of this peer that was never admitted (unreadable, invalid, a reused id): it
   * settles no request, and no batch collects it as the answer of the request whose id it shares.
   */
  refuse(id: Id, error: RpcError): void {
    this.write(errorResponse(id, error), false);
  }

  /**
   * Remember the exact token of a request id that lost precision in parsing; false if another
   * request in flight rounds to the same value (the two answers could not be told apart).
   */
  keepExactId(rounded: number, token: string): boolean {
    const known = this.exactIds.get(rounded);
    if (known !== undefined && known !== token) return false;
    this.exactIds.set(rounded, token);
    return true;
  }

  /** Serialize, writing an answer's id with the token the peer sent (kept for its request if `settles` is false). */
  private withExactId(msg: object, settles: boolean): string {
    const o = msg as { id?: unknown; method?: unknown };
    const token = typeof o.id === "number" && o.method === undefined ? this.exactIds.get(o.id) : undefined;
    if (token === undefined) return JSON.stringify(msg);
    if (settles) this.exactIds.delete(o.id as number);
    const rest: Record<string, unknown> = { ...msg };
    delete rest.jsonrpc;
    delete rest.id;
    const body = JSON.stringify(rest);
    return `{"jsonrpc":"2.0","id":${token}${body === "{}" ? "" : `,${body.slice(1, -1)}`}}`;
  }

  /** Forward a line untouched (the translation is the identity). */
  sendRaw(line: Buffer | string, parsed: unknown): void {
    // Invalid UTF-8 never leaves the bridge: the parsed value has U+FFFD in its place.
    if (typeof line !== "string" && !isUtf8(line)) {
      this.send(parsed as object);
      return;
    }
    if (this.orderVersion !== undefined && typeof parsed === "object" && parsed !== null) {
      // A key-order record for this peer must not go out in the original bytes.
      const restored = restoreKeyOrder(parsed, this.orderVersion);
      if (restored !== parsed) {
        this.send(restored);
        return;
      }
    }
    if (typeof parsed === "object" && parsed !== null) this.settle(parsed);
    if (this.intercept?.(parsed)) return;
    this.onSend?.(parsed);
    this.out.push(line);
  }

  /**
   * Forward a line as its bytes, for a fast path that proved the full path would (wire/scan.ts):
   * false, and nothing written, when this link needs the parsed message (key order, a batch's
   * intercept, a send hook); the caller then takes the full path.
   */
  forwardVerbatim(line: Buffer): boolean {
    if (this.orderVersion !== undefined || !this.takesProven) return false;
    this.out.push(line);
    return true;
  }

  /**
   * No hook must see the parsed messages written to this peer: a translating fast path may write
   * its bytes (`writeProven`). Asked before the fast path changes anything.
   */
  get takesProven(): boolean {
    return this.intercept === undefined && this.onSend === undefined;
  }

  /** A notification a translating fast path rendered (fast-lines.ts): the very bytes the full path writes. */
  writeProven(line: Buffer | string): void {
    this.out.push(line);
  }

  /**
   * This peer may get `line` spliced from another peer's bytes: no hook to see parsed messages, no
   * id to write from its original token (`withExactId`), no key-order record for `send` to apply
   * (a record's key is looked for anywhere in the line: whatever holds it takes the full path).
   */
  takesSplice(line: Buffer): boolean {
    return (
      this.takesProven &&
      this.exactIds.size === 0 &&
      (this.orderVersion === undefined || !line.includes(KEY_ORDER_BYTES))
    );
  }

  /** `line` with `{"jsonrpc":"2.0","id":` and `id` (as `send` serializes it) before its bytes from `idEnd`. */
  private spliced(id: Id, line: Buffer, idEnd: number): Buffer {
    const token = JSON.stringify(id);
    const size = Buffer.byteLength(token);
    const out = allocLine(CALL_HEAD.length + size + line.length - idEnd);
    CALL_HEAD.copy(out, 0);
    out.write(token, CALL_HEAD.length);
    line.copy(out, CALL_HEAD.length + size, idEnd);
    return out;
  }

  /**
   * `request`, for a fast path that proved its line is what `send` would write but for the id
   * (`takesSplice`): the line goes out with the id this link allocates.
   */
  requestLine(
    method: string,
    line: Buffer,
    idEnd: number,
    answer: PendingCall["answer"],
    answerLine?: PendingCall["answerLine"],
  ): number {
    const id = this.issue(method, undefined, answer, answerLine);
    if (id !== 0) this.out.push(this.spliced(id, line, idEnd));
    return id;
  }

  /** `respond`, for a fast path that proved `line` is the answer but for its id (`takesSplice`). */
  respondLine(id: Id, line: Buffer, idEnd: number): void {
    if (this.unanswered.size > 0) this.unanswered.delete(id);
    this.out.push(this.spliced(id, line, idEnd));
  }

  /**
   * Deliver a result `line` to the request this link issued with id `id`, through its `answerLine`;
   * false, having done nothing, when the request has none or it declines (the full path decides).
   */
  deliverLine(id: number, line: Buffer, idEnd: number): boolean {
    const p = this.pending.peek(id);
    if (p?.answerLine === undefined || !p.answerLine(line, idEnd)) return false;
    this.pending.take(id);
    return true;
  }

  /** Reply to a received batch: the one place an array is written (never toward the other peer). */
  sendArray(items: unknown[]): void {
    for (const m of items) this.onSend?.(m);
    this.out.push(JSON.stringify(items));
  }

  /**
   * Issue a request; its answer goes to `answer`. Past `maxPending` it is not sent and `answer` gets
   * the limit's error (id 0, which the allocator never issues) as a response would come: after the
   * caller has recorded the returned id, never from inside this call.
   */
  request(
    method: string,
    params: unknown,
    answer: (resp: ResponseMessage) => void,
    answerLine?: PendingCall["answerLine"],
  ): number {
    const id = this.issue(method, params, answer, answerLine);
    if (id !== 0) this.send(request(id, method, params));
    return id;
  }

  /** An id for a request to write, or 0 past `maxPending` (then `answer` gets the limit's error). */
  private issue(
    method: string,
    params: unknown,
    answer: PendingCall["answer"],
    answerLine: PendingCall["answerLine"],
  ): number {
    if (this.pending.size >= this.maxPending) {
      const error = rpcErrors.limit(limits.bridgeRequests, this.maxPending);
      const settle = () => answer(bridgeMade({ jsonrpc: "2.0", id: 0, error }));
      queueMicrotask(this.log ? contained(this.log, `the answer to '${method}'`, settle) : settle);
      return 0;
    }
    return this.pending.add({ method, params, answer, answerLine });
  }

  /** Promise form, for sequential flows (negotiation, emulation). */
  call(method: string, params: unknown): Promise<ResponseMessage> {
    return new Promise((resolve) => this.request(method, params, resolve));
  }

  notify(method: string, params: unknown): void {
    this.send(notification(method, params));
  }

  respond(id: Id, result: unknown): void {
    this.send(resultResponse(id, result));
  }

  fail(id: Id, error: RpcError): void {
    this.send(errorResponse(id, error));
  }

  /** Deliver an answer to a request this link issued; false if the id is not ours or already answered. */
  deliver(resp: ResponseMessage): boolean {
    const p = this.pending.take(resp.id);
    if (!p) return false;
    try {
      p.answer(resp);
    } catch (e) {
      // The crash barrier (bridge.ts): the request this answers is settled with the error, and the
      // throw goes on to the barrier, which logs it.
      p.answer(bridgeMade({ jsonrpc: "2.0", id: resp.id, error: translationFailed(p.method, causeOf(e)) }));
      throw e;
    }
    return true;
  }

  /** The peer is gone: answer every pending call with `error`. */
  abandon(error: RpcError): void {
    for (const [id, p] of this.pending.drain()) p.answer(bridgeMade({ jsonrpc: "2.0", id, error }));
  }
}
