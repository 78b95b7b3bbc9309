// The figures bench/traffic/FIGURES.md reports: what each recording's agent side contains, and
// what the mixes the fake agent sends contain. Pure (bench/derive-mix.ts does the I/O).
import type { Update } from "./corpus.js";
import { addStats, emptyStats, type TextStats } from "./text-model.js";

export interface Shapes {
  updates: number;
  kinds: Record<string, number>;
  /** Distinct tool-call ids. */
  toolCalls: number;
  /** Tool-call updates (either version's `tool_call` or `tool_call_update`). */
  toolCallUpdates: number;
  withRawInput: number;
  withLocations: number;
  /** Tool-call content items by kind (`content` = a content block, text in the recordings). */
  content: Record<string, number>;
  /** v1's terminal convention (`_meta.terminal_output` / `terminal_exit`) on a tool-call update. */
  terminalMeta: number;
  diffChars: number[];
  /** Bytes of each update's `session/update` line. */
  lineBytes: number[];
  /** The message and thought chunks' text (the mock's in the recordings). */
  text: TextStats;
}

export function emptyShapes(): Shapes {
  return {
    updates: 0,
    kinds: {},
    toolCalls: 0,
    toolCallUpdates: 0,
    withRawInput: 0,
    withLocations: 0,
    content: {},
    terminalMeta: 0,
    diffChars: [],
    lineBytes: [],
    text: emptyStats(),
  };
}

export function shapesOf(updates: readonly Update[], lineOf: (u: Update) => string, into = emptyShapes()): Shapes {
  const s = into;
  const ids = new Set<string>();
  for (const u of updates) {
    s.updates++;
    s.kinds[u.sessionUpdate] = (s.kinds[u.sessionUpdate] ?? 0) + 1;
    s.lineBytes.push(Buffer.byteLength(lineOf(u)));
    if (u.sessionUpdate === "agent_message_chunk" || u.sessionUpdate === "agent_thought_chunk") {
      const text = (u.content as { text?: unknown } | undefined)?.text;
      if (typeof text === "string") addStats(s.text, text);
    }
    if (u.sessionUpdate !== "tool_call" && u.sessionUpdate !== "tool_call_update") continue;
    s.toolCallUpdates++;
    if (typeof u.toolCallId === "string") ids.add(u.toolCallId);
    const raw = u.rawInput;
    if (raw !== null && typeof raw === "object" && Object.keys(raw).length > 0) s.withRawInput++;
    if (Array.isArray(u.locations) && u.locations.length > 0) s.withLocations++;
    const meta = u._meta as Record<string, unknown> | undefined;
    if (meta && ("terminal_output" in meta || "terminal_exit" in meta)) s.terminalMeta++;
    if (Array.isArray(u.content))
      for (const c of u.content as Record<string, unknown>[]) {
        const kind = String(c.type);
        s.content[kind] = (s.content[kind] ?? 0) + 1;
        if (kind === "diff") {
          const p = c.patch as { text?: string } | undefined;
          const chars =
            typeof p?.text === "string"
              ? p.text.length
              : (typeof c.oldText === "string" ? c.oldText.length : 0) +
                (typeof c.newText === "string" ? c.newText.length : 0);
          s.diffChars.push(chars);
        }
      }
  }
  s.toolCalls += ids.size;
  return s;
}

export const pct = (n: number, of: number): string => (of === 0 ? "–" : `${((100 * n) / of).toFixed(1)}%`);

export function mean(xs: readonly number[]): number {
  return xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
}

export function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * q))] ?? NaN;
}
