// The tool calls a direction-B session has seen (limits.toolCalls), least recently written
// forgotten first: the title and kind last given and the content last emitted (T §2.4 B↓). A tool
// call streamed as string fields only has no content: it is kept as its title and a kind code in a
// slot table (memory budget, issue 9: an object per tool call outlives young collections). Any other
// is kept as the object. `get` gives a copy of a compact entry: a change is kept by `set`.
import { NIL, SlotTable, TextColumn, TITLE_UNITS, codeOf, extended, valueOf } from "../../slot-table.js";
import type { ToolSeen } from "../session.js";

const NO_KIND = 0;

export class ToolSeenTable extends SlotTable {
  /** The object of a slot kept as one; undefined: kept in the columns below. */
  private objects: (ToolSeen | undefined)[] = [];
  /** The kind's code + 1; NO_KIND: none. */
  private kinds = new Uint8Array(0);
  private titled = new Uint8Array(0);
  private readonly titles = new TextColumn(TITLE_UNITS);

  protected resize(capacity: number): void {
    this.objects.length = capacity;
    this.kinds = extended(this.kinds, new Uint8Array(capacity));
    this.titled = extended(this.titled, new Uint8Array(capacity));
    this.titles.resize(capacity);
  }

  protected release(slot: number): void {
    this.objects[slot] = undefined;
  }

  /** A read: no refresh. */
  get(id: string): ToolSeen | undefined {
    const slot = this.find(id);
    return slot === NIL ? undefined : (this.objects[slot] ?? this.rebuild(slot));
  }

  peek(id: string): ToolSeen | undefined {
    return this.get(id);
  }

  /** A write: the tool call becomes the most recent. */
  set(id: string, seen: ToolSeen): void {
    let slot = this.find(id);
    if (slot === NIL) slot = this.add(id);
    else this.touch(slot);
    // A kind past the interned codes (`codeOf` undefined) is below 0: the entry is kept as the object.
    const kind = seen.kind === undefined ? NO_KIND : (codeOf(seen.kind) ?? -2) + 1;
    if (
      seen.lastContent === undefined &&
      (seen.title === undefined || this.titles.fits(seen.title)) &&
      kind >= 0 &&
      plain(seen)
    ) {
      this.objects[slot] = undefined;
      this.kinds[slot] = kind;
      this.titled[slot] = seen.title === undefined ? 0 : 1;
      if (seen.title !== undefined) this.titles.set(slot, seen.title);
    } else this.objects[slot] = seen;
  }

  /**
   * `set(id, {...get(id), title, kind})` for a string-only update (each absent: unchanged), written
   * in the columns without building the entry; false, having changed nothing, for an entry kept as
   * an object or values a compact entry cannot hold (the caller takes `get` and `set`).
   */
  patchStrings(id: string, title: string | undefined, kind: string | undefined): boolean {
    let slot = this.find(id);
    if (slot !== NIL && this.objects[slot] !== undefined) return false;
    const code = kind === undefined ? NO_KIND : (codeOf(kind) ?? -2) + 1;
    if (code < 0 || (title !== undefined && !this.titles.fits(title))) return false;
    if (slot === NIL) {
      slot = this.add(id);
      this.kinds[slot] = NO_KIND;
      this.titled[slot] = 0;
    } else this.touch(slot);
    if (kind !== undefined) this.kinds[slot] = code;
    if (title !== undefined) {
      this.titled[slot] = 1;
      this.titles.set(slot, title);
    }
    return true;
  }

  toJSON(): [string, ToolSeen][] {
    return this.slots().map((s) => [this.keyOf(s), this.objects[s] ?? this.rebuild(s)]);
  }

  private rebuild(slot: number): ToolSeen {
    const seen: ToolSeen = {};
    if (this.titled[slot] === 1) seen.title = this.titles.get(slot);
    const kind = this.kinds[slot] ?? NO_KIND;
    if (kind !== NO_KIND) seen.kind = valueOf(kind - 1);
    return seen;
  }
}

const SEEN_KEYS = new Set(["title", "kind", "lastContent"]);

/** No key beyond those a compact entry keeps. */
function plain(seen: ToolSeen): boolean {
  for (const k in seen) if (!SEEN_KEYS.has(k)) return false;
  return true;
}
