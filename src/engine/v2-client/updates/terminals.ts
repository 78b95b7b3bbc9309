// Direction B's terminals toward the v2 client (T §2.5 B↓-1): the v1 `_meta` terminal convention
// becomes v2 terminal updates.
import type { Obj } from "../../../base/json.js";
import { commandOf, conventionOf, conventionToV2Updates, type ConventionEvent } from "../../../convert/terminal.js";
import type { Outgoing } from "../../outgoing.js";
import type { SessionB } from "../session.js";
import { updatesOf } from "./index.js";
import { copyMembers } from "../../../base/json.js";

// ---------------------------------------------------------------- terminals (T §2.5 B↓-1)

/**
 * The `_meta` terminal convention on a v1 tool call (asked for in `initialize`, or sent unasked as
 * codex-acp does) becomes v2 `terminal_update` / `terminal_output_chunk`, sent before the tool call
 * that shows the terminal (appended to `emitted`). Returns the tool call without the convention's
 * keys, or undefined when nothing else is left of an update (an output-only `tool_call_update`).
 */
export function terminalConvention(
  s: SessionB,
  src: Obj,
  toolCallId: string,
  meta: unknown,
  clientIsBridge: boolean,
  emitted: Outgoing[],
): Obj | undefined {
  if (clientIsBridge) return src;
  const { events, rest } = conventionOf(src._meta);
  for (const e of events) if (e.info !== undefined) s.terminalOfTool.set(toolCallId, e.terminalId);
  // The command of a terminal is its tool call's `rawInput.command`, which may come later (streamed input).
  const own = s.terminalOfTool.peek(toolCallId);
  const command = commandOf(src.rawInput);
  const all: ConventionEvent[] = [...events];
  if (own !== undefined && command !== undefined && !all.some((e) => e.terminalId === own))
    all.unshift({ terminalId: own });
  if (all.length === 0) return src;
  for (const e of all) {
    const term = s.terminals.get(e.terminalId) ?? {};
    const fresh = e.terminalId === own && command !== undefined && command !== term.command ? command : undefined;
    if (fresh !== undefined) term.command = fresh;
    s.terminals.set(e.terminalId, term);
    emitted.push(...updatesOf(s, conventionToV2Updates(e, fresh), meta));
  }
  if (events.length === 0) return src;
  const out: Obj = copyMembers(src);
  if (rest === undefined) delete out._meta;
  else out._meta = rest;
  const fields = Object.keys(out).filter((k) => k !== "sessionUpdate" && k !== "toolCallId");
  return fields.length > 0 || out.sessionUpdate === "tool_call" ? out : undefined;
}
