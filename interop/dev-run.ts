// Development driver for the Codex and Gemini recipes (not the interop harness): runs SCENARIO once
// with a raw NDJSON client, directly or through the built bridge, prints the wire, checks the
// workspace, and optionally saves the wire as a fixture.
//
//   npx tsx interop/dev-run.ts <codex|gemini> <agent version> [--client <version>] [--probe] [--save] [--quiet]
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
import { isObject } from "../src/convert/json.js";

type Obj = Record<string, unknown>;
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
      "usage: dev-run.ts <codex|gemini> <agent version it speaks> [--client <1|2>] [--probe] [--save] [--quiet]",
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

async function main(): Promise<void> {
  const { recipe, agentVersion, clientVersion, save, quiet, probe } = parseArgs(process.argv.slice(2));
  const cache = process.env.ACP_INTEROP_CACHE ?? "/work/cache/interop";
  const base = await mkdtemp(join(tmpdir(), `interop-${recipe.name}-`));
  const ws = { cwd: join(base, "ws"), home: join(base, "home"), cache };
  await mkdir(ws.cwd, { recursive: true });
  await mkdir(ws.home, { recursive: true });
  for (const [name, text] of Object.entries(SCENARIO.files)) await writeFile(join(ws.cwd, name), text);

  const mock = await recipe.startMock(ws);
  const launch = await recipe.launch(agentVersion, ws, mock);
  const bridged = clientVersion !== agentVersion;
  const command = bridged ? process.execPath : launch.command;
  // The bridge's trace gives the agent side of the same run (what the bridge had to translate).
  const tracePath = join(base, "bridge-trace.jsons");
  const args = bridged
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
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: ws.home, ...launch.env };
  const child = spawn(command, args, { cwd: ws.cwd, env, stdio: ["pipe", "pipe", "pipe"], detached: true });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));

  const wire: WireLine[] = [];
  const pending = new Map<number, (msg: Obj) => void>();
  let nextId = 0;
  let turnEnd: ((why: string) => void) | undefined;
  const send = (message: Obj): void => {
    wire.push({ from: "client", message });
    child.stdin.write(`${JSON.stringify(message)}\n`);
  };
  const request = (method: string, params: Obj): Promise<Obj> =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      send({ jsonrpc: "2.0", id, method, params });
    });

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
        turnEnd?.(`idle ${JSON.stringify(u.stopReason)}`);
      }
    }
    if (typeof message.id === "number" && message.method === undefined) pending.get(message.id)?.(message);
  });
  const exited = new Promise<string>((resolve) => child.on("exit", (code, sig) => resolve(`exit ${code} ${sig}`)));

  const timeout = <T>(p: Promise<T>, what: string, ms = 60_000): Promise<T> =>
    Promise.race([
      p,
      exited.then((e) => Promise.reject(new Error(`${what}: agent ${e}\n${stderr.slice(-3000)}`))),
      new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: timeout`)), ms).unref()),
    ]);

  let verdict: string;
  try {
    const init = await timeout(request("initialize", initializeParams(clientVersion)), "initialize");
    if (!isObject(init.result)) throw new Error(`initialize failed: ${JSON.stringify(init)}`);
    const created = await timeout(request("session/new", { cwd: ws.cwd, mcpServers: [] }), "session/new");
    if (!isObject(created.result) || typeof created.result.sessionId !== "string") {
      throw new Error(`session/new failed: ${JSON.stringify(created)}`);
    }
    const sessionId = created.result.sessionId;
    const ended = new Promise<string>((resolve) => (turnEnd = resolve));
    const prompt = request("session/prompt", { sessionId, prompt: [{ type: "text", text: SCENARIO.prompt }] });
    const end =
      clientVersion === 1
        ? prompt.then((r) => (isObject(r.result) ? `response ${String(r.result.stopReason)}` : JSON.stringify(r)))
        : Promise.race([ended, prompt.then((r) => (isObject(r.error) ? JSON.stringify(r) : ended))]);
    verdict = await timeout(end, "turn", TURN_TIMEOUT_MS);
  } catch (err) {
    verdict = `FAILED: ${err instanceof Error ? err.message : String(err)}`;
  }
  // Let trailing updates arrive before closing.
  await new Promise((r) => setTimeout(r, 1500));
  // Closing stdin must end the agent (or the bridge and its agent); say so when it does not.
  child.stdin.end();
  const exit = await Promise.race([
    exited,
    new Promise<string>((r) => setTimeout(() => r("still running after 5 s"), 5000)),
  ]);
  if (child.exitCode === null && child.signalCode === null && child.pid !== undefined)
    process.kill(-child.pid, "SIGTERM");

  const files: Obj = {};
  let filesOk = true;
  for (const [name, text] of Object.entries(SCENARIO.expected)) {
    const actual = await readFile(join(ws.cwd, name), "utf8").catch(() => null);
    files[name] = actual === text ? "ok" : actual;
    if (actual !== text) filesOk = false;
  }
  const via = bridged ? `-> bridge${probe ? " (probing)" : ""} ` : "";
  const label = `${recipe.name} client v${clientVersion} ${via}-> agent v${agentVersion}`;
  console.log(
    `\n== ${label}: turn ${verdict}; files ${filesOk ? "ok" : JSON.stringify(files)}; model requests ${mock.requests()}; on stdin close: ${exit}`,
  );
  if (!quiet || verdict.startsWith("FAILED")) console.error(stderr.slice(-4000));
  if (save) {
    const name = `${recipe.name}-v${clientVersion}${bridged ? `-bridge-v${agentVersion}` : ""}.ndjson`;
    // Scratch paths vary per run; fixtures use fixed placeholders.
    const scrub = (lines: readonly unknown[]): string =>
      `${lines
        .map((l) => JSON.stringify(l))
        .join("\n")
        .replaceAll(ws.cwd, "/interop/ws")
        .replaceAll(ws.home, "/interop/home")}\n`;
    await mkdir(join(ROOT, "interop", "fixtures"), { recursive: true });
    await writeFile(join(ROOT, "interop", "fixtures", name), scrub(wire));
    console.log(`saved interop/fixtures/${name}`);
    if (bridged) {
      const agentSide = await agentSideOfTrace(tracePath);
      const agentName = name.replace(/\.ndjson$/, ".agent-side.ndjson");
      await writeFile(join(ROOT, "interop", "fixtures", agentName), scrub(agentSide));
      console.log(`saved interop/fixtures/${agentName}`);
    }
  }
  const dump = process.env.INTEROP_DUMP;
  if (dump !== undefined && "log" in mock) await writeFile(dump, JSON.stringify(mock.log, null, 1));
  await mock.close();
  await rm(base, { recursive: true, force: true });
  process.exitCode = verdict.startsWith("FAILED") || !filesOk ? 1 : 0;
}

await main();
