// `acp-bridge serve` for the interop suite's remote run (issue 22): started in front of a real
// agent on a loopback port with a fresh token, stopped with SIGTERM (which reaps the agent).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { Launch } from "./agents/recipe.js";

export interface Served {
  /** The WebSocket URL of its `/acp` endpoint. */
  readonly url: string;
  readonly token: string;
  /** SIGTERM, then its exit (every connection's agent reaped). */
  stop(): Promise<void>;
}

export async function startServe(launch: Launch, env: NodeJS.ProcessEnv, cwd: string): Promise<Served> {
  const token = randomBytes(24).toString("base64url");
  const child = spawn(launch.command, [...launch.args], {
    cwd,
    env: { ...env, INTEROP_SERVE_TOKEN: token },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (d: string) => {
      stderr = (stderr + d).slice(-20_000);
      const m = /(ws:\/\/[^\s)]+\/acp)/.exec(stderr);
      if (m?.[1]) resolve(m[1]);
    });
    void exited.then(() => reject(new Error(`acp-bridge serve exited: ${stderr}`)));
  });
  let stopped: Promise<void> | undefined;
  return {
    url,
    token,
    stop() {
      stopped ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
        await exited;
      })();
      return stopped;
    },
  };
}
