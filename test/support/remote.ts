// `acp-bridge serve` under test (issue 22): the BUILT CLI spawned with its listening line read, SDK
// clients (v1 or v2) over its WebSocket or Streamable HTTP profile with every message recorded for
// `checkWire`, and the agent processes serve runs (its children) looked up by pid.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import * as v1 from "@agentclientprotocol/sdk";
import * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";
import WebSocket from "ws";
import { expect } from "vitest";
import { checkWire, type WireEntry } from "./peers.js";

export interface Served {
  readonly child: ChildProcess;
  readonly pid: number;
  /** `http(s)://host:port/acp`. */
  readonly url: string;
  readonly wsUrl: string;
  /** The generated token from the listening line (undefined with --token-env). */
  readonly token: string | undefined;
  readonly stderr: () => string;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const LISTENING = /^acp-bridge serve: listening on (\S+) \((\S+)\); bearer token(?:: (\S+)| from \S+)$/m;

/** Spawns `acp-bridge serve <args>` and resolves once it listens (rejects if it exits first). */
export function startServe(args: readonly string[], env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, ["bin/acp-bridge.js", "serve", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ACP_DEMO_CHUNK_MS: "0", ...env },
  });
  let stderr = "";
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (d: string) => {
      stderr += d;
      const m = LISTENING.exec(stderr);
      if (m) resolve({ child, pid: child.pid!, url: m[1]!, wsUrl: m[2]!, token: m[3], stderr: () => stderr, exit });
    });
    void exit.then((e) => reject(new Error(`serve exited (${JSON.stringify(e)}) before listening:\n${stderr}`)));
  });
}

/** The processes whose parent is `pid` (serve's agents). */
export function childrenOf(pid: number): number[] {
  try {
    return execFileSync("ps", ["--ppid", String(pid), "-o", "pid="], { encoding: "utf8" })
      .split("\n")
      .map((l) => Number(l.trim()))
      .filter((n) => n > 0);
  } catch {
    return []; // ps exits 1 when there are none
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `cond` until it holds (or throws after `ms`). */
export async function until(cond: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export type Profile = "ws" | "http";

export interface RemoteClient<V extends 1 | 2> {
  readonly ctx: V extends 1 ? v1.ClientContext : v2.ClientContext;
  /** Every message either way, seen from the client (`out` = client → serve). */
  readonly wire: WireEntry[];
  readonly updates: (V extends 1 ? v1.SessionNotification : v2.UpdateSessionNotification)[];
  readonly permissionRequests: unknown[];
  /** Resolves with the first update matching `pred` from index `from` on. */
  waitForUpdate(
    pred: (u: { update: { sessionUpdate: string } & Record<string, unknown> }) => boolean,
    from?: number,
  ): Promise<void>;
  /** Closes the transport (a WebSocket close, an HTTP DELETE). */
  close(): Promise<void>;
}

function firstAllow(params: { options: readonly { optionId: string; kind: string }[] }) {
  const option = params.options.find((o) => o.kind.startsWith("allow")) ?? params.options[0];
  return { outcome: { outcome: "selected" as const, optionId: option!.optionId } };
}

/** An SDK client of `version` connected to serve over `profile`, with `token` as its bearer. */
export function remoteClient<V extends 1 | 2>(
  version: V,
  profile: Profile,
  served: Pick<Served, "url" | "wsUrl">,
  token: string,
): RemoteClient<V> {
  const headers = { authorization: `Bearer ${token}` };
  const stream =
    profile === "ws"
      ? createWebSocketStream(served.wsUrl, { WebSocket, headers })
      : createHttpStream(served.url, { headers });
  const wire: WireEntry[] = [];
  const updates: any[] = [];
  const waiters = new Set<() => void>();
  const readable = stream.readable.pipeThrough(
    new TransformStream({
      transform(msg, c) {
        wire.push({ dir: "in", msg });
        c.enqueue(msg);
      },
    }),
  );
  const out = new TransformStream({
    transform(msg, c) {
      wire.push({ dir: "out", msg });
      c.enqueue(msg);
    },
  });
  const piped = out.readable.pipeTo(stream.writable).catch(() => undefined);
  const tapped = { readable, writable: out.writable };
  const permissionRequests: unknown[] = [];
  const onPermission = ({ params }: { params: any }): any => {
    permissionRequests.push(params);
    return firstAllow(params);
  };
  const onUpdate = ({ params }: { params: any }) => {
    updates.push(params);
    for (const w of [...waiters]) w();
  };
  const ctx: any =
    version === 1
      ? v1
          .client({ name: "serve-test-client-v1" })
          .onRequest(v1.methods.client.session.requestPermission, onPermission)
          .onNotification(v1.methods.client.session.update, onUpdate)
          .connect(tapped).agent
      : v2
          .client({ name: "serve-test-client-v2" })
          .onRequest(v2.methods.client.session.requestPermission, onPermission)
          .onNotification(v2.methods.client.session.update, onUpdate)
          .connect(tapped).agent;
  return {
    ctx,
    wire,
    updates,
    permissionRequests,
    waitForUpdate: (pred, from = 0) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error("timed out waiting for an update"));
        }, 20_000);
        const check = () => {
          if (!updates.slice(from).some(pred)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      }),
    close: async () => {
      await out.writable.close().catch(() => undefined);
      await piped;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The demo's turn

const TEXT = "Sure. Here is a short answer in four chunks.";

type Update = { sessionUpdate: string; state?: string; stopReason?: string; content?: { text?: string } };

/** What a turn showed the client: the agent's text, the update kinds in order, how it ended. */
export interface Turn {
  readonly text: string;
  readonly kinds: readonly string[];
  readonly stopReason: string | undefined;
}

function summary(updates: readonly { update: unknown }[], stopReason: string | undefined): Turn {
  const all = updates.map((u) => u.update as Update);
  return {
    text: all
      .filter((u) => u.sessionUpdate.startsWith("agent_message"))
      .map((u) => u.content?.text ?? "")
      .join(""),
    // The agent announces its commands after session/new, unordered with the turn's start.
    kinds: all.map((u) => u.sessionUpdate).filter((k) => k !== "available_commands_update"),
    stopReason,
  };
}

/** The handshake, a session and the demo's turn (chunks, a plan, a tool call whose permission is allowed). */
export async function runTurn(version: 1 | 2, c: RemoteClient<1 | 2>): Promise<Turn> {
  if (version === 1) {
    const ctx = (c as RemoteClient<1>).ctx;
    const init = await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    expect(init.protocolVersion).toBe(1);
    const { sessionId } = await ctx.request("session/new", { cwd: process.cwd(), mcpServers: [] });
    const r = await ctx.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "[chunks][plan][tool] go" }],
    });
    return summary(c.updates, r.stopReason);
  }
  const ctx = (c as RemoteClient<2>).ctx;
  const init = await ctx.request("initialize", {
    protocolVersion: 2,
    info: { name: "remote", version: "1" },
    capabilities: {},
  });
  expect(init.protocolVersion).toBe(2);
  const { sessionId } = await ctx.request("session/new", { cwd: process.cwd() });
  const ack = await ctx.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "[chunks][plan][tool] go" }],
  });
  expect(typeof ack.messageId).toBe("string");
  await c.waitForUpdate((u) => u.update.sessionUpdate === "state_update" && u.update.state === "idle");
  const idle = c.updates.map((u) => u.update as Update).find((u) => u.state === "idle");
  return summary(c.updates, idle?.stopReason);
}

export function expectExact(version: 1 | 2, t: Turn, c: RemoteClient<1 | 2>): void {
  expect(t.stopReason).toBe("end_turn");
  expect(t.text).toBe(TEXT);
  expect(t.kinds).toContain(version === 1 ? "plan" : "plan_update");
  expect(t.kinds).toContain(version === 1 ? "tool_call" : "tool_call_update");
  expect(c.permissionRequests).toHaveLength(1);
  checkWire(version, c.wire);
}
