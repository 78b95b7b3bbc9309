// The tool calls a direction-A session remembers (limits.toolCalls), least recently written
// forgotten first, finished ones before running ones. Most tool calls of a stream are only ever seen
// by the fast path (engine/fast-lines.ts): announced by a string-only `tool_call_update` and updated
// by more of them. Such a call is kept compact: its title in an arena, its status and kind as codes,
// and which of the three it has in which order (memory budget, issue 9: a full entry is several
// objects that outlive young collections). Any other use of it (`get`, `peek`, the full path) makes
// it a full `ToolCallView` first, equal to the one the full path would have built. A full entry
// (`ToolCallEntry`, below) may hold its latest member updates as text until its view is read.
import { NIL, SlotTable, TextColumn, TITLE_UNITS, codeOf, extended, valueOf } from "../../slot-table.js";
import type { ToolCallView } from "../session.js";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { isObject, setOwn, type Obj } from "../../../base/json.js";
import type { ShownContent } from "../../../convert/tool-call.js";
import type { Converted } from "../../../convert/result.js";

/** The fields a compact entry may have besides its id, by code. */
const TITLE = 1;
const STATUS = 2;
const KIND = 3;
/** Bits per field code in `order`. */
const FIELD_BITS = 2;

export class ToolCallTable extends SlotTable {
  /** The full entry of a slot; undefined: the slot is compact. */
  private full: (ToolCallView | undefined)[] = [];
  /** Field codes in the order the agent first set them, FIELD_BITS each, the first lowest. */
  private order = new Uint8Array(0);
  private status = new Uint8Array(0);
  private kind = new Uint8Array(0);
  private readonly titles = new TextColumn(TITLE_UNITS);

  protected resize(capacity: number): void {
    this.full.length = capacity;
    this.order = extended(this.order, new Uint8Array(capacity));
    this.status = extended(this.status, new Uint8Array(capacity));
    this.kind = extended(this.kind, new Uint8Array(capacity));
    this.titles.resize(capacity);
  }

  protected release(slot: number): void {
    this.full[slot] = undefined;
  }

  /** The entry of `toolCallId` (a compact one made full), undefined if unknown. A read: no refresh. */
  get(toolCallId: string): ToolCallView | undefined {
    const slot = this.find(toolCallId);
    return slot === NIL ? undefined : this.fullAt(slot, toolCallId);
  }

  peek(toolCallId: string): ToolCallView | undefined {
    return this.get(toolCallId);
  }

  /** A write: `t` is the entry of `toolCallId` now, the most recent one. */
  set(toolCallId: string, t: ToolCallView): void {
    const slot = this.find(toolCallId);
    if (slot === NIL) this.full[this.add(toolCallId)] = t;
    else {
      this.full[slot] = t;
      this.touch(slot);
    }
  }

  retire(toolCallId: string): void {
    const slot = this.find(toolCallId);
    if (slot !== NIL) this.retireSlot(slot);
  }

  /** The full entry of `slot`; undefined when it is compact (announced, not synthetic, nothing pending). */
  fullEntry(slot: number): ToolCallView | undefined {
    return this.full[slot];
  }

  /**
   * Records `patch` (the fast path's: string values only, its `toolCallId` the key) as a compact
   * entry: a new one announced by it (`slot` NIL, added as the most recent) or the compact entry at
   * `slot` (no refresh, as a patch of a full entry's view). Returns the slot; NIL, having changed
   * nothing, when the result would not be compact, and the caller patches a full entry.
   */
  patchCompact(slot: number, toolCallId: string, patch: Obj): number {
    for (const k in patch) {
      const v = patch[k];
      if (k === "toolCallId") {
        if (v !== toolCallId) return NIL;
        continue;
      }
      if (typeof v !== "string") return NIL;
      if (k === "title" ? !this.titles.fits(v) : (k !== "status" && k !== "kind") || codeOf(v) === undefined)
        return NIL;
    }
    if (slot === NIL) {
      slot = this.add(toolCallId);
      this.full[slot] = undefined;
      this.order[slot] = 0;
    }
    for (const k in patch) {
      if (k === "toolCallId") continue;
      const v = patch[k] as string;
      const field = k === "title" ? TITLE : k === "status" ? STATUS : KIND;
      if (!this.has(slot, field))
        this.order[slot] = (this.order[slot] ?? 0) | (field << (FIELD_BITS * this.fieldCount(slot)));
      if (field === TITLE) this.titles.set(slot, v);
      else (field === STATUS ? this.status : this.kind)[slot] = codeOf(v) ?? 0;
    }
    return slot;
  }

  /** The status a compact entry has, if any. */
  statusOf(slot: number): string | undefined {
    return this.has(slot, STATUS) ? valueOf(this.status[slot] ?? 0) : undefined;
  }

  /** Every full entry (compact ones have no timers or pending chunks). */
  fullEntries(): ToolCallView[] {
    const out: ToolCallView[] = [];
    for (const s of this.slots()) {
      const t = this.full[s];
      if (t !== undefined) out.push(t);
    }
    return out;
  }

  /** The entries as plain data, in forgetting order, compact ones as their full form (state comparisons). */
  toJSON(): [string, Obj, boolean][] {
    return this.slots().map((s) => [
      this.keyOf(s),
      (this.full[s] ?? this.expand(s, this.keyOf(s))).toJSON(),
      this.isRetired(s),
    ]);
  }

  private fullAt(slot: number, toolCallId: string): ToolCallView {
    let t = this.full[slot];
    if (t === undefined) {
      t = this.expand(slot, toolCallId);
      this.full[slot] = t;
    }
    return t;
  }

  /** The full entry a compact slot stands for: the view's keys in the order the full path sets them. */
  private expand(slot: number, toolCallId: string): ToolCallView {
    const view: Obj = { toolCallId };
    for (let o = this.order[slot] ?? 0; o !== 0; o >>= FIELD_BITS) {
      const field = o & ((1 << FIELD_BITS) - 1);
      const name = field === TITLE ? "title" : field === STATUS ? "status" : "kind";
      view[name] =
        field === TITLE ? this.titles.get(slot) : valueOf((field === STATUS ? this.status : this.kind)[slot] ?? 0);
    }
    return new ToolCallEntry(view, true);
  }

  private has(slot: number, field: number): boolean {
    for (let o = this.order[slot] ?? 0; o !== 0; o >>= FIELD_BITS)
      if ((o & ((1 << FIELD_BITS) - 1)) === field) return true;
    return false;
  }

  private fieldCount(slot: number): number {
    let n = 0;
    for (let o = this.order[slot] ?? 0; o !== 0; o >>= FIELD_BITS) n++;
    return n;
  }
}

// ---------------------------------------------------------------- a tool call's entry
// A full entry (`ToolCallView`) holds the materialized v2 state, whose latest patches may still be
// the text the agent wrote them as. The member fast path (updates/tool-calls.ts
// `fastToolCallMembers`) proves such a patch on the line's bytes and forwards the bytes; the view
// needs the patch parsed only when something reads it (a later diff or terminal of the call, a
// permission request, a completion that repeats its content), which for most tool calls never
// happens. Reading `view` first applies the deferred patches, in order, as the full path applied
// each when it came: what any reader sees is the view the full path leaves.

/**
 * Patches deferred at most, and their text's length: a tool call updated on and on is parsed in
 * batches, so that its entry holds a few lines' text, never a stream's, and no more than about one
 * long line's (the view it stands for holds as much: memory, issue 9).
 */
const MAX_DEFERRED = 8;
const MAX_DEFERRED_CHARS = 16 * 1024;

/** Apply a v2 tool-call patch to the materialized view (omit = unchanged, null = reset, T §2.4). */
export function applyToolCallPatch(view: Obj, patch: Obj): void {
  // Own keys in `Object.entries` order, without building the entries (once per tool call update).
  for (const k in patch) {
    if (!Object.hasOwn(patch, k) || k === "sessionUpdate") continue;
    const v = patch[k];
    if (k === "_meta") {
      if (v === null) delete view._meta;
      else if (isObject(v)) {
        const meta: Obj = isObject(view._meta) ? { ...view._meta } : {};
        for (const [mk, mv] of Object.entries(v)) {
          if (mv === null) Reflect.deleteProperty(meta, mk);
          else setOwn(meta, mk, mv);
        }
        view._meta = meta;
      }
      continue;
    }
    if (v === null) Reflect.deleteProperty(view, k);
    else view[k] = v;
  }
}

export class ToolCallEntry implements ToolCallView {
  private materialized: Obj;
  /** The text of each update not applied yet (a `tool_call_update` object, its tag included), oldest first. */
  private deferred: string[] | undefined = undefined;
  /** The status the last deferred patch that had one set (a string: `defer` is given nothing else). */
  private deferredStatus: string | undefined = undefined;
  /** The deferred texts' length. */
  private deferredChars = 0;
  announced: boolean;
  synthetic = false;
  pendingChunks: v2.ToolCallContentChunk[] = [];
  pendingMeta: unknown = undefined;
  flushTimer: NodeJS.Timeout | undefined = undefined;
  omittedItems?: number;

  constructor(view: Obj, announced: boolean) {
    this.materialized = view;
    this.announced = announced;
  }

  get view(): Obj {
    if (this.deferred !== undefined) this.applyDeferred();
    return this.materialized;
  }

  set view(view: Obj) {
    this.materialized = view;
    this.deferred = undefined;
    this.deferredStatus = undefined;
    this.deferredChars = 0;
  }

  /**
   * Some patch is deferred. The member fast path defers only patches that leave no terminal in the
   * content (text items, or none), so a view with deferred patches references no terminal.
   */
  get deferring(): boolean {
    return this.deferred !== undefined;
  }

  /** The view's `status`, without applying what is deferred. */
  get status(): unknown {
    // A deferred patch without a status leaves it as it was (nulls are never deferred).
    return this.deferredStatus ?? this.materialized.status;
  }

  /**
   * Records the update `text` (a `tool_call_update` the caller proved: an object of this tool call,
   * no null member) to be applied when the view is read; `status` is its status member, if any.
   */
  defer(text: string, status: string | undefined): void {
    const deferred = (this.deferred ??= []);
    deferred.push(text);
    this.deferredChars += text.length;
    if (status !== undefined) this.deferredStatus = status;
    if (deferred.length >= MAX_DEFERRED || this.deferredChars > MAX_DEFERRED_CHARS) this.applyDeferred();
  }

  private applyDeferred(): void {
    const deferred = this.deferred ?? [];
    this.deferred = undefined;
    this.deferredStatus = undefined;
    this.deferredChars = 0;
    for (const text of deferred) {
      const patch = JSON.parse(text) as Obj;
      delete patch.sessionUpdate;
      applyToolCallPatch(this.materialized, patch);
    }
  }

  /** The entry as plain data, as the full path leaves it (state comparisons). */
  toJSON(): Obj {
    const out: Obj = {
      view: this.view,
      announced: this.announced,
      synthetic: this.synthetic,
      pendingChunks: this.pendingChunks,
      pendingMeta: this.pendingMeta,
      flushTimer: this.flushTimer,
    };
    if (this.omittedItems !== undefined) out.omittedItems = this.omittedItems;
    return out;
  }
}

// ---------------------------------------------------------------- content shown (limits.shownContents)
// The tool-call content lists with a diff a direction-A connection last rendered toward v1: a
// completion that repeats a tool call's content (`repeatsContent`) shows the client what it was
// shown, without the diffs' files read again (a syscall each) nor their texts worked out again. Few
// and small (a rendering holds the files' texts): by identity, as the view's content array is
// replaced, never changed in place, when the content changes (a patch, a chunk), so the same array
// is the same content.

export class ShownContents implements ShownContent {
  private readonly sources: (readonly unknown[] | undefined)[];
  private readonly renderings: (Converted<unknown[]> | undefined)[];
  /** The slot the next rendering takes: the oldest. */
  private next = 0;

  constructor(
    private readonly capacity: number,
    /** Characters of text a remembered rendering holds at most (`limits.shownContentChars`). */
    private readonly maxChars: number,
  ) {
    this.sources = new Array<readonly unknown[] | undefined>(capacity).fill(undefined);
    this.renderings = new Array<Converted<unknown[]> | undefined>(capacity).fill(undefined);
  }

  recall(content: readonly unknown[]): Converted<unknown[]> | undefined {
    for (let i = 0; i < this.capacity; i++) if (this.sources[i] === content) return this.renderings[i];
    return undefined;
  }

  remember(content: readonly unknown[], rendered: Converted<unknown[]>): void {
    if (this.capacity <= 0) return;
    let slot = this.sources.indexOf(content);
    if (textChars(rendered.value, this.maxChars) > this.maxChars) {
      // Too large to keep: nor is an earlier rendering of the same list.
      if (slot >= 0) this.sources[slot] = this.renderings[slot] = undefined;
      return;
    }
    if (slot < 0) {
      slot = this.next;
      this.next = (this.next + 1) % this.capacity;
    }
    this.sources[slot] = content;
    this.renderings[slot] = rendered;
  }

  /**
   * Left out of state comparisons: what it holds is what the client was shown, kept to show it again.
   * A fresh rendering gives the same only while the diffs' files stay as they were.
   */
  toJSON(): undefined {
    return undefined;
  }
}

/** The characters of the strings in `value` (keys included), counted until they pass `budget`. */
function textChars(value: unknown, budget: number): number {
  let n = 0;
  const walk = (v: unknown): void => {
    if (n > budget) return;
    if (typeof v === "string") n += v.length;
    else if (Array.isArray(v)) for (const x of v) walk(x);
    else if (isObject(v))
      for (const k in v)
        if (Object.hasOwn(v, k)) {
          n += k.length;
          walk(v[k]);
        }
  };
  walk(value);
  return n;
}
