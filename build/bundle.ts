// `npm run build`, second step: bundles the CLI (tsc's output in dist/) into dist/bundle with
// esbuild, which bin/acp-bridge.js loads. One file of the hot start instead of ~200 modules to
// resolve and read, and no zod: the mappings tables are checked here, at build time (importing
// them runs their zod checks), and the bundle gets the checked tables as data.
import { readdirSync, rmSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild";
import { checkedTables } from "../mappings/table.js";

const dist = fileURLToPath(new URL("..", import.meta.url));
const mappingsDir = `${dist}mappings`;

// Every table module, so that every table is checked (and recorded) here.
for (const file of readdirSync(mappingsDir)
  .filter((f) => f.endsWith(".js"))
  .sort())
  await import(pathToFileURL(`${mappingsDir}/${file}`).href);

const tables: Record<string, unknown> = Object.fromEntries(checkedTables);
const json = JSON.stringify(tables);
// The bundle's tables must be the very values the checks produced.
if (!isDeepStrictEqual(JSON.parse(json), tables)) throw new Error("a mappings table does not survive JSON");

/** In the bundle: zod is never loaded, and each table is its checked value. */
const checkedTablesPlugin: Plugin = {
  name: "checked-tables",
  setup(b) {
    // Only the tables' zod: the editor's tools and the MCP SDK (loaded lazily) need the real one.
    b.onResolve({ filter: /^zod$/ }, (args) =>
      args.importer.startsWith(mappingsDir) ? { path: "zod", namespace: "checked-tables" } : undefined,
    );
    b.onResolve({ filter: /\/table\.js$/ }, (args) =>
      args.importer.startsWith(mappingsDir) ? { path: "table", namespace: "checked-tables" } : undefined,
    );
    b.onLoad({ filter: /^zod$/, namespace: "checked-tables" }, () => ({
      // The schemas are still written in the table modules: an inert stand-in builds nothing.
      contents:
        "const inert = new Proxy(function () {}, { get: () => inert, apply: () => inert });\nexport const z = inert;\n",
      loader: "js",
    }));
    b.onLoad({ filter: /^table$/, namespace: "checked-tables" }, () => ({
      contents: `const tables = ${json};\nexport function defineTable(name) {\n  if (!Object.hasOwn(tables, name)) throw new Error("mappings/" + name + ": not checked at build time");\n  return tables[name];\n}\n`,
      loader: "js",
    }));
  },
};

// Chunk names carry content hashes: start clean so that stale ones do not pile up.
rmSync(`${dist}bundle`, { recursive: true, force: true });
await build({
  entryPoints: [`${dist}src/cli.js`],
  outdir: `${dist}bundle`,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // CommonJS dependencies (ajv-formats) call require(): give the ES module one.
  banner: {
    js: 'import { createRequire as __acpCreateRequire } from "node:module";\nconst require = __acpCreateRequire(import.meta.url);',
  },
  sourcemap: true,
  logLevel: "warning",
  plugins: [checkedTablesPlugin],
});

// The launcher's early start (src/early.ts), CommonJS so that the launcher loads it before node's ES
// module loader starts: one file, the same checked tables.
await build({
  entryPoints: [`${dist}src/early.js`],
  outfile: `${dist}bundle/early.cjs`,
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  sourcemap: true,
  logLevel: "warning",
  plugins: [checkedTablesPlugin],
});
