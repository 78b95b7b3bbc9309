// The method map (H §0.1, T §5): every ACP method of the pinned schemas (v1 and v2, stable and
// unstable), its counterpart in the other version, and its route in each direction. The engines
// dispatch from it (src/engine/dispatch.ts builds their handler tables, and the compiler checks that
// every method routed `translate`/`rename`/`emulate` has a handler); the README's compatibility
// matrix is generated from it; test/mappings/methods.test.ts fails when a schema gains a method
// that has no row here.

import { z } from "zod";
import { defineTable } from "./table.js";

const Side = z.enum(["client", "agent", "protocol", "proxy"]);
/** How a message is handled when crossing versions. */
const Action = z.enum([
  "translate", // converted by src/convert (possibly renamed)
  "rename", // same payload, other name
  "emulate", // answered by the bridge itself (B baseline a v1 agent lacks)
  "refuse", // requests: -32601 with `data.reason`; notifications: dropped (logged)
  "consume", // used by the bridge, never forwarded
  "forward", // identical in both versions: same name, same payload
  "n/a", // cannot occur in that direction (the sender's version has no such method)
]);
export type Route = z.output<typeof Action>;

const Row = z.object({
  v1: z.string().nullable(),
  v2: z.string().nullable(),
  kind: z.enum(["request", "notification"]),
  /** Who receives it (the side that implements the method); `protocol` and `proxy`: either. */
  handledBy: Side,
  /** Defined only by the unstable schemas (of each version that has it). */
  unstable: z.boolean().optional(),
  /** v1 client -> bridge -> v2 agent. */
  a: Action,
  /** v2 client -> bridge -> v1 agent. */
  b: Action,
  spec: z.string(),
  note: z.string().optional(),
  /** Why a refused method cannot cross, appended to the refusal's `data.reason`. */
  why: z.string().optional(),
  /**
   * Params fields both versions type as strings (`name?`: when present). A translating bridge
   * refuses a message whose field is not one, rather than turn it into an invalid message
   * (engine/guard.ts).
   */
  strings: z.array(z.string()).optional(),
  /** The streaming path: its inputs get constant-time checks only, never a walk of the params. */
  hot: z.boolean().optional(),
  /** The result is not an object in the schemas (any JSON): forwarded unchecked. */
  opaqueResult: z.boolean().optional(),
  /**
   * A client request that makes a translating bridge keep state for a session: admitted against
   * `--max-sessions` (mappings/limits.ts) before its handler runs. `new`: a session it creates (a
   * fork's `sessionId` names its source); `named`: the session its `sessionId` names.
   */
  opensSession: z.enum(["new", "named"]).optional(),
  /**
   * A client request that still reaches a session closed on this connection (the agent keeps it
   * saved, H §2.3); the bridge answers any other -32002 (direction B, where close may be emulated).
   */
  afterClose: z.literal(true).optional(),
});

export type MethodRow = z.output<typeof Row>;

const FS_TERMINAL = {
  v2: null,
  kind: "request",
  handledBy: "client",
  a: "refuse",
  b: "refuse",
  spec: "H §6",
  why: "ACP v2 removed the client fs and terminal methods",
} as const;

const NO_PROXY = "acp-bridge is not a proxy-chain component: it is initialized with `initialize`, not by a conductor";

const rows = [
  {
    v1: "initialize",
    v2: "initialize",
    kind: "request",
    handledBy: "agent",
    a: "translate",
    b: "translate",
    spec: "H §1",
  },
  {
    v1: "authenticate",
    v2: "auth/login",
    kind: "request",
    handledBy: "agent",
    a: "rename",
    b: "rename",
    spec: "H §3.1",
    strings: ["methodId"],
  },
  {
    v1: "logout",
    v2: "auth/logout",
    kind: "request",
    handledBy: "agent",
    a: "rename",
    b: "rename",
    spec: "H §3.1",
    note: "B: -32601 when the v1 agent has no auth.logout",
  },
  {
    v1: "auth/status",
    v2: "auth/status",
    kind: "request",
    handledBy: "agent",
    unstable: true,
    a: "forward",
    b: "forward",
    spec: "schema",
  },
  {
    v1: "auth/status_update",
    v2: "auth/status_update",
    kind: "notification",
    handledBy: "client",
    unstable: true,
    a: "forward",
    b: "forward",
    spec: "schema",
  },
  {
    v1: "providers/list",
    v2: "providers/list",
    kind: "request",
    handledBy: "agent",
    unstable: true,
    a: "forward",
    b: "forward",
    spec: "schema",
  },
  {
    v1: "providers/set",
    v2: "providers/set",
    kind: "request",
    handledBy: "agent",
    unstable: true,
    a: "forward",
    b: "forward",
    spec: "schema",
    note: "v2 requires `baseUrl` to be a URI: a v2 agent rejects one that is not",
  },
  {
    v1: "providers/disable",
    v2: "providers/disable",
    kind: "request",
    handledBy: "agent",
    unstable: true,
    a: "forward",
    b: "forward",
    spec: "schema",
  },
  {
    v1: "session/new",
    v2: "session/new",
    kind: "request",
    handledBy: "agent",
    a: "translate",
    b: "translate",
    spec: "H §4.1",
    opensSession: "new",
  },
  {
    v1: "session/load",
    v2: null,
    kind: "request",
    handledBy: "agent",
    a: "translate",
    b: "n/a",
    spec: "H §4.3",
    note: "A: session/resume with replayFrom start; B: target of resume with replay",
    opensSession: "named",
  },
  {
    v1: "session/resume",
    v2: "session/resume",
    kind: "request",
    handledBy: "agent",
    a: "translate",
    b: "translate",
    spec: "H §4.4, §2.3",
    opensSession: "named",
    afterClose: true,
  },
  {
    v1: "session/list",
    v2: "session/list",
    kind: "request",
    handledBy: "agent",
    a: "translate",
    b: "translate",
    spec: "H §4.5, §2.3",
  },
  {
    v1: "session/close",
    v2: "session/close",
    kind: "request",
    handledBy: "agent",
    a: "forward",
    b: "translate",
    spec: "H §4.7, §2.3",
    note: "B: emulated when the v1 agent has no close",
    strings: ["sessionId"],
    afterClose: true,
  },
  {
    v1: "session/delete",
    v2: "session/delete",
    kind: "request",
    handledBy: "agent",
    a: "forward",
    b: "forward",
    spec: "H §4.8",
    strings: ["sessionId"],
    afterClose: true,
  },
  {
    v1: "session/fork",
    v2: "session/fork",
    kind: "request",
    handledBy: "agent",
    unstable: true,
    a: "translate",
    b: "translate",
    spec: "H §4.9",
    opensSession: "new",
  },
  {
    v1: "session/set_title",
    v2: "session/set_title",
    kind: "request",
    handledBy: "agent",
    unstable: true,
    a: "forward",
    b: "forward",
    spec: "schema",
    afterClose: true,
  },
  {
    v1: "session/archive",
    v2: "session/archive",
    kind: "request",
    handledBy: "agent",
    unstable: true,
    a: "forward",
    b: "forward",
    spec: "schema",
    afterClose: true,
  },
  {
    v1: "session/unarchive",
    v2: "session/unarchive",
    kind: "request",
    handledBy: "agent",
    unstable: true,
    a: "forward",
    b: "forward",
    spec: "schema",
    afterClose: true,
  },
  {
    v1: "session/status",
    v2: "session/status",
    kind: "request",
    handledBy: "agent",
    unstable: true,
    a: "forward",
    b: "translate",
    spec: "schema",
    note: "B: an `open` session gets the bridge's own foreground `state` (v1 has none)",
    afterClose: true,
    strings: ["sessionId"],
  },
  {
    v1: "session/set_mode",
    v2: null,
    kind: "request",
    handledBy: "agent",
    a: "translate",
    b: "n/a",
    spec: "H §5.2",
    note: "A: session/set_config_option on the bound mode option",
    opensSession: "named",
  },
  {
    v1: "session/set_model",
    v2: null,
    kind: "request",
    handledBy: "agent",
    a: "translate",
    b: "n/a",
    spec: "legacy unstable (not in the pinned schemas)",
    note: "B: target of set_config_option on the option standing for a v1 agent's legacy `models`; A: set_config_option on the model option",
    opensSession: "named",
  },
  {
    v1: "session/set_config_option",
    v2: "session/set_config_option",
    kind: "request",
    handledBy: "agent",
    a: "translate",
    b: "translate",
    spec: "H §5.1, §5.3",
    strings: ["sessionId", "configId"],
    opensSession: "named",
  },
  {
    v1: "session/prompt",
    v2: "session/prompt",
    kind: "request",
    handledBy: "agent",
    a: "translate",
    b: "translate",
    spec: "T §1",
    opensSession: "named",
  },
  {
    v1: "session/cancel",
    v2: "session/cancel",
    kind: "notification",
    handledBy: "agent",
    a: "translate",
    b: "translate",
    spec: "T §1.2-5, §1.4-7",
    strings: ["sessionId"],
  },
  {
    v1: "session/update",
    v2: "session/update",
    kind: "notification",
    handledBy: "client",
    a: "translate",
    b: "translate",
    spec: "T §2",
    strings: ["sessionId"],
    hot: true,
  },
  {
    v1: "session/request_permission",
    v2: "session/request_permission",
    kind: "request",
    handledBy: "client",
    a: "translate",
    b: "translate",
    spec: "T §4",
    strings: ["sessionId"],
  },
  {
    v1: "elicitation/create",
    v2: "elicitation/create",
    kind: "request",
    handledBy: "client",
    a: "translate",
    b: "translate",
    spec: "T §5.1",
    strings: ["message", "sessionId?", "toolCallId?", "url?", "elicitationId?"],
  },
  {
    v1: "elicitation/complete",
    v2: "elicitation/complete",
    kind: "notification",
    handledBy: "client",
    a: "forward",
    b: "forward",
    spec: "T §5.1",
    strings: ["elicitationId"],
  },
  {
    v1: "mcp/message",
    v2: "mcp/message",
    kind: "request",
    handledBy: "client",
    unstable: true,
    a: "forward",
    b: "forward",
    spec: "schema",
    note: "MCP over ACP: the agent calls a client-provided server",
    opaqueResult: true,
  },
  {
    v1: "mcp/message",
    v2: "mcp/message",
    kind: "notification",
    handledBy: "agent",
    unstable: true,
    a: "forward",
    b: "forward",
    spec: "schema",
    note: "MCP over ACP: the client-provided server notifies the agent",
  },
  { v1: "fs/read_text_file", ...FS_TERMINAL },
  { v1: "fs/write_text_file", ...FS_TERMINAL },
  { v1: "terminal/create", ...FS_TERMINAL },
  { v1: "terminal/output", ...FS_TERMINAL },
  { v1: "terminal/release", ...FS_TERMINAL },
  { v1: "terminal/wait_for_exit", ...FS_TERMINAL },
  { v1: "terminal/kill", ...FS_TERMINAL },
  {
    v1: null,
    v2: "tool_call/cancel",
    kind: "request",
    handledBy: "agent",
    a: "n/a",
    b: "refuse",
    spec: "H §0.1",
    why: "a v1 agent can only cancel the whole turn (session/cancel)",
  },
  {
    v1: null,
    v2: "terminal/cancel",
    kind: "request",
    handledBy: "agent",
    a: "n/a",
    b: "refuse",
    spec: "H §0.1, §6.3-7",
    why: "a v1 agent can only cancel the whole turn (session/cancel)",
  },
  {
    v1: "proxy/initialize",
    v2: "proxy/initialize",
    kind: "request",
    handledBy: "proxy",
    unstable: true,
    a: "refuse",
    b: "refuse",
    spec: "schema",
    why: NO_PROXY,
  },
  {
    v1: "proxy/successor",
    v2: "proxy/successor",
    kind: "request",
    handledBy: "proxy",
    unstable: true,
    a: "refuse",
    b: "refuse",
    spec: "schema",
    why: NO_PROXY,
  },
  {
    v1: "proxy/successor",
    v2: "proxy/successor",
    kind: "notification",
    handledBy: "proxy",
    unstable: true,
    a: "refuse",
    b: "refuse",
    spec: "schema",
    why: NO_PROXY,
  },
  {
    v1: "$/cancel_request",
    v2: "$/cancel_request",
    kind: "notification",
    handledBy: "protocol",
    a: "translate",
    b: "translate",
    spec: "H §7.3",
    note: "requestId remapped",
  },
] as const satisfies readonly z.input<typeof Row>[];

/** Only a request to the agent opens a session or reaches a closed one. */
const CheckedRow = Row.refine(
  (r) =>
    (r.opensSession === undefined && r.afterClose === undefined) || (r.kind === "request" && r.handledBy === "agent"),
  "only a request to the agent opens a session or reaches a closed one",
);

export const methodTable: readonly MethodRow[] = defineTable("methods", z.array(CheckedRow), [...rows]);

// ------------------------------------------------------------------ types the engines dispatch on

type Rows = (typeof rows)[number];
export type Direction = "a" | "b";
export type Kind = "request" | "notification";
export type Sender = "client" | "agent";

/** The version each side speaks in a direction. */
const versionOf = {
  a: { client: 1, agent: 2 },
  b: { client: 2, agent: 1 },
} as const;

type NameCol<D extends Direction, S extends Sender> = (typeof versionOf)[D][S] extends 1 ? "v1" : "v2";
/** Sides that receive what `S` sends. */
type Receivers<S extends Sender> = S extends "client"
  ? "agent" | "protocol" | "proxy"
  : "client" | "protocol" | "proxy";
type HandledRoute = "translate" | "rename" | "emulate" | "consume";

type RowsFrom<S extends Sender, K extends Kind> = Extract<Rows, { kind: K; handledBy: Receivers<S> }>;
type Names<R, C extends "v1" | "v2"> = R extends Record<C, infer N> ? Extract<N, string> : never;

/** The methods whose route in `D` needs a handler of the engine. */
type HandledFrom<D extends Direction, S extends Sender, K extends Kind> = Names<
  Extract<RowsFrom<S, K>, Record<D, HandledRoute>>,
  NameCol<D, S>
>;
/** The methods forwarded unchanged in `D`: a handler may observe them, the default forwards. */
type ForwardedFrom<D extends Direction, S extends Sender, K extends Kind> = Names<
  Extract<RowsFrom<S, K>, Record<D, "forward">>,
  NameCol<D, S>
>;

/**
 * An engine's handlers for one stream: exactly one for every method the table routes through the
 * engine (translate, rename, emulate, consume), optionally one for a forwarded method, none for a
 * refused one (the compiler rejects a missing or an extra key).
 */
export type Handlers<D extends Direction, S extends Sender, K extends Kind, H> = {
  readonly [M in HandledFrom<D, S, K>]: H;
} & { readonly [M in ForwardedFrom<D, S, K>]?: H };

const receivers: Record<Sender, readonly MethodRow["handledBy"][]> = {
  client: ["agent", "protocol", "proxy"],
  agent: ["client", "protocol", "proxy"],
};
const streams = new Map<string, Map<string, MethodRow>>();

/** The rows `from` can send in direction `d`, by the sender's method name (a Map: no prototype keys). */
export function rowsFrom(d: Direction, from: Sender, kind: Kind): ReadonlyMap<string, MethodRow> {
  const key = `${d}/${from}/${kind}`;
  let m = streams.get(key);
  if (!m) {
    const col = versionOf[d][from] === 1 ? "v1" : "v2";
    m = new Map();
    for (const r of methodTable) {
      const name = r[col];
      if (name !== null && r.kind === kind && receivers[from].includes(r.handledBy)) m.set(name, r);
    }
    streams.set(key, m);
  }
  return m;
}

/** The client requests of direction `d` whose row sets `column`, by the client's name, with its value. */
export function clientRequestsWith<C extends "opensSession" | "afterClose">(
  d: Direction,
  column: C,
): ReadonlyMap<string, NonNullable<MethodRow[C]>> {
  const out = new Map<string, NonNullable<MethodRow[C]>>();
  for (const [name, row] of rowsFrom(d, "client", "request")) {
    const value = row[column];
    if (value !== undefined) out.set(name, value);
  }
  return out;
}

/** The `data` of a refusal (-32601): the method and why it cannot cross, naming the missing counterpart. */
export function refusal(d: Direction, from: Sender, row: MethodRow): { method: string; reason: string } {
  const senderVersion = versionOf[d][from];
  const method = (senderVersion === 1 ? row.v1 : row.v2) ?? "";
  const counterpart = senderVersion === 1 ? row.v2 : row.v1;
  const receiver = from === "client" ? "agent" : "client";
  const missing =
    counterpart === null
      ? `the v${senderVersion === 1 ? 2 : 1} ${receiver} has no counterpart for ${method}`
      : undefined;
  const reason = [missing, row.why].filter((s) => s !== undefined).join(": ");
  return { method, reason: reason === "" ? `${method} cannot cross the bridge` : reason };
}

export function methodRow(version: 1 | 2, method: string): MethodRow | undefined {
  return methodTable.find((r) => (version === 1 ? r.v1 : r.v2) === method);
}

/** Every method name of the pinned schemas, of either version (a Set: no prototype keys). */
const schemaNames = new Set(methodTable.flatMap((r) => [r.v1, r.v2]).filter((n): n is string => n !== null));

/** A schema of either version defines `method` (whoever sends it, whatever its route). */
export function isSchemaMethod(method: string): boolean {
  return schemaNames.has(method);
}

/** Methods whose names start with `_` are extensions, forwarded opaquely (H §7.4). */
export const EXTENSION_PREFIX = "_";
/** Reserved for bridge-to-bridge traffic (T §5.5): consumed, never forwarded. */
export const BRIDGE_METHOD_PREFIX = "_acp-bridge/";
