// Development driver for the Codex and Gemini recipes (not the interop harness): runs SCENARIO once
// with a raw NDJSON client, directly or through the built bridge, prints the wire, checks the
// workspace, and optionally saves the wire as a fixture.
//
//   npx tsx interop/dev-run.ts <codex|gemini> <agent version> [--client <version>] [--probe] [--load] [--save] [--quiet]
//
// INTEROP_DUMP=<file> writes the mock's request log; INTEROP_KEEP=1 keeps the scratch workspace and HOME;
// INTEROP_AGENT_SIDE_DIR=<dir> also saves the agent side of a bridged run (from the bridge's --trace).
// --load: after the turn, a second connection loads the session back (v1 session/load, v2
// session/resume replaying from the start) and its wire is saved as `<name>.load.ndjson`.
//
// A client version different from the agent's goes through `node bin/acp-bridge.js`
// (`npm run build` first). The cache defaults to $ACP_INTEROP_CACHE or /work/cache/interop.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { SCENARIO } from "./scenario.js";
import type { AcpVersion, AgentRecipe } from "./agents/recipe.js";
import { codex } from "./agents/codex.js";
import { gemini } from "./agents/gemini.js";
import { isObject, type Obj } from "../src/base/json.js";

interface WireLine {
  readonly from: "client" | "agent";
  readonly message: Obj;
}

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const RECIPES: Record<string, AgentRecipe> = { codex, gemini };
const TURN_TIMEOUT_MS = 240_000;

function toVersion(arg: string | undefined): AcpVersion | undefined {
  return arg === "1" ? 1 : arg === "2" ? 2 : undefined;
}

function parseArgs(argv: string[]) {
  const [agent, version, ...rest] = argv;
  const recipe = agent === undefined ? undefined : RECIPES[agent];
  const agentVersion = toVersion(version);
  if (recipe === undefined || agentVersion === undefined || !recipe.versions.includes(agentVersion)) {
    throw new Error(
      "usage: dev-run.ts <codex|gemini> <agent version it speaks> [--client <1|2>] [--probe] [--load] [--save] [--quiet]",
    );
  }
  const c = rest.indexOf("--client");
  const clientVersion = c === -1 ? agentVersion : toVersion(rest[c + 1]);
  if (clientVersion === undefined) throw new Error("--client must be 1 or 2");
  return {
    recipe,
    agentVersion,
    clientVersion,
    save: rest.includes("--save"),
    quiet: rest.includes("--quiet"),
    probe: rest.includes("--probe"),
    load: rest.includes("--load"),
  };
}

function initializeParams(v: AcpVersion): Obj {
  const caps = { _meta: { terminal_output: true } };
  const info = { name: "interop-dev-client", version: "0.0.0" };
  return v === 1
    ? { protocolVersion: 1, clientCapabilities: caps, clientInfo: info }
    : { protocolVersion: 2, capabilities: caps, info };
}

/** The agent's side of a bridge trace (the conductor's .jsons format) as wire lines. */
async function agentSideOfTrace(path: string): Promise<{ from: "bridge" | "agent"; message: Obj }[]> {
  const text = await readFile(path, "utf8").catch(() => "");
  const out: { from: "bridge" | "agent"; message: Obj }[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const e: unknown = JSON.parse(line);
    if (!isObject(e) || (e.from !== "agent" && e.to !== "agent")) continue;
    const from = e.from === "agent" ? "agent" : "bridge";
    let message: Obj;
    if (e.type === "response") {
      message =
        e.is_error === true
          ? { jsonrpc: "2.0", id: e.id, error: e.payload }
          : { jsonrpc: "2.0", id: e.id, result: e.payload };
    } else {
      message = { jsonrpc: "2.0", ...(e.type === "request" ? { id: e.id } : {}), method: e.method, params: e.params };
    }
    out.push({ from, message });
  }
  return out;
}

interface Connection {
  readonly wire: WireLine[];
  request(method: string, params: Obj): Promise<Obj>;
  /** Resolves at the first idle `state_update` with a stop reason after it is called (v2 turn end). */
  nextIdle(): Promise<string>;
  /** Fails `p` if the process exits first or `ms` passes. */
  within<T>(p: Promise<T>, what: string, ms?: number): Promise<T>;
  /** Close stdin and report how the process ended (killed after 5 s). */
  close(): Promise<string>;
  stderr(): string;
}

/** Spawn one process and speak raw NDJSON to it: permissions get the first allow option. */
function connect(
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  cwd: string,
  quiet: boolean,
): Connection {
  const child = spawn(command, args, { cwd, env, stdio: ["pipe", "pipe", "pipe"], detached: true });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const wire: WireLine[] = [];
  const pending = new Map<number, (msg: Obj) => void>();
  let nextId = 0;
  let idle: ((why: string) => void) | undefined;
  const send = (message: Obj): void => {
    wire.push({ from: "client", message });
    child.stdin.write(`${JSON.stringify(message)}\n`);
  };
  createInterface({ input: child.stdout }).on("line", (line) => {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      console.error(`non-JSON on agent stdout: ${line}`);
      return;
    }
    if (!isObject(message)) return;
    wire.push({ from: "agent", message });
    if (!quiet) console.log(`<- ${line}`);
    if (typeof message.method === "string" && message.id !== undefined) {
      if (message.method === "session/request_permission" && isObject(message.params)) {
        const options = Array.isArray(message.params.options) ? message.params.options.filter(isObject) : [];
        const allow = options.find((o) => typeof o.kind === "string" && o.kind.startsWith("allow"));
        send({
          jsonrpc: "2.0",
          id: message.id,
          result: { outcome: allow ? { outcome: "selected", optionId: allow.optionId } : { outcome: "cancelled" } },
        });
      } else {
        send({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: `dev client: no ${message.method}` } });
      }
      return;
    }
    if (message.method === "session/update" && isObject(message.params) && isObject(message.params.update)) {
      const u = message.params.update;
      if (u.sessionUpdate === "state_update" && u.state === "idle" && u.stopReason !== undefined) {
        idle?.(`idle ${JSON.stringify(u.stopReason)}`);
      }
    }
    if (typeof message.id === "number" && message.method === undefined) pending.get(message.id)?.(message);
  });
  const exited = new Promise<string>((resolve) => child.on("exit", (code, sig) => resolve(`exit ${code} ${sig}`)));
  return {
    wire,
    request: (method, params) =>
      new Promise((resolve) => {
        const id = nextId++;
        pending.set(id, resolve);
        send({ jsonrpc: "2.0", id, method, params });
      }),
    nextIdle: () => new Promise<string>((resolve) => (idle = resolve)),
    within: (p, what, ms = 60_000) =>
      Promise.race([
        p,
        exited.then((e) => Promise.reject(new Error(`${what}: agent ${e}\n${stderr.slice(-3000)}`))),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: timeout`)), ms).unref()),
      ]),
    async close() {
      // Let trailing updates arrive before closing.
      await new Promise((r) => setTimeout(r, 1500));
      // Closing stdin must end the agent (or the bridge and its agent); say so when it does not.
      child.stdin.end();
      const exit = await Promise.race([
        exited,
        new Promise<string>((r) => setTimeout(() => r("still running after 5 s"), 5000)),
      ]);
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        process.kill(-child.pid, "SIGTERM");
      }
      return exit;
    },
    stderr: () => stderr,
  };
}

async function handshake(conn: Connection, clientVersion: AcpVersion): Promise<void> {
  const init = await conn.within(conn.request("initialize", initializeParams(clientVersion)), "initialize");
  if (!isObject(init.result)) throw new Error(`initialize failed: ${JSON.stringify(init)}`);
}

/** The scenario's turn on a new session; resolves with how the turn ended and the session id. */
async function playTurn(conn: Connection, clientVersion: AcpVersion, cwd: string): Promise<[string, string]> {
  await handshake(conn, clientVersion);
  const created = await conn.within(conn.request("session/new", { cwd, mcpServers: [] }), "session/new");
  if (!isObject(created.result) || typeof created.result.sessionId !== "string") {
    throw new Error(`session/new failed: ${JSON.stringify(created)}`);
  }
  const sessionId = created.result.sessionId;
  const ended = conn.nextIdle();
  const prompt = conn.request("session/prompt", { sessionId, prompt: [{ type: "text", text: SCENARIO.prompt }] });
  const end =
    clientVersion === 1
      ? prompt.then((r) => (isObject(r.result) ? `response ${String(r.result.stopReason)}` : JSON.stringify(r)))
      : Promise.race([ended, prompt.then((r) => (isObject(r.error) ? JSON.stringify(r) : ended))]);
  return [await conn.within(end, "turn", TURN_TIMEOUT_MS), sessionId];
}

/** A new connection to the same agent loads the session back (v1 `session/load`, v2 `session/resume` from the start). */
async function reload(conn: Connection, clientVersion: AcpVersion, cwd: string, sessionId: string): Promise<string> {
  await handshake(conn, clientVersion);
  const [method, params] =
    clientVersion === 1
      ? ["session/load", { sessionId, cwd, mcpServers: [] }]
      : ["session/resume", { sessionId, cwd, mcpServers: [], replayFrom: { type: "start" } }];
  const r = await conn.within(conn.request(method, params), method);
  return isObject(r.error) ? `${method} failed: ${JSON.stringify(r.error)}` : `${method} ok`;
}

async function main(): Promise<void> {
  const { recipe, agentVersion, clientVersion, save, quiet, probe, load } = parseArgs(process.argv.slice(2));
  const cache = process.env.ACP_INTEROP_CACHE ?? "/work/cache/interop";
  const base = await mkdtemp(join(tmpdir(), `interop-${recipe.name}-`));
  const ws = { cwd: join(base, "ws"), home: join(base, "home"), cache };
  await mkdir(ws.cwd, { recursive: true });
  await mkdir(ws.home, { recursive: true });
  for (const [name, text] of Object.entries(SCENARIO.files)) await writeFile(join(ws.cwd, name), text);

  const mock = await recipe.startMock(ws);
  const launch = await recipe.launch(agentVersion, ws, mock);
  const bridged = clientVersion !== agentVersion;
  // The bridge's trace gives the agent side of the same run (what the bridge had to translate).
  const argsFor = (tracePath: string): string[] =>
    bridged
      ? [
          join(ROOT, "bin", "acp-bridge.js"),
          // --probe leaves the agent's version to the bridge's handshake probe (its default).
          ...(probe ? [] : ["--agent-protocol", String(agentVersion)]),
          "--trace",
          tracePath,
          "--",
          launch.command,
          ...launch.args,
        ]
      : [...launch.args];
  const command = bridged ? process.execPath : launch.command;
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: ws.home, ...launch.env };

  const traces = [join(base, "trace-turn.jsons"), join(base, "trace-load.jsons")] as const;
  const turn = connect(command, argsFor(traces[0]), env, ws.cwd, quiet);
  let verdict: string;
  let sessionId: string | undefined;
  try {
    [verdict, sessionId] = await playTurn(turn, clientVersion, ws.cwd);
  } catch (err) {
    verdict = `FAILED: ${err instanceof Error ? err.message : String(err)}`;
  }
  const exit = await turn.close();
  let loaded: Connection | undefined;
  let loadVerdict = "";
  if (load && sessionId !== undefined) {
    loaded = connect(command, argsFor(traces[1]), env, ws.cwd, quiet);
    try {
      loadVerdict = `; ${await reload(loaded, clientVersion, ws.cwd, sessionId)}`;
    } catch (err) {
      loadVerdict = `; load FAILED: ${err instanceof Error ? err.message : String(err)}`;
    }
    loadVerdict += ` (on stdin close: ${await loaded.close()})`;
  }

  const files: Obj = {};
  let filesOk = true;
  for (const [name, text] of Object.entries(SCENARIO.expected)) {
    const actual = await readFile(join(ws.cwd, name), "utf8").catch(() => null);
    files[name] = actual === text ? "ok" : actual;
    if (actual !== text) filesOk = false;
  }
  const via = bridged ? `-> bridge${probe ? " (probing)" : ""} ` : "";
  const label = `${recipe.name} client v${clientVersion} ${via}-> agent v${agentVersion}`;
  const filesText = filesOk ? "ok" : JSON.stringify(files);
  console.log(
    `\n== ${label}: turn ${verdict}; files ${filesText}; model requests ${mock.requests()}; on stdin close: ${exit}${loadVerdict}`,
  );
  if (!quiet || verdict.startsWith("FAILED")) console.error(turn.stderr().slice(-4000));
  if (save) {
    const name = `${recipe.name}-v${clientVersion}${bridged ? `-bridge-v${agentVersion}` : ""}`;
    // Scratch paths vary per run; fixtures use fixed placeholders.
    const scrub = (lines: readonly unknown[]): string =>
      `${lines
        .map((l) => JSON.stringify(l))
        .join("\n")
        .replaceAll(ws.cwd, "/interop/ws")
        .replaceAll(ws.home, "/interop/home")}\n`;
    const dir = join(ROOT, "interop", "fixtures");
    // The agent side of a bridged run is for reading, not committed (size): saved only on request.
    const agentSideDir = process.env.INTEROP_AGENT_SIDE_DIR;
    await mkdir(dir, { recursive: true });
    const runs: [suffix: string, conn: Connection, trace: string][] = [["", turn, traces[0]]];
    if (loaded !== undefined) runs.push([".load", loaded, traces[1]]);
    for (const [suffix, conn, trace] of runs) {
      await writeFile(join(dir, `${name}${suffix}.ndjson`), scrub(conn.wire));
      console.log(`saved interop/fixtures/${name}${suffix}.ndjson`);
      if (bridged && agentSideDir !== undefined) {
        await mkdir(agentSideDir, { recursive: true });
        const file = join(agentSideDir, `${name}${suffix}.agent-side.ndjson`);
        await writeFile(file, scrub(await agentSideOfTrace(trace)));
        console.log(`saved ${file}`);
      }
    }
  }
  const dump = process.env.INTEROP_DUMP;
  if (dump !== undefined && "log" in mock) await writeFile(dump, JSON.stringify(mock.log, null, 1));
  await mock.close();
  if (process.env.INTEROP_KEEP === undefined) await rm(base, { recursive: true, force: true });
  else console.log(`kept ${base}`);
  process.exitCode = verdict.startsWith("FAILED") || !filesOk || loadVerdict.includes("FAILED") ? 1 : 0;
}

await main();
