// Line writer with backpressure: lines pushed during one turn of the event loop go out in one
// corked write, and `congested` tells the other side to stop reading until `drain`. Lines forwarded
// as their bytes usually lie one after the other, a newline between, in the chunk they were read
// from: such a run is queued as one view of that chunk, and a lone run is written without a copy.
import type { Writable } from "node:stream";
import { LF } from "./bytes.js";

/**
 * A flush of this many bytes or more goes into a buffer kept for reuse, at least `OUT_BUFFER_BYTES`
 * large (a pipe's read, 64 KiB, and the longer lines it became); a smaller one, into one of its own
 * size: under backpressure each write waits with its buffer, and a few lines must not hold 96 KiB.
 */
const REUSED_FROM_BYTES = 16 * 1024;
const OUT_BUFFER_BYTES = 96 * 1024;
/** A flush's buffer larger than this is not kept for the next (a huge line's memory goes with it). */
const OUT_BUFFER_MAX_BYTES = 1024 * 1024;
/** How many buffers whose write has completed are kept for the next flushes. */
const SPARE_BUFFERS = 2;

/** Built lines are cut from a slab of this size in turn (a longer line over an eighth of it gets its own memory). */
const SLAB_BYTES = 64 * 1024;
let slab: Buffer | undefined;
let slabMemory: ArrayBufferLike | undefined;
let slabAt = SLAB_BYTES;

/**
 * A buffer of `length` bytes for a line a fast path builds, with its newline after it in memory,
 * outside the view (the caller fills every byte). Lines built one after another lie one after
 * another in a slab, each followed by its newline: the writer takes them as a run, as it takes read
 * lines, and writes a lone run as it lies. One view a line (node's pool and a `subarray` of it made
 * two). A line a caller keeps past its write keeps the whole slab: such a caller copies it.
 */
export function allocLine(length: number): Buffer {
  const size = length + 1;
  if (size > SLAB_BYTES / 8) {
    const memory = Buffer.allocUnsafeSlow(size);
    memory[length] = LF;
    return memory.subarray(0, length);
  }
  if (slab === undefined || slabMemory === undefined || slabAt + size > SLAB_BYTES) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    slabMemory = slab.buffer;
    slabAt = 0;
  }
  const line = Buffer.from(slabMemory, slabAt, length);
  slab[slabAt + length] = LF;
  slabAt += size;
  return line;
}

/**
 * A line being built from parts of `source` (`allocLineFrom`): `line`, and the memory `mem` it lies
 * in from `at`, with a copy of `source` in the same memory from `from`. A part is copied with
 * `mem.copyWithin(at + to, from + start, from + end)`: `copy` of part of a buffer makes a temporary
 * view of it (an allocation and a call into V8's runtime) for each part, `copyWithin` none.
 */
export interface LineWork {
  readonly line: Buffer;
  readonly mem: Buffer;
  readonly at: number;
  readonly from: number;
}

/**
 * `allocLine(length)`, with a copy of `source` after the line and its newline in the same memory,
 * to fill the line from (`LineWork`). The copy is scratch: the next line built overwrites it.
 */
export function allocLineFrom(source: Uint8Array, length: number): LineWork {
  const size = length + 1;
  const need = size + source.length;
  if (need > SLAB_BYTES / 8) {
    const mem = Buffer.allocUnsafeSlow(need);
    mem[length] = LF;
    mem.set(source, size);
    return { line: mem.subarray(0, length), mem, at: 0, from: size };
  }
  if (slab === undefined || slabMemory === undefined || slabAt + need > SLAB_BYTES) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    slabMemory = slab.buffer;
    slabAt = 0;
  }
  const at = slabAt;
  const line = Buffer.from(slabMemory, at, length);
  slab[at + length] = LF;
  slab.set(source, at + size);
  slabAt += size;
  return { line, mem: slab, at, from: at + size };
}

/**
 * `line` with its bytes from `start` to `end` replaced by `bytes`, as a built line (`allocLine`):
 * a tag spliced, a member added. Growing, the whole line is set and its tail moved within the new
 * one; shrinking, the parts are moved from a copy in the same memory (`allocLineFrom`). Either way no
 * `copy` of part of a buffer, which makes a temporary view for each part.
 */
export function splicedLine(line: Uint8Array, start: number, end: number, bytes: Uint8Array): Buffer {
  const length = line.length - (end - start) + bytes.length;
  if (length >= line.length) {
    const out = allocLine(length);
    out.set(line);
    out.copyWithin(start + bytes.length, end, line.length);
    out.set(bytes, start);
    return out;
  }
  const { line: out, mem, at, from } = allocLineFrom(line, length);
  mem.copyWithin(at, from, from + start);
  mem.set(bytes, at + start);
  mem.copyWithin(at + start + bytes.length, from + end, from + line.length);
  return out;
}

export class LineWriter {
  private queue: (Buffer | string)[] = [];
  private scheduled = false;
  private closed = false;
  private readonly drainWaiters: (() => void)[] = [];
  /** The memory of the open run's lines (a whole chunk), to read the bytes around them, and its buffer. */
  private memory: Uint8Array | undefined;
  private memoryBuffer: ArrayBufferLike | undefined;
  /** The memory before it: read lines and built ones alternate, so a view of each is kept. */
  private otherMemory: Uint8Array | undefined;
  private otherBuffer: ArrayBufferLike | undefined;
  /** The open run of adjacent lines, not yet queued: its first line, and where it ends in `memory`. */
  private runFirst: Buffer | undefined;
  private runEnd = 0;
  /** Buffers of earlier flushes whose writes have completed. */
  private readonly spare: Buffer[] = [];

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
    if (typeof line === "string") {
      this.closeRun();
      this.queue.push(line);
    } else {
      const memory = this.memory;
      if (
        this.runFirst !== undefined &&
        memory !== undefined &&
        line.byteOffset === this.runEnd + 1 &&
        memory[this.runEnd] === LF &&
        // Last: reading `buffer` is a call into V8's runtime.
        line.buffer === this.memoryBuffer
      )
        // Right after the run with a newline between: the run grows, nothing is copied or queued.
        this.runEnd = line.byteOffset + line.length;
      else {
        this.closeRun();
        this.open(line);
      }
    }
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => this.flush());
    }
  }

  /** A run begins with `line`: its memory becomes the current one. */
  private open(line: Buffer): void {
    const buffer = line.buffer;
    if (buffer !== this.memoryBuffer) {
      const memory = this.memory;
      const memoryBuffer = this.memoryBuffer;
      if (buffer === this.otherBuffer) this.memory = this.otherMemory;
      else this.memory = new Uint8Array(buffer);
      this.memoryBuffer = buffer;
      this.otherMemory = memory;
      this.otherBuffer = memoryBuffer;
    }
    this.runFirst = line;
    this.runEnd = line.byteOffset + line.length;
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
    this.queue.push(
      length === first.length ? first : Buffer.from(this.memoryBuffer ?? first.buffer, first.byteOffset, length),
    );
  }

  flush(): void {
    this.scheduled = false;
    this.closeRun();
    const memory = this.memory;
    // Not kept past a flush: each holds a whole chunk.
    this.memory = this.otherMemory = undefined;
    this.memoryBuffer = this.otherBuffer = undefined;
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
    // One write per flush; the bytes are copied once, into a buffer an earlier write gave back.
    let size = 0;
    for (const p of parts) size += (typeof p === "string" ? Buffer.byteLength(p) : p.length) + 1;
    const reused = size >= REUSED_FROM_BYTES;
    const out = reused ? this.outBuffer(size) : Buffer.allocUnsafe(size);
    let at = 0;
    for (const p of parts) {
      if (typeof p === "string") at += out.write(p, at);
      else {
        out.set(p, at);
        at += p.length;
      }
      out[at++] = LF;
    }
    if (reused) this.stream.write(out.subarray(0, size), () => this.giveBack(out));
    else this.stream.write(out);
  }

  /**
   * A buffer of at least `size` bytes for a flush: a spare one whose write has completed, else a
   * new one. A fresh buffer per flush cost an allocation and, for its pages, faults each time.
   */
  private outBuffer(size: number): Buffer {
    const spare = this.spare;
    for (let k = spare.length - 1; k >= 0; k--) {
      const b = spare[k] as Buffer;
      if (b.length < size) continue;
      spare[k] = spare[spare.length - 1] as Buffer;
      spare.pop();
      return b;
    }
    return Buffer.allocUnsafeSlow(Math.max(size, OUT_BUFFER_BYTES));
  }

  /** A flush's buffer, its write done: kept for the next flush unless it is large or enough are kept. */
  private giveBack(b: Buffer): void {
    if (b.length <= OUT_BUFFER_MAX_BYTES && this.spare.length < SPARE_BUFFERS) this.spare.push(b);
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
