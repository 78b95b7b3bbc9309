// What the bridge writes a side's lines to, with the backpressure the pumps read: the stdio
// `LineWriter` (wire/writer.ts) and a remote connection's `StreamOutlet` (remote/stream-link.ts).
export interface FlowSink {
  push(line: string | Buffer): void;
  /** Lines pushed until `flush` go out together. */
  hold(): void;
  flush(): void;
  /** Over the high-water mark: the producer should pause until `onDrain`. */
  readonly congested: boolean;
  onDrain(fn: () => void): void;
}
