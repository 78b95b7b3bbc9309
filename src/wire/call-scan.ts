// Requests and results in the very bytes JSON.stringify writes, proven by one pass without building
// any value: pass-through only maps their ids (H §7.2), so such a line goes on with its id spliced
// (performance budget, issue 9: a request's round trip then parses and serializes nothing). What
// the scan takes, the full path's serialization of the parsed value reproduces byte for byte once
// the id is replaced; anything else (whitespace, another key order, a number spelled otherwise than
// JSON.stringify spells it, a key JSON.stringify would move or a repeated one, invalid UTF-8)
// returns undefined and the full path decides.
import { isUtf8 } from "node:buffer";
import {
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  COLON,
  COMMA,
  DOT,
  MINUS,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
  ZERO,
  isDigit,
  literalEnd,
  numberEnd,
} from "./bytes.js";
import { lastHadEscape, stringEnd } from "./json-string.js";

/** A scanned call, reused from line to line (the caller reads it before the next scan). */
export interface ScannedCall {
  kind: "request" | "result";
  /** The id: a non-negative integer of at most 15 digits (exact as a JS number). */
  id: number;
  /** Where the bytes after the id start (`,"method":…` or `,"result":…`). */
  idEnd: number;
  /** A request's method (no escape in it); "" for a result. */
  method: string;
}

/** What every call the scan takes starts with, up to its id (a splice writes it, then an id). */
export const CALL_HEAD = Buffer.from('{"jsonrpc":"2.0","id":');
const METHOD = Buffer.from(',"method":');
const PARAMS = Buffer.from(',"params":');
const RESULT = Buffer.from(',"result":');
/** Digits of an id the scan takes: any such integer is exact as a number and written back alike. */
const MAX_ID_DIGITS = 15;
/** Deepest nesting followed (the scan recurses per level); deeper lines take the full path. */
const MAX_SCAN_DEPTH = 64;

const TRUE = Buffer.from("true");
const FALSE = Buffer.from("false");
const NULL = Buffer.from("null");

const scanned: ScannedCall = { kind: "result", id: 0, idEnd: 0, method: "" };
/**
 * Start and end of each key of the objects being scanned, innermost last, below `keyTop` (reused, no
 * allocation; a stack pointer, not the array's length: setting a length costs a runtime call).
 */
let keys = new Int32Array(256);
let keyTop = 0;

/** An integer as JSON.stringify writes a safe one: `-?(0|[1-9][0-9]{0,14})`, never `-0`. */
function integerEnd(line: Uint8Array, i: number): number {
  const negative = line[i] === MINUS;
  if (negative) i++;
  // `0` alone; `-0` is written `0`, and a leading zero is not JSON.
  if (line[i] === ZERO) return negative || isDigit(line[i + 1]) ? -1 : i + 1;
  if (!isDigit(line[i])) return -1;
  const digits = i;
  while (isDigit(line[i])) i++;
  return i - digits > MAX_ID_DIGITS ? -1 : i;
}

/** A fraction's dot or an exponent's `e`/`E`: the number goes on past its integer part. */
function continuesNumber(b: number | undefined): boolean {
  return b === DOT || b === 0x65 || b === 0x45;
}

/** Longest number `spelledEnd` reads: JSON.stringify writes none longer (`-0.0000012345678901234567`). */
const MAX_NUMBER_BYTES = 25;

/**
 * Any other JSON number at `i` (a fraction, an exponent, a long integer): the index after it if
 * JSON.stringify writes its parse so, else -1. Both read a number as `Number` does and write it as
 * its `toString` does (a non-finite one, `null`), so the comparison is the definition itself. Costs a
 * short string: a cost usage update's `"amount":0.00864`, not the bulk.
 */
function spelledEnd(line: Uint8Array, start: number): number {
  const i = numberEnd(line, start);
  if (i < 0 || i - start > MAX_NUMBER_BYTES) return -1;
  const text = String.fromCharCode(...line.subarray(start, i));
  return String(Number(text)) === text ? i : -1;
}

function sameBytes(line: Uint8Array, a: number, b: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (line[a + k] !== line[b + k]) return false;
  return true;
}

/**
 * `i` at a value: the index after it if JSON.stringify of its parse writes these bytes, else -1.
 * Containers count toward `depthLeft`. Object keys must not start with a digit (JSON.stringify
 * writes integer keys first) and must not repeat (JSON.parse keeps the last at the first's place).
 */
export function canonicalEnd(line: Uint8Array, i: number, depthLeft: number): number {
  const b = line[i];
  if (b === QUOTE) return stringEnd(line, i, true);
  if (b === MINUS || isDigit(b)) {
    const end = integerEnd(line, i);
    return end >= 0 && !continuesNumber(line[end]) ? end : spelledEnd(line, i);
  }
  if (b === 0x74) return literalEnd(line, i, TRUE);
  if (b === 0x66) return literalEnd(line, i, FALSE);
  if (b === 0x6e) return literalEnd(line, i, NULL);
  if (b !== OPEN_OBJECT && b !== OPEN_ARRAY) return -1;
  if (depthLeft <= 0) return -1;
  const close = b === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY;
  i++;
  if (line[i] === close) return i + 1;
  const keysFrom = keyTop;
  for (;;) {
    if (b === OPEN_OBJECT) {
      if (line[i] !== QUOTE || isDigit(line[i + 1])) return dropKeys(keysFrom);
      const keyEnd = stringEnd(line, i, true);
      if (keyEnd < 0) return dropKeys(keysFrom);
      for (let k = keysFrom; k < keyTop; k += 2) {
        const s = keys[k] ?? 0;
        const e = keys[k + 1] ?? 0;
        if (e - s === keyEnd - i && sameBytes(line, s, i, e - s)) return dropKeys(keysFrom);
      }
      if (keyTop + 2 > keys.length) {
        const grown = new Int32Array(keys.length * 2);
        grown.set(keys);
        keys = grown;
      }
      keys[keyTop++] = i;
      keys[keyTop++] = keyEnd;
      i = keyEnd;
      if (line[i] !== COLON) return dropKeys(keysFrom);
      i++;
    }
    i = canonicalEnd(line, i, depthLeft - 1);
    if (i < 0) return dropKeys(keysFrom);
    if (line[i] === close) {
      dropKeys(keysFrom);
      return i + 1;
    }
    if (line[i] !== COMMA) return dropKeys(keysFrom);
    i++;
  }
}

/** @internal The keys the scans hold between lines: none (test/wire/member-scan.test.ts; a leak would grow the stack). */
export function keysHeld(): number {
  return keyTop;
}

function dropKeys(from: number): -1 {
  keyTop = from;
  return -1;
}

/**
 * The request or result `line` is, if it is written exactly as JSON.stringify writes a message the
 * bridge sends (`{"jsonrpc":"2.0","id":N,"method":"m"[,"params":V]}` or
 * `{"jsonrpc":"2.0","id":N,"result":V}`), nested at most `maxDepth` deep, in valid UTF-8.
 */
export function scanCall(line: Buffer, maxDepth: number): ScannedCall | undefined {
  const idStart = literalEnd(line, 0, CALL_HEAD);
  if (idStart < 0) return undefined;
  const idEnd = integerEnd(line, idStart);
  if (idEnd < 0 || line[idStart] === MINUS) return undefined;
  const depthLeft = Math.min(maxDepth, MAX_SCAN_DEPTH) - 1;
  let i: number;
  let method = "";
  let kind: ScannedCall["kind"];
  const m = literalEnd(line, idEnd, METHOD);
  if (m >= 0) {
    if (line[m] !== QUOTE) return undefined;
    i = stringEnd(line, m, true);
    if (i < 0 || lastHadEscape()) return undefined;
    method = line.toString("utf8", m + 1, i - 1);
    const params = literalEnd(line, i, PARAMS);
    if (params >= 0) {
      i = params;
      // JSON-RPC params: an object or an array (classify refuses the rest).
      if (line[i] !== OPEN_OBJECT && line[i] !== OPEN_ARRAY) return undefined;
      i = canonicalEnd(line, i, depthLeft);
      if (i < 0) return undefined;
    }
    kind = "request";
  } else if (literalEnd(line, idEnd, RESULT) >= 0) {
    i = canonicalEnd(line, idEnd + RESULT.length, depthLeft);
    if (i < 0) return undefined;
    kind = "result";
  } else return undefined;
  if (line[i] !== CLOSE_OBJECT || i + 1 !== line.length) return undefined;
  // Bytes >= 0x80 passed the scan: one native check of the whole line covers them.
  if (!isUtf8(line)) return undefined;
  scanned.kind = kind;
  let id = 0;
  for (let k = idStart; k < idEnd; k++) id = id * 10 + (line[k] ?? ZERO) - ZERO;
  scanned.id = id;
  scanned.idEnd = idEnd;
  scanned.method = method;
  return scanned;
}
