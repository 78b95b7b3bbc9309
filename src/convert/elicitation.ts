// Elicitation (T §5.1, §6 row StringFormat): `elicitation/create` both ways (schema fill-ins, formats,
// minItems, request-scope ids through the engine's id map), its response, `elicitation/complete`.

import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { elicitationTable } from "../../mappings/permission.js";
import { isObject, isString, jsonEqual, type Obj, setOwn, withMembers, copyMembers } from "../base/json.js";
import { attempt, ok, under, type Conv, type Converted, type Loss } from "./result.js";
import { hasResidual, isSynthetic, residualOf, Stash, setMeta, unstash, type ConvertOptions } from "./stash.js";
import { fullFormats } from "ajv-formats/dist/formats.js";
import { bad } from "./check.js";

/** `Object.hasOwn` (no narrowing: these are raw trees). */
const has = (o: object, key: string): boolean => Object.hasOwn(o, key);

/**
 * B↓ id map answer for a v1 request id the agent scoped an elicitation to.
 * @internal The engine's answer type; exported for the converter's tests.
 */
export interface RequestIdToV2 {
  /** The v2 client's id of that request. */
  readonly requestId: v2.RequestId;
  /** Set when it is a `session/prompt` already acknowledged in v2 (its session): no longer in flight. */
  readonly ackedPromptOf?: string;
}

export interface ElicitationToV1Context {
  readonly opts: ConvertOptions;
  /** A↓: the v1 client's id of a request the bridge relayed to the agent as `id`; `undefined`: unknown. */
  readonly requestIdToV1: (id: v2.RequestId) => v1.RequestId | undefined;
}

export interface ElicitationToV2Context {
  readonly opts: ConvertOptions;
  /** B↓: what a v1 request id the bridge sent the agent stands for on the v2 side; `undefined`: unknown. */
  readonly requestIdToV2: (id: v1.RequestId) => RequestIdToV2 | undefined;
}

function isV2RequestId(x: unknown): x is v2.RequestId {
  return isString(x) || (typeof x === "number" && Number.isSafeInteger(x));
}

function isV1RequestId(x: unknown): x is v1.RequestId {
  return x === null || isV2RequestId(x);
}

/** Whether v2's `format: "regex"` accepts `p` (ECMA-262 syntax, as JSON Schema validators check it). */
function isEcmaRegex(p: string): boolean {
  if (/[^\\]\\Z/.test(p)) return false;
  try {
    new RegExp(p);
    return true;
  } catch {
    return false;
  }
}

/** Whether v1 multi-select `items` also satisfy v2 (whose option lists need at least one item). */
function itemsFitV2(items: Obj): boolean {
  if (isString(items.type) && items.type !== "string") return true; // open variant
  if (items.type === "string" && Array.isArray(items.enum) && items.enum.length > 0) return true;
  return Array.isArray(items.anyOf) && items.anyOf.length > 0;
}

const propertiesField = (name: string) => `requestedSchema.properties.${name}`;

// The very check the schema's `format: "uri"` applies (ajv-formats), so what passes here validates.
const isUri = fullFormats.uri as (s: string) => boolean;

const isNullOr = (x: unknown, test: (y: unknown) => boolean): boolean => x === undefined || x === null || test(x);
const isMetaValue = (x: unknown): boolean => isNullOr(x, isObject);
const isCount = (max: number) => (x: unknown) => Number.isSafeInteger(x) && Number(x) >= 0 && Number(x) <= max;
const isStringList = (x: unknown): boolean => Array.isArray(x) && x.every(isString);

/** Whether `x` is a list of `EnumOption`s (`const` and `title` strings), non-empty when `nonEmpty`. */
function isOptionList(x: unknown, nonEmpty: boolean): boolean {
  if (!Array.isArray(x) || (nonEmpty && x.length === 0)) return false;
  return x.every(
    (o) =>
      isObject(o) &&
      isString(o.const) &&
      isString(o.title) &&
      isNullOr(o.description, isString) &&
      isMetaValue(o._meta),
  );
}

/** Whether multi-select `items` fit `MultiSelectItems` of version `v` (v2 option lists are non-empty). */
function isItems(items: unknown, v: 1 | 2): boolean {
  if (!isObject(items)) return false;
  if (isString(items.type) && items.type !== "string") return true; // open variant
  if (!isMetaValue(items._meta)) return false;
  const plain =
    items.type === "string" &&
    isStringList(items.enum) &&
    (v === 1 || (Array.isArray(items.enum) && items.enum.length > 0));
  return plain || isOptionList(items.anyOf, v === 2);
}

type KeywordCheck = (x: unknown, v: 1 | 2) => boolean;

const isNumber = (x: unknown): boolean => typeof x === "number" && Number.isFinite(x);
// What each known property type allows per keyword, after conversion (titles, descriptions and
// `_meta` are checked on the input); other types are open variants and keep any keyword.
const keywordChecks: Record<string, Record<string, KeywordCheck>> = {
  string: {
    minLength: (x) => isNullOr(x, isCount(0xffffffff)),
    maxLength: (x) => isNullOr(x, isCount(0xffffffff)),
    pattern: (x, v) => isNullOr(x, (y) => isString(y) && (v === 1 || isEcmaRegex(y))),
    format: (x, v) => isNullOr(x, (y) => isString(y) && (v === 2 || elicitationTable.stringFormats.includes(y))),
    default: (x) => isNullOr(x, isString),
    enum: (x, v) => isNullOr(x, (y) => isStringList(y) && (v === 1 || (Array.isArray(y) && y.length > 0))),
    oneOf: (x, v) => isNullOr(x, (y) => isOptionList(y, v === 2)),
  },
  number: {
    minimum: (x) => isNullOr(x, isNumber),
    maximum: (x) => isNullOr(x, isNumber),
    default: (x) => isNullOr(x, isNumber),
  },
  integer: {
    minimum: (x) => isNullOr(x, Number.isSafeInteger),
    maximum: (x) => isNullOr(x, Number.isSafeInteger),
    default: (x) => isNullOr(x, Number.isSafeInteger),
  },
  boolean: { default: (x) => isNullOr(x, (y) => typeof y === "boolean") },
  array: {
    minItems: (x) => isNullOr(x, isCount(Number.MAX_SAFE_INTEGER)),
    maxItems: (x) => isNullOr(x, isCount(Number.MAX_SAFE_INTEGER)),
    items: isItems,
    default: (x) => isNullOr(x, isStringList),
  },
};

/**
 * Refuses a converted property its side's schema rejects (-32602 naming the keyword): elicitation
 * is rare, so each keyword of a known type is checked by hand rather than trusted.
 */
function checkProperty(out: Obj, v: 1 | 2, name: string): void {
  if (!isString(out.type)) bad(`${propertiesField(name)}.type`, "not_string");
  const checks = Object.hasOwn(keywordChecks, out.type) ? keywordChecks[out.type] : undefined;
  if (checks === undefined) return;
  for (const [key, check] of Object.entries(checks))
    if (!check(out[key], v)) bad(`${propertiesField(name)}.${key}`, "invalid_keyword");
}

function propertyToV1(p: Obj, opts: ConvertOptions, name: string): Converted<Obj> {
  const { meta, env } = unstash(p._meta, 1);
  const out: Obj = copyMembers(p);
  for (const key of ["enum", "oneOf", "pattern"])
    if (hasResidual(env, key) && !has(out, key)) out[key] = residualOf(env, key);
  const stash = new Stash(2, opts);
  const lost: Loss[] = [];
  if (p.type === "string" && has(p, "format")) {
    const format = p.format;
    if (format !== null && !isString(format)) bad(`${propertiesField(name)}.format`, "not_string");
    if (isString(format) && !elicitationTable.stringFormats.includes(format)) {
      delete out.format;
      stash.keep("format", format);
      lost.push({ path: ["format"], reason: `string format "${format}" does not exist in v1` });
    }
  }
  return ok(setMeta(out, stash.into(meta)), lost);
}

function propertyToV2(p: Obj, opts: ConvertOptions): Converted<Obj> {
  const { meta, env } = unstash(p._meta, 2);
  const out: Obj = copyMembers(p);
  if (hasResidual(env, "format") && !has(out, "format")) out.format = residualOf(env, "format");
  const stash = new Stash(1, opts);
  const lost: Loss[] = [];
  if (p.type === "string") {
    for (const key of ["enum", "oneOf"]) {
      const list = p[key];
      if (Array.isArray(list) && list.length === 0) {
        Reflect.deleteProperty(out, key);
        stash.keep(key, list);
        lost.push({ path: [key], reason: `v2 needs at least one ${key} item` });
      }
    }
    if (isString(p.pattern) && !isEcmaRegex(p.pattern)) {
      delete out.pattern;
      stash.keep("pattern", p.pattern);
      lost.push({ path: ["pattern"], reason: "not an ECMA-262 regular expression, which v2 requires" });
    }
  }
  return ok(setMeta(out, stash.into(meta)), lost);
}

function checkSchema(rs: unknown): Obj {
  if (!isObject(rs)) bad("requestedSchema", "not_object");
  if (has(rs, "type") && rs.type !== "object") bad("requestedSchema.type", "not_object_type");
  if (has(rs, "properties") && !isObject(rs.properties)) bad("requestedSchema.properties", "not_object");
  // Copied as they are: typed alike in both versions.
  optionalStrings(rs, "requestedSchema");
  const required = rs.required;
  if (required !== undefined && required !== null) {
    if (!Array.isArray(required)) bad("requestedSchema.required", "not_array");
    const i = required.findIndex((r) => !isString(r));
    if (i >= 0) bad(`requestedSchema.required[${i}]`, "not_string");
  }
  return rs;
}

/** `title` and `description` strings, `_meta` an object, when present (schema and properties). */
function optionalStrings(o: Obj, field: string): void {
  for (const key of ["title", "description"])
    if (o[key] !== undefined && o[key] !== null && !isString(o[key])) bad(`${field}.${key}`, "not_string");
  if (o._meta !== undefined && o._meta !== null && !isObject(o._meta)) bad(`${field}._meta`, "not_object");
}

function propertiesOf(rs: Obj): [string, Obj][] {
  return Object.entries(isObject(rs.properties) ? rs.properties : {}).map(([name, p]) => {
    if (!isObject(p)) bad(propertiesField(name), "not_object");
    if (has(p, "type") && !isString(p.type)) bad(`${propertiesField(name)}.type`, "not_string");
    optionalStrings(p, propertiesField(name));
    return [name, p];
  });
}

function schemaToV1(raw: unknown, opts: ConvertOptions): Converted<Obj> {
  const rs = checkSchema(raw);
  const { meta, env } = unstash(rs._meta, 1);
  const out: Obj = copyMembers(rs);
  const lost: Loss[] = [];
  if (has(rs, "properties")) {
    const props: Obj = {};
    for (const [name, p] of propertiesOf(rs)) {
      const r = propertyToV1(p, opts, name);
      checkProperty(r.value, 1, name);
      props[name] = r.value;
      lost.push(...under(["properties", name], r.lost));
    }
    const dropped = residualOf(env, "droppedProperties");
    if (isObject(dropped))
      for (const [name, p] of Object.entries(dropped)) if (!has(props, name)) setOwn(props, name, p);
    out.properties = props;
  }
  if (hasResidual(env, "required")) out.required = residualOf(env, "required");
  if (isSynthetic(env, "type") && out.type === "object") delete out.type;
  if (isSynthetic(env, "properties") && jsonEqual(out.properties, {})) delete out.properties;
  return ok(setMeta(out, meta), lost);
}

function schemaToV2(raw: unknown, opts: ConvertOptions): Converted<Obj> {
  const rs = checkSchema(raw);
  const { meta } = unstash(rs._meta, 2);
  const out: Obj = copyMembers(rs);
  const stash = new Stash(1, opts);
  const lost: Loss[] = [];
  if (!has(rs, "type")) {
    out.type = "object";
    stash.invented("type");
    lost.push({ path: ["type"], reason: "required in v2: filled in" });
  }
  const props: Obj = {};
  const dropped: Obj = {};
  for (const [name, p] of propertiesOf(rs)) {
    if (p.type === "array" && isObject(p.items) && !itemsFitV2(p.items)) {
      dropped[name] = p;
      lost.push({ path: ["properties", name], reason: "a multi-select without options cannot be asked in v2" });
      continue;
    }
    const r = propertyToV2(p, opts);
    checkProperty(r.value, 2, name);
    props[name] = r.value;
    lost.push(...under(["properties", name], r.lost));
  }
  out.properties = props;
  if (!has(rs, "properties")) {
    stash.invented("properties");
    lost.push({ path: ["properties"], reason: "required in v2: filled in" });
  }
  if (Object.keys(dropped).length > 0) {
    stash.keep("droppedProperties", dropped);
    const required = rs.required;
    if (Array.isArray(required) && required.some((n) => isString(n) && has(dropped, n))) {
      out.required = required.filter((n) => !(isString(n) && has(dropped, n)));
      stash.keep("required", required);
      lost.push({ path: ["required"], reason: "names a property v2 cannot ask" });
    }
  }
  return ok(setMeta(out, stash.into(meta)), lost);
}

/**
 * What both versions require of a request, whatever the side: a scope in every mode (a session or
 * a request), a form's schema, a URL elicitation's id and URL. The converters copy these, so a
 * request without them would reach the client as invalid as it came.
 */
function checkRequest(params: unknown): Obj & { mode: string } {
  if (!isObject(params)) bad("params", "not_object");
  if (!isString(params.mode)) bad("mode", "not_string");
  if (!has(params, "sessionId") && !has(params, "requestId"))
    bad("sessionId", "missing_scope", { detail: "an elicitation is scoped to a sessionId or a requestId" });
  if (params.mode === "form" && !has(params, "requestedSchema")) bad("requestedSchema", "missing");
  if (params.mode === "url") {
    if (!has(params, "elicitationId")) bad("elicitationId", "missing");
    if (!has(params, "url")) bad("url", "missing");
    if (!(isString(params.url) && isUri(params.url))) bad("url", "not_a_uri");
  }
  return params as Obj & { mode: string };
}

/** A↓ `elicitation/create` params (v2 agent → v1 client). */
export function elicitationRequestToV1(
  params: v2.CreateElicitationRequest,
  ctx: ElicitationToV1Context,
): Conv<v1.CreateElicitationRequest> {
  return attempt(() => {
    const p = checkRequest(params);
    const { meta, env } = unstash(p._meta, 1);
    const out: Obj = copyMembers(p);
    const lost: Loss[] = [];
    // With a session scope, a `requestId` that is no id is just an unknown key (v2 scopes are oneOf).
    if (has(p, "requestId") && !(has(p, "sessionId") && !isV2RequestId(p.requestId))) {
      if (!isV2RequestId(p.requestId)) bad("requestId", "not_request_id");
      const mapped = ctx.requestIdToV1(p.requestId);
      if (mapped === undefined) bad("requestId", "unknown_request");
      out.requestId = mapped;
    }
    if (hasResidual(env, "requestId")) {
      // B↓ turned a request scope into a session scope: restore it when the request is known here.
      const r = residualOf(env, "requestId");
      const mapped = r === null ? null : isV2RequestId(r) ? ctx.requestIdToV1(r) : undefined;
      if (mapped !== undefined) {
        out.requestId = mapped;
        if (isSynthetic(env, "sessionId")) delete out.sessionId;
      }
    }
    if (p.mode === "form" && has(p, "requestedSchema")) {
      const r = schemaToV1(p.requestedSchema, ctx.opts);
      out.requestedSchema = r.value;
      lost.push(...under(["requestedSchema"], r.lost));
    }
    return ok(setMeta(out, meta) as unknown as v1.CreateElicitationRequest, lost);
  });
}

/** B↓ `elicitation/create` params (v1 agent → v2 client). */
export function elicitationRequestToV2(
  params: v1.CreateElicitationRequest,
  ctx: ElicitationToV2Context,
): Conv<v2.CreateElicitationRequest> {
  return attempt(() => {
    const p = checkRequest(params);
    const { meta } = unstash(p._meta, 2);
    const out: Obj = copyMembers(p);
    const stash = new Stash(1, ctx.opts);
    const lost: Loss[] = [];
    if (has(p, "requestId") && !(has(p, "sessionId") && !isV1RequestId(p.requestId))) {
      const id = p.requestId;
      if (!isV1RequestId(id)) bad("requestId", "not_request_id");
      const mapped = id === null ? undefined : ctx.requestIdToV2(id);
      if (has(p, "sessionId")) {
        // v1 allows both scopes at once, v2 exactly one: keep the session, stash the request.
        delete out.requestId;
        if (id === null) stash.keep("requestId", null);
        else if (mapped) stash.keep("requestId", mapped.requestId);
        lost.push({ path: ["requestId"], reason: "v2 scopes an elicitation to a session or to a request, not both" });
      } else {
        if (id === null) bad("requestId", "null_request_id");
        if (!mapped) bad("requestId", "unknown_request");
        if (mapped.ackedPromptOf !== undefined) {
          // T §5.1: the v2 prompt was acknowledged long ago and is no longer in flight.
          delete out.requestId;
          out.sessionId = mapped.ackedPromptOf;
          stash.keep("requestId", mapped.requestId).invented("sessionId");
          lost.push(
            { path: ["requestId"], reason: "refers to a prompt v2 already acknowledged: scoped to its session" },
            { path: ["sessionId"], reason: "session scope invented for a prompt-scoped elicitation" },
          );
        } else {
          out.requestId = mapped.requestId;
        }
      }
    }
    if (p.mode === "form" && has(p, "requestedSchema")) {
      const r = schemaToV2(p.requestedSchema, ctx.opts);
      out.requestedSchema = r.value;
      lost.push(...under(["requestedSchema"], r.lost));
    }
    return ok(setMeta(out, stash.into(meta)) as unknown as v2.CreateElicitationRequest, lost);
  });
}

/** A value v1's closed `ElicitationContentValue` accepts. */
function isV1ContentValue(x: unknown): boolean {
  if (isString(x) || typeof x === "boolean") return true;
  if (typeof x === "number") return Number.isFinite(x);
  return Array.isArray(x) && x.every(isString);
}

function checkResponse(resp: unknown): Obj & { action: string } {
  if (!isObject(resp)) bad("result", "not_object");
  if (!isString(resp.action)) bad("action", "not_string");
  if (resp.action === "accept" && has(resp, "content") && resp.content !== null && !isObject(resp.content))
    bad("content", "not_object");
  return resp as Obj & { action: string };
}

/** B↑ `elicitation/create` result (v2 client → v1 agent): v2-only content values are stashed. */
export function elicitationResponseToV1(
  resp: v2.CreateElicitationResponse,
  opts: ConvertOptions,
): Conv<v1.CreateElicitationResponse> {
  return attempt(() => {
    const r = checkResponse(resp);
    const { meta } = unstash(r._meta, 1);
    const out: Obj = copyMembers(r);
    const stash = new Stash(2, opts);
    const lost: Loss[] = [];
    if (r.action === "accept" && isObject(r.content)) {
      const kept: Obj = {};
      const removed: Obj = {};
      for (const [k, v] of Object.entries(r.content)) {
        if (isV1ContentValue(v)) setOwn(kept, k, v);
        else {
          setOwn(removed, k, v);
          lost.push({ path: ["content", k], reason: "v1 answers only strings, numbers, booleans and string lists" });
        }
      }
      if (Object.keys(removed).length > 0) {
        out.content = kept;
        stash.keep("content", removed);
      }
    }
    return ok(setMeta(out, stash.into(meta)) as unknown as v1.CreateElicitationResponse, lost);
  });
}

/** A↑ `elicitation/create` result (v1 client → v2 agent): every v1 value is a v2 value (no options: nothing to stash). */
export function elicitationResponseToV2(resp: v1.CreateElicitationResponse): Conv<v2.CreateElicitationResponse> {
  return attempt(() => {
    const r = checkResponse(resp);
    const { meta, env } = unstash(r._meta, 2);
    const out: Obj = copyMembers(r);
    const removed = residualOf(env, "content");
    if (r.action === "accept" && isObject(r.content) && isObject(removed))
      out.content = withMembers(r.content, removed);
    return ok(setMeta(out, meta) as unknown as v2.CreateElicitationResponse);
  });
}
