// `npm run demo` is a newcomer's first screen (README "Set-up"): the built demo runs a v1 editor
// against the v2-only demo agent through the bridge at its default log level, and the bridge has
// nothing to warn about, so stderr stays empty and stdout ends with the translated turn's end.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);

describe("npm run demo", () => {
  it("shows the transcript and the turn's end with nothing on stderr", async () => {
    const { stdout, stderr } = await run(process.execPath, ["dist/src/demo/run-demo.js"], {
      env: { ...process.env, NO_COLOR: "1" },
    });
    expect(stderr).toBe("");
    expect(stdout).toMatch(/^acp-bridge demo: a v1 editor and a v2-only agent/);
    expect(stdout).toContain("   bridge  → v2 agent   initialize");
    expect(stdout).toMatch(/the bridge exited with 0\.\nTurn ended: stopReason end_turn\n$/);
  }, 60_000);
});
