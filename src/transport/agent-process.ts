// The agent as a child process: environment and stderr inherited, stdin/stdout piped for ACP. It
// runs in its own process group, so that the bridge can end it together with whatever it started
// (a shell, a language server) and nothing of it outlives the bridge.
import { spawn, type ChildProcess } from "node:child_process";
import { constants } from "node:os";
import type { ExitInfo } from "../engine/translator.js";
import type { Logger } from "../log.js";

export interface AgentProcess {
  readonly child: ChildProcess;
  /** The process itself ended (its pipes may still be held open by its children). */
  readonly exited: Promise<ExitInfo>;
  /** Error starting the process (e.g. command not found), if any. */
  readonly spawnError: Promise<SpawnFailure>;
  /** Send a signal to the agent's whole process group (the agent alone where groups do not exist). */
  signal(sig: NodeJS.Signals): void;
  /** True while any process of the agent's group is alive. */
  groupAlive(): boolean;
}

/** Why the agent could not be started, with the shell's conventional exit status. */
export interface SpawnFailure {
  readonly status: 126 | 127;
  readonly reason: "agent_not_found" | "agent_not_executable";
  readonly cause: string;
}

const GROUPS = process.platform !== "win32";

export function spawnAgent(command: string, args: readonly string[], interactive: boolean): AgentProcess {
  const child = spawn(command, [...args], {
    stdio: interactive ? "inherit" : ["pipe", "pipe", "inherit"],
    env: process.env,
    // A new process group (setsid): signals reach the agent's children too. Interactive logins
    // stay in the terminal's foreground group.
    detached: GROUPS && !interactive,
  });
  let onError: (e: SpawnFailure) => void = () => undefined;
  const spawnError = new Promise<SpawnFailure>((resolve) => (onError = resolve));
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once("error", (e: NodeJS.ErrnoException) => {
      // Only a failure to start counts here; a failed kill() of a running child also emits 'error'.
      if (child.pid !== undefined) return;
      const failure = spawnFailure(e);
      onError(failure);
      resolve({ code: failure.status, signal: null });
    });
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  const pid = child.pid;
  return {
    child,
    exited,
    spawnError,
    signal(sig) {
      if (pid === undefined) return;
      try {
        if (GROUPS && !interactive) process.kill(-pid, sig);
        else child.kill(sig);
      } catch {
        // The group is already gone.
      }
    },
    groupAlive() {
      if (pid === undefined) return false;
      try {
        process.kill(GROUPS && !interactive ? -pid : pid, 0);
        return true;
      } catch {
        return false;
      }
    },
  };
}

/** An agent piped for ACP, with SIGINT and SIGTERM (SIGHUP if asked) forwarded to its process group until `release`. */
export interface StartedAgent {
  readonly agent: AgentProcess;
  /** The agent's stdout ended or closed (followed from the start: it can end before the bridge reads it). */
  readonly stdoutEnded: Promise<void>;
  /** What the agent wrote before the bridge read its stdout; stdout stays paused until the bridge resumes it. */
  takeStdout(): Buffer[];
  /** Stop forwarding signals (the bridge is done with the agent). */
  release(): void;
}

/**
 * Starts the agent for a bridge: the launcher calls it before the bridge's code loads, so that the
 * agent's own start-up overlaps the bridge's instead of following it (start-up budget). A signal
 * that reaches the bridge from then on goes to the agent's group, and SIGKILL follows after
 * `graceMs` if the group is still alive.
 */
export function startAgent(
  command: string,
  args: readonly string[],
  graceMs: number,
  log: Logger,
  // `serve` runs many agents and ends each through its own connection's shutdown instead.
  forwardSignals = true,
  // `--report`: a hang-up ends the agent too, so that the bridge lives on to write the report.
  forwardHangup = false,
): StartedAgent {
  const agent = spawnAgent(command, args, false);
  const out = agent.child.stdout;
  if (!out) throw new Error("agent stdout is not piped");
  const stdoutEnded = new Promise<void>((resolve) => out.once("end", resolve).once("close", resolve));
  // Held, not read: when a child exits, node resumes its unread stdio streams, and what an agent
  // wrote before dying would be dropped before the bridge has loaded. Paused, nothing is read until then.
  const held: Buffer[] = [];
  const hold = (chunk: Buffer) => void held.push(chunk);
  out.on("data", hold).pause();
  const timers = new Set<NodeJS.Timeout>();
  const forward = (sig: NodeJS.Signals) => () => {
    log.debug(`forwarding ${sig} to the agent's process group`);
    timers.add(escalate(agent, sig, graceMs));
  };
  const onInt = forward("SIGINT");
  const onTerm = forward("SIGTERM");
  const onHup = forward("SIGHUP");
  if (forwardSignals) process.on("SIGINT", onInt).on("SIGTERM", onTerm);
  if (forwardSignals && forwardHangup) process.on("SIGHUP", onHup);
  return {
    agent,
    stdoutEnded,
    takeStdout() {
      out.off("data", hold);
      return held.splice(0);
    },
    release() {
      process.off("SIGINT", onInt).off("SIGTERM", onTerm).off("SIGHUP", onHup);
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}

/**
 * `sig` to the agent's process group now, SIGKILL after `graceMs` if any of it is still alive: the
 * pending timer (unref'd, so it never keeps the bridge running), for the caller to clear.
 */
export function escalate(agent: AgentProcess, sig: NodeJS.Signals, graceMs: number): NodeJS.Timeout {
  agent.signal(sig);
  const timer = setTimeout(() => {
    if (agent.groupAlive()) agent.signal("SIGKILL");
  }, graceMs);
  timer.unref();
  return timer;
}

function spawnFailure(e: NodeJS.ErrnoException): SpawnFailure {
  const notExecutable = e.code === "EACCES" || e.code === "EISDIR" || e.code === "ENOEXEC";
  return notExecutable
    ? { status: 126, reason: "agent_not_executable", cause: e.message }
    : { status: 127, reason: "agent_not_found", cause: e.message };
}

/** The conventional shell exit status for a process ended by a signal. */
export function exitStatus(info: ExitInfo): number {
  if (info.code !== null) return info.code;
  const num = info.signal ? (constants.signals as Record<string, number | undefined>)[info.signal] : undefined;
  return num !== undefined ? 128 + num : 1;
}
