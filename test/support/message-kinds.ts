// The kind of a chunk or upsert `sessionUpdate` name, from the message table (tests only: the
// product dispatches through its own tables).
import { messageTable, type MessageKind } from "../../mappings/message.js";

export function kindOfUpdate(sessionUpdate: string): { kind: MessageKind; upsert: boolean } | undefined {
  const info = messageTable.kinds.find((k) => k.chunk === sessionUpdate || k.upsert === sessionUpdate);
  return info && { kind: info.kind, upsert: info.upsert === sessionUpdate };
}
