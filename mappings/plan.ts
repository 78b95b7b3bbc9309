// Plan enum downgrades and the synthetic plan ID (T §2.6, T §6 rows PlanEntryStatus,
// PlanEntryPriority, PlanUpdateContent.type). v1 enums are closed; v2 ones are open.

import { z } from "zod";
import { defineTable } from "./table.js";

const Downgrade = z.object({
  /** Values v1 accepts (closed enum). */
  v1: z.array(z.string()).min(1),
  /** Known v2 values v1 lacks, and the v1 value shown instead (original stashed). */
  renamed: z.record(z.string(), z.string()),
  /** The v1 value for any other (unknown, `_x` or future) v2 value (original stashed). */
  unknown: z.string(),
});

export const planTable = defineTable(
  "plan",
  z
    .object({
      /** planId B invents for a v1 plan (plan-variants RFD). */
      defaultPlanId: z.string().min(1),
      /** The only plan content type v1 can render. */
      itemsType: z.string(),
      /** Other plan types a v1 client with the unstable `plan` capability accepts. */
      v1UnstableTypes: z.array(z.string()),
      entryStatus: Downgrade,
      entryPriority: Downgrade,
    })
    .refine((t) =>
      [t.entryStatus, t.entryPriority].every(
        (d) => d.v1.includes(d.unknown) && Object.values(d.renamed).every((v) => d.v1.includes(v)),
      ),
    ),
  {
    defaultPlanId: "main",
    itemsType: "items",
    v1UnstableTypes: ["file", "markdown"],
    // A cancelled task shows as closed, not as still to do (T §2.6, §8-6).
    entryStatus: {
      v1: ["pending", "in_progress", "completed"],
      renamed: { cancelled: "completed" },
      unknown: "pending",
    },
    entryPriority: { v1: ["high", "medium", "low"], renamed: {}, unknown: "medium" },
  },
);

/** The v1 value for a v2 enum value, and whether the original must be stashed. */
export function downgrade(d: z.output<typeof Downgrade>, value: string): { value: string; changed: boolean } {
  if (d.v1.includes(value)) return { value, changed: false };
  const renamed = Object.hasOwn(d.renamed, value) ? d.renamed[value] : undefined;
  return { value: renamed ?? d.unknown, changed: true };
}
