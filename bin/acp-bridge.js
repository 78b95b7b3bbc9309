#!/usr/bin/env node
// Thin launcher: `npm run build` (run by `npm ci` through `prepare`) compiles the CLI to dist/ and
// bundles it into dist/bundle (build/bundle.ts), which starts faster than the module tree.
import "../dist/bundle/cli.js";
