// End-to-end tests spawn the BUILT CLI (the bundle bin/acp-bridge.js loads): build once before any
// test runs, so they never test stale code.
import { execFileSync } from "node:child_process";

export default function setup(): void {
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], {
    stdio: "inherit",
  });
  execFileSync(process.execPath, ["dist/build/bundle.js"], { stdio: "inherit" });
}
