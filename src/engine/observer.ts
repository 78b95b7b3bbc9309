// What the engine tells an onlooker about a run (`--report`, src/report/): what it negotiated, what
// its conversions lost, what it answered itself. The engine never imports the onlooker: it calls
// this interface, and only when one is configured (every call is `observer?.…`, free without one).
// Message counts and the errors the bridge sends are read from the core's onSend/onReceive hooks.
import type { Conv, Loss } from "../convert/result.js";
import type { StashLevel } from "../convert/stash.js";
import type { Id } from "../wire/jsonrpc.js";
import type { Side } from "./outgoing.js";

export interface BridgeObserver {
  /** The handshake settled: each side's version and the mode that serves them. */
  negotiated(client: 1 | 2, agent: 1 | 2, mode: "pass" | "A" | "B"): void;
  /** The stash level chosen toward `toward` (optionsToward), once that peer's initialize is known. */
  stash(toward: Side, level: StashLevel): void;
  /**
   * A conversion of a message of `kind` (a method, `<method> (result)`, or `session/update:<variant>`)
   * from `from` lost, invented or approximated something: `losses` point into `src`, its input.
   */
  lost(kind: string, from: Side, losses: readonly Loss[], src: unknown): void;
  /** The bridge answered `method` itself, on the other peer's behalf (`how`: in a few words). */
  emulated(method: string, how: string): void;
  /** A file a diff names was read for its exact text (`exact`), or the diff keeps its hunks only. */
  diff(exact: boolean): void;
  /** The error about to go to `to` for its request `id` is the far peer's answer, relayed. */
  relayedError(to: Side, id: Id): void;
}

/** Answers the bridge made itself in a peer's place (it left, it answered garbage): never relayed. */
const made = new WeakSet<object>();

/** `resp`, marked as the bridge's own answer (an error in it is no peer's, `isBridgeMade`). */
export function bridgeMade<T extends object>(resp: T): T {
  made.add(resp);
  return resp;
}

export function isBridgeMade(resp: object): boolean {
  return made.has(resp);
}

/** Tells `observer` what the converter's result `r` for `src` lost, if anything. */
export function noteLost(
  observer: BridgeObserver | undefined,
  kind: string,
  from: Side,
  src: unknown,
  r: Conv<unknown>,
): void {
  if (observer !== undefined && r.ok && r.lost.length > 0) observer.lost(kind, from, r.lost, src);
}

/** The loss of a whole message the target version has no form for (dropped, not converted). */
export function noteDropped(
  observer: BridgeObserver | undefined,
  kind: string,
  from: Side,
  src: unknown,
  reason: string,
): void {
  observer?.lost(kind, from, [{ path: [], reason }], src);
}

/** The kind of a `session/update` of variant `tag`, as reports count it. */
export function updateKind(tag: string): string {
  return `session/update:${tag}`;
}

/** The kind of the answer to `method`. */
export function resultKind(method: string): string {
  return `${method} (result)`;
}
