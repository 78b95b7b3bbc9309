// Validation of raw messages against the SDK's shipped JSON Schemas, one validator per `$defs`
// name, compiled lazily (compiling costs ~100 ms a definition, so never at start-up).
// Used by the tests for every emitted message and by the bridge's optional `--strict` mode.

import { createRequire } from "node:module";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsNs from "ajv-formats";

const addFormats = addFormatsNs.default;
const require = createRequire(import.meta.url);

export type SchemaVersion = "v1" | "v2" | "v1u" | "v2u";

const files: Record<SchemaVersion, string> = {
  v1: "@agentclientprotocol/sdk/schema/v1/schema.json",
  v2: "@agentclientprotocol/sdk/schema/v2/schema.json",
  v1u: "@agentclientprotocol/sdk/schema/v1/schema.unstable.json",
  v2u: "@agentclientprotocol/sdk/schema/v2/schema.unstable.json",
};

interface Schema {
  $defs: Record<string, Record<string, unknown>>;
}

let ajv: Ajv2020 | undefined;
const loaded = new Map<SchemaVersion, Schema>();
const cache = new Map<string, ValidateFunction>();

export function schemaOf(version: SchemaVersion): Schema {
  let s = loaded.get(version);
  if (!s) {
    s = require(files[version]) as Schema;
    loaded.set(version, s);
  }
  return s;
}

function instance(): Ajv2020 {
  if (ajv) return ajv;
  // verbose: a failed union's error carries its branches, so that a tagged union is judged by its tag.
  const a = new Ajv2020({ strict: true, allErrors: true, verbose: true });
  addFormats(a, ["uri", "date-time", "regex"]);
  const int = (min: number, max: number) => ({
    type: "number" as const,
    validate: (x: number) => Number.isInteger(x) && x >= min && x <= max,
  });
  a.addFormat("int32", int(-(2 ** 31), 2 ** 31 - 1));
  a.addFormat("uint16", int(0, 0xffff));
  a.addFormat("uint32", int(0, 2 ** 32 - 1));
  a.addFormat("int64", int(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
  a.addFormat("uint64", int(0, Number.MAX_SAFE_INTEGER));
  a.addFormat("double", { type: "number", validate: Number.isFinite });
  a.addVocabulary([
    "x-side",
    "x-method",
    "x-docs-ignore",
    "x-deserialize-default-on-error",
    "x-deserialize-skip-invalid-items",
    "x-deserialize-default-on-null",
    "discriminator",
  ]);
  for (const v of Object.keys(files) as SchemaVersion[]) a.addSchema(schemaOf(v), `acp:${v}`);
  ajv = a;
  return a;
}

function hasDef(version: SchemaVersion, def: string): boolean {
  return Object.hasOwn(schemaOf(version).$defs, def);
}

/** The validator of a JSON pointer into a version's schema (a whole `$defs` entry, or a union's branch). */
function validatorAt(version: SchemaVersion, pointer: string): ValidateFunction {
  const key = `${version}#${pointer}`;
  let fn = cache.get(key);
  if (!fn) {
    const got = instance().getSchema(`acp:${version}#${pointer}`);
    if (!got) throw new Error(`cannot compile ${key}`);
    fn = got;
    cache.set(key, fn);
  }
  return fn;
}

function validatorFor(version: SchemaVersion, def: string): ValidateFunction {
  if (!hasDef(version, def)) throw new Error(`no $defs/${def} in the ${version} schema`);
  return validatorAt(version, `/$defs/${def}`);
}

export interface SchemaProblem {
  /** JSON pointer into the value checked (`/` for the value itself). */
  readonly path: string;
  /** What the schema wanted, in words. */
  readonly message: string;
}

type Node = Record<string, unknown>;
const isNode = (x: unknown): x is Node => typeof x === "object" && x !== null && !Array.isArray(x);
const escape = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");
const unescape = (s: string) => s.replace(/~1/g, "/").replace(/~0/g, "~");

const unionCache = new Map<SchemaVersion, Map<unknown, string>>();

/** Where each union (`anyOf`/`oneOf` array) of a schema is, by identity: Ajv's verbose errors carry the array. */
function unionPointers(version: SchemaVersion): Map<unknown, string> {
  let found = unionCache.get(version);
  if (found) return found;
  const map = new Map<unknown, string>();
  const visit = (node: unknown, pointer: string): void => {
    if (Array.isArray(node)) {
      node.forEach((n, i) => {
        visit(n, `${pointer}/${String(i)}`);
      });
      return;
    }
    if (!isNode(node)) return;
    for (const [k, v] of Object.entries(node)) {
      if ((k === "anyOf" || k === "oneOf") && Array.isArray(v)) map.set(v, `${pointer}/${k}`);
      visit(v, `${pointer}/${escape(k)}`);
    }
  };
  for (const [name, def] of Object.entries(schemaOf(version).$defs)) visit(def, `/$defs/${escape(name)}`);
  unionCache.set(version, map);
  found = map;
  return found;
}

/** The property whose constant tells a union's branches apart (`type`, `sessionUpdate`), and each tag's branch. */
function tagsOf(
  version: SchemaVersion,
  branches: readonly unknown[],
): { key: string; tags: Map<string, number>; untagged: number[] } | undefined {
  const defs = schemaOf(version).$defs;
  const byKey = new Map<string, Map<string, number>>();
  branches.forEach((b, i) => {
    const ref = isNode(b) ? b.$ref : undefined;
    const node = typeof ref === "string" && ref.startsWith("#/$defs/") ? defs[ref.slice(8)] : b;
    const props = isNode(node) ? node.properties : undefined;
    if (!isNode(props)) return;
    for (const [key, prop] of Object.entries(props)) {
      const tag = isNode(prop) ? prop.const : undefined;
      if (typeof tag !== "string") continue;
      let m = byKey.get(key);
      if (!m) byKey.set(key, (m = new Map<string, number>()));
      m.set(tag, i);
    }
  });
  const best = [...byKey].sort((x, y) => y[1].size - x[1].size)[0];
  if (!best || best[1].size < 2) return undefined;
  const tagged = new Set(best[1].values());
  return { key: best[0], tags: best[1], untagged: branches.map((_, i) => i).filter((i) => !tagged.has(i)) };
}

function valueAt(value: unknown, pointer: string): unknown {
  let v = value;
  for (const seg of pointer.split("/").slice(1)) {
    if (Array.isArray(v)) v = v[Number(seg)];
    else if (isNode(v)) v = v[unescape(seg)];
    else return undefined;
  }
  return v;
}

const under = (path: string, root: string) => path === root || path.startsWith(`${root}/`);
const oneOf = (values: readonly unknown[]) =>
  values.length === 1 ? JSON.stringify(values[0]) : `one of ${values.map((v) => JSON.stringify(v)).join(", ")}`;

/**
 * Ajv reports every failed union branch (15 to 66 errors for one mistake). Readable instead: a
 * tagged union is judged by the branch its tag names (or the tag is what is wrong), constants and
 * types at one path are merged (`must be one of …`), a `null` alternative is dropped beside a
 * real one, union bookkeeping goes.
 */
function explain(version: SchemaVersion, errs: readonly ErrorObject[], value: unknown): SchemaProblem[] {
  let pool = [...errs];
  const out: SchemaProblem[] = [];
  const depth = (e: ErrorObject) => e.instancePath.split("/").length;
  // Outer unions first: the shallowest, and at one path the last reported (Ajv reports a union after its branches).
  const unions = errs
    .map((e, i) => ({ e, i }))
    .filter(({ e }) => (e.keyword === "anyOf" || e.keyword === "oneOf") && Array.isArray(e.schema))
    .sort((x, y) => depth(x.e) - depth(y.e) || y.i - x.i);
  for (const { e } of unions) {
    if (!pool.includes(e)) continue;
    const branches = e.schema as unknown[];
    const at = unionPointers(version).get(branches);
    const tagged = at === undefined ? undefined : tagsOf(version, branches);
    const parent = e.instancePath;
    const host = valueAt(value, parent);
    if (at === undefined || !tagged || !isNode(host)) continue;
    const tag = host[tagged.key];
    // No tag: the one branch without one (v1's stdio MCP server), if there is exactly one.
    const branch =
      typeof tag === "string"
        ? tagged.tags.get(tag)
        : tag === undefined && tagged.untagged.length === 1
          ? tagged.untagged[0]
          : undefined;
    let found: SchemaProblem[];
    if (branch === undefined) {
      const tags = oneOf([...tagged.tags.keys()]);
      found = [
        tag === undefined
          ? { path: parent || "/", message: `must have required property '${tagged.key}' (${tags})` }
          : { path: `${parent}/${escape(tagged.key)}`, message: `must be ${tags}` },
      ];
    } else {
      const fn = validatorAt(version, `${at}/${String(branch)}`);
      // Valid against its own branch: the union failed otherwise (a `oneOf` matched twice); say it plainly.
      if (fn(host)) continue;
      found = explain(version, fn.errors ?? [], host).map((p) => ({
        path: p.path === "/" ? parent || "/" : parent + p.path,
        message: p.message,
      }));
    }
    pool = pool.filter((x) => !under(x.instancePath, parent));
    out.push(...found);
  }
  pool = pool.filter((e) => !["anyOf", "oneOf", "not", "if"].includes(e.keyword));
  // Per path, in the order Ajv found them: constants and types merged, `null` only when alone.
  const byPath = new Map<string, ErrorObject[]>();
  for (const e of pool) {
    const list = byPath.get(e.instancePath);
    if (list) list.push(e);
    else byPath.set(e.instancePath, [e]);
  }
  for (const [path, list] of byPath) {
    const at = path || "/";
    const consts = list.filter((e) => e.keyword === "const").map((e) => e.params.allowedValue as unknown);
    let types = [
      ...new Set(list.filter((e) => e.keyword === "type").flatMap((e) => e.params.type as string[] | string)),
    ];
    const others = list.filter((e) => e.keyword !== "const" && e.keyword !== "type");
    // Constants say what the value should be (its type with them); `null` is only news when alone.
    if (consts.length > 0) types = [];
    if (types.length > 1 || others.length > 0) types = types.filter((t) => t !== "null");
    if (consts.length > 0) out.push({ path: at, message: `must be ${oneOf([...new Set(consts)])}` });
    if (types.length > 0) out.push({ path: at, message: `must be ${types.join(" or ")}` });
    for (const e of others) {
      const p = e.params as Record<string, unknown>;
      let message = e.message ?? e.keyword;
      if (e.keyword === "enum") message = `must be ${oneOf(p.allowedValues as unknown[])}`;
      if (e.keyword === "additionalProperties")
        message = `must NOT have the property '${String(p.additionalProperty)}'`;
      out.push({ path: at, message });
    }
  }
  const seen = new Set<string>();
  return out.filter((p) => {
    const k = `${p.path} ${p.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** At most this many problems per value: the first ones explain the rest. */
const MAX_PROBLEMS = 8;

/** `undefined` when valid, else the pruned problems. */
export function check(version: SchemaVersion, def: string, value: unknown): SchemaProblem[] | undefined {
  const fn = validatorFor(version, def);
  if (fn(value)) return undefined;
  return explain(version, fn.errors ?? [], value).slice(0, MAX_PROBLEMS);
}
