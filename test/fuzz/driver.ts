// The fuzz driver: the BUILT CLI between two scripted peers it controls completely (the agent is
// a socket pipe, test/fixtures/socket-agent.ts), fed generated hostile traffic from both sides.
// It counts what must stay zero: crashes, hangs, requests without exactly one answer, lines that
// are not one valid JSON-RPC message in valid UTF-8, and schema violations in translating modes.
import { isUtf8 } from "node:buffer";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Writable } from "node:stream";
import fc from "fast-check";
import { classify } from "../../src/wire/jsonrpc.js";
import { arb } from "../support/arbitrary.js";
import { methodDefs } from "../support/peers.js";
import type { SchemaVersion } from "../support/schema.js";
import { wireProblems } from "../support/wire-schema.js";
import { hostileTraffic, TRACK, type Input, type Side } from "./traffic.js";

export interface Mode {
  readonly name: string;
  readonly client: 1 | 2;
  readonly agent: 1 | 2;
}

export const MODES: readonly Mode[] = [
  { name: "v1 client → v2 agent", client: 1, agent: 2 },
  { name: "v2 client → v1 agent", client: 2, agent: 1 },
  { name: "v1 pass-through", client: 1, agent: 1 },
  { name: "v2 pass-through", client: 2, agent: 2 },
];

export interface Figures {
  mode: string;
  inputs: number;
  crashes: number;
  hangs: number;
  unanswered: number;
  duplicateAnswers: number;
  invalidLines: number;
  schemaViolations: number;
  /** Schema violations by class: side, method, and the path of the first problem. */
  violations: Record<string, number>;
  examples: string[];
}

const MAX_BYTES = 65_536;
const v = (n: 1 | 2): SchemaVersion => (n === 1 ? "v1" : "v2");

function initParams(version: 1 | 2): unknown {
  return version === 1
    ? { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true }, terminal: true } }
    : { protocolVersion: 2, info: { name: "fuzz", version: "1" }, capabilities: {} };
}

function initResult(version: 1 | 2): unknown {
  return version === 1
    ? {
        protocolVersion: 1,
        agentCapabilities: {
          loadSession: true,
          sessionCapabilities: { list: {}, resume: {}, close: {}, additionalDirectories: {} },
          mcpCapabilities: { http: true },
        },
        authMethods: [],
      }
    : {
        protocolVersion: 2,
        info: { name: "fuzz-agent", version: "1" },
        capabilities: { session: { additionalDirectories: {}, mcp: { stdio: {}, http: {} } } },
        authMethods: [],
      };
}

/** The counters of one mode. */
export const COUNTERS = [
  "inputs",
  "crashes",
  "hangs",
  "unanswered",
  "duplicateAnswers",
  "invalidLines",
  "schemaViolations",
] as const;

export function noFigures(mode: Mode): Figures {
  const figures = { mode: mode.name, examples: [] as string[], violations: {} } as Figures;
  for (const k of COUNTERS) figures[k] = 0;
  return figures;
}

/** Feeds `count` inputs of `seed` through one bridge in `mode` and counts what went wrong. */
/**
 * `report`: the bridge runs with `--report FILE.json` (its observer and collector see the hostile
 * traffic too); a report missing or not JSON after the bridge exited counts as a crash.
 */
export async function fuzzMode(mode: Mode, count: number, seed: number, report = false): Promise<Figures> {
  const figures = noFigures(mode);
  const note = (what: string) => {
    if (figures.examples.length < 8) figures.examples.push(what.slice(0, 400));
  };
  const dir = mkdtempSync(join(tmpdir(), "acp-bridge-fuzz-"));
  const sockPath = join(dir, "agent.sock");
  const server = createServer();
  const agentSocket = new Promise<Socket>((resolve) => server.once("connection", resolve));
  await new Promise<void>((resolve) => server.listen(sockPath, resolve));
  const child = spawn(
    process.execPath,
    [
      "bin/acp-bridge.js",
      "--log-level",
      "silent",
      "--agent-protocol",
      String(mode.agent),
      "--max-message-bytes",
      String(MAX_BYTES),
      ...(report ? ["--report", join(dir, "report.json")] : []),
      "--",
      process.execPath,
      "--import",
      "tsx",
      "test/fixtures/socket-agent.ts",
      sockPath,
    ],
    { stdio: ["pipe", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr = (stderr + d.toString("utf8")).slice(-4000)));
  let exited = false;
  child.once("exit", () => (exited = true));
  // "close", not "exit": the last answers (those the bridge gives as the agent goes) may still be in
  // the pipe when the process has exited.
  const exit = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  const agent = await agentSocket;

  // Ids: tracked requests get unique ids; answers are counted per id.
  let next = 0;
  const answers = new Map<string, number>();
  const asked = { client: new Map<string, string>(), agent: new Map<string, string>() };
  let lastOutput = Date.now();
  const defs = { client: methodDefs(v(mode.client)), agent: methodDefs(v(mode.agent)) };
  const translating = mode.client !== mode.agent;
  const rng = fc.sample(fc.nat(99), { numRuns: 1, seed })[0] ?? 0;
  let answerTurn = rng;

  /** A peer answers a request the bridge made of it: valid mostly, an error or garbage sometimes. */
  const answer = (side: Side, out: Writable, msg: { id: unknown; method: string }) => {
    const version = v(side === "client" ? mode.client : mode.agent);
    const resultDef = defs[side].responses.get(msg.method);
    answerTurn = (answerTurn + 1) % 10;
    let reply: unknown;
    if (msg.method === "initialize" && side === "agent")
      reply = { jsonrpc: "2.0", id: msg.id, result: initResult(mode.agent) };
    else if (answerTurn === 0) reply = { jsonrpc: "2.0", id: msg.id, error: { code: -32000, message: "no" } };
    else if (answerTurn === 1) reply = { jsonrpc: "2.0", id: msg.id, result: "garbage" };
    else if (resultDef) {
      const [result] = fc.sample(arb(version, resultDef), { numRuns: 1, seed: seed + next++ });
      reply = { jsonrpc: "2.0", id: msg.id, result };
    } else reply = { jsonrpc: "2.0", id: msg.id, result: {} };
    out.write(`${JSON.stringify(reply)}\n`);
  };

  const watch = (side: Side, stream: NodeJS.ReadableStream, out: Writable) => {
    let buf: Buffer = Buffer.alloc(0);
    stream.on("data", (chunk: Buffer) => {
      lastOutput = Date.now();
      buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
      for (let nl = buf.indexOf(0x0a); nl >= 0; nl = buf.indexOf(0x0a)) {
        const line = buf.subarray(0, nl);
        buf = buf.subarray(nl + 1);
        inspect(side, line, out);
      }
    });
  };

  const inspect = (side: Side, line: Buffer, out: Writable) => {
    if (!isUtf8(line)) {
      figures.invalidLines++;
      note(`to ${side}: invalid UTF-8`);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(line.toString("utf8"));
    } catch {
      figures.invalidLines++;
      note(`to ${side}: not JSON: ${line.toString("utf8")}`);
      return;
    }
    const items = Array.isArray(value) ? value : [value];
    if (Array.isArray(value) && value.length === 0) figures.invalidLines++;
    for (const item of items) {
      const c = classify(item);
      if (c.kind === "invalid") {
        figures.invalidLines++;
        note(`to ${side}: not JSON-RPC (${c.reason}): ${JSON.stringify(item)}`);
        continue;
      }
      if (translating) {
        const problem = wireProblems(v(side === "client" ? mode.client : mode.agent), item, (id) =>
          asked[side].get(JSON.stringify(id)),
        );
        if (problem) {
          figures.schemaViolations++;
          const cls = `to ${side}: ${violationClass(problem)}`;
          if (figures.violations[cls] === undefined) note(`to ${side}: ${problem}`);
          figures.violations[cls] = (figures.violations[cls] ?? 0) + 1;
        }
      }
      if (c.kind === "response" && typeof c.msg.id === "string" && c.msg.id.startsWith("t")) {
        const n = (answers.get(c.msg.id) ?? 0) + 1;
        answers.set(c.msg.id, n);
        if (n === 2) {
          figures.duplicateAnswers++;
          note(`to ${side}: second answer to ${c.msg.id}`);
        }
      }
      if (c.kind === "request") answer(side, out, c.msg);
    }
  };

  watch("client", child.stdout, child.stdin);
  watch("agent", agent, agent);
  agent.on("end", () => agent.end());
  agent.on("error", () => undefined);
  child.stdin.on("error", () => undefined);

  const send = async (side: Side, text: string | Buffer) => {
    const out: Writable = side === "client" ? child.stdin : agent;
    if (!out.write(typeof text === "string" ? text : Buffer.concat([text, Buffer.from("\n")]))) {
      await new Promise((resolve) => out.once("drain", resolve));
    }
  };
  /** The line each tracked id went out in (side and a head), for the report of an unanswered one. */
  const lineOf = new Map<string, string>();
  let filled: string[] = [];
  const fill = (side: Side, msg: unknown, track: boolean): unknown => {
    if (!track || typeof msg !== "object" || msg === null) return msg;
    const id = `t${next++}`;
    answers.set(id, 0);
    filled.push(id);
    const o = msg as Record<string, unknown>;
    if (typeof o.method === "string") asked[side].set(JSON.stringify(id), o.method);
    return { ...o, id };
  };

  const init = fill(
    "client",
    { jsonrpc: "2.0", id: TRACK, method: "initialize", params: initParams(mode.client) },
    true,
  );
  await send("client", `${JSON.stringify(init)}\n`);
  // Hostile traffic starts once the handshake is answered: a hostile agent answer racing the
  // bridge's own `initialize` would fail it and let a later generated `initialize` pick another
  // mode than the one this run reports.
  const initId = (init as { id: string }).id;
  for (const until = Date.now() + 10_000; (answers.get(initId) ?? 0) === 0 && !exited && Date.now() < until;)
    await new Promise((r) => setTimeout(r, 5));
  const inputs = fc.sample(hostileTraffic({ client: v(mode.client), agent: v(mode.agent) }), { numRuns: count, seed });
  for (const input of inputs) {
    if (exited) break;
    figures.inputs++;
    const line = encode(input, (msg, track) => fill(input.from, msg, track));
    for (const id of filled) lineOf.set(id, `by the ${input.from}: ${line.toString("utf8", 0, 600)}`);
    filled = [];
    await send(input.from, line);
  }
  // A last request must still be answered: the bridge did not wedge.
  const ping = fill("client", { jsonrpc: "2.0", id: TRACK, method: "session/list", params: {} }, true) as {
    id: string;
  };
  if (!exited) await send("client", `${JSON.stringify(ping)}\n`);
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && !exited) {
    await new Promise((r) => setTimeout(r, 100));
    if ((answers.get(ping.id) ?? 0) > 0 && Date.now() - lastOutput > 300) break;
  }
  if (exited) {
    figures.crashes++;
    note(`the bridge exited mid-run: ${stderr}`);
  } else if ((answers.get(ping.id) ?? 0) === 0) {
    figures.hangs++;
    note("the final request got no answer");
  }
  // The client leaves; the agent follows; whatever is still pending must be answered on the way out.
  child.stdin.end();
  const code = await Promise.race([exit, new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 15_000))]);
  if (code === "timeout") {
    figures.hangs++;
    note("the bridge did not exit after the client left");
    child.kill("SIGKILL");
  } else if (code !== 0 && figures.crashes === 0) {
    figures.crashes++;
    note(`the bridge exited ${code}: ${stderr}`);
  }
  if (report && code !== "timeout")
    try {
      JSON.parse(readFileSync(join(dir, "report.json"), "utf8"));
    } catch (e) {
      figures.crashes++;
      note(`no readable --report after the bridge exited: ${(e as Error).message}`);
    }
  for (const [id, n] of answers)
    if (n === 0) {
      figures.unanswered++;
      note(`no answer to ${id}, sent ${lineOf.get(id) ?? "?"}`);
    }
  agent.destroy();
  server.close();
  rmSync(dir, { recursive: true, force: true });
  return figures;
}

/** `method params|result path` of a schema problem (array indices as `*`), to group violations. */
function violationClass(problem: string): string {
  const head = /^(\S+) (params|result|is)\b/.exec(problem);
  const list = problem.indexOf(": [");
  let path = "";
  if (list >= 0) {
    try {
      const first = (JSON.parse(problem.slice(list + 2)) as { path?: unknown }[])[0];
      if (typeof first?.path === "string") path = first.path.replace(/\/\d+(?=\/|$)/g, "/*") || "/";
    } catch {
      // Not the expected shape: the class is the head alone.
    }
  }
  return `${head ? `${head[1]} ${head[2]}` : problem.slice(0, 60)} ${path}`.trim();
}

function encode(input: Input, fill: (msg: unknown, track: boolean) => unknown): Buffer {
  switch (input.kind) {
    case "message":
      return Buffer.from(JSON.stringify(fill(input.msg, input.track)));
    case "batch":
      return Buffer.from(JSON.stringify(input.items.map((i) => fill(i.msg, i.track))));
    case "raw": {
      if (!input.track) return input.bytes;
      const id = fill({ jsonrpc: "2.0", id: TRACK, method: "raw" }, true) as { id: string };
      return Buffer.from(input.bytes.toString("latin1").replace(TRACK, id.id), "latin1");
    }
  }
}
