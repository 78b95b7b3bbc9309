// AuthMethod descriptors (H §3.2, H §7.6 row `AuthMethod.type`): the field renames, the type tags
// of each version and where terminal-auth `env` changes shape. src/convert/auth.ts runs on this.

import { z } from "zod";
import { defineTable } from "./table.js";

const Rename = z.object({ v1: z.string().min(1), v2: z.string().min(1) });

export const authMethodTable = defineTable(
  "auth",
  z
    .object({
      /** Keys renamed between versions (a v2 `id` / v1 `methodId` extra key is stashed, not clobbered). */
      renames: z.array(Rename).min(1),
      /** Known types: v1 tag `null` = no `type` key (v1's default, agent auth). */
      types: z.array(z.object({ v1: z.string().nullable(), v2: z.string().min(1) })).min(1),
      /** Type whose `env` is a v1 map `{K: V}` and a v2 list `[{name, value, _meta?}]`. */
      envType: z.string(),
      env: z.object({ field: z.string(), name: z.string(), value: z.string() }),
      /** A v2 entry of any other type is omitted toward v1 (a v1 client would call it as agent auth). */
      unknownToV1: z.literal("omit"),
      /** A v1 entry of any other type is kept toward v2, renamed (H §7.6). */
      unknownToV2: z.literal("keep"),
    })
    .refine((t) => t.types.some((x) => x.v1 === t.envType && x.v2 === t.envType), "envType must be a known type"),
  {
    renames: [{ v1: "id", v2: "methodId" }],
    types: [
      { v1: null, v2: "agent" },
      { v1: "terminal", v2: "terminal" },
    ],
    envType: "terminal",
    env: { field: "env", name: "name", value: "value" },
    unknownToV1: "omit",
    unknownToV2: "keep",
  },
);

/** Residual keys of the auth stash (T §7.2 catalog). */
export const authResidual = defineTable(
  "auth/residual",
  z.object({
    /** On a v2 entry: the v1 `type` value (explicit `agent`, unknown, non-string) to restore. */
    type: z.string(),
    /** On a v1 entry: the raw v2 env list when the map cannot reproduce it (duplicates, `_meta`, order). */
    env: z.string(),
    /** On a v1 entry: v2 `args: null` (v1 has no null). */
    args: z.string(),
    /** On the result `_meta`: entries omitted from the target list, with their source indices. */
    omitted: z.string(),
    /** A key of the other version's name present as an extra key (e.g. v2 `id`), kept aside. */
    shadowed: z.string(),
  }),
  { type: "type", env: "env", args: "args", omitted: "authMethods", shadowed: "shadowed" },
);

/** The v1 tag of a known v2 type (`null` = omit the key); `undefined` for an unknown type. */
export function v1TypeOf(v2Type: string): string | null | undefined {
  return authMethodTable.types.find((t) => t.v2 === v2Type)?.v1;
}
