// Which update a `session/update` line carries, read where the SDKs write it (the tag as the
// update's first member), so that the translating fast path (engine/fast-lines.ts) runs only the
// scans that may take that update. A route, not a proof: each scan that runs proves its line by
// itself, and a line no scan runs for takes the full path, which is always right. So a line read
// wrongly here costs time, never a byte.
import { Needle, QUOTE, TAG_KEY, UPDATE_HEAD, UPDATE_OPEN, literalEnd } from "./bytes.js";

const QUOTE_BYTE = Buffer.from([QUOTE]);
/** The head and the session id's opening quote. */
const HEAD = Buffer.concat([UPDATE_HEAD, QUOTE_BYTE]);
/** From the session id's closing quote to the update's first member. */
const AFTER_ID = Buffer.concat([QUOTE_BYTE, UPDATE_OPEN]);
/** From the session id's closing quote to the tag's opening one. */
const TAG = Buffer.concat([AFTER_ID, TAG_KEY]);
/** The tag's key searched after other members: by its `U`, rare in a line. */
const TAG_KEY_NEEDLE = new Needle(TAG_KEY.toString("latin1"), "U");

/** The routes of a tag, as bits: the update scan, the command-list scan, the member scan. */
export const ROUTE_UPDATE = 1;
export const ROUTE_COMMANDS = 2;
export const ROUTE_MEMBERS = 4;
/** A line not written so (another message, the tag elsewhere): every scan may take it. */
export const ROUTE_UNKNOWN = ROUTE_UPDATE | ROUTE_COMMANDS | ROUTE_MEMBERS;

export class TagRoutes {
  private readonly tags: Uint8Array[] = [];
  private readonly routes: number[] = [];
  /** The routes of each tag when it comes after other members. */
  private readonly elsewhere: number[] = [];

  /**
   * Adds `route` to the routes of `tag` (its bytes as they stand between the quotes), and
   * `elsewhere` to its routes when the tag comes after other members (a scan whose fast path reads
   * such an update only with the tag first need not run for it).
   */
  add(tag: Uint8Array, route: number, elsewhere = route): this {
    let k = this.tags.findIndex((t) => Buffer.compare(t, tag) === 0);
    if (k < 0) {
      k = this.tags.length;
      this.tags.push(tag);
      this.routes.push(0);
      this.elsewhere.push(0);
    }
    this.routes[k] = (this.routes[k] ?? 0) | route;
    this.elsewhere[k] = (this.elsewhere[k] ?? 0) | elsewhere;
    return this;
  }

  /** The routes of the line's tag: none (0) for a tag that was not added, all for a line not written so. */
  of(line: Buffer): number {
    // Every eighth byte of the head and every sixth of the literal after the id: enough to tell an
    // SDK's update line from other messages (a line read wrongly costs time, never a byte).
    if (!sampled(line, 0, HEAD, 8)) return ROUTE_UNKNOWN;
    // An escaped quote in the id ends it too early here: the literal after it fails, and every scan
    // runs. (Loops, not `indexOf`: the id and the tag are short, and a native call costs more.)
    const idEnd = quoteAt(line, HEAD.length);
    if (idEnd < 0) return ROUTE_UNKNOWN;
    let tagStart = idEnd + TAG.length;
    // Where the tag is decides the routes (`add`'s `elsewhere`).
    let first = true;
    if (!sampled(line, idEnd, TAG, 6)) {
      // Claude's adapters write a tool call's tag after its `_meta` and id, or last. A key's quotes
      // are never a string's (those are escaped): the first such key names the update's tag, or a
      // nested object's (read wrongly: time, not a byte).
      if (literalEnd(line, idEnd, AFTER_ID) < 0) return ROUTE_UNKNOWN;
      const at = TAG_KEY_NEEDLE.in(line, idEnd + AFTER_ID.length);
      if (at < 0) return ROUTE_UNKNOWN;
      tagStart = at + TAG_KEY.length;
      first = false;
    }
    const tagEnd = quoteAt(line, tagStart);
    if (tagEnd < 0) return ROUTE_UNKNOWN;
    const tags = this.tags;
    for (let k = 0; k < tags.length; k++) {
      const tag = tags[k] as Uint8Array;
      if (tag.length === tagEnd - tagStart && literalEnd(line, tagStart, tag) === tagEnd)
        return (first ? this.routes[k] : this.elsewhere[k]) ?? 0;
    }
    return 0;
  }
}

/** The index of the first quote at or after `i`, or -1. */
function quoteAt(line: Buffer, i: number): number {
  for (let k = i; k < line.length; k++) if (line[k] === QUOTE) return k;
  return -1;
}

/** Every `stride`th byte of `text` (its last too) is at `i` of `line`, which is long enough for it. */
function sampled(line: Buffer, i: number, text: Uint8Array, stride: number): boolean {
  const last = text.length - 1;
  if (i + text.length > line.length || line[i + last] !== text[last]) return false;
  for (let k = 0; k < last; k += stride) if (line[i + k] !== text[k]) return false;
  return true;
}
