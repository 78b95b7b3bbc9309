// The shipped CLI (dist/bundle, built by the global setup) starts without loading zod or yargs:
// the tables come checked from the build, and yargs only for help and usage errors.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const dir = new URL("../dist/bundle/", import.meta.url);

/** The files a start loads: cli.js and its static imports, transitively (dynamic imports excluded). */
function startClosure(entry: string, seen = new Set<string>()): Set<string> {
  if (seen.has(entry)) return seen;
  seen.add(entry);
  const text = readFileSync(new URL(entry, dir), "utf8");
  for (const m of text.matchAll(/^import\s[^;]*?from\s*"\.\/([^"]+)"|^import\s*"\.\/([^"]+)"/gm))
    startClosure(m[1] ?? m[2] ?? "", seen);
  return seen;
}

describe("bundle", () => {
  it("starts without zod, yargs and serve's server, which only its lazy chunks hold", () => {
    // A start is cli.js and the main chunk it imports (dynamically, so that --version skips it).
    const main = /import\("\.\/(main-[^"]+)"\)/.exec(readFileSync(new URL("cli.js", dir), "utf8"))?.[1];
    expect(main).toBeDefined();
    const start = [...startClosure(main ?? "", startClosure("cli.js"))];
    expect(start.length).toBeGreaterThan(1);
    const text = start.map((f) => readFileSync(new URL(f, dir), "utf8")).join("\n");
    expect(text).not.toContain("ZodError");
    expect(text).not.toContain("yargs-parser");
    // `serve` loads its server, the SDK's transports and `ws` only when asked for.
    expect(text).not.toContain("WebSocketServer");
    expect(text).not.toContain("AcpServer");
    expect(text).toContain("parseQuick");
  });

  it("gives the launcher an early start without zod or yargs, and without the engine", () => {
    const text = readFileSync(new URL("early.cjs", dir), "utf8");
    expect(text).toContain("startFromLauncher");
    expect(text).not.toContain("ZodError");
    expect(text).not.toContain("yargs-parser");
    expect(text).not.toContain("var Bridge = class");
  });
});

describe("launcher", () => {
  it("answers --version and -V from the launcher alone, without loading the CLI", () => {
    // The launcher and the package file alone, no dist/: loading the CLI would fail.
    const root = mkdtempSync(join(tmpdir(), "acp-bridge-launcher-"));
    try {
      mkdirSync(join(root, "bin"));
      for (const f of ["bin/acp-bridge.js", "bin/package.json", "package.json"])
        copyFileSync(new URL(`../${f}`, import.meta.url), join(root, f));
      const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
        version: string;
      };
      for (const flag of ["--version", "-V"])
        expect(execFileSync(process.execPath, [join(root, "bin/acp-bridge.js"), flag], { encoding: "utf8" })).toBe(
          `${version}\n`,
        );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
