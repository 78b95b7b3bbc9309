// Content blocks v1 ⇄ v2 (T §3.1; T §6 rows ContentBlock.type and Role): v1's union and roles are
// closed, v2's open; what the target cannot carry rides in the stash of the nearest object.

import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { fullFormats } from "ajv-formats/dist/formats.js";
import { contentTable, placeholder, V1_BLOCK_TYPES, V1_ROLES } from "../../mappings/content.js";
import { isObject, isString, type Obj, wellFormed, withMembers, copyMembers } from "../base/json.js";
import { attempt, type Conv, type Converted, type Loss, ok, type Path } from "./result.js";
import { type ConvertOptions, hasResidual, residualOf, setMeta, Stash, unstash } from "./stash.js";

/** A v2 block → v1 (A↓, and v1 tool-call content): unknown types become a text placeholder. */
export function contentBlockToV1(b: v2.ContentBlock, opts: ConvertOptions): Conv<v1.ContentBlock> {
  return attempt(() => blockToV1(b, opts, [], false));
}

/** A v2 prompt block → v1 (B↑, T §3.1 "prompt direction"): an unknown type is -32602, no placeholder. */
export function promptBlockToV1(b: v2.ContentBlock, opts: ConvertOptions): Conv<v1.ContentBlock> {
  return attempt(() => blockToV1(b, opts, [], true));
}

/** A v1 block → v2 (B↓ and A↑): restores the stash, clamps `priority`, drops a negative `size`. */
export function contentBlockToV2(b: v1.ContentBlock, opts: ConvertOptions): Conv<v2.ContentBlock> {
  return attempt(() => blockToV2(b, opts, []));
}

// ---- shared helpers (also used by tool-call.ts) ----
import { invalid, prefixLosses } from "./check.js";

export { invalid, prefixLosses, unwrap } from "./check.js";

export function expectObject(x: unknown, path: Path): Obj {
  if (!isObject(x)) invalid(path, "expected_object");
  return x;
}

export function expectString(x: unknown, path: Path): string {
  if (!isString(x)) invalid(path, "expected_string");
  return x;
}

/** An optional field of the given JSON type: absent and `null` pass. */
export function expectOptional(o: Obj, key: string, type: "string" | "number" | "array" | "object", path: Path): void {
  const v = o[key];
  if (v === undefined || v === null) return;
  const good =
    type === "array"
      ? Array.isArray(v)
      : type === "object"
        ? isObject(v)
        : type === "number"
          ? typeof v === "number"
          : isString(v);
  if (!good) invalid([...path, key], `expected_${type}`);
}

// ---- v2 → v1 ----

function blockToV1(b: unknown, opts: ConvertOptions, at: Path, prompt: boolean): Converted<v1.ContentBlock> {
  const src = expectObject(b, at);
  const type = expectString(src.type, [...at, "type"]);
  if (!V1_BLOCK_TYPES.has(type)) {
    if (prompt) invalid([...at, "type"], "unknown_variant", { type });
    const out: Obj = { type: "text", text: placeholder("unsupportedContent", { type }) };
    setMeta(out, new Stash(2, opts).keep("raw", src).into(undefined));
    return ok(out as v1.ContentBlock, [{ path: [], reason: `v1 has no content block type "${type}"` }]);
  }
  checkKnownBlock(src, type, at);
  if (prompt) checkV2Prompt(src, at);
  const { meta, env } = unstash(src._meta, 1);
  const out: Obj = copyMembers(src);
  const stash = new Stash(2, opts);
  const lost: Loss[] = [];
  if (Number.isSafeInteger(residualOf(env, "size"))) out.size = residualOf(env, "size");
  if (isString(residualOf(env, "uri"))) out.uri = residualOf(env, "uri");
  if (isString(residualOf(env, "resourceUri")) && isObject(out.resource))
    out.resource = withMembers(out.resource, { uri: residualOf(env, "resourceUri") });
  if (type === "resource_link" && Object.hasOwn(out, "icons")) {
    stash.keep("icons", out.icons);
    delete out.icons;
    lost.push({ path: ["icons"], reason: "v1 resource links have no icons" });
  }
  if (Object.hasOwn(src, "annotations")) {
    const a = annotationsToV1(src.annotations, opts, [...at, "annotations"]);
    out.annotations = a.value;
    lost.push(...prefixLosses(["annotations"], a.lost));
  }
  setMeta(out, stash.into(meta));
  return ok(out as v1.ContentBlock, lost);
}

function annotationsToV1(a: unknown, opts: ConvertOptions, at: Path): { value: unknown; lost: Loss[] } {
  if (a === null) return { value: a, lost: [] };
  const src = expectObject(a, at);
  expectOptional(src, "priority", "number", at);
  expectOptional(src, "audience", "array", at);
  checkAnnotations(src, at);
  const { meta, env } = unstash(src._meta, 1);
  const out: Obj = copyMembers(src);
  const stash = new Stash(2, opts);
  const lost: Loss[] = [];
  if (hasResidual(env, "priority")) out.priority = residualOf(env, "priority");
  if (Array.isArray(src.audience)) {
    const roles = src.audience.map((r, i) => expectString(r, [...at, "audience", i]));
    const kept = roles.filter((r) => V1_ROLES.has(r));
    if (kept.length !== roles.length) {
      stash.keep("audience", src.audience);
      out.audience = kept;
      lost.push({ path: ["audience"], reason: "v1 knows only the roles assistant and user" });
    }
  }
  setMeta(out, stash.into(meta));
  return { value: out, lost };
}

// ---- v1 → v2 ----

// The very check the schema's `format: "uri"` applies (ajv-formats), so what passes here validates.
const isUri = fullFormats.uri as (s: string) => boolean;

/** The stand-in of a v1 `uri` that is no URI; a lone surrogate in it becomes U+FFFD (the original is stashed). */
function uriStandIn(raw: string): string {
  return `${contentTable.invalidUriPrefix}${encodeURIComponent(wellFormed(raw))}`;
}

function blockToV2(b: unknown, opts: ConvertOptions, at: Path): Converted<v2.ContentBlock> {
  const src = expectObject(b, at);
  const type = expectString(src.type, [...at, "type"]);
  const { meta, env } = unstash(src._meta, 2);
  const raw = residualOf(env, "raw");
  if (isObject(raw) && isString(raw.type)) return ok(raw as v2.ContentBlock);
  // v1 is closed, v2 open: an unknown v1 type is a valid v2 `other` block and passes as it is.
  if (V1_BLOCK_TYPES.has(type)) checkKnownBlock(src, type, at);
  const out: Obj = copyMembers(src);
  const stash = new Stash(1, opts);
  const lost: Loss[] = [];
  if (hasResidual(env, "icons")) out.icons = residualOf(env, "icons");
  if ((type === "resource_link" || type === "image") && isString(src.uri) && !isUri(src.uri)) {
    stash.keep("uri", src.uri);
    out.uri = uriStandIn(src.uri);
    lost.push({ path: ["uri"], reason: "not a URI, which v2 requires: percent-encoded behind a prefix" });
  }
  if (type === "resource" && isObject(src.resource) && isString(src.resource.uri) && !isUri(src.resource.uri)) {
    stash.keep("resourceUri", src.resource.uri);
    out.resource = withMembers(src.resource, { uri: uriStandIn(src.resource.uri) });
    lost.push({ path: ["resource", "uri"], reason: "not a URI, which v2 requires: percent-encoded behind a prefix" });
  }
  if (type === "resource_link") {
    expectOptional(src, "size", "number", at);
    if (typeof src.size === "number" && src.size < 0) {
      stash.keep("size", src.size);
      delete out.size;
      lost.push({ path: ["size"], reason: "v2 sizes are unsigned" });
    }
  }
  if (Object.hasOwn(src, "annotations")) {
    const a = annotationsToV2(src.annotations, opts, [...at, "annotations"]);
    out.annotations = a.value;
    lost.push(...prefixLosses(["annotations"], a.lost));
  }
  setMeta(out, stash.into(meta));
  return ok(out as v2.ContentBlock, lost);
}

function annotationsToV2(a: unknown, opts: ConvertOptions, at: Path): { value: unknown; lost: Loss[] } {
  if (a === null) return { value: a, lost: [] };
  const src = expectObject(a, at);
  expectOptional(src, "priority", "number", at);
  expectOptional(src, "audience", "array", at);
  checkAnnotations(src, at);
  if (Array.isArray(src.audience)) src.audience.forEach((r, i) => expectString(r, [...at, "audience", i]));
  const { meta, env } = unstash(src._meta, 2);
  const out: Obj = copyMembers(src);
  const stash = new Stash(1, opts);
  const lost: Loss[] = [];
  if (hasResidual(env, "audience")) out.audience = residualOf(env, "audience");
  if (typeof src.priority === "number" && (src.priority < 0 || src.priority > 1)) {
    stash.keep("priority", src.priority);
    out.priority = Math.min(1, Math.max(0, src.priority));
    lost.push({ path: ["priority"], reason: "v2 priorities lie in [0, 1]" });
  }
  setMeta(out, stash.into(meta));
  return { value: out, lost };
}

// ---- validation of the known variants (a malformed known variant is an error, T §0.3) ----

function checkKnownBlock(src: Obj, type: string, at: Path): void {
  // Fields copied as they are must already have the type both versions give them.
  expectOptional(src, "_meta", "object", at);
  switch (type) {
    case "text":
      expectString(src.text, [...at, "text"]);
      return;
    case "image":
    case "audio":
      expectString(src.data, [...at, "data"]);
      expectString(src.mimeType, [...at, "mimeType"]);
      expectOptional(src, "uri", "string", at);
      return;
    case "resource_link":
      expectString(src.name, [...at, "name"]);
      expectString(src.uri, [...at, "uri"]);
      for (const key of ["mimeType", "title", "description"]) expectOptional(src, key, "string", at);
      expectOptional(src, "size", "number", at);
      // Both schemas' integer formats reject what a double cannot hold exactly.
      if (typeof src.size === "number" && !Number.isSafeInteger(src.size)) invalid([...at, "size"], "expected_integer");
      return;
    case "resource": {
      const r = expectObject(src.resource, [...at, "resource"]);
      expectString(r.uri, [...at, "resource", "uri"]);
      if (!isString(r.text) && !isString(r.blob)) invalid([...at, "resource"], "expected_text_or_blob");
      expectOptional(r, "mimeType", "string", [...at, "resource"]);
      expectOptional(r, "_meta", "object", [...at, "resource"]);
      return;
    }
  }
}

/**
 * A v2 prompt's block is also echoed to the v2 client as its `user_message` (T §2): what only v2
 * constrains (URIs, unsigned sizes, priorities in [0, 1]) is refused rather than echoed invalid.
 */
function checkV2Prompt(src: Obj, at: Path): void {
  if (isString(src.uri) && !isUri(src.uri)) invalid([...at, "uri"], "not_a_uri");
  const r = src.resource;
  if (isObject(r) && isString(r.uri) && !isUri(r.uri)) invalid([...at, "resource", "uri"], "not_a_uri");
  if (typeof src.size === "number" && src.size < 0) invalid([...at, "size"], "negative");
  const a = src.annotations;
  if (isObject(a) && typeof a.priority === "number" && !(a.priority >= 0 && a.priority <= 1))
    invalid([...at, "annotations", "priority"], "out_of_range");
}

/** What both versions' Annotations type: an optional string date and an object `_meta`. */
function checkAnnotations(src: Obj, at: Path): void {
  expectOptional(src, "lastModified", "string", at);
  expectOptional(src, "_meta", "object", at);
}
