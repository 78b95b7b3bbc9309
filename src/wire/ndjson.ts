// NDJSON framing (ACP stdio transport): one JSON value per `\n`-terminated line, UTF-8. Works on
// bytes, so a UTF-8 sequence split across reads is only decoded once its line is complete.
import { LF } from "./bytes.js";
import { EnvelopeScanner, type Envelope } from "./envelope.js";

const CR = 0x0d;

export interface SplitterEvents {
  /** A complete line (without `\n` or a trailing `\r`), never blank. */
  line(bytes: Buffer): void;
  /** A line longer than the limit was discarded; `envelope` says what it was (to answer it). */
  oversize(info: OversizeLine): void;
}

export interface OversizeLine {
  readonly bytes: number;
  readonly envelope: Envelope;
}

/** Splits a byte stream into lines, enforcing a size limit without buffering oversized lines. */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  /** Set while an oversized line streams past: it reads the line's envelope, keeps nothing else. */
  private discarding: EnvelopeScanner | undefined;

  constructor(
    private readonly maxBytes: number,
    private readonly events: SplitterEvents,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    if (this.size > 0 || this.discarding !== undefined) {
      // A line begun in an earlier read ends first (reads cut lines anywhere).
      const nl = chunk.indexOf(LF);
      if (nl === -1) {
        this.take(chunk, false);
        return;
      }
      this.take(chunk.subarray(0, nl), true);
      start = nl + 1;
    }
    // Nothing is pending now: each whole line of this chunk goes out as a view of it, with no
    // bookkeeping but an oversize line's (which `take` discards as it would a streamed one).
    for (;;) {
      const nl = chunk.indexOf(LF, start);
      if (nl === -1) break;
      const line = chunk.subarray(start, nl);
      if (line.length > this.maxBytes) this.take(line, true);
      else this.deliver(line);
      start = nl + 1;
    }
    if (start < chunk.length) this.take(chunk.subarray(start), false);
  }

  /** End of input: a final line without `\n` still counts. */
  end(): void {
    if (this.size > 0 || this.discarding) this.take(Buffer.alloc(0), true);
  }

  private take(piece: Buffer, complete: boolean): void {
    if (!this.discarding && this.size + piece.length > this.maxBytes) {
      this.discarding = new EnvelopeScanner();
      for (const part of this.parts) this.discarding.push(part);
      this.parts = [];
    }
    if (this.discarding) {
      this.discarding.push(piece);
      this.size += piece.length;
      if (complete) {
        this.events.oversize({ bytes: this.size, envelope: this.discarding.result() });
        this.reset();
      }
      return;
    }
    if (!complete) {
      // Copy: the chunk's memory may be reused by the stream.
      this.parts.push(Buffer.from(piece));
      this.size += piece.length;
      return;
    }
    const line = this.parts.length === 0 ? piece : Buffer.concat([...this.parts, piece]);
    this.reset();
    this.deliver(line);
  }

  /** A complete line within the limit: without a trailing CR, and only if it is not blank. */
  private deliver(line: Buffer): void {
    const body = line.length > 0 && line[line.length - 1] === CR ? line.subarray(0, line.length - 1) : line;
    if (!isBlank(body)) this.events.line(body);
  }

  private reset(): void {
    this.parts = [];
    this.size = 0;
    this.discarding = undefined;
  }
}

function isBlank(line: Buffer): boolean {
  // Indexed loop: a message line returns at its first byte (`{`), so this costs nothing per line.
  for (let i = 0; i < line.length; i++) {
    const b = line[i];
    if (b !== 0x20 && b !== 0x09 && b !== CR) return false;
  }
  return true;
}
