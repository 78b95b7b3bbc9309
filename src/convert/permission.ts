// `session/request_permission` both ways (T §4, §6 rows RequestPermissionSubject.type and
// PermissionOptionKind, T §7.2 keys title/description/subject/options + outcome), with A's tool calls.

import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { isAllowKind, isKnownOptionKind, permissionTable, titleForKind } from "../../mappings/permission.js";
import { unwrap } from "./content.js";
import { isObject, isString, type Obj, withMembers, copyMembers } from "../base/json.js";
import { attempt, ok, under, type Conv, type Loss } from "./result.js";
import { hasResidual, isSynthetic, residualOf, Stash, setMeta, unstash, type ConvertOptions } from "./stash.js";
import {
  FOR_PERMISSION,
  toolCallToV1,
  toolCallUpdateToV1,
  toolCallUpdateToV2,
  type ToolCallToV1Context,
  type ToolCallToV2Context,
  type V1ToolCallMessage,
} from "./tool-call.js";
import { bad } from "./check.js";

const has = (o: object, key: string): boolean => Object.hasOwn(o, key);
/** Synthetic on a v2 request: the v1 agent had not announced the subject's tool call (a chained A does not either). */
const UNANNOUNCED = "toolCallUnannounced";

/** A v1 `tool_call_update` message. */
export type V1ToolCallUpdateMessage = v1.ToolCallUpdate & { sessionUpdate: "tool_call_update" };
/** A v2 `tool_call_update` message. */
type V2ToolCallUpdateMessage = v2.ToolCallUpdate & { sessionUpdate: "tool_call_update" };

// ---- A↓: v2 agent → v1 client ----

export interface PermissionToV1Context {
  readonly opts: ConvertOptions;
  /** The id of the v2 request (names a synthetic tool call). */
  readonly v2RequestId: v2.RequestId;
  /** Whether the v1 client already has this tool call (false for one the bridge synthesized). */
  readonly isAnnounced: (toolCallId: string) => boolean;
  /** `config.unknownSubjectPolicy` (T §4 A↓-3), default `"synthesize"`. */
  readonly unknownSubjectPolicy?: "synthesize" | "reject" | undefined;
  /** Passed on to the tool-call converter. */
  readonly renderTerminal?: ToolCallToV1Context["renderTerminal"];
  readonly diffRendering?: ToolCallToV1Context["diffRendering"];
  /** The current text of the files the subject's diffs name: a permission previews a pending edit. */
  readonly files?: ToolCallToV1Context["files"];
}

export type PermissionRequestToV1 =
  | {
      readonly kind: "prompt";
      readonly params: v1.RequestPermissionRequest;
      /** v1 `session/update`s to send first: the subject's tool call announcement, or a synthetic tool call. */
      readonly before: readonly V1ToolCallMessage[];
      /** Set when `before` holds a tool call the bridge invented: finalize it once answered. */
      readonly syntheticToolCallId?: string;
    }
  | {
      /** `unknownSubjectPolicy:"reject"`: answer the agent this, prompt nobody. */
      readonly kind: "cancel";
      readonly response: v2.RequestPermissionResponse;
    };

/** The title B derives for a v1 request with no stash and no state (T §4 B↓-2). */
function derivedTitle(toolCall: Obj, lastTitle?: string, lastKind?: string): string {
  if (isString(toolCall.title) && toolCall.title !== "") return toolCall.title;
  if (lastTitle !== undefined && lastTitle !== "") return lastTitle;
  return titleForKind(isString(toolCall.kind) ? toolCall.kind : lastKind);
}

function checkOption(o: unknown, field: string): Obj & { kind: string } {
  if (!isObject(o)) bad(field, "not_object");
  if (!isString(o.kind)) bad(`${field}.kind`, "not_string");
  // Both versions require these strings; the converters copy them as they are.
  if (!isString(o.optionId)) bad(`${field}.optionId`, "not_string");
  if (!isString(o.name)) bad(`${field}.name`, "not_string");
  return o as Obj & { kind: string };
}

/** One option whose kind v1 lacks, shown as `reject_once` with the original kind on its `_meta`. */
function fallbackOption(o: Obj & { kind: string }, opts: ConvertOptions): Obj {
  const { meta } = unstash(o._meta, 1);
  return setMeta(
    withMembers(o, { kind: permissionTable.unknownKindFallback }),
    new Stash(2, opts).keep("kind", o.kind).into(meta),
  );
}

function optionToV2(o: Obj & { kind: string }): Obj {
  const { meta, env } = unstash(o._meta, 2);
  const original = residualOf(env, "kind");
  const kind = isString(original) && o.kind === permissionTable.unknownKindFallback ? original : o.kind;
  return setMeta(withMembers(o, { kind }), meta);
}

/** v2 options → v1: unknown kinds removed (or all shown as `reject_once` when none would remain). */
function optionsToV1(options: unknown[], opts: ConvertOptions): { options: Obj[]; removed: Obj[]; lost: Loss[] } {
  const checked = options.map((o, i) => checkOption(o, `options[${i}]`));
  const lost: Loss[] = [];
  const known = checked.filter((o) => isKnownOptionKind(o.kind));
  if (known.length > 0 || checked.length === 0) {
    const removed: Obj[] = [];
    checked.forEach((o, index) => {
      if (isKnownOptionKind(o.kind)) return;
      removed.push({ index, option: o });
      lost.push({ path: ["options", index], reason: `v1 has no option kind "${o.kind}"; removed` });
    });
    return { options: known, removed, lost };
  }
  const shown = checked.map((o, index) => {
    lost.push({ path: ["options", index, "kind"], reason: `v1 has no option kind "${o.kind}"; shown as reject_once` });
    return fallbackOption(o, opts);
  });
  return { options: shown, removed: [], lost };
}

/**
 * A↓ `session/request_permission` params (T §4 A↓): the v1 request plus the tool call updates to
 * send before it. A `tool_call` subject announces its tool call if needed (titled with the request
 * title when it has none); a `command`, absent, `null` or unknown subject gets a synthetic one.
 */
export function permissionRequestToV1(
  params: v2.RequestPermissionRequest,
  ctx: PermissionToV1Context,
): Conv<PermissionRequestToV1> {
  return attempt<PermissionRequestToV1>(() => {
    if (!isObject(params)) bad("params", "not_object");
    const p: Obj = params;
    if (!isString(p.title)) bad("title", "not_string");
    const title = p.title;
    if (has(p, "description") && p.description !== null && !isString(p.description)) bad("description", "not_string");
    const description = isString(p.description) ? p.description : undefined;
    if (!Array.isArray(p.options)) bad("options", "not_array");
    const subject = p.subject;
    if (subject !== undefined && subject !== null && !(isObject(subject) && isString(subject.type)))
      bad("subject", "not_subject");
    const subjectType = isObject(subject) ? (subject.type as string) : undefined;
    const known = subjectType === "tool_call" || subjectType === "command" || subject === undefined || subject === null;
    if (!known && ctx.unknownSubjectPolicy === "reject") {
      return ok({ kind: "cancel", response: { outcome: { outcome: "cancelled" } } }, [
        { path: [], reason: "unknown permission subject refused by policy" },
      ]);
    }

    const { meta, env } = unstash(p._meta, 1);
    const stash = new Stash(2, ctx.opts);
    const lost: Loss[] = [];
    const before: V1ToolCallMessage[] = [];
    const tcCtx: ToolCallToV1Context = {
      opts: ctx.opts,
      renderTerminal: ctx.renderTerminal,
      diffRendering: ctx.diffRendering,
      files: ctx.files,
      // A permission is asked before the tool runs: its diff previews the edit.
      diffStage: "pending",
    };
    let toolCall: Obj;
    let syntheticToolCallId: string | undefined;

    if (isObject(subject) && subjectType === "tool_call") {
      const tc = subject.toolCall;
      if (!isObject(tc) || !isString(tc.toolCallId)) bad("subject.toolCall", "not_tool_call");
      if (!ctx.isAnnounced(tc.toolCallId) && !isSynthetic(env, UNANNOUNCED)) {
        // permissionTitleIntoToolCall:"ifMissing": a tool call without a title shows the prompt's.
        const created = unwrap(
          toolCallToV1(tc as v2.ToolCallUpdate, withMembers(tcCtx, { titleHint: title, forPermission: true })),
          ["subject", "toolCall"],
        );
        before.push({ sessionUpdate: "tool_call", ...created.value });
      }
      const r = unwrap(toolCallUpdateToV1(tc as v2.ToolCallUpdate, tcCtx), ["subject", "toolCall"]);
      toolCall = r.value;
      lost.push(...under(["subject", "toolCall"], r.lost));
      const rest: Obj = copyMembers(subject);
      delete rest.toolCall;
      if (Object.keys(rest).length > 1) {
        stash.keep("subject", rest);
        for (const k of Object.keys(rest))
          if (k !== "type") lost.push({ path: ["subject", k], reason: "v1 has no permission subject" });
      }
    } else {
      let id: string;
      let synthetic: Obj;
      if (isObject(subject) && subjectType === "command") {
        if (!isString(subject.command)) bad("subject.command", "not_string");
        if (!isString(subject.cwd)) bad("subject.cwd", "not_string");
        const given = subject.toolCallId;
        if (given !== undefined && given !== null && !isString(given)) bad("subject.toolCallId", "not_string");
        id = given ?? permissionTable.syntheticToolCallPrefix + String(ctx.v2RequestId);
        synthetic = {
          toolCallId: id,
          title,
          kind: permissionTable.syntheticKind.command,
          status: "pending",
          rawInput: { command: subject.command, cwd: subject.cwd },
          content: [{ type: "content", content: { type: "text", text: `$ ${subject.command}\n(in ${subject.cwd})` } }],
        };
        if (isString(given) && ctx.isAnnounced(given)) synthetic = {};
      } else {
        id = permissionTable.syntheticToolCallPrefix + String(ctx.v2RequestId);
        synthetic = {
          toolCallId: id,
          title,
          kind: permissionTable.syntheticKind.other,
          status: "pending",
          rawInput: description === undefined ? { title } : { title, description },
        };
        if (description !== undefined && description !== "")
          synthetic.content = [{ type: "content", content: { type: "text", text: description } }];
      }
      if (Object.keys(synthetic).length > 0) {
        setMeta(synthetic, new Stash(2, ctx.opts).invented("toolCall").into(undefined));
        before.push({ sessionUpdate: "tool_call", ...synthetic } as V1ToolCallMessage);
        syntheticToolCallId = id;
        stash.invented("toolCall");
      }
      toolCall = { toolCallId: id };
      if (has(p, "subject")) stash.keep("subject", subject);
      lost.push({ path: ["subject"], reason: "v1 permission requests are about a tool call; a stand-in was used" });
    }

    // The title is prompt copy only: v1 shows the tool call's own title (T §4 A↓-1).
    if (!isSynthetic(env, "title")) {
      stash.keep("title", title);
      if (derivedTitle(toolCall) !== title)
        lost.push({ path: ["title"], reason: "v1 permission requests have no title" });
    }
    if (has(p, "description")) {
      stash.keep("description", p.description);
      lost.push({ path: ["description"], reason: "v1 permission requests have no description" });
    }
    const o = optionsToV1(p.options as unknown[], ctx.opts);
    if (o.removed.length > 0) stash.keep("options", o.removed);
    lost.push(...o.lost);

    const out: Obj = withMembers(p, { toolCall, options: o.options });
    delete out.title;
    delete out.description;
    delete out.subject;
    setMeta(out, stash.into(meta));
    const result: PermissionRequestToV1 = {
      kind: "prompt",
      params: out as unknown as v1.RequestPermissionRequest,
      before,
      ...(syntheticToolCallId !== undefined ? { syntheticToolCallId } : {}),
    };
    return ok(result, lost);
  });
}

/**
 * A↓: the `tool_call_update` that closes a synthetic tool call once its permission is answered:
 * `completed` after an allow_* option, `failed` otherwise (cancelled, error, unknown outcome).
 * `options` are those of the request (v1 or v2; only `optionId` and `kind` are read).
 */
export function finalizeSyntheticToolCall(
  toolCallId: string,
  outcome: v1.RequestPermissionOutcome | v2.RequestPermissionOutcome | undefined,
  options: readonly { readonly optionId: string; readonly kind: string }[],
  opts: ConvertOptions,
): V1ToolCallUpdateMessage {
  const o = outcome as Obj | undefined;
  const chosen = o?.outcome === "selected" ? options.find((x) => x.optionId === o.optionId) : undefined;
  const allowed = chosen !== undefined && isAllowKind(chosen.kind);
  const status = allowed ? permissionTable.finalStatus.allowed : permissionTable.finalStatus.rejected;
  const out: Obj = { sessionUpdate: "tool_call_update", toolCallId, status };
  return setMeta(out, new Stash(2, opts).invented("toolCall").into(undefined)) as unknown as V1ToolCallUpdateMessage;
}

// ---- B↓: v1 agent → v2 client ----

export interface PermissionToV2Context {
  readonly opts: ConvertOptions;
  /** Whether B already emitted this tool call to the v2 client. */
  readonly seen: (toolCallId: string) => boolean;
  /** The tool call's last title / kind B saw (`lastTitle`, `lastKind`). */
  readonly lastTitle?: ((toolCallId: string) => string | undefined) | undefined;
  readonly lastKind?: ((toolCallId: string) => string | undefined) | undefined;
  /** The session's cwd, to resolve relative paths in the tool call. */
  readonly cwd?: string | undefined;
  readonly extensionTerminals?: { has(terminalId: string): boolean } | undefined;
  /** The current text of the files the tool call's diffs name (v1 snippets are placed in them). */
  readonly files?: ToolCallToV2Context["files"];
}

export type PermissionRequestToV2 =
  | {
      readonly kind: "prompt";
      readonly params: v2.RequestPermissionRequest;
      /** v2 `session/update`s to send first: the tool call, when the client has not seen it. */
      readonly before: readonly V2ToolCallUpdateMessage[];
    }
  | {
      /** v1 `options: []` (invalid in v2): answer the v1 agent this without prompting, and log it. */
      readonly kind: "cancel";
      readonly response: v1.RequestPermissionResponse;
    };

/** The v2 option list: kinds restored, removed unknown-kind options put back in place. */
function optionsToV2(options: unknown[], removed: unknown): Obj[] {
  const out: Obj[] = options.map((o, i) => optionToV2(checkOption(o, `options[${i}]`)));
  if (!Array.isArray(removed)) return out;
  const back = removed.filter(
    (r): r is { index: number; option: Obj } => isObject(r) && Number.isSafeInteger(r.index) && isObject(r.option),
  );
  for (const r of [...back].sort((a, b) => a.index - b.index)) out.splice(Math.min(r.index, out.length), 0, r.option);
  return out;
}

/**
 * B↓ `session/request_permission` params (T §4 B↓): a `tool_call` subject from the v1 tool call
 * (announced first if the client has not seen it), a title from it, its last title or its kind;
 * a stash from A restores the original title, description, subject and options exactly.
 */
export function permissionRequestToV2(
  params: v1.RequestPermissionRequest,
  ctx: PermissionToV2Context,
): Conv<PermissionRequestToV2> {
  return attempt<PermissionRequestToV2>(() => {
    if (!isObject(params)) bad("params", "not_object");
    const p: Obj = params;
    const tc = p.toolCall;
    if (!isObject(tc) || !isString(tc.toolCallId)) bad("toolCall", "not_tool_call");
    if (!Array.isArray(p.options)) bad("options", "not_array");
    const { meta, env } = unstash(p._meta, 2);
    const options = optionsToV2(p.options as unknown[], residualOf(env, "options"));
    if (options.length === 0) {
      return ok({ kind: "cancel", response: { outcome: { outcome: "cancelled" } } }, [
        { path: ["options"], reason: "v2 needs at least one option: answered cancelled without prompting" },
      ]);
    }
    const id = tc.toolCallId;
    const lost: Loss[] = [];
    const before: V2ToolCallUpdateMessage[] = [];
    const stash = new Stash(1, ctx.opts);
    const out: Obj = copyMembers(p);
    delete out.toolCall;

    const stashedSubject = hasResidual(env, "subject") ? residualOf(env, "subject") : undefined;
    const invented = isSynthetic(env, "toolCall");
    if (isObject(stashedSubject) && stashedSubject.type !== "tool_call") out.subject = stashedSubject;
    else if (stashedSubject === null) out.subject = null;
    else if (!(invented && stashedSubject === undefined)) {
      const seen = ctx.seen(id);
      const r = unwrap(
        toolCallUpdateToV2(tc as v1.ToolCallUpdate, {
          opts: ctx.opts,
          seen,
          cwd: ctx.cwd,
          extensionTerminals: ctx.extensionTerminals,
          files: ctx.files,
          diffStage: "pending",
        }),
        ["toolCall"],
      );
      lost.push(...under(["toolCall"], r.lost));
      const base = isObject(stashedSubject) ? stashedSubject : { type: "tool_call" };
      out.subject = withMembers(base, { toolCall: r.value });
      if (!seen) {
        // Marked, so a chained A neither shows it nor announces the tool call the v1 agent never did.
        before.push(withInvented({ sessionUpdate: "tool_call_update", ...r.value }, FOR_PERMISSION, ctx.opts));
        stash.invented(UNANNOUNCED);
      }
    }

    const stashedTitle = residualOf(env, "title");
    if (isString(stashedTitle)) out.title = stashedTitle;
    else {
      out.title = derivedTitle(tc, ctx.lastTitle?.(id), ctx.lastKind?.(id));
      stash.invented("title");
    }
    if (hasResidual(env, "description")) out.description = residualOf(env, "description");
    out.options = options;
    setMeta(out, stash.into(meta));
    return ok({ kind: "prompt", params: out as unknown as v2.RequestPermissionRequest, before }, lost);
  });
}

/** `obj` with `name` added to the synthetic list of its `_meta` envelope (from v1), the rest kept. */
function withInvented<T extends Obj>(obj: T, name: string, opts: ConvertOptions): T {
  const { meta, env } = unstash(obj._meta, 1);
  const stash = new Stash(1, opts);
  for (const [k, v] of Object.entries(env?.residual ?? {})) stash.keep(k, v);
  for (const n of env?.synthetic ?? []) stash.invented(n);
  stash.invented(name);
  return setMeta({ ...obj }, stash.into(meta));
}

// ---- responses ----

function checkOutcome(outcome: unknown, field: string): Obj & { outcome: string } {
  if (!isObject(outcome)) bad(field, "not_object");
  if (!isString(outcome.outcome)) bad(`${field}.outcome`, "not_string");
  if (outcome.outcome === "selected" && !isString(outcome.optionId)) bad(`${field}.optionId`, "not_string");
  return outcome as Obj & { outcome: string };
}

/**
 * B↑ outcome (v2 client → v1 agent): `selected` and `cancelled` pass; any other outcome is never an
 * approval, so it becomes `cancelled` (the original is lost here; `permissionResponseToV1` stashes it).
 */
function permissionOutcomeToV1(outcome: v2.RequestPermissionOutcome): Conv<v1.RequestPermissionOutcome> {
  return attempt(() => {
    const o = checkOutcome(outcome, "outcome");
    if (o.outcome === "selected" || o.outcome === "cancelled")
      return ok({ ...o } as unknown as v1.RequestPermissionOutcome);
    return ok({ outcome: "cancelled" }, [
      { path: [], reason: `v1 has no permission outcome "${o.outcome}"; answered cancelled` },
    ]);
  });
}

/** A↑ outcome (v1 client → v2 agent): relayed unchanged. */
function permissionOutcomeToV2(outcome: v1.RequestPermissionOutcome): Conv<v2.RequestPermissionOutcome> {
  return attempt(() => ok({ ...checkOutcome(outcome, "outcome") } as unknown as v2.RequestPermissionOutcome));
}

/** B↑ response: an unknown outcome becomes `cancelled`, the original stashed in the response `_meta`. */
export function permissionResponseToV1(
  resp: v2.RequestPermissionResponse,
  opts: ConvertOptions,
): Conv<v1.RequestPermissionResponse> {
  return attempt(() => {
    if (!isObject(resp)) bad("result", "not_object");
    const { meta } = unstash(resp._meta, 1);
    const r = unwrap(permissionOutcomeToV1(resp.outcome), []);
    const stash = new Stash(2, opts);
    if (r.lost.length > 0) stash.keep("outcome", resp.outcome);
    const out: Obj = withMembers(resp, { outcome: r.value });
    return ok(setMeta(out, stash.into(meta)) as unknown as v1.RequestPermissionResponse, under(["outcome"], r.lost));
  });
}

/** A↑ response: relayed; an outcome B stashed is restored. */
export function permissionResponseToV2(resp: v1.RequestPermissionResponse): Conv<v2.RequestPermissionResponse> {
  return attempt(() => {
    if (!isObject(resp)) bad("result", "not_object");
    const { meta, env } = unstash(resp._meta, 2);
    const r = unwrap(permissionOutcomeToV2(resp.outcome), []);
    const original = residualOf(env, "outcome");
    const restore = isObject(original) && isString(original.outcome) && (r.value as Obj).outcome === "cancelled";
    const out: Obj = withMembers(resp, { outcome: restore ? original : r.value });
    return ok(setMeta(out, meta) as unknown as v2.RequestPermissionResponse);
  });
}
