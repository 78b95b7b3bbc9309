// Reading a recorded conversation as a stream of lines, for `acp-bridge check` and `convert`: the
// file or stdin opened, lines split on bytes with a bound on each (memory is bounded by the longest
// line, never by the file), progress on stderr when it is a terminal, colours only on a terminal and
// never with NO_COLOR.
import { createReadStream, fstatSync, openSync } from "node:fs";
import type { Writable } from "node:stream";

const NEWLINE = 0x0a;
const PROGRESS_MS = 200;

export interface Streams {
  readonly stdin: NodeJS.ReadableStream & { fd?: number };
  readonly stdout: Writable & { isTTY?: boolean };
  readonly stderr: Writable & { isTTY?: boolean };
  readonly env: NodeJS.ProcessEnv;
}

export const processStreams = (): Streams => ({
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});

const MiB = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

export type Paint = (code: string, s: string) => string;

/** SGR colours on a terminal, unless NO_COLOR is set (any value). */
export function painter(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): Paint {
  return stream.isTTY === true && env.NO_COLOR === undefined
    ? (code, s) => `\u001b[${code}m${s}\u001b[0m`
    : (_, s) => s;
}

export interface Input {
  /** The name messages use (`<stdin>` for `-`). */
  readonly name: string;
  readonly stream: NodeJS.ReadableStream;
  /** The size when it is a file (a pipe has none). */
  readonly total: number | undefined;
}

/** FILE (or `-`: stdin) opened for reading, or why it cannot be (a usage error). */
export function openInput(file: string, stdin: Streams["stdin"]): Input | { problem: string } {
  const name = file === "-" ? "<stdin>" : file;
  let fd: number;
  try {
    fd = file === "-" ? 0 : openSync(file, "r");
  } catch (e) {
    return { problem: `cannot read '${file}': ${(e as Error).message}` };
  }
  let total: number | undefined;
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) return { problem: `'${file}' is a directory` };
    if (st.isFile()) total = st.size;
  } catch {
    // A pipe without a size: no total in the progress line.
  }
  return { name, stream: file === "-" ? stdin : createReadStream("", { fd }), total };
}

/** The progress line on stderr (a terminal only), redrawn at most every 200 ms. */
export class Progress {
  private last = Date.now();
  /** A progress line is on the terminal: anything else written there clears it first. */
  shown = false;

  constructor(
    private readonly verb: string,
    private readonly input: Input,
    private readonly stderr: Streams["stderr"],
  ) {}

  tick(read: number): void {
    if (this.stderr.isTTY !== true) return;
    const now = Date.now();
    if (now - this.last < PROGRESS_MS) return;
    this.last = now;
    this.shown = true;
    const total = this.input.total;
    const pct = total ? ` (${((100 * read) / total).toFixed(0)}%)` : "";
    this.stderr.write(
      `\r\u001b[K${this.verb} ${this.input.name}: ${MiB(read)}${total === undefined ? "" : ` of ${MiB(total)}`}${pct}`,
    );
  }

  /** Clears the line (before other output on the terminal, and at the end). */
  clear(): void {
    if (!this.shown) return;
    this.stderr.write("\r\u001b[K");
    this.shown = false;
  }
}

export interface LineHandlers {
  /** A complete line (`n` counts from 1), decoded. */
  line(text: string, n: number): void | Promise<void>;
  /** Line `n` is longer than the bound: it is skipped unread. */
  tooLong(n: number): void;
  /** After each chunk read: `read` bytes so far. */
  chunk(read: number): void | Promise<void>;
}

/**
 * The lines of `input` in order, each at most `maxLineBytes` (a longer one is skipped unread), split
 * on bytes (UTF-8 never has 0x0A inside a character) and decoded one at a time. Throws what reading throws.
 */
export async function readLines(input: NodeJS.ReadableStream, maxLineBytes: number, on: LineHandlers): Promise<void> {
  let parts: Buffer[] = [];
  let partBytes = 0;
  let skipping = false;
  let n = 0;
  let read = 0;
  /** A complete line: the parts held plus `chunk`. */
  const endLine = (chunk: Buffer | undefined) => {
    n++;
    const line =
      chunk === undefined
        ? Buffer.concat(parts, partBytes)
        : parts.length === 0
          ? chunk
          : Buffer.concat([...parts, chunk]);
    parts = [];
    partBytes = 0;
    return on.line(line.toString("utf8"), n);
  };
  const tooLong = () => {
    on.tooLong(n + 1);
    parts = [];
    partBytes = 0;
    skipping = true;
  };
  for await (const data of input) {
    const chunk = typeof data === "string" ? Buffer.from(data) : data;
    read += chunk.length;
    let start = 0;
    for (let nl = chunk.indexOf(NEWLINE, start); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
      const piece = chunk.subarray(start, nl);
      if (!skipping && partBytes + piece.length > maxLineBytes) tooLong();
      if (skipping) {
        n++;
        skipping = false;
        parts = [];
        partBytes = 0;
      } else {
        const pending = endLine(piece);
        if (pending !== undefined) await pending;
      }
      start = nl + 1;
    }
    if (start < chunk.length && !skipping) {
      const rest = chunk.subarray(start);
      if (partBytes + rest.length > maxLineBytes) tooLong();
      else {
        // A copy: the stream may reuse its buffer.
        parts.push(Buffer.from(rest));
        partBytes += rest.length;
      }
    }
    const pending = on.chunk(read);
    if (pending !== undefined) await pending;
  }
  if (partBytes > 0 && !skipping) {
    const pending = endLine(undefined);
    if (pending !== undefined) await pending;
  }
}
