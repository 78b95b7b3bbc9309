// A second scan behind the translating fast paths (update-scan.ts takes only string members): a
// `session/update` line whose update members are any values, each proven to be the very bytes
// JSON.stringify writes for what JSON.parse reads of it (call-scan.ts `canonicalEnd`). The engine
// then renders an update whose other version's form is its own bytes (usage, session info, tool
// calls) without serializing it. Only `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":
// …,"update":{"sessionUpdate":<one of the tags asked for>,…}}}` in that key order, no whitespace,
// valid UTF-8 (the tag is checked first, so a line of another variant costs a few bytes' look), or,
// for the tags asked for that way, the update's members with the tag at any place (Claude's adapters
// write a tool call's tag after its `_meta` and id, or last: the members' loop checks it where it
// meets it); anything else returns undefined and the full path decides.
import { isUtf8 } from "node:buffer";
import {
  asciiOrUtf8,
  BACKSLASH,
  CLOSE_OBJECT,
  COLON,
  COMMA,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
  isDigit,
  literalEnd,
  utf8,
  NULL_START,
  UPDATE_HEAD,
  UPDATE_OPEN,
  Needle,
  TAG_KEY,
  indexWithin,
} from "./bytes.js";
import { canonicalEnd } from "./call-scan.js";
import { lastHadEscape, quotedText, stringEnd } from "./json-string.js";
import { allocLineFrom, splicedLine } from "./writer.js";

/** `"sessionUpdate":` before its value, as a relaid line starts its members. */
const TAG_KEY_HEAD = TAG_KEY.subarray(0, TAG_KEY.length - 1);
/** The comma between members, as a piece of `withMembers`. */
const COMMA_BYTE = Buffer.from(",");

const HEAD = UPDATE_HEAD;
const UPDATE = UPDATE_OPEN;
/** Deepest nesting followed (`canonicalEnd` recurses per level), as in call-scan.ts. */
const MAX_SCAN_DEPTH = 64;
/** Digits of a count (`isCount`): any such integer is a safe one. */
const MAX_COUNT_DIGITS = 15;
/** Members an update may have for this scan: more are not the shapes it serves. */
const MAX_MEMBERS = 16;

/** A byte range of a scanned line, `[start, end)`. */
export type LineRange = readonly [number, number];

/** An update's members in order: each key, the ranges of its key and value, and where the update closes. */
class MemberRanges {
  /** The tag, as the index into the scan's `tags`. */
  tag = -1;
  count = 0;
  readonly keys: string[] = [];
  /** Per member: the index of its key's opening quote, of its value, and after its value. */
  readonly keyStarts: number[] = [];
  readonly starts: number[] = [];
  readonly ends: number[] = [];
  /** Index of the update object's closing brace. */
  updateClose = -1;
}

/**
 * What the scan proved: the update's members in order, each key (decoded: keys are escape-free)
 * and the byte range of its value. One instance serves every scan, consumed before the next line.
 */
export class ScannedMembers extends MemberRanges {
  line: Buffer = Buffer.alloc(0);
  /** The tag's member: 0, or any (a tag asked for at any place). */
  tagAt = 0;
  /** Index of the update's first member (after its opening brace). */
  updateOpen = -1;
  sessionIdStart = 0;
  sessionIdEnd = 0;
  sessionIdEscaped = false;

  /** The session id, decoded (one without an escape as a key is: a stream's lines repeat it). */
  sessionId(): string {
    const start = this.sessionIdStart;
    const end = this.sessionIdEnd;
    return this.sessionIdEscaped ? quotedText(this.line, start, end, true) : keyText(this.line, start + 1, end - 1);
  }

  /** The index of member `key`, or -1. */
  indexOf(key: string): number {
    for (let k = 0; k < this.count; k++) if (this.keys[k] === key) return k;
    return -1;
  }

  /** The value bytes of member `k` start with `byte`. */
  startsWith(k: number, byte: number): boolean {
    return this.line[this.starts[k] ?? -1] === byte;
  }

  /** The value bytes of member `k` start with `bytes`. */
  startsWithBytes(k: number, bytes: Uint8Array): boolean {
    const start = this.starts[k] ?? -1;
    const end = literalEnd(this.line, start, bytes);
    return end >= 0 && end <= (this.ends[k] ?? -1);
  }

  /** The value bytes of member `k` are `bytes`. */
  valueIs(k: number, bytes: Uint8Array): boolean {
    const start = this.starts[k] ?? -1;
    return (this.ends[k] ?? -1) - start === bytes.length && literalEnd(this.line, start, bytes) >= 0;
  }

  /** Member `k` is a string value: its decoded text (escapes read as JSON reads them). */
  text(k: number): string | undefined {
    const line = this.line;
    const start = this.starts[k] ?? -1;
    const end = this.ends[k] ?? -1;
    if (line[start] !== QUOTE) return undefined;
    // Without an escape (an id, a title) the bytes between the quotes are the text.
    for (let j = start + 1; j < end - 1; j++)
      if (line[j] === BACKSLASH) return JSON.parse(utf8(line, start, end)) as string;
    return utf8(line, start + 1, end - 1);
  }

  /** Member `k`'s value, parsed (what JSON.parse of the line has there). */
  value(k: number): unknown {
    return JSON.parse(utf8(this.line, this.starts[k] ?? 0, this.ends[k] ?? 0));
  }

  /** Member `k` is absent (-1), a string or `null` (canonical bytes: `"` or `n` start them). */
  isTextOrNull(k: number): boolean {
    return k < 0 || this.startsWith(k, QUOTE) || this.startsWith(k, NULL_START);
  }

  /**
   * Member `k` is a non-negative safe integer: digits only, at most 15 of them (a canonical number
   * has no sign `+`, no leading zero; a fraction or an exponent is no count).
   */
  isCount(k: number): boolean {
    if (k < 0) return false;
    const start = this.starts[k] ?? -1;
    const end = this.ends[k] ?? -1;
    if (end - start < 1 || end - start > MAX_COUNT_DIGITS) return false;
    for (let j = start; j < end; j++) if (!isDigit(this.line[j])) return false;
    return true;
  }

  /** Member `k` is absent, or an object whose bytes nowhere hold `key` (a stash key, say). */
  isObjectWithout(k: number, key: Uint8Array): boolean {
    return k < 0 || (this.startsWith(k, OPEN_OBJECT) && !this.holds(k, key));
  }

  /** Whether the bytes `needle` occur in member `k`'s value. */
  holds(k: number, needle: Uint8Array): boolean {
    return indexWithin(this.line, needle, this.starts[k] ?? 0, this.ends[k] ?? 0) >= 0;
  }

  /** The update object's text, braces included (its parse is what JSON.parse of the line has as `params.update`). */
  updateText(): string {
    return utf8(this.line, this.updateOpen - 1, this.updateClose + 1);
  }

  /** The line with the tag's value (between its quotes) replaced by `tag`. */
  spliceTag(tag: Uint8Array): Buffer {
    const line = this.line;
    const start = (this.starts[this.tagAt] ?? 0) + 1;
    const end = (this.ends[this.tagAt] ?? 0) - 1;
    return splicedLine(line, start, end, tag);
  }

  /**
   * The line with the update's members laid out anew: the tag first, its value's bytes (quotes
   * included) `tag`, then every other member in order but member `last` (-1: none), then `last`.
   */
  relaid(tag: Uint8Array, last: number): Buffer {
    const line = this.line;
    const open = this.updateOpen;
    let size = open + TAG_KEY.length - 1 + tag.length + (line.length - this.updateClose);
    for (let k = 0; k < this.count; k++)
      if (k !== this.tagAt) size += 1 + (this.ends[k] ?? 0) - (this.keyStarts[k] ?? 0);
    const { line: out, mem, at, from } = allocLineFrom(line, size);
    mem.copyWithin(at, from, from + open);
    let to = at + open;
    mem.set(TAG_KEY_HEAD, to);
    to += TAG_KEY_HEAD.length;
    mem.set(tag, to);
    to += tag.length;
    // Members adjacent in the line (a comma between) are copied as one run: a line is relaid with
    // a copy or two, not one a member.
    let runStart = -1;
    let runEnd = -1;
    const flush = (): void => {
      if (runStart < 0) return;
      mem[to++] = COMMA;
      mem.copyWithin(to, from + runStart, from + runEnd);
      to += runEnd - runStart;
      runStart = -1;
    };
    const member = (k: number): void => {
      const start = this.keyStarts[k] ?? 0;
      if (runStart >= 0 && start === runEnd + 1) runEnd = this.ends[k] ?? 0;
      else {
        flush();
        runStart = start;
        runEnd = this.ends[k] ?? 0;
      }
    };
    for (let k = 0; k < this.count; k++) if (k !== this.tagAt && k !== last) member(k);
    if (last >= 0 && last !== this.tagAt) member(last);
    flush();
    mem.copyWithin(to, from + this.updateClose, from + line.length);
    return out;
  }

  /**
   * `relaid(tag, last)` with member `k`'s value replaced by `value` (its key kept): the line a
   * converter's one changed member makes, every other member as its bytes.
   */
  relaidWith(tag: Uint8Array, last: number, k: number, value: Uint8Array): Buffer {
    const pieces: (Uint8Array | LineRange)[] = [TAG_KEY_HEAD, tag];
    const member = (j: number): void => {
      pieces.push(COMMA_BYTE);
      if (j !== k) pieces.push([this.keyStarts[j] ?? 0, this.ends[j] ?? 0]);
      else pieces.push([this.keyStarts[j] ?? 0, this.starts[j] ?? 0], value);
    };
    for (let j = 0; j < this.count; j++) if (j !== this.tagAt && j !== last) member(j);
    if (last >= 0 && last !== this.tagAt) member(last);
    return this.withMembers(pieces);
  }

  /** Member `k`'s value, as a range of the line. */
  range(k: number): LineRange {
    return [this.starts[k] ?? 0, this.ends[k] ?? 0];
  }

  /** The line with its update's members (between its braces) replaced by `pieces`: bytes, or ranges of the line. */
  withMembers(pieces: readonly (Uint8Array | LineRange)[]): Buffer {
    const line = this.line;
    let size = this.updateOpen + line.length - this.updateClose;
    for (const p of pieces) size += p instanceof Uint8Array ? p.length : p[1] - p[0];
    const { line: out, mem, at, from } = allocLineFrom(line, size);
    mem.copyWithin(at, from, from + this.updateOpen);
    let to = at + this.updateOpen;
    for (const p of pieces)
      if (p instanceof Uint8Array) {
        mem.set(p, to);
        to += p.length;
      } else {
        mem.copyWithin(to, from + p[0], from + p[1]);
        to += p[1] - p[0];
      }
    mem.copyWithin(to, from + this.updateClose, from + line.length);
    return out;
  }

  /** The line with `member` (`,"key":value`) added as the update's last member. */
  withLastMember(member: Uint8Array): Buffer {
    return splicedLine(this.line, this.updateClose, this.updateClose, member);
  }
}

const scanned = new ScannedMembers();

/**
 * The update `line` holds, if the scan proves the shape above nested within `maxDepth` (the message,
 * params and the update are three levels); undefined otherwise (which says nothing of the line). A
 * tag of `anyTags` (each one of `tags`) is taken at any place among the update's members too. A
 * `content` list whose first item starts with one of `declines` (what the caller would decline)
 * ends the scan there: undefined.
 */
export function scanMembers(
  line: Buffer,
  maxDepth: number,
  tags: readonly Uint8Array[],
  anyTags: readonly Uint8Array[] = [],
  declines: readonly Uint8Array[] = [],
  /** A line proven with its tag first becomes a template (`scanMembersByTemplate`). */
  keep = false,
): ScannedMembers | undefined {
  const depthLeft = Math.min(maxDepth, MAX_SCAN_DEPTH) - 3;
  if (depthLeft < 0) return undefined;
  const out = scanned;
  if (!readHead(line, out)) return undefined;
  let i = out.updateOpen;
  let end: number;
  const first = literalEnd(line, i, TAG_KEY);
  if (first >= 0) {
    // The tag: one asked for, then its closing quote (`"sessionUpdate":"` was the literal's end).
    out.tag = tagIndex(line, first, tags);
    if (out.tag < 0) return undefined;
    out.tagAt = 0;
    out.keys[0] = "sessionUpdate";
    out.keyStarts[0] = i;
    out.starts[0] = first - 1;
    out.ends[0] = first + (tags[out.tag]?.length ?? 0) + 1;
    out.count = 1;
    end = out.ends[0] ?? -1;
  } else {
    // The tag elsewhere, one of `anyTags`: the members' loop checks it where it finds it.
    if (anyTags.length === 0) return undefined;
    // Such a line (Claude's tool call) carries its content after a long `_meta` and `rawInput`: a
    // list the caller would decline is found by a native search first. Its quotes are a key's and
    // an object's (a string's are escaped); a list of a nested object is declined too (time only).
    if (declines.length > 0 && declinedListIn(line, i, declines)) return undefined;
    // The first member is at `i`: the loop reads from after the comma there would be.
    end = i - 1;
  }
  for (let more = first < 0; more || line[end] === COMMA; more = false) {
    i = end + 1;
    // Keys plainly spelled (no escape), never one JSON.stringify would move (integer-like) or repeat.
    if (line[i] !== QUOTE || isDigit(line[i + 1]) || out.count === MAX_MEMBERS) return undefined;
    end = stringEnd(line, i, true);
    if (end < 0 || lastHadEscape() || line[end] !== COLON) return undefined;
    const key = keyText(line, i + 1, end - 1);
    for (let k = 0; k < out.count; k++) if (out.keys[k] === key) return undefined;
    const start = end + 1;
    // A content list the caller would decline: not worth scanning on.
    if (key === "content" && line[start] === OPEN_ARRAY && startsWithAny(line, start + 1, declines)) return undefined;
    end = canonicalEnd(line, start, depthLeft);
    if (end < 0) return undefined;
    if (first < 0 && key === "sessionUpdate") {
      // The update's own tag member: its value (canonical: no escape in a tag) is a tag of `anyTags`.
      const k = line[start] === QUOTE ? tagIndex(line, start + 1, anyTags) : -1;
      const tag = anyTags[k];
      if (tag === undefined) return undefined;
      out.tag = tags.indexOf(tag);
      if (out.tag < 0) return undefined;
      out.tagAt = out.count;
    }
    out.keys[out.count] = key;
    out.keyStarts[out.count] = i;
    out.starts[out.count] = start;
    out.ends[out.count] = end;
    out.count++;
  }
  out.updateClose = end;
  // The update, then params and the message close; nothing after.
  if (line[end] !== CLOSE_OBJECT || line[end + 1] !== CLOSE_OBJECT || line[end + 2] !== CLOSE_OBJECT) return undefined;
  if (end + 3 !== line.length) return undefined;
  // A tag elsewhere must have been found.
  if (out.tag < 0) return undefined;
  // Bytes >= 0x80 passed the string loops: one native check of the whole line covers them.
  if (!isUtf8(line)) return undefined;
  if (keep && first >= 0) keepTemplate(out, first, maxDepth, tags, anyTags, declines);
  return out;
}

// ---------------------------------------------------------------- templates
// An agent repeats some updates line after line with the same bytes but for counts: usage (`used`,
// `size`), a busy state, session info. A line that has a template's bytes from its tag on, but
// for the digits of the members that were counts there, is proven without a scan: the scan reads
// left to right, and what it decides after the tag depends on those bytes only, a count's digits
// aside (another count is as canonical, and as valid UTF-8). The members' ranges are the
// template's, shifted by the changes in the counts' lengths. The head (session id) is scanned.

/** Templates kept per tag, the last used first: an agent repeats a few variants of each update. */
const TEMPLATES_PER_TAG = 8;

/** A template: the line's members, their positions relative to the tag's text. */
class MemberTemplate extends MemberRanges {
  /** The template line's bytes from its tag's text on (after `"sessionUpdate":"`). */
  bytes: Buffer = Buffer.alloc(0);
  /** The members whose values are counts, in order: their digits may differ. */
  readonly counts: number[] = [];
}

/**
 * The templates, by tag, for one question (the scan's `maxDepth`, tags, tags elsewhere and
 * declines, by identity): a template serves the question it was proven for, and another question
 * starts afresh (one fast path asks one).
 */
const question: {
  maxDepth: number;
  tags: readonly Uint8Array[];
  anyTags: readonly Uint8Array[];
  declines: readonly Uint8Array[];
} = {
  maxDepth: -1,
  tags: [],
  anyTags: [],
  declines: [],
};
let byTag: MemberTemplate[][] = [];

function asked(
  maxDepth: number,
  tags: readonly Uint8Array[],
  anyTags: readonly Uint8Array[],
  declines: readonly Uint8Array[],
): boolean {
  return (
    question.maxDepth === maxDepth &&
    question.tags === tags &&
    question.anyTags === anyTags &&
    question.declines === declines
  );
}

function keepTemplate(
  m: ScannedMembers,
  first: number,
  maxDepth: number,
  tags: readonly Uint8Array[],
  anyTags: readonly Uint8Array[],
  declines: readonly Uint8Array[],
): void {
  if (!asked(maxDepth, tags, anyTags, declines)) {
    Object.assign(question, { maxDepth, tags, anyTags, declines });
    byTag = tags.map(() => []);
  }
  const list = byTag[m.tag];
  if (list === undefined) return;
  // The tag's oldest makes way, and is the newest now.
  const t = list.length < TEMPLATES_PER_TAG ? new MemberTemplate() : (list.pop() ?? new MemberTemplate());
  list.unshift(t);
  // A copy: a view would keep the chunk the line came in alive.
  t.bytes = Buffer.from(m.line.subarray(first));
  t.tag = m.tag;
  t.count = m.count;
  t.counts.length = 0;
  for (let k = 0; k < m.count; k++) {
    t.keys[k] = m.keys[k] ?? "";
    t.keyStarts[k] = (m.keyStarts[k] ?? 0) - first;
    t.starts[k] = (m.starts[k] ?? 0) - first;
    t.ends[k] = (m.ends[k] ?? 0) - first;
    if (m.isCount(k)) t.counts.push(k);
  }
  t.updateClose = m.updateClose - first;
}

/**
 * What `scanMembers` proves of `line` when a template (above) fits it, asked the same; undefined
 * when none fits (which says nothing of the line: scan it).
 */
export function scanMembersByTemplate(
  line: Buffer,
  maxDepth: number,
  tags: readonly Uint8Array[],
  anyTags: readonly Uint8Array[] = [],
  declines: readonly Uint8Array[] = [],
): ScannedMembers | undefined {
  const out = scanned;
  if (!asked(maxDepth, tags, anyTags, declines) || !readHead(line, out)) return undefined;
  const first = literalEnd(line, out.updateOpen, TAG_KEY);
  if (first < 0) return undefined;
  const list = byTag[tagIndex(line, first, tags)];
  if (list === undefined || list.length === 0) return undefined;
  // The template's bytes are valid UTF-8, and so are a count's digits: the session id's are checked here.
  if (!asciiOrUtf8(line, out.sessionIdStart, out.sessionIdEnd)) return undefined;
  for (let n = 0; n < list.length; n++) {
    const t = list[n];
    if (t === undefined || !fitsTemplate(t, line, first)) continue;
    // The last used first (in place: no list is made a line).
    for (let j = n; j > 0; j--) list[j] = list[j - 1] as MemberTemplate;
    list[0] = t;
    out.tag = t.tag;
    out.tagAt = 0;
    out.count = t.count;
    // Positions after each count move by the change in its length (`shifts`, filled by the fit).
    let c = 0;
    let shift = first;
    for (let k = 0; k < t.count; k++) {
      out.keys[k] = t.keys[k] ?? "";
      out.keyStarts[k] = (t.keyStarts[k] ?? 0) + shift;
      out.starts[k] = (t.starts[k] ?? 0) + shift;
      if (t.counts[c] === k) shift = first + (shifts[c++] ?? 0);
      out.ends[k] = (t.ends[k] ?? 0) + shift;
    }
    out.updateClose = t.updateClose + shift;
    return out;
  }
  return undefined;
}

/** After a fit: for each count, how far what follows it moved (the change in the counts' lengths so far). */
const shifts: number[] = [];

/** `line`, its tag's text at `first`, is the template's bytes but for its counts' digits. */
function fitsTemplate(t: MemberTemplate, line: Buffer, first: number): boolean {
  const bytes = t.bytes;
  // The update's last byte and the line's length give most other variants away without a native call.
  if (line[line.length - 4] !== bytes[bytes.length - 4]) return false;
  if (t.counts.length === 0 && line.length - first !== bytes.length) return false;
  let from = 0;
  let delta = 0;
  for (let c = 0; c < t.counts.length; c++) {
    const k = t.counts[c] ?? 0;
    const start = t.starts[k] ?? 0;
    const at = first + delta + start;
    if (at > line.length || line.compare(bytes, from, start, first + delta + from, at) !== 0) return false;
    // A count: digits, at most 15, no leading zero (JSON.stringify's form of a safe integer).
    let end = at;
    while (end < line.length && end - at <= MAX_COUNT_DIGITS && isDigit(line[end])) end++;
    const digits = end - at;
    if (digits < 1 || digits > MAX_COUNT_DIGITS || (digits > 1 && line[at] === ZERO)) return false;
    from = t.ends[k] ?? 0;
    delta += digits - (from - start);
    shifts[c] = delta;
  }
  return (
    line.length === first + delta + bytes.length && line.compare(bytes, from, bytes.length, first + delta + from) === 0
  );
}

/** The digit 0. */
const ZERO = 0x30;

const CONTENT_LIST = new Needle('"content":[', "[");

/** A `content` list from `from` on whose first item starts with one of `declines`: one search a list. */
function declinedListIn(line: Buffer, from: number, declines: readonly Uint8Array[]): boolean {
  for (let at = CONTENT_LIST.in(line, from); at >= 0; at = CONTENT_LIST.in(line, at + 1))
    if (startsWithAny(line, at + CONTENT_LIST.length, declines)) return true;
  return false;
}

/** One of `prefixes` is at `at` in `line`. */
function startsWithAny(line: Buffer, at: number, prefixes: readonly Uint8Array[]): boolean {
  for (const p of prefixes) if (literalEnd(line, at, p) >= 0) return true;
  return false;
}

/**
 * Keys decoded lately, by a hash of their bytes: an agent's keys repeat line after line. Two slots a
 * hash, the newer first: with one, keys of the same update that share a hash (`sessionUpdate` and
 * `content`, `status` and `background` at 64 slots) evicted each other on every line.
 */
const KEY_SETS = 128;
const keyStrings: string[] = new Array<string>(KEY_SETS * 2).fill("");
const keyBytes: Uint8Array[] = new Array<Uint8Array>(KEY_SETS * 2).fill(new Uint8Array(0));

/** The text of the key bytes `line[start, end)` (escape-free): a decoded one again when it repeats. */
function keyText(line: Buffer, start: number, end: number): string {
  let h = end - start;
  for (let j = start; j < end; j++) h = (h * 31 + (line[j] ?? 0)) | 0;
  const slot = (h & (KEY_SETS - 1)) * 2;
  if (sameBytes(keyBytes[slot] ?? EMPTY, line, start, end)) return keyStrings[slot] ?? "";
  if (sameBytes(keyBytes[slot + 1] ?? EMPTY, line, start, end)) return keyStrings[slot + 1] ?? "";
  const key = utf8(line, start, end);
  keyBytes[slot + 1] = keyBytes[slot] ?? EMPTY;
  keyStrings[slot + 1] = keyStrings[slot] ?? "";
  // A copy: a view would keep the chunk the line came in alive.
  keyBytes[slot] = Uint8Array.prototype.slice.call(line, start, end);
  keyStrings[slot] = key;
  return key;
}

/** `known` is the bytes `line[start, end)`. */
function sameBytes(known: Uint8Array, line: Buffer, start: number, end: number): boolean {
  return known.length === end - start && literalEnd(line, start, known) >= 0;
}
const EMPTY = new Uint8Array(0);

/** The index of the tag of `tags` whose bytes and a closing quote are at `at` in `line`, or -1. */
function tagIndex(line: Buffer, at: number, tags: readonly Uint8Array[]): number {
  for (let t = 0; t < tags.length; t++) {
    const tag = tags[t];
    if (tag !== undefined && literalEnd(line, at, tag) >= 0 && line[at + tag.length] === QUOTE) return t;
  }
  return -1;
}

/**
 * The line's head, up to where its update opens, into `out` (the line, the session id's range, no
 * member yet): false when the line does not start as a `session/update` of a session does.
 */
function readHead(line: Buffer, out: ScannedMembers): boolean {
  const i = literalEnd(line, 0, HEAD);
  if (i < 0 || line[i] !== QUOTE) return false;
  const end = stringEnd(line, i, true);
  if (end < 0) return false;
  out.line = line;
  out.count = 0;
  out.tag = -1;
  out.sessionIdStart = i;
  out.sessionIdEnd = end;
  out.sessionIdEscaped = lastHadEscape();
  out.updateOpen = literalEnd(line, end, UPDATE);
  return out.updateOpen >= 0;
}

/**
 * The members of the object at `i` (its `{`) of a line `scanMembers` proved, in order: for each,
 * the index of its key's opening quote, of its value, and after its value, pushed onto `out`.
 * Returns the index after the object, or -1 (and `out` as it was) when the value at `i` is not one.
 */
export function objectMembers(line: Uint8Array, i: number, out: number[]): number {
  if (line[i] !== OPEN_OBJECT) return -1;
  i++;
  if (line[i] === CLOSE_OBJECT) return i + 1;
  for (;;) {
    const key = i;
    const colon = stringEnd(line, i, true);
    const valueEnd = canonicalEnd(line, colon + 1, MAX_SCAN_DEPTH);
    out.push(key, colon + 1, valueEnd);
    // Proven canonical: after a value, a comma or the object's end.
    if (line[valueEnd] !== COMMA) return valueEnd + 1;
    i = valueEnd + 1;
  }
}
