// Tables in mappings/ are plain data checked with zod when first loaded, so a typo in a rename or
// a capability path fails loudly at load time instead of translating silently wrong.

import type { z } from "zod";

export function defineTable<S extends z.ZodType>(name: string, schema: S, data: z.input<S>): z.output<S> {
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    throw new Error(`mappings/${name}: invalid table: ${parsed.error.message}`);
  }
  return parsed.data;
}
