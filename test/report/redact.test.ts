// Redacted examples (`--report`): the shape of a message without its text, paths or commands.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redact } from "../../src/report/redact.js";
import { numRuns } from "../support/properties.js";

const ENUM_KEYS = new Set([
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

/** Every string value of `x` with the key it sits under (array items: their array's key). */
function strings(x: unknown, key?: string, out: { key: string | undefined; value: string }[] = []) {
  if (typeof x === "string") out.push({ key, value: x });
  else if (Array.isArray(x)) for (const v of x) strings(v, key, out);
  else if (typeof x === "object" && x !== null) for (const [k, v] of Object.entries(x)) strings(v, k, out);
  return out;
}

describe("redact", () => {
  it("keeps keys, enum-like values, numbers, booleans and null, and replaces every other string by its length", () => {
    const msg = {
      sessionUpdate: "tool_call",
      title: "rm -rf /home/alice/secret",
      kind: "execute",
      status: "in_progress",
      rawInput: { command: "cat ~/.ssh/id_rsa", timeout: 30, shell: true, env: null },
    };
    expect(redact(msg)).toEqual({
      sessionUpdate: "tool_call",
      title: "…(25 chars)",
      kind: "execute",
      status: "in_progress",
      rawInput: { command: "…(17 chars)", timeout: 30, shell: true, env: null },
    });
  });

  it("keeps the value of an enum-like key only when it looks like an identifier", () => {
    expect(redact({ type: "text" })).toEqual({ type: "text" });
    expect(redact({ type: "my secret text" })).toEqual({ type: "…(14 chars)" });
    expect(redact({ kind: "/etc/passwd" })).toEqual({ kind: "…(11 chars)" });
  });

  it("collapses arrays longer than three to their first three and a count, and cuts deep nesting", () => {
    expect(redact([1, 2, 3, 4, 5])).toEqual([1, 2, 3, "…(+2)"]);
    const deep = { a: { b: { c: { d: { e: { f: { g: 1 } } } } } } };
    expect(redact(deep)).toEqual({ a: { b: { c: { d: { e: { f: "…(object)" } } } } } });
  });

  it("keeps a __proto__ key as data, never as the prototype", () => {
    const r = redact(JSON.parse('{"__proto__": {"x": "secret"}}')) as object;
    expect(Object.getPrototypeOf(r)).toBe(Object.prototype);
    expect(Object.keys(r)).toEqual(["__proto__"]);
  });

  it("lets no string of the input longer than 3 characters through but under an enum-like key", () => {
    const key = fc.oneof(fc.constantFrom(...ENUM_KEYS), fc.string({ maxLength: 12 }));
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        fc.string({ maxLength: 40 }),
        fc.constantFrom("agent_message_chunk", "session/prompt", "end_turn"),
        fc.double({ noNaN: true }),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie("value"), { maxLength: 6 }),
        fc.dictionary(key, tie("value"), { maxKeys: 6 }),
      ),
    })).value;
    fc.assert(
      fc.property(json, (input) => {
        const all = strings(input);
        const allowed = new Set(all.filter((s) => s.key !== undefined && ENUM_KEYS.has(s.key)).map((s) => s.value));
        const secret = new Set(all.map((s) => s.value).filter((v) => v.length > 3 && !allowed.has(v)));
        for (const s of strings(redact(input))) expect(secret.has(s.value)).toBe(false);
      }),
      { numRuns: numRuns() },
    );
  });
});
