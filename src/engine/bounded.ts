// Per-connection and per-session state must stay bounded however long a session runs and whatever
// ids a peer invents (issue 8 item 4, issue 10 item 5; the bounds are in mappings/limits.ts).

/**
 * A map that forgets its least recently written entries: reads do not reorder (they are on the
 * per-update hot path), writes refresh. An entry can be `retire`d (a finished tool call): retired
 * entries are forgotten before any live one, oldest retirement first.
 */
export class LruMap<K, V> {
  private readonly live = new Map<K, V>();
  private readonly retired = new Map<K, V>();
  /** The key last written to `live` (its last entry, unless deleted or retired since). */
  private newest: K | undefined;

  constructor(readonly limit: number) {}

  get(key: K): V | undefined {
    return this.live.get(key) ?? this.retired.get(key);
  }

  peek(key: K): V | undefined {
    return this.get(key);
  }

  set(key: K, value: V): void {
    // The newest entry written again (a streamed message, chunk after chunk): it stays newest.
    if (key === this.newest && this.live.has(key)) {
      this.live.set(key, value);
      return;
    }
    this.live.delete(key);
    this.retired.delete(key);
    this.live.set(key, value);
    this.newest = key;
    this.trim();
  }

  /** Keep the entry, but let it be forgotten before every live one (a late read still finds it). */
  retire(key: K): void {
    const v = this.live.get(key);
    if (v === undefined) return;
    this.live.delete(key);
    this.retired.delete(key);
    this.retired.set(key, v);
  }

  has(key: K): boolean {
    return this.live.has(key) || this.retired.has(key);
  }

  delete(key: K): void {
    this.live.delete(key);
    this.retired.delete(key);
  }

  get size(): number {
    return this.live.size + this.retired.size;
  }

  *values(): IterableIterator<V> {
    yield* this.retired.values();
    yield* this.live.values();
  }

  clear(): void {
    this.live.clear();
    this.retired.clear();
  }

  private trim(): void {
    while (this.live.size + this.retired.size > this.limit) {
      const from = this.retired.size > 0 ? this.retired : this.live;
      const oldest = from.keys().next();
      if (oldest.done) return;
      from.delete(oldest.value);
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

  has(id: string): boolean {
    return this.map.has(id);
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

  get size(): number {
    return this.map.size;
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
