// `acp-bridge doctor`'s progress and colours (issue 23, item 4): on a terminal, a spinner with the
// elapsed time redrawn in place and coloured marks; never a colour with NO_COLOR; the report on a
// terminal is coloured too. (Piped, plain lines: test/e2e/doctor.test.ts.)
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { runDoctor } from "../../src/doctor/command.js";
import { tsxArgs } from "../support/peers.js";

const TIMEOUT = 60_000;

class Terminal extends Writable {
  readonly isTTY = true;
  text = "";
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString("utf8");
    done();
  }
}

async function onTerminal(env: NodeJS.ProcessEnv): Promise<{ status: number; stdout: string; stderr: string }> {
  const stdout = new Terminal();
  const stderr = new Terminal();
  const args = ["--", process.execPath, ...tsxArgs("test/fixtures/doctor-agent.ts"), "fine"];
  const status = await runDoctor(args, { stdout, stderr, env });
  return { status, stdout: stdout.text, stderr: stderr.text };
}

// eslint-disable-next-line no-control-regex
const COLOUR = /\u001b\[(?:1|2|3\d)m/;
// eslint-disable-next-line no-control-regex
const SPINNER_LINE = /\r\u001b\[K[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \[1\/4\] [^\n]* … \d+\.\d s/;

describe("doctor on a terminal", () => {
  it(
    "redraws each probe's line in place with a spinner and the elapsed time, then its outcome in colour",
    async () => {
      const run = await onTerminal({});
      expect(run.status).toBe(0);
      expect(run.stderr).toMatch(SPINNER_LINE);
      expect(run.stderr).toContain("\u001b[32m✓\u001b[0m [4/4]");
      expect(run.stdout).toMatch(COLOUR);
    },
    TIMEOUT,
  );

  it(
    "uses no colour with NO_COLOR, on stderr or stdout",
    async () => {
      const run = await onTerminal({ NO_COLOR: "1" });
      expect(run.status).toBe(0);
      expect(run.stderr).toContain("✓ [4/4]");
      expect(run.stderr).not.toMatch(COLOUR);
      expect(run.stdout).not.toMatch(COLOUR);
    },
    TIMEOUT,
  );
});
