// The scans behind the fast paths for an `available_commands_update` (issue 21): the longest line an
// agent sends (a list of tens of commands, kilobytes of descriptions), whose other version's form
// only adds (v1 → v2, direction B) or cuts (v2 → v1, direction A) each command's `"type":"command"`
// and each input's `"type":"text"` (T §2.8). One pass proves what JSON.parse would read and
// JSON.stringify of the full path's result would write, and where the tags go. Direction B takes
// only the shape the v1 adapters write:
// `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":…,"update":{"sessionUpdate":
// "available_commands_update","availableCommands":[…]}}}`, no whitespace, each command of `name`
// and `description` (canonical strings) and an optional `input` (`null` or `{"hint":…}`), in any
// order, no key twice. Anything else (a `_meta`, another key, an escape JSON.stringify would not
// write) returns undefined, and the full path decides.
import { isUtf8 } from "node:buffer";
import { CLOSE_ARRAY, CLOSE_OBJECT, COMMA, OPEN_OBJECT, QUOTE, UPDATE_HEAD, literalEnd } from "./bytes.js";
import { lastHadEscape, quotedText, stringEnd } from "./json-string.js";
import { allocLine } from "./writer.js";

const HEAD = UPDATE_HEAD;
const LIST = Buffer.from(',"update":{"sessionUpdate":"available_commands_update","availableCommands":[');
const TAIL = Buffer.from("]}}}");
const NAME = Buffer.from('"name":');
const DESCRIPTION = Buffer.from('"description":');
const INPUT = Buffer.from('"input":');
const NULL = Buffer.from("null");
const HINT = Buffer.from('{"hint":');
/** What v2 adds at the start of each command, and of each input object (T §2.8). */
const COMMAND_TAG = Buffer.from('"type":"command",');
const INPUT_TAG = Buffer.from('"type":"text",');
/** The message, params, the update, the list, a command, its input. */
const DEPTH = 6;

export interface ScannedCommands {
  /** The `sessionId` as JSON.parse reads it. */
  readonly sessionId: string;
  /** The line the full path writes for it in the other version (a client that gets no stash). */
  readonly out: Buffer;
  /** The list's bytes within `out` (`[` … `]`). */
  readonly list: Buffer;
}

/** `i` at a string's opening quote: the index after it, or -1 unless JSON.stringify of its value writes these bytes. */
function canonicalStringAt(line: Buffer, i: number): number {
  return line[i] === QUOTE ? stringEnd(line, i, true) : -1;
}

/**
 * One command at `i` (its `{`): the index after it, or -1. Pushes where its tag goes (after the
 * `{`, as a positive index) and where its input's goes (as a negative one, `-(index + 1)`).
 */
function command(line: Buffer, i: number, inserts: number[]): number {
  if (line[i] !== OPEN_OBJECT) return -1;
  inserts.push(i + 1);
  i++;
  let name = false;
  let description = false;
  let input = false;
  for (;;) {
    let end: number;
    let at: number;
    if ((at = literalEnd(line, i, NAME)) >= 0 && !name) {
      name = true;
      end = canonicalStringAt(line, at);
    } else if ((at = literalEnd(line, i, DESCRIPTION)) >= 0 && !description) {
      description = true;
      end = canonicalStringAt(line, at);
    } else if ((at = literalEnd(line, i, INPUT)) >= 0 && !input) {
      input = true;
      end = literalEnd(line, at, NULL);
      if (end < 0 && (end = literalEnd(line, at, HINT)) >= 0) {
        inserts.push(-(at + 2));
        end = canonicalStringAt(line, end);
        end = end >= 0 && line[end] === CLOSE_OBJECT ? end + 1 : -1;
      }
    } else return -1;
    if (end < 0) return -1;
    if (line[end] === CLOSE_OBJECT) return name && description ? end + 1 : -1;
    if (line[end] !== COMMA) return -1;
    i = end + 1;
  }
}

/**
 * The `available_commands_update` a line holds, if the scan proves it has the shape above and is
 * valid UTF-8 nested within `maxDepth`, with the v2 line the full path writes for it (B↓, no
 * stash); undefined otherwise (which says nothing of the line).
 */
export function scanCommands(line: Buffer, maxDepth: number): ScannedCommands | undefined {
  const again = recalled(V1_LISTS, line, maxDepth);
  if (again !== undefined) return again;
  const inserts: number[] = [];
  const l = scanList(line, maxDepth, command, inserts);
  if (l === undefined) return undefined;
  const { listStart, listEnd } = l;

  let added = 0;
  for (const at of inserts) added += at >= 0 ? COMMAND_TAG.length : INPUT_TAG.length;
  const out = allocLine(line.length + added);
  let from = 0;
  let to = 0;
  for (const mark of inserts) {
    const at = mark >= 0 ? mark : -mark - 1;
    const tag = mark >= 0 ? COMMAND_TAG : INPUT_TAG;
    to += line.copy(out, to, from, at);
    out.set(tag, to);
    to += tag.length;
    from = at;
  }
  line.copy(out, to, from);
  return remember(V1_LISTS, line, l, out, listStart, listEnd + added);
}

/** Where a scanned list lies in its line, where its session id ends, and the id. */
interface ScannedList {
  readonly listStart: number;
  readonly listEnd: number;
  readonly idEnd: number;
  sessionId(): string;
}

/**
 * The last lines a scan proved (one per list an agent keeps sending: a few sessions, a few agents),
 * from the end of each one's session id on (a copy: the line is a view of a read chunk), and the
 * output's bytes from there. An agent sends the same list again and again (Claude's adapter at
 * every session start, 11-12 KB): a line whose bytes after a canonical session id are remembered
 * gets the same output after its own head, for one native comparison instead of a scan. The scans
 * are pure functions of the line's bytes, so what they remember is their result.
 */
class ListMemo {
  readonly rest: Buffer[] = [];
  readonly outRest: Buffer[] = [];
  /** Each list's bounds in its output, from the end of the session id. */
  readonly listStart: number[] = [];
  readonly listEnd: number[] = [];
  /** The slot the next fresh list takes (the oldest). */
  next = 0;
}
const LISTS_REMEMBERED = 4;
const V1_LISTS = new ListMemo();
const V2_LISTS = new ListMemo();
let recalls = 0;

/** What `memo` holds for `line`, if its bytes after its session id are remembered ones. */
function recalled(memo: ListMemo, line: Buffer, maxDepth: number): ScannedCommands | undefined {
  if (memo.rest.length === 0 || maxDepth < DEPTH) return undefined;
  const idStart = literalEnd(line, 0, HEAD);
  if (idStart < 0) return undefined;
  const idEnd = canonicalStringAt(line, idStart);
  if (idEnd < 0) return undefined;
  const idEscaped = lastHadEscape();
  const size = line.length - idEnd;
  let k = 0;
  for (; k < memo.rest.length; k++) {
    const rest = memo.rest[k];
    if (rest !== undefined && rest.length === size && rest.equals(line.subarray(idEnd))) break;
  }
  const outRest = memo.outRest[k];
  if (outRest === undefined) return undefined;
  // The remembered bytes are valid UTF-8, and the id's closing quote is a character boundary.
  if (!isUtf8(line.subarray(idStart, idEnd))) return undefined;
  recalls++;
  const out = allocLine(idEnd + outRest.length);
  line.copy(out, 0, 0, idEnd);
  outRest.copy(out, idEnd);
  return {
    sessionId: quotedText(line, idStart, idEnd, idEscaped),
    out,
    list: out.subarray(idEnd + (memo.listStart[k] ?? 0), idEnd + (memo.listEnd[k] ?? 0)),
  };
}

/** Keeps what a fresh scan proved (`out`, the list at `listStart`..`listEnd` in it) and returns it. */
function remember(
  memo: ListMemo,
  line: Buffer,
  l: ScannedList,
  out: Buffer,
  listStart: number,
  listEnd: number,
): ScannedCommands {
  const idEnd = l.idEnd;
  const k = memo.next;
  memo.next = (k + 1) % LISTS_REMEMBERED;
  memo.rest[k] = Buffer.from(line.subarray(idEnd));
  memo.outRest[k] = Buffer.from(out.subarray(idEnd));
  memo.listStart[k] = listStart - idEnd;
  memo.listEnd[k] = listEnd - idEnd;
  return { sessionId: l.sessionId(), out, list: out.subarray(listStart, listEnd) };
}

/** Forgets the lists the scans remember (tests compare a remembered result with a fresh one). @internal */
export function forgetLists(): void {
  for (const memo of [V1_LISTS, V2_LISTS]) {
    memo.rest.length = 0;
    memo.outRest.length = 0;
    memo.next = 0;
  }
}

/** How many scans a remembered list answered (tests check that their lines reach it). @internal */
export function listsRecalled(): number {
  return recalls;
}

/**
 * The frame both scans prove: the head, a canonical session id, the list of items `item` proves
 * (each pushing its marks onto `marks`), the tail and nothing after, valid UTF-8.
 */
function scanList(
  line: Buffer,
  maxDepth: number,
  item: (line: Buffer, i: number, marks: number[]) => number,
  marks: number[],
): ScannedList | undefined {
  if (maxDepth < DEPTH) return undefined;
  const idStart = literalEnd(line, 0, HEAD);
  if (idStart < 0) return undefined;
  const idEnd = canonicalStringAt(line, idStart);
  if (idEnd < 0) return undefined;
  const idEscaped = lastHadEscape();
  let i = literalEnd(line, idEnd, LIST);
  if (i < 0) return undefined;
  const listStart = i - 1;
  if (line[i] !== CLOSE_ARRAY)
    for (;;) {
      i = item(line, i, marks);
      if (i < 0) return undefined;
      if (line[i] === CLOSE_ARRAY) break;
      if (line[i] !== COMMA) return undefined;
      i++;
    }
  if (literalEnd(line, i, TAIL) !== line.length) return undefined;
  // Bytes >= 0x80 passed the string loops: one native check of the whole line covers them.
  if (!isUtf8(line)) return undefined;
  return { listStart, listEnd: i + 1, idEnd, sessionId: () => quotedText(line, idStart, idEnd, idEscaped) };
}

/** `line` without the byte ranges `cuts` (start, end pairs, in order), with its newline after it in memory. */
export function withoutRanges(line: Buffer, cuts: readonly number[]): Buffer {
  let size = line.length;
  for (let k = 0; k < cuts.length; k += 2) size -= (cuts[k + 1] ?? 0) - (cuts[k] ?? 0);
  const out = allocLine(size);
  let from = 0;
  let to = 0;
  for (let k = 0; k < cuts.length; k += 2) {
    to += line.copy(out, to, from, cuts[k]);
    from = cuts[k + 1] ?? from;
  }
  line.copy(out, to, from);
  return out;
}

const TYPE = Buffer.from('"type":');
/** The v2 type values a v1 command and its input lose (T §2.8 A↓), as their canonical bytes. */
export const COMMAND = Buffer.from('"command"');
export const TEXT = Buffer.from('"text"');
const HINT_KEY = Buffer.from('"hint":');

/** A member `taggedObject` takes: its key's bytes, and its value read at `at` (the index after it, or -1). */
interface MemberRule {
  readonly key: Buffer;
  readonly value: (line: Buffer, at: number, cuts: number[]) => number;
}

/**
 * An object at `i` (its `{`) of a `"type"` of `tag` and of `rules`' members, in any order, no key
 * twice, every member of the mask `required` present (bit 0 the type, bit k + 1 rule k): the index
 * after it, or -1. Pushes the byte range of its type member with the comma that joins it to a
 * neighbour (cut, what is left is the v1 object: the members in order, T §2.8 A↓).
 */
function taggedObject(
  line: Buffer,
  i: number,
  tag: Buffer,
  rules: readonly MemberRule[],
  required: number,
  cuts: number[],
): number {
  if (line[i] !== OPEN_OBJECT) return -1;
  const open = i;
  i++;
  let seen = 0;
  for (;;) {
    const key = i;
    let end: number;
    let at = literalEnd(line, i, TYPE);
    if (at >= 0) {
      if ((seen & 1) !== 0) return -1;
      seen |= 1;
      end = literalEnd(line, at, tag);
      if (end >= 0) cutMember(line, open, key, end, cuts);
    } else {
      let k = 0;
      while (k < rules.length && (at = literalEnd(line, i, rules[k]?.key ?? TYPE)) < 0) k++;
      const rule = rules[k];
      if (rule === undefined || (seen & (2 << k)) !== 0) return -1;
      seen |= 2 << k;
      end = rule.value(line, at, cuts);
    }
    if (end < 0) return -1;
    if (line[end] === CLOSE_OBJECT) return (seen & required) === required ? end + 1 : -1;
    if (line[end] !== COMMA) return -1;
    i = end + 1;
  }
}

/** A text input: `{"type":"text","hint":…}`, either order. */
const INPUT_RULES: readonly MemberRule[] = [{ key: HINT_KEY, value: canonicalStringAt }];
/** A command: its type, name and description, and an input of `null` or text. */
const COMMAND_RULES: readonly MemberRule[] = [
  { key: NAME, value: canonicalStringAt },
  { key: DESCRIPTION, value: canonicalStringAt },
  {
    key: INPUT,
    value: (line, at, cuts) => {
      const end = literalEnd(line, at, NULL);
      return end >= 0 ? end : taggedObject(line, at, TEXT, INPUT_RULES, 0b11, cuts);
    },
  },
];

/** One v2 command at `i` (`taggedObject` of a type, name and description): the index after it, or -1. */
function v2Command(line: Buffer, i: number, cuts: number[]): number {
  return taggedObject(line, i, COMMAND, COMMAND_RULES, 0b111, cuts);
}

/**
 * The member from `key` to `end` of the object opened at `open`, as a cut: with the comma after it
 * when it is the object's first member, else with the comma before it (an object of one member is
 * never cut: the callers need two).
 */
function cutMember(line: Buffer, open: number, key: number, end: number, cuts: number[]): void {
  if (key === open + 1) cuts.push(key, line[end] === COMMA ? end + 1 : end);
  else cuts.push(key - 1, end);
}

/**
 * A v2 `available_commands_update` of the adapters' shape, and the v1 line the full path writes for
 * it (A↓, T §2.8: each command's `"type":"command"` and its text input's `"type":"text"` cut, the
 * rest as it is; a client that gets no stash): `{"jsonrpc":"2.0","method":"session/update",
 * "params":{"sessionId":…,"update":{"sessionUpdate":"available_commands_update","availableCommands":
 * […]}}}`, no whitespace, each command of `type` (`"command"`), `name` and `description` (canonical
 * strings) and an optional `input` (`null`, or `{"type":"text","hint":…}`), in any order, no key
 * twice, valid UTF-8 nested within `maxDepth`; undefined otherwise (which says nothing of the line).
 */
export function scanV2Commands(line: Buffer, maxDepth: number): ScannedCommands | undefined {
  const again = recalled(V2_LISTS, line, maxDepth);
  if (again !== undefined) return again;
  const cuts: number[] = [];
  const l = scanList(line, maxDepth, v2Command, cuts);
  if (l === undefined) return undefined;
  // The cuts were pushed in line order (each as its member was read).
  const out = withoutRanges(line, cuts);
  const removed = line.length - out.length;
  return remember(V2_LISTS, line, l, out, l.listStart, l.listEnd - removed);
}
