// The method map (H §0.1, T §5): every ACP method of either version, its counterpart in the other
// version, and what the bridge does with it in each direction. The engine dispatches from here;
// the README's compatibility matrix is generated from it.

import { z } from "zod";
import { defineTable } from "./table.js";

const Side = z.enum(["client", "agent", "protocol"]);
/** How a message is handled when crossing versions. */
const Action = z.enum([
  "translate", // converted by src/convert (possibly renamed)
  "rename", // same payload, other name
  "emulate", // answered by the bridge itself (B baseline a v1 agent lacks)
  "refuse", // -32601 with a reason
  "consume", // used by the bridge, never forwarded
  "forward", // identical in both versions
  "n/a", // cannot occur in that direction
]);

const Row = z.object({
  v1: z.string().nullable(),
  v2: z.string().nullable(),
  kind: z.enum(["request", "notification"]),
  /** Who receives it (the side that implements the method). */
  handledBy: Side,
  /** v1 client -> bridge -> v2 agent. */
  a: Action,
  /** v2 client -> bridge -> v1 agent. */
  b: Action,
  spec: z.string(),
  note: z.string().optional(),
});

export type MethodRow = z.output<typeof Row>;

export const methodTable = defineTable("methods", z.array(Row), [
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
    v1: "session/new",
    v2: "session/new",
    kind: "request",
    handledBy: "agent",
    a: "translate",
    b: "translate",
    spec: "H §4.1",
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
  },
  {
    v1: "session/resume",
    v2: "session/resume",
    kind: "request",
    handledBy: "agent",
    a: "translate",
    b: "translate",
    spec: "H §4.4, §2.3",
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
  },
  {
    v1: "session/delete",
    v2: "session/delete",
    kind: "request",
    handledBy: "agent",
    a: "forward",
    b: "forward",
    spec: "H §4.8",
  },
  {
    v1: "session/fork",
    v2: "session/fork",
    kind: "request",
    handledBy: "agent",
    a: "translate",
    b: "translate",
    spec: "H §4.9",
    note: "unstable in both",
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
  },
  {
    v1: "session/set_model",
    v2: null,
    kind: "request",
    handledBy: "agent",
    a: "translate",
    b: "translate",
    spec: "legacy unstable (not in the pinned schemas)",
    note: "B: target of set_config_option on the option standing for a v1 agent's legacy `models`; A: set_config_option on the model option",
  },
  {
    v1: "session/set_config_option",
    v2: "session/set_config_option",
    kind: "request",
    handledBy: "agent",
    a: "translate",
    b: "translate",
    spec: "H §5.1, §5.3",
  },
  {
    v1: "session/prompt",
    v2: "session/prompt",
    kind: "request",
    handledBy: "agent",
    a: "translate",
    b: "translate",
    spec: "T §1",
  },
  {
    v1: "session/cancel",
    v2: "session/cancel",
    kind: "notification",
    handledBy: "agent",
    a: "translate",
    b: "translate",
    spec: "T §1.2-5, §1.4-7",
  },
  {
    v1: "session/update",
    v2: "session/update",
    kind: "notification",
    handledBy: "client",
    a: "translate",
    b: "translate",
    spec: "T §2",
  },
  {
    v1: "session/request_permission",
    v2: "session/request_permission",
    kind: "request",
    handledBy: "client",
    a: "translate",
    b: "translate",
    spec: "T §4",
  },
  {
    v1: "elicitation/create",
    v2: "elicitation/create",
    kind: "request",
    handledBy: "client",
    a: "translate",
    b: "translate",
    spec: "T §5.1",
  },
  {
    v1: "elicitation/complete",
    v2: "elicitation/complete",
    kind: "notification",
    handledBy: "client",
    a: "forward",
    b: "forward",
    spec: "T §5.1",
  },
  {
    v1: "fs/read_text_file",
    v2: null,
    kind: "request",
    handledBy: "client",
    a: "refuse",
    b: "refuse",
    spec: "H §6",
    note: "B: served with --serve-fs",
  },
  {
    v1: "fs/write_text_file",
    v2: null,
    kind: "request",
    handledBy: "client",
    a: "refuse",
    b: "refuse",
    spec: "H §6",
    note: "B: served with --serve-fs",
  },
  ...(["create", "output", "release", "wait_for_exit", "kill"] as const).map((m) => ({
    v1: `terminal/${m}`,
    v2: null,
    kind: "request" as const,
    handledBy: "client" as const,
    a: "refuse" as const,
    b: "refuse" as const,
    spec: "H §6",
    note: "B: served with --serve-terminal",
  })),
  {
    v1: null,
    v2: "tool_call/cancel",
    kind: "request",
    handledBy: "agent",
    a: "n/a",
    b: "refuse",
    spec: "H §0.1",
    note: "B: -32602 unless the tool call is bridge-owned",
  },
  {
    v1: null,
    v2: "terminal/cancel",
    kind: "request",
    handledBy: "agent",
    a: "n/a",
    b: "refuse",
    spec: "H §0.1, §6.3-7",
    note: "B: kills a bridge-served terminal, else -32602",
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
]);

const byV1 = new Map(methodTable.filter((r) => r.v1 !== null).map((r) => [r.v1, r]));
const byV2 = new Map(methodTable.filter((r) => r.v2 !== null).map((r) => [r.v2, r]));

export function methodRow(version: 1 | 2, method: string): MethodRow | undefined {
  return version === 1 ? byV1.get(method) : byV2.get(method);
}

/** Name of `method` (of version `from`) in the other version, `null` when it has none. */
export function counterpart(from: 1 | 2, method: string): string | null | undefined {
  const row = methodRow(from, method);
  if (!row) return undefined;
  return from === 1 ? row.v2 : row.v1;
}

/** Methods whose names start with `_` are extensions, forwarded opaquely (H §7.4). */
export const EXTENSION_PREFIX = "_";
/** Reserved for bridge-to-bridge traffic (T §5.5): consumed, never forwarded. */
export const BRIDGE_METHOD_PREFIX = "_acp-bridge/";
