// The bridge's one error vocabulary: every JSON-RPC error it makes, converters and engine alike,
// comes from a named constructor here, with a `data` that tells the user what to fix (`field`,
// `index`, `method`, `reason`...). Codes are ACP's (JSON-RPC's own plus ACP's -32000 range).

/** JSON-RPC error codes the bridge produces or reads (ACP reuses JSON-RPC's). */
export const ErrorCodes = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  requestCancelled: -32800,
  authRequired: -32000,
  resourceNotFound: -32002,
  unsupportedProtocolVersion: -32022,
} as const;

export interface ErrorData {
  /** Machine-readable cause, e.g. `not_absolute`, `unsupported`, `unknown_variant`. */
  readonly reason: string;
  /** Dotted or bracketed location of the offending field in the params, when there is one. */
  readonly field?: string;
  readonly index?: number | null;
  readonly [key: string]: unknown;
}

/** An error the bridge answers with: exactly the `error` object of a JSON-RPC response. */
export interface ConvertError {
  readonly code: number;
  readonly message: string;
  readonly data: ErrorData;
}

/** An error whose `data` may be left out: a -32800 (the request id says it all), a parse error. */
export interface BridgeError {
  readonly code: number;
  readonly message: string;
  readonly data?: ErrorData;
}

function make(code: number, message: string, data: ErrorData | undefined): BridgeError {
  return data === undefined ? { code, message } : { code, message, data };
}

/** The named constructors (`rpcErrors.invalidParams({field, reason})`...). */
export const rpcErrors = {
  parse: (data?: ErrorData): BridgeError => make(ErrorCodes.parseError, "Parse error", data),
  invalidRequest: (message = "Invalid Request", data?: ErrorData): BridgeError =>
    make(ErrorCodes.invalidRequest, message, data),
  methodNotFound: (data: ErrorData & { readonly method: string }): ConvertError => ({
    code: ErrorCodes.methodNotFound,
    message: "Method not found",
    data,
  }),
  invalidParams: (data: ErrorData, message = "Invalid params"): ConvertError => ({
    code: ErrorCodes.invalidParams,
    message,
    data,
  }),
  internal: (message = "Internal error", data?: ErrorData): BridgeError =>
    make(ErrorCodes.internalError, message, data),
  cancelled: (data?: ErrorData): BridgeError => make(ErrorCodes.requestCancelled, "Request cancelled", data),
  resourceNotFound: (data: ErrorData, message = "Resource not found"): ConvertError => ({
    code: ErrorCodes.resourceNotFound,
    message,
    data,
  }),
  /** A bound of mappings/limits.ts was reached: `data` names it, its value and the option that sets it. */
  limit: (row: { reason: string; option: string | undefined }, value: number): ConvertError => ({
    code: ErrorCodes.internalError,
    message: `Bridge limit reached: ${row.reason} (${value})`,
    data: { reason: row.reason, limit: value, ...(row.option === undefined ? {} : { option: row.option }) },
  }),
};

// ---- the bridge's own refusals, by situation ----------------------------------------------------------

/** -32600 for a request before `initialize` succeeded (H §1.3), or while it is still running. */
export function notInitialized(
  method: string,
  reason: "not_initialized" | "initialize_in_progress" = "not_initialized",
): BridgeError {
  return rpcErrors.invalidRequest(`ACP connection must be initialized before '${method}'`, { reason, method });
}

/**
 * -32603 for a message whose handling threw (a bridge bug, stopped by the crash barrier of
 * engine/bridge.ts): the request, or the request a response answers, named by its `method`; the
 * exception in `detail`. The bridge refuses that one message and keeps serving.
 */
export function translationFailed(method: string, detail: string): BridgeError {
  return rpcErrors.internal(`acp-bridge failed to translate '${method}'`, {
    reason: "translation_failed",
    method,
    detail,
  });
}

/** -32022 with `{requested, supported}` (v2 `UnsupportedProtocolVersionErrorData`) plus `reason`. */
export function unsupportedVersion(requested: number, supported: readonly number[]): ConvertError {
  return {
    code: ErrorCodes.unsupportedProtocolVersion,
    message: "Unsupported protocol version",
    data: { reason: "unsupported_protocol_version", requested, supported: [...supported] },
  };
}

/** -32601 for a `session/*` request when the v2 agent advertised no `session` (A, H §2.2). */
export function noSessionSurface(method: string): ConvertError {
  return rpcErrors.methodNotFound({ method, reason: "agent advertises no session surface" });
}

/** -32601 for `auth/logout` toward a v1 agent without `auth.logout` (H §3.1, docs/decisions.md). */
export function logoutUnsupported(): ConvertError {
  return rpcErrors.methodNotFound({ method: "auth/logout", reason: "v1 agent does not support logout" });
}

/** -32002 for a session the bridge knows is gone or unknown (emulated close/resume, H §2.3, §7.1). */
export function sessionNotFound(sessionId: string): ConvertError {
  return rpcErrors.resourceNotFound({ sessionId, reason: "session not found" });
}
