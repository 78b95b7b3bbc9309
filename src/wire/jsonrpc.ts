// JSON-RPC 2.0 message shapes and classification for raw ACP traffic. Types and error constructors
// come from json-rpc-2.0; its server/client classes do not fit a proxy (they own ids, drop foreign
// responses), so routing is ours.
import { createJSONRPCErrorResponse, type JSONRPCErrorResponse, type JSONRPCID } from "json-rpc-2.0";
import { isObject } from "../base/json.js";

export type Id = JSONRPCID;

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface RequestMessage {
  jsonrpc: "2.0";
  id: Id;
  method: string;
  params?: unknown;
}

export interface NotificationMessage {
  jsonrpc: "2.0";
  method: string;
  params?: unknown;
}

export interface ResponseMessage {
  jsonrpc: "2.0";
  id: Id;
  result?: unknown;
  error?: RpcError;
}

/**
 * A valid message, with the line it was read from when there is one (not for a batch's items). The
 * line is set by `classify`, never added later: V8 keeps objects made as `{ ...c, line }` alive
 * across young collections (measured on node 20: megabytes promoted per collection, issue 9).
 */
export type Received =
  | { kind: "request"; msg: RequestMessage; line?: Buffer | undefined }
  | { kind: "notification"; msg: NotificationMessage; line?: Buffer | undefined }
  | { kind: "response"; msg: ResponseMessage; line?: Buffer | undefined };

export type Classified = Received | { kind: "invalid"; id: Id; reason: string };

export function isId(x: unknown): x is Id {
  return typeof x === "string" || typeof x === "number" || x === null;
}

/** Classify one parsed JSON value (not a batch), read from `line` if given. */
export function classify(v: unknown, line?: Buffer): Classified {
  if (!isObject(v)) return { kind: "invalid", id: null, reason: "a JSON-RPC message must be an object" };
  const id = v.id;
  const hasId = Object.hasOwn(v, "id");
  if (v.jsonrpc !== "2.0")
    return { kind: "invalid", id: hasId && isId(id) ? id : null, reason: 'jsonrpc must be "2.0"' };
  if (typeof v.method === "string") {
    if (v.params !== undefined && typeof v.params !== "object")
      return { kind: "invalid", id: hasId && isId(id) ? id : null, reason: "params must be an object or array" };
    if (!hasId) return { kind: "notification", msg: v as unknown as NotificationMessage, line };
    if (!isId(id)) return { kind: "invalid", id: null, reason: "id must be a string, number or null" };
    return { kind: "request", msg: v as unknown as RequestMessage, line };
  }
  if (Object.hasOwn(v, "method"))
    return { kind: "invalid", id: hasId && isId(id) ? id : null, reason: "method must be a string" };
  if (hasId && (Object.hasOwn(v, "result") || Object.hasOwn(v, "error"))) {
    if (!isId(id)) return { kind: "invalid", id: null, reason: "id must be a string, number or null" };
    if (Object.hasOwn(v, "error")) {
      const e = v.error;
      if (!isObject(e) || typeof e.code !== "number" || typeof e.message !== "string")
        return { kind: "invalid", id, reason: "error must have a numeric code and a string message" };
    }
    return { kind: "response", msg: v as unknown as ResponseMessage, line };
  }
  return {
    kind: "invalid",
    id: hasId && isId(id) ? id : null,
    reason: "neither a request, a notification nor a response",
  };
}

export function errorResponse(id: Id, error: RpcError): JSONRPCErrorResponse {
  return createJSONRPCErrorResponse(id, error.code, error.message, error.data);
}

export function resultResponse(id: Id, result: unknown): ResponseMessage {
  return { jsonrpc: "2.0", id, result };
}

export function request(id: Id, method: string, params: unknown): RequestMessage {
  return params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };
}

export function notification(method: string, params: unknown): NotificationMessage {
  return params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };
}
