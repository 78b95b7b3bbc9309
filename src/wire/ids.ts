// Outbound request ids: one allocator per link. The bridge never reuses a peer's ids; it issues its
// own integers and keeps what each one stands for until the answer arrives (H §7.2).
import { IdTable } from "./id-table.js";

export class PendingRequests<T> {
  private next = 1;
  private readonly pending = new IdTable<T>();

  /** Allocate a fresh id for `entry`. */
  add(entry: T): number {
    const id = this.next++;
    this.pending.set(id, entry);
    return id;
  }

  /** Remove and return the entry for an answered id (only ids this allocator issued). */
  take(id: unknown): T | undefined {
    if (typeof id !== "number") return undefined;
    const e = this.pending.get(id);
    if (e !== undefined) this.pending.delete(id);
    return e;
  }

  peek(id: unknown): T | undefined {
    return typeof id === "number" ? this.pending.get(id) : undefined;
  }

  /** Remove every entry (connection lost) and return them. */
  drain(): [number, T][] {
    const all = this.pending.entries() as [number, T][];
    this.pending.clear();
    return all;
  }

  get size(): number {
    return this.pending.size;
  }
}
