// One pass over a line's bytes that proves what the full path (JSON.parse, then classify) would
// make of it, without building any value: the hot path of a pass-through forwards a notification's
// original bytes on this proof alone (performance budget). The scan is conservative: whatever it
// cannot prove (an escape in a key, a repeated key, a request, anything JSON.parse might refuse or
// read otherwise) returns undefined, and the full path decides.
import {
  QUOTE,
  OPEN_OBJECT,
  CLOSE_OBJECT,
  OPEN_ARRAY,
  CLOSE_ARRAY,
  COLON,
  COMMA,
  MINUS,
  isDigit,
  numberEnd,
} from "./bytes.js";
import { isUtf8 } from "node:buffer";
import { lastHadEscape, stringEnd } from "./json-string.js";

function isSpace(b: number | undefined): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
}

function skipSpace(line: Uint8Array, i: number): number {
  while (isSpace(line[i])) i++;
  return i;
}

/** `i` at a string's opening quote: the index after its closing quote, or -1 if JSON refuses it. */
function skipString(line: Uint8Array, i: number): number {
  return stringEnd(line, i, false);
}

function skipWord(line: Uint8Array, i: number, word: string): number {
  for (let k = 0; k < word.length; k++) if (line[i + k] !== word.charCodeAt(k)) return -1;
  return i + word.length;
}

/** `i` at a value (after spaces): the index after it, or -1; containers count toward `depthLeft`. */
function skipValue(line: Uint8Array, i: number, depthLeft: number): number {
  const b = line[i];
  if (b === QUOTE) return skipString(line, i);
  if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
    if (depthLeft <= 0) return -1;
    const close = b === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY;
    i = skipSpace(line, i + 1);
    if (line[i] === close) return i + 1;
    for (;;) {
      if (b === OPEN_OBJECT) {
        if (line[i] !== QUOTE) return -1;
        i = skipString(line, i);
        if (i < 0) return -1;
        i = skipSpace(line, i);
        if (line[i] !== COLON) return -1;
        i = skipSpace(line, i + 1);
      }
      i = skipValue(line, i, depthLeft - 1);
      if (i < 0) return -1;
      i = skipSpace(line, i);
      if (line[i] === close) return i + 1;
      if (line[i] !== COMMA) return -1;
      i = skipSpace(line, i + 1);
    }
  }
  if (b === MINUS || isDigit(b)) return numberEnd(line, i);
  if (b === 0x74) return skipWord(line, i, "true");
  if (b === 0x66) return skipWord(line, i, "false");
  if (b === 0x6e) return skipWord(line, i, "null");
  return -1;
}

function keyIs(line: Uint8Array, start: number, end: number, key: string): boolean {
  if (end - start !== key.length) return false;
  for (let k = 0; k < key.length; k++) if (line[start + k] !== key.charCodeAt(k)) return false;
  return true;
}

/** Deepest nesting the scan follows (its recursion stays far from the stack's limit). */
const MAX_SCAN_DEPTH = 1000;

const JSONRPC = 1;
const METHOD = 2;
const PARAMS = 4;

/**
 * The method of a JSON-RPC notification, if the scan proves that the full path reads the line as
 * exactly that: valid JSON (as JSON.parse takes it) and valid UTF-8, nested at most `maxDepth`
 * deep, an object with `"jsonrpc":"2.0"`, a string `method`, no `id`, `params` absent or an
 * object, array or null. Undefined otherwise (which says nothing: the full path decides).
 */
export function notificationMethod(line: Buffer, maxDepth: number): string | undefined {
  // The scan recurses per level: past MAX_SCAN_DEPTH (never in real traffic) the full path decides.
  const depth = Math.min(maxDepth, MAX_SCAN_DEPTH);
  let i = skipSpace(line, 0);
  if (line[i] !== OPEN_OBJECT || depth < 1) return undefined;
  i = skipSpace(line, i + 1);
  let seen = 0;
  let methodStart = -1;
  let methodEnd = -1;
  for (;;) {
    if (line[i] !== QUOTE) return undefined;
    const keyStart = i + 1;
    i = skipString(line, i);
    // A key spelled with an escape (`"\u0069d"`) is one JSON.parse reads as another: not proven.
    if (i < 0 || lastHadEscape()) return undefined;
    const keyEnd = i - 1;
    i = skipSpace(line, i);
    if (line[i] !== COLON) return undefined;
    i = skipSpace(line, i + 1);
    const valueStart = i;
    i = skipValue(line, i, depth - 1);
    if (i < 0) return undefined;
    let flag = 0;
    if (keyIs(line, keyStart, keyEnd, "jsonrpc")) {
      if (!keyIs(line, valueStart, i, '"2.0"')) return undefined;
      flag = JSONRPC;
    } else if (keyIs(line, keyStart, keyEnd, "method")) {
      if (line[valueStart] !== QUOTE || lastHadEscape()) return undefined;
      methodStart = valueStart + 1;
      methodEnd = i - 1;
      flag = METHOD;
    } else if (keyIs(line, keyStart, keyEnd, "params")) {
      const first = line[valueStart];
      if (first !== OPEN_OBJECT && first !== OPEN_ARRAY && first !== 0x6e) return undefined;
      flag = PARAMS;
    } else if (keyIs(line, keyStart, keyEnd, "id")) return undefined;
    if (flag !== 0) {
      // A repeated key: JSON.parse keeps the last one, which this scan does not follow.
      if ((seen & flag) !== 0) return undefined;
      seen |= flag;
    }
    i = skipSpace(line, i);
    if (line[i] === CLOSE_OBJECT) break;
    if (line[i] !== COMMA) return undefined;
    i = skipSpace(line, i + 1);
  }
  if (skipSpace(line, i + 1) !== line.length) return undefined;
  if ((seen & (JSONRPC | METHOD)) !== (JSONRPC | METHOD)) return undefined;
  // Bytes >= 0x80 pass the scan: one native check of the whole line (fast on ASCII) covers them.
  if (!isUtf8(line)) return undefined;
  return line.toString("utf8", methodStart, methodEnd);
}
