// Which `$defs` entry a wire message must satisfy: looked up from the schema's own `x-method` and
// `x-side` annotations (the root message schema accepts any params, so it proves nothing).
import { methodDefs } from "./peers.js";
import { check, type SchemaVersion } from "./schema.js";

/** The params and result `$defs` of a method (any side). */
export function defsFor(version: SchemaVersion, method: string): { params?: string; result?: string } | undefined {
  const d = methodDefs(version);
  const params = d.requests.get(method)?.def ?? d.notifications.get(method)?.def;
  const result = d.responses.get(method);
  if (params === undefined && result === undefined) return undefined;
  return { ...(params === undefined ? {} : { params }), ...(result === undefined ? {} : { result }) };
}

/**
 * Problems of one message against its schema; `methodOf` names the method a response answers.
 * Extension (`_`) methods and unknown methods are opaque and not checked.
 */
export function wireProblems(
  version: SchemaVersion,
  msg: unknown,
  methodOf: (id: unknown) => string | undefined,
): string | undefined {
  if (Array.isArray(msg)) {
    for (const m of msg) {
      const p = wireProblems(version, m, methodOf);
      if (p) return p;
    }
    return undefined;
  }
  const o = msg as { method?: string; id?: unknown; params?: unknown; result?: unknown; error?: unknown };
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
