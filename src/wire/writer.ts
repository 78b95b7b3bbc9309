// Line writer with backpressure: lines pushed during one turn of the event loop go out in one
// corked write, and `congested` tells the other side to stop reading until `drain`. Lines forwarded
// as their bytes usually lie one after the other, a newline between, in the chunk they were read
// from: such a run is queued as one view of that chunk, and a lone run is written without a copy.
import type { Writable } from "node:stream";
import { LF } from "./bytes.js";

const NEWLINE = Buffer.from("\n");

/**
 * A buffer of `length` bytes for a line a fast path builds, with its newline after it in memory,
 * outside the view: the writer writes such a line alone as it lies instead of copying it to append
 * one (the caller fills every byte).
 */
export function allocLine(length: number): Buffer {
  const memory = Buffer.allocUnsafe(length + 1);
  memory[length] = LF;
  return memory.subarray(0, length);
}

export class LineWriter {
  private queue: (Buffer | string)[] = [];
  private scheduled = false;
  private closed = false;
  private readonly drainWaiters: (() => void)[] = [];
  /** The memory of the open run's lines (a whole chunk), to read the bytes around them. */
  private memory: Uint8Array | undefined;
  /** The open run of adjacent lines, not yet queued: its first line, and where it ends in `memory`. */
  private runFirst: Buffer | undefined;
  private runEnd = 0;

  constructor(private readonly stream: Writable) {
    stream.on("drain", () => {
      for (const w of this.drainWaiters.splice(0)) w();
    });
    stream.on("error", () => {
      this.closed = true;
    });
  }

  /** Queue one message line (without its `\n`). */
  push(line: Buffer | string): void {
    if (this.closed) return;
    const memory = this.memory;
    if (
      typeof line !== "string" &&
      this.runFirst !== undefined &&
      memory !== undefined &&
      line.buffer === memory.buffer &&
      line.byteOffset === this.runEnd + 1 &&
      memory[this.runEnd] === LF
    )
      // Right after the run with a newline between: the run grows, nothing is copied or queued.
      this.runEnd = line.byteOffset + line.length;
    else {
      this.closeRun();
      if (typeof line === "string") this.queue.push(line);
      else {
        if (memory?.buffer !== line.buffer) this.memory = new Uint8Array(line.buffer);
        this.runFirst = line;
        this.runEnd = line.byteOffset + line.length;
      }
    }
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => this.flush());
    }
  }

  /**
   * The caller flushes once it has pushed (the pump, after each chunk read): lines pushed until then
   * schedule no microtask to flush them.
   */
  hold(): void {
    this.scheduled = true;
  }

  /** Queue the open run as one view: its lines with the newlines between them. */
  private closeRun(): void {
    const first = this.runFirst;
    if (first === undefined) return;
    this.runFirst = undefined;
    const length = this.runEnd - first.byteOffset;
    this.queue.push(length === first.length ? first : Buffer.from(first.buffer, first.byteOffset, length));
  }

  flush(): void {
    this.scheduled = false;
    this.closeRun();
    const memory = this.memory;
    // Not kept past a flush: it holds a whole chunk.
    this.memory = undefined;
    if (this.queue.length === 0 || this.closed) return;
    const parts = this.queue;
    this.queue = [];
    const only = parts.length === 1 ? parts[0] : undefined;
    if (
      only !== undefined &&
      typeof only !== "string" &&
      memory !== undefined &&
      only.buffer === memory.buffer &&
      memory[only.byteOffset + only.length] === LF
    ) {
      // A lone run followed by its newline in its own memory: written as it lies.
      this.stream.write(Buffer.from(only.buffer, only.byteOffset, only.length + 1));
      return;
    }
    // One write per flush; the bytes are copied once.
    const out: Buffer[] = [];
    let size = 0;
    for (const p of parts) {
      const b = typeof p === "string" ? Buffer.from(p) : p;
      out.push(b, NEWLINE);
      size += b.length + 1;
    }
    this.stream.write(Buffer.concat(out, size));
  }

  /** The stream's buffer is over its high-water mark: the producer should pause. */
  get congested(): boolean {
    return this.stream.writableNeedDrain;
  }

  onDrain(fn: () => void): void {
    if (!this.congested) fn();
    else this.drainWaiters.push(fn);
  }

  /** Flush what is queued and end the stream; resolves when everything was handed to the OS. */
  end(): Promise<void> {
    this.flush();
    this.closed = true;
    return new Promise((resolve) => {
      if (this.stream.writableFinished || this.stream.destroyed) return resolve();
      this.stream.end(() => resolve());
    });
  }
}
