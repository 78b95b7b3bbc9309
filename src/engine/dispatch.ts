// The engines' handler tables, built from mappings/methods.ts: every method a peer can send in a
// direction gets the engine's own handler (its route needs one: translate, rename, emulate, consume),
// the default forward (same name, same payload), or the default refusal (-32601 naming the missing
// counterpart; a refused notification is dropped). The compiler checks the engine's handlers
// against the table (`Handlers`), so a method without a route does not build; lookups go through a
// Map, so `__proto__` or `toString` are unknown methods, never routes.
import {
  rowsFrom,
  type Direction,
  type Handlers,
  type Kind,
  type MethodRow,
  type Sender,
} from "../../mappings/methods.js";

interface Defaults<H> {
  /** The same method, the same payload, to the other peer. */
  readonly forward: () => H;
  /** The method cannot cross: answered -32601 (requests) or dropped (notifications). */
  readonly refuse: (row: MethodRow) => H;
}

export function dispatchTable<D extends Direction, S extends Sender, K extends Kind, H>(
  d: D,
  from: S,
  kind: K,
  handlers: Handlers<D, S, K, H>,
  defaults: Defaults<H>,
): ReadonlyMap<string, H> {
  const own: Readonly<Partial<Record<string, H>>> = handlers;
  const table = new Map<string, H>();
  for (const [method, row] of rowsFrom(d, from, kind)) {
    const handler = Object.hasOwn(own, method) ? own[method] : undefined;
    const route = row[d];
    table.set(method, handler ?? (route === "forward" ? defaults.forward() : defaults.refuse(row)));
  }
  return table;
}
