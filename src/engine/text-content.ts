// The tool-call content both directions' member fast paths take as it is (v1-client/updates/ and
// v2-client/updates/ `fastToolCallMembers`): a list of text items only, the same in v1 and v2.
import { isObject } from "../base/json.js";
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
export function mayBeTextItems(m: ScannedMembers, k: number): boolean {
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
