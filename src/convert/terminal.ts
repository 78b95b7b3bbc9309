// Agent-owned display terminals (v2 `terminal_update` / `terminal_output_chunk`, T §2.5) rendered
// for v1 clients as text: a v1 `terminal` item means a CLIENT-owned process, so it must never be
// passed through. Output bytes are sanitized (ANSI stripped, `\r` overwrites, `\b` erases).
import type * as v1 from "@agentclientprotocol/sdk";
import { Stash, type ConvertOptions } from "./stash.js";

export const DEFAULT_TERMINAL_MAX_BYTES = 256 * 1024;

export interface TerminalState {
  readonly terminalId: string;
  command?: string | undefined;
  cwd?: string | undefined;
  /** Retained output (the tail, capped). */
  bytes: Uint8Array;
  exitStatus?: { exitCode?: number | null; signal?: string | null } | undefined;
  size?: { cols: number; rows: number } | undefined;
}

export function newTerminal(terminalId: string): TerminalState {
  return { terminalId, bytes: new Uint8Array(0) };
}

/** Append output, keeping only the last `maxBytes`. */
export function appendOutput(t: TerminalState, data: Uint8Array, maxBytes = DEFAULT_TERMINAL_MAX_BYTES): void {
  const joined = new Uint8Array(t.bytes.length + data.length);
  joined.set(t.bytes);
  joined.set(data, t.bytes.length);
  t.bytes = joined.length > maxBytes ? joined.slice(joined.length - maxBytes) : joined;
}

/** An `output` snapshot replaces everything retained. */
export function replaceOutput(t: TerminalState, data: Uint8Array, maxBytes = DEFAULT_TERMINAL_MAX_BYTES): void {
  t.bytes = data.length > maxBytes ? data.slice(data.length - maxBytes) : data;
}

export function decodeBase64(data: unknown): Uint8Array | undefined {
  if (typeof data !== "string") return undefined;
  return Buffer.from(data, "base64");
}

const ESC = 0x1b;

/**
 * Terminal output as plain text: UTF-8 decoded leniently, CSI/OSC/other escape sequences and C0
 * controls removed (except `\n` and `\t`), `\r\n` → `\n`, a lone `\r` returns to the line start so
 * later text overwrites (progress bars), `\b` moves back one character.
 */
export function sanitize(bytes: Uint8Array): string {
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
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
  let longest = 0;
  for (const m of body.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return "`".repeat(Math.max(3, longest + 1));
}

/** The text a v1 client sees for a terminal: fenced transcript, then how it ended. */
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
  stash.keepLarge("bytes", Buffer.from(t.bytes).toString("base64"));
  const block: Record<string, unknown> = { type: "text", text: transcript(t) };
  const meta = stash.into(undefined);
  if (meta !== undefined) block._meta = meta;
  return { type: "content", content: block as v1.ContentBlock };
}
