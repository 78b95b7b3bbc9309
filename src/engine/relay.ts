// Request relaying shared by every mode: a request from one side is re-issued on the other with the
// bridge's own id, its answer goes back under the original id (restored exactly, H §7.2), and
// `$/cancel_request` follows the same map (H §7.3).
import type { Id, RequestMessage, ResponseMessage, RpcError } from "../wire/jsonrpc.js";
import type { ScannedCall } from "../wire/call-scan.js";
import { IdTable } from "../wire/id-table.js";
import type { Link } from "./link.js";
import { isBridgeMade } from "./observer.js";
import type { Outgoing } from "./outgoing.js";
import type { Admit } from "./translator.js";
import { withMembers } from "../base/json.js";

/**
 * The answer to a request; `after` is what must follow it on the wire (written once it is sent).
 * `relayed`: the error is the far peer's answer, passed on (an onlooker tells it from the bridge's own).
 */
export type Answer = ({ result: unknown } | { error: RpcError; readonly relayed?: boolean }) & {
  readonly after?: readonly Outgoing[];
};

/** A request a peer sent us that is not answered yet. */
export interface Inbound {
  readonly id: Id;
  readonly method: string;
  /** The id under which it was re-issued on the other link, if it was. */
  outboundId?: number;
  /** Local handling (emulation, held prompts): called on `$/cancel_request`. */
  onCancel?: () => void;
  answered: boolean;
}

export function idKey(id: Id): string {
  return typeof id === "string" ? `s${id}` : `n${String(id)}`;
}

/** The requests one peer has sent and that await our answer. */
class InboundTable {
  private readonly map = new IdTable<Inbound>();

  open(id: Id, method: string): Inbound {
    const entry: Inbound = { id, method, answered: false };
    this.map.set(id, entry);
    return entry;
  }

  get(id: Id): Inbound | undefined {
    return this.map.get(id);
  }

  close(id: Id): void {
    this.map.delete(id);
  }

  all(): Inbound[] {
    return this.map.entries().map(([, e]) => e);
  }
}

/** One direction of request traffic: requests arrive on `from`, are re-issued on `to`. */
export class RequestRoute {
  readonly inbound = new InboundTable();

  constructor(
    readonly from: Link,
    readonly to: Link,
    /** Writes what an answer says must follow it (the engine core's `write`). */
    private readonly emit: (out: readonly Outgoing[]) => void = () => undefined,
  ) {}

  /** Answer an inbound request (once) and forget it. */
  reply(entry: Inbound, answer: Answer): void {
    if (entry.answered) return;
    entry.answered = true;
    this.inbound.close(entry.id);
    if ("error" in answer) {
      if (answer.relayed === true) this.from.observer?.relayedError(this.from.name, entry.id);
      this.from.fail(entry.id, answer.error);
    } else this.from.respond(entry.id, answer.result);
    if (answer.after) this.emit(answer.after);
  }

  /**
   * Re-issue `msg` (possibly renamed or with converted params) on the other side; `map` turns the
   * far side's answer into the answer for the original requester.
   */
  forward(
    msg: RequestMessage,
    method: string,
    params: unknown,
    map: (resp: ResponseMessage) => Answer = passAnswer,
  ): Inbound {
    const entry = this.inbound.open(msg.id, msg.method);
    const relayed = map === passAnswer ? this.relayLine(entry) : undefined;
    entry.outboundId = this.to.request(method, params, this.answerer(entry, map), relayed);
    return entry;
  }

  /**
   * `forward` of a request a fast path proved is `line` (call-scan.ts), unchanged but for its id:
   * true once it went on under the outbound id; false, having done nothing, when the other side
   * cannot take a spliced line or `admit` (the core's admission) refuses it.
   */
  forwardLine(call: ScannedCall, line: Buffer, admit: Admit): boolean {
    if (!this.to.takesSplice(line) || !admit(this.from, call)) return false;
    const entry = this.inbound.open(call.id, call.method);
    const answer = this.answerer(entry, passAnswer);
    entry.outboundId = this.to.requestLine(call.method, line, call.idEnd, answer, this.relayLine(entry));
    return true;
  }

  /** The answer of `entry`'s far-side request, mapped; none once it was answered locally (cancelled). */
  private answerer(entry: Inbound, map: (resp: ResponseMessage) => Answer): (resp: ResponseMessage) => void {
    return (resp) => {
      if (!entry.answered) this.reply(entry, relayedIf(resp, map(resp)));
    };
  }

  /** What `reply(entry, passAnswer(resp))` does, for a result line proven to be `resp` (call-scan.ts). */
  private relayLine(entry: Inbound): (line: Buffer, idEnd: number) => boolean {
    return (line, idEnd) => {
      if (entry.answered) return true;
      if (!this.from.takesSplice(line)) return false;
      entry.answered = true;
      this.inbound.close(entry.id);
      this.from.respondLine(entry.id, line, idEnd);
      return true;
    };
  }

  /** Track a request answered locally (no far-side request). */
  local(msg: RequestMessage): Inbound {
    return this.inbound.open(msg.id, msg.method);
  }

  /**
   * `$/cancel_request` from the `from` side: forward it with the outbound id, run a local cancel
   * hook; unknown or finished targets are dropped (H §7.3).
   */
  cancel(requestId: unknown, meta: unknown): void {
    if (typeof requestId !== "string" && typeof requestId !== "number") return;
    const entry = this.inbound.get(requestId);
    if (!entry || entry.answered) return;
    entry.onCancel?.();
    if (entry.outboundId !== undefined && !entry.answered) {
      const params: Record<string, unknown> = { requestId: entry.outboundId };
      if (meta !== undefined) params._meta = meta;
      this.to.notify("$/cancel_request", params);
    }
  }
}

/** `answer` to a far-side `resp`: an error answering an error is that error relayed. */
export function relayedIf(resp: ResponseMessage, answer: Answer): Answer {
  return resp.error !== undefined && "error" in answer && !isBridgeMade(resp)
    ? withMembers(answer, { relayed: true })
    : answer;
}

function passAnswer(resp: ResponseMessage): Answer {
  if (resp.error) return { error: resp.error };
  return { result: resp.result };
}
