// fast-check arbitraries compiled from the official JSON Schemas, so generated messages follow the
// schema as it evolves. Handles the subset those files use ($ref, anyOf/oneOf, allOf, const, not,
// objects, arrays, formats) and biases toward edge cases: null versus omitted, `_meta` everywhere,
// unknown `_`-prefixed and future tags in open unions, empty arrays, unicode, long strings, and
// unknown extra keys (named `zz…`, so they never collide with a protocol field).
import fc from "fast-check";
import { schemaOf, type SchemaVersion } from "../../src/schema/validate.js";

/**
 * A constant object or array, new at every draw: one shared instance would carry a mutation from
 * one run (or, with the source project's shared modules, one test file) into the next.
 */
export function fresh<T>(value: T): fc.Arbitrary<T> {
  return fc.constant(null).map(() => structuredClone(value));
}

type Node = Record<string, unknown>;
type Arb = fc.Arbitrary<unknown>;

export interface ArbOptions {
  /** Replace the arbitrary of a `$defs` entry wherever it is referenced. */
  readonly overrides?: Readonly<Record<string, Arb>>;
  /** Add unknown `zz…` keys to open objects now and then (default true). */
  readonly extraKeys?: boolean;
}

const KEY_WORDS = ["alpha", "beta", "x", "k1", "trace", "vendor", "ü", "日本", "emoji😀", ""];

// ---- any string (issue 19): what a peer's JSON string may hold, which the bridge must survive ----

/** One code unit or code point: mostly any code point, now and then a lone surrogate or a control. */
const hostileUnit: fc.Arbitrary<string> = fc.oneof(
  { weight: 12, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)) },
  { weight: 1, arbitrary: fc.constantFrom('"', "\\", "\u2028", "\u007f", "\ufeff", "\ufffd", "%", "/", "\\\\") },
);

/** Strings that broke, or could break, code expecting a tame one. */
const notableStrings = [
  "",
  "\ud800",
  "\udfff",
  "\udc00\ud800",
  "not a uri \ud800",
  "x\ud83d",
  "😀",
  "\u0000",
  "__proto__",
  "constructor",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "%zz",
  "%",
  "C:\\",
  "\\\\",
  "..",
  "/",
  "file://",
  "urn:",
  " ",
];

/**
 * Any string a JSON text can carry: lone high and low surrogates, pairs, non-BMP, controls, empty,
 * the notable ones above, and now and then a huge one (thousands of code units: rarely, and short
 * enough that a stash of it stays within the default bound, so round trips stay exact).
 */
export const anyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 30, arbitrary: fc.string({ unit: hostileUnit, maxLength: 12 }) },
  { weight: 8, arbitrary: fc.constantFrom(...notableStrings) },
  { weight: 4, arbitrary: fc.string({ maxLength: 8 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.string({ unit: hostileUnit, minLength: 1, maxLength: 4 }), fc.integer({ min: 1_000, max: 2_000 }))
      .map(([s, n]) => s.repeat(n)),
  },
);

/** Object keys as a peer may send them (`__proto__`, `toString`, the stash's own key included). */
export const anyKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.string({ unit: hostileUnit, maxLength: 6 }) },
  { weight: 2, arbitrary: fc.constantFrom(...notableStrings) },
  { weight: 1, arbitrary: fc.constant("acp-bridge") },
);

/** Keys that `_meta` may carry: a few realistic ones plus any, never the bridge's own. */
const metaKey = fc.oneof(
  fc.constantFrom("traceparent", "tracestate", "baggage", "requestId", "vendor.io/x", "_private"),
  fc.string({ maxLength: 8 }).filter((k) => k !== "acp-bridge"),
  anyKey.filter((k) => k !== "acp-bridge"),
);

/** Numbers JSON.parse may give: integers beyond 2^53, -0, fractions, huge exponents. */
const anyNumber: fc.Arbitrary<number> = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: -5, max: 1000 }) },
  { weight: 2, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.constantFrom(-0, 2 ** 53 + 2, -(2 ** 60), 1e308, 5e-324, 0.5, -1, 2 ** 32) },
);

/**
 * Any JSON value, as JSON.parse gives it: own `__proto__` keys (an object literal could not make
 * one), any strings and keys, any numbers; up to a few levels deep.
 */
export const anyJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    anyString,
    anyNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.array(fc.tuple(anyKey, tie("value")), { maxLength: 4 }).map((entries) => Object.fromEntries(entries) as unknown),
  ),
})).value;

/** JSON without -0 (it does not survive a JSON round trip) and without `undefined`. */
export const jsonValue: fc.Arbitrary<unknown> = fc
  .jsonValue({ maxDepth: 2, depthSize: "small" })
  .map((v) => JSON.parse(JSON.stringify(v)) as unknown);

const metaObject: Arb = fc.oneof(
  { weight: 2, arbitrary: fresh({}) },
  { weight: 3, arbitrary: fc.dictionary(metaKey, jsonValue, { minKeys: 1, maxKeys: 3 }) },
  {
    weight: 1,
    arbitrary: fresh({ traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" }),
  },
);

/** A string field of a message: any string now and then (issue 19: every string field, every message). */
const plainString: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constant("") },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 8 }) },
  { weight: 1, arbitrary: fc.string({ minLength: 200, maxLength: 400 }) },
  { weight: 3, arbitrary: anyString },
);

/** A tag that is no known variant: an extension (`_x`) or a future value. */
const openTag: fc.Arbitrary<string> = fc.oneof(
  fc.stringMatching(/^_[a-z][a-z_]{0,8}$/),
  fc.stringMatching(/^future_[a-z]{1,6}$/),
);

const absolutePath: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      { weight: 8, arbitrary: fc.stringMatching(/^[a-z0-9._-]{1,8}$/) },
      { weight: 2, arbitrary: fc.constantFrom("my dir", "ünï", "日本", 'a"b') },
      { weight: 1, arbitrary: anyString.filter((p) => p !== "") },
    ),
    {
      minLength: 1,
      maxLength: 4,
    },
  )
  .map((parts) => "/" + parts.join("/"));

const defaultOverrides: Record<string, Arb> = {
  AbsolutePath: absolutePath,
};

function numberArb(node: Node, integer: boolean): Arb {
  const format = node.format as string | undefined;
  let min = typeof node.minimum === "number" ? node.minimum : undefined;
  let max = typeof node.maximum === "number" ? node.maximum : undefined;
  const ranges: Record<string, [number, number]> = {
    uint16: [0, 0xffff],
    uint32: [0, 2 ** 32 - 1],
    int32: [-(2 ** 31), 2 ** 31 - 1],
    int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
    uint64: [0, Number.MAX_SAFE_INTEGER],
  };
  const r = format ? ranges[format] : undefined;
  if (r) {
    min = Math.max(min ?? r[0], r[0]);
    max = Math.min(max ?? r[1], r[1]);
  }
  if (integer || r) {
    const lo = min ?? -1000;
    const hi = max ?? 1_000_000;
    return fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: Math.max(lo, -1000), max: Math.min(hi, 1000) }) },
      { weight: 1, arbitrary: fc.constantFrom(lo, hi) },
      { weight: 1, arbitrary: fc.integer({ min: lo, max: hi }) },
    );
  }
  return fc
    .double({
      noNaN: true,
      noDefaultInfinity: true,
      ...(min !== undefined ? { min } : {}),
      ...(max !== undefined ? { max } : {}),
    })
    .map((x) => (Object.is(x, -0) ? 0 : x));
}

function stringArb(node: Node): Arb {
  if (node.title === "unknown" || node.title === "other") return openTag;
  const format = node.format as string | undefined;
  if (format === "uri")
    return fc.oneof(
      fc.constantFrom("file:///w/a.txt", "https://example.com/x?y=1", "urn:isbn:0451450523", "mcp://srv/res"),
      fc.webUrl(),
    );
  if (format === "date-time")
    return fc
      .date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true })
      .map((d) => d.toISOString());
  if (format === "regex") return fc.constantFrom("^a+$", ".*", "[0-9]{3}");
  if (node.contentEncoding === "base64") return fc.base64String({ maxLength: 40 });
  const minLength = typeof node.minLength === "number" ? node.minLength : 0;
  if (minLength > 0) return fc.string({ minLength, maxLength: minLength + 12 });
  return plainString;
}

/** Tag values a `not: {anyOf: [{properties: {k: {const}}}]}` excludes, by key. */
function forbiddenTags(not: unknown): Map<string, Set<unknown>> {
  const out = new Map<string, Set<unknown>>();
  const branches = (not as Node | undefined)?.anyOf;
  if (!Array.isArray(branches)) return out;
  for (const b of branches as Node[]) {
    const props = b.properties as Record<string, Node> | undefined;
    for (const [k, p] of Object.entries(props ?? {})) {
      if ("const" in p) {
        let set = out.get(k);
        if (!set) out.set(k, (set = new Set()));
        set.add(p.const);
      }
    }
  }
  return out;
}

class Compiler {
  private readonly defs: Record<string, Node>;
  private readonly cache = new Map<string, Arb>();
  private readonly overrides: Record<string, Arb>;

  constructor(
    version: SchemaVersion,
    private readonly opts: ArbOptions,
  ) {
    this.defs = schemaOf(version).$defs;
    this.overrides = { ...defaultOverrides, ...(opts.overrides ?? {}) };
  }

  def(name: string): Arb {
    const cached = this.cache.get(name);
    if (cached) return cached;
    const override = this.overrides[name];
    const node = this.defs[name];
    if (!override && !node) throw new Error(`no $defs/${name}`);
    // Defer compilation so mutually referencing definitions need no ordering.
    const arb = override ?? fc.constant(null).chain(() => this.node(node as Node));
    this.cache.set(name, arb);
    return arb;
  }

  node(node: Node): Arb {
    if (typeof node.$ref === "string") return this.def(node.$ref.replace("#/$defs/", ""));
    if ("const" in node) return fc.constant(node.const);
    if (Array.isArray(node.anyOf) || Array.isArray(node.oneOf)) {
      const branches = ((node.anyOf ?? node.oneOf) as Node[]).map((b) => this.node(b));
      const union = fc.oneof(...branches);
      if (node.properties === undefined) return union;
      // Shared fields beside a union of variants: generate both and merge.
      const rest: Node = { ...node };
      delete rest.anyOf;
      delete rest.oneOf;
      return fc.tuple(this.object(rest), union).map(([a, b]) => ({ ...(a as object), ...(b as object) }));
    }
    if (Array.isArray(node.allOf) && node.properties === undefined && node.type === undefined) {
      const parts = (node.allOf as Node[]).map((p) => this.node(p));
      if (parts.length === 1) return parts[0]!;
      return fc.tuple(...parts).map((vs) => Object.assign({}, ...(vs as object[])) as unknown);
    }
    const type = node.type;
    if (Array.isArray(type)) {
      return fc.oneof(...(type as string[]).map((t) => this.node({ ...node, type: t })));
    }
    switch (type) {
      case "null":
        return fc.constant(null);
      case "boolean":
        return fc.boolean();
      case "integer":
        return numberArb(node, true);
      case "number":
        return numberArb(node, false);
      case "string":
        return stringArb(node);
      case "array":
        return this.array(node);
      case "object":
        return this.object(node);
      default:
        if (node.properties !== undefined) return this.object(node);
        return jsonValue; // `{}` or `true`: any JSON
    }
  }

  private array(node: Node): Arb {
    const item = node.items ? this.node(node.items as Node) : jsonValue;
    const minLength = typeof node.minItems === "number" ? node.minItems : 0;
    return fc.oneof(
      { weight: 1, arbitrary: fc.array(item, { minLength, maxLength: minLength }) },
      { weight: 4, arbitrary: fc.array(item, { minLength, maxLength: Math.max(minLength, 3) }) },
    );
  }

  private object(node: Node): Arb {
    const props = (node.properties ?? {}) as Record<string, Node>;
    const required = new Set((node.required ?? []) as string[]);
    const forbidden = forbiddenTags(node.not);
    const model: Record<string, Arb> = {};
    for (const [key, p] of Object.entries(props)) {
      const banned = forbidden.get(key);
      if (banned) model[key] = openTag.filter((t) => !banned.has(t));
      else if (key === "_meta")
        model[key] =
          p.type && (p.type as string[]).includes("null") ? fc.oneof(metaObject, fc.constant(null)) : metaObject;
      else model[key] = this.node(p);
    }
    const own = fc.record(model, { requiredKeys: [...required].filter((k) => k in model) });
    const parts = ((node.allOf ?? []) as Node[]).map((p) => this.node(p));
    const open = node.additionalProperties !== false && this.opts.extraKeys !== false;
    const typedExtras = typeof node.additionalProperties === "object" && node.additionalProperties !== null;
    const extras: Arb = typedExtras
      ? fc.dictionary(fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,8}$/), this.node(node.additionalProperties as Node), {
          maxKeys: 3,
        })
      : open
        ? fc.oneof(
            { weight: 9, arbitrary: fresh({}) },
            {
              weight: 1,
              arbitrary: fc.dictionary(
                fc.constantFrom(...KEY_WORDS).map((w) => `zz${w}`),
                jsonValue,
                { maxKeys: 2 },
              ),
            },
          )
        : fresh({});
    // allOf parts first, then the object's own properties (they carry the discriminator tag).
    return fc
      .tuple(extras, ...parts, own)
      .map((vs) => JSON.parse(JSON.stringify(Object.assign({}, ...(vs as object[])))) as unknown);
  }
}

const compilers = new Map<string, Compiler>();

/** A schema-derived arbitrary for `$defs/<def>` of the given schema version. */
export function arb(version: SchemaVersion, def: string, opts: ArbOptions = {}): Arb {
  const plain = opts.overrides === undefined && opts.extraKeys === undefined;
  const key = version;
  let c = plain ? compilers.get(key) : undefined;
  if (!c) {
    c = new Compiler(version, opts);
    if (plain) compilers.set(key, c);
  }
  return c.def(def);
}

/** Every `$defs` name `arb` can compile for a version (all of them, by construction). */
export function defNames(version: SchemaVersion): string[] {
  return Object.keys(schemaOf(version).$defs);
}
