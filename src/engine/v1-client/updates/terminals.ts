// Direction A's terminals toward the v1 client (T §2.5): v2 terminal updates kept per session and
// rendered through the `_meta` terminal convention, or on the ext channel for a bridge peer.
import type * as v1 from "@agentclientprotocol/sdk";
import { isObject, type Obj, withMembers } from "../../../base/json.js";
import { contained } from "../../barrier.js";
import {
  appendOutput,
  decodeBase64,
  newTerminal,
  NO_BYTES,
  replaceOutput,
  snapshotToAppend,
  TERMINAL_RESET,
  terminalExitMeta,
  terminalInfoMeta,
  terminalOutputMeta,
  terminalToV1Item,
} from "../../../convert/terminal.js";
import { NOTHING, type Outgoing } from "../../outgoing.js";
import { withEditorTerminals } from "../editor.js";
import type { SessionA, TerminalEntry, ToolCallView } from "../session.js";
import { type UpdateContext, clientUpdate } from "./index.js";
import { emitToolCall, flushToolCall, referencedTerminals, terminalFor } from "./tool-calls.js";

// ---------------------------------------------------------------- terminals (T §2.5)

export function terminalUpdate(s: SessionA, update: Obj, ctx: UpdateContext, meta: unknown): readonly Outgoing[] {
  const id = update.terminalId;
  if (typeof id !== "string") {
    ctx.log.warn("dropped a terminal update without a terminalId");
    return NOTHING;
  }
  const t = terminalFor(s, id);
  const change = applyTerminalUpdate(t, update, ctx);
  const key = outputKey(ctx);
  // What is new on the terminal, through the convention's keys, once the client was shown it.
  const shown = key === undefined ? NOTHING : conventionOutput(s, t, change, key, ctx, meta);
  if (conventionMode(ctx)) return shown;
  const rendered = transcriptUpdate(s, t, update, ctx, meta);
  return shown.length === 0 ? rendered : [...shown, ...rendered];
}

/** The terminal's state after a v2 terminal update, and what a client that only appends is sent for it. */
function applyTerminalUpdate(
  t: TerminalEntry,
  update: Obj,
  ctx: UpdateContext,
): { append: Uint8Array; reset: boolean } {
  const max = ctx.terminalMaxBytes;
  let append: Uint8Array = NO_BYTES;
  let reset = false;
  if (update.sessionUpdate === "terminal_output_chunk") {
    const data = decodeBase64(update.data);
    if (data) {
      if (t.bytes.length + data.length > max) t.trimmed = true;
      appendOutput(t, data, max);
      append = data;
    }
  } else {
    if (typeof update.command === "string") t.command = update.command;
    if (typeof update.cwd === "string") t.cwd = update.cwd;
    if (isObject(update.output)) {
      const data = decodeBase64(update.output.data);
      if (data) {
        const next = snapshotToAppend(t.bytes, t.trimmed !== true, data);
        ({ reset, append } = next);
        t.trimmed = data.length > max;
        replaceOutput(t, data, max);
      }
    }
    if (isObject(update.exitStatus)) t.exitStatus = update.exitStatus;
    if (isObject(update.size)) t.size = update.size as TerminalEntry["size"];
  }
  return { append, reset };
}

/** The transcript of a terminal, re-rendered into each tool call showing it (coalesced; an exit at once). */
function transcriptUpdate(
  s: SessionA,
  t: TerminalEntry,
  update: Obj,
  ctx: UpdateContext,
  meta: unknown,
): readonly Outgoing[] {
  if (t.refs.size === 0) return NOTHING; // rendered once a tool call references it
  // Each tool call showing the terminal, re-rendered; a timer's flush carries the `_meta` of the
  // notification that started it.
  const flush = (): readonly Outgoing[] => {
    t.flushTimer = undefined;
    const out: Outgoing[] = [];
    for (const toolCallId of t.refs) {
      const tc = s.toolCalls.peek(toolCallId);
      if (!tc?.announced) continue;
      out.push(...flushToolCall(s, tc, ctx));
      out.push(...emitToolCall(s, tc, { toolCallId, content: tc.view.content }, ctx, meta, { rerender: true }));
    }
    return out;
  };
  // An exit is final: render it now; output is coalesced (but for a replay, which has no window).
  if (update.exitStatus !== undefined || ctx.terminalFlushMs === 0) {
    if (t.flushTimer) clearTimeout(t.flushTimer);
    return flush();
  }
  t.flushTimer ??= setTimeout(
    contained(ctx.log, "a terminal's flush", () => ctx.write(flush())),
    ctx.terminalFlushMs,
  );
  return NOTHING;
}

// ---------------------------------------------------------------- the `_meta` terminal convention (T §2.5)

/** The client renders the convention; a bridge peer gets the v2 updates on its channel instead. */
export function conventionMode(ctx: UpdateContext): boolean {
  return ctx.flags.terminalOutput === true && !ctx.flags.bridgePeer;
}

/**
 * The key the client gets terminal output under, with `terminal_info` and `terminal_exit`: the
 * convention's own for a client of it; for any other, `terminal_output_delta`, as codex-acp's v1
 * build sends it to a client that did not opt in (some read it), alongside the transcript. None
 * toward a bridge peer: the v2 updates go on its channel.
 */
export function outputKey(ctx: UpdateContext): "output" | "outputDelta" | undefined {
  if (ctx.flags.bridgePeer) return undefined;
  return ctx.flags.terminalOutput === true ? "output" : "outputDelta";
}

/** Terminals the tool call's content references that the client has no display terminal for yet. */
export function unshownTerminals(s: SessionA, t: ToolCallView): TerminalEntry[] {
  const refs = referencedTerminals(t.view.content);
  if (refs.length === 0) return [];
  const ids = [...new Set(refs)];
  return ids.map((id) => terminalFor(s, id)).filter((term) => term.carrier === undefined);
}

/**
 * A v1 `tool_call` (or `tool_call_update`), with `terminal_info` for the first terminal it shows,
 * then what each terminal already has (output retained so far, its exit). One key per message: a
 * client of the convention gets the same tool_call again for each further terminal; any other, which
 * may show a repeated tool_call twice (codex-acp never sends one), an update with just the key.
 */
export function showing(
  s: SessionA,
  toolCallId: string,
  ctx: UpdateContext,
  toolCall: Obj,
  unshown: TerminalEntry[],
  meta: unknown,
): readonly Outgoing[] {
  // The client's own terminals of this call, created through the editor's tools (H §6.5).
  toolCall = withEditorTerminals(s, toolCallId, toolCall);
  const key = outputKey(ctx);
  if (unshown.length === 0 || key === undefined) return [clientUpdate(s.sessionId, toolCall, meta)];
  const own = isObject(toolCall._meta) ? toolCall._meta : {};
  const out: Outgoing[] = [];
  unshown.forEach((term, i) => {
    term.carrier = toolCallId;
    let msg: Obj;
    if (i === 0 || key === "output") {
      // Items of terminals not announced yet wait for their own tool_call (the client must know each one).
      const content = Array.isArray(toolCall.content)
        ? toolCall.content.filter((c) => !(isObject(c) && c.type === "terminal" && !isShown(s, c.terminalId)))
        : toolCall.content;
      msg = withMembers(toolCall, { _meta: withMembers(own, terminalInfoMeta(term)) });
      if (content !== undefined) msg.content = content;
    } else msg = { sessionUpdate: "tool_call_update", toolCallId, _meta: terminalInfoMeta(term) };
    out.push(clientUpdate(s.sessionId, msg, meta));
    term.decoder = new TextDecoder("utf-8", { fatal: false });
    if (term.trimmed)
      ctx.log.warn(`terminal ${term.terminalId}: output before the last ${term.bytes.length} bytes is not shown`);
    out.push(...conventionUpdate(s, term, term.bytes, false, key, meta));
  });
  return out;
}

/**
 * A terminal in a permission request's tool call: the terminal itself for a client of the convention
 * that has it (the request updates the tool call it shows), else its transcript.
 */
export function permissionTerminalItem(s: SessionA, terminalId: string, ctx: UpdateContext): v1.ToolCallContent {
  if (conventionMode(ctx) && isShown(s, terminalId)) return { type: "terminal", terminalId };
  return terminalToV1Item(s.terminals.peek(terminalId) ?? newTerminal(terminalId), ctx.opts);
}

function isShown(s: SessionA, terminalId: unknown): boolean {
  return typeof terminalId === "string" && s.terminals.peek(terminalId)?.carrier !== undefined;
}

/** One `tool_call_update` on the terminal's carrier: appended text (after a reset) and the exit once. */
function conventionUpdate(
  s: SessionA,
  term: TerminalEntry,
  bytes: Uint8Array,
  reset: boolean,
  key: "output" | "outputDelta",
  meta: unknown,
): readonly Outgoing[] {
  const carrier = term.carrier;
  const decoder = term.decoder;
  if (carrier === undefined || decoder === undefined) return NOTHING;
  const exiting = term.exitStatus !== undefined && term.exitSent !== true;
  let text = reset ? TERMINAL_RESET : "";
  if (bytes.length > 0) text += decoder.decode(bytes, { stream: true });
  // An exit ends the stream: a sequence still split is shown as U+FFFD, never left out.
  if (exiting) text += decoder.decode();
  const own: Obj = {};
  if (text.length > 0) Object.assign(own, terminalOutputMeta(term.terminalId, text, key));
  if (exiting) {
    Object.assign(own, terminalExitMeta(term.terminalId, term.exitStatus));
    term.exitSent = true;
  }
  if (Object.keys(own).length === 0) return NOTHING;
  return [clientUpdate(s.sessionId, { sessionUpdate: "tool_call_update", toolCallId: carrier, _meta: own }, meta)];
}

/** What a v2 terminal update adds to a terminal the client was shown, through the convention's keys. */
function conventionOutput(
  s: SessionA,
  t: TerminalEntry,
  change: { append: Uint8Array; reset: boolean },
  key: "output" | "outputDelta",
  ctx: UpdateContext,
  meta: unknown,
): readonly Outgoing[] {
  if (t.carrier === undefined) return NOTHING; // sent once a tool call shows it
  if (change.reset) {
    ctx.log.warnOnce(
      `terminal-reset-${t.terminalId}`,
      `terminal ${t.terminalId}: a v2 output snapshot replaced the output; the v1 client gets a terminal reset and the snapshot`,
    );
    t.decoder = new TextDecoder("utf-8", { fatal: false });
  }
  return conventionUpdate(s, t, change.append, change.reset, key, meta);
}

/** Record the terminals an idle `state_update` lists as still running in the background. */
export function noteBackground(s: SessionA, update: Obj): void {
  if (update.state !== "idle") return;
  const ids = new Set<string>();
  if (Array.isArray(update.background))
    for (const b of update.background)
      if (isObject(b) && b.type === "terminal" && typeof b.terminalId === "string") ids.add(b.terminalId);
  s.backgroundTerminals = ids;
}

/**
 * The turn is over: a v1 client never sees a terminal outlive its turn (v1 agents wait for their
 * commands), so each shown terminal still running gets `terminal_exit` with neither code nor signal,
 * as the adapters send for an interrupted command. One the agent lists as background work stays
 * open. Later output still reaches the client; a later exit is not sent twice.
 */
export function endTurnTerminals(s: SessionA, ctx: UpdateContext): readonly Outgoing[] {
  const key = outputKey(ctx);
  if (key === undefined) return NOTHING;
  const out: Outgoing[] = [];
  for (const term of s.terminals.values()) {
    if (term.carrier === undefined || term.exitSent === true || term.exitStatus !== undefined) continue;
    if (s.backgroundTerminals.has(term.terminalId)) continue;
    const meta: Obj = {};
    const rest = term.decoder?.decode() ?? "";
    if (rest.length > 0) Object.assign(meta, terminalOutputMeta(term.terminalId, rest, key));
    Object.assign(meta, terminalExitMeta(term.terminalId, undefined));
    term.exitSent = true;
    out.push(clientUpdate(s.sessionId, { sessionUpdate: "tool_call_update", toolCallId: term.carrier, _meta: meta }));
  }
  return out;
}
