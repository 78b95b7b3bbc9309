// Session lifecycle requests and list results (H §4.1-4.11): new, load → resume + replay, resume,
// list (cursor wrapping, seed-000 filter), SessionInfo, close, delete and unstable fork, both directions.

import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import type * as v1u from "@agentclientprotocol/sdk/unstable";
import type * as v2u from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { cursorTable, replayTable } from "../../mappings/session.js";
import { contentBlockToV2, promptBlockToV1 } from "./content.js";
import {
  checkPathField,
  takeListDirectoriesFilter,
  validateAdditionalDirectories,
  type ListFilterSplit,
  type Platform,
} from "./directories.js";
import { isObject, jsonEqual, type Obj, withMembers, copyMembers } from "../base/json.js";
import { toRfc3339 } from "./rfc3339.js";
import {
  mcpServersToV1,
  mcpServersToV2,
  type DroppedMcpServer,
  type McpToV1Context,
  type McpToV2Context,
} from "./mcp.js";
import { attempt, ConvertFailure, ok, under, type Conv, type Converted, type Loss } from "./result.js";
import type { ConvertError } from "../base/errors.js";
import {
  hasResidual,
  isSynthetic,
  residualOf,
  setMeta,
  Stash,
  unstash,
  type ConvertOptions,
  type Envelope,
} from "./stash.js";
import { bad } from "./check.js";

/** What the engine knows about the receiving agent, for roots (H §4.10). */
interface RootsContext {
  readonly platform: Platform;
  /** v1 `sessionCapabilities.additionalDirectories` / v2 `session.additionalDirectories`. */
  readonly agentSupportsDirectories: boolean;
}

/** A (v1 client → v2 agent). */
export interface SessionToV2Context extends McpToV2Context, RootsContext {}

/** B (v2 client → v1 agent). */
export interface SessionToV1Context extends McpToV1Context, RootsContext {}

export interface ResumeToV1Context extends SessionToV1Context {
  /**
   * The v1 agent lacks `session/resume` but has `loadSession` (H §2.3): send a resume without replay
   * as `session/load`; the engine suppresses the history it replays.
   */
  readonly viaLoad?: boolean | undefined;
}

/** An A lifecycle request: the v2 params and the MCP servers dropped under `--mcp-unsupported drop`. */
export interface LifecycleToV2<T> {
  readonly params: T;
  readonly droppedMcpServers: readonly DroppedMcpServer[];
}

/** Where a v2 `session/resume` goes on a v1 agent (H §4.4 B). */
export type ResumeToV1 =
  | { readonly method: "session/load"; readonly params: v1.LoadSessionRequest; readonly replay: boolean }
  | { readonly method: "session/resume"; readonly params: v1.ResumeSessionRequest; readonly replay: false };

export interface ListToContext extends ConvertOptions {
  readonly platform: Platform;
  readonly agentSupportsDirectories: boolean;
}

// ---------------------------------------------------------------------------------------------
// Shared checks

// Session errors say `index: null` for a field that is not in a list (H §4.10's error shape).
const NOT_LISTED = { index: null };

function raise(error: ConvertError): never {
  throw new ConvertFailure(error);
}

function take<T>(r: Conv<T>, prefix: readonly (string | number)[], lost: Loss[]): T {
  if (!r.ok) raise(r.error);
  lost.push(...under(prefix, r.lost));
  return r.value;
}

function checkSessionId(src: Obj): void {
  if (typeof src.sessionId !== "string") bad("sessionId", "not_string", NOT_LISTED);
}

/** The raw params object after H §4.10 (rules 1-7), `sessionId` and `cwd` checks. */
function lifecycleParams(raw: unknown, ctx: RootsContext, hasSessionId: boolean, lost: Loss[]): Obj {
  if (!isObject(raw)) bad("params", "not_object", NOT_LISTED);
  // H §4.10: roots first, on the raw params, before anything else reads them.
  const dirs = validateAdditionalDirectories(raw, {
    agentSupports: ctx.agentSupportsDirectories,
    platform: ctx.platform,
  });
  const src = take(dirs, [], lost);
  if (hasSessionId) checkSessionId(src);
  const cwdError = checkPathField(src.cwd, "cwd", ctx.platform);
  if (cwdError) raise(cwdError);
  return src;
}

/** `null` lists read as none, as both SDKs do (`x-deserialize-default-on-null`). */
function dropNullServers(out: Obj, lost: Loss[]): void {
  if (out.mcpServers !== null) return;
  Reflect.deleteProperty(out, "mcpServers");
  lost.push({ path: ["mcpServers"], reason: "null mcpServers read as none" });
}

/** The unstable `systemPrompt`: content blocks converted, the rest copied. */
function systemPromptConverted(
  sp: unknown,
  convert: (b: never, o: ConvertOptions) => Conv<unknown>,
  opts: ConvertOptions,
  lost: Loss[],
): unknown {
  if (sp === null || sp === undefined) return sp;
  if (!isObject(sp)) bad("systemPrompt", "not_object", NOT_LISTED);
  // Copied as it is: both versions require a string mode.
  if (typeof sp.mode !== "string") bad("systemPrompt.mode", "not_string", NOT_LISTED);
  if (!Array.isArray(sp.content)) bad("systemPrompt.content", "not_array", NOT_LISTED);
  const content = (sp.content as unknown[]).map((b, i) => {
    const r = convert(b as never, opts);
    if (!r.ok) {
      const inner = r.error.data.field ?? "";
      const field = `systemPrompt.content[${i}]${inner === "" || inner.startsWith("[") ? inner : `.${inner}`}`;
      raise(withMembers(r.error, { data: { ...r.error.data, field, index: i } }));
    }
    lost.push(...under(["systemPrompt", "content", i], r.lost));
    return r.value;
  });
  return withMembers(sp, { content });
}

function convertSystemPrompt(out: Obj, to: 1 | 2, opts: ConvertOptions, lost: Loss[]): void {
  if (!Object.hasOwn(out, "systemPrompt")) return;
  out.systemPrompt = systemPromptConverted(out.systemPrompt, to === 2 ? contentBlockToV2 : promptBlockToV1, opts, lost);
}

/** Shared A body: servers and system prompt; the caller adds method-specific fields. */
function commonToV2(src: Obj, env: Envelope | undefined, ctx: SessionToV2Context, lost: Loss[]) {
  const out: Obj = copyMembers(src);
  let dropped: readonly DroppedMcpServer[] = [];
  dropNullServers(out, lost);
  if (isSynthetic(env, "mcpServers") && jsonEqual(out.mcpServers, [])) {
    // B added `[]` because v1 requires the key; the v2 source had none.
    Reflect.deleteProperty(out, "mcpServers");
  } else if (Object.hasOwn(out, "mcpServers")) {
    const r = take(mcpServersToV2(out.mcpServers as v1.McpServer[], ctx), ["mcpServers"], lost);
    out.mcpServers = r.servers;
    dropped = r.dropped;
  }
  convertSystemPrompt(out, 2, ctx, lost);
  return { out, dropped };
}

/** Shared B body; `requireServers` for the v1 methods where `mcpServers` is required. */
function commonToV1(src: Obj, ctx: SessionToV1Context, requireServers: boolean, stash: Stash, lost: Loss[]): Obj {
  const out: Obj = copyMembers(src);
  dropNullServers(out, lost);
  if (Object.hasOwn(out, "mcpServers")) {
    out.mcpServers = take(mcpServersToV1(out.mcpServers as v2.McpServer[], ctx), ["mcpServers"], lost);
  } else if (requireServers) {
    out.mcpServers = [];
    stash.invented("mcpServers");
    if (!Object.hasOwn(src, "mcpServers"))
      lost.push({ path: ["mcpServers"], reason: "v1 requires mcpServers: sent as []" });
  }
  convertSystemPrompt(out, 1, ctx, lost);
  return out;
}

/** `out` with the stash written onto its `_meta` (typed by the caller). */
function finish(out: Obj, stash: Stash, meta: unknown): object {
  return setMeta(out, stash.into(meta));
}

// ---------------------------------------------------------------------------------------------
// session/new (H §4.1)

/** new and fork toward v2: the shared lifecycle fields only (fork adds the source `sessionId`). */
function creationToV2<T>(x: unknown, ctx: SessionToV2Context, hasSessionId: boolean): Conv<LifecycleToV2<T>> {
  return attempt(() => {
    const lost: Loss[] = [];
    const src = lifecycleParams(x, ctx, hasSessionId, lost);
    const { meta, env } = unstash(src._meta, 2);
    const { out, dropped } = commonToV2(src, env, ctx, lost);
    return ok({ params: finish(out, new Stash(1, ctx), meta) as T, droppedMcpServers: dropped }, lost);
  });
}

/** new and fork toward v1; `mcpRequired`: v1 `session/new` requires `mcpServers`, fork does not. */
function creationToV1<T>(x: unknown, ctx: SessionToV1Context, hasSessionId: boolean, mcpRequired: boolean): Conv<T> {
  return attempt(() => {
    const lost: Loss[] = [];
    const src = lifecycleParams(x, ctx, hasSessionId, lost);
    const { meta } = unstash(src._meta, 1);
    const stash = new Stash(2, ctx);
    const out = commonToV1(src, ctx, mcpRequired, stash, lost);
    return ok(finish(out, stash, meta) as T, lost);
  });
}

/** A: v1 `session/new` params → v2. */
export function newSessionRequestToV2(
  x: v1.NewSessionRequest,
  ctx: SessionToV2Context,
): Conv<LifecycleToV2<v2.NewSessionRequest>> {
  return creationToV2(x, ctx, false);
}

/** B: v2 `session/new` params → v1 (`mcpServers` ∅ → `[]`). */
export function newSessionRequestToV1(x: v2.NewSessionRequest, ctx: SessionToV1Context): Conv<v1.NewSessionRequest> {
  return creationToV1(x, ctx, false, true);
}

// ---------------------------------------------------------------------------------------------
// session/load and session/resume (H §4.3, §4.4)

const START = { type: replayTable.start } as const;

/** v1 has no `replayFrom`: one a v1 client sent anyway is an unknown key, kept in the stash. */
function keepV1ReplayKey(src: Obj, out: Obj, stash: Stash, lost: Loss[]): void {
  if (!Object.hasOwn(src, "replayFrom")) return;
  stash.keep("replayFrom", src.replayFrom);
  Reflect.deleteProperty(out, "replayFrom");
  lost.push({ path: ["replayFrom"], reason: "v1 params carried a replayFrom key: it does not reach the v2 agent" });
}

/** A: v1 `session/load` → v2 `session/resume` with `replayFrom: {type:"start"}` (H §4.3). */
export function loadSessionRequestToV2(
  x: v1.LoadSessionRequest,
  ctx: SessionToV2Context,
): Conv<LifecycleToV2<v2.ResumeSessionRequest>> {
  return attempt(() => {
    const lost: Loss[] = [];
    const src = lifecycleParams(x, ctx, true, lost);
    const { meta, env } = unstash(src._meta, 2);
    const stash = new Stash(1, ctx);
    const { out, dropped } = commonToV2(src, env, ctx, lost);
    keepV1ReplayKey(src, out, stash, lost);
    if (isSynthetic(env, "replayFrom")) {
      // A B bridge sent a resume without replay as load (its agent has no resume): no replay.
    } else if (hasResidual(env, "replayFrom")) out.replayFrom = residualOf(env, "replayFrom");
    else out.replayFrom = { ...START };
    return ok({ params: finish(out, stash, meta) as v2.ResumeSessionRequest, droppedMcpServers: dropped }, lost);
  });
}

/** A: v1 `session/resume` → v2 `session/resume` without replay (H §4.4). */
export function resumeSessionRequestToV2(
  x: v1.ResumeSessionRequest,
  ctx: SessionToV2Context,
): Conv<LifecycleToV2<v2.ResumeSessionRequest>> {
  return attempt(() => {
    const lost: Loss[] = [];
    const src = lifecycleParams(x, ctx, true, lost);
    const { meta, env } = unstash(src._meta, 2);
    const stash = new Stash(1, ctx);
    const { out, dropped } = commonToV2(src, env, ctx, lost);
    keepV1ReplayKey(src, out, stash, lost);
    if (hasResidual(env, "replayFrom")) out.replayFrom = residualOf(env, "replayFrom");
    return ok({ params: finish(out, stash, meta) as v2.ResumeSessionRequest, droppedMcpServers: dropped }, lost);
  });
}

/** The v2 `replayFrom` cursor: `true` = replay from the start; unknown cursors are -32602 (v2 rule). */
function wantsReplay(rf: unknown): boolean {
  if (rf === undefined || rf === null) return false;
  if (!isObject(rf)) bad("replayFrom", "not_object", NOT_LISTED);
  if (typeof rf.type !== "string") bad("replayFrom.type", "not_string", NOT_LISTED);
  if (rf.type !== replayTable.start) bad("replayFrom", replayTable.unsupportedReason, { index: null, type: rf.type });
  return true;
}

/**
 * B: v2 `session/resume` → v1. With `replayFrom` start: `session/load` (`mcpServers` ∅ → `[]`);
 * without: `session/resume`, or `session/load` with `viaLoad` (replay: false, history to suppress).
 */
export function resumeSessionRequestToV1(x: v2.ResumeSessionRequest, ctx: ResumeToV1Context): Conv<ResumeToV1> {
  return attempt((): Converted<ResumeToV1> => {
    const lost: Loss[] = [];
    const src = lifecycleParams(x, ctx, true, lost);
    const rf = src.replayFrom;
    const replay = wantsReplay(rf);
    const load = replay || ctx.viaLoad === true;
    const { meta, env } = unstash(src._meta, 1);
    const stash = new Stash(2, ctx);
    const out = commonToV1(src, ctx, load, stash, lost);
    Reflect.deleteProperty(out, "replayFrom");
    if (hasResidual(env, "replayFrom")) out.replayFrom = residualOf(env, "replayFrom");
    // What a reverse A (which re-adds `{type:"start"}` to every load) cannot rebuild by itself.
    if (rf === null || (replay && !jsonEqual(rf, START))) stash.keep("replayFrom", rf);
    else if (load && !replay) stash.invented("replayFrom");
    if (rf === null || (replay && !jsonEqual(rf, START)) || (load && !replay)) {
      lost.push({ path: ["replayFrom"], reason: "the v1 method carries the replay choice, not the cursor" });
    }
    if (load)
      return ok({ method: "session/load", params: finish(out, stash, meta) as v1.LoadSessionRequest, replay }, lost);
    return ok(
      { method: "session/resume", params: finish(out, stash, meta) as v1.ResumeSessionRequest, replay: false },
      lost,
    );
  });
}

// ---------------------------------------------------------------------------------------------
// session/fork, unstable (H §4.9): like session/new plus the source sessionId; roots never inherited.

/** A: v1 (unstable) `session/fork` → v2 (unstable). */
export function forkSessionRequestToV2(
  x: v1u.ForkSessionRequest,
  ctx: SessionToV2Context,
): Conv<LifecycleToV2<v2u.ForkSessionRequest>> {
  return creationToV2(x, ctx, true);
}

/** B: v2 (unstable) `session/fork` → v1 (unstable); `mcpServers` is optional in both. */
export function forkSessionRequestToV1(
  x: v2u.ForkSessionRequest,
  ctx: SessionToV1Context,
): Conv<v1u.ForkSessionRequest> {
  return creationToV1(x, ctx, true, false);
}

// ---------------------------------------------------------------------------------------------
// session/list (H §4.5) and SessionInfo (H §4.6)

/** v2 cursor → the string a v1 client sees: `""` becomes the sentinel, `acp-bridge:…` is escaped. */
function wrapCursor(c: string): string {
  if (c === "") return cursorTable.empty;
  return c.startsWith(cursorTable.prefix) ? cursorTable.escape + c : c;
}

/** A cursor a v1 client sends back → the v2 cursor (inverse of `wrapCursor` on its image). */
function unwrapCursor(c: string): string {
  if (c === cursorTable.empty) return "";
  if (c.startsWith(cursorTable.escape)) {
    const inner = c.slice(cursorTable.escape.length);
    if (inner.startsWith(cursorTable.prefix)) return inner;
  }
  return c;
}

function checkCursor(x: unknown, field: string): void {
  if (x !== undefined && x !== null && typeof x !== "string") bad(field, "not_string", NOT_LISTED);
}

/** toV2: unwrap; a v1 string outside `wrapCursor`'s image ("" itself...) is stashed to stay exact. */
function cursorToV2(out: Obj, key: string, stash: Stash, lost: Loss[]): void {
  const c = out[key];
  if (typeof c !== "string") return;
  const v2c = unwrapCursor(c);
  out[key] = v2c;
  if (wrapCursor(v2c) !== c) {
    stash.keep(key, c);
    lost.push({ path: [key], reason: "v1 cursor the bridge reserves for wrapping v2 cursors" });
  }
}

function cursorToV1(out: Obj, key: string, env: Envelope | undefined): void {
  if (hasResidual(env, key)) out[key] = residualOf(env, key);
  else if (typeof out[key] === "string") out[key] = wrapCursor(out[key]);
}

function listRequest(x: unknown, ctx: ListToContext): { split: ListFilterSplit<Obj>; src: Obj } {
  if (!isObject(x)) bad("params", "not_object", NOT_LISTED);
  const split = takeListDirectoriesFilter(x, { agentSupports: ctx.agentSupportsDirectories, platform: ctx.platform });
  if (!split.ok) raise(split.error);
  const src = split.value.params;
  if (src.cwd !== undefined && src.cwd !== null) {
    const e = checkPathField(src.cwd, "cwd", ctx.platform);
    if (e) raise(e);
  }
  checkCursor(src.cursor, "cursor");
  return { split: split.value, src };
}

/**
 * A: v1 `session/list` params → v2 (cursor unwrapped). The seed-000 `additionalDirectories` filter
 * is validated and taken out: the engine applies `directoriesFilter` to each returned page.
 */
export function listSessionsRequestToV2(
  x: v1.ListSessionsRequest,
  ctx: ListToContext,
): Conv<ListFilterSplit<v2.ListSessionsRequest>> {
  return attempt(() => {
    const lost: Loss[] = [];
    const { split, src } = listRequest(x, ctx);
    const { meta } = unstash(src._meta, 2);
    const stash = new Stash(1, ctx);
    const out: Obj = copyMembers(src);
    cursorToV2(out, "cursor", stash, lost);
    return ok({ params: finish(out, stash, meta), directoriesFilter: split.directoriesFilter }, lost);
  });
}

/** B: v2 `session/list` params → v1 (cursor wrapped), filter as in `listSessionsRequestToV2`. */
export function listSessionsRequestToV1(
  x: v2.ListSessionsRequest,
  ctx: ListToContext,
): Conv<ListFilterSplit<v1.ListSessionsRequest>> {
  return attempt(() => {
    const { split, src } = listRequest(x, ctx);
    const { meta, env } = unstash(src._meta, 1);
    const out: Obj = copyMembers(src);
    cursorToV1(out, "cursor", env);
    return ok({ params: finish(out, new Stash(2, ctx), meta), directoriesFilter: split.directoriesFilter });
  });
}

/** A listed session: what both versions require and the converters copy as it is. */
function checkListedSession(x: unknown): Obj {
  if (!isObject(x)) bad("sessions[]", "not_object", NOT_LISTED);
  for (const key of ["sessionId", "cwd"])
    if (typeof x[key] !== "string") bad(`sessions[].${key}`, "not_string", NOT_LISTED);
  if (x.title !== undefined && x.title !== null && typeof x.title !== "string")
    bad("sessions[].title", "not_string", NOT_LISTED);
  const dirs = x.additionalDirectories;
  if (dirs !== undefined && !(Array.isArray(dirs) && dirs.every((d) => typeof d === "string")))
    bad("sessions[].additionalDirectories", "not_string_list", NOT_LISTED);
  return x;
}

function sessionsOf(src: Obj): unknown[] {
  if (!Array.isArray(src.sessions)) bad("sessions", "not_array", NOT_LISTED);
  return src.sessions as unknown[];
}

/** A: v2 `session/list` result → v1 (`nextCursor` wrapped, each SessionInfo converted). */
export function listSessionsResponseToV1(x: unknown, opts: ConvertOptions): Conv<v1.ListSessionsResponse> {
  return attempt(() => {
    const src = x;
    if (!isObject(src)) bad("result", "not_object", NOT_LISTED);
    const lost: Loss[] = [];
    const { meta, env } = unstash(src._meta, 1);
    const out: Obj = copyMembers(src);
    out.sessions = sessionsOf(src).map((s, i) =>
      take(listedSessionToV1(s as v2.SessionInfo, opts), ["sessions", i], lost),
    );
    checkCursor(src.nextCursor, "nextCursor");
    cursorToV1(out, "nextCursor", env);
    return ok(finish(out, new Stash(2, opts), meta) as v1.ListSessionsResponse, lost);
  });
}

/** B: v1 `session/list` result → v2 (`nextCursor` unwrapped, `updatedAt` made RFC 3339). */
export function listSessionsResponseToV2(x: unknown, opts: ConvertOptions): Conv<v2.ListSessionsResponse> {
  return attempt(() => {
    const src = x;
    if (!isObject(src)) bad("result", "not_object", NOT_LISTED);
    const lost: Loss[] = [];
    const { meta } = unstash(src._meta, 2);
    const stash = new Stash(1, opts);
    const out: Obj = copyMembers(src);
    out.sessions = sessionsOf(src).map((s, i) =>
      take(listedSessionToV2(s as v1.SessionInfo, opts), ["sessions", i], lost),
    );
    checkCursor(src.nextCursor, "nextCursor");
    cursorToV2(out, "nextCursor", stash, lost);
    return ok(finish(out, stash, meta) as v2.ListSessionsResponse, lost);
  });
}

/** B↓: v1 `SessionInfo` → v2: `updatedAt` made RFC 3339 or omitted, the original in `residual.updatedAt`. */
function listedSessionToV2(x: unknown, opts: ConvertOptions): Conv<v2.SessionInfo> {
  return attempt(() => {
    const src = checkListedSession(x);
    const lost: Loss[] = [];
    const { meta, env } = unstash(src._meta, 2);
    const stash = new Stash(1, opts);
    const out: Obj = copyMembers(src);
    const u = src.updatedAt;
    if (hasResidual(env, "updatedAt")) out.updatedAt = residualOf(env, "updatedAt");
    else if (u !== undefined && u !== null) {
      const fixed = typeof u === "string" ? toRfc3339(u) : undefined;
      if (fixed !== u) {
        stash.keep("updatedAt", u);
        if (fixed === undefined) Reflect.deleteProperty(out, "updatedAt");
        else out.updatedAt = fixed;
        lost.push({
          path: ["updatedAt"],
          reason: fixed === undefined ? "not a timestamp: omitted" : "reformatted to RFC 3339",
        });
      }
    }
    return ok(finish(out, stash, meta) as v2.SessionInfo, lost);
  });
}

/** A↓: v2 `SessionInfo` → v1 (copied; a form `listedSessionToV2` would rewrite is stashed). */
function listedSessionToV1(x: unknown, opts: ConvertOptions): Conv<v1.SessionInfo> {
  return attempt(() => {
    const src = checkListedSession(x);
    const lost: Loss[] = [];
    const { meta, env } = unstash(src._meta, 1);
    const stash = new Stash(2, opts);
    const out: Obj = copyMembers(src);
    const u = src.updatedAt;
    // v1 copies it, and wants a string (or null) as v2 does.
    if (u !== undefined && u !== null && typeof u !== "string") bad("sessions[].updatedAt", "not_string", NOT_LISTED);
    if (hasResidual(env, "updatedAt")) out.updatedAt = residualOf(env, "updatedAt");
    else if (u !== undefined && u !== null && (typeof u !== "string" || toRfc3339(u) !== u)) {
      stash.keep("updatedAt", u);
      lost.push({ path: ["updatedAt"], reason: "timestamp form the reverse conversion would rewrite" });
    }
    return ok(finish(out, stash, meta) as v1.SessionInfo, lost);
  });
}
