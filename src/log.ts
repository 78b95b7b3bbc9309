// Diagnostics go to stderr only: stdout carries the protocol.

export type LogLevel = "silent" | "error" | "warn" | "info" | "debug";
const rank: Record<LogLevel, number> = { silent: 0, error: 1, warn: 2, info: 3, debug: 4 };

export interface Logger {
  error(msg: string, detail?: unknown): void;
  warn(msg: string, detail?: unknown): void;
  info(msg: string, detail?: unknown): void;
  debug(msg: string, detail?: unknown): void;
  /** Warn once per key (e.g. a dropped capability), not once per message. */
  warnOnce(key: string, msg: string, detail?: unknown): void;
}

export function createLogger(level: LogLevel, write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const seen = new Set<string>();
  const emit = (lvl: Exclude<LogLevel, "silent">, msg: string, detail?: unknown) => {
    if (rank[lvl] > rank[level]) return;
    const extra = detail === undefined ? "" : ` ${typeof detail === "string" ? detail : JSON.stringify(detail)}`;
    write(`acp-bridge ${lvl}: ${msg}${extra}\n`);
  };
  return {
    error: (m, d) => emit("error", m, d),
    warn: (m, d) => emit("warn", m, d),
    info: (m, d) => emit("info", m, d),
    debug: (m, d) => emit("debug", m, d),
    warnOnce: (k, m, d) => {
      if (seen.has(k)) return;
      seen.add(k);
      emit("warn", m, d);
    },
  };
}
