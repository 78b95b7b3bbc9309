#!/usr/bin/env node
// Thin launcher, CommonJS (bin/package.json) so that `--version` is answered before node starts its
// ES module loader (the start-up budget: 20-50 ms on a small machine). Everything else loads the
// bundled CLI: `npm run build` (run by `npm ci` through `prepare`) compiles it to dist/ and bundles
// it into dist/bundle (build/bundle.ts), which starts faster than the module tree.
"use strict";

const own = process.argv.slice(2);
let version;
if (own.length === 1 && (own[0] === "--version" || own[0] === "-V")) {
  try {
    const pkg = JSON.parse(
      require("node:fs").readFileSync(require("node:path").join(__dirname, "..", "package.json"), "utf8"),
    );
    if (pkg.name === "acp-bridge" && typeof pkg.version === "string") version = pkg.version;
  } catch {
    // The CLI answers it then, as it always can.
  }
}
if (version !== undefined) process.stdout.write(`${version}\n`);
else {
  try {
    // The agent before node's ES module loader starts (src/early.ts): its start-up overlaps ours sooner.
    require("../dist/bundle/early.cjs").startFromLauncher(own);
  } catch {
    // The bundle starts it then, as it always can.
  }
  void import("../dist/bundle/cli.js");
}
