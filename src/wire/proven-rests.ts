// Long `session/update` lines a peer sends again, proven by what the full path proved before
// (pass-through, fast-lines.ts). An agent sends some large notifications again whole: Claude's
// adapter its 11–12 KB command list at every session start. A line of the update head
// (`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":` and a JSON string), whose
// bytes after that string are those of a line the full path parsed and forwarded as they were, is
// valid JSON nested as deep as that one, the same notification with another session id: one native
// comparison instead of a depth scan and a parse of kilobytes. The memory is a few rests, copied,
// the last one used first.
import { isUtf8 } from "node:buffer";
import { QUOTE, UPDATE_HEAD, asciiOrUtf8, literalEnd } from "./bytes.js";
import { stringEnd } from "./json-string.js";

/** Where a line's rest starts (after its session id's closing quote), or -1: not the update head, or no valid id string. */
function restStart(line: Buffer): number {
  const head = literalEnd(line, 0, UPDATE_HEAD);
  if (head < 0 || line[head] !== QUOTE) return -1;
  const end = stringEnd(line, head, false);
  // The id's bytes must be UTF-8 on their own (the rest was, and starts with ASCII).
  return end >= 0 && asciiOrUtf8(line, head, end) ? end : -1;
}

export class ProvenRests {
  private readonly rests: Buffer[] = [];

  /**
   * @param slots rests kept, the least recently used forgotten first
   * @param minBytes lines shorter than this are not kept (the pass-through scan takes them)
   * @param maxBytes nor rests longer than this (the memory stays small)
   */
  constructor(
    private readonly slots: number,
    private readonly minBytes: number,
    private readonly maxBytes: number,
  ) {}

  /** `line` was parsed and forwarded as its very bytes: its rest proves the next line that ends so. */
  remember(line: Buffer): void {
    if (line.length < this.minBytes) return;
    const at = restStart(line);
    if (at < 0 || line.length - at > this.maxBytes || !isUtf8(line)) return;
    if (this.found(line, at)) return;
    this.rests.unshift(Buffer.from(line.subarray(at)));
    if (this.rests.length > this.slots) this.rests.pop();
  }

  /** `line` is a remembered line with another session id (or the same): forwarded as it is, as that one was. */
  proves(line: Buffer): boolean {
    if (this.rests.length === 0 || line.length < this.minBytes) return false;
    const at = restStart(line);
    return at >= 0 && this.found(line, at);
  }

  /** `line`'s rest from `at` is one of the rests (moved to the front). */
  private found(line: Buffer, at: number): boolean {
    const n = line.length - at;
    for (let k = 0; k < this.rests.length; k++) {
      const r = this.rests[k] as Buffer;
      if (r.length !== n || line.compare(r, 0, n, at) !== 0) continue;
      if (k > 0) {
        this.rests.splice(k, 1);
        this.rests.unshift(r);
      }
      return true;
    }
    return false;
  }
}
