// The kind first seen under each message id of a session (T §2.1: direction A's `idKind`, B's
// `v1IdKinds`; limits.messageIds), in a slot table: one stream's message ids outlive young
// collections (memory budget, issue 9).
import { messageTable, type MessageKind } from "../../mappings/message.js";
import { NIL, SlotTable, extended } from "./slot-table.js";

const KINDS: readonly MessageKind[] = messageTable.kinds.map((k) => k.kind);

/** The code of a kind in a slot column: its row in mappings/message.ts. */
export function kindCode(kind: MessageKind): number {
  return KINDS.indexOf(kind);
}

/** The kind of a code `kindCode` gave. */
export function kindAt(code: number): MessageKind {
  const kind = KINDS[code];
  if (kind === undefined) throw new Error(`no message kind ${code}`);
  return kind;
}

/** Message id → the kind first seen under it. */
export class MessageKinds extends SlotTable {
  private kinds = new Uint8Array(0);

  protected resize(capacity: number): void {
    this.kinds = extended(this.kinds, new Uint8Array(capacity));
  }

  protected release(): void {}

  get(id: string): MessageKind | undefined {
    const slot = this.find(id);
    return slot === NIL ? undefined : kindAt(this.kinds[slot] ?? 0);
  }

  set(id: string, kind: MessageKind): void {
    let slot = this.find(id);
    if (slot === NIL) slot = this.add(id);
    else this.touch(slot);
    this.kinds[slot] = kindCode(kind);
  }

  toJSON(): [string, MessageKind][] {
    return this.slots().map((s) => [this.keyOf(s), kindAt(this.kinds[s] ?? 0)]);
  }
}
