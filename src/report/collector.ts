// The bounded aggregator behind `--report`: it watches every message the bridge reads and writes
// (the core's onReceive/onSend hooks) and what the engine tells its observer (engine/observer.ts),
// and keeps counts only. Memory is bounded whatever the session's length: at most MAX_KEYS rows per
// table (the rest in one "(other)" row), one redacted example per loss kind, cut to
// EXAMPLE_MAX_CHARS, and the ids of requests in flight up to MAX_IN_FLIGHT per side.
import type { Loss } from "../convert/result.js";
import { STASH_KEY, type StashLevel } from "../convert/stash.js";
import type { BridgeObserver } from "../engine/observer.js";
import type { Id } from "../wire/jsonrpc.js";
import { keptEnum, redact, shownKey } from "./redact.js";

type Side = "client" | "agent";

const MAX_KEYS = 256;
export const OTHER = "(other)";
const EXAMPLE_MAX_CHARS = 300;
/** Requests remembered per side to name the method of their answer; the oldest go first. */
const MAX_IN_FLIGHT = 4096;
const MAX_NAME_CHARS = 100;
const MAX_REASON_CHARS = 200;

/** A table of at most MAX_KEYS rows, then one row (made by `other`) for whatever comes next. */
class Capped<V> {
  private readonly rows = new Map<string, V>();
  private otherRow: V | undefined;

  constructor(
    private readonly other: () => V,
    private readonly max = MAX_KEYS,
  ) {}

  get capped(): boolean {
    return this.otherRow !== undefined;
  }

  /** The row of `key`, made by `make` on first sight, or the other row once the table is full. */
  row(key: string, make: () => V): V {
    const v = this.rows.get(key);
    if (v !== undefined) return v;
    if (this.rows.size >= this.max) return (this.otherRow ??= this.other());
    const made = make();
    this.rows.set(key, made);
    return made;
  }

  values(): V[] {
    return this.otherRow === undefined ? [...this.rows.values()] : [...this.rows.values(), this.otherRow];
  }
}

export interface KindCounts {
  readonly kind: string;
  fromClient: number;
  toAgent: number;
  fromAgent: number;
  toClient: number;
}

export interface LossKind {
  readonly direction: string;
  readonly message: string;
  readonly path: string;
  readonly reason: string;
  count: number;
  readonly example: string;
}

export interface Emulation {
  readonly method: string;
  readonly how: string;
  count: number;
}

export interface ErrorKind {
  readonly to: Side;
  readonly method: string;
  readonly code: number | null;
  readonly reason: string;
  /** The bridge's own error, or the far peer's relayed. */
  readonly origin: "bridge" | "relayed";
  count: number;
}

export interface StashToward {
  level: StashLevel | null;
  messages: number;
  bytes: number;
}

/** Everything a report says, as collected. */
export interface ReportData {
  readonly startedAt: Date;
  readonly negotiated: { readonly client: 1 | 2; readonly agent: 1 | 2; readonly mode: "pass" | "A" | "B" } | null;
  readonly received: { readonly client: number; readonly agent: number };
  readonly sent: { readonly client: number; readonly agent: number };
  readonly kinds: readonly KindCounts[];
  readonly losses: readonly LossKind[];
  readonly emulations: readonly Emulation[];
  readonly errors: readonly ErrorKind[];
  readonly diffs: { readonly exact: number; readonly hunkOnly: number };
  readonly stash: { readonly client: StashToward; readonly agent: StashToward };
  /** The tables that reached MAX_KEYS rows: their last row gathers the rest. */
  readonly capped: readonly string[];
}

function counts(kind: string): KindCounts {
  return { kind, fromClient: 0, toAgent: 0, fromAgent: 0, toClient: 0 };
}

function cut(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max)}…`;
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

function idKey(id: unknown): string | undefined {
  return typeof id === "string" ? `s${id}` : typeof id === "number" ? `n${String(id)}` : undefined;
}

/** A loss path as reports group it: keys joined by dots, array indices as `*`. */
function pathPattern(path: Loss["path"]): string {
  if (path.length === 0) return "(the whole message)";
  return cut(path.map((p) => (typeof p === "number" ? "*" : shownKey(p))).join("."), MAX_REASON_CHARS);
}

/** The value at `path` in `src`, or at the deepest part of it that exists. */
function valueAt(src: unknown, path: Loss["path"]): { value: unknown; key: string | undefined } {
  let at = src;
  let key: string | undefined;
  for (const p of path) {
    const next: unknown =
      Array.isArray(at) && typeof p === "number"
        ? at[p]
        : isRecord(at) && typeof p === "string" && Object.hasOwn(at, p)
          ? at[p]
          : undefined;
    if (next === undefined) break;
    at = next;
    key = typeof p === "string" ? p : undefined;
  }
  return { value: at, key };
}

/** A redacted example of what a loss was about: the value at its path, cut to EXAMPLE_MAX_CHARS. */
function example(src: unknown, path: Loss["path"]): string {
  const { value, key } = valueAt(src, path);
  const text = JSON.stringify(redact(value, key)) ?? "(absent)";
  return cut(text, EXAMPLE_MAX_CHARS);
}

/** The `_meta["acp-bridge"]` values anywhere in `msg`, as the bytes of their JSON text (0: none). */
function stashBytes(msg: unknown): number {
  let bytes = 0;
  const stack: unknown[] = [msg];
  while (stack.length > 0) {
    const x = stack.pop();
    if (Array.isArray(x)) for (const v of x) stack.push(v);
    else if (isRecord(x))
      for (const [k, v] of Object.entries(x)) {
        if (k === "_meta" && isRecord(v) && Object.hasOwn(v, STASH_KEY))
          bytes += Buffer.byteLength(JSON.stringify(v[STASH_KEY]) ?? "");
        if (typeof v === "object" && v !== null) stack.push(v);
      }
  }
  return bytes;
}

/** What a side's request ids stand for until they are answered (insertion order: oldest first). */
class InFlight {
  private readonly ids = new Map<string, string>();

  add(id: unknown, method: string): void {
    const key = idKey(id);
    if (key === undefined) return;
    this.ids.delete(key);
    this.ids.set(key, method);
    if (this.ids.size > MAX_IN_FLIGHT) {
      const oldest = this.ids.keys().next();
      if (oldest.done !== true) this.ids.delete(oldest.value);
    }
  }

  take(id: unknown): string | undefined {
    const key = idKey(id);
    if (key === undefined) return undefined;
    const method = this.ids.get(key);
    this.ids.delete(key);
    return method;
  }
}

export class ReportCollector implements BridgeObserver {
  readonly startedAt = new Date();
  private versions: ReportData["negotiated"] = null;
  private readonly received = { client: 0, agent: 0 };
  private readonly sentTo = { client: 0, agent: 0 };
  private readonly kinds = new Capped<KindCounts>(() => counts(OTHER));
  private readonly losses = new Capped<LossKind>(() => ({
    direction: OTHER,
    message: OTHER,
    path: OTHER,
    reason: OTHER,
    count: 0,
    example: "",
  }));
  private readonly emulations = new Capped<Emulation>(() => ({ method: OTHER, how: OTHER, count: 0 }));
  private readonly errors = new Capped<ErrorKind>(() => ({
    to: "client",
    method: OTHER,
    code: null,
    reason: OTHER,
    origin: "bridge",
    count: 0,
  }));
  private readonly diffs = { exact: 0, hunkOnly: 0 };
  private readonly stashes: { client: StashToward; agent: StashToward } = {
    client: { level: null, messages: 0, bytes: 0 },
    agent: { level: null, messages: 0, bytes: 0 },
  };
  /** Requests each side sent the bridge, and the bridge sent each side: their answers' methods. */
  private readonly asked = { client: new InFlight(), agent: new InFlight() };
  private readonly askedOf = { client: new InFlight(), agent: new InFlight() };
  /** Errors about to go to a side that relay the far peer's (engine: `relayedError`). */
  private readonly relayed = new Set<string>();

  // ------------------------------------------------------------------ the core's hooks

  /** A message read from `from`. */
  onReceive(from: Side, msg: unknown): void {
    this.received[from]++;
    // An answer from `from` answers a request the bridge sent it.
    const kind = this.kindOf(msg, this.askedOf[from], this.asked[from]);
    const row = this.kinds.row(kind, () => counts(kind));
    if (from === "client") row.fromClient++;
    else row.fromAgent++;
  }

  /** A message written to `to`. */
  onSend(to: Side, msg: unknown): void {
    this.sentTo[to]++;
    if (isRecord(msg) && isRecord(msg.error)) this.error(to, msg);
    const kind = this.kindOf(msg, this.asked[to], this.askedOf[to]);
    const row = this.kinds.row(kind, () => counts(kind));
    if (to === "client") row.toClient++;
    else row.toAgent++;
    const bytes = stashBytes(msg);
    if (bytes > 0) {
      this.stashes[to].messages++;
      this.stashes[to].bytes += bytes;
    }
  }

  /**
   * What `msg` counts as: its method, `session/update:<variant>`, or the method its answer answers
   * (`answers`: the requests it can answer, taken; `requests`: where a request it is goes).
   */
  private kindOf(msg: unknown, answers: InFlight, requests: InFlight): string {
    if (!isRecord(msg)) return "(invalid)";
    if (typeof msg.method === "string") {
      const method = cut(msg.method, MAX_NAME_CHARS);
      if (msg.id !== undefined) requests.add(msg.id, method);
      if (method === "session/update") {
        const update = isRecord(msg.params) ? msg.params.update : undefined;
        const tag = isRecord(update) ? update.sessionUpdate : undefined;
        return `session/update:${typeof tag === "string" ? cut(tag, MAX_NAME_CHARS) : "(none)"}`;
      }
      return method;
    }
    const method = answers.take(msg.id) ?? "(unknown request)";
    return `${method} (${msg.error !== undefined ? "error" : "result"})`;
  }

  private error(to: Side, msg: Record<string, unknown>): void {
    const e = msg.error as Record<string, unknown>;
    const key = idKey(msg.id);
    const origin = key !== undefined && this.relayed.delete(`${to}${key}`) ? "relayed" : "bridge";
    // Peeked, not taken: kindOf takes it right after.
    const method = this.peekMethod(to, msg.id);
    const data = isRecord(e.data) ? e.data : undefined;
    const raw = typeof data?.reason === "string" ? data.reason : undefined;
    // The bridge's reasons are its own words; a peer's are shown only when they are identifiers.
    const reason =
      raw === undefined
        ? "(none)"
        : origin === "bridge"
          ? cut(raw, MAX_REASON_CHARS)
          : keptEnum("type", raw)
            ? raw
            : `…(${String(raw.length)} chars)`;
    const code = typeof e.code === "number" ? e.code : null;
    const row = this.errors.row(JSON.stringify([to, method, code, reason, origin]), () => ({
      to,
      method,
      code,
      reason,
      origin,
      count: 0,
    }));
    row.count++;
  }

  private peekMethod(to: Side, id: unknown): string {
    const method = this.asked[to].take(id);
    if (method === undefined) return id === null ? "(unreadable request)" : "(unknown request)";
    this.asked[to].add(id, method);
    return method;
  }

  // ------------------------------------------------------------------ the engine's observer

  negotiated(client: 1 | 2, agent: 1 | 2, mode: "pass" | "A" | "B"): void {
    this.versions = { client, agent, mode };
  }

  stash(toward: Side, level: StashLevel): void {
    this.stashes[toward].level = level;
  }

  lost(kind: string, from: Side, losses: readonly Loss[], src: unknown): void {
    const direction = from === "client" ? "client→agent" : "agent→client";
    const message = cut(kind, MAX_NAME_CHARS);
    for (const l of losses) {
      const path = pathPattern(l.path);
      const reason = cut(l.reason, MAX_REASON_CHARS);
      const row = this.losses.row(JSON.stringify([direction, message, path, reason]), () => ({
        direction,
        message,
        path,
        reason,
        count: 0,
        // One example per kind, made once: the only redaction a long session pays for.
        example: example(src, l.path),
      }));
      row.count++;
    }
  }

  emulated(method: string, how: string): void {
    const m = cut(method, MAX_NAME_CHARS);
    const h = cut(how, MAX_REASON_CHARS);
    this.emulations.row(JSON.stringify([m, h]), () => ({ method: m, how: h, count: 0 })).count++;
  }

  diff(exact: boolean): void {
    if (exact) this.diffs.exact++;
    else this.diffs.hunkOnly++;
  }

  relayedError(to: Side, id: Id): void {
    const key = idKey(id);
    if (key === undefined) return;
    // Taken by the error's onSend right after; bounded all the same.
    if (this.relayed.size >= MAX_IN_FLIGHT) this.relayed.clear();
    this.relayed.add(`${to}${key}`);
  }

  // ------------------------------------------------------------------ the result

  data(): ReportData {
    const capped: string[] = [];
    if (this.kinds.capped) capped.push("messages");
    if (this.losses.capped) capped.push("losses");
    if (this.emulations.capped) capped.push("emulations");
    if (this.errors.capped) capped.push("errors");
    const byCount = <T extends { count: number }>(rows: Iterable<T>): T[] =>
      [...rows].sort((a, b) => b.count - a.count);
    return {
      startedAt: this.startedAt,
      negotiated: this.versions,
      received: { ...this.received },
      sent: { ...this.sentTo },
      kinds: this.kinds.values().map((r) => ({ ...r })),
      losses: byCount(this.losses.values()).map((r) => ({ ...r })),
      emulations: byCount(this.emulations.values()).map((r) => ({ ...r })),
      errors: byCount(this.errors.values()).map((r) => ({ ...r })),
      diffs: { ...this.diffs },
      stash: { client: { ...this.stashes.client }, agent: { ...this.stashes.agent } },
      capped,
    };
  }
}
