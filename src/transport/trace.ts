// Traces in the official conductor's `.jsons` format (one JSON event per line), so the official
// trace viewer can draw a bridge run: `type`, monotonic `ts` in seconds, `protocol`, `from`, `to`,
// `id`, `method`, `session`, then `params`, or `is_error` and `payload` for responses.
import { createWriteStream, openSync, type WriteStream } from "node:fs";
import type { Logger } from "../log.js";
import type { Onlooker } from "../engine/config.js";

const BRIDGE_NAME = "acp-bridge";
type Side = "client" | "agent";

export interface TraceEvent {
  readonly type: "request" | "response" | "notification";
  readonly ts: number;
  readonly protocol: "acp";
  readonly from: string;
  readonly to: string;
  readonly id?: unknown;
  readonly method?: string;
  readonly session?: string;
  readonly params?: unknown;
  readonly is_error?: boolean;
  readonly payload?: unknown;
}

function sessionOf(params: unknown): string | undefined {
  const p = params as { sessionId?: unknown } | undefined;
  return typeof p === "object" && p !== null && typeof p.sessionId === "string" ? p.sessionId : undefined;
}

/** The trace event for one message travelling `from` → `to`. */
export function traceEvent(msg: unknown, from: string, to: string, ts: number): TraceEvent | undefined {
  if (typeof msg !== "object" || msg === null || Array.isArray(msg)) return undefined;
  const m = msg as { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: unknown };
  const base = { ts, protocol: "acp" as const, from, to };
  if (typeof m.method === "string") {
    const session = sessionOf(m.params);
    const withSession = session === undefined ? {} : { session };
    if (m.id !== undefined)
      return { type: "request", ...base, id: m.id, method: m.method, ...withSession, params: m.params };
    return { type: "notification", ...base, method: m.method, ...withSession, params: m.params };
  }
  const isError = m.error !== undefined;
  return { type: "response", ...base, id: m.id, is_error: isError, payload: isError ? m.error : m.result };
}

export class TraceWriter {
  private readonly t0 = performance.now();
  private failed = false;

  private constructor(
    private readonly out: WriteStream,
    path: string,
    log: Logger,
  ) {
    // A trace that can no longer be written (disk full, file removed) stops; the bridge goes on.
    out.on("error", (e) => {
      if (this.failed) return;
      this.failed = true;
      log.error(`trace file '${path}': ${e.message}; tracing stopped`);
    });
  }

  /** Opens (appends to) the trace file at once, so that a path that cannot be written is a usage error. */
  static open(path: string, log: Logger): TraceWriter {
    let fd: number;
    try {
      fd = openSync(path, "a");
    } catch (e) {
      throw new Error(`cannot open the trace file '${path}': ${(e as Error).message}`, { cause: e });
    }
    return new TraceWriter(createWriteStream("", { fd }), path, log);
  }

  record(direction: "in" | "out", side: Side, msg: unknown): void {
    if (this.failed) return;
    const from = direction === "in" ? side : BRIDGE_NAME;
    const to = direction === "in" ? BRIDGE_NAME : side;
    const e = traceEvent(msg, from, to, (performance.now() - this.t0) / 1000);
    if (e) this.out.write(JSON.stringify(e) + "\n");
  }

  /** As an onlooker of the core (engine/config.ts `joinOnlookers`). */
  onlooker(): Onlooker {
    return { onReceive: (from, msg) => this.record("in", from, msg), onSend: (to, msg) => this.record("out", to, msg) };
  }

  close(): Promise<void> {
    if (this.failed) return Promise.resolve();
    return new Promise((resolve) => this.out.end(() => resolve()));
  }
}
