// Hostile traffic for the fuzz suite (issue "Hostile input and faults", item 7): schema-derived
// messages of every method a side may send, mutated field by field; envelope and id abuse;
// batches; raw bytes and invalid UTF-8; nesting depth; oversize lines; prototype method names.
import fc from "fast-check";
import { anyJson, arb, jsonValue } from "../support/arbitrary.js";
import { methodDefs } from "../support/peers.js";
import type { SchemaVersion } from "../support/schema.js";

export type Side = "client" | "agent";

/** One generated input; `id: "track"` asks the driver for a fresh id it expects one answer to. */
export type Input =
  | { readonly kind: "message"; readonly from: Side; readonly msg: Record<string, unknown>; readonly track: boolean }
  | { readonly kind: "batch"; readonly from: Side; readonly items: { msg: unknown; track: boolean }[] }
  | { readonly kind: "raw"; readonly from: Side; readonly bytes: Buffer; readonly track: boolean };

/** The placeholder id the driver replaces by a unique tracked id (also inside raw bytes). */
export const TRACK = "@@track@@";

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  jsonValue,
  anyJson,
  fc.constantFrom(null, 0, -1, 1.5, 2 ** 60, "", "\u0000", [], {}, true, { __proto__: { x: 1 } }, "../../etc"),
);

/** Set a random path of `value` (objects and arrays) to `replacement`. */
function mutate(value: unknown, pick: number, replacement: unknown): unknown {
  const paths: (string | number)[][] = [];
  const walk = (v: unknown, path: (string | number)[]) => {
    if (paths.length > 200) return;
    const children: [string | number, unknown][] = Array.isArray(v)
      ? v.map((x, i): [number, unknown] => [i, x])
      : typeof v === "object" && v !== null
        ? Object.entries(v)
        : [];
    for (const [key, child] of children) {
      paths.push([...path, key]);
      walk(child, [...path, key]);
    }
  };
  walk(value, []);
  if (paths.length === 0) return replacement;
  const path = paths[pick % paths.length] ?? [];
  const copy = JSON.parse(JSON.stringify(value)) as Record<string | number, unknown>;
  let at: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  at[path[path.length - 1] ?? 0] = replacement;
  return copy;
}

/** Methods a side sends, from the schema's own `x-side` annotations. */
function methods(version: SchemaVersion, from: Side) {
  const d = methodDefs(version);
  const receiver = from === "client" ? "agent" : "client";
  const pick = (m: Map<string, { def: string; side: string }>) =>
    [...m].filter(([, v]) => v.side === receiver).map(([method, v]) => ({ method, def: v.def }));
  return { requests: pick(d.requests), notifications: pick(d.notifications) };
}

function schemaMessages(
  version: SchemaVersion,
  from: Side,
): fc.Arbitrary<{ msg: Record<string, unknown>; track: boolean }> {
  const { requests, notifications } = methods(version, from);
  const params = (def: string) =>
    fc.oneof(
      { weight: 3, arbitrary: arb(version, def) },
      {
        weight: 2,
        arbitrary: fc.tuple(arb(version, def), fc.nat(), hostileValue).map(([p, pick, bad]) => mutate(p, pick, bad)),
      },
    );
  const request = fc
    .constantFrom(...requests)
    .chain((r) =>
      params(r.def).map((p) => ({ msg: { jsonrpc: "2.0", id: TRACK, method: r.method, params: p }, track: true })),
    );
  const note = fc
    .constantFrom(...notifications)
    .chain((n) => params(n.def).map((p) => ({ msg: { jsonrpc: "2.0", method: n.method, params: p }, track: false })));
  return fc.oneof({ weight: 3, arbitrary: request }, { weight: 2, arbitrary: note });
}

/** Envelopes JSON-RPC forbids, ids of every kind, answers to nothing, prototype method names. */
function envelopes(): fc.Arbitrary<{ msg: Record<string, unknown>; track: boolean }> {
  const anyId = fc.oneof(fc.constantFrom(null, 1.5, 2 ** 53 + 2, -7, "", {}, [], true), fc.nat(60));
  return fc.oneof(
    fc
      .record({ jsonrpc: fc.constantFrom("1.0", 2, null), id: anyId, method: fc.string() })
      .map((msg) => ({ msg, track: false })),
    fc.record({ jsonrpc: fc.constant("2.0"), id: anyId, method: hostileValue }).map((msg) => ({ msg, track: false })),
    fc
      .record({
        jsonrpc: fc.constant("2.0"),
        id: fc.constant(TRACK),
        method: fc.string(),
        params: fc.constantFrom(5, "x", true),
      })
      .map((msg) => ({ msg, track: true })),
    fc
      .constantFrom("__proto__", "constructor", "toString", "hasOwnProperty", "session/__proto__", "_acp-bridge/x")
      .map((method) => ({ msg: { jsonrpc: "2.0", id: TRACK, method, params: {} }, track: true })),
    // Answers: to nothing, malformed, or to ids the bridge may have in flight.
    fc.record({ jsonrpc: fc.constant("2.0"), id: anyId, error: hostileValue }).map((msg) => ({ msg, track: false })),
    fc
      .record({ jsonrpc: fc.constant("2.0"), id: fc.nat(60), result: hostileValue })
      .map((msg) => ({ msg, track: false })),
  );
}

/** Where string literals start in a compact JSON text (after their opening quote), but the tracked id's; keys marked. */
function stringStarts(text: string): { at: number; key: boolean }[] {
  const out: { at: number; key: boolean }[] = [];
  let open: { at: number; key: boolean } | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (open) {
      if (c === "\\") i++;
      else if (c === '"') {
        open.key = text[i + 1] === ":";
        if (!text.startsWith(TRACK, open.at)) out.push(open);
        open = undefined;
      }
    } else if (c === '"') open = { at: i + 1, key: false };
  }
  return out;
}

/**
 * Escapes JSON allows and JSON.stringify never writes raw (a lone surrogate, a pair, NUL), and ones
 * it forbids (a bad `\u`, an unknown escape, a truncated one, a bare control character): a line
 * with one of the latter is no JSON, and answered -32700.
 */
const validEscapes = ["\\ud800", "\\udc00", "\\udbff\\udfff", "\\u0000", "\\ud800\\ud800", "\\uDFFF"];
const invalidEscapes = ["\\uZZZZ", "\\x41", "\\ud80", "\u0001", "\t", "\\", "\\U0041"];

/** A schema message of `from` as its text, with an escape put at the start of one of its strings (keys too). */
function escaped(version: SchemaVersion, from: Side): fc.Arbitrary<Input> {
  return fc
    .tuple(schemaMessages(version, from), fc.nat(), fc.boolean(), fc.nat())
    .map(([{ msg, track }, where, valid, which]) => {
      const text = JSON.stringify(msg);
      const starts = stringStarts(text);
      const list = valid ? validEscapes : invalidEscapes;
      const esc = list[which % list.length] ?? "";
      const { at, key } = starts[where % Math.max(1, starts.length)] ?? { at: 1, key: true };
      const bytes = Buffer.from(text.slice(0, at) + esc + text.slice(at));
      // A request stays one when its JSON does and its keys are intact (an `id` key with an escape
      // before it is no id): then it is tracked, one answer under its id.
      return { kind: "raw" as const, from, bytes, track: track && valid && !key };
    });
}

function rawBytes(from: Side, version: SchemaVersion): fc.Arbitrary<Input> {
  const garbage = fc.uint8Array({ minLength: 1, maxLength: 64 }).map((a) => Buffer.from(a.filter((b) => b !== 0x0a)));
  const badUtf8 = fc
    .constantFrom([0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80])
    .map((bad) =>
      Buffer.concat([
        Buffer.from(
          `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a`,
        ),
        Buffer.from(bad),
        Buffer.from('b"}}}}'),
      ]),
    );
  const truncated = schemaMessages(version, from).chain(({ msg }) => {
    const text = JSON.stringify(msg);
    return fc.nat(text.length - 1).map((n) => Buffer.from(text.slice(0, n)));
  });
  const depth = fc
    .integer({ min: 600, max: 4000 })
    .map((n) =>
      Buffer.from(`{"jsonrpc":"2.0","id":"${TRACK}","method":"x","params":${"[".repeat(n)}${"]".repeat(n)}}`),
    );
  const oversize = fc.constant(
    Buffer.from(`{"jsonrpc":"2.0","method":"session/prompt","params":{"t":"${"a".repeat(70_000)}"},"id":"${TRACK}"}`),
  );
  return fc.oneof(
    { weight: 3, arbitrary: garbage.map((bytes) => ({ kind: "raw" as const, from, bytes, track: false })) },
    { weight: 2, arbitrary: badUtf8.map((bytes) => ({ kind: "raw" as const, from, bytes, track: false })) },
    { weight: 2, arbitrary: truncated.map((bytes) => ({ kind: "raw" as const, from, bytes, track: false })) },
    { weight: 1, arbitrary: depth.map((bytes) => ({ kind: "raw" as const, from, bytes, track: true })) },
    { weight: 1, arbitrary: oversize.map((bytes) => ({ kind: "raw" as const, from, bytes, track: true })) },
    { weight: 3, arbitrary: escaped(version, from) },
  );
}

/** Inputs from both peers of a connection whose sides speak `client` and `agent`. */
export function hostileTraffic(versions: { client: SchemaVersion; agent: SchemaVersion }): fc.Arbitrary<Input> {
  const side = (from: Side) => {
    const version = versions[from];
    const one = fc.oneof(
      { weight: 5, arbitrary: schemaMessages(version, from) },
      { weight: 2, arbitrary: envelopes() },
    );
    return fc.oneof(
      { weight: 12, arbitrary: one.map((m) => ({ kind: "message" as const, from, ...m })) },
      {
        weight: 2,
        arbitrary: fc
          .array(fc.oneof(one, fc.constant({ msg: 17, track: false })), { minLength: 1, maxLength: 4 })
          .map((items) => ({
            kind: "batch" as const,
            from,
            items,
          })),
      },
      { weight: 3, arbitrary: rawBytes(from, version) },
    );
  };
  return fc.oneof(side("client"), side("agent"));
}
