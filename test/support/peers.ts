// Real peers over real processes for end-to-end tests: an in-process SDK client (v1 or v2) wired
// to a spawned process's stdio with every message recorded, a raw line client for hostile input,
// and `checkWire`, which schema-checks a recorded wire message by message.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import * as v1 from "@agentclientprotocol/sdk";
import * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { LineSplitter, tapReadable, tapWritable, type WireEntry, wireEntry } from "../../src/demo/stdio.js";
import { describeProblems } from "./schema.js";
import { methodDefs } from "../../src/schema/wire.js";
import { check, type SchemaVersion } from "./schema.js";

export type { WireEntry };

/** `[process.execPath, "--import", "tsx", file]`-style arguments that run a TS demo agent without a build. */
export function tsxArgs(file: string): string[] {
  return ["--import", "tsx", file];
}
/** The demo agents as built (`npm run build`): tsx would transpile them again at every spawn. */
export const AGENT_V1 = "dist/src/demo/agent-v1.js";
export const AGENT_V2 = "dist/src/demo/agent-v2.js";

interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

const DEFAULT_WAIT_MS = 20_000;

// ---------------------------------------------------------------------------------------------
// SDK client over a child process

type Version = 1 | 2;
type ClientContextOf<V extends Version> = V extends 1 ? v1.ClientContext : v2.ClientContext;
type UpdateOf<V extends Version> = V extends 1 ? v1.SessionNotification : v2.UpdateSessionNotification;
type PermissionRequestOf<V extends Version> = V extends 1 ? v1.RequestPermissionRequest : v2.RequestPermissionRequest;
type PermissionResponseOf<V extends Version> = V extends 1
  ? v1.RequestPermissionResponse
  : v2.RequestPermissionResponse;
type PermissionHandler<V extends Version> = (
  params: PermissionRequestOf<V>,
  signal: AbortSignal,
) => PermissionResponseOf<V> | Promise<PermissionResponseOf<V>>;

export interface ClientHandlers<V extends Version> {
  /** Default: select the first `allow_*` option (or the first option). */
  readonly requestPermission?: PermissionHandler<V>;
  /** v1 only; without it the SDK answers -32601, as a client without `fs` does. */
  readonly readTextFile?: (
    params: v1.ReadTextFileRequest,
  ) => v1.ReadTextFileResponse | Promise<v1.ReadTextFileResponse>;
  /** v1 only. */
  readonly writeTextFile?: (
    params: v1.WriteTextFileRequest,
  ) => v1.WriteTextFileResponse | Promise<v1.WriteTextFileResponse>;
  /** v1 only: `terminal/*`, by the method's last segment (`create`, `output`, `wait_for_exit`, ...). */
  readonly terminal?: Partial<Record<TerminalMethod, (params: any) => unknown>>;
}

type TerminalMethod = "create" | "output" | "wait_for_exit" | "kill" | "release";

export interface SpawnOptions<V extends Version> {
  /** Added to (and overriding) this process's environment. */
  readonly env?: Record<string, string | undefined>;
  readonly cwd?: string;
  readonly handlers?: ClientHandlers<V>;
}

export interface SpawnedClient<V extends Version> {
  readonly version: V;
  readonly child: ChildProcess;
  /** The SDK client context: `ctx.request(method, params)`, `ctx.notify(...)`. */
  readonly ctx: ClientContextOf<V>;
  /** Every message either way, seen from the client: `out` = client → process. */
  readonly wire: WireEntry[];
  /** `session/update` params as the SDK client parsed them (use `wire` for exact bytes). */
  readonly updates: UpdateOf<V>[];
  readonly permissionRequests: PermissionRequestOf<V>[];
  setPermissionHandler(handler: PermissionHandler<V>): void;
  /** The first update (already received or future) matching `pred`, counting from index `from`. */
  waitForUpdate(
    pred: (u: UpdateOf<V>) => boolean,
    opts?: { from?: number | undefined; timeoutMs?: number | undefined },
  ): Promise<UpdateOf<V>>;
  waitForWire(
    pred: (e: WireEntry) => boolean,
    opts?: { from?: number | undefined; timeoutMs?: number | undefined },
  ): Promise<WireEntry>;
  readonly exit: Promise<ExitInfo>;
  readonly stderr: string;
  /** Ends the process's stdin and waits for it to exit. */
  close(): Promise<ExitInfo>;
  kill(signal?: NodeJS.Signals): void;
}

function firstAllow(params: { options: readonly { optionId: string; kind: string }[] }): {
  outcome: { outcome: "selected"; optionId: string };
} {
  const option = params.options.find((o) => o.kind.startsWith("allow")) ?? params.options[0];
  if (!option) throw new Error("permission request without options");
  return { outcome: { outcome: "selected", optionId: option.optionId } };
}

class Waiters<T> {
  private readonly waiting = new Set<() => void>();
  constructor(readonly items: T[]) {}
  push(item: T): void {
    this.items.push(item);
    for (const w of [...this.waiting]) w();
  }
  wait(pred: (x: T) => boolean, what: string, from = 0, timeoutMs: number | undefined = DEFAULT_WAIT_MS): Promise<T> {
    timeoutMs ??= DEFAULT_WAIT_MS;
    return new Promise<T>((resolve, reject) => {
      let scanned = from;
      const scan = (): boolean => {
        for (; scanned < this.items.length; scanned++) {
          const item = this.items[scanned] as T;
          if (pred(item)) {
            resolve(item);
            return true;
          }
        }
        return false;
      };
      if (scan()) return;
      const timer = setTimeout(() => {
        this.waiting.delete(check);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const check = (): void => {
        if (scan()) {
          clearTimeout(timer);
          this.waiting.delete(check);
        }
      };
      this.waiting.add(check);
    });
  }
}

interface Spawned {
  child: ChildProcess;
  exit: Promise<ExitInfo>;
  stderr: () => string;
}

function spawnProcess(
  command: string,
  args: readonly string[],
  env?: Record<string, string | undefined>,
  cwd?: string,
): Spawned {
  const child = spawn(command, args, {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ...env },
    ...(cwd ? { cwd } : {}),
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (d: string) => (stderr += d));
  // A peer that exits early makes our writes fail with EPIPE; the exit promise reports it.
  child.stdin?.on("error", () => undefined);
  const exit = new Promise<ExitInfo>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  return { child, exit, stderr: () => stderr };
}

/**
 * Spawns `command args` (the bridge, or an agent directly) and connects an in-process SDK client
 * of `version` to its stdio.
 */
export function spawnWithClient(
  version: 1,
  command: string,
  args: readonly string[],
  opts?: SpawnOptions<1>,
): SpawnedClient<1>;
export function spawnWithClient(
  version: 2,
  command: string,
  args: readonly string[],
  opts?: SpawnOptions<2>,
): SpawnedClient<2>;
export function spawnWithClient(
  version: Version,
  command: string,
  args: readonly string[],
  opts: SpawnOptions<any> = {},
): SpawnedClient<any> {
  const { child, exit, stderr } = spawnProcess(command, args, opts.env, opts.cwd);
  const wire = new Waiters<WireEntry>([]);
  const updates = new Waiters<any>([]);
  const permissionRequests: any[] = [];
  let permission: PermissionHandler<any> = opts.handlers?.requestPermission ?? ((p: any) => firstAllow(p));

  const output = tapWritable(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, (line) =>
    wire.push(wireEntry("out", line)),
  );
  const input = tapReadable(Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>, (line) =>
    wire.push(wireEntry("in", line)),
  );

  const onPermission = async ({ params, signal }: { params: any; signal: AbortSignal }): Promise<any> => {
    permissionRequests.push(params);
    return permission(params, signal);
  };
  const onUpdate = ({ params }: { params: any }) => updates.push(params);

  let ctx: any;
  if (version === 1) {
    let app = v1
      .client({ name: "acp-bridge-test-client-v1" })
      .onRequest(v1.methods.client.session.requestPermission, onPermission)
      .onNotification(v1.methods.client.session.update, onUpdate);
    const { readTextFile, writeTextFile } = opts.handlers ?? {};
    if (readTextFile) app = app.onRequest(v1.methods.client.fs.readTextFile, ({ params }) => readTextFile(params));
    if (writeTextFile) app = app.onRequest(v1.methods.client.fs.writeTextFile, ({ params }) => writeTextFile(params));
    const t = opts.handlers?.terminal ?? {};
    const tm = v1.methods.client.terminal;
    const route = {
      create: tm.create,
      output: tm.output,
      wait_for_exit: tm.waitForExit,
      kill: tm.kill,
      release: tm.release,
    };
    for (const [name, method] of Object.entries(route)) {
      const h = t[name as TerminalMethod];
      if (h) app = app.onRequest(method as never, (({ params }: { params: unknown }) => h(params)) as never);
    }
    ctx = app.connect(v1.ndJsonStream(output, input)).agent;
  } else {
    const app = v2
      .client({ name: "acp-bridge-test-client-v2" })
      .onRequest(v2.methods.client.session.requestPermission, onPermission)
      .onNotification(v2.methods.client.session.update, onUpdate);
    ctx = app.connect(v2.ndJsonStream(output, input)).agent;
  }

  return {
    version,
    child,
    ctx,
    wire: wire.items,
    updates: updates.items,
    permissionRequests,
    setPermissionHandler: (h) => (permission = h),
    waitForUpdate: (pred, o) => updates.wait(pred, "a session/update", o?.from, o?.timeoutMs),
    waitForWire: (pred, o) => wire.wait(pred, "a wire message", o?.from, o?.timeoutMs),
    exit,
    get stderr() {
      return stderr();
    },
    close: () => {
      child.stdin?.end();
      return exit;
    },
    kill: (signal = "SIGTERM") => void child.kill(signal),
  };
}

// ---------------------------------------------------------------------------------------------
// Raw line client

export interface RawPeer {
  readonly child: ChildProcess;
  /** Every line the process wrote to stdout. */
  readonly lines: string[];
  /** Sends a message as one JSON line, or a string exactly as given (add "\n" yourself). */
  send(message: unknown): void;
  /** Sends a request with a fresh numeric id and resolves with the response carrying that id. */
  request(method: string, params?: unknown, timeoutMs?: number): Promise<any>;
  /** The first parsed output message (already received or future) matching `pred`, from line `from`. */
  waitFor(
    pred: (msg: any) => boolean,
    opts?: { from?: number | undefined; timeoutMs?: number | undefined },
  ): Promise<any>;
  readonly exit: Promise<ExitInfo>;
  readonly stderr: string;
  close(): Promise<ExitInfo>;
  kill(signal?: NodeJS.Signals): void;
}

export function spawnRaw(
  command: string,
  args: readonly string[],
  opts: { env?: Record<string, string | undefined>; cwd?: string } = {},
): RawPeer {
  const { child, exit, stderr } = spawnProcess(command, args, opts.env, opts.cwd);
  const lines = new Waiters<string>([]);
  const split = new LineSplitter((line) => lines.push(line));
  child.stdout?.on("data", (d: Buffer) => split.push(d));
  child.stdout?.on("end", () => split.end());
  let nextId = 1_000_000;
  const parse = (line: string): unknown => {
    try {
      return JSON.parse(line);
    } catch {
      return undefined;
    }
  };
  const waitFor = (pred: (msg: any) => boolean, o?: { from?: number | undefined; timeoutMs?: number | undefined }) =>
    lines
      .wait(
        (l) => {
          const m = parse(l);
          return m !== undefined && pred(m);
        },
        "an output message",
        o?.from,
        o?.timeoutMs,
      )
      .then(parse);
  return {
    child,
    lines: lines.items,
    send: (message) => void child.stdin?.write(typeof message === "string" ? message : `${JSON.stringify(message)}\n`),
    request: (method, params, timeoutMs) => {
      const id = nextId++;
      child.stdin?.write(
        `${JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) })}\n`,
      );
      return waitFor((m) => m.id === id && !("method" in m), { timeoutMs });
    },
    waitFor,
    exit,
    get stderr() {
      return stderr();
    },
    close: () => {
      child.stdin?.end();
      return exit;
    },
    kill: (signal = "SIGTERM") => void child.kill(signal),
  };
}

/** The entries of an `ACP_WIRE_LOG` file. */
export function readWireLog(file: string): WireEntry[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as WireEntry);
}

// ---------------------------------------------------------------------------------------------
// Schema check of a whole wire

export { methodDefs };

export interface WireCheckOptions {
  /** Who recorded the wire: `client` (spawnWithClient, the default) or `agent` (ACP_WIRE_LOG). */
  readonly side?: "client" | "agent";
  /** Accept methods the schema does not know (extension methods starting with `_` are always skipped). */
  readonly allowUnknownMethods?: boolean;
}

function schemaVersionOf(version: SchemaVersion | 1 | 2): SchemaVersion {
  return version === 1 ? "v1" : version === 2 ? "v2" : version;
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/**
 * Every problem of a recorded wire: a non-JSON line, a missing `"jsonrpc":"2.0"`, a method the
 * schema lacks or sent by the wrong side, params that do not validate against the method's
 * `$def`, a result that does not validate against the response `$def` of its request's method, an
 * error that is not an `Error`, a response to no request.
 */
export function findWireProblems(
  version: SchemaVersion | 1 | 2,
  wire: readonly WireEntry[],
  opts: WireCheckOptions = {},
): string[] {
  const v = schemaVersionOf(version);
  const defs = methodDefs(v);
  const recorder = opts.side ?? "client";
  const other = recorder === "client" ? "agent" : "client";
  const strictIds = v === "v2" || v === "v2u";
  const pending = { in: new Map<string, string>(), out: new Map<string, string>() };
  const problems: string[] = [];
  const one = (m: Record<string, unknown>, dir: "in" | "out", at: string): void => {
    if (m.jsonrpc !== "2.0") problems.push(`${at}: jsonrpc is ${JSON.stringify(m.jsonrpc)}`);
    const validate = (def: string, value: unknown, what: string): void => {
      const p = check(v, def, value);
      if (p)
        problems.push(
          `${at}: ${what} is not a valid ${v} ${def}: ${describeProblems(p)}\n    ${JSON.stringify(value)?.slice(0, 600)}`,
        );
    };
    if (typeof m.method === "string") {
      const method = m.method;
      const isRequest = "id" in m;
      if (isRequest) {
        if (
          strictIds
            ? !(typeof m.id === "string" || Number.isInteger(m.id))
            : !(typeof m.id === "string" || typeof m.id === "number")
        ) {
          problems.push(`${at}: ${method} request id ${JSON.stringify(m.id)} is not valid`);
        }
        pending[dir].set(JSON.stringify(m.id), method);
      }
      if (method.startsWith("_")) return;
      const entry = (isRequest ? defs.requests : defs.notifications).get(method);
      if (!entry) {
        if (!opts.allowUnknownMethods)
          problems.push(`${at}: ${isRequest ? "request" : "notification"} ${method} is not in the ${v} schema`);
        return;
      }
      if (entry.side !== "protocol") {
        const sender = dir === "out" ? recorder : other;
        if (entry.side === sender)
          problems.push(`${at}: ${method} is handled by the ${entry.side}, but the ${sender} sent it`);
      }
      validate(entry.def, m.params ?? {}, `${method} params`);
      return;
    }
    if (!("id" in m)) {
      problems.push(`${at}: neither a request, a notification nor a response`);
      return;
    }
    const key = JSON.stringify(m.id);
    const requests = pending[dir === "in" ? "out" : "in"];
    const method = requests.get(key);
    requests.delete(key);
    const hasResult = "result" in m;
    const hasError = "error" in m;
    if (hasResult === hasError) {
      problems.push(`${at}: a response needs exactly one of result and error`);
      return;
    }
    if (hasError) {
      validate("Error", m.error, `error response${method ? ` to ${method}` : ""}`);
      return;
    }
    if (method === undefined) {
      problems.push(`${at}: result for id ${key}, which no request on this wire carries`);
      return;
    }
    if (method.startsWith("_")) return;
    const def = defs.responses.get(method);
    if (!def) {
      if (!opts.allowUnknownMethods) problems.push(`${at}: no response $def for ${method} in the ${v} schema`);
      return;
    }
    validate(def, m.result, `${method} result`);
  };
  wire.forEach((e, i) => {
    const at = `#${i} (${e.dir})`;
    // The recorder may send a batch on purpose (hostile-input tests); a peer never should.
    if (Array.isArray(e.msg) && e.dir === "out") {
      e.msg.forEach((m, j) =>
        isObject(m) ? one(m, e.dir, `${at}[${j}]`) : problems.push(`${at}[${j}]: not a JSON-RPC object`),
      );
      return;
    }
    if (e.raw !== undefined || !isObject(e.msg)) {
      problems.push(`${at}: not a JSON-RPC object: ${(e.raw ?? JSON.stringify(e.msg) ?? "").slice(0, 200)}`);
      return;
    }
    one(e.msg, e.dir, at);
  });
  return problems;
}

/** Throws with every problem `findWireProblems` finds. */
export function checkWire(version: SchemaVersion | 1 | 2, wire: readonly WireEntry[], opts?: WireCheckOptions): void {
  const problems = findWireProblems(version, wire, opts);
  if (problems.length > 0) throw new Error(`${problems.length} wire problem(s):\n  ${problems.join("\n  ")}`);
}
