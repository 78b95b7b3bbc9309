// NDJSON framing (ACP stdio transport): one JSON value per `\n`-terminated line, UTF-8. Works on
// bytes, so a UTF-8 sequence split across reads is only decoded once its line is complete.

export const DEFAULT_MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
const LF = 0x0a;
const CR = 0x0d;
/** How much of an oversized line is kept to find its id for the error answer. */
const OVERSIZE_HEAD_BYTES = 4096;

export interface SplitterEvents {
  /** A complete line (without `\n` or a trailing `\r`), never blank. */
  line(bytes: Buffer): void;
  /** A line longer than the limit was discarded; `head` is its beginning (to find its id). */
  oversize(info: { bytes: number; head: Buffer }): void;
}

/** Splits a byte stream into lines, enforcing a size limit without buffering oversized lines. */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private discarding = false;
  private head: Buffer | undefined;

  constructor(
    private readonly maxBytes: number,
    private readonly events: SplitterEvents,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(LF, start);
      if (nl === -1) break;
      this.take(chunk.subarray(start, nl), true);
      start = nl + 1;
    }
    if (start < chunk.length) this.take(chunk.subarray(start), false);
  }

  /** End of input: a final line without `\n` still counts. */
  end(): void {
    if (this.size > 0 || this.discarding) this.take(Buffer.alloc(0), true);
  }

  private take(piece: Buffer, complete: boolean): void {
    if (this.discarding) {
      this.size += piece.length;
      if (complete) {
        this.events.oversize({ bytes: this.size, head: this.head ?? Buffer.alloc(0) });
        this.reset();
      }
      return;
    }
    if (this.size + piece.length > this.maxBytes) {
      const all = this.parts.length === 0 ? piece : Buffer.concat([...this.parts, piece]);
      this.head = Buffer.from(all.subarray(0, OVERSIZE_HEAD_BYTES));
      this.discarding = true;
      this.size += piece.length;
      this.parts = [];
      if (complete) {
        this.events.oversize({ bytes: this.size, head: this.head });
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
    let line = this.parts.length === 0 ? piece : Buffer.concat([...this.parts, piece]);
    this.reset();
    if (line.length > 0 && line[line.length - 1] === CR) line = line.subarray(0, line.length - 1);
    if (isBlank(line)) return;
    this.events.line(line);
  }

  private reset(): void {
    this.parts = [];
    this.size = 0;
    this.discarding = false;
    this.head = undefined;
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

/** Finds `"id":<value>` near the start of a (possibly truncated) JSON text; `undefined` if none. */
export function sniffId(head: Buffer | string): string | number | null | undefined {
  const text = typeof head === "string" ? head : head.toString("utf8");
  const m = /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|null)/.exec(text);
  if (!m) return undefined;
  try {
    return JSON.parse(m[1] ?? "") as string | number | null;
  } catch {
    return undefined;
  }
}
