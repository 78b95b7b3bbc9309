// Redacted examples for `--report`: the shape of a message (its keys, its enum-like values, its
// numbers) without anything a person wrote or a machine named: no text, no path, no command. A
// report is meant to be shared with the bridge's maintainers; what it shows of a message must not
// leak the session.

/** Keys whose string values name a variant, not content: kept when they look like an identifier. */
const ENUM_KEYS: ReadonlySet<string> = new Set([
  "sessionUpdate",
  "type",
  "kind",
  "status",
  "method",
  "stopReason",
  "role",
  "jsonrpc",
  "protocolVersion",
]);

/** What an enum value looks like: an identifier, a method name; never a sentence or a path. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_./-]{0,63}$/;

const MAX_DEPTH = 6;
const MAX_ITEMS = 3;
const MAX_MEMBERS = 16;
const MAX_KEY_CHARS = 40;

/** A key as reports show it: at most MAX_KEY_CHARS characters. */
export function shownKey(key: string): string {
  return key.length <= MAX_KEY_CHARS ? key : `${key.slice(0, MAX_KEY_CHARS)}…`;
}

/** Whether `value` under `key` is kept as it is (an enum-like key, an identifier value). */
export function keptEnum(key: string | undefined, value: string): boolean {
  return key !== undefined && ENUM_KEYS.has(key) && IDENTIFIER.test(value);
}

/**
 * `value` with its structure and keys kept, the values of enum-like keys kept, numbers, booleans
 * and null kept, and every other string replaced by its length; arrays beyond 3 items and objects
 * beyond 16 members are cut (what is left says how many went), and so is what nests beyond 6 levels.
 */
export function redact(value: unknown, key?: string, depth = 0): unknown {
  if (typeof value === "string") return keptEnum(key, value) ? value : `…(${String(value.length)} chars)`;
  if (typeof value !== "object" || value === null) return value;
  if (depth >= MAX_DEPTH) return Array.isArray(value) ? "…(array)" : "…(object)";
  if (Array.isArray(value)) {
    const out = value.slice(0, MAX_ITEMS).map((v) => redact(v, undefined, depth + 1));
    if (value.length > MAX_ITEMS) out.push(`…(+${String(value.length - MAX_ITEMS)})`);
    return out;
  }
  const out: Record<string, unknown> = {};
  let n = 0;
  let more = 0;
  for (const [k, v] of Object.entries(value)) {
    if (n++ >= MAX_MEMBERS) {
      more++;
      continue;
    }
    // Own data properties only: a key `__proto__` must not set the prototype.
    Object.defineProperty(out, shownKey(k), {
      value: redact(v, k, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  if (more > 0) out["…"] = `+${String(more)} members`;
  return out;
}
