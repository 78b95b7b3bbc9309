// Where a JSON string ends, for the byte scanners (scan.ts, update-scan.ts): as JSON.parse reads
// it, or, `canonical`, only where JSON.stringify of its value would write these very bytes.
import { hexValue } from "../base/json.js";
import { BACKSLASH, QUOTE } from "./bytes.js";

/** The last string skipped held an escape (module state: no allocation per string). */
let escaped = false;

/** Whether the string last skipped by `stringEnd` held an escape. */
export function lastHadEscape(): boolean {
  return escaped;
}

/** Some string `stringEnd` proved since `clearNonAscii` held a byte >= 0x80 (module state, as `escaped`). */
let nonAscii = false;

/** Starts a line's record of bytes >= 0x80 in its strings (`sawNonAscii`). */
export function clearNonAscii(): void {
  nonAscii = false;
}

/**
 * Whether a string proved since `clearNonAscii` held a byte >= 0x80: if none did, a line whose
 * other bytes are ASCII literals is ASCII, valid UTF-8 without a check.
 */
export function sawNonAscii(): boolean {
  return nonAscii;
}

/** Bytes a string's body may hold as they are (0), and the ones that end or interrupt it (1). */
const STOP = new Uint8Array(256);
for (let b = 0; b < 0x20; b++) STOP[b] = 1;
STOP[QUOTE] = 1;
STOP[BACKSLASH] = 1;

/** The one-letter escapes JSON.stringify writes (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`); JSON also reads `\/`. */
const SHORT_ESCAPES = new Set([QUOTE, BACKSLASH, 0x62, 0x66, 0x6e, 0x72, 0x74]);
const SOLIDUS = 0x2f;
/** Control characters JSON.stringify writes with a one-letter escape, never as `\u00XX`. */
const HAS_SHORT_FORM = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d]);

/**
 * The escape at `j` (a backslash): the index after it, or -1 if JSON refuses it or, `canonical`,
 * if JSON.stringify writes that character otherwise (`\u00XX` only in lowercase, only for a control
 * character without a one-letter form).
 */
function escapeEnd(line: Uint8Array, j: number, canonical: boolean): number {
  const e = line[j + 1] ?? 0;
  if (SHORT_ESCAPES.has(e) || (!canonical && e === SOLIDUS)) return j + 2;
  if (e !== 0x75) return -1;
  if (!canonical) {
    for (let k = 2; k < 6; k++) if (hexValue(line[j + k], false) < 0) return -1;
    return j + 6;
  }
  if (line[j + 2] !== 0x30 || line[j + 3] !== 0x30) return -1;
  const hi = hexValue(line[j + 4], true);
  const lo = hexValue(line[j + 5], true);
  return hi < 0 || hi > 1 || lo < 0 || HAS_SHORT_FORM.has(hi * 16 + lo) ? -1 : j + 6;
}

/**
 * `i` at a string's opening quote: the index after its closing quote, or -1 (JSON refuses the
 * string or, `canonical`, writes it otherwise). Bytes >= 0x80 are left to the caller's UTF-8 check.
 */
export function stringEnd(line: Uint8Array, i: number, canonical: boolean): number {
  escaped = false;
  const n = line.length;
  let j = i + 1;
  let bits = 0;
  for (;;) {
    // The hot loop: one table look-up per byte of text (and an OR, to tell ASCII text apart).
    for (; j < n; j++) {
      const b = line[j] ?? 0;
      if (STOP[b] !== 0) break;
      bits |= b;
    }
    if (j >= n) return -1;
    const c = line[j];
    if (c === QUOTE) {
      if (bits > 0x7f) nonAscii = true;
      return j + 1;
    }
    if (c !== BACKSLASH) return -1; // a raw control character
    escaped = true;
    j = escapeEnd(line, j, canonical);
    if (j < 0) return -1;
  }
}

/**
 * The text of the JSON string whose bytes (quotes included) are `line[start, end)`, as JSON.parse
 * reads it: the bytes between the quotes when the string has no escape (`escaped` false).
 */
export function quotedText(line: Buffer, start: number, end: number, escaped: boolean): string {
  return escaped
    ? (JSON.parse(line.toString("utf8", start, end)) as string)
    : line.toString("utf8", start + 1, end - 1);
}
