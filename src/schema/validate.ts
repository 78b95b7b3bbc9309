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
  const a = new Ajv2020({ strict: true, allErrors: true });
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

function validatorFor(version: SchemaVersion, def: string): ValidateFunction {
  const key = `${version}#${def}`;
  let fn = cache.get(key);
  if (!fn) {
    if (!hasDef(version, def)) throw new Error(`no $defs/${def} in the ${version} schema`);
    const got = instance().getSchema(`acp:${version}#/$defs/${def}`);
    if (!got) throw new Error(`cannot compile ${key}`);
    fn = got;
    cache.set(key, fn);
  }
  return fn;
}

export interface SchemaProblem {
  readonly path: string;
  readonly message: string;
}

/**
 * Ajv reports every failed `anyOf` branch (15 to 66 errors for one mistake). Keep the errors that
 * explain the most: drop union bookkeeping, keep the deepest instance paths.
 */
function pruneErrors(errs: readonly ErrorObject[]): SchemaProblem[] {
  const real = errs.filter((e) => !["anyOf", "oneOf", "not", "if", "const"].includes(e.keyword));
  const pool = real.length > 0 ? real : [...errs];
  const depth = (e: ErrorObject) => (e.instancePath === "" ? 0 : e.instancePath.split("/").length);
  const max = Math.max(...pool.map(depth));
  const seen = new Set<string>();
  const out: SchemaProblem[] = [];
  for (const e of pool.filter((x) => depth(x) === max)) {
    const msg = `${e.message ?? e.keyword}${e.params && "allowedValue" in e.params ? ` ${JSON.stringify(e.params.allowedValue)}` : ""}`;
    const k = `${e.instancePath} ${msg}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push({ path: e.instancePath || "/", message: msg });
  }
  return out.slice(0, 5);
}

/** `undefined` when valid, else the pruned problems. */
export function check(version: SchemaVersion, def: string, value: unknown): SchemaProblem[] | undefined {
  const fn = validatorFor(version, def);
  if (fn(value)) return undefined;
  return pruneErrors(fn.errors ?? []);
}
