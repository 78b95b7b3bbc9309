// The README's compatibility matrix is generated from mappings/: it must match the tables.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { withMatrix } from "../../src/docs/matrix.js";

describe("README", () => {
  it("carries the compatibility matrix of the current mappings (run `npm run docs` after a change)", () => {
    const readme = readFileSync("README.md", "utf8");
    expect(readme).toBe(withMatrix(readme));
  });

  it("keeps the two set-up lines true", () => {
    const readme = readFileSync("README.md", "utf8");
    expect(readme).toContain("npm ci && npm run demo");
    expect(readme).toContain("npm ci && npm test");
    const scripts = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> }).scripts;
    expect(scripts.demo).toBeDefined();
    expect(scripts.test).toBeDefined();
  });
});
