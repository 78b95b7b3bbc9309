// The tool-call members both directions' member fast paths take as they are (v1-client/updates/ and
// v2-client/updates/ `fastToolCallMembers`): content of text items only, and plain locations, the
// same in v1 and v2.
import { isObject } from "../base/json.js";
import { STASH_KEY_BYTES } from "../convert/stash.js";
import { NULL_START, QUOTE } from "../wire/bytes.js";
import type { ScannedMembers } from "../wire/member-scan.js";

/** How a content list of text items only starts (canonical bytes), or an empty one. */
const TEXT_ITEMS = Buffer.from('[{"type":"content","content":{"type":"text","text":');
const EMPTY_LIST = Buffer.from("[]");

/**
 * How a content list's first item starts when it is a diff or a terminal, which neither member fast
 * path takes: the member scan gives up at such a `content` (`scanMembers`'s `declines`) instead of
 * scanning the whole line to have it declined.
 */
export const NOT_TEXT_ITEMS: readonly Buffer[] = [Buffer.from('{"type":"diff"'), Buffer.from('{"type":"terminal"')];

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

/** Where a tool call's members stand in a scanned line (-1: absent), as `toolCallMembers` found them. */
export interface ToolCallMembers {
  id: number;
  meta: number;
  content: number;
  locations: number;
  title: number;
  kind: number;
}
/** One line at a time: the members of the last one read. */
const found: ToolCallMembers = { id: -1, meta: -1, content: -1, locations: -1, title: -1, kind: -1 };

/**
 * Where the members of the tool call `m` holds stand, or undefined for what neither direction's
 * member path takes, decided on the bytes before anything is parsed: a null (v1's "unchanged",
 * v2's "reset": the converters' business), a `_meta` holding a stash, content that is not a list of
 * text items (diffs, terminals), a `name` or `status` not a string, `capabilities` (stashed either
 * way) and a `__proto__` (it would set a parsed object's prototype).
 */
export function toolCallMembers(m: ScannedMembers): ToolCallMembers | undefined {
  found.id = found.meta = found.content = found.locations = found.title = found.kind = -1;
  for (let k = 0; k < m.count; k++) {
    if (k === m.tagAt) continue;
    if (m.startsWith(k, NULL_START)) return undefined;
    const key = m.keys[k];
    if (key === "toolCallId") found.id = k;
    else if (key === "_meta") {
      if (!m.isObjectWithout(k, STASH_KEY_BYTES)) return undefined;
      found.meta = k;
    } else if (key === "content") {
      if (!mayBeTextItems(m, k)) return undefined;
      found.content = k;
    } else if (key === "locations") found.locations = k;
    else if (key === "title") found.title = k;
    else if (key === "kind") found.kind = k;
    else if ((key === "name" || key === "status") && !m.startsWith(k, QUOTE)) return undefined;
    else if (key === "capabilities" || key === "__proto__") return undefined;
  }
  return found;
}
