// The keys and write order of a bounded least-recently-written table, kept in typed arrays instead of
// an object per entry (memory budget, issue 9). A session remembers up to thousands of tool calls
// and message ids; under a long stream each entry outlives several young collections, and V8 grows
// its young generation to the maximum once enough bytes have survived, whatever is still alive. Per
// entry here: no node, no key string (its UTF-16 code units are copied into an arena), no hash-table
// entry; what an owner keeps per slot lives in its own columns (`resize`, `release`). The arrays are
// reallocated only when the table doubles, up to its limit.
//
// Semantics are LruMap's (bounded.ts): a write refreshes an entry, a read does not; retired entries
// are forgotten before live ones, oldest first. test/engine/slot-table.test.ts checks it against the
// same model.

/** No slot. */
export const NIL = -1;
/** Code units of a key kept in the arena; a longer key is kept as a string. */
const KEY_UNITS = 40;
const FREE = 0;
const LIVE = 1;
const RETIRED = 2;
const FIRST_CAPACITY = 8;

export abstract class SlotTable {
  private capacity = 0;
  private keyLength = new Int32Array(0);
  private keyUnits = new Uint16Array(0);
  private longKeys: (string | undefined)[] = [];
  private tags = new Uint8Array(0);
  private hashes = new Int32Array(0);
  private prev = new Int32Array(0);
  private next = new Int32Array(0);
  private list = new Uint8Array(0);
  /** Open addressing, linear probing: slot + 1, 0 for an empty cell (deletion shifts back, no tombstones). */
  private index = new Int32Array(0);
  private freeHead = NIL;
  /** Heads and tails of the live and retired lists, oldest first (index LIVE, RETIRED). */
  private readonly heads = [NIL, NIL, NIL];
  private readonly tails = [NIL, NIL, NIL];
  private count = 0;
  /**
   * The last key found or added, and its slot: a stream names one message or tool call line after
   * line, so most look-ups are the last one again (no hash, no key comparison). Forgotten with its slot.
   * A key found absent is remembered too (its slot NIL, its hash kept): a new message or tool call
   * is looked up several times before it is added (its kind, its record), and the add hashes it once.
   * Only `add` makes a key present, and it remembers what it added.
   */
  private lastKey: string | undefined;
  private lastTag = 0;
  private lastSlot = NIL;
  private lastHash = 0;

  constructor(readonly limit: number) {
    if (!(limit >= 1)) throw new RangeError(`SlotTable: limit ${limit} is below 1`);
  }

  /** The owner's columns to `capacity` slots, slots below the old capacity kept. */
  protected abstract resize(capacity: number): void;
  /** Slot `slot` was forgotten: its columns must let go of what they hold. */
  protected abstract release(slot: number): void;

  get size(): number {
    return this.count;
  }

  /** The slot of `key` under `tag` (a small number the owner adds to its key), or NIL. */
  find(key: string, tag = 0): number {
    if (key === this.lastKey && tag === this.lastTag) return this.lastSlot;
    if (this.count === 0) return NIL;
    const h = hashKey(key, tag);
    const mask = this.index.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const cell = this.index[i] ?? 0;
      if (cell === 0) return this.remember(key, tag, NIL, h);
      const slot = cell - 1;
      if (this.hashes[slot] === h && this.tags[slot] === tag && this.keyIs(slot, key))
        return this.remember(key, tag, slot, h);
    }
  }

  private remember(key: string, tag: number, slot: number, hash: number): number {
    this.lastKey = key;
    this.lastTag = tag;
    this.lastSlot = slot;
    this.lastHash = hash;
    return slot;
  }

  /** A new live entry for `key` (absent: `find` said NIL), the least recently written one forgotten if full. */
  protected add(key: string, tag = 0): number {
    if (this.count >= this.limit) this.forgetOldest();
    if (this.freeHead === NIL) this.grow();
    const slot = this.freeHead;
    this.freeHead = this.next[slot] ?? NIL;
    // The key `find` just found absent (the usual caller) is not hashed again.
    const h = key === this.lastKey && tag === this.lastTag && this.lastSlot === NIL ? this.lastHash : hashKey(key, tag);
    this.hashes[slot] = h;
    this.tags[slot] = tag;
    this.keyLength[slot] = key.length;
    if (key.length > KEY_UNITS) this.longKeys[slot] = key;
    else for (let i = 0, base = slot * KEY_UNITS; i < key.length; i++) this.keyUnits[base + i] = key.charCodeAt(i);
    this.append(slot, LIVE);
    const mask = this.index.length - 1;
    let i = h & mask;
    while (this.index[i] !== 0) i = (i + 1) & mask;
    this.index[i] = slot + 1;
    this.count++;
    return this.remember(key, tag, slot, h);
  }

  /** A write: `slot` becomes the most recent live entry. */
  protected touch(slot: number): void {
    if (this.list[slot] === LIVE && this.tails[LIVE] === slot) return;
    this.unlink(slot);
    this.append(slot, LIVE);
  }

  /** Keep the entry, but let it be forgotten before every live one. */
  retireSlot(slot: number): void {
    if (this.list[slot] !== LIVE) return;
    this.unlink(slot);
    this.append(slot, RETIRED);
  }

  /** The key of `slot`. */
  keyOf(slot: number): string {
    const n = this.keyLength[slot] ?? 0;
    if (n > KEY_UNITS) return this.longKeys[slot] ?? "";
    const base = slot * KEY_UNITS;
    return String.fromCharCode(...this.keyUnits.subarray(base, base + n));
  }

  tagOf(slot: number): number {
    return this.tags[slot] ?? 0;
  }

  isRetired(slot: number): boolean {
    return this.list[slot] === RETIRED;
  }

  /** Occupied slots, retired first, each list oldest first (a snapshot: callers may write). */
  slots(): number[] {
    const out: number[] = [];
    for (const l of [RETIRED, LIVE]) for (let s = this.heads[l] ?? NIL; s !== NIL; s = this.next[s] ?? NIL) out.push(s);
    return out;
  }

  /** Forget every entry. */
  clear(): void {
    for (const s of this.slots()) this.remove(s);
  }

  /** Forget `slot`. */
  protected remove(slot: number): void {
    if (slot === this.lastSlot) this.lastKey = undefined;
    this.unlink(slot);
    this.unindex(slot);
    this.longKeys[slot] = undefined;
    this.list[slot] = FREE;
    this.next[slot] = this.freeHead;
    this.freeHead = slot;
    this.count--;
    this.release(slot);
  }

  private forgetOldest(): void {
    const oldest = this.heads[RETIRED] !== NIL ? (this.heads[RETIRED] ?? NIL) : (this.heads[LIVE] ?? NIL);
    if (oldest !== NIL) this.remove(oldest);
  }

  private keyIs(slot: number, key: string): boolean {
    const n = this.keyLength[slot];
    if (n !== key.length) return false;
    if (n > KEY_UNITS) return this.longKeys[slot] === key;
    for (let i = 0, base = slot * KEY_UNITS; i < n; i++)
      if (this.keyUnits[base + i] !== key.charCodeAt(i)) return false;
    return true;
  }

  private append(slot: number, l: number): void {
    this.list[slot] = l;
    this.prev[slot] = this.tails[l] ?? NIL;
    this.next[slot] = NIL;
    if (this.tails[l] !== NIL) this.next[this.tails[l] ?? NIL] = slot;
    else this.heads[l] = slot;
    this.tails[l] = slot;
  }

  private unlink(slot: number): void {
    const l = this.list[slot] ?? FREE;
    const p = this.prev[slot] ?? NIL;
    const n = this.next[slot] ?? NIL;
    if (p !== NIL) this.next[p] = n;
    else this.heads[l] = n;
    if (n !== NIL) this.prev[n] = p;
    else this.tails[l] = p;
  }

  /** Take `slot` out of the index, shifting back the cells its probe run displaced. */
  private unindex(slot: number): void {
    const index = this.index;
    const mask = index.length - 1;
    let i = (this.hashes[slot] ?? 0) & mask;
    while (index[i] !== slot + 1) i = (i + 1) & mask;
    for (let j = (i + 1) & mask; index[j] !== 0; j = (j + 1) & mask) {
      const home = (this.hashes[(index[j] ?? 0) - 1] ?? 0) & mask;
      // The cell at j may move to the hole at i when its home is not cyclically within (i, j].
      if (((j - home) & mask) >= ((j - i) & mask)) {
        index[i] = index[j] ?? 0;
        i = j;
      }
    }
    index[i] = 0;
  }

  private grow(): void {
    const old = this.capacity;
    const capacity = Math.min(this.limit, Math.max(FIRST_CAPACITY, old * 2));
    this.capacity = capacity;
    this.keyLength = extended(this.keyLength, new Int32Array(capacity));
    this.keyUnits = extended(this.keyUnits, new Uint16Array(capacity * KEY_UNITS));
    this.longKeys.length = capacity;
    this.tags = extended(this.tags, new Uint8Array(capacity));
    this.hashes = extended(this.hashes, new Int32Array(capacity));
    this.prev = extended(this.prev, new Int32Array(capacity));
    this.next = extended(this.next, new Int32Array(capacity));
    this.list = extended(this.list, new Uint8Array(capacity));
    for (let s = capacity - 1; s >= old; s--) {
      this.next[s] = this.freeHead;
      this.freeHead = s;
    }
    // At most half full, so probe runs stay short.
    let cells = 1;
    while (cells < capacity * 2) cells *= 2;
    this.index = new Int32Array(cells);
    const mask = cells - 1;
    for (let s = 0; s < old; s++) {
      if (this.list[s] === FREE) continue;
      let i = (this.hashes[s] ?? 0) & mask;
      while (this.index[i] !== 0) i = (i + 1) & mask;
      this.index[i] = s + 1;
    }
    this.resize(capacity);
  }
}

/** `to` with `from` copied to its start. */
export function extended<T extends Int32Array | Uint16Array | Uint8Array | Float64Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

/** FNV-1a over the code units, the tag mixed in first. */
function hashKey(key: string, tag: number): number {
  let h = Math.imul(0x811c9dc5 ^ tag, 0x01000193);
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h ^ (h >>> 16);
}

/** Code units of a tool call's title kept in a slot; a longer title is kept otherwise. */
export const TITLE_UNITS = 120;

/**
 * A short string per slot, its code units in an arena of `units` per slot: a column for a
 * SlotTable owner. `set` refuses a longer string (the owner keeps that entry otherwise).
 */
export class TextColumn {
  private lengths = new Int32Array(0);
  private arena = new Uint16Array(0);

  constructor(readonly units: number) {}

  resize(capacity: number): void {
    this.lengths = extended(this.lengths, new Int32Array(capacity));
    this.arena = extended(this.arena, new Uint16Array(capacity * this.units));
  }

  fits(text: string): boolean {
    return text.length <= this.units;
  }

  /** Keep `text` (it `fits`) at `slot`. */
  set(slot: number, text: string): void {
    this.lengths[slot] = text.length;
    for (let i = 0, base = slot * this.units; i < text.length; i++) this.arena[base + i] = text.charCodeAt(i);
  }

  get(slot: number): string {
    const base = slot * this.units;
    return String.fromCharCode(...this.arena.subarray(base, base + (this.lengths[slot] ?? 0)));
  }
}

/**
 * Small codes for the values of enumerations a peer sends as strings (a tool call's status and
 * kind), shared by the process and bounded: past MAX_CODES distinct values, a value has no code and
 * its owner keeps the entry otherwise.
 */
const interned: string[] = [];
const codes = new Map<string, number>();
const MAX_CODES = 64;

/** The code of `value`, assigned on first sight; undefined once the codes are used up. */
export function codeOf(value: string): number | undefined {
  let c = codes.get(value);
  if (c === undefined && interned.length < MAX_CODES) {
    c = interned.length;
    interned.push(value);
    codes.set(value, c);
  }
  return c;
}

/** The value of a code `codeOf` gave. */
export function valueOf(code: number): string {
  const v = interned[code];
  if (v === undefined) throw new RangeError(`no interned value ${code}`);
  return v;
}
