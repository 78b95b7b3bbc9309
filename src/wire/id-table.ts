// Entries keyed by JSON-RPC request id, for the tables that gain and lose an entry per request
// (requests in flight, answers owed). Integer ids, which SDKs issue in sequence, live in a ring of
// slots indexed by their low bits; any other id, and an integer whose slot is taken, in a Map.
// Why not a Map alone: a Map gaining and losing an entry per request rebuilds its hash table every
// few requests, and behind a pass-through bridge those tables were most of what survived each young
// collection (about 12 of 14 KB; pauses 0.3 ms, the relay's 0.14; issue 9, `npm run bench:gc`),
// presumably because V8 links each replaced table to its successor for live iterators.
// A ring allocates nothing per request.
// Why it grows in place: the fields holding its arrays are never assigned again. V8 treats a field
// assigned once as a constant in optimized code that reaches the table through constants (the fast
// paths' closures); the first reassignment threw away the whole request path's optimized code
// (--trace-deopt: "marking dependent code ... code dependencies", eight functions), which a stall
// of a few ms at 2,000 requests/s triggered with the sixteen slots it started with.
import type { Id } from "./jsonrpc.js";

/** Ids the ring takes: integers a slot index is computed from without loss. */
const RING_MAX = 2 ** 31;
/** Slots at start (a power of two): 32 requests in flight before the first growth. */
const INITIAL_SLOTS = 64;

function inRing(id: Id): id is number {
  return typeof id === "number" && id >= 0 && id < RING_MAX && Number.isInteger(id);
}

interface Other<T> {
  value: T;
  readonly seq: number;
}

export class IdTable<T> {
  private readonly ids: number[];
  private readonly values: (T | undefined)[];
  /** Insertion order of each slot's entry, for `entries` (which a Map would give). */
  private readonly seqs: number[];
  private inRing = 0;
  private readonly others = new Map<Id, Other<T>>();
  private seq = 0;

  /** `slots`: a power of two (tests start small, to meet collisions and growth early). */
  constructor(slots = INITIAL_SLOTS) {
    this.ids = new Array<number>(slots).fill(-1);
    this.values = new Array<T | undefined>(slots).fill(undefined);
    this.seqs = new Array<number>(slots).fill(0);
  }

  get size(): number {
    return this.inRing + this.others.size;
  }

  private slotOf(id: Id): number {
    if (!inRing(id)) return -1;
    const slot = id & (this.ids.length - 1);
    return this.ids[slot] === id ? slot : -1;
  }

  get(id: Id): T | undefined {
    const slot = this.slotOf(id);
    if (slot >= 0) return this.values[slot];
    return this.others.size > 0 ? this.others.get(id)?.value : undefined;
  }

  has(id: Id): boolean {
    return this.slotOf(id) >= 0 || (this.others.size > 0 && this.others.has(id));
  }

  set(id: Id, value: T): void {
    const slot = this.slotOf(id);
    if (slot >= 0) {
      this.values[slot] = value;
      return;
    }
    const other = this.others.size > 0 ? this.others.get(id) : undefined;
    if (other !== undefined) {
      other.value = value;
      return;
    }
    const seq = this.seq++;
    if (inRing(id)) {
      // Half full at most: a sequence of ids then rarely meets an entry still in its slot.
      if (2 * (this.inRing + 1) > this.ids.length) this.grow();
      const free = id & (this.ids.length - 1);
      if (this.ids[free] === -1) {
        this.ids[free] = id + 0; // -0 as 0, as a Map keys it
        this.values[free] = value;
        this.seqs[free] = seq;
        this.inRing++;
        return;
      }
    }
    this.others.set(id, { value, seq });
  }

  delete(id: Id): boolean {
    const slot = this.slotOf(id);
    if (slot >= 0) {
      this.ids[slot] = -1;
      this.values[slot] = undefined;
      this.inRing--;
      return true;
    }
    return this.others.size > 0 && this.others.delete(id);
  }

  /** The entries in insertion order, as a snapshot (callers may delete while they walk it). */
  entries(): [Id, T][] {
    const all: [number, Id, T][] = [];
    for (let slot = 0; slot < this.ids.length; slot++) {
      const id = this.ids[slot] ?? -1;
      if (id !== -1) all.push([this.seqs[slot] ?? 0, id, this.values[slot] as T]);
    }
    for (const [id, o] of this.others) all.push([o.seq, id, o.value]);
    return all.sort((a, b) => a[0] - b[0]).map(([, id, value]) => [id, value]);
  }

  clear(): void {
    this.ids.fill(-1);
    this.values.fill(undefined);
    this.inRing = 0;
    this.others.clear();
  }

  /**
   * Twice the slots, in the same arrays; an entry's slot among them is its old one or that plus the
   * old count (its next bit of id), which is empty: the upper half is new.
   */
  private grow(): void {
    const { ids, values, seqs } = this;
    const old = ids.length;
    for (let i = 0; i < old; i++) {
      ids.push(-1);
      values.push(undefined);
      seqs.push(0);
    }
    for (let slot = 0; slot < old; slot++) {
      const id = ids[slot] ?? -1;
      if (id === -1 || (id & old) === 0) continue;
      ids[slot + old] = id;
      values[slot + old] = values[slot];
      seqs[slot + old] = seqs[slot] ?? 0;
      ids[slot] = -1;
      values[slot] = undefined;
    }
  }
}
