// One probe's agent process: stdin, stdout and stderr piped (stderr is watched for noise), in its
// own process group so that ending a probe ends everything the agent started.
import { spawn } from "node:child_process";

const GROUPS = process.platform !== "win32";
/** stderr kept per probe for the report (what is beyond is counted, not kept). */
const STDERR_KEPT = 2048;

/** A wait that never keeps the process alive (the exit it races usually comes first). */
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export interface ProbeExit {
  /** Milliseconds from stdin's close to the process's exit; undefined when it outlived the grace. */
  readonly exitMs: number | undefined;
  /** It was gone before stdin closed (a crash, or an exit of its own). */
  readonly exitedEarly: boolean;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export class ProbeAgent {
  private readonly child;
  private buffer = "";
  private stderrText = "";
  stderrBytes = 0;
  /** Why it could not start (command not found, not executable). */
  spawnError: string | undefined;
  exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  readonly exited: Promise<void>;

  constructor(command: string, args: readonly string[], cwd: string, onLine: (line: string) => void) {
    this.child = spawn(command, [...args], { cwd, stdio: ["pipe", "pipe", "pipe"], detached: GROUPS });
    this.exited = new Promise<void>((resolve) => {
      this.child.once("error", (e) => {
        if (this.child.pid !== undefined) return;
        this.spawnError = e.message;
        this.exitInfo = { code: null, signal: null };
        resolve();
      });
      this.child.once("exit", (code, signal) => {
        this.exitInfo = { code, signal };
        resolve();
      });
    });
    // A broken pipe on a dead agent is the exit's to report, not a crash of the doctor's.
    this.child.stdin.on("error", () => undefined);
    this.child.stdout.on("data", (d: Buffer) => {
      this.buffer += d.toString("utf8");
      for (let nl = this.buffer.indexOf("\n"); nl !== -1; nl = this.buffer.indexOf("\n")) {
        const line = this.buffer.slice(0, nl).replace(/\r$/, "");
        this.buffer = this.buffer.slice(nl + 1);
        if (line.trim() !== "") onLine(line);
      }
    });
    this.child.stderr.on("data", (d: Buffer) => {
      this.stderrBytes += d.length;
      if (this.stderrText.length < STDERR_KEPT) this.stderrText += d.toString("utf8").slice(0, STDERR_KEPT);
    });
  }

  get stderr(): string {
    return this.stderrText;
  }

  write(line: string | Buffer): void {
    if (this.exitInfo || !this.child.stdin.writable) return;
    this.child.stdin.write(line);
    this.child.stdin.write("\n");
  }

  /**
   * Close stdin and time the exit (up to `graceMs`); then end the process group whatever it did
   * (SIGTERM, and SIGKILL if anything of it is still alive a moment later).
   */
  async finish(graceMs: number): Promise<ProbeExit> {
    const exitedEarly = this.exitInfo !== undefined;
    const start = Date.now();
    this.child.stdin.end();
    let timer: NodeJS.Timeout | undefined;
    const inTime = await Promise.race([
      this.exited.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), graceMs))),
    ]);
    clearTimeout(timer);
    const exitMs = inTime ? Date.now() - start : undefined;
    this.signal("SIGTERM");
    if (!inTime) await Promise.race([this.exited, pause(500)]);
    this.signal("SIGKILL");
    await Promise.race([this.exited, pause(1000)]);
    this.child.stdout.destroy();
    this.child.stderr.destroy();
    return { exitMs, exitedEarly, code: this.exitInfo?.code ?? null, signal: this.exitInfo?.signal ?? null };
  }

  private signal(sig: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      if (GROUPS) process.kill(-pid, sig);
      else this.child.kill(sig);
    } catch {
      // The group is gone already.
    }
  }
}
