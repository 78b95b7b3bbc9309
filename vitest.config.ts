import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // One worker per core: vitest's default leaves one core free, which on a 2-core machine runs
    // every file in one worker while the e2e files mostly wait on child processes.
    maxWorkers: "100%",
  },
});
