// The recorded agent traffic the bench replays and derives its "real" mix from: reading the
// interop suite's recordings (the client-side wire of a direct run, the bridge's trace of a bridged
// one, the committed fixtures), normalising them, and turning each recorded turn into templates whose
// ids are rewritten per replayed turn. Pure: no I/O (bench/derive-mix.ts and the fake agent read).

/** One recorded `session/update` as the agent wrote it (key order kept). */
export type Update = Record<string, unknown> & { readonly sessionUpdate: string };

/** A line of the committed corpus (bench/traffic/corpus-v{1,2}.ndjson). */
export interface CorpusLine {
  /** The agent and scenario the update was recorded from, e.g. `claude`, `editor-codex`. */
  readonly source: string;
  readonly update: Update;
}

/**
 * The agent side's `session/update` params of one recording, in order. Three formats: a client wire
 * (`{dir, msg}`, interop/.runs/*.wire.jsonl: the agent's side when the run is direct), a bridge trace
 * (interop/.runs/*.trace.jsons: the notifications `from: "agent"`) and a committed fixture
 * (`{from, message}`, interop/fixtures: direct runs only).
 */
export function agentUpdates(text: string): Update[] {
  const out: Update[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const rec = JSON.parse(line) as Record<string, unknown>;
    let msg: Record<string, unknown> | undefined;
    if ("dir" in rec) msg = rec.dir === "in" ? (rec.msg as Record<string, unknown>) : undefined;
    else if ("message" in rec) msg = rec.from === "agent" ? (rec.message as Record<string, unknown>) : undefined;
    else if (rec.type === "notification" && rec.from === "agent") msg = rec;
    if (msg?.method !== "session/update") continue;
    const update = (msg.params as { update?: Update } | undefined)?.update;
    if (update && typeof update.sessionUpdate === "string") out.push(update);
  }
  return out;
}

const WORKSPACE = /\/tmp\/acp-interop-[A-Za-z0-9_.-]+\/(work|home)/g;
const TIMESTAMP = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g;

/**
 * Scratch paths to `/interop/ws` and `/interop/home` (as interop/fixtures does), timestamps to one
 * fixed instant, so that the committed corpus does not change with each recording's run.
 */
export function normalise(update: Update): Update {
  const text = JSON.stringify(update)
    .replace(WORKSPACE, (_, dir: string) => (dir === "work" ? "/interop/ws" : "/interop/home"))
    .replace(TIMESTAMP, "2026-01-01T00:00:00.000Z");
  return JSON.parse(text) as Update;
}

/**
 * What a replay cannot send mid-flood: a v2 `state_update` to `idle` ends the turn (the fake agent
 * writes its own `running` … `idle` around the flood).
 */
export function replayable(update: Update): boolean {
  return !(update.sessionUpdate === "state_update" && update.state === "idle");
}

const ID_KEYS = new Set(["toolCallId", "terminalId", "terminal_id", "messageId"]);

/** The ids of a turn that name things the turn creates: tool calls, terminals, messages. */
export function idsOf(updates: readonly unknown[]): string[] {
  const ids = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v !== null && typeof v === "object")
      for (const [k, x] of Object.entries(v)) {
        if (ID_KEYS.has(k) && typeof x === "string") ids.add(x);
        else walk(x);
      }
  };
  walk(updates);
  return [...ids];
}

/**
 * A line cut before the closing quote of each of `ids`' JSON string literals: `parts.join(suffix)`
 * is the line with every such id renamed `<id><suffix>` (a fresh tool call, terminal and message per
 * replayed turn, in one join).
 */
export interface Template {
  readonly parts: readonly string[];
}

export function compile(line: string, ids: readonly string[]): Template {
  const cuts: number[] = [];
  for (const id of ids) {
    const literal = JSON.stringify(id);
    for (let at = line.indexOf(literal); at !== -1; at = line.indexOf(literal, at + literal.length))
      cuts.push(at + literal.length - 1);
  }
  cuts.sort((a, b) => a - b);
  const parts: string[] = [];
  let from = 0;
  for (const cut of cuts) {
    parts.push(line.slice(from, cut));
    from = cut;
  }
  parts.push(line.slice(from));
  return { parts };
}

export function render(t: Template, suffix: string): string {
  return t.parts.join(suffix);
}

/** The `session/update` notification line an SDK writes for `update` (one session: `bench`). */
export function notificationLine(sessionId: string, update: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId, update } }) + "\n";
}

/** A recorded turn as templates of whole lines (newline included), its ids renamed per turn. */
export function compileTurn(sessionId: string, updates: readonly Update[]): Template[] {
  const ids = idsOf(updates);
  return updates.map((u) => compile(notificationLine(sessionId, u), ids));
}

/** The corpus's turns, by source, in recorded order. */
export function turnsOf(lines: readonly CorpusLine[]): Map<string, Update[]> {
  const turns = new Map<string, Update[]>();
  for (const l of lines) {
    const t = turns.get(l.source) ?? [];
    t.push(l.update);
    turns.set(l.source, t);
  }
  return turns;
}

export function parseCorpus(text: string): CorpusLine[] {
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as CorpusLine);
}
