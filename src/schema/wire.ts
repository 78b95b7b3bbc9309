// Which `$defs` entry a wire message must satisfy, looked up from the schema's own `x-method` and
// `x-side` annotations (the root message schema accepts any params, so it proves nothing). Used by
// `--strict` and by the tests for every message the bridge emits.
import { check, schemaOf, type SchemaVersion } from "./validate.js";

interface MethodDefs {
  readonly requests: Map<string, { def: string; side: string }>;
  readonly notifications: Map<string, { def: string; side: string }>;
  readonly responses: Map<string, string>;
}

const defsCache = new Map<SchemaVersion, MethodDefs>();

/**
 * Params and result `$defs` per method, from the schema's `x-method` / `x-side` annotations (who
 * handles each): for defsFor, `acp-bridge check`, the test peers' and the fuzzer's schema checks.
 */
export function methodDefs(version: SchemaVersion): MethodDefs {
  let d = defsCache.get(version);
  if (d) return d;
  d = { requests: new Map(), notifications: new Map(), responses: new Map() };
  for (const [name, def] of Object.entries(schemaOf(version).$defs)) {
    const method = def["x-method"];
    const side = def["x-side"];
    if (typeof method !== "string" || typeof side !== "string") continue;
    if (name.endsWith("Response")) d.responses.set(method, name);
    else if (name.endsWith("Notification")) d.notifications.set(method, { def: name, side });
    else if (name.endsWith("Request")) d.requests.set(method, { def: name, side });
  }
  defsCache.set(version, d);
  return d;
}

/** The params and result `$defs` of a method (any side): for `acp-bridge doctor`, and the invalid-input property's generators. */
export function defsFor(version: SchemaVersion, method: string): { params?: string; result?: string } | undefined {
  const d = methodDefs(version);
  const params = d.requests.get(method)?.def ?? d.notifications.get(method)?.def;
  const result = d.responses.get(method);
  if (params === undefined && result === undefined) return undefined;
  return { ...(params === undefined ? {} : { params }), ...(result === undefined ? {} : { result }) };
}

/**
 * The first problem of one message (or batch reply) against its schema; `methodOf` names the
 * method a response answers. Extension (`_`) methods and unknown methods are opaque.
 */
export function messageProblem(
  version: SchemaVersion,
  msg: unknown,
  methodOf: (id: unknown) => string | undefined,
): string | undefined {
  if (Array.isArray(msg)) {
    for (const m of msg) {
      const p = messageProblem(version, m, methodOf);
      if (p) return p;
    }
    return undefined;
  }
  if (typeof msg !== "object" || msg === null) return "not a JSON-RPC object";
  const o = msg as { method?: unknown; id?: unknown; params?: unknown; result?: unknown; error?: unknown };
  if (typeof o.method === "string") {
    const defs = defsFor(version, o.method);
    if (!defs?.params) return undefined;
    const problems = check(version, defs.params, o.params);
    return problems
      ? `${o.method} params are not a valid ${version} ${defs.params}: ${JSON.stringify(problems)}`
      : undefined;
  }
  if (o.error !== undefined) {
    const problems = check(version, "Error", o.error);
    return problems ? `error is not a valid ${version} Error: ${JSON.stringify(problems)}` : undefined;
  }
  const method = methodOf(o.id);
  if (method === undefined) return undefined;
  const defs = defsFor(version, method);
  if (!defs?.result) return undefined;
  const problems = check(version, defs.result, o.result);
  return problems
    ? `${method} result is not a valid ${version} ${defs.result}: ${JSON.stringify(problems)}`
    : undefined;
}
