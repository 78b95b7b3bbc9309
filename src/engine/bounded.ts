// Per-connection and per-session state must stay bounded however long a session runs and whatever
// ids a peer invents (issue 8 item 4, issue 10 item 5; the bounds are in mappings/limits.ts).

/** An entry of an LruMap, linked in write order within its list (live or retired). */
interface LruNode<K, V> {
  readonly key: K;
  value: V;
  retired: boolean;
  prev: LruNode<K, V> | undefined;
  next: LruNode<K, V> | undefined;
}

/** A list of nodes in write order, oldest first. */
class WriteOrder<K, V> {
  head: LruNode<K, V> | undefined;
  tail: LruNode<K, V> | undefined;

  append(n: LruNode<K, V>): void {
    n.prev = this.tail;
    n.next = undefined;
    if (this.tail) this.tail.next = n;
    else this.head = n;
    this.tail = n;
  }

  unlink(n: LruNode<K, V>): void {
    if (n.prev) n.prev.next = n.next;
    else this.head = n.next;
    if (n.next) n.next.prev = n.prev;
    else this.tail = n.prev;
    n.prev = undefined;
    n.next = undefined;
  }

  into(out: V[]): void {
    for (let n = this.head; n; n = n.next) out.push(n.value);
  }
}

/**
 * A map that forgets its least recently written entries: reads do not reorder (they are on the
 * per-update hot path), writes refresh. An entry can be `retire`d (a finished tool call): retired
 * entries are forgotten before any live one, oldest retirement first. A rewrite relinks its entry
 * instead of deleting and re-inserting the key: a stream rewriting a few keys (a message's state,
 * chunk after chunk) churns no hash table, whose rebuilt backing stores would otherwise outlive
 * young collections (memory budget, issue 9).
 */
export class LruMap<K, V> {
  private readonly nodes = new Map<K, LruNode<K, V>>();
  private readonly live = new WriteOrder<K, V>();
  private readonly retired = new WriteOrder<K, V>();

  constructor(readonly limit: number) {}

  get(key: K): V | undefined {
    return this.nodes.get(key)?.value;
  }

  peek(key: K): V | undefined {
    return this.get(key);
  }

  set(key: K, value: V): void {
    const n = this.nodes.get(key);
    if (n === undefined) {
      const fresh: LruNode<K, V> = { key, value, retired: false, prev: undefined, next: undefined };
      this.nodes.set(key, fresh);
      this.live.append(fresh);
      this.trim();
      return;
    }
    n.value = value;
    if (n === this.live.tail) return;
    (n.retired ? this.retired : this.live).unlink(n);
    n.retired = false;
    this.live.append(n);
  }

  /** Keep the entry, but let it be forgotten before every live one (a late read still finds it). */
  retire(key: K): void {
    const n = this.nodes.get(key);
    if (n === undefined || n.retired) return;
    this.live.unlink(n);
    n.retired = true;
    this.retired.append(n);
  }

  has(key: K): boolean {
    return this.nodes.has(key);
  }

  delete(key: K): void {
    const n = this.nodes.get(key);
    if (n === undefined) return;
    (n.retired ? this.retired : this.live).unlink(n);
    this.nodes.delete(key);
  }

  get size(): number {
    return this.nodes.size;
  }

  /** A snapshot, retired entries first, each list oldest first: callers may write while they walk it. */
  values(): IterableIterator<V> {
    const out: V[] = [];
    this.retired.into(out);
    this.live.into(out);
    return out.values();
  }

  clear(): void {
    this.nodes.clear();
    this.live.head = this.live.tail = undefined;
    this.retired.head = this.retired.tail = undefined;
  }

  private trim(): void {
    while (this.nodes.size > this.limit) {
      const oldest = this.retired.head ?? this.live.head;
      if (oldest === undefined) return;
      this.delete(oldest.key);
    }
  }
}

/**
 * The sessions of one connection, at most `limit` (`--max-sessions`). A session the client uses is
 * the most recent; room is made by forgetting the least recently used session that `idle` allows
 * (closed ones first): its translation state only, the agent keeps the session. Sessions with a turn
 * or a load in flight are never forgotten, so when all are busy nothing new is admitted.
 */
export class SessionTable<S> {
  private readonly map = new Map<string, S>();

  constructor(
    readonly limit: number,
    /** May this session's state be forgotten now (no turn, no load in flight)? */
    private readonly idle: (s: S) => boolean,
    /** Whether the session is closed: forgotten before any open one. */
    private readonly closed: (s: S) => boolean = () => false,
    /** Called with a forgotten session (timers to clear). */
    private readonly onForget: (s: S) => void = () => undefined,
  ) {}

  get(id: string): S | undefined {
    return this.map.get(id);
  }

  /** The session, created if unknown. Callers `admit` first; this never refuses. */
  obtain(id: string, create: () => S): S {
    let s = this.map.get(id);
    if (s === undefined) {
      s = create();
      this.map.set(id, s);
    }
    return s;
  }

  /**
   * Room for session `id` (`undefined`: a session whose id the agent has not chosen yet). A known
   * session becomes the most recently used. With `evict`, an idle session may be forgotten to make
   * room; false when there is none (the caller refuses or drops).
   */
  admit(id: string | undefined, evict: boolean): boolean {
    if (id !== undefined) {
      const s = this.map.get(id);
      if (s !== undefined) {
        this.map.delete(id);
        this.map.set(id, s);
        return true;
      }
    }
    if (this.map.size < this.limit) return true;
    return evict && this.forgetOne();
  }

  /** Known, or room without forgetting anything; no reordering (the per-update hot path). */
  fits(id: string): boolean {
    return this.map.has(id) || this.map.size < this.limit;
  }

  private forgetOne(): boolean {
    let victim: string | undefined;
    for (const [id, s] of this.map) {
      if (this.closed(s)) {
        victim = id;
        break;
      }
      if (victim === undefined && this.idle(s)) victim = id;
    }
    if (victim === undefined) return false;
    const s = this.map.get(victim);
    this.map.delete(victim);
    if (s !== undefined) this.onForget(s);
    return true;
  }

  delete(id: string): void {
    this.map.delete(id);
  }

  values(): IterableIterator<S> {
    return this.map.values();
  }
}

/** `map` without its oldest entries beyond `limit` (insertion order; the same map when within it). */
export function keepNewest<K, V>(map: ReadonlyMap<K, V>, limit: number): ReadonlyMap<K, V> {
  if (map.size <= limit) return map;
  const out = new Map<K, V>();
  let skip = map.size - limit;
  for (const [k, v] of map) {
    if (skip > 0) skip--;
    else out.set(k, v);
  }
  return out;
}
