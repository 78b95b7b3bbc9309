// Git patches for v2 `Diff.patch` (`git_patch`, T §3.3): parsing `diff --git` sections (C-style quoted
// paths, mode/rename/copy headers, binary markers, hunks) and producing them from a Myers line diff.

import { diffTable } from "../../mappings/diff.js";
import { withMembers } from "../base/json.js";

/** One line of a hunk; `text` has no terminator, `eol` is false before `\ No newline at end of file`. */
interface HunkLine {
  readonly op: " " | "-" | "+";
  readonly text: string;
  readonly eol: boolean;
}

/** `@@ -oldStart,oldCount +newStart,newCount @@`, starts as written (an empty range names the line before). */
export interface Hunk {
  readonly oldStart: number;
  readonly oldCount: number;
  readonly newStart: number;
  readonly newCount: number;
  readonly lines: readonly HunkLine[];
}

/** One `diff --git` section. A `null` path is the `/dev/null` side. */
export interface PatchSection {
  readonly oldPath: string | null;
  readonly newPath: string | null;
  readonly isNew: boolean;
  readonly isDeleted: boolean;
  readonly isRename: boolean;
  readonly isCopy: boolean;
  readonly isBinary: boolean;
  readonly oldMode: string | undefined;
  readonly newMode: string | undefined;
  readonly hunks: readonly Hunk[];
  /** The section's own text, from its `diff --git` line to the next one. */
  readonly text: string;
}

export type ParsedPatch =
  | { readonly ok: true; readonly sections: readonly PatchSection[] }
  | { readonly ok: false; readonly line: number; readonly reason: string };

const DEV_NULL = "/dev/null";
const HEADER = "diff --git ";

/** Work (diagonals visited plus snake steps) one line diff may spend before settling for a coarser, still correct, diff. */
const MAX_DIFF_WORK = 5_000_000;

// ---------------------------------------------------------------------------------------------
// Git's C-style path quoting (quote.c: quote_c_style with core.quotePath on). Non-ASCII is written
// as octal UTF-8 bytes; a lone surrogate as its 3-byte (WTF-8) form, so every JS string round trips.

const ESCAPE_OF: ReadonlyMap<number, string> = new Map([
  [0x07, "a"],
  [0x08, "b"],
  [0x09, "t"],
  [0x0a, "n"],
  [0x0b, "v"],
  [0x0c, "f"],
  [0x0d, "r"],
  [0x22, '"'],
  [0x5c, "\\"],
]);
const BYTE_OF_ESCAPE: ReadonlyMap<string, number> = new Map([...ESCAPE_OF].map(([b, e]) => [e, b]));

/**
 * Whether Git quotes this path: `"`, `\`, control characters or non-ASCII.
 * @internal Runs inside gitPatchSection / the patch reader; exported for its unit tests.
 */
export function needsGitQuoting(path: string): boolean {
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || c >= 0x7f) return true;
  }
  return false;
}

function octal(byte: number): string {
  return "\\" + byte.toString(8).padStart(3, "0");
}

/** UTF-8 bytes of the code point at `i` (lone surrogates as WTF-8) and the code units it spans. */
function utf8At(s: string, i: number): { bytes: number[]; units: number } {
  const c = s.charCodeAt(i);
  let cp = c;
  let units = 1;
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) {
      cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
      units = 2;
    }
  }
  if (cp < 0x80) return { bytes: [cp], units };
  if (cp < 0x800) return { bytes: [0xc0 | (cp >> 6), 0x80 | (cp & 0x3f)], units };
  if (cp < 0x10000) return { bytes: [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)], units };
  return {
    bytes: [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)],
    units,
  };
}

/**
 * The path as Git writes it in a patch header: unchanged, or in double quotes with C escapes.
 * @internal Runs inside gitPatchSection / the patch reader; exported for its unit tests.
 */
export function gitQuote(path: string): string {
  if (!needsGitQuoting(path)) return path;
  let out = '"';
  for (let i = 0; i < path.length;) {
    const c = path.charCodeAt(i);
    if (c < 0x80) {
      const esc = ESCAPE_OF.get(c);
      out += esc !== undefined ? "\\" + esc : c < 0x20 || c === 0x7f ? octal(c) : String.fromCharCode(c);
      i++;
      continue;
    }
    const { bytes, units } = utf8At(path, i);
    for (const b of bytes) out += octal(b);
    i += units;
  }
  return out + '"';
}

/** Decodes UTF-8 leniently: surrogate code points are kept (WTF-8), invalid bytes become U+FFFD. */
function decodeUtf8(bytes: readonly number[]): string {
  let out = "";
  for (let i = 0; i < bytes.length;) {
    const b0 = bytes[i] ?? 0;
    let need = 0;
    let cp = 0;
    let min = 0;
    if (b0 < 0x80) {
      out += String.fromCharCode(b0);
      i++;
      continue;
    } else if (b0 >= 0xc2 && b0 <= 0xdf) [need, cp, min] = [1, b0 & 0x1f, 0x80];
    else if (b0 >= 0xe0 && b0 <= 0xef) [need, cp, min] = [2, b0 & 0x0f, 0x800];
    else if (b0 >= 0xf0 && b0 <= 0xf4) [need, cp, min] = [3, b0 & 0x07, 0x10000];
    let j = 1;
    for (; need > 0 && j <= need; j++) {
      const b = bytes[i + j];
      if (b === undefined || (b & 0xc0) !== 0x80) break;
      cp = (cp << 6) | (b & 0x3f);
    }
    if (need === 0 || j <= need || cp < min || cp > 0x10ffff) {
      out += "\uFFFD";
      i++;
      continue;
    }
    out += String.fromCodePoint(cp);
    i += need + 1;
  }
  return out;
}

/**
 * Reads a Git-quoted string starting at `s[start]` (a `"`); `end` is the index after the closing quote.
 * @internal Runs inside gitPatchSection / the patch reader; exported for its unit tests.
 */
export function gitUnquote(s: string, start = 0): { value: string; end: number } | undefined {
  if (s[start] !== '"') return undefined;
  const bytes: number[] = [];
  for (let i = start + 1; i < s.length;) {
    const ch = s[i];
    if (ch === '"') return { value: decodeUtf8(bytes), end: i + 1 };
    if (ch === "\\") {
      const next = s[i + 1] ?? "";
      const byte = BYTE_OF_ESCAPE.get(next);
      if (byte !== undefined) {
        bytes.push(byte);
        i += 2;
      } else if (/^[0-3][0-7]{2}$/.test(s.slice(i + 1, i + 4))) {
        bytes.push(parseInt(s.slice(i + 1, i + 4), 8));
        i += 4;
      } else return undefined;
      continue;
    }
    // Raw non-ASCII inside quotes (core.quotePath=false) is taken as is.
    const { bytes: raw, units } = utf8At(s, i);
    bytes.push(...raw);
    i += units;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Lines

/**
 * Lines of a text, each keeping its `\n` (the last one may have none). `""` has no lines.
 * @internal Runs inside gitPatchSection / the patch reader; exported for its unit tests.
 */
export function splitLines(text: string): string[] {
  const out: string[] = [];
  let at = 0;
  while (at < text.length) {
    const nl = text.indexOf("\n", at);
    const end = nl === -1 ? text.length : nl + 1;
    out.push(text.slice(at, end));
    at = end;
  }
  return out;
}

function lineOf(l: HunkLine): string {
  return l.eol ? l.text + "\n" : l.text;
}

/**
 * One side of the hunks as text: `old` takes the ` ` and `-` lines, `new` the ` ` and `+` lines;
 * hunks are joined by a `separator` line, identical on both sides (T §3.3 A↓ table, modify).
 */
export function sideText(hunks: readonly Hunk[], side: "old" | "new", separator: string): string {
  const skip = side === "old" ? "+" : "-";
  let out = "";
  for (let k = 0; k < hunks.length; k++) {
    if (k > 0) out += separator + "\n";
    for (const l of hunks[k]?.lines ?? []) if (l.op !== skip) out += l.eol ? l.text + "\n" : l.text;
  }
  return out;
}

/**
 * Applies a section's hunks to `old` at their exact positions; `undefined` when they do not fit.
 * The text is walked a line at a time up to each hunk, not split: the stretches between hunks are
 * copied a slice each (a large file's edit touches a few of its lines).
 */
export function applyHunks(old: string, hunks: readonly Hunk[]): string | undefined {
  let out = "";
  let line = 0;
  let at = 0;
  for (const h of hunks) {
    const start = h.oldCount === 0 ? h.oldStart : h.oldStart - 1;
    if (start < line) return undefined;
    let to = at;
    for (; line < start; line++) {
      if (to >= old.length) return undefined;
      to = lineEnd(old, to);
    }
    out += old.slice(at, to);
    at = to;
    for (const l of h.lines) {
      const full = lineOf(l);
      if (l.op === "+") {
        out += full;
        continue;
      }
      // The file's line here must be this one, whole.
      if (at >= old.length || lineEnd(old, at) - at !== full.length || !old.startsWith(full, at)) return undefined;
      if (l.op === " ") out += full;
      at += full.length;
      line++;
    }
  }
  return out + old.slice(at);
}

/** Where the line starting at `at` ends: after its newline, or at the text's end. */
function lineEnd(text: string, at: number): number {
  const nl = text.indexOf("\n", at);
  return nl === -1 ? text.length : nl + 1;
}

/** Where the line the char at `at` is in starts (`at` itself when a line starts there). */
function startOfLine(text: string, at: number): number {
  return at === 0 ? 0 : text.lastIndexOf("\n", at - 1) + 1;
}

/** The same hunks read the other way (new side as old), for undoing a patch already applied. */
export function reverseHunks(hunks: readonly Hunk[]): Hunk[] {
  return hunks.map((h) => ({
    oldStart: h.newStart,
    oldCount: h.newCount,
    newStart: h.oldStart,
    newCount: h.oldCount,
    lines: h.lines.map((l) => (l.op === " " ? l : withMembers(l, { op: l.op === "+" ? "-" : "+" }))),
  }));
}

// ---------------------------------------------------------------------------------------------
// Parsing

class PatchError extends Error {
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

function stripCr(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

/** A path after `---`, `+++`, `rename from`...: quoted, or raw up to a TAB (Git, GNU timestamps). */
function readName(rest: string, line: number): string {
  if (rest.startsWith('"')) {
    const q = gitUnquote(rest);
    if (!q) throw new PatchError(line, "bad_quoting");
    return q.value;
  }
  const tab = rest.indexOf("\t");
  const name = tab === -1 ? rest : rest.slice(0, tab);
  if (name === "") throw new PatchError(line, "missing_path");
  return name;
}

/** The two names of a `diff --git A B` line, when they can be told apart (quoted, or identical). */
function headerNames(rest: string): [string, string] | undefined {
  if (rest.startsWith('"')) {
    const a = gitUnquote(rest);
    if (!a || rest[a.end] !== " ") return undefined;
    const tail = rest.slice(a.end + 1);
    if (tail.startsWith('"')) {
      const b = gitUnquote(tail);
      return b && b.end === tail.length ? [a.value, b.value] : undefined;
    }
    return tail === "" ? undefined : [a.value, tail];
  }
  if (rest.endsWith('"')) {
    for (let at = rest.indexOf(' "'); at !== -1; at = rest.indexOf(' "', at + 1)) {
      const b = gitUnquote(rest, at + 1);
      if (b && b.end === rest.length && at > 0) return [rest.slice(0, at), b.value];
    }
  }
  if (rest.length % 2 === 1) {
    const mid = (rest.length - 1) / 2;
    const a = rest.slice(0, mid);
    if (rest[mid] === " " && rest.slice(mid + 1) === a && a !== "") return [a, a];
  }
  return undefined;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
const MODE = /^[0-7]{6}$/;

/**
 * Parses `text` into its `diff --git` sections. Anything unusual (text before the first section,
 * a miscounted hunk, a stray line after the hunks, bad quoting) is an error, so callers fall back
 * to showing the text rather than trusting a misread.
 */
export function parseGitPatch(text: string): ParsedPatch {
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  if (text === "") lines.length = 0;
  const starts: number[] = [];
  let offset = 0;
  for (const l of lines) {
    starts.push(offset);
    offset += l.length + 1;
  }
  const sections: PatchSection[] = [];
  let i = 0;
  try {
    for (; i < lines.length && !(lines[i] ?? "").startsWith(HEADER); i++) {
      if ((lines[i] ?? "").trim() !== "") throw new PatchError(i, "text_before_first_section");
    }
    while (i < lines.length) {
      const r = parseSection(lines, i, text, starts);
      i = r.next;
      sections.push(r.section);
    }
  } catch (e) {
    if (e instanceof PatchError) return { ok: false, line: e.line + 1, reason: e.reason };
    throw e;
  }
  return { ok: true, sections };
}

/** The section at `start`, its `text` cut from `text` (whose line `k` starts at `starts[k]`). */
function parseSection(
  lines: readonly string[],
  start: number,
  text: string,
  starts: readonly number[],
): { section: PatchSection; next: number } {
  const header = headerNames(stripCr(lines[start] ?? "").slice(HEADER.length));
  let i = start + 1;
  let newFileMode: string | undefined;
  let deletedFileMode: string | undefined;
  let oldMode: string | undefined;
  let newMode: string | undefined;
  let indexMode: string | undefined;
  let renameFrom: string | undefined;
  let renameTo: string | undefined;
  let copyFrom: string | undefined;
  let copyTo: string | undefined;
  let isBinary = false;
  let minus: string | undefined;
  let plus: string | undefined;
  const mode = (s: string, at: number): string => {
    if (!MODE.test(s.trim())) throw new PatchError(at, "bad_mode");
    return s.trim();
  };
  // Extended headers.
  for (; i < lines.length; i++) {
    const l = stripCr(lines[i] ?? "");
    if (l.startsWith(HEADER) || l.startsWith("--- ") || l.startsWith("@@ ")) break;
    if (l.startsWith("Binary files ") || l === "GIT binary patch") break;
    if (l.startsWith("new file mode ")) newFileMode = mode(l.slice(14), i);
    else if (l.startsWith("deleted file mode ")) deletedFileMode = mode(l.slice(18), i);
    else if (l.startsWith("old mode ")) oldMode = mode(l.slice(9), i);
    else if (l.startsWith("new mode ")) newMode = mode(l.slice(9), i);
    else if (l.startsWith("rename from ")) renameFrom = readName(l.slice(12), i);
    else if (l.startsWith("rename to ")) renameTo = readName(l.slice(10), i);
    else if (l.startsWith("rename old ")) renameFrom = readName(l.slice(11), i);
    else if (l.startsWith("rename new ")) renameTo = readName(l.slice(11), i);
    else if (l.startsWith("copy from ")) copyFrom = readName(l.slice(10), i);
    else if (l.startsWith("copy to ")) copyTo = readName(l.slice(8), i);
    else if (l.startsWith("index ")) {
      const m = /^index [0-9a-fA-F]+\.\.[0-9a-fA-F]+(?: ([0-7]{6}))?$/.exec(l);
      if (!m) throw new PatchError(i, "bad_index_line");
      indexMode = m[1];
    }
    // similarity/dissimilarity index and unknown extended headers carry nothing we use.
  }
  const hunks: Hunk[] = [];
  const l0 = stripCr(lines[i] ?? "");
  if (i < lines.length && l0.startsWith("Binary files ")) {
    isBinary = true;
    i++;
  } else if (i < lines.length && l0 === "GIT binary patch") {
    isBinary = true;
    // Base85 lines never contain a space, so they cannot look like a section header.
    for (i++; i < lines.length && !(lines[i] ?? "").startsWith(HEADER); i++);
  } else if (i < lines.length && l0.startsWith("--- ")) {
    minus = readName(l0.slice(4), i);
    const l1 = stripCr(lines[i + 1] ?? "");
    if (!l1.startsWith("+++ ")) throw new PatchError(i + 1, "missing_plus_line");
    plus = readName(l1.slice(4), i + 1);
    i += 2;
    const ended = { old: false, new: false };
    while (i < lines.length && (lines[i] ?? "").startsWith("@@ ")) {
      const h = parseHunk(lines, i, ended);
      hunks.push(h.hunk);
      i = h.next;
    }
  } else if (i < lines.length && l0.startsWith("@@ ")) {
    throw new PatchError(i, "hunk_without_file_lines");
  }
  // Only blank lines may follow, up to the next section.
  for (; i < lines.length && !(lines[i] ?? "").startsWith(HEADER); i++) {
    if (stripCr(lines[i] ?? "").trim() !== "") throw new PatchError(i, "unexpected_line");
  }
  const devNullA = header?.[0] === DEV_NULL;
  const devNullB = header?.[1] === DEV_NULL;
  const isNew = newFileMode !== undefined || (minus === DEV_NULL && !devNullA);
  const isDeleted = deletedFileMode !== undefined || (plus === DEV_NULL && !devNullB);
  if (isNew && isDeleted) throw new PatchError(start, "both_sides_missing");
  const fromLines = (name: string | undefined, missing: boolean): string | undefined =>
    name === undefined || (name === DEV_NULL && missing) ? undefined : name;
  const oldPath = isNew ? null : (renameFrom ?? copyFrom ?? fromLines(minus, !devNullA) ?? header?.[0]);
  const newPath = isDeleted ? null : (renameTo ?? copyTo ?? fromLines(plus, !devNullB) ?? header?.[1]);
  if (oldPath === undefined || newPath === undefined) throw new PatchError(start, "unknown_path");
  return {
    section: {
      oldPath,
      newPath,
      isNew,
      isDeleted,
      isRename: renameFrom !== undefined || renameTo !== undefined,
      isCopy: copyFrom !== undefined || copyTo !== undefined,
      isBinary,
      oldMode: deletedFileMode ?? oldMode ?? (isNew ? undefined : indexMode),
      newMode: newFileMode ?? newMode ?? (isDeleted ? undefined : indexMode),
      hunks,
      text: text.slice(starts[start] ?? 0, i < lines.length ? (starts[i] ?? text.length) : text.length),
    },
    next: i,
  };
}

/** A hunk header's number, or its default when the header leaves it out. */
function headerNumber(s: string | undefined, dflt: number): number {
  return s === undefined ? dflt : Number(s);
}

type MutableHunkLine = { op: HunkLine["op"]; text: string; eol: boolean };

/** `\ No newline at end of file` after `prev` (line `at`): that line has none, and its side(s) end. */
function noNewline(prev: MutableHunkLine | undefined, at: number, ended: { old: boolean; new: boolean }): void {
  if (!prev || !prev.eol) throw new PatchError(at, "misplaced_no_newline_marker");
  prev.eol = false;
  if (prev.op !== "+") ended.old = true;
  if (prev.op !== "-") ended.new = true;
}

function parseHunk(
  lines: readonly string[],
  start: number,
  ended: { old: boolean; new: boolean },
): { hunk: Hunk; next: number } {
  const m = HUNK_HEADER.exec(lines[start] ?? "");
  if (!m) throw new PatchError(start, "bad_hunk_header");
  const oldStart = headerNumber(m[1], 0);
  const oldCount = headerNumber(m[2], 1);
  const newStart = headerNumber(m[3], 0);
  const newCount = headerNumber(m[4], 1);
  if (
    !Number.isSafeInteger(oldStart) ||
    !Number.isSafeInteger(oldCount) ||
    !Number.isSafeInteger(newStart) ||
    !Number.isSafeInteger(newCount)
  )
    throw new PatchError(start, "bad_hunk_header");
  if ((oldCount > 0 && ended.old) || (newCount > 0 && ended.new)) throw new PatchError(start, "hunk_after_end_of_file");
  const out: MutableHunkLine[] = [];
  let oldLeft = oldCount;
  let newLeft = newCount;
  let i = start + 1;
  while (oldLeft > 0 || newLeft > 0) {
    if (i >= lines.length) throw new PatchError(i, "truncated_hunk");
    const raw = lines[i] ?? "";
    const c = raw === "" ? " " : raw[0];
    if (c === "\\") {
      noNewline(out[out.length - 1], i, ended);
      i++;
      continue;
    }
    if (c !== " " && c !== "-" && c !== "+") throw new PatchError(i, "bad_hunk_line");
    if (c !== "+") {
      if (oldLeft === 0 || ended.old) throw new PatchError(i, "hunk_line_count");
      oldLeft--;
    }
    if (c !== "-") {
      if (newLeft === 0 || ended.new) throw new PatchError(i, "hunk_line_count");
      newLeft--;
    }
    out.push({ op: c, text: raw.slice(1), eol: true });
    i++;
  }
  if ((lines[i] ?? "").startsWith("\\")) {
    noNewline(out[out.length - 1], i, ended);
    i++;
  }
  return { hunk: { oldStart, oldCount, newStart, newCount, lines: out }, next: i };
}

// ---------------------------------------------------------------------------------------------
// Line diff: Myers' O(ND) algorithm in linear space (middle-snake bisection), after trimming
// common prefix and suffix. Past MAX_DIFF_WORK a sub-range is replaced wholesale: still a
// correct patch, just not a minimal one.

class LineDiff {
  private work = 0;
  /** Matched line pairs, flattened: a-index, b-index, in increasing order. */
  readonly pairs: number[] = [];

  constructor(
    private readonly a: Int32Array,
    private readonly b: Int32Array,
  ) {}

  run(aLo: number, aHi: number, bLo: number, bHi: number): void {
    const { a, b, pairs } = this;
    while (aLo < aHi && bLo < bHi && a[aLo] === b[bLo]) {
      pairs.push(aLo++, bLo++);
    }
    let aEnd = aHi;
    let bEnd = bHi;
    while (aEnd > aLo && bEnd > bLo && a[aEnd - 1] === b[bEnd - 1]) {
      aEnd--;
      bEnd--;
    }
    if (aLo < aEnd && bLo < bEnd) {
      const split = this.bisect(aLo, aEnd, bLo, bEnd);
      const inside = split && !(split[0] === aLo && split[1] === bLo) && !(split[0] === aEnd && split[1] === bEnd);
      if (split && inside) {
        this.run(aLo, split[0], bLo, split[1]);
        this.run(split[0], aEnd, split[1], bEnd);
      }
    }
    for (let k = 0; aEnd + k < aHi; k++) pairs.push(aEnd + k, bEnd + k);
  }

  /** A point on a shortest edit path through the middle, or `undefined` when over budget. */
  private bisect(aLo: number, aHi: number, bLo: number, bHi: number): [number, number] | undefined {
    const { a, b } = this;
    const n = aHi - aLo;
    const m = bHi - bLo;
    const maxD = Math.ceil((n + m) / 2);
    const off = maxD + 1;
    const size = 2 * maxD + 3;
    const vf = new Int32Array(size).fill(-1);
    const vb = new Int32Array(size).fill(-1);
    vf[off + 1] = 0;
    vb[off + 1] = 0;
    const delta = n - m;
    const front = (delta & 1) !== 0;
    // Diagonals that ran off the grid are skipped from then on.
    let fLo = 0;
    let fHi = 0;
    let bLoK = 0;
    let bHiK = 0;
    let work = this.work;
    try {
      for (let d = 0; d <= maxD; d++) {
        if (work > MAX_DIFF_WORK) return undefined;
        for (let k = -d + fLo; k <= d - fHi; k += 2) {
          const i = off + k;
          let x =
            k === -d || (k !== d && (vf[i - 1] as number) < (vf[i + 1] as number))
              ? (vf[i + 1] as number)
              : (vf[i - 1] as number) + 1;
          let y = x - k;
          const x0 = x;
          while (x < n && y < m && a[aLo + x] === b[bLo + y]) {
            x++;
            y++;
          }
          work += 1 + x - x0;
          vf[i] = x;
          if (x > n) fHi += 2;
          else if (y > m) fLo += 2;
          else if (front) {
            const j = off + delta - k;
            const back = j >= 0 && j < size ? (vb[j] as number) : -1;
            if (back !== -1 && x >= n - back) return [aLo + x, bLo + y];
          }
        }
        for (let k = -d + bLoK; k <= d - bHiK; k += 2) {
          const i = off + k;
          let x =
            k === -d || (k !== d && (vb[i - 1] as number) < (vb[i + 1] as number))
              ? (vb[i + 1] as number)
              : (vb[i - 1] as number) + 1;
          let y = x - k;
          const x0 = x;
          while (x < n && y < m && a[aHi - 1 - x] === b[bHi - 1 - y]) {
            x++;
            y++;
          }
          work += 1 + x - x0;
          vb[i] = x;
          if (x > n) bHiK += 2;
          else if (y > m) bLoK += 2;
          else if (!front) {
            const j = off + delta - k;
            const fx = j >= 0 && j < size ? (vf[j] as number) : -1;
            if (fx !== -1 && fx >= n - x) return [aLo + fx, bLo + fx - (j - off)];
          }
        }
      }
      return undefined;
    } finally {
      this.work = work;
    }
  }
}

interface Block {
  readonly a0: number;
  readonly a1: number;
  readonly b0: number;
  readonly b1: number;
}

/**
 * Changed regions between the two line lists: `a[a0..a1)` replaced by `b[b0..b1)`.
 * @internal Runs inside gitPatchSection / the patch reader; exported for its unit tests.
 */
export function changedBlocks(a: readonly string[], b: readonly string[]): Block[] {
  // Adds and deletes (one side empty) are the common case for large texts: no need to intern.
  if (a.length === 0 || b.length === 0) {
    return a.length + b.length === 0 ? [] : [{ a0: 0, a1: a.length, b0: 0, b1: b.length }];
  }
  // The lines are a window of the texts (`unifiedHunks`): their common head and tail are at most the
  // context lines, which the diff's own trim (LineDiff.run) matches.
  const ids = new Map<string, number>();
  const intern = (lines: readonly string[]): Int32Array => {
    const out = new Int32Array(lines.length);
    lines.forEach((l, k) => {
      let id = ids.get(l);
      if (id === undefined) ids.set(l, (id = ids.size));
      out[k] = id;
    });
    return out;
  };
  const diff = new LineDiff(intern(a), intern(b));
  diff.run(0, a.length, 0, b.length);
  const blocks: Block[] = [];
  let pa = 0;
  let pb = 0;
  const { pairs } = diff;
  for (let k = 0; k < pairs.length; k += 2) {
    const i = pairs[k] ?? 0;
    const j = pairs[k + 1] ?? 0;
    if (i > pa || j > pb) blocks.push({ a0: pa, a1: i, b0: pb, b1: j });
    pa = i + 1;
    pb = j + 1;
  }
  if (pa < a.length || pb < b.length) blocks.push({ a0: pa, a1: a.length, b0: pb, b1: b.length });
  return blocks;
}

function toHunkLine(op: HunkLine["op"], line: string): HunkLine {
  return line.endsWith("\n") ? { op, text: line.slice(0, -1), eol: true } : { op, text: line, eol: false };
}

/**
 * Unified hunks turning `oldText` into `newText`, with `context` lines around each change (Git merges
 * hunks whose contexts touch), numbered from line `skipped + 1` (the texts being parts of larger ones
 * after that many lines). Only the lines between the texts' common head and tail, and `context` lines
 * on each side, are split and diffed (`unifiedLineHunks` of that window, numbered from the lines
 * before it): an edit of a large file is a few lines of it.
 * @internal Runs inside gitPatchSection / the patch reader; exported for its unit tests.
 */
export function unifiedHunks(
  oldText: string,
  newText: string,
  context: number = diffTable.contextLines,
  skipped = 0,
): Hunk[] {
  if (oldText === newText) return [];
  const head = commonHead(oldText, newText);
  const tail = commonTail(oldText, newText, head);
  const from = linesBefore(oldText, head, context);
  const oldTo = linesAfter(oldText, oldText.length - tail, context);
  // From the tail on, both texts are the same: so is the window's end, counted from theirs.
  const newTo = newText.length - (oldText.length - oldTo);
  return unifiedLineHunks(
    splitLines(oldText.slice(from, oldTo)),
    splitLines(newText.slice(from, newTo)),
    context,
    skipped + newlines(oldText, from),
  );
}

/**
 * The slices the common head and tail are compared in (a native comparison each), from the longest:
 * past the longest that match, the next shorter ones find where the texts part; the last few chars
 * one by one. A file's edit is in one place: a few long slices and a few short ones.
 */
const COMPARED_SLICES = [65536, 4096, 256, 16];

/** How many chars `x` from `i` and `y` from `j` have in common, `n` at the most (slices compared first). */
function sameRun(x: string, i: number, y: string, j: number, n: number): number {
  let k = 0;
  for (const size of COMPARED_SLICES)
    while (k + size <= n && x.slice(i + k, i + k + size) === y.slice(j + k, j + k + size)) k += size;
  while (k < n && x.charCodeAt(i + k) === y.charCodeAt(j + k)) k++;
  return k;
}

/** How many chars `x` before `i` and `y` before `j` have in common, back from there, `n` at the most. */
function sameRunBack(x: string, i: number, y: string, j: number, n: number): number {
  let k = 0;
  for (const size of COMPARED_SLICES)
    while (k + size <= n && x.slice(i - k - size, i - k) === y.slice(j - k - size, j - k)) k += size;
  while (k < n && x.charCodeAt(i - 1 - k) === y.charCodeAt(j - 1 - k)) k++;
  return k;
}

/** The length of the texts' common head in whole lines (each with its newline), in chars. */
function commonHead(a: string, b: string): number {
  const i = sameRun(a, 0, b, 0, Math.min(a.length, b.length));
  // Back to the start of the line the first difference is in (one text may end there: its last line
  // then differs from the other's by what follows, or by a newline).
  return startOfLine(a, i);
}

/**
 * The length of the texts' common tail in whole lines, in chars: it starts a line in both, and
 * overlaps neither one's `head`.
 */
function commonTail(a: string, b: string, head: number): number {
  const l = sameRunBack(a, a.length, b, b.length, Math.min(a.length, b.length) - head);
  const lineStart = (t: string, at: number) => at === head || t.charCodeAt(at - 1) === NEWLINE;
  if (lineStart(a, a.length - l) && lineStart(b, b.length - l)) return l;
  // After the tail's first newline: the char before it is then that newline, in both texts.
  const nl = a.indexOf("\n", a.length - l);
  return nl === -1 ? 0 : a.length - nl - 1;
}

const NEWLINE = 0x0a;

/** Where the line `count` lines before the line starting at `at` starts (0 at the most). */
function linesBefore(text: string, at: number, count: number): number {
  for (let k = 0; k < count && at > 0; k++) at = at <= 1 ? 0 : text.lastIndexOf("\n", at - 2) + 1;
  return at;
}

/** Where the line `count` lines after the line starting at `at` starts (the text's end at the most). */
function linesAfter(text: string, at: number, count: number): number {
  for (let k = 0; k < count && at < text.length; k++) at = lineEnd(text, at);
  return at;
}

/** The newlines in `text` before `end`. */
function newlines(text: string, end: number): number {
  let n = 0;
  for (let at = text.indexOf("\n"); at !== -1 && at < end; at = text.indexOf("\n", at + 1)) n++;
  return n;
}

/**
 * Where two texts differ, when it is known: the other text is `base` with `base[at, at + removed)`
 * replaced by `inserted`. `base` is the old text (`"old"`) or the new one (`"new"`). A snippet placed
 * in a file (diff.ts `placeSnippet`) is one.
 */
export interface Splice {
  readonly base: "old" | "new";
  readonly at: number;
  readonly removed: number;
  readonly inserted: string;
}

/**
 * `unifiedHunks` of the texts `splice` relates, from `base` alone: the window is the lines the
 * splice touches, widened to those where the two texts' own diff puts the change (an insertion that
 * repeats what follows it moves the change past the splice), and `context` more on each side; the
 * other text's window is made from the base's parts and `inserted`. The other text itself is never
 * read: built by concatenation, it would be copied whole the first time a part of it was.
 * @internal Runs inside gitPatchSection; exported for the property that proves it the same as the two texts' hunks.
 */
export function splicedHunks(base: string, splice: Splice, context: number = diffTable.contextLines): Hunk[] {
  const { at, inserted } = splice;
  const end = at + splice.removed;
  const from = linesBefore(base, startOfLine(base, at), context);
  // The two texts' common head may run on past the splice (an insertion that repeats what follows
  // it), and then their common tail, which stops at the head's last whole line (`commonTail`),
  // starts later: the window reaches as far as the two texts' diff does.
  let head = at + sameRun(inserted, 0, base, at, Math.min(inserted.length, base.length - at));
  if (head === at + inserted.length)
    head += sameRun(base, end, base, head, Math.min(base.length - end, base.length - head));
  const wholeHead = startOfLine(base, head);
  const room = Math.min(base.length, base.length - splice.removed + inserted.length) - wholeHead;
  let tail = Math.min(base.length - end, room);
  if (tail === base.length - end) {
    const back = sameRunBack(base, end, inserted, inserted.length, Math.min(end, inserted.length, room - tail));
    tail += back;
    if (back === inserted.length)
      tail += sameRunBack(base, end - back, base, at, Math.min(end - back, at, room - tail));
  }
  const to = linesAfter(base, lineEnd(base, Math.max(end, base.length - tail)), context);
  const window = base.slice(from, to);
  const other = base.slice(from, at) + inserted + base.slice(end, to);
  const [a, b] = splice.base === "old" ? [window, other] : [other, window];
  // The window's own head and tail too: a splice may replace more than it changes (whole texts).
  return unifiedHunks(a, b, context, newlines(base, from));
}

/**
 * Unified hunks turning lines `a` into lines `b` (`splitLines`), with `context` lines around each
 * change, the first line numbered `skipped + 1` on both sides.
 * @internal Runs inside unifiedHunks; exported for the property that proves the window the same as the whole texts.
 */
export function unifiedLineHunks(a: readonly string[], b: readonly string[], context: number, skipped = 0): Hunk[] {
  const blocks = changedBlocks(a, b);
  const hunks: Hunk[] = [];
  for (let k = 0; k < blocks.length;) {
    let last = k;
    while (last + 1 < blocks.length) {
      const cur = blocks[last];
      const next = blocks[last + 1];
      if (!cur || !next || next.a0 - cur.a1 > 2 * context) break;
      last++;
    }
    const first = blocks[k];
    const end = blocks[last];
    if (!first || !end) break;
    const lead = Math.min(context, first.a0);
    const trail = Math.min(context, a.length - end.a1);
    const lines: HunkLine[] = [];
    for (let q = k; q <= last; q++) {
      const blk = blocks[q];
      if (!blk) break;
      const ctxFrom = q === k ? blk.a0 - lead : (blocks[q - 1]?.a1 ?? blk.a0);
      for (let x = ctxFrom; x < blk.a0; x++) lines.push(toHunkLine(" ", a[x] ?? ""));
      for (let x = blk.a0; x < blk.a1; x++) lines.push(toHunkLine("-", a[x] ?? ""));
      for (let y = blk.b0; y < blk.b1; y++) lines.push(toHunkLine("+", b[y] ?? ""));
    }
    for (let x = end.a1; x < end.a1 + trail; x++) lines.push(toHunkLine(" ", a[x] ?? ""));
    const oldFrom = first.a0 - lead;
    const newFrom = first.b0 - lead;
    const oldCount = end.a1 + trail - oldFrom;
    const newCount = end.b1 + trail - newFrom;
    hunks.push({
      // An empty range names the line before it (GNU and Git).
      oldStart: skipped + (oldCount === 0 ? oldFrom : oldFrom + 1),
      oldCount,
      newStart: skipped + (newCount === 0 ? newFrom : newFrom + 1),
      newCount,
      lines,
    });
    k = last + 1;
  }
  return hunks;
}

function range(start: number, count: number): string {
  return count === 1 ? `${start}` : `${start},${count}`;
}

/**
 * The text of hunks as Git writes them, `\ No newline at end of file` included; `heading` goes after
 * the second `@@`, where Git writes the enclosing function's line.
 * @internal Runs inside gitPatchSection / the patch reader; exported for its unit tests.
 */
export function formatHunks(hunks: readonly Hunk[], heading?: string): string {
  let out = "";
  const tail = heading === undefined ? "" : ` ${heading}`;
  for (const h of hunks) {
    out += `@@ -${range(h.oldStart, h.oldCount)} +${range(h.newStart, h.newCount)} @@${tail}\n`;
    for (const l of h.lines) {
      out += l.op + l.text + "\n";
      if (!l.eol) out += diffTable.noNewlineMarker + "\n";
    }
  }
  return out;
}

export type PatchOperation = "add" | "delete" | "modify";

/**
 * One `diff --git` section for a text file (T §3.3 B↓-3): absolute path without `a/`/`b/`,
 * Git quoting, `/dev/null` for the missing side, a TAB after `---`/`+++` paths holding a space,
 * an assumed regular-file mode on add/delete, no `index` line. `add` and `delete` ignore the
 * missing side's text. An empty add (and any section without hunks) is the header alone. `heading`
 * is written on every hunk header (a snippet whose place in the file is unknown). A `splice` says
 * where a `modify`'s texts differ (`splicedHunks`).
 */
export function gitPatchSection(
  op: PatchOperation,
  path: string,
  oldText: string,
  newText: string,
  heading?: string,
  splice?: Splice,
): string {
  const name = gitQuote(path);
  const tab = path.includes(" ") ? "\t" : "";
  let out = `${HEADER}${name} ${name}\n`;
  if (op === "add") out += `new file mode ${diffTable.assumedFileMode}\n`;
  if (op === "delete") out += `deleted file mode ${diffTable.assumedFileMode}\n`;
  const hunks =
    op === "modify" && splice !== undefined
      ? splicedHunks(splice.base === "old" ? oldText : newText, splice)
      : unifiedHunks(op === "add" ? "" : oldText, op === "delete" ? "" : newText);
  if (hunks.length === 0) return out;
  out += `--- ${op === "add" ? DEV_NULL : name + tab}\n`;
  out += `+++ ${op === "delete" ? DEV_NULL : name + tab}\n`;
  return out + formatHunks(hunks, heading);
}
