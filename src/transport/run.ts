// Wires the bridge between its client (its own stdio, or a remote connection `serve` accepted) and
// the agent's child process, with backpressure both ways, signal forwarding and an orderly shutdown.
// Never calls process.exit(): piped stdout would be truncated (toolchain note); the caller sets
// process.exitCode.
import type { Readable, Writable } from "node:stream";
import { Bridge, type BridgeConfig } from "../engine/bridge.js";
import type { ExitInfo } from "../engine/translator.js";
import type { Logger } from "../log.js";
import { LineSplitter } from "../wire/ndjson.js";
import { LineWriter } from "../wire/writer.js";
import { rpcErrors } from "../base/errors.js";
import { escalate, exitStatus, spawnAgent, startAgent, type SpawnFailure, type StartedAgent } from "./agent-process.js";
import type { FlowSink } from "./flow.js";

export interface RunOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly bridge: BridgeConfig;
  readonly maxMessageBytes: number;
  readonly shutdownGraceMs: number;
  readonly log: Logger;
  readonly stdin?: Readable;
  readonly stdout?: NodeJS.WritableStream;
  /** The client, when it is not this process's stdio (a connection `serve` accepted). */
  readonly client?: ClientPort;
  /** The agent, already started by the launcher (`command` and `args` are then its own). */
  readonly agent?: StartedAgent;
  /** SIGHUP goes to the agent too (`--report`: the bridge outlives a hang-up to write it). */
  readonly forwardHangup?: boolean;
}

/**
 * The bridge's client side: where its lines come from and go to. `start` delivers each line the
 * client sends to `line`, pausing while `toAgent` is congested; `gone` resolves when the client
 * is done sending (EOF, a closed connection); `out` takes what the bridge writes to it.
 */
export interface ClientPort {
  readonly out: FlowSink & { end(): Promise<void> };
  start(
    line: (l: Buffer) => void,
    oversize: (info: Parameters<Bridge["oversize"]>[1]) => void,
    toAgent: FlowSink,
  ): void;
  readonly gone: Promise<void>;
  /** Stop reading (the bridge is done). */
  stop(): void;
}

/** Backpressure: stop reading `source` while `sink` is over its high-water mark. `held`: what the source gave before, first. */
function pump(source: Readable, split: LineSplitter, sink: FlowSink, held: readonly Buffer[] = []): void {
  const onData = (chunk: Buffer) => {
    // One write for what the chunk's lines produced, without a microtask per chunk to flush it.
    sink.hold();
    try {
      split.push(chunk);
    } finally {
      sink.flush();
    }
    if (sink.congested) {
      source.pause();
      sink.onDrain(() => source.resume());
    }
  };
  source.on("data", onData);
  for (const chunk of held) onData(chunk);
  if (!sink.congested) source.resume();
}

/** This process's stdin and stdout as the client. */
export function stdioClient(stdin: Readable, stdout: Writable, maxMessageBytes: number): ClientPort {
  const out = new LineWriter(stdout);
  let split: LineSplitter | undefined;
  const gone = new Promise<void>((resolve) => stdin.once("end", resolve).once("close", resolve));
  return {
    out,
    gone: gone.then(() => split?.end()),
    start(line, oversize, toAgent) {
      split = new LineSplitter(maxMessageBytes, { line, oversize });
      pump(stdin, split, toAgent);
    },
    stop() {
      stdin.pause();
      if (stdin === process.stdin) process.stdin.destroy();
    },
  };
}

/** Interactive terminal (terminal-auth login, H §3.4): run the agent on the TTY, translate nothing. */
async function runInteractive(opts: RunOptions): Promise<number> {
  const agent = spawnAgent(opts.command, opts.args, true);
  const forward = (sig: NodeJS.Signals) => () => agent.child.kill(sig);
  const onInt = forward("SIGINT");
  const onTerm = forward("SIGTERM");
  process.on("SIGINT", onInt).on("SIGTERM", onTerm);
  const failed = agent.spawnError.then((e) => opts.log.error(`cannot start the agent: ${e.cause}`));
  const info = await agent.exited;
  void failed;
  process.off("SIGINT", onInt).off("SIGTERM", onTerm);
  return exitStatus(info);
}

export async function run(opts: RunOptions): Promise<number> {
  const stdin = opts.stdin ?? process.stdin;
  if (!opts.client && stdin === process.stdin && process.stdin.isTTY) return runInteractive(opts);
  const stdout = (opts.stdout ?? process.stdout) as NodeJS.WritableStream & Writable;
  const client = opts.client ?? stdioClient(stdin, stdout, opts.maxMessageBytes);

  const started =
    opts.agent ??
    startAgent(opts.command, opts.args, opts.shutdownGraceMs, opts.log, true, opts.forwardHangup === true);
  const agent = started.agent;
  const child = agent.child;
  const agentIn = child.stdin;
  const agentOut = child.stdout;
  if (!agentIn || !agentOut) throw new Error("agent stdio is not piped");

  const toClient = client.out;
  const toAgent = new LineWriter(agentIn);
  agentIn.on("error", (e) => opts.log.debug(`agent stdin: ${e.message}`));
  const bridge = new Bridge(opts.bridge, toClient, toAgent);
  const grace = opts.shutdownGraceMs;

  let clientEnded = false;
  let agentDone = false;
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    t.unref();
    timers.add(t);
  };
  /** End the agent's whole process group: SIGTERM now, SIGKILL after the grace period. */
  let terminating = false;
  const terminate = (why: string) => {
    if (terminating || agentDone) return;
    terminating = true;
    opts.log.info(`${why}: SIGTERM to the agent's process group`);
    timers.add(escalate(agent, "SIGTERM", grace));
  };

  const fromAgent = new LineSplitter(opts.maxMessageBytes, {
    line: (l) => bridge.agentLine(l),
    oversize: (i) => bridge.oversize("agent", i),
  });
  client.start(
    (l) => bridge.clientLine(l),
    (i) => bridge.oversize("client", i),
    toAgent,
  );
  pump(agentOut, fromAgent, toClient, started.takeStdout());
  const clientGone = client.gone;
  const stdoutEnded = started.stdoutEnded;

  // Client EOF: close the agent's stdin, then end its process group if it does not leave by itself.
  void clientGone.then(() => {
    clientEnded = true;
    bridge.clientGone();
    toAgent.flush();
    void toAgent.end();
    later(grace, () => terminate("agent still running after the client left"));
  });

  let failure: SpawnFailure | undefined;
  void agent.spawnError.then((f) => {
    failure = f;
    opts.log.error(`cannot start the agent '${opts.command}': ${f.cause}`);
    bridge.agentUnavailable(
      rpcErrors.internal(`Cannot start the agent '${opts.command}': ${f.cause}`, {
        reason: f.reason,
        command: opts.command,
        cause: f.cause,
      }),
    );
  });

  // Follow the process, not its pipes: a child of the agent may hold stdout open after it exits,
  // and an agent may close stdout and live on.
  const first = await Promise.race([
    agent.exited.then((info) => ({ kind: "exit" as const, info })),
    stdoutEnded.then(() => ({ kind: "eof" as const })),
  ]);
  let info: ExitInfo;
  if (agent.child.pid === undefined) {
    // Never started: the client's first request (its initialize) is answered with the cause below.
    info = first.kind === "exit" ? first.info : await agent.exited;
  } else if (first.kind === "exit") {
    info = first.info;
    // Read what the agent wrote before it exited; its children go with it.
    if (!(await within(stdoutEnded, STDOUT_SETTLE_MS))) {
      terminate("the agent exited but its children hold its stdout");
      if (!(await within(stdoutEnded, 2 * grace + STDOUT_SETTLE_MS))) agentOut.destroy();
    }
  } else {
    // stdout closed: the agent can no longer answer. Usually its exit follows at once.
    const exit = await within(agent.exited, STDOUT_SETTLE_MS);
    if (exit) info = exit.value;
    else {
      fromAgent.end();
      bridge.agentGone({ code: null, signal: null, reason: "agent_closed_stdout" });
      terminate("the agent closed its stdout");
      info = await agent.exited;
    }
  }
  agentDone = true;
  for (const t of timers) clearTimeout(t);
  fromAgent.end();
  bridge.agentGone(info);
  // Never started, or gone before the handshake (it may exit before the bridge has loaded): the
  // client's initialize, even one not read yet, gets the cause as its answer before the bridge leaves.
  if (bridge.refusesClient()) await Promise.race([bridge.refused(), clientGone, delay(opts.bridge.handshakeTimeoutMs)]);
  // Nothing of the agent outlives the bridge (a deliberately detached process excepted).
  if (agent.groupAlive()) agent.signal("SIGKILL");
  started.release();
  await toClient.end();
  client.stop();
  // The client hung up first: its departure, not the agent's termination, decides the status.
  if (failure) return failure.status;
  return clientEnded ? 0 : exitStatus(info);
}

/** How long stdout may lag behind the agent's exit (or the exit behind stdout's end). */
const STDOUT_SETTLE_MS = 250;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** `{value}` if the promise settles within `ms`, else undefined. */
async function within<T>(p: Promise<T>, ms: number): Promise<{ value: T } | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  const settled = await Promise.race([p.then((value) => ({ value })), timeout]);
  clearTimeout(timer);
  return settled;
}
