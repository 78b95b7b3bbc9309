// Capability paths of H §2.1 (client, `initialize` params) and H §2.2 (agent, `initialize` result):
// every field with its v1 path, v2 path and transform. src/convert/capabilities.ts runs on these rows.

import { z } from "zod";
import { defineTable } from "./table.js";

/**
 * How a field crosses versions:
 * - `copy`: same value on both sides (an object row is a container: its keys that have rows of their
 *   own are mapped by those rows, every other key is copied verbatim);
 * - `bool↔marker`: v1 `true` ⇄ v2 `{}`; v1 `false`/∅ ⇄ v2 ∅ (`null` reads as unsupported);
 * - `drop+stash`: no counterpart; dropped, kept in the stash, the reverse synthesizes `synthV1`/`synthV2`;
 * - `baseline`: a v1 opt-in that v2 makes mandatory; dropped toward v2, synthesized toward v1;
 * - `synthesize`: exists on one side only and is always synthesized there.
 */
const Kind = z.enum(["copy", "bool↔marker", "drop+stash", "synthesize", "baseline"]);

/** Values a converter synthesizes for a field the source version has no counterpart of. */
const Synth = z.enum([
  "fsOffer", // {readTextFile: false, writeTextFile: false}: nobody serves a v1 agent's fs/* (H §6)
  "terminalOffer", // false: nobody serves a v1 agent's terminal/* (H §6)
  "terminalOutputOffer", // true where the bridge translates the `_meta` terminal convention (T §2.5)
  "sessionBaseline", // `clientSessionBaseline` below
  "hasSession", // true iff the v2 agent advertises `session`
  "emptyIfSession", // {} iff the v2 agent advertises `session`
  "false",
  "emptyIfAuthMethods", // {} iff the authMethods a v1 client sees are non-empty (H §3.3)
  "empty", // {}
]);

/** The engine flags (H §2.4) a client's and an agent's capabilities set. */
const ClientFlag = z.enum([
  "terminalOutput",
  "booleanOptions",
  "notices",
  "compaction",
  "plan",
  "fsRead",
  "fsWrite",
  "terminals",
]);
const AgentFlag = z.enum([
  "hasSession",
  "load",
  "list",
  "resume",
  "close",
  "addDirs",
  "logout",
  "mcpStdio",
  "mcpHttp",
  "mcpSse",
  "mcpAcp",
]);
export type ClientFlagName = z.output<typeof ClientFlag>;
export type AgentFlagName = z.output<typeof AgentFlag>;

/**
 * An engine flag read from a row's field (src/convert/capabilities.ts). A v2 peer sets it with an
 * object (a marker) at the row's v2 path; where the row has no v2 path, the flag is what the row
 * synthesizes toward v1 (`synthV1`). A v1 peer sets it as `v1` says at the row's v1 path; a row that
 * always synthesizes the field toward v2 (`synthV2: empty`) has it set for every v1 peer.
 */
const FlagRead = z.object({
  flag: z.union([ClientFlag, AgentFlag]),
  /** The field below the row's path (`configOptions.boolean` under `session`); the row's own by default. */
  at: z.string().optional(),
  /** How a v1 peer says yes: `true`, or an object (`marker`). Absent: the row's `synthV2` decides. */
  v1: z.enum(["true", "marker"]).optional(),
});

/** What a v2 agent's flag is where the row has no v2 path: the row's `synthV1`, read as a flag. */
const FLAG_SYNTH_V1 = ["hasSession", "emptyIfSession", "false", "emptyIfAuthMethods"] as const;

const Row = z
  .object({
    caps: z.enum(["client", "agent"]),
    /** Dotted path inside v1 `clientCapabilities` / `agentCapabilities`; `*` = unknown top-level keys. */
    v1: z.string().nullable(),
    /** Dotted path inside v2 `capabilities`. */
    v2: z.string().nullable(),
    kind: Kind,
    /** Finer rows of the spec table that travel with this one (printed, not interpreted). */
    covers: z.array(z.string()).default([]),
    /**
     * Defined only by the unstable schemas (printed in the matrix). Carried anyway: the bridge cannot
     * know which schema variant a peer validates against, and the stable ones accept unknown keys.
     */
    unstable: z.boolean().default(false),
    /** What a conversion to v1 / to v2 puts there when the source has no counterpart. */
    synthV1: Synth.optional(),
    synthV2: Synth.optional(),
    /**
     * Residual key (dotted, inside the `v1…Caps` group) holding the source value as is. When the group
     * is present its keys win over synthesis, and a key missing from it means "absent" (H §2.2).
     */
    stashKey: z.string().optional(),
    /** Engine flags read from this field (H §2.4). */
    flags: z.array(FlagRead).default([]),
    /** Direction A (v1 client, v2 agent) and B (v2 client, v1 agent), as in the spec tables. */
    a: z.string(),
    b: z.string(),
    spec: z.string(),
  })
  .refine((r) => r.v1 !== null || r.v2 !== null, "a row needs a v1 or a v2 path")
  .refine((r) => r.kind !== "bool↔marker" || (r.v1 !== null && r.v2 !== null), "bool↔marker needs both paths")
  .refine((r) => (r.v1 === "*") === (r.v2 === "*"), "`*` must be on both sides")
  .refine(
    (r) => r.flags.every((f) => (f.v1 === undefined ? r.synthV2 === "empty" : r.v1 !== null)),
    "a flag needs a v1 reading where the row has a v1 path, and none where v1 peers always have it",
  )
  .refine(
    (r) =>
      r.caps === "client" ||
      r.v2 !== null ||
      r.flags.length === 0 ||
      (r.synthV1 !== undefined && (FLAG_SYNTH_V1 as readonly string[]).includes(r.synthV1)),
    "an agent flag without a v2 path needs a synthV1 that reads as a flag",
  );

/** Every flag of a kind read from exactly one row of that kind. */
function flagsComplete(rows: readonly z.output<typeof Row>[]): boolean {
  for (const [caps, names] of [
    ["client", ClientFlag.options],
    ["agent", AgentFlag.options],
  ] as const) {
    const read = rows.filter((r) => r.caps === caps).flatMap((r) => r.flags.map((f) => f.flag));
    if (read.length !== names.length || !names.every((n) => read.includes(n))) return false;
  }
  return true;
}

export type CapabilityRow = z.output<typeof Row>;
export type CapabilitySynth = z.output<typeof Synth>;

const H21 = "H §2.1";
const H22 = "H §2.2";

const Table = z.array(Row).refine(flagsComplete, "every engine flag is read from one row of its kind");

export const capabilityTable = defineTable("capabilities", Table, [
  // ---- H §2.1 client capabilities (`initialize` params) -------------------------------------------
  {
    caps: "client",
    v1: "fs",
    v2: null,
    kind: "drop+stash",
    covers: ["fs.readTextFile", "fs.writeTextFile", "fs._meta"],
    synthV1: "fsOffer",
    stashKey: "fs",
    // What the editor's MCP server may offer a v2 agent (mappings/editor-tools.ts, H §6.5).
    flags: [
      { flag: "fsRead", at: "readTextFile", v1: "true" },
      { flag: "fsWrite", at: "writeTextFile", v1: "true" },
    ],
    a: "drop; record; residual v1ClientCaps.fs; offered to the agent as the editor's MCP server (H §6.5)",
    b: "false: ACP v2 removed client fs, and the bridge answers the v1 agent's fs/* calls -32601 (H §6)",
    spec: `${H21}, H §6.3-6.4`,
  },
  {
    caps: "client",
    v1: "terminal",
    v2: null,
    kind: "drop+stash",
    synthV1: "terminalOffer",
    stashKey: "terminal",
    flags: [{ flag: "terminals", v1: "true" }],
    a: "drop; record; residual v1ClientCaps.terminal; offered to the agent as the editor's MCP server (H §6.5)",
    b: "false: ACP v2 removed client terminals, and the bridge answers the v1 agent's terminal/* calls -32601 (H §6)",
    spec: `${H21}, H §6.3-6.4`,
  },
  {
    caps: "client",
    v1: "_meta.terminal_output",
    v2: null,
    kind: "drop+stash",
    synthV1: "terminalOutputOffer",
    stashKey: "terminalOutput",
    flags: [{ flag: "terminalOutput", v1: "true" }],
    a: "drop (v2 terminals are native); record: v2 terminals reach the client as the `_meta` convention (T §2.5)",
    b: "true: the bridge turns the `_meta` terminal convention into v2 terminal updates (T §2.5)",
    spec: `${H21}, T §2.5`,
  },
  {
    caps: "client",
    v1: "session",
    v2: null,
    kind: "baseline",
    covers: [
      "session.configOptions.boolean",
      "session.notices",
      "session.compaction",
      "session._meta",
      "session.configOptions._meta",
    ],
    synthV1: "sessionBaseline",
    stashKey: "session",
    flags: [
      { flag: "booleanOptions", at: "configOptions.boolean", v1: "marker" },
      { flag: "notices", at: "notices", v1: "marker" },
      { flag: "compaction", at: "compaction", v1: "marker" },
    ],
    a: "drop (baseline in v2); record; residual v1ClientCaps.session",
    b: "always {configOptions:{boolean:{}}, notices:{}, compaction:{}}",
    spec: H21,
  },
  {
    caps: "client",
    v1: "plan",
    v2: null,
    kind: "baseline",
    stashKey: "plan",
    flags: [{ flag: "plan", v1: "marker" }],
    a: "drop (plan_update is baseline in v2); record; residual v1ClientCaps.plan",
    b: "omitted (the bridge offers a v1 agent no unstable capabilities)",
    spec: `${H21} (unstable)`,
  },
  {
    caps: "client",
    v1: "subagents",
    v2: null,
    kind: "drop+stash",
    stashKey: "subagents",
    a: "drop; residual v1ClientCaps.subagents",
    b: "nothing",
    spec: `${H21} (unstable)`,
  },
  {
    caps: "client",
    v1: "auth",
    v2: "auth",
    kind: "copy",
    covers: ["auth._meta"],
    a: "copy",
    b: "copy (v2 null: omitted, stashed)",
    spec: H21,
  },
  {
    caps: "client",
    v1: "auth.terminal",
    v2: "auth.terminal",
    kind: "bool↔marker",
    a: "bool→marker; omitted when the bridge cannot relaunch the agent (H §3.4)",
    b: "marker→bool, false when the bridge cannot relaunch the agent; marker content → v2ClientCaps.markers",
    spec: `${H21}, H §3.4`,
  },
  {
    caps: "client",
    v1: "elicitation",
    v2: "elicitation",
    kind: "copy",
    covers: ["elicitation.form", "elicitation.url", "elicitation._meta"],
    a: "copy",
    b: "copy",
    spec: H21,
  },
  {
    caps: "client",
    v1: "_meta",
    v2: "_meta",
    kind: "copy",
    a: "copy (+stash)",
    b: "copy (+stash)",
    spec: `${H21}, H §7.5`,
  },
  {
    caps: "client",
    v1: "*",
    v2: "*",
    kind: "drop+stash",
    stashKey: "unknown",
    a: "residual v1ClientCaps.unknown",
    b: "residual v2ClientCaps.unknown",
    spec: H21,
  },

  // ---- H §2.2 agent capabilities (`initialize` result) --------------------------------------------
  {
    caps: "agent",
    v1: "sessionCapabilities",
    v2: "session",
    kind: "copy",
    covers: ["sessionCapabilities._meta ⇄ session._meta"],
    synthV2: "empty",
    flags: [{ flag: "hasSession" }],
    a: "present → v1 session surface; absent → every v1 flag false, residual v2AgentCaps.absent += session",
    b: "always session: {...} (v1 agents always have the session baseline)",
    spec: H22,
  },
  {
    caps: "agent",
    v1: "loadSession",
    v2: null,
    kind: "baseline",
    synthV1: "hasSession",
    stashKey: "loadSession",
    flags: [{ flag: "load", v1: "true" }],
    a: "true iff session present",
    b: "drop; record; residual v1AgentCaps.loadSession",
    spec: H22,
  },
  ...(["list", "resume", "close"] as const).map((m) => ({
    caps: "agent" as const,
    v1: `sessionCapabilities.${m}`,
    v2: null,
    kind: "baseline" as const,
    synthV1: "emptyIfSession" as const,
    stashKey: `sessionCapabilities.${m}`,
    flags: [{ flag: m, v1: "marker" as const }],
    a: "{} iff session present",
    b: `drop; record; residual v1AgentCaps.sessionCapabilities.${m}; emulated if absent (H §2.3)`,
    spec: `${H22}, H §2.3`,
  })),
  ...(["delete", "additionalDirectories", "_meta"] as const).map((k) => ({
    caps: "agent" as const,
    v1: `sessionCapabilities.${k}`,
    v2: `session.${k}`,
    kind: "copy" as const,
    flags: k === "additionalDirectories" ? [{ flag: "addDirs" as const, v1: "marker" as const }] : [],
    a: "copy",
    b: "copy",
    spec: H22,
  })),
  ...(["fork", "archive", "status", "title", "systemPrompt"] as const).map((k) => ({
    caps: "agent" as const,
    v1: `sessionCapabilities.${k}`,
    v2: `session.${k}`,
    kind: "copy" as const,
    unstable: true,
    a: "copy (the v1 unstable path; stable v1 readers ignore it)",
    b: "copy (the v2 unstable path; stable v2 readers ignore it)",
    spec: `${H22} (unstable)`,
  })),
  {
    caps: "agent",
    v1: "promptCapabilities",
    v2: "session.prompt",
    kind: "copy",
    covers: ["promptCapabilities._meta ⇄ session.prompt._meta"],
    a: "copy",
    b: "copy",
    spec: `${H22}, H §7.5`,
  },
  ...(["image", "audio", "embeddedContext"] as const).map((k) => ({
    caps: "agent" as const,
    v1: `promptCapabilities.${k}`,
    v2: `session.prompt.${k}`,
    kind: "bool↔marker" as const,
    a: "marker→bool; marker content → v2AgentCaps.markers",
    b: "bool→marker",
    spec: H22,
  })),
  {
    caps: "agent",
    v1: "mcpCapabilities",
    v2: "session.mcp",
    kind: "copy",
    covers: ["mcpCapabilities._meta ⇄ session.mcp._meta"],
    a: "copy",
    b: "copy",
    spec: `${H22}, H §7.5`,
  },
  {
    caps: "agent",
    v1: null,
    v2: "session.mcp.stdio",
    kind: "synthesize",
    synthV2: "empty",
    flags: [{ flag: "mcpStdio" }],
    a: "v1 cannot say no: record agent.mcpStdio=false, residual v2AgentCaps.absent += session.mcp.stdio (H §4.2)",
    b: "always {} (v1 agents must support stdio)",
    spec: `${H22}, H §4.2`,
  },
  {
    caps: "agent",
    v1: "mcpCapabilities.http",
    v2: "session.mcp.http",
    kind: "bool↔marker",
    flags: [{ flag: "mcpHttp", v1: "true" }],
    a: "marker→bool",
    b: "bool→marker",
    spec: H22,
  },
  {
    caps: "agent",
    v1: "mcpCapabilities.sse",
    v2: null,
    kind: "drop+stash",
    synthV1: "false",
    stashKey: "mcpSse",
    flags: [{ flag: "mcpSse", v1: "true" }],
    a: "always false (SSE removed in v2)",
    b: "drop; residual v1AgentCaps.mcpSse",
    spec: H22,
  },
  {
    caps: "agent",
    v1: "mcpCapabilities.acp",
    v2: "session.mcp.acp",
    kind: "bool↔marker",
    flags: [{ flag: "mcpAcp", v1: "true" }],
    a: "marker→bool",
    b: "bool→marker",
    spec: `${H22} (unstable)`,
  },
  { caps: "agent", v1: "auth", v2: "auth", kind: "copy", covers: ["auth._meta"], a: "copy", b: "copy", spec: H22 },
  {
    caps: "agent",
    v1: "auth.logout",
    v2: null,
    kind: "baseline",
    synthV1: "emptyIfAuthMethods",
    stashKey: "authLogout",
    flags: [{ flag: "logout", v1: "marker" }],
    a: "{} iff the v1-visible authMethods are non-empty (H §3.3)",
    b: "drop; record; residual v1AgentCaps.authLogout (auth/logout then -32601, H §3.1)",
    spec: `${H22}, H §3.1`,
  },
  {
    caps: "agent",
    v1: "auth.status",
    v2: "auth.status",
    kind: "copy",
    a: "copy",
    b: "copy",
    spec: `${H22} (unstable)`,
  },
  { caps: "agent", v1: "providers", v2: "providers", kind: "copy", a: "copy", b: "copy", spec: `${H22} (unstable)` },
  {
    caps: "agent",
    v1: "_meta",
    v2: "_meta",
    kind: "copy",
    a: "copy (+stash)",
    b: "copy (+stash)",
    spec: `${H22}, H §7.5`,
  },
  {
    caps: "agent",
    v1: "*",
    v2: "*",
    kind: "drop+stash",
    stashKey: "unknown",
    a: "residual v2AgentCaps.unknown",
    b: "residual v1AgentCaps.unknown",
    spec: H22,
  },
]);

/** Residual keys of the capability groups (T §7.2 catalog, H §2.1-2.2). */
export const capabilityGroups = defineTable(
  "capabilities/groups",
  z.object({
    client: z.object({ v1: z.string(), v2: z.string() }),
    agent: z.object({ v1: z.string(), v2: z.string() }),
    /** Source paths absent in the source that the reverse conversion would create. */
    absent: z.string(),
    /** Exact v1 values (bools that were `false`, malformed values) at dotted v1 paths. */
    v1Values: z.string(),
    /** Exact v2 values (marker content, `null`) at dotted v2 paths. */
    v2Values: z.string(),
    /** Unknown top-level keys of the source capability object. */
    unknown: z.string(),
  }),
  {
    client: { v1: "v1ClientCaps", v2: "v2ClientCaps" },
    agent: { v1: "v1AgentCaps", v2: "v2AgentCaps" },
    absent: "absent",
    v1Values: "values",
    v2Values: "markers",
    unknown: "unknown",
  },
);

/** What B sends a v1 agent for `clientCapabilities.session` (v2 clients handle all of it). */
export const clientSessionBaseline = { configOptions: { boolean: {} }, notices: {}, compaction: {} } as const;

export function capabilityRows(caps: "client" | "agent"): CapabilityRow[] {
  return capabilityTable.filter((r) => r.caps === caps);
}
