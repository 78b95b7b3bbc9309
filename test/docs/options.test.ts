// The README's options table is generated from src/options.ts, and SECURITY.md's limits of an option
// state that option's default.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { withCheckOptions, withConvertOptions, withDoctorOptions, withOptions } from "../../src/docs/options-table.js";
import { OPTIONS, type OptionSpec } from "../../src/options.js";
import { SERVE_OPTIONS } from "../../src/remote/serve-options.js";

/** Every option of both tables: the bridge's and `serve`'s. */
const ALL: Readonly<Record<string, OptionSpec>> = { ...OPTIONS, ...SERVE_OPTIONS };

/** A default as SECURITY.md writes it: `1,024`, `32 MiB`, `256 KiB`, `30 s`. */
function amount(cell: string): number {
  const m = /^([0-9,]+)(?: (KiB|MiB|s))?$/.exec(cell.trim());
  if (!m?.[1]) throw new Error(`unreadable default: ${cell}`);
  const unit = { KiB: 1024, MiB: 1024 * 1024, s: 1000 }[m[2] ?? ""] ?? 1;
  return Number(m[1].replace(/,/g, "")) * unit;
}

describe("options documentation", () => {
  it("the README carries the options tables of src/options.ts and serve's (run `npm run docs` after a change)", () => {
    const readme = readFileSync("README.md", "utf8");
    expect(readme).toBe(withOptions(readme));
  });

  it("the README carries acp-bridge check's options table of src/check/options.ts (run `npm run docs`)", () => {
    const readme = readFileSync("README.md", "utf8");
    expect(readme).toBe(withCheckOptions(readme));
  });

  it("the README carries acp-bridge doctor's options table of src/doctor/options.ts (run `npm run docs`)", () => {
    const readme = readFileSync("README.md", "utf8");
    expect(readme).toBe(withDoctorOptions(readme));
  });

  it("the README carries acp-bridge convert's options table of src/replay/options.ts (run `npm run docs`)", () => {
    const readme = readFileSync("README.md", "utf8");
    expect(readme).toBe(withConvertOptions(readme));
  });

  it("the README's table states every integer option's range", () => {
    const readme = readFileSync("README.md", "utf8");
    for (const spec of Object.values(ALL))
      if (spec.type === "number") expect(readme).toContain(`N from ${String(spec.min)} to ${String(spec.max)} |`);
  });

  it("SECURITY.md states the default of every option it names as a limit", () => {
    const rows = readFileSync("SECURITY.md", "utf8")
      .split("\n")
      .map((l) => l.split(" | "))
      .filter((cells) => cells.length >= 4);
    const named = new Set<string>();
    for (const [, dflt, option] of rows) {
      const name = /^`--([a-z-]+)(?: N)?`$/.exec(option ?? "")?.[1];
      if (name === undefined || !Object.hasOwn(ALL, name)) continue;
      const spec = ALL[name]!;
      if (spec.type !== "number") continue;
      named.add(name);
      expect(amount(dflt ?? ""), `--${name}`).toBe(spec.default);
    }
    // The size, depth, handshake and shutdown limits, and the two of mappings/limits.ts.
    expect(named.size).toBeGreaterThanOrEqual(6);
    // serve's limits, each one.
    for (const [name, spec] of Object.entries(SERVE_OPTIONS))
      if (spec.type === "number") expect(named.has(name), `--${name}`).toBe(true);
  });
});
