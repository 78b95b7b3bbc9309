// Tables in mappings/ are plain data checked with zod when first loaded, so a typo in a rename or
// a capability path fails loudly at load time instead of translating silently wrong. The shipped
// CLI (a bundle, build/bundle.ts) does not load zod: the build runs these checks and puts each
// checked table in the bundle as data (`checkedTables`), which `defineTable` there returns.

import type { z } from "zod";

/** Every table checked so far, by name: what the build puts in the bundle. */
export const checkedTables = new Map<string, unknown>();

export function defineTable<S extends z.ZodType>(name: string, schema: S, data: z.input<S>): z.output<S> {
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    throw new Error(`mappings/${name}: invalid table: ${parsed.error.message}`);
  }
  if (checkedTables.has(name)) throw new Error(`mappings/${name}: two tables of one name`);
  checkedTables.set(name, parsed.data);
  return parsed.data;
}
