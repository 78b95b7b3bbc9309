// The tool-call members both directions' member fast paths take as they are (v1-client/updates/ and
// v2-client/updates/ `fastToolCallMembers`): content of text items only, and plain locations, the
// same in v1 and v2.
import { isObject } from "../base/json.js";
import { STASH_KEY_BYTES } from "../convert/stash.js";
import { CLOSE_ARRAY, CLOSE_OBJECT, COMMA, NULL_START, OPEN_ARRAY, QUOTE, isDigit, literalEnd } from "../wire/bytes.js";
import { stringEnd } from "../wire/json-string.js";
import type { ScannedMembers } from "../wire/member-scan.js";

/** A text item up to its text, and after it, as JSON.stringify writes them. */
const TEXT_ITEM_HEAD = Buffer.from('{"type":"content","content":{"type":"text","text":');
const TEXT_ITEM_TAIL = Buffer.from("}}");
/** How a content list of text items only starts (canonical bytes), or an empty one. */
const TEXT_ITEMS = Buffer.concat([Buffer.from("["), TEXT_ITEM_HEAD]);
const EMPTY_LIST = Buffer.from("[]");
/** How a content list starts whose first item is a diff (canonical bytes, the type first). */
const DIFF_ITEMS = Buffer.from('[{"type":"diff"');

/**
 * How a content list's first item starts when it is a diff or a terminal, which direction A's member
 * path does not take: the member scan gives up at such a `content` (`scanMembers`'s `declines`)
 * instead of scanning the whole line to have it declined.
 */
export const NOT_TEXT_ITEMS: readonly Buffer[] = [Buffer.from('{"type":"diff"'), Buffer.from('{"type":"terminal"')];
/** Direction B's: its member path converts a v1 agent's diffs (v2-client/updates/tool-calls.ts), not terminals. */
export const NOT_TEXT_OR_DIFF_ITEMS: readonly Buffer[] = [Buffer.from('{"type":"terminal"')];

/** Member `k` may be a list of text items: decided on its first bytes, before anything is parsed. */
function mayBeTextItems(m: ScannedMembers, k: number): boolean {
  return m.startsWithBytes(k, EMPTY_LIST) || m.startsWithBytes(k, TEXT_ITEMS);
}

/** A content list of text items only, each `{type:"content",content:{type:"text",text}}` and nothing more. */
export function textItemsOnly(
  content: unknown,
): content is { type: "content"; content: { type: "text"; text: string } }[] {
  if (!Array.isArray(content)) return false;
  for (const item of content) {
    if (!isObject(item) || item.type !== "content" || Object.keys(item).length !== 2) return false;
    const block = item.content;
    if (!isObject(block) || block.type !== "text" || typeof block.text !== "string") return false;
    if (Object.keys(block).length !== 2) return false;
  }
  return true;
}

/**
 * Member `k` of a line `scanMembers` proved canonical is a list each of whose items `item` reads:
 * given the index of an item, the index after it, or -1 to decline the list.
 */
function everyItem(m: ScannedMembers, k: number, item: (line: Buffer, i: number, arg: number) => number, arg: number) {
  const line = m.line;
  const end = m.ends[k] ?? -1;
  let i = m.starts[k] ?? -1;
  if (line[i] !== OPEN_ARRAY) return false;
  i++;
  if (line[i] === CLOSE_ARRAY) return i + 1 === end;
  for (;;) {
    i = item(line, i, arg);
    if (i < 0) return false;
    if (line[i] === CLOSE_ARRAY) return i + 1 === end;
    if (line[i] !== COMMA) return false;
    i++;
  }
}

/** The index after the text item at `i`, written as `TEXT_ITEM_HEAD` and `TEXT_ITEM_TAIL` say, or -1. */
function textItemEnd(line: Buffer, i: number): number {
  i = literalEnd(line, i, TEXT_ITEM_HEAD);
  if (i < 0 || line[i] !== QUOTE) return -1;
  i = stringEnd(line, i, true);
  return i < 0 ? -1 : literalEnd(line, i, TEXT_ITEM_TAIL);
}

/**
 * Member `k` of a line `scanMembers` proved canonical is a content list of text items only, each
 * written `{"type":"content","content":{"type":"text","text":…}}`: what `textItemsOnly` says of
 * its parse, read on the bytes without parsing them (an item with its keys in another order is
 * declined, as `mayBeTextItems` declines a first one).
 */
export function textItemsAt(m: ScannedMembers, k: number): boolean {
  return everyItem(m, k, textItemEnd, 0);
}

const MAX_LINE = 0xffffffff;

/**
 * Locations the converters copy as they are: each a `path` (that `pathKept` keeps) and maybe a
 * `line`, an integer from `firstLine` (v1's lines start at 0, v2's at 1), nothing more.
 */
export function plainLocations(locations: unknown, firstLine: 0 | 1, pathKept: (path: string) => boolean): boolean {
  if (!Array.isArray(locations)) return false;
  for (const l of locations) {
    if (!isObject(l) || typeof l.path !== "string") return false;
    const line = l.line;
    if (Object.keys(l).length !== (line === undefined ? 1 : 2)) return false;
    if (
      line !== undefined &&
      !(typeof line === "number" && Number.isInteger(line) && line >= firstLine && line <= MAX_LINE)
    )
      return false;
    if (!pathKept(l.path)) return false;
  }
  return true;
}

const LOCATION_PATH = Buffer.from('{"path":');
const LOCATION_LINE = Buffer.from(',"line":');
/** Digits of a line number at most: 0xffffffff has ten. */
const MAX_LINE_DIGITS = 10;

/** The index after the plain location at `i` (`{"path":…}` or `{"path":…,"line":…}`, the line from `firstLine`), or -1. */
function locationEnd(line: Buffer, i: number, firstLine: number): number {
  i = literalEnd(line, i, LOCATION_PATH);
  if (i < 0 || line[i] !== QUOTE) return -1;
  i = stringEnd(line, i, true);
  if (i < 0) return -1;
  if (line[i] === COMMA) {
    i = literalEnd(line, i, LOCATION_LINE);
    if (i < 0) return -1;
    // A canonical integer: digits, no leading zero but a lone one (the scan proved the number canonical).
    let n = 0;
    const start = i;
    for (; isDigit(line[i]); i++) n = n * 10 + ((line[i] ?? 0) - 0x30);
    if (i === start || i - start > MAX_LINE_DIGITS || n < firstLine || n > MAX_LINE) return -1;
  }
  return line[i] === CLOSE_OBJECT ? i + 1 : -1;
}

/**
 * Member `k` of a line `scanMembers` proved canonical is a list of locations each written
 * `{"path":…}` or `{"path":…,"line":<integer>}`, every line from `firstLine`: `plainLocations` of
 * its parse with every path kept, read on the bytes. False says only that the bytes are not so
 * written (keys in another order, say): the parse decides then.
 */
export function plainLocationsAt(m: ScannedMembers, k: number, firstLine: 0 | 1): boolean {
  return everyItem(m, k, locationEnd, firstLine);
}

/** Where a tool call's members stand in a scanned line (-1: absent), as `toolCallMembers` found them. */
export interface ToolCallMembers {
  id: number;
  meta: number;
  content: number;
  locations: number;
  title: number;
  kind: number;
  status: number;
  rawOutput: number;
}
/** One line at a time: the members of the last one read. */
const found: ToolCallMembers = {
  id: -1,
  meta: -1,
  content: -1,
  locations: -1,
  title: -1,
  kind: -1,
  status: -1,
  rawOutput: -1,
};

/**
 * Where the members of the tool call `m` holds stand, or undefined for what neither direction's
 * member path takes, decided on the bytes before anything is parsed: a null (v1's "unchanged",
 * v2's "reset": the converters' business), a `_meta` holding a stash, content that is not a list of
 * text items (terminals; diffs, unless `diffs`: then a list whose first item is a diff passes), a
 * `name` or `status` not a string, `capabilities` (stashed either way) and a `__proto__` (it would
 * set a parsed object's prototype).
 */
export function toolCallMembers(m: ScannedMembers, diffs = false): ToolCallMembers | undefined {
  found.id = found.meta = found.content = found.locations = found.title = found.kind = -1;
  found.status = found.rawOutput = -1;
  for (let k = 0; k < m.count; k++) {
    if (k === m.tagAt) continue;
    if (m.startsWith(k, NULL_START)) return undefined;
    const key = m.keys[k];
    if (key === "toolCallId") found.id = k;
    else if (key === "_meta") {
      if (!m.isObjectWithout(k, STASH_KEY_BYTES)) return undefined;
      found.meta = k;
    } else if (key === "content") {
      if (!mayBeTextItems(m, k) && !(diffs && m.startsWithBytes(k, DIFF_ITEMS))) return undefined;
      found.content = k;
    } else if (key === "locations") found.locations = k;
    else if (key === "title") found.title = k;
    else if (key === "kind") found.kind = k;
    else if (key === "rawOutput") found.rawOutput = k;
    else if ((key === "name" || key === "status") && !m.startsWith(k, QUOTE)) return undefined;
    else if (key === "status") found.status = k;
    else if (key === "capabilities" || key === "__proto__") return undefined;
  }
  return found;
}
