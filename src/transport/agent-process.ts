// The agent as a child process: environment and stderr inherited, stdin/stdout piped for ACP.
import { spawn, type ChildProcess } from "node:child_process";
import { constants } from "node:os";
import type { ExitInfo } from "../engine/translator.js";

export interface AgentProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<ExitInfo>;
  /** Error starting the process (e.g. command not found), if any. */
  readonly spawnError: Promise<Error>;
}

export function spawnAgent(command: string, args: readonly string[], interactive: boolean): AgentProcess {
  const child = spawn(command, [...args], {
    stdio: interactive ? "inherit" : ["pipe", "pipe", "inherit"],
    env: process.env,
  });
  let onError: (e: Error) => void = () => undefined;
  const spawnError = new Promise<Error>((resolve) => (onError = resolve));
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once("error", (e) => {
      onError(e);
      resolve({ code: 127, signal: null });
    });
    child.once("close", (code, signal) => resolve({ code, signal }));
  });
  return { child, exited, spawnError };
}

/** The conventional shell exit status for a process ended by a signal. */
export function exitStatus(info: ExitInfo): number {
  if (info.code !== null) return info.code;
  const num = info.signal ? (constants.signals as Record<string, number | undefined>)[info.signal] : undefined;
  return num !== undefined ? 128 + num : 1;
}
