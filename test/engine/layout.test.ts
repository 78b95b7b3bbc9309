// The two translating engines mirror each other (CONTRIBUTING.md, "Where each concept lives"): the
// same file names for the same concerns, so that learning one direction teaches the other. A file
// on one side only is either a concern the other direction does not have (listed below, with why)
// or a divergence this test reports.
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ENGINE = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "src", "engine");

/** Files that exist on one side only, each with the reason the other direction has none. */
const ONE_SIDED: Readonly<Record<"v1-client" | "v2-client", Readonly<Record<string, string>>>> = {
  "v1-client": {
    // The text and digests of each message shown to the v1 client, for the echo and upsert rules
    // of T §2.1; direction B keeps only the open message, on its session.
    "state/messages.ts": "A's per-session message table",
    // The v1 client's fs and terminals offered to a v2 agent as an MCP server (H §6.5); a v1
    // agent has a v2 client whose fs and terminals v2 removed: nothing to offer.
    "editor.ts": "A offers the v1 client's fs and terminals to the v2 agent",
  },
  "v2-client": {
    // The v2 baseline a v1 agent lacks (resume, list, close; H §2.3); a v2 agent has it all.
    "emulation.ts": "B emulates what a v1 agent lacks",
    // The turn strategy behind an A bridge (T §5.5) and the one chosen otherwise; a v1 client has
    // no turn states to report, so direction A has one way to run a turn.
    "peer.ts": "B's turn strategy behind an A bridge",
    "turns.ts": "B's turn strategies",
  },
};

function files(side: "v1-client" | "v2-client"): string[] {
  return readdirSync(join(ENGINE, side), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => f.split("\\").join("/"))
    .sort();
}

describe("the engine layout", () => {
  it("gives both directions the same file for the same concern", () => {
    const a = files("v1-client");
    const b = files("v2-client");
    const onlyA = a.filter((f) => !b.includes(f) && !Object.hasOwn(ONE_SIDED["v1-client"], f));
    const onlyB = b.filter((f) => !a.includes(f) && !Object.hasOwn(ONE_SIDED["v2-client"], f));
    expect({ onlyA, onlyB }).toEqual({ onlyA: [], onlyB: [] });
  });

  it("lists as one-sided only files that exist on that side and not on the other", () => {
    const a = files("v1-client");
    const b = files("v2-client");
    for (const f of Object.keys(ONE_SIDED["v1-client"]))
      expect([f, a.includes(f), b.includes(f)]).toEqual([f, true, false]);
    for (const f of Object.keys(ONE_SIDED["v2-client"]))
      expect([f, b.includes(f), a.includes(f)]).toEqual([f, true, false]);
  });

  it("shares the core concerns between the two directions", () => {
    const a = files("v1-client");
    for (const f of [
      "engine.ts",
      "context.ts",
      "pairing.ts",
      "lifecycle.ts",
      "config-options.ts",
      "prompts.ts",
      "prompt-lifecycle.ts",
      "agent-requests.ts",
      "session.ts",
      "state/tool-calls.ts",
      "updates/index.ts",
      "updates/messages.ts",
      "updates/tool-calls.ts",
      "updates/terminals.ts",
    ])
      expect(a.includes(f) && files("v2-client").includes(f) ? f : `missing: ${f}`).toBe(f);
  });
});
