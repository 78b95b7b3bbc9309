import { defineConfig } from "vitest/config";

// Tests that spawn the BUILT CLI (or read the bundle) need `npm run build` first; the global setup of
// their project does it, once per invocation. Everything else (converters, engine, models, wire) runs
// from source, so a one-file loop on a converter never waits for tsc and the bundler.
const BUILT = [
  "test/e2e/**/*.test.ts",
  "test/fuzz/**/*.test.ts",
  "test/build.test.ts",
  "test/options.test.ts",
  "test/peers.test.ts",
  "test/remote/**/*.test.ts",
];
// Files that replace a module (`vi.mock`) or use up process-wide state (the interned codes of
// slot-table.ts) need a module graph of their own.
const MOCKING = ["test/engine/barrier.test.ts", "test/engine/tool-seen-codes.test.ts"];

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // One worker per core: vitest's default leaves one core free, which on a 2-core machine runs
    // every file in one worker while the e2e files mostly wait on child processes.
    maxWorkers: "100%",
    // A test that writes onto Object.prototype fails itself, not the files after it.
    setupFiles: ["test/support/prototype-guard.ts"],
    projects: [
      // Source files share their worker's modules: each file importing the SDK, the schemas and the
      // engine afresh cost about a third of the suite's time.
      {
        extends: true,
        test: { name: "source", include: ["test/**/*.test.ts"], exclude: [...BUILT, ...MOCKING], isolate: false },
      },
      { extends: true, test: { name: "mocking", include: MOCKING } },
      { extends: true, test: { name: "built", include: BUILT, globalSetup: ["test/global-setup.ts"] } },
    ],
  },
});
