// MCP server configs on session/new, load, resume and fork (H §4.2, §4.11): stdio `type` tags, the
// v1-required empty lists, transports the other side cannot take (SSE, capability gaps, custom tags).

import { fullFormats } from "ajv-formats/dist/formats.js";
import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { mcpReasons, mcpTransportTable, transportOfV1, type McpTransport } from "../../mappings/session.js";
import { isObject, jsonEqual, copyMembers } from "../base/json.js";
import { fail, ok, under, type Conv, type Loss } from "./result.js";
import { rpcErrors, type ConvertError } from "../base/errors.js";
import { Stash, setMeta, unstash, type ConvertOptions } from "./stash.js";

/**
 * Transports the receiving agent accepts. A: the v2 agent's `session.mcp` markers (`sse` only when
 * that agent is a bridge whose v1 agent has SSE). B: the v1 agent's `mcpCapabilities` (stdio is
 * v1 baseline; `acp` only when both sides speak unstable). `custom`: `_x` tags advertised in `_meta`.
 */
export interface McpSupport {
  readonly stdio: boolean;
  readonly http: boolean;
  readonly sse?: boolean | undefined;
  readonly acp?: boolean | undefined;
  readonly custom?: readonly string[] | undefined;
}

/** `--mcp-unsupported`: fail loudly (default) or drop with a warning (H §4.2, docs/decisions.md). */
type McpUnsupportedPolicy = "reject" | "drop";

export interface McpToV2Context extends ConvertOptions {
  readonly agentMcp: McpSupport;
  readonly onUnsupported: McpUnsupportedPolicy;
}

export interface McpToV1Context extends ConvertOptions {
  readonly agentMcp: McpSupport;
}

/** A server left out under `--mcp-unsupported drop`: names only (`env` may hold secrets). */
export interface DroppedMcpServer {
  readonly index: number;
  readonly name: string;
  readonly type: string;
}

export interface McpServersToV2 {
  readonly servers: v2.McpServer[];
  /** For the result's `_meta["acp-bridge"].residual.droppedMcpServers` and the warning log. */
  readonly dropped: DroppedMcpServer[];
}

const FIELD = "mcpServers";
const isUri = fullFormats.uri as (s: string) => boolean;

function supports(m: McpSupport, transport: string): boolean {
  switch (transport) {
    case "stdio":
      return m.stdio;
    case "http":
      return m.http;
    case "sse":
      return m.sse === true;
    case "acp":
      return m.acp === true;
    default:
      return m.custom?.includes(transport) ?? false;
  }
}

function malformed(index: number, key: string | undefined, reason: string): ConvertError {
  return rpcErrors.invalidParams({ field: key === undefined ? FIELD : `${FIELD}[${index}].${key}`, index, reason });
}

/** The SDK's `assertSupportedMcpServers` data (`{type}`) plus `index`, `name` and a reason. */
function unsupported(index: number, type: string, name: unknown, reason: string): ConvertError {
  const data = { field: FIELD, type, index, reason, ...(typeof name === "string" ? { name } : {}) };
  const who = typeof name === "string" ? ` (server ${JSON.stringify(name)})` : "";
  return rpcErrors.invalidParams(data, `Unsupported MCP server transport ${type}${who}`);
}

/**
 * The fields both versions type and the converters copy as they are: `name`, and when present
 * `command`, `url`, `args` (strings), `env` and `headers` (`{name, value}` strings), `_meta`.
 */
function fieldProblem(src: Record<string, unknown>, index: number): ConvertError | undefined {
  if (typeof src.name !== "string") return malformed(index, "name", "not_string");
  for (const key of ["command", "url"])
    if (src[key] !== undefined && typeof src[key] !== "string") return malformed(index, key, "not_string");
  const args = src.args;
  if (args !== undefined && args !== null) {
    if (!Array.isArray(args)) return malformed(index, "args", "not_array");
    const i = args.findIndex((a) => typeof a !== "string");
    if (i >= 0) return malformed(index, `args[${i}]`, "not_string");
  }
  for (const key of ["env", "headers"]) {
    const list = src[key];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) return malformed(index, key, "not_array");
    const i = list.findIndex((v) => !isObject(v) || typeof v.name !== "string" || typeof v.value !== "string");
    if (i >= 0) return malformed(index, `${key}[${i}]`, "not_name_value");
  }
  if (src._meta !== undefined && src._meta !== null && !isObject(src._meta))
    return malformed(index, "_meta", "not_object");
  return undefined;
}

/**
 * The field a known transport reaches its server by (`command`, `url`, `serverId`): required by both
 * versions, so a server without it cannot become a valid one of the other version.
 */
function endpointProblem(src: Record<string, unknown>, row: McpTransport | undefined, index: number) {
  if (row === undefined || typeof src[row.endpoint] === "string") return undefined;
  return malformed(index, row.endpoint, src[row.endpoint] === undefined ? "missing" : "not_string");
}

function stringList(x: unknown): string[] {
  return Array.isArray(x) ? x.filter((k): k is string => typeof k === "string") : [];
}

/**
 * One v1 server toward a v2 agent (A). `undefined` = dropped under the `drop` policy (the loss is
 * reported at the server). Unknown v1 tags are custom transports, forwarded only when advertised.
 * @internal Runs inside the session/new and load converters' server lists; exported for its property tests.
 */
export function mcpServerToV2(server: unknown, ctx: McpToV2Context, index = 0): Conv<v2.McpServer | undefined> {
  const src = server;
  if (!isObject(src)) return fail(malformed(index, undefined, "not_object"));
  const tag = src.type;
  if (tag !== undefined && typeof tag !== "string") return fail(malformed(index, "type", "not_string"));
  const problem = fieldProblem(src, index);
  if (problem) return fail(problem);
  const row: McpTransport | undefined = transportOfV1(tag);
  const missing = endpointProblem(src, row, index);
  if (missing) return fail(missing);
  const transport = row?.transport ?? tag ?? "stdio";
  if (!supports(ctx.agentMcp, transport)) {
    if ((row?.unsupportedToV2 ?? "reject") === "policy" && ctx.onUnsupported === "drop") {
      return ok(undefined, [{ path: [], reason: `dropped: the agent does not support MCP transport ${transport}` }]);
    }
    return fail(unsupported(index, transport, src.name, mcpReasons.toV2));
  }
  // v2 wants an RFC 3986 URL (the schema's `format: "uri"`); a server at no URL cannot be reached.
  if (transport === "http" && typeof src.url === "string" && !isUri(src.url))
    return fail(malformed(index, "url", "not_a_uri"));
  const { meta, env } = unstash(src._meta, 2);
  const stash = new Stash(1, ctx);
  const lost: Loss[] = [];
  let out: Record<string, unknown> = copyMembers(src);
  if (row?.v1Tag === null) {
    if (tag === undefined) out = { type: row.v2Tag, ...out };
    else {
      // An explicit v1 `type:"stdio"` looks like the added tag in v2: remember it was there.
      stash.keep("type", tag);
      lost.push({ path: ["type"], reason: "explicit type on a v1 stdio server" });
    }
  }
  // A null list (read as empty by v1 SDKs, the schema's default-on-null) has no v2 form: omitted, v2's "none".
  for (const key of row?.v1RequiredLists ?? []) {
    if (out[key] !== null) continue;
    Reflect.deleteProperty(out, key);
    lost.push({ path: [key], reason: `a null ${key} reads as empty: omitted` });
  }
  // A B bridge added `[]` for lists the v2 source omitted: omit them again.
  for (const key of stringList(env?.residual?.omitted)) {
    if (jsonEqual(out[key], [])) Reflect.deleteProperty(out, key);
  }
  setMeta(out, stash.into(meta));
  return ok(out as unknown as v2.McpServer, lost);
}

/**
 * One v2 server toward a v1 agent (B): strips the stdio tag, adds the lists v1 requires.
 * @internal Runs inside the session converters' server lists; exported for its property tests.
 */
export function mcpServerToV1(server: unknown, ctx: McpToV1Context, index = 0): Conv<v1.McpServer> {
  const src = server;
  if (!isObject(src)) return fail(malformed(index, undefined, "not_object"));
  const tag = src.type;
  if (typeof tag !== "string") return fail(malformed(index, "type", "not_string"));
  const problem = fieldProblem(src, index);
  if (problem) return fail(problem);
  const row = mcpTransportTable.find((r) => r.transport === tag);
  const missing = endpointProblem(src, row, index);
  if (missing) return fail(missing);
  if (!(row?.v1Baseline ?? false) && !supports(ctx.agentMcp, tag)) {
    return fail(unsupported(index, tag, src.name, mcpReasons.toV1));
  }
  const { meta, env } = unstash(src._meta, 1);
  const stash = new Stash(2, ctx);
  const lost: Loss[] = [];
  const out: Record<string, unknown> = copyMembers(src);
  if (row?.v1Tag === null) {
    const original = env?.residual?.type;
    if (typeof original === "string") out.type = original;
    else Reflect.deleteProperty(out, "type");
  }
  const omitted: string[] = [];
  for (const key of row?.v1RequiredLists ?? []) {
    if (out[key] !== undefined && out[key] !== null) continue;
    out[key] = [];
    omitted.push(key);
    lost.push({ path: [key], reason: `v1 requires ${key}: sent as []` });
  }
  if (omitted.length > 0) stash.keep("omitted", omitted);
  setMeta(out, stash.into(meta));
  return ok(out as unknown as v1.McpServer, lost);
}

/**
 * A: a v1 client's `mcpServers` toward a v2 agent. SSE, and stdio when the agent lacks
 * `session.mcp.stdio`, follow `onUnsupported`; other unsupported transports give -32602.
 * Duplicate names are forwarded (the agent may reject them with `{name}`).
 */
export function mcpServersToV2(list: readonly v1.McpServer[], ctx: McpToV2Context): Conv<McpServersToV2> {
  const src: unknown = list;
  if (!Array.isArray(src)) return fail(rpcErrors.invalidParams({ field: FIELD, index: null, reason: "not_array" }));
  const servers: v2.McpServer[] = [];
  const dropped: DroppedMcpServer[] = [];
  const lost: Loss[] = [];
  for (const [i, s] of (src as v1.McpServer[]).entries()) {
    const r = mcpServerToV2(s, ctx, i);
    if (!r.ok) return r;
    lost.push(...under([i], r.lost));
    if (r.value !== undefined) servers.push(r.value);
    else {
      const raw = s as unknown as Record<string, unknown>;
      dropped.push({ index: i, name: String(raw.name), type: typeof raw.type === "string" ? raw.type : "stdio" });
    }
  }
  return ok({ servers, dropped }, lost);
}

/** B: a v2 client's `mcpServers` toward a v1 agent; any transport it cannot take gives -32602. */
export function mcpServersToV1(list: readonly v2.McpServer[], ctx: McpToV1Context): Conv<v1.McpServer[]> {
  const src: unknown = list;
  if (!Array.isArray(src)) return fail(rpcErrors.invalidParams({ field: FIELD, index: null, reason: "not_array" }));
  const servers: v1.McpServer[] = [];
  const lost: Loss[] = [];
  for (const [i, s] of (src as v2.McpServer[]).entries()) {
    const r = mcpServerToV1(s, ctx, i);
    if (!r.ok) return r;
    lost.push(...under([i], r.lost));
    servers.push(r.value);
  }
  return ok(servers, lost);
}
