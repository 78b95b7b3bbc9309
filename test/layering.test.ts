// The layering of CONTRIBUTING.md: imports go downward only, and the wire and the converters, side
// by side, do not import each other. Files outside the chain (log, version, options, schema, demo,
// docs, the cli glue) are not ranked.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
/** Each layer's rank: a module may import only from a layer of a greater rank (or its own layer). */
const RANK: Readonly<Record<string, number>> = {
  // ACP's remote transports (issue 22): a remote peer wired to the bridge as stdio and processes are.
  remote: -1,
  transport: 0,
  // `--report` (issue 23): beside the transport, an onlooker of the engine that the engine never imports.
  report: 0,
  engine: 1,
  // The editor's MCP server (H §6.5): the engine loads it; it uses the converters' path rules.
  editor: 1.5,
  wire: 2,
  convert: 2,
  mappings: 3,
  base: 4,
};

function layerOf(path: string): string | undefined {
  const parts = normalize(path).split("/");
  const name = parts[0] === "mappings" ? "mappings" : parts[0] === "src" && parts.length > 2 ? parts[1] : undefined;
  return name !== undefined && Object.hasOwn(RANK, name) ? name : undefined;
}

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => join(dir, f));
}

const ranked = (): string[] => [...sources("src"), ...sources("mappings")].filter((f) => layerOf(f) !== undefined);

/** Every relative import that does not point downward, as `file -> import`. */
function wrongImports(): string[] {
  const found: string[] = [];
  for (const file of ranked()) {
    const from = layerOf(file)!;
    for (const m of readFileSync(join(ROOT, file), "utf8").matchAll(/(?:\bfrom|^import)\s+"(\.[^"]+)"/gm)) {
      const to = layerOf(relative(ROOT, join(ROOT, dirname(file), m[1]!)));
      if (to === undefined || to === from) continue;
      if (RANK[to]! <= RANK[from]!) found.push(`${file} -> ${m[1]!}`);
    }
  }
  return found;
}

describe("layering", () => {
  it("no module imports from its own rank or above (transport → engine → wire | convert → mappings → base)", () => {
    expect(wrongImports()).toEqual([]);
  });

  it("every layer of the chain has modules the check ranks", () => {
    const layers = new Set(ranked().map(layerOf));
    for (const layer of Object.keys(RANK)) expect(layers.has(layer)).toBe(true);
  });
});
