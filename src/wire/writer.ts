// Line writer with backpressure: lines pushed during one turn of the event loop go out in one
// corked write, and `congested` tells the other side to stop reading until `drain`.
import type { Writable } from "node:stream";

const NEWLINE = Buffer.from("\n");

export class LineWriter {
  private queue: (Buffer | string)[] = [];
  private scheduled = false;
  private closed = false;
  private readonly drainWaiters: (() => void)[] = [];

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
    this.queue.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => this.flush());
    }
  }

  flush(): void {
    this.scheduled = false;
    if (this.queue.length === 0 || this.closed) return;
    const parts = this.queue;
    this.queue = [];
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

  get isClosed(): boolean {
    return this.closed;
  }
}
