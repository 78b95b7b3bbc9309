// Byte streams for the demo peers: node stdio as web streams for the SDK, plus a line tap that
// records every NDJSON message either way (ACP_WIRE_LOG for the agents, the e2e harness's `wire`).
import { appendFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";

/**
 * One message on the wire, seen from the peer that records it. `raw` replaces `msg` for a line that is not JSON.
 * @internal The demo's wire record; exported for the test harness.
 */
export interface WireEntry {
  readonly dir: "in" | "out";
  readonly msg?: unknown;
  readonly raw?: string;
}

export type LineSink = (dir: "in" | "out", line: string) => void;

/** @internal Used by the demo; exported for test/support/peers.ts, which records wires the same way. */
export function wireEntry(dir: "in" | "out", line: string): WireEntry {
  try {
    return { dir, msg: JSON.parse(line) as unknown };
  } catch {
    return { dir, raw: line };
  }
}

/**
 * Splits a byte stream into lines (LF or CRLF); blank lines are skipped as the SDK does.
 * @internal Used by the demo; exported for test/support/peers.ts.
 */
export class LineSplitter {
  private readonly decoder = new TextDecoder();
  private rest = "";

  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: Uint8Array): void {
    this.emit(this.rest + this.decoder.decode(chunk, { stream: true }));
  }

  end(): void {
    this.emit(this.rest + this.decoder.decode());
    const last = this.rest.trim();
    this.rest = "";
    if (last) this.onLine(last);
  }

  private emit(text: string): void {
    const parts = text.split("\n");
    this.rest = parts.pop() ?? "";
    for (const part of parts) {
      const line = part.trim();
      if (line) this.onLine(line);
    }
  }
}

/**
 * Passes bytes through unchanged and reports each complete line.
 * @internal Used by the demo; exported for test/support/peers.ts.
 */
export function tapReadable(
  input: ReadableStream<Uint8Array>,
  onLine: (line: string) => void,
): ReadableStream<Uint8Array> {
  const split = new LineSplitter(onLine);
  return input.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        split.push(chunk);
        controller.enqueue(chunk);
      },
      flush() {
        split.end();
      },
    }),
  );
}

/**
 * A writable that reports each complete line, then writes through; a write settles when the target's does.
 * @internal Used by the demo; exported for test/support/peers.ts.
 */
export function tapWritable(
  output: WritableStream<Uint8Array>,
  onLine: (line: string) => void,
): WritableStream<Uint8Array> {
  const split = new LineSplitter(onLine);
  const writer = output.getWriter();
  return new WritableStream<Uint8Array>({
    async write(chunk) {
      split.push(chunk);
      await writer.write(chunk);
    },
    async close() {
      split.end();
      await writer.close();
    },
    async abort(reason) {
      await writer.abort(reason);
    },
  });
}

/** The `ACP_WIRE_LOG` sink: one `{"dir","msg"}` JSON line appended per message, synchronously so a crash loses nothing. */
export function wireLogSink(file: string | undefined): LineSink | undefined {
  if (!file) return undefined;
  let broken = false;
  return (dir, line) => {
    if (broken) return;
    try {
      appendFileSync(file, `${JSON.stringify(wireEntry(dir, line))}\n`);
    } catch (e) {
      // A bad log path must not break the protocol stream.
      broken = true;
      process.stderr.write(`wire log ${file} disabled: ${String(e)}\n`);
    }
  };
}

export interface ByteStreams {
  readonly output: WritableStream<Uint8Array>;
  readonly input: ReadableStream<Uint8Array>;
}

/** This process's stdin/stdout as web byte streams, tapped when a sink is given. */
export function stdioStreams(sink?: LineSink): ByteStreams {
  const output = Writable.toWeb(process.stdout) as WritableStream<Uint8Array>;
  const input = Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>;
  if (!sink) return { output, input };
  return {
    output: tapWritable(output, (line) => sink("out", line)),
    input: tapReadable(input, (line) => sink("in", line)),
  };
}

/**
 * Hands the SDK one inbound message per macrotask. The SDK's connection walks its handler list with an
 * `await` per handler, so of two messages read together the one whose method was registered earlier
 * starts first: a `session/close` could overtake the `session/prompt` sent before it. Delivering each
 * message after the previous one's handler has started keeps wire order, which the demo's session
 * rules (held prompts, close, cancel) depend on.
 */
export function inArrivalOrder<M>(stream: {
  readonly readable: ReadableStream<M>;
  readonly writable: WritableStream<M>;
}): {
  readable: ReadableStream<M>;
  writable: WritableStream<M>;
} {
  const ordered = new TransformStream<M, M>(
    {
      async transform(message, controller) {
        controller.enqueue(message);
        await new Promise<void>((resolve) => setImmediate(resolve));
      },
    },
    // No buffering ahead: the next message is taken only after this one's macrotask.
    { highWaterMark: 1 },
    { highWaterMark: 0 },
  );
  return { readable: stream.readable.pipeThrough(ordered), writable: stream.writable };
}

/** Exits once stdout has flushed what was written before (a bare process.exit truncates piped stdout). */
export function exitAfterFlush(code: number): Promise<never> {
  return new Promise<never>(() => {
    process.stdout.write("", () => process.exit(code));
  });
}
