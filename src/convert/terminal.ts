// Agent-owned display terminals (v2 `terminal_update` / `terminal_output_chunk`, T §2.5) for v1 peers.
//
// Plain v1 clients get them as text: a bare v1 `terminal` item means a CLIENT-owned process
// (`terminal/create`), so it is never passed through alone. Output bytes are sanitized (ANSI
// stripped, `\r` overwrites, `\b` erases).
//
// The `_meta` terminal convention (key names in mappings/terminal.ts). No ACP schema has it; what
// follows was read in Zed's client (acp_thread/agent_servers `session_notification`) and in the v1
// builds of claude-agent-acp 0.100.0 and codex-acp 2.6.0:
// - a client opts in with `clientCapabilities._meta.terminal_output: true` (Zed does);
// - the v1 `tool_call` that shows the terminal carries `_meta.terminal_info {terminal_id, cwd?}` and
//   Zed creates its display terminal from it, labelled with the tool call's title. Zed reads
//   `terminal_info` on `tool_call` only, never on `tool_call_update`; the content item
//   `{type:"terminal", terminalId}` then shows it;
// - `tool_call_update._meta.terminal_output {terminal_id, data}`: `data` is raw text (UTF-8 of the
//   bytes, escape sequences kept: Zed writes it into a terminal emulator) and is APPENDED (codex-acp
//   streams deltas; claude-agent-acp sends the whole output once). Both send the same payload as
//   `terminal_output_delta` to a client that declares `_meta.terminal_output_delta`; codex-acp also
//   sends the convention (`terminal_info`, `terminal_output_delta`, `terminal_exit`, the content
//   item) to a client that declares neither, and some such clients read it;
// - `tool_call_update._meta.terminal_exit {terminal_id, exit_code: int|null, signal: string|null}`
//   ends it (both adapters send `exit_code: null, signal: null` for an interrupted command); output
//   and exit may ride on one update, output first;
// - there is no command field (Zed labels by title), no reset, no truncation flag, no size.
import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { terminalConventionTable as TC } from "../../mappings/terminal.js";
import { isObject, isString, type Obj, copyMembers } from "../base/json.js";
import { Stash, type ConvertOptions } from "./stash.js";
import { isAbsoluteAnywhere } from "./paths.js";

export const DEFAULT_TERMINAL_MAX_BYTES = 256 * 1024;

export interface TerminalState {
  readonly terminalId: string;
  command?: string | undefined;
  cwd?: string | undefined;
  /** Retained output (the tail, capped). */
  bytes: Uint8Array;
  /**
   * The memory `appendOutput` writes into: `bytes` ends where its used part ends, and appends go
   * after that, so that a stream of small chunks does not copy the retained output each time.
   */
  room?: Uint8Array | undefined;
  exitStatus?: { exitCode?: number | null; signal?: string | null } | undefined;
  size?: { cols: number; rows: number } | undefined;
}

/**
 * No output. One shared value: an empty typed array has no element to write, and each new one
 * costs an ArrayBuffer (a quarter of a µs); retained output is never written in place (appends go
 * past its end, into a terminal's own room).
 */
export const NO_BYTES: Uint8Array = new Uint8Array(0);

export function newTerminal(terminalId: string): TerminalState {
  return { terminalId, bytes: NO_BYTES, room: undefined };
}

/** Room added past what an append needs: doubling while small, then a quarter of the limit. */
function spareFor(needed: number, maxBytes: number): number {
  return Math.max(256, Math.min(needed, maxBytes >> 2));
}

/**
 * Append output, keeping only the last `maxBytes`. The bytes go into the terminal's room, after the
 * retained output, when it has space; the tail kept is a view of it, so dropping the head copies
 * nothing. A full room is replaced by a larger one holding the kept tail: each byte of output is
 * copied a few times at most, not once per later chunk. A view of `bytes` taken before never
 * changes: only memory past its end is written.
 */
export function appendOutput(t: TerminalState, data: Uint8Array, maxBytes = DEFAULT_TERMINAL_MAX_BYTES): void {
  const bytes = t.bytes;
  const keep = Math.min(bytes.length + data.length, maxBytes);
  const room = t.room;
  if (room !== undefined && bytes.buffer === room.buffer) {
    const end = bytes.byteOffset - room.byteOffset + bytes.length;
    if (end + data.length <= room.length) {
      room.set(data, end);
      const newEnd = end + data.length;
      t.bytes = room.subarray(newEnd - keep, newEnd);
      return;
    }
  }
  const next = new Uint8Array(keep + spareFor(keep, maxBytes));
  // The kept tail: the end of the retained output (if data does not fill it), then data's end.
  const fromData = Math.min(data.length, keep);
  const fromBytes = keep - fromData;
  next.set(bytes.subarray(bytes.length - fromBytes), 0);
  next.set(data.subarray(data.length - fromData), fromBytes);
  t.room = next;
  t.bytes = next.subarray(0, keep);
}

/** An `output` snapshot replaces everything retained. */
export function replaceOutput(t: TerminalState, data: Uint8Array, maxBytes = DEFAULT_TERMINAL_MAX_BYTES): void {
  t.bytes = data.length > maxBytes ? data.slice(data.length - maxBytes) : data;
  t.room = undefined;
}

export function decodeBase64(data: unknown): Uint8Array | undefined {
  if (typeof data !== "string") return undefined;
  return Buffer.from(data, "base64");
}

const ESC = 0x1b;
/** One decoder for every call: without `stream` a decode keeps no state (a constructor costs µs). */
const lenient = new TextDecoder("utf-8", { fatal: false });
/** What `sanitize` changes: C0 controls but `\t` and `\n` (escapes, CR, BS), DEL, C1 controls. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

/**
 * Terminal output as plain text: UTF-8 decoded leniently, CSI/OSC/other escape sequences and C0
 * controls removed (except `\n` and `\t`), `\r\n` → `\n`, a lone `\r` returns to the line start so
 * later text overwrites (progress bars), `\b` moves back one character.
 * @internal Runs inside the terminal rendering; exported for its unit tests.
 */
export function sanitize(bytes: Uint8Array): string {
  const text = lenient.decode(bytes);
  // Most output has no control character but newlines and tabs, which `sanitizeText` keeps as it is.
  return CONTROL.test(text) ? sanitizeText(text) : text;
}

/**
 * `sanitize` of decoded text, character by character.
 * @internal Exported for the property that `sanitize` keeps a text without controls as it is.
 */
export function sanitizeText(text: string): string {
  const lines: string[] = [];
  let line: string[] = [];
  let col = 0;
  let i = 0;
  const put = (ch: string) => {
    if (col < line.length) line[col] = ch;
    else line.push(ch);
    col++;
  };
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === ESC) {
      i = skipEscape(text, i);
      continue;
    }
    const ch = text[i] ?? "";
    i++;
    if (ch === "\n") {
      lines.push(line.join(""));
      line = [];
      col = 0;
    } else if (ch === "\r") {
      if (text[i] === "\n") continue; // CRLF: the LF ends the line
      col = 0;
    } else if (ch === "\b") {
      col = Math.max(0, col - 1);
    } else if (ch === "\t" || code >= 0x20) {
      if (code === 0x7f || (code >= 0x80 && code < 0xa0)) continue; // DEL and C1 controls
      // Astral characters are two UTF-16 units: keep them together.
      if (code >= 0xd800 && code < 0xdc00 && i < text.length) {
        put(ch + (text[i] ?? ""));
        i++;
      } else put(ch);
    }
  }
  return [...lines, line.join("")].join("\n");
}

/** Index just past the escape sequence that starts at `i`. */
function skipEscape(text: string, i: number): number {
  const next = text[i + 1];
  if (next === "[") {
    // CSI: parameters and intermediates, then one final byte 0x40–0x7E.
    let j = i + 2;
    while (j < text.length) {
      const c = text.charCodeAt(j);
      j++;
      if (c >= 0x40 && c <= 0x7e) break;
    }
    return j;
  }
  if (next === "]" || next === "P" || next === "_" || next === "^") {
    // OSC / DCS / APC / PM: until BEL or ST (ESC \).
    let j = i + 2;
    while (j < text.length) {
      if (text.charCodeAt(j) === 0x07) return j + 1;
      if (text.charCodeAt(j) === ESC && text[j + 1] === "\\") return j + 2;
      j++;
    }
    return j;
  }
  return Math.min(text.length, i + 2);
}

function fenceFor(body: string): string {
  if (!body.includes("`")) return "```";
  let longest = 0;
  for (const m of body.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return "`".repeat(Math.max(3, longest + 1));
}

/**
 * The text a v1 client sees for a terminal: fenced transcript, then how it ended.
 * @internal Runs inside the terminal rendering; exported for its unit tests.
 */
export function transcript(t: TerminalState): string {
  const output = sanitize(t.bytes);
  let body = t.command !== undefined ? `$ ${t.command}\n` : "";
  body += output;
  if (body.length > 0 && !body.endsWith("\n")) body += "\n";
  const fence = fenceFor(body);
  let text = `${fence}console\n${body}${fence}`;
  const exit = t.exitStatus;
  if (exit) {
    if (typeof exit.signal === "string" && exit.signal !== "") text += `\nTerminated by ${exit.signal}`;
    else if (typeof exit.exitCode === "number") text += `\nExited with code ${exit.exitCode}`;
    else text += "\nExited";
  }
  return text;
}

/**
 * The v1 content item standing for a v2 `terminal` reference: the transcript as text, with the
 * terminal's state stashed (`residual.terminal`, raw bytes at `full`) so a chained bridge restores it.
 */
export function terminalToV1Item(t: TerminalState, opts: ConvertOptions): v1.ToolCallContent {
  const stash = new Stash(2, opts);
  const state: Record<string, unknown> = { terminalId: t.terminalId };
  if (t.command !== undefined) state.command = t.command;
  if (t.cwd !== undefined) state.cwd = t.cwd;
  if (t.exitStatus !== undefined) state.exitStatus = t.exitStatus;
  if (t.size !== undefined) state.size = t.size;
  stash.keep("terminal", state);
  // Encoded only for a stash that keeps it: a transcript is rendered again and again.
  stash.keepLarge("bytes", () => Buffer.from(t.bytes).toString("base64"));
  const block: Record<string, unknown> = { type: "text", text: transcript(t) };
  const meta = stash.into(undefined);
  if (meta !== undefined) block._meta = meta;
  return { type: "content", content: block as v1.ContentBlock };
}

// ---- the `_meta` convention, v2 → v1 (A↓, extension mode) -----------------------------------------

/** `_meta.terminal_info` announcing a terminal on a v1 `tool_call`. */
export function terminalInfoMeta(t: TerminalState): Obj {
  const info: Obj = { [TC.fields.terminalId]: t.terminalId };
  if (t.cwd !== undefined) info[TC.fields.cwd] = t.cwd;
  return { [TC.keys.info]: info };
}

/**
 * `_meta.terminal_output` appending `data` (already decoded text); `terminal_output_delta`, the same
 * payload, for a client without the capability.
 */
export function terminalOutputMeta(terminalId: string, data: string, key: "output" | "outputDelta" = "output"): Obj {
  return { [TC.keys[key]]: { [TC.fields.terminalId]: terminalId, [TC.fields.data]: data } };
}

/**
 * `_meta.terminal_exit`. Without an exit status (a terminal still running when the bridge has to close
 * it) both are null, as the adapters send for an interrupted command.
 */
export function terminalExitMeta(terminalId: string, exit: TerminalState["exitStatus"]): Obj {
  const code = exit?.exitCode;
  const signal = exit?.signal;
  return {
    [TC.keys.exit]: {
      [TC.fields.terminalId]: terminalId,
      [TC.fields.exitCode]: typeof code === "number" && Number.isInteger(code) ? code : null,
      [TC.fields.signal]: typeof signal === "string" ? signal : null,
    },
  };
}

/**
 * What a v1 client that only appends gets for a v2 replacement snapshot: the new bytes when the
 * snapshot extends what it has (`shown`, complete unless the bridge trimmed it), else a terminal
 * reset (`ESC c`) then the whole snapshot (the convention has no reset of its own; lossy).
 */
export function snapshotToAppend(
  shown: Uint8Array,
  shownComplete: boolean,
  next: Uint8Array,
): { reset: boolean; append: Uint8Array } {
  const grows = shownComplete && next.length >= shown.length && startsWith(next, shown);
  return grows ? { reset: false, append: next.slice(shown.length) } : { reset: true, append: next };
}

/**
 * Whether `bytes` begins with `prefix`, compared natively: a snapshot is the whole output so far
 * (up to the retained 256 KiB) on every update, and a byte loop in JavaScript took 6.5 ns a byte
 * (1.7 ms an update at 256 KiB).
 */
function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  return Buffer.compare(bytes.subarray(0, prefix.length), prefix) === 0;
}

/** The reset written before a snapshot that does not extend the shown output. */
export const TERMINAL_RESET = TC.reset;

// ---- the `_meta` convention, v1 → v2 (B↓) -----------------------------------------------------------

/** What one v1 tool-call update says about one terminal through the convention. */
export interface ConventionEvent {
  readonly terminalId: string;
  /** `terminal_info` was present (`cwd` when it named an absolute one). */
  readonly info?: { readonly cwd?: string };
  /** Appended text (`terminal_output` and `terminal_output_delta`, in that order). */
  readonly output?: string;
  readonly exit?: { readonly exitCode?: number; readonly signal?: string };
}

/** The `_meta` keys of the convention (`conventionOf` reads no other). */
const CONVENTION_KEYS = [TC.keys.info, TC.keys.output, TC.keys.outputDelta, TC.keys.exit];

/** No events: `meta` is all the rest (an empty object, none). */
function noEvents(meta: unknown): { events: ConventionEvent[]; rest: unknown } {
  if (!isObject(meta)) return { events: [], rest: meta };
  for (const k in meta) if (Object.hasOwn(meta, k)) return { events: [], rest: meta };
  return { events: [], rest: undefined };
}

/**
 * The convention's keys of a v1 tool-call `_meta`: the events they carry (by terminal, in order of
 * first mention) and the `_meta` without them. A key whose value does not have the convention's shape
 * is not interpreted and stays in `_meta` as any unknown key would.
 */
export function conventionOf(meta: unknown): { events: ConventionEvent[]; rest: unknown } {
  // Most tool calls' `_meta` holds none of the keys: nothing to copy or take apart.
  if (!isObject(meta) || !CONVENTION_KEYS.some((k) => Object.hasOwn(meta, k))) return noEvents(meta);
  const byId = new Map<
    string,
    { info?: { cwd?: string }; output?: string; exit?: { exitCode?: number; signal?: string } }
  >();
  const rest: Obj = copyMembers(meta);
  const entry = (key: string): { id: string; value: Obj } | undefined => {
    const v = meta[key];
    if (!isObject(v) || !isString(v[TC.fields.terminalId])) return undefined;
    return { id: v[TC.fields.terminalId] as string, value: v };
  };
  const of = (id: string) => {
    let e = byId.get(id);
    if (!e) {
      e = {};
      byId.set(id, e);
    }
    return e;
  };
  const info = entry(TC.keys.info);
  if (info) {
    const cwd = info.value[TC.fields.cwd];
    of(info.id).info = isString(cwd) && isAbsoluteAnywhere(cwd) ? { cwd } : {};
    Reflect.deleteProperty(rest, TC.keys.info);
  }
  for (const key of [TC.keys.output, TC.keys.outputDelta]) {
    const out = entry(key);
    if (!out || !isString(out.value[TC.fields.data])) continue;
    const e = of(out.id);
    e.output = (e.output ?? "") + (out.value[TC.fields.data] as string);
    Reflect.deleteProperty(rest, key);
  }
  const exit = entry(TC.keys.exit);
  if (exit) {
    const code = exit.value[TC.fields.exitCode];
    const signal = exit.value[TC.fields.signal];
    of(exit.id).exit = {
      ...(typeof code === "number" && Number.isInteger(code) ? { exitCode: code } : {}),
      ...(isString(signal) ? { signal } : {}),
    };
    Reflect.deleteProperty(rest, TC.keys.exit);
  }
  const events = [...byId].map(([terminalId, e]): ConventionEvent => ({ terminalId, ...e }));
  return { events, rest: Object.keys(rest).length > 0 ? rest : undefined };
}

/** A v1 tool call's `rawInput.command` as a v2 terminal `command` (a string, or words joined). */
export function commandOf(rawInput: unknown): string | undefined {
  const c = isObject(rawInput) ? rawInput.command : undefined;
  if (isString(c)) return c.length > 0 ? c : undefined;
  if (Array.isArray(c) && c.length > 0 && c.every(isString)) return c.join(" ");
  return undefined;
}

/**
 * The v2 terminal updates of one event, in the order a v2 client needs them: the terminal's state
 * (`command`, `cwd`) first, then the appended bytes, then the exit. `command` is passed when it is new.
 */
export function conventionToV2Updates(e: ConventionEvent, command: string | undefined): v2.SessionUpdate[] {
  const out: v2.SessionUpdate[] = [];
  if (e.info !== undefined || command !== undefined) {
    const u: Obj = { sessionUpdate: "terminal_update", terminalId: e.terminalId };
    if (command !== undefined) u.command = command;
    if (e.info?.cwd !== undefined) u.cwd = e.info.cwd;
    out.push(u as v2.SessionUpdate);
  }
  if (e.output !== undefined && e.output.length > 0) {
    const data = Buffer.from(e.output, "utf8").toString("base64");
    out.push({ sessionUpdate: "terminal_output_chunk", terminalId: e.terminalId, data });
  }
  if (e.exit !== undefined)
    out.push({
      sessionUpdate: "terminal_update",
      terminalId: e.terminalId,
      exitStatus: { ...e.exit },
    });
  return out;
}
