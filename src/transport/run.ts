// Wires the bridge between its own stdio (the client) and the agent's child process, with
// backpressure both ways, signal forwarding and an orderly shutdown. Never calls process.exit():
// piped stdout would be truncated (toolchain note); the caller sets process.exitCode.
import type { Readable } from "node:stream";
import { Bridge, type BridgeConfig } from "../engine/bridge.js";
import type { ExitInfo } from "../engine/translator.js";
import type { Logger } from "../log.js";
import { LineSplitter } from "../wire/ndjson.js";
import { LineWriter } from "../wire/writer.js";
import { exitStatus, spawnAgent } from "./agent-process.js";

export const DEFAULT_SHUTDOWN_GRACE_MS = 2000;

export interface RunOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly bridge: BridgeConfig;
  readonly maxMessageBytes: number;
  readonly shutdownGraceMs: number;
  readonly log: Logger;
  readonly stdin?: Readable;
  readonly stdout?: NodeJS.WritableStream;
}

/** Interactive terminal (terminal-auth login, H §3.4): run the agent on the TTY, translate nothing. */
async function runInteractive(opts: RunOptions): Promise<number> {
  const agent = spawnAgent(opts.command, opts.args, true);
  const forward = (sig: NodeJS.Signals) => () => agent.child.kill(sig);
  const onInt = forward("SIGINT");
  const onTerm = forward("SIGTERM");
  process.on("SIGINT", onInt).on("SIGTERM", onTerm);
  const failed = agent.spawnError.then((e) => opts.log.error(`cannot start the agent: ${e.message}`));
  const info = await agent.exited;
  void failed;
  process.off("SIGINT", onInt).off("SIGTERM", onTerm);
  return exitStatus(info);
}

export async function run(opts: RunOptions): Promise<number> {
  const stdin = opts.stdin ?? process.stdin;
  if (stdin === process.stdin && process.stdin.isTTY) return runInteractive(opts);
  const stdout = (opts.stdout ?? process.stdout) as NodeJS.WritableStream & import("node:stream").Writable;

  const agent = spawnAgent(opts.command, opts.args, false);
  const child = agent.child;
  const agentIn = child.stdin;
  const agentOut = child.stdout;
  if (!agentIn || !agentOut) throw new Error("agent stdio is not piped");

  const toClient = new LineWriter(stdout);
  const toAgent = new LineWriter(agentIn);
  agentIn.on("error", (e) => opts.log.debug(`agent stdin: ${e.message}`));
  const bridge = new Bridge(opts.bridge, toClient, toAgent);

  let clientEnded = false;
  let agentDone = false;
  let killTimer: NodeJS.Timeout | undefined;

  // Backpressure: stop reading a side while the other side's writer is over its high-water mark.
  const pump = (source: Readable, split: LineSplitter, sink: LineWriter) => {
    source.on("data", (chunk: Buffer) => {
      split.push(chunk);
      sink.flush();
      if (sink.congested) {
        source.pause();
        sink.onDrain(() => source.resume());
      }
    });
  };

  const fromClient = new LineSplitter(opts.maxMessageBytes, {
    line: (l) => bridge.clientLine(l),
    oversize: (i) => bridge.oversize("client", i),
  });
  const fromAgent = new LineSplitter(opts.maxMessageBytes, {
    line: (l) => bridge.agentLine(l),
    oversize: (i) => bridge.oversize("agent", i),
  });
  pump(stdin, fromClient, toAgent);
  pump(agentOut, fromAgent, toClient);

  // Client EOF: close the agent's stdin, then SIGTERM after a grace period, then SIGKILL.
  stdin.on("end", () => {
    fromClient.end();
    clientEnded = true;
    toAgent.flush();
    void toAgent.end();
    if (agentDone) return;
    killTimer = setTimeout(() => {
      if (agentDone) return;
      opts.log.info("agent still running after the client left: SIGTERM");
      child.kill("SIGTERM");
      killTimer = setTimeout(() => {
        if (!agentDone) child.kill("SIGKILL");
      }, opts.shutdownGraceMs);
      killTimer.unref();
    }, opts.shutdownGraceMs);
    killTimer.unref();
  });

  const forward = (sig: NodeJS.Signals) => () => {
    opts.log.debug(`forwarding ${sig} to the agent`);
    child.kill(sig);
  };
  const onInt = forward("SIGINT");
  const onTerm = forward("SIGTERM");
  process.on("SIGINT", onInt).on("SIGTERM", onTerm);

  void agent.spawnError.then((e) => opts.log.error(`cannot start the agent '${opts.command}': ${e.message}`));
  const info: ExitInfo = await agent.exited;
  agentDone = true;
  if (killTimer) clearTimeout(killTimer);
  fromAgent.end();
  bridge.agentGone(info);
  process.off("SIGINT", onInt).off("SIGTERM", onTerm);
  await toClient.end();
  stdin.pause();
  if (stdin === process.stdin) process.stdin.destroy();
  // The client hung up first: its departure, not the agent's termination, decides the status.
  return clientEnded ? 0 : exitStatus(info);
}
