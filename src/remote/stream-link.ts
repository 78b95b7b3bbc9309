// One side of the bridge over ACP's remote transports (issue 22): the SDK's Streamable HTTP and
// WebSocket transports hand over a `Stream` of parsed messages, where stdio hands over lines. The
// bridge stays line-based: what it writes to such a side is parsed once more and written as a
// message (`StreamOutlet`), what the side sends is serialized into a line (`pumpMessages`). The
// transport had parsed it already, so its bytes are the SDK's, not the peer's (README, "Remote agents").
import type { AnyMessage } from "@agentclientprotocol/sdk";
import type { Logger } from "../log.js";
import type { FlowSink } from "../transport/flow.js";

/**
 * The bridge's writes to a remote peer: each line becomes the message it holds (a JSON array, which
 * only the bridge's refusal of a stdio batch writes, becomes its items). Congested while the
 * transport's queue is full (`desiredSize`), so the other side's reading pauses.
 */
export class StreamOutlet implements FlowSink {
  private readonly writer: WritableStreamDefaultWriter<AnyMessage>;
  private closed = false;

  constructor(
    writable: WritableStream<AnyMessage>,
    private readonly log: Logger,
    private readonly peer: string,
  ) {
    this.writer = writable.getWriter();
    this.writer.closed.then(
      () => (this.closed = true),
      () => (this.closed = true),
    );
  }

  push(line: string | Buffer): void {
    if (this.closed) return;
    let value: unknown;
    try {
      value = JSON.parse(typeof line === "string" ? line : line.toString("utf8"));
    } catch {
      // The bridge writes JSON only; a line that is not is a bug, never worth the connection.
      this.log.warn(`dropped a line to the ${this.peer} that is not JSON`);
      return;
    }
    for (const message of Array.isArray(value) ? value : [value])
      this.writer.write(message as AnyMessage).catch((e: unknown) => {
        this.closed = true;
        this.log.debug(`${this.peer} transport: ${e instanceof Error ? e.message : String(e)}`);
      });
  }

  /** Messages go to the transport one by one: nothing is held. */
  hold(): void {}
  flush(): void {}

  get congested(): boolean {
    const room = this.writer.desiredSize;
    return !this.closed && room !== null && room <= 0;
  }

  onDrain(fn: () => void): void {
    if (!this.congested) fn();
    else void this.writer.ready.then(fn, fn);
  }

  /** Close the transport (a WebSocket close, an HTTP DELETE); resolves once done or failed. */
  async end(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.writer.close();
    } catch {
      // Already failed: nothing to close.
    }
  }
}

/** How reading a remote peer ended: its stream closed, or failed with `error`. */
export type PumpEnd = { readonly error?: unknown; readonly received: number };

/**
 * Every message of `readable` to `line` as a line; reading waits while `sink` is congested. What
 * the messages of one turn of the event loop produce goes to `sink` in one write (a WebSocket read
 * delivers many messages at once: a write each would cost a system call each). Resolves when the
 * stream ends or fails (never rejects).
 */
export async function pumpMessages(
  readable: ReadableStream<AnyMessage>,
  line: (l: Buffer) => void,
  sink: FlowSink,
  /** Stops reading (the stream is cancelled): a peer that does not close in time. */
  stop?: AbortSignal,
  /** Each line with its `\n` (for a line splitter, which then takes it whole, without copying). */
  terminated = false,
): Promise<PumpEnd> {
  const reader = readable.getReader();
  const cancel = () => void reader.cancel(new Error("closed by the bridge")).catch(() => undefined);
  stop?.addEventListener("abort", cancel, { once: true });
  let received = 0;
  let flushing: NodeJS.Immediate | undefined;
  const flush = () => {
    flushing = undefined;
    sink.flush();
  };
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done) return { received };
      received++;
      sink.hold();
      flushing ??= setImmediate(flush);
      const text = JSON.stringify(r.value);
      line(Buffer.from(terminated ? `${text}\n` : text));
      if (sink.congested && stop?.aborted !== true) await new Promise<void>((resolve) => sink.onDrain(resolve));
    }
  } catch (error) {
    return { error: error ?? new Error("the transport failed"), received };
  } finally {
    if (flushing !== undefined) {
      clearImmediate(flushing);
      flush();
    }
    stop?.removeEventListener("abort", cancel);
    reader.releaseLock();
  }
}
