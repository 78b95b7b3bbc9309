// SECURITY.md lists every bound of mappings/limits.ts with its default, option and consequence, and
// the README's options table lists every option of a limit (the table is the one source).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { limits } from "../../mappings/limits.js";

function limitRow(r: (typeof limits)[keyof typeof limits]): string {
  const option = r.option === undefined ? "—" : `\`${r.option} N\``;
  return `| ${r.what} | ${r.default.toLocaleString("en-US")} | ${option} | ${r.past} |`;
}

describe("limits documentation", () => {
  it("SECURITY.md has one row per limit of mappings/limits.ts, as the table says", () => {
    const security = readFileSync("SECURITY.md", "utf8");
    for (const r of Object.values(limits)) expect(security).toContain(limitRow(r));
  });

  it("the README's options table has every limit's option with its default", () => {
    const readme = readFileSync("README.md", "utf8");
    for (const r of Object.values(limits))
      if (r.option !== undefined) expect(readme).toContain(`| \`${r.option} N\` | ${r.default} |`);
  });
});
