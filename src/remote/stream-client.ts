// A remote client (a connection `acp-bridge serve` accepted) as the bridge's client side: the SDK's
// `Stream` of messages adapted to run()'s `ClientPort`. What the client sends goes through the same
// line splitter as stdio, so `--max-message-bytes` refuses an oversized message exactly as on stdio;
// no message either way for `idleMs` closes the connection, as `close` does (serve's shutdown).
import type { Stream } from "@agentclientprotocol/sdk";
import type { Logger } from "../log.js";
import type { FlowSink } from "../transport/flow.js";
import type { ClientPort } from "../transport/run.js";
import { LineSplitter } from "../wire/ndjson.js";
import { pumpMessages, StreamOutlet } from "./stream-link.js";

export interface RemoteClient extends ClientPort {
  /** End the connection as if the client had left: run() then shuts the agent down. */
  close(why: string): void;
}

export function streamClient(stream: Stream, maxMessageBytes: number, idleMs: number, log: Logger): RemoteClient {
  const outlet = new StreamOutlet(stream.writable, log, "client");
  let leave: () => void = () => undefined;
  const left = new Promise<void>((resolve) => (leave = resolve));
  let split: LineSplitter | undefined;
  let closed = false;
  const close = (why: string) => {
    if (closed) return;
    closed = true;
    clearTimeout(idle);
    log.info(`remote client: ${why}`);
    // The client sees its connection end now, not once the agent has left.
    void outlet.end();
    leave();
  };
  const idle = setTimeout(() => close(`no message either way for ${String(idleMs)} ms`), idleMs);
  idle.unref();
  const touch = () => void idle.refresh();
  const out: FlowSink & { end(): Promise<void> } = {
    push(line) {
      touch();
      outlet.push(line);
    },
    hold: () => outlet.hold(),
    flush: () => outlet.flush(),
    get congested() {
      return outlet.congested;
    },
    onDrain: (fn) => outlet.onDrain(fn),
    end() {
      clearTimeout(idle);
      return outlet.end();
    },
  };
  return {
    out,
    gone: left.then(() => split?.end()),
    start(line, oversize, toAgent) {
      const splitter = new LineSplitter(maxMessageBytes, { line, oversize });
      split = splitter;
      void pumpMessages(
        stream.readable,
        (l) => {
          touch();
          splitter.push(l);
        },
        toAgent,
        undefined,
        true,
      ).then((end) => {
        if (end.error !== undefined)
          log.debug(`remote client: ${end.error instanceof Error ? end.error.message : "the transport failed"}`);
        close("the connection closed");
      });
    },
    // The transport ends its stream itself once the bridge has closed its side (`out.end`).
    stop() {},
    close,
  };
}
