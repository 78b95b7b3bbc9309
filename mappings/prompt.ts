// Stop reasons of a finished turn (T §1.3, §1.5, §6): the v1 closed set, the v2 known values, and what
// a v2 value the v1 union cannot carry becomes. Read by src/convert/prompt.ts and its tests.

import { z } from "zod";
import { defineTable } from "./table.js";

const StopReasonRow = z.object({
  v2: z.string(),
  /** The v1 `stopReason`, or `null`: the turn ends with a JSON-RPC error instead (T §1.3). */
  v1: z.string().nullable(),
});

export const stopReasonTable = defineTable(
  "prompt",
  z.object({
    rows: z.array(StopReasonRow),
    /** v1 value for an absent, `null` or unknown v2 stop reason (T §6). */
    substitute: z.string(),
    /** v1 value whenever the client asked to cancel and the turn did not end normally (T §1.3). */
    cancelled: z.string(),
    /** The error a v1 prompt gets for `error` without an `error` object (T §1.3). */
    agentError: z.object({ code: z.number().int(), message: z.string() }),
  }),
  {
    rows: [
      { v2: "end_turn", v1: "end_turn" },
      { v2: "max_tokens", v1: "max_tokens" },
      { v2: "max_turn_requests", v1: "max_turn_requests" },
      { v2: "refusal", v1: "refusal" },
      { v2: "cancelled", v1: "cancelled" },
      { v2: "error", v1: null },
    ],
    substitute: "end_turn",
    cancelled: "cancelled",
    agentError: { code: -32603, message: "Agent error" },
  },
);

/** The five v1 stop reasons (a closed union). */
export const V1_STOP_REASONS: ReadonlySet<string> = new Set(
  stopReasonTable.rows.flatMap((r) => (r.v1 === null ? [] : [r.v1])),
);

/** v1 value of a known v2 stop reason; `null` for `error`; `undefined` when v1 has no such value. */
export function v1StopReasonOf(v2: string): string | null | undefined {
  return stopReasonTable.rows.find((r) => r.v2 === v2)?.v1;
}

/** The v2 stop reason that ends a turn with a JSON-RPC error on v1. */
export const ERROR_STOP_REASON = "error";
