// Tool calls, their content items and locations v1 ⇄ v2 (T §2.4, §3.2, §3.4, the content items of
// T §2.5; T §6 rows ToolKind, ToolCallStatus, ToolCallContent.type). The engine keeps the state.

import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { placeholder } from "../../mappings/content.js";
import { downgrade, kindLabel, toolCallTable } from "../../mappings/tool-call.js";
import {
  contentBlockToV1,
  contentBlockToV2,
  expectObject,
  expectOptional,
  expectString,
  invalid,
  prefixLosses,
  unwrap,
} from "./content.js";
import { diffStashOf, diffToV1, diffToV2, type DiffStage, type FileTexts } from "./diff.js";
import { DEFAULT_DIFF_RENDERING, type DiffRendering } from "./diff-options.js";
import {
  isObject,
  isString,
  jsonEqual,
  metaOf,
  omit,
  type Obj,
  setOwn,
  withMembers,
  copyMembers,
} from "../base/json.js";
import { attempt, type Conv, type Converted, type Loss, ok, type Path } from "./result.js";
import {
  type ConvertOptions,
  type Envelope,
  hasResidual,
  isSynthetic,
  residualOf,
  setMeta,
  Stash,
  unstash,
} from "./stash.js";
import { resolvePath } from "./paths.js";

export interface ToolCallToV1Context {
  readonly opts: ConvertOptions;
  /** First-sighting title from a permission request (T §4, `permissionTitleIntoToolCall:"ifMissing"`). */
  readonly titleHint?: string | undefined;
  /** The engine's transcript renderer (T §2.5); default: a placeholder text + stash `terminal`. */
  readonly renderTerminal?: ((terminalId: string) => v1.ToolCallContent) | undefined;
  /** `config.diffRendering` (docs/decisions.md#v2-diffs-toward-v1), default `"full"`. */
  readonly diffRendering?: DiffRendering | undefined;
  /** The current text of the files the diffs name, as the engine read them. */
  readonly files?: FileTexts | undefined;
  /** Whether the tool's edit is pending or applied, when its status (or a permission request) tells. */
  readonly diffStage?: DiffStage;
  /**
   * T §2.4 A↓-3: this emission stands for these `tool_call_content_chunk`s, appended (in order) since
   * the last emission; `u.content` is the whole accumulated content. Adds `op:"content_chunk"`.
   */
  readonly chunks?: readonly v2.ToolCallContentChunk[] | undefined;
  /** The engine re-renders terminal output into the content (T §2.5): the agent sent no such update. */
  readonly rerender?: boolean | undefined;
  /** Announced because a permission request's subject names it (T §4 A↓): a v2 client has it from the subject. */
  readonly forPermission?: boolean | undefined;
  /** The caller reads no losses (the engine): a diff may report them coarsely (`diffToV1`'s `coarseLosses`). */
  readonly coarseLosses?: boolean | undefined;
  /** The engine's memory of content it rendered: the same array again is shown as it was (`ShownContent`). */
  readonly shownContent?: ShownContent | undefined;
}

/**
 * Content lists rendered toward v1, remembered by the engine: a completion that repeats a tool call's
 * content (the same array, never changed in place) shows the client what it was shown, without its
 * files read and its diffs worked out again. Only lists with a diff are remembered, and none with a
 * terminal: a terminal renders its transcript as it stands.
 */
export interface ShownContent {
  recall(content: readonly unknown[]): Converted<unknown[]> | undefined;
  remember(content: readonly unknown[], rendered: Converted<unknown[]>): void;
}

export interface ToolCallToV2Context {
  readonly opts: ConvertOptions;
  /** Whether B already emitted this tool call to the v2 client (T §2.4 B↓ `seen`). */
  readonly seen: boolean;
  /** The session's cwd, to resolve relative paths (T §3.3 B↓-1, §3.4). */
  readonly cwd?: string | undefined;
  /** The tool's last known kind (`lastKind`), for diff `delete` detection (T §3.3 B↓-2). */
  readonly toolKind?: string | undefined;
  /** Terminals the v1 agent announced through `_meta.terminal_info` (T §2.5 B↓-1): kept as v2 terminals. */
  readonly extensionTerminals?: { has(terminalId: string): boolean } | undefined;
  /** The current text of the files the diffs name, to place v1 snippets (T §3.3 B↓, README). */
  readonly files?: FileTexts | undefined;
  /** Whether the tool's edit is pending or applied, when its status (or a permission request) tells. */
  readonly diffStage?: DiffStage;
  /** The caller reads no losses (the engine without an observer): a diff reports them coarsely (`diffToV2`). */
  readonly coarseLosses?: boolean | undefined;
}

/** Fields a v1 `ToolCall` (a creation) accepts as `null`, meaning "none" there as in v2. */
const NULLABLE_IN_V1_TOOL_CALL: ReadonlySet<string> = new Set(["name", "rawInput", "rawOutput", "_meta"]);
const PATCH_FIELDS: readonly string[] = toolCallTable.replacedByToolCall;
/** `toolCallTable.nullToV1` as a list, read once (every tool call toward v1 walks it). */
const NULL_TO_V1 = Object.entries(toolCallTable.nullToV1);
const TOOL_CALL_OP = "tool_call";
const CONTENT_CHUNK_OP = "content_chunk";
const UPDATE_OP = "tool_call_update";
/** Synthetic: an A bridge's re-render of terminal output; a chained B has the terminal updates themselves. */
const RERENDER = "rerender";
/** Synthetic: an A bridge's announcement of a permission subject's tool call; a chained B's client has the subject. */
export const FOR_PERMISSION = "forPermission";

/** Whether a v2 tool_call_update is a B bridge's announcement of a v1 permission's unseen tool call. */
export function isPermissionPreAnnouncement(u: unknown): boolean {
  return isObject(u) && isSynthetic(unstash(u._meta, 1).env, FOR_PERMISSION);
}

/** Whether a v1 tool call message is an A bridge's announcement for a permission subject. */
export function isPermissionAnnouncement(m: V1ToolCallMessage): boolean {
  return m.sessionUpdate === "tool_call" && isSynthetic(unstash(metaOf(m), 2).env, FOR_PERMISSION);
}

// ---- tool calls, v2 → v1 (A↓) ----

/** First sighting of a v2 tool call → v1 `tool_call` (T §2.4 A↓-1): fallback title, nulls omitted. */
export function toolCallToV1(u: v2.ToolCallUpdate, ctx: ToolCallToV1Context): Conv<v1.ToolCall> {
  return attempt(() => bodyToV1(u, ctx, true) as Converted<v1.ToolCall>);
}

/** A later v2 `tool_call_update` → v1 `tool_call_update` (T §2.4 A↓-2, its null table). */
export function toolCallUpdateToV1(u: v2.ToolCallUpdate, ctx: ToolCallToV1Context): Conv<v1.ToolCallUpdate> {
  return attempt(() => bodyToV1(u, ctx, false) as Converted<v1.ToolCallUpdate>);
}

/**
 * Whether a v2 update is a re-sent v1 `tool_call` that B turned into nulls (stash `op:"tool_call"`):
 * the engine then sends the result of `toolCallUpdateToV1` as a v1 `tool_call`.
 */
export function restoresV1ToolCall(u: unknown): boolean {
  const { env } = unstash(metaOf(u), 1);
  return residualOf(env, "op") === TOOL_CALL_OP;
}

/**
 * Whether a v2 update stands for a v1 `tool_call_update` about a tool call the v1 client never saw
 * announced (stash `op:"tool_call_update"`): the engine sends it back as that update, not as a `tool_call`.
 */
export function restoresV1Update(u: unknown): boolean {
  const { env } = unstash(metaOf(u), 1);
  return residualOf(env, "op") === UPDATE_OP;
}

/**
 * The v1 title shown for a v2 tool call without one (T §2.4 A↓-1).
 * @internal Runs inside the tool-call converters; exported for its unit tests.
 */
export function fallbackTitle(u: v2.ToolCallUpdate, titleHint?: string): string {
  const src = u as Obj;
  return (
    nonEmpty(titleHint) ??
    nonEmpty(src.name) ??
    (isString(src.kind) ? kindLabel(src.kind) : undefined) ??
    toolCallTable.defaultTitle
  );
}

function bodyToV1(u: unknown, ctx: ToolCallToV1Context, announce: boolean): Converted<Obj> {
  const src = expectObject(u, []);
  checkToolCallShape(src, false);
  const { meta: srcMeta, env } = unstash(src._meta, 1);
  // A re-sent v1 `tool_call` (B↓-1) comes back as one: its invented nulls go, its own nulls stay.
  const creation = announce || residualOf(env, "op") === TOOL_CALL_OP;
  const fields: Obj = omit(src, "_meta");
  for (const name of env?.synthetic ?? []) if (PATCH_FIELDS.includes(name)) Reflect.deleteProperty(fields, name);
  const out: Obj = copyMembers(fields);
  const stash = new Stash(2, ctx.opts);
  const cleared: string[] = [];
  const lost: Loss[] = [];
  let meta = srcMeta;

  for (const [key, rule] of NULL_TO_V1) {
    if (key === "_meta" || fields[key] !== null) continue;
    if (creation && NULLABLE_IN_V1_TOOL_CALL.has(key)) continue;
    cleared.push(key);
    if (creation || rule === "omit") {
      Reflect.deleteProperty(out, key);
      lost.push({ path: [key], reason: "v1 cannot reset this field; omitted" });
    } else {
      out[key] = structuredClone(rule.v1);
      lost.push({ path: [key], reason: "v2 null (reset) sent as the v1 default value" });
    }
  }
  if (meta === null && !creation) {
    // v1 null means "unchanged": a v2 `_meta: null` (clear) cannot be said.
    cleared.push("_meta");
    lost.push({ path: ["_meta"], reason: "v1 cannot clear _meta; omitted" });
    meta = undefined;
  }

  if (isString(fields.kind)) {
    const d = toolKindToV1(fields.kind);
    if (d.changed) {
      stash.keep("kind", fields.kind);
      lost.push({ path: ["kind"], reason: `v1 has no tool kind "${fields.kind}"` });
    }
    out.kind = d.value;
  }
  if (isString(fields.status)) {
    const d = toolCallStatusToV1(fields.status);
    if (d.changed) {
      stash.keep("status", fields.status);
      lost.push({ path: ["status"], reason: `v1 has no tool call status "${fields.status}"` });
    }
    out.status = d.value;
  }
  if (Array.isArray(fields.content)) {
    const r = shownContentToV1(fields.content, ctx);
    out.content = r.value;
    lost.push(...prefixLosses(["content"], r.lost));
  }
  if (Array.isArray(fields.locations)) {
    out.locations = fields.locations.map((l, i) => locToV1(l, ctx.opts, ["locations", i]));
  }
  if (Object.hasOwn(fields, "capabilities")) {
    stash.keep("capabilities", fields.capabilities);
    delete out.capabilities;
    lost.push({ path: ["capabilities"], reason: "v1 has no tool_call/cancel" });
  }
  if (creation && !isString(out.title)) {
    out.title = fallbackTitle(fields as v2.ToolCallUpdate, ctx.titleHint);
    stash.invented("title");
    if (fields.title !== null) lost.push({ path: ["title"], reason: "v1 requires a title; one was synthesized" });
  }

  // Restore what B changed on the way to v2: fields that were null in the v1 source.
  let metaNull = false;
  for (const name of stringList(residualOf(env, "nulls"))) {
    if (creation && !NULLABLE_IN_V1_TOOL_CALL.has(name)) continue;
    if (name === "_meta") metaNull = true;
    else out[name] = null;
  }

  if (cleared.length > 0) stash.keep("cleared", cleared);
  if (ctx.rerender === true) stash.invented(RERENDER);
  if (ctx.forPermission === true) stash.invented(FOR_PERMISSION);
  if (ctx.chunks !== undefined && ctx.chunks.length > 0) {
    stash.keep("op", CONTENT_CHUNK_OP).keep("count", ctx.chunks.length);
    const rests = ctx.chunks.map((c) => chunkRest(c as Obj));
    if (rests.some((r) => Object.keys(r).length > 0)) stash.keep("chunks", rests);
  }
  setMeta(out, stash.into(meta));
  if (metaNull && out._meta === undefined) out._meta = null;
  return ok(out, lost);
}

/** A chunk's own keys besides the ones the v1 update carries (chunk-scoped `_meta`, extensions). */
function chunkRest(c: Obj): Obj {
  const rest: Obj = omit(c, "sessionUpdate", "toolCallId", "content");
  return rest;
}

// ---- tool calls, v1 → v2 (B↓) ----

/** A v1 `tool_call_update` → v2 (T §2.4 B↓-2): v1 nulls (unchanged) are dropped, the stash restored. */
export function toolCallUpdateToV2(u: v1.ToolCallUpdate, ctx: ToolCallToV2Context): Conv<v2.ToolCallUpdate> {
  return attempt(() => bodyToV2(u, ctx, false) as Converted<v2.ToolCallUpdate>);
}

function bodyToV2(u: unknown, ctx: ToolCallToV2Context, creation: boolean, markUnseenUpdate = false): Converted<Obj> {
  const src = expectObject(u, []);
  checkToolCallShape(src, creation);
  const { meta: srcMeta, env } = unstash(src._meta, 2);
  const out: Obj = omit(src, "_meta");
  const stash = new Stash(1, ctx.opts);
  const nulls: string[] = [];
  const lost: Loss[] = [];
  let meta = srcMeta;

  for (const key of PATCH_FIELDS) {
    if (src[key] !== null || (creation && NULLABLE_IN_V1_TOOL_CALL.has(key))) continue;
    // v1 null means "unchanged", v2 null means "clear": drop it.
    Reflect.deleteProperty(out, key);
    nulls.push(key);
    lost.push({ path: [key], reason: "v1 null (unchanged) omitted" });
  }
  if (meta === null && !creation && env === undefined) {
    nulls.push("_meta");
    lost.push({ path: ["_meta"], reason: "v1 null (unchanged) omitted" });
    meta = undefined;
  }

  if (isString(out.kind) && isString(residualOf(env, "kind"))) out.kind = residualOf(env, "kind");
  if (isString(out.status) && isString(residualOf(env, "status"))) out.status = residualOf(env, "status");
  if (Array.isArray(out.content)) {
    const toolKind = isString(out.kind) ? out.kind : ctx.toolKind;
    const r = contentListToV2(out.content, withMembers(ctx, { toolKind }), ["content"]);
    out.content = r.value;
    lost.push(...prefixLosses(["content"], r.lost));
  }
  if (Array.isArray(out.locations)) {
    const locs: unknown[] = [];
    out.locations.forEach((l, i) => {
      const r = locToV2(l, ctx.opts, ctx.cwd, ["locations", i]);
      locs.push(r.value);
      lost.push(...prefixLosses(["locations", i], r.lost));
    });
    out.locations = locs;
  }

  // Restore what A could not say in v1 (T §2.4 B↓-3).
  if (isSynthetic(env, "title")) delete out.title;
  let metaNull = false;
  for (const name of stringList(residualOf(env, "cleared"))) {
    if (name === "_meta") metaNull = true;
    else out[name] = null;
  }
  if (hasResidual(env, "capabilities")) out.capabilities = residualOf(env, "capabilities");

  if (creation && ctx.seen && env === undefined) {
    // A re-sent v1 tool_call replaces the tool call wholesale: absent fields are cleared.
    for (const key of PATCH_FIELDS) {
      if (Object.hasOwn(out, key)) continue;
      out[key] = null;
      stash.invented(key);
      lost.push({ path: [key], reason: "absent from a re-sent v1 tool_call; cleared in v2" });
    }
    stash.keep("op", TOOL_CALL_OP);
  }
  // A v1 update of an unseen tool call: v2 has only the upsert, which a v1 client would get as a tool_call.
  if (markUnseenUpdate && !creation && !ctx.seen) stash.keep("op", UPDATE_OP);
  if (nulls.length > 0) stash.keep("nulls", nulls);
  setMeta(out, stash.into(meta));
  if (metaNull && out._meta === undefined) out._meta = null;
  return ok(out, lost);
}

const OPTIONAL_STRINGS: readonly string[] = ["title", "name", "kind", "status"];
const OPTIONAL_ARRAYS: readonly string[] = ["content", "locations"];
const ROOT: Path = [];
const TOOL_CALL_ID_PATH: Path = ["toolCallId"];
const TITLE_PATH: Path = ["title"];

function checkToolCallShape(src: Obj, v1ToolCall: boolean): void {
  expectString(src.toolCallId, TOOL_CALL_ID_PATH);
  if (v1ToolCall) expectString(src.title, TITLE_PATH);
  for (const k of OPTIONAL_STRINGS) expectOptional(src, k, "string", ROOT);
  for (const k of OPTIONAL_ARRAYS) expectOptional(src, k, "array", ROOT);
}

// ---- tool-call messages with their `sessionUpdate` tag (B↓ restore of chunks, T §2.4 B↓-3) ----

export type V1ToolCallMessage =
  (v1.ToolCall & { sessionUpdate: "tool_call" }) | (v1.ToolCallUpdate & { sessionUpdate: "tool_call_update" });

export type V2ToolCallMessage =
  | (v2.ToolCallUpdate & { sessionUpdate: "tool_call_update" })
  | (v2.ToolCallContentChunk & { sessionUpdate: "tool_call_content_chunk" });

export interface ToolCallMessageToV2Context extends ToolCallToV2Context {
  /** The v2 `content` B last emitted for this tool call (`lastContent`); `undefined` when unknown. */
  readonly lastContent?: readonly v2.ToolCallContent[] | undefined;
  /** T §2.4 B↓-4 (`config.emitContentChunks`): an update that only appends items becomes chunks. */
  readonly emitContentChunks?: boolean | undefined;
}

/**
 * A v1 `tool_call` / `tool_call_update` → the v2 updates it stands for: one `tool_call_update`, the
 * `tool_call_content_chunk`s of a stash `op:"content_chunk"` (when `lastContent` matches), or none
 * for A's synthetic permission tool call (T §2.4 B↓-3).
 */
export function toolCallMessageToV2(m: V1ToolCallMessage, ctx: ToolCallMessageToV2Context): Conv<V2ToolCallMessage[]> {
  return attempt(() => {
    const src = expectObject(m, []);
    const tag = src.sessionUpdate;
    if (tag !== "tool_call" && tag !== "tool_call_update") invalid(["sessionUpdate"], "unknown_variant");
    const body: Obj = omit(src, "sessionUpdate");
    const { env } = unstash(body._meta, 2);
    if (isSynthetic(env, "toolCall"))
      return ok([], [{ path: [], reason: "bridge-made tool call of a permission subject" }]);
    if (tag === "tool_call" && isSynthetic(env, FOR_PERMISSION))
      return ok([], [{ path: [], reason: "a bridge announced it for a permission subject, which carries it in v2" }]);
    if (tag === "tool_call_update" && isSynthetic(env, RERENDER))
      return ok(
        [],
        [{ path: [], reason: "a bridge's re-render of terminal output (the terminal updates come on the channel)" }],
      );
    const r = unwrap(bodyToV2(body, ctx, tag === "tool_call", true), []);
    const chunks = asChunks(r.value, env, ctx, tag === "tool_call" && !ctx.seen);
    if (chunks) return ok(chunks, r.lost);
    return ok([{ sessionUpdate: "tool_call_update", ...r.value } as V2ToolCallMessage], r.lost);
  });
}

/**
 * What `toolCallMessageToV2` makes of the `content` list of a v1 tool call whose kind (or, without
 * one, the tool call's last) is `ctx.toolKind`, its other members aside: direction B's member path
 * converts a list with diffs by this alone, the rest of the line kept as its bytes.
 */
export function toolContentToV2(items: readonly unknown[], ctx: ToolCallToV2Context): Conv<unknown[]> {
  return attempt(() => contentListToV2(items, ctx, CONTENT_PATH));
}

const CONTENT_PATH: Path = ["content"];

function asChunks(
  u: Obj,
  env: Envelope | undefined,
  ctx: ToolCallMessageToV2Context,
  fresh: boolean,
): V2ToolCallMessage[] | undefined {
  const content: unknown = u.content;
  if (!Array.isArray(content) || !Object.keys(u).every((k) => k === "toolCallId" || k === "content")) return undefined;
  const last = ctx.lastContent ?? (fresh ? [] : undefined);
  if (last === undefined) return undefined;
  let k: number | undefined;
  const count = residualOf(env, "count");
  if (residualOf(env, "op") === CONTENT_CHUNK_OP) {
    if (typeof count === "number" && Number.isInteger(count) && count >= 1) k = count;
  } else if (ctx.emitContentChunks === true && content.length > last.length) {
    k = content.length - last.length;
  }
  if (k === undefined || k > content.length || last.length !== content.length - k) return undefined;
  if (!jsonEqual(last, content.slice(0, last.length))) return undefined;
  const rests = residualOf(env, "chunks");
  return (content as unknown[]).slice(last.length).map((item, j) => {
    const rest = Array.isArray(rests) && isObject(rests[j]) ? rests[j] : {};
    // The usual key order; the chunk's own other keys (its `_meta`...) after.
    return {
      sessionUpdate: "tool_call_content_chunk",
      toolCallId: u.toolCallId,
      content: item,
      ...rest,
    } as V2ToolCallMessage;
  });
}

// ---- tool-call content (T §3.2, §2.5) ----

/** What a v1 text item standing for a v2 terminal stashes (T §2.5, §7.2 `terminal` + `bytes`). */
interface TerminalStash {
  /** `{terminalId, command?, cwd?, exitStatus?, size?}` as the A renderer kept it. */
  readonly terminal: Readonly<Obj> & { readonly terminalId: string };
  /** The raw output, base64 (only at `full`): B re-emits it as an `output` snapshot. */
  readonly bytes?: string;
}

function terminalResidual(env: Envelope | undefined): TerminalStash | undefined {
  const t = residualOf(env, "terminal");
  if (!isObject(t) || !isString(t.terminalId)) return undefined;
  const terminal = t as Obj & { terminalId: string };
  const bytes = residualOf(env, "bytes");
  return isString(bytes) ? { terminal, bytes } : { terminal };
}

/** `contentListToV1` of a tool call's content, or the rendering `ctx.shownContent` remembers of that very list. */
function shownContentToV1(items: unknown[], ctx: ToolCallToV1Context): Converted<unknown[]> {
  const memory = ctx.shownContent;
  const known = memory?.recall(items);
  // A fresh array: the caller's message may gain members, never the remembered rendering.
  if (known !== undefined) return ok([...known.value], known.lost);
  const r = contentListToV1(items, ctx, ["content"]);
  if (memory !== undefined && worthRemembering(items)) memory.remember(items, ok([...r.value], r.lost));
  return r;
}

/** A list with a diff (files read, texts worked out) and no terminal (its transcript changes). */
function worthRemembering(items: readonly unknown[]): boolean {
  let diff = false;
  for (const item of items) {
    if (!isObject(item)) continue;
    if (item.type === "terminal") return false;
    if (item.type === "diff") diff = true;
  }
  return diff;
}

function contentListToV1(items: unknown, ctx: ToolCallToV1Context, at: Path): Converted<unknown[]> {
  if (!Array.isArray(items)) invalid(at, "expected_array");
  const out: unknown[] = [];
  const lost: Loss[] = [];
  for (let i = 0; i < items.length; i++) {
    const r = itemToV1(items[i], i, ctx, [...at, i]);
    for (const v of r.value) out.push(v);
    if (r.lost.length > 0) lost.push(...prefixLosses([i], r.lost));
  }
  return ok(out, lost);
}

function itemToV1(x: unknown, group: number, ctx: ToolCallToV1Context, at: Path): Converted<unknown[]> {
  const src = expectObject(x, at);
  const type = src.type;
  if (!isString(type)) invalid([...at, "type"], "expected_string");
  expectOptional(src, "_meta", "object", at);
  if (type === "diff") {
    const rendering = ctx.diffRendering ?? DEFAULT_DIFF_RENDERING;
    const dctx = {
      opts: ctx.opts,
      rendering,
      group,
      files: ctx.files,
      stage: ctx.diffStage,
      coarseLosses: ctx.coarseLosses,
    };
    return unwrap(diffToV1(src as Parameters<typeof diffToV1>[0], dctx), at);
  }
  const { meta, env } = unstash(src._meta, 1);
  const raw = residualOf(env, "raw");
  if (isObject(raw) && isString(raw.type)) return ok([raw]);
  if (type === "content") {
    const r = unwrap(contentBlockToV1(src.content as v2.ContentBlock, ctx.opts), [...at, "content"]);
    const out: Obj = withMembers(src, { content: r.value });
    setMeta(out, meta);
    return ok([out], prefixLosses(["content"], r.lost));
  }
  if (type === "terminal") {
    const id = src.terminalId;
    if (!isString(id)) invalid([...at, "terminalId"], "expected_string");
    return terminalToV1(src, id, meta, ctx);
  }
  return ok(
    [placeholderItem("unsupportedToolOutput", { type }, 2, src, ctx.opts)],
    [{ path: [], reason: `v1 has no tool call content type "${type}"` }],
  );
}

/** A text item standing for `raw`, which rides in the item's stash (from version `from`). */
function placeholderItem(
  name: "unsupportedToolOutput" | "terminal" | "terminalUnavailable",
  vars: Record<string, string>,
  from: 1 | 2,
  raw: Obj,
  opts: ConvertOptions,
): Obj {
  const out: Obj = { type: "content", content: { type: "text", text: placeholder(name, vars) } };
  return setMeta(out, new Stash(from, opts).keep("raw", raw).into(undefined));
}

function terminalToV1(src: Obj, id: string, meta: unknown, ctx: ToolCallToV1Context): Converted<unknown[]> {
  const extras = omit(src, "type", "terminalId", "_meta");
  const asText: Loss[] = [{ path: [], reason: "v2 display terminals are shown to v1 as text" }];
  if (ctx.renderTerminal) {
    const rendered: Obj = copyMembers(ctx.renderTerminal(id) as Obj);
    for (const k in extras) if (Object.hasOwn(extras, k) && !Object.hasOwn(rendered, k)) setOwn(rendered, k, extras[k]);
    if (meta !== undefined && !Object.hasOwn(rendered, "_meta")) rendered._meta = meta;
    return ok([rendered], rendered.type === "terminal" ? [] : asText);
  }
  // An extra key named like the text item's own slot cannot ride beside it: keep the whole item.
  if (Object.hasOwn(extras, "content")) return ok([placeholderItem("terminal", { id }, 2, src, ctx.opts)], asText);
  const block: Obj = { type: "text", text: placeholder("terminal", { id }) };
  setMeta(block, new Stash(2, ctx.opts).keep("terminal", { terminalId: id }).into(undefined));
  const out: Obj = withMembers(extras, { type: "content", content: block });
  setMeta(out, meta);
  return ok([out], asText);
}

function contentListToV2(items: unknown, ctx: ToolCallToV2Context, at: Path): Converted<unknown[]> {
  if (!Array.isArray(items)) invalid(at, "expected_array");
  const out: unknown[] = [];
  const lost: Loss[] = [];
  const restored = new Set<number>();
  items.forEach((x, i) => {
    const src = expectObject(x, [...at, i]);
    expectString(src.type, [...at, i, "type"]);
    // A v2 diff that A split into several v1 items comes back once, from its first item (T §3.3-5).
    const group = diffStashOf(src);
    if (group !== undefined) {
      if (group.original !== undefined) {
        if (!restored.has(group.group)) out.push(group.original);
        restored.add(group.group);
        return;
      }
      if (restored.has(group.group)) return;
    }
    const r = itemToV2(src, ctx, [...at, i]);
    out.push(r.value);
    lost.push(...prefixLosses([i], r.lost));
  });
  return ok(out, lost);
}

function itemToV2(src: Obj, ctx: ToolCallToV2Context, at: Path): Converted<unknown> {
  const type = src.type as string;
  expectOptional(src, "_meta", "object", at);
  if (type === "diff") {
    const r = diffToV2(src as Parameters<typeof diffToV2>[0], {
      opts: ctx.opts,
      cwd: ctx.cwd,
      toolKind: ctx.toolKind,
      files: ctx.files,
      stage: ctx.diffStage,
      coarseLosses: ctx.coarseLosses,
    });
    // A path no session cwd can make absolute (v2 wants one): the item, not the tool call, degrades.
    if (!r.ok && (r.error.data as { reason?: unknown } | undefined)?.reason === "not_absolute")
      return ok(placeholderItem("unsupportedToolOutput", { type }, 1, src, ctx.opts), [
        { path: ["path"], reason: "a diff path v2 cannot make absolute: shown as text" },
      ]);
    return unwrap(r, at);
  }
  const { meta, env } = unstash(src._meta, 2);
  const raw = residualOf(env, "raw");
  if (isObject(raw) && isString(raw.type)) return ok(raw);
  if (type === "content") {
    const block = expectObject(src.content, [...at, "content"]);
    const term = terminalResidual(env) ?? terminalResidual(unstash(block._meta, 2).env);
    if (term) {
      const out: Obj = withMembers(src, { type: "terminal", terminalId: term.terminal.terminalId });
      delete out.content;
      delete out._meta;
      return ok(setMeta(out, meta));
    }
    const r = unwrap(contentBlockToV2(block as v1.ContentBlock, ctx.opts), [...at, "content"]);
    return ok(setMeta(withMembers(src, { content: r.value }), meta), prefixLosses(["content"], r.lost));
  }
  if (type === "terminal") {
    const id = expectString(src.terminalId, [...at, "terminalId"]);
    if (ctx.extensionTerminals?.has(id)) return ok(setMeta({ ...src }, meta));
    // A client-owned v1 terminal must not reach v2 as an agent-owned one (T §2.5 B↓-2).
    return ok(placeholderItem("terminalUnavailable", { id }, 1, src, ctx.opts), [
      { path: [], reason: "v1 client terminals have no v2 equivalent; shown as text" },
    ]);
  }
  // v1 is closed and v2 open: an unknown v1 item is a valid v2 one.
  return ok(setMeta({ ...src }, meta));
}

// ---- locations (T §3.4) ----

/** Both versions: a line is a `uint32` (v2's start at 1: a v1 `0` is converted, not refused). */
function checkLine(line: unknown, at: Path): void {
  if (typeof line === "number" && !(Number.isInteger(line) && line >= 0 && line <= 0xffffffff))
    invalid([...at, "line"], "not_uint32");
}

function locToV1(x: unknown, opts: ConvertOptions, at: Path): Obj {
  const src = expectObject(x, at);
  expectString(src.path, [...at, "path"]);
  expectOptional(src, "line", "number", at);
  expectOptional(src, "_meta", "object", at);
  checkLine(src.line, at);
  const { meta, env } = unstash(src._meta, 1);
  const out: Obj = copyMembers(src);
  if (hasResidual(env, "path")) out.path = residualOf(env, "path");
  if (residualOf(env, "line") === 0) out.line = 0;
  // Nothing of a v2 location is lost on v1: the stash stays empty.
  return setMeta(out, new Stash(2, opts).into(meta));
}

function locToV2(x: unknown, opts: ConvertOptions, cwd: string | undefined, at: Path): Converted<Obj> {
  const src = expectObject(x, at);
  const path = expectString(src.path, [...at, "path"]);
  expectOptional(src, "line", "number", at);
  expectOptional(src, "_meta", "object", at);
  checkLine(src.line, at);
  const { meta } = unstash(src._meta, 2);
  const out: Obj = copyMembers(src);
  const stash = new Stash(1, opts);
  const lost: Loss[] = [];
  if (src.line === 0) {
    out.line = null;
    stash.keep("line", 0);
    lost.push({ path: ["line"], reason: "v2 lines start at 1" });
  }
  const resolved = resolvePath(cwd, path);
  if (resolved !== undefined && resolved !== path) {
    out.path = resolved;
    stash.keep("path", path);
    lost.push({ path: ["path"], reason: "v2 paths are absolute; resolved against the session cwd" });
  }
  setMeta(out, stash.into(meta));
  return ok(out, lost);
}

// ---- enums (T §3.4, §6) ----

/** The v1 tool kind for a v2 one, and whether the original must be stashed (`kind`). */
export function toolKindToV1(kind: string): { value: v1.ToolKind; changed: boolean } {
  const d = downgrade(toolCallTable.kind, kind);
  return { value: d.value as v1.ToolKind, changed: d.changed };
}

/** The v1 status for a v2 one (`cancelled`→`failed`, `paused`/unknown→`in_progress`), and whether to stash. */
export function toolCallStatusToV1(status: string): { value: v1.ToolCallStatus; changed: boolean } {
  const d = downgrade(toolCallTable.status, status);
  return { value: d.value as v1.ToolCallStatus, changed: d.changed };
}

// ---- small helpers ----

function nonEmpty(x: unknown): string | undefined {
  return isString(x) && x !== "" ? x : undefined;
}

function stringList(x: unknown): string[] {
  return Array.isArray(x) ? x.filter(isString) : [];
}
