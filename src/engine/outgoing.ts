// What an engine handler produces: the messages to write, in the order they must reach their peers.
// Handlers return them and the engine core (TranslatingMode.write) writes them, so the route of a
// message can be read in the handler that made it: no wrapped `send` callbacks, no deferred sends.
import { rpcErrors, type ConvertError } from "../base/errors.js";
import type { Id, RequestMessage, ResponseMessage, RpcError } from "../wire/jsonrpc.js";
import type { Answer, Inbound } from "./relay.js";

export type Side = "client" | "agent";

export type Outgoing =
  /** A notification to serialize and write. */
  | { readonly kind: "notify"; readonly to: Side; readonly method: string; readonly params: unknown }
  /** A notification forwarded as its original bytes (the translation is the identity). */
  | { readonly kind: "raw"; readonly to: Side; readonly line: Buffer; readonly msg: object }
  /** An error answer to a request of `to` that no route tracks (refusals at dispatch). */
  | { readonly kind: "fail"; readonly to: Side; readonly id: Id; readonly error: RpcError }
  /** The answer to a request of `to` that a route tracks (its `entry`): answered once, then forgotten. */
  | { readonly kind: "answer"; readonly to: Side; readonly entry: Inbound; readonly answer: Answer }
  /** A request the bridge issues itself, in its place among the rest; `issued` learns its id. */
  | {
      readonly kind: "request";
      readonly to: Side;
      readonly method: string;
      readonly params: unknown;
      readonly answered: (resp: ResponseMessage) => void;
      readonly issued: (id: number) => void;
    };

/** Nothing to write. */
export const NOTHING: readonly Outgoing[] = [];

export function notify(to: Side, method: string, params: unknown): Outgoing {
  return { kind: "notify", to, method, params };
}

export function raw(to: Side, line: Buffer, msg: object): Outgoing {
  return { kind: "raw", to, line, msg };
}

export function fail(to: Side, id: Id, error: RpcError): Outgoing {
  return { kind: "fail", to, id, error };
}

/** A converter's typed error, as the JSON-RPC error of the client's request. */
export function rejected(msg: RequestMessage, error: ConvertError): readonly Outgoing[] {
  return [fail("client", msg.id, { code: error.code, message: error.message, data: error.data })];
}

/** The -32602 answer to a client request without a string `sessionId`. */
export function noSessionId(msg: RequestMessage): readonly Outgoing[] {
  return [fail("client", msg.id, rpcErrors.invalidParams({ field: "sessionId", reason: "not_string" }))];
}

export function answer(to: Side, entry: Inbound, a: Answer): Outgoing {
  return { kind: "answer", to, entry, answer: a };
}

export function request(
  to: Side,
  method: string,
  params: unknown,
  answered: (resp: ResponseMessage) => void,
  issued: (id: number) => void = () => undefined,
): Outgoing {
  return { kind: "request", to, method, params, answered, issued };
}
