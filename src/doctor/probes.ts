// The doctor's probes, each on a fresh agent process bounded in time: the agent's own answer to a v1
// and a v2 `initialize` (direct), and a v1 and a v2 editor in front of it through the real bridge
// engine, in-process (what the editor sees is what the bridge answered, never a second derivation).
// Never a prompt: nothing here costs the agent a model call.
import { capabilityTable } from "../../mappings/capabilities.js";
import { methodTable, refusal, type Direction } from "../../mappings/methods.js";
import { isObject } from "../base/json.js";
import { Bridge } from "../engine/bridge.js";
import { createBridgeConfig } from "../engine/config.js";
import type { Logger } from "../log.js";
import { DEFAULT_OPTIONS } from "../options.js";
import { VERSION } from "../version.js";
import { STASH_KEY } from "../convert/stash.js";
import { ProbeAgent, type ProbeExit } from "./agent.js";
import { observeAgentMessage, schemaProblem, type Findings } from "./findings.js";

export interface ProbeSetup {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly timeoutMs: number;
  /** How long an agent has to exit once its stdin closes (the bridge's own shutdown grace). */
  readonly graceMs: number;
  readonly findings: Findings;
}

const AUTH_REQUIRED = -32000;
const EDITOR_PROBE_GRACE_MS = 500;
/** How the bridge answers what a v1 agent lacks of v2's session baseline (H §2.3), as seen in a probe. */
const EMULATION: Readonly<Record<string, string>> = {
  "session/list": "the v1 agent has no list: answered from the sessions this connection has seen (H §2.3)",
  "session/close": "the v1 agent has no close: a running turn is cancelled, the session marked closed (H §2.3)",
};
const METHOD_NOT_FOUND = -32601;
const CLIENT_INFO = { name: "acp-bridge-doctor", version: VERSION };
/** What each probing editor offers: v1's fs and terminals (v2 has neither), v2's form elicitation. */
const OFFER = {
  1: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
  2: { elicitation: { form: {} } },
} as const;

interface AuthMethodInfo {
  readonly id: string;
  readonly name: string;
}

export interface DirectResult {
  /** The version asked. */
  readonly asked: 1 | 2;
  readonly outcome: "answered" | "error" | "timeout" | "exited" | "not-started";
  readonly protocolVersion?: unknown;
  readonly agentInfo?: unknown;
  readonly error?: { readonly code: unknown; readonly message: unknown };
  readonly authMethods: readonly AuthMethodInfo[];
  /** Milliseconds until the agent exited once its stdin closed; null past the grace. */
  readonly exitMs: number | null;
  readonly ms: number;
}

/** A request's outcome: `ok`, `login needed` (-32000), `timeout`, or the error. */
type Outcome = string;

interface MethodsView {
  readonly passThrough: boolean;
  readonly emulated: readonly { method: string; note: string }[];
  readonly refused: readonly { method: string; kind: string; reason: string }[];
  readonly translated: readonly string[];
  readonly forwarded: readonly string[];
}

export interface EditorResult {
  readonly editor: 1 | 2;
  readonly usable: boolean;
  /** Why the editor cannot use the agent, when it cannot. */
  readonly problem?: string;
  readonly agentVersion?: 1 | 2;
  readonly mode?: string;
  /** The capabilities the editor's `initialize` answer shows (dotted paths of what is on). */
  readonly capabilities: readonly string[];
  readonly authMethods: readonly AuthMethodInfo[];
  /** `session/new` asked for a login (-32000); undefined when it was not reached. */
  readonly loginNeeded?: boolean;
  readonly requests: Readonly<Record<string, Outcome>>;
  readonly methods?: MethodsView;
  /** What the editor offers that the agent will not get, and what becomes of it. */
  readonly notReaching: readonly { capability: string; how: string }[];
  /** The editor's fs and terminals as an MCP server for the agent (H §6.5), when the bridge adds it. */
  readonly editorTools?: string;
  readonly ms: number;
}

// ------------------------------------------------------------------ helpers

/** A value for a line of the report: a string as it is, anything else as JSON. */
export const text = (x: unknown): string => (typeof x === "string" ? x : (JSON.stringify(x) ?? ""));

const recordOf = (x: unknown): Record<string, unknown> => (isObject(x) ? x : {});

/** The dotted paths that are on in a capabilities object (`true`, or an object: `{}` advertises). */
function capabilityPaths(caps: unknown, prefix = ""): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(recordOf(caps))) {
    if (k === "_meta") continue;
    const path = prefix === "" ? k : `${prefix}.${k}`;
    if (v === true) out.push(path);
    else if (isObject(v)) {
      const inner = capabilityPaths(v, path);
      out.push(...(inner.length === 0 ? [path] : inner));
    }
  }
  return out;
}

function authMethods(result: unknown): AuthMethodInfo[] {
  const list = recordOf(result).authMethods;
  if (!Array.isArray(list)) return [];
  return list.filter(isObject).map((m) => ({
    id: text(m.id ?? m.methodId),
    name: text(m.name),
  }));
}

function describeError(e: unknown): string {
  const o = recordOf(e);
  return `error ${String(o.code)} ${typeof o.message === "string" ? o.message : ""}`.trim();
}

function initializeParams(v: 1 | 2): Record<string, unknown> {
  return v === 1
    ? { protocolVersion: 1, clientCapabilities: OFFER[1], clientInfo: CLIENT_INFO }
    : { protocolVersion: 2, info: CLIENT_INFO, capabilities: OFFER[2] };
}

const silentDebug = { debug: () => undefined, info: () => undefined };

function collectingLogger(into: string[]): Logger {
  return {
    ...silentDebug,
    error: (m) => into.push(m),
    warn: (m) => into.push(m),
    warnOnce: (_k, m) => into.push(m),
  };
}

/** A promise with a deadline: `"timeout"` past it. */
function within<T>(p: Promise<T>, ms: number): Promise<T | "timeout"> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), ms))),
  ]);
}

function exitFindings(setup: ProbeSetup, probe: string, agent: ProbeAgent, exit: ProbeExit, timed: boolean): void {
  const { findings } = setup;
  if (agent.spawnError !== undefined) return;
  if (exit.exitedEarly)
    findings.add({
      tier: "MANDATORY",
      code: "exited-while-probed",
      message: `exited while probed, before its stdin closed (${exit.signal ?? `status ${String(exit.code)}`})`,
      spec: "ACP spec: Transports (stdio)",
      probe,
    });
  else if (timed && exit.exitMs === undefined)
    findings.add({
      tier: "ADVISORY",
      code: "slow-exit",
      message: `still running ${String(setup.graceMs)} ms after its stdin closed (the bridge then signals its process group)`,
      spec: "ACP spec: Transports (stdio): the client closes stdin to end the connection",
      probe,
    });
  if (agent.stderrBytes > 0) {
    const first = agent.stderr.split("\n").find((l) => l.trim() !== "") ?? "";
    findings.add(
      {
        tier: "INFORMATIONAL",
        code: "stderr-output",
        message: `writes to stderr while probed (${String(agent.stderrBytes)} bytes in the first probe; first line: ${JSON.stringify(first.slice(0, 160))})`,
        spec: "ACP spec: Transports (stdio): stderr is for logging, which editors keep or show",
        probe,
      },
      "stderr-output",
    );
  }
}

// ------------------------------------------------------------------ the agent's own answers

/** The agent's own answer to `initialize` in version `v`, then how it ends when its stdin closes. */
export async function probeDirect(setup: ProbeSetup, v: 1 | 2): Promise<DirectResult> {
  const probe = `agent initialize v${String(v)}`;
  const start = Date.now();
  let answer: ((msg: Record<string, unknown>) => void) | undefined;
  const answered = new Promise<Record<string, unknown>>((resolve) => (answer = resolve));
  const versionOf = (m: Record<string, unknown>): 1 | 2 => {
    const pv = recordOf(m.result).protocolVersion;
    return pv === 1 || pv === 2 ? pv : v;
  };
  let settled: 1 | 2 | undefined;
  const agent = new ProbeAgent(setup.command, setup.args, setup.cwd, (line) => {
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      setup.findings.add({
        tier: "MANDATORY",
        code: "not-json",
        message: `writes a stdout line that is not JSON: ${JSON.stringify(line.slice(0, 120))}`,
        spec: "ACP spec: Transports (stdio): stdout carries only ACP messages",
        probe,
      });
      return;
    }
    const o = recordOf(msg);
    if (o.id === 1 && o.method === undefined) {
      settled = versionOf(o);
      observeAgentMessage(setup.findings, probe, msg, settled, () => "initialize");
      answer?.(o);
    } else observeAgentMessage(setup.findings, probe, msg, settled, () => undefined);
  });
  agent.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: initializeParams(v) }));
  const got = await within(Promise.race([answered, agent.exited.then(() => "exited" as const)]), setup.timeoutMs);
  const exit = await agent.finish(setup.graceMs);
  const base = { asked: v, exitMs: exit.exitMs ?? null, ms: Date.now() - start };
  if (agent.spawnError !== undefined)
    return { ...base, outcome: "not-started", authMethods: [], error: { code: null, message: agent.spawnError } };
  exitFindings(setup, probe, agent, exit, true);
  if (got === "timeout" || got === "exited") {
    setup.findings.add({
      tier: "MANDATORY",
      code: got === "timeout" ? "initialize-unanswered" : "exited-before-answer",
      message:
        got === "timeout"
          ? `never answers a v${String(v)} initialize (waited ${String(setup.timeoutMs)} ms)`
          : `exits before answering a v${String(v)} initialize`,
      spec: "ACP spec: Initialization; H §1.4",
      probe,
    });
    return { ...base, outcome: got === "timeout" ? "timeout" : "exited", authMethods: [] };
  }
  if (got.error !== undefined) {
    const e = recordOf(got.error);
    return { ...base, outcome: "error", error: { code: e.code, message: e.message }, authMethods: [] };
  }
  const result = recordOf(got.result);
  return {
    ...base,
    outcome: "answered",
    protocolVersion: result.protocolVersion,
    agentInfo: v === 1 || result.protocolVersion === 1 ? result.agentInfo : result.info,
    authMethods: authMethods(result),
  };
}

/** The negotiation rules across both direct answers (H §1.2; ACP spec: Initialization). */
export function versionFindings(findings: Findings, v1: DirectResult, v2: DirectResult): void {
  const spec = "ACP spec: Initialization (version negotiation); H §1.2";
  for (const d of [v1, v2]) {
    const probe = `agent initialize v${String(d.asked)}`;
    if (d.outcome === "answered" && d.protocolVersion !== 1 && d.protocolVersion !== 2) {
      const integer = typeof d.protocolVersion === "number" && Number.isInteger(d.protocolVersion);
      findings.add({
        tier: "MANDATORY",
        code: "bad-protocol-version",
        message: integer
          ? `answers a v${String(d.asked)} initialize with protocolVersion ${String(d.protocolVersion)}, which no editor or bridge speaks`
          : `answers a v${String(d.asked)} initialize with protocolVersion ${JSON.stringify(d.protocolVersion) ?? "absent"}, not an integer`,
        spec,
        probe,
      });
    }
    if (d.outcome === "error") {
      const code = d.error?.code;
      // -32022 is v2's refusal of a version; -32600/-32602 a strict agent's on the other shape.
      if (code !== -32022 && code !== -32600 && code !== -32602)
        findings.add({
          tier: "ADVISORY",
          code: "initialize-refused",
          message: `refuses a v${String(d.asked)} initialize with ${describeError(d.error)} instead of answering the latest version it supports (or -32022)`,
          spec,
          probe,
        });
    }
  }
  if (v1.outcome === "answered" && v2.outcome === "answered" && v1.protocolVersion === 2 && v2.protocolVersion === 1)
    findings.add({
      tier: "MANDATORY",
      code: "contradictory-versions",
      message:
        "answers a v1 initialize with version 2 and a v2 initialize with version 1: each answer says it does not speak the version the other says it speaks",
      spec,
      probe: "agent initialize v1, v2",
    });
}

// ------------------------------------------------------------------ an editor through the bridge

function methodsView(editor: 1 | 2, agent: 1 | 2, emulatedSeen: MethodsView["emulated"]): MethodsView {
  if (editor === agent) return { passThrough: true, emulated: [], refused: [], translated: [], forwarded: [] };
  const d: Direction = editor === 1 ? "a" : "b";
  const col = editor === 1 ? "v1" : "v2";
  const other = editor === 1 ? "v2" : "v1";
  const view = {
    passThrough: false,
    emulated: [...emulatedSeen],
    refused: [] as { method: string; kind: string; reason: string }[],
    translated: [] as string[],
    forwarded: [] as string[],
  };
  for (const r of methodTable) {
    const name = r[col] ?? r[other];
    if (name === null) continue;
    const route = r[d];
    if (route === "emulate") view.emulated.push({ method: name, note: r.note ?? r.spec });
    else if (route === "refuse") {
      const from = r.handledBy === "client" ? "agent" : "client";
      view.refused.push({ method: name, kind: r.kind, reason: refusal(d, from, r).reason });
    } else if (route === "translate" || route === "rename") {
      // A name both a request and a notification (mcp/message) is listed once.
      if (!view.translated.includes(name)) view.translated.push(name);
    } else if (route === "forward" && !view.forwarded.includes(name)) view.forwarded.push(name);
  }
  return view;
}

/**
 * The editor's offer that does not reach the agent: capabilities the agent's version has no room for
 * (mappings/capabilities.ts), and the MCP transports the agent does not take.
 */
function lostOffer(
  editor: 1 | 2,
  agentVersion: 1 | 2,
  agentResult: unknown,
  editorTools: string | undefined,
): { capability: string; how: string }[] {
  const col = editor === 1 ? "v1" : "v2";
  const other = editor === 1 ? "v2" : "v1";
  const offered = capabilityPaths(OFFER[editor]);
  const out: { capability: string; how: string }[] = [];
  if (editor !== agentVersion)
    for (const r of capabilityTable) {
      const path = r[col];
      if (r.caps !== "client" || path === null || r[other] !== null) continue;
      if (!offered.some((p) => p === path || p.startsWith(`${path}.`))) continue;
      const tools = r.flags.some((f) => f.flag === "fsRead" || f.flag === "terminals");
      out.push({
        capability: path,
        how:
          `ACP v${String(agentVersion)} has no such client capability (${r.spec})` +
          (tools
            ? editorTools === undefined
              ? "; the editor's tools route (H §6.5) is not taken: the agent takes no MCP transport it serves, or the agent has no sessions"
              : `; it reaches the agent as the editor's tools: ${editorTools}`
            : ""),
      });
    }
  // MCP servers the editor may name in a session request (v1's stdio is baseline, v2's advertised),
  // against what the agent's own initialize answer takes.
  const own = recordOf(agentResult);
  const takes = (t: string) =>
    agentVersion === 1
      ? t === "stdio" || recordOf(recordOf(own.agentCapabilities).mcpCapabilities)[t] === true
      : isObject(recordOf(recordOf(recordOf(own.capabilities).session).mcp)[t]);
  for (const transport of editor === 1 ? ["stdio", "http", "sse"] : ["stdio", "http"])
    if (!takes(transport))
      out.push({
        capability: `MCP servers over ${transport}`,
        how: `the agent does not take them: a session request naming one is refused (--mcp-unsupported ${DEFAULT_OPTIONS.mcpUnsupported}, H §4.2)`,
      });
  return out;
}

/** A v`editor` editor in front of the agent through the bridge: initialize, session/new, list, close. */
export async function probeEditor(setup: ProbeSetup, editor: 1 | 2): Promise<EditorResult> {
  const probe = `v${String(editor)} editor through the bridge`;
  const start = Date.now();
  const warnings: string[] = [];
  const editorSchema = editor === 1 ? "v1u" : "v2u";
  const askedOfAgent = new Map<string, string>();
  const askedByEditor = new Map<string, string>();
  const sentToAgent: Record<string, unknown>[] = [];
  const editorViolations: string[] = [];
  const pending = new Map<string, (m: Record<string, unknown>) => void>();
  /** The agent's own answer to the bridge's last initialize (the one the handshake kept). */
  let agentInit: unknown;
  const config = createBridgeConfig(
    {
      agentProtocol: "auto",
      clientProtocol: "auto",
      mcpUnsupported: DEFAULT_OPTIONS.mcpUnsupported,
      handshakeTimeoutMs: setup.timeoutMs,
    },
    collectingLogger(warnings),
    {
      onSend: (to, msg) => {
        if (to !== "agent") return;
        const o = recordOf(msg);
        sentToAgent.push(o);
        if (typeof o.method === "string" && o.id !== undefined) askedOfAgent.set(JSON.stringify(o.id), o.method);
      },
      onReceive: (from, msg) => {
        if (from !== "agent") return;
        const o = recordOf(msg);
        const method = askedOfAgent.get(JSON.stringify(o.id));
        // An initialize answer is in the version it names; anything else once the handshake settled it.
        const answered = recordOf(o.result).protocolVersion;
        const version =
          method === "initialize" && (answered === 1 || answered === 2) ? answered : bridge.versions?.agent;
        if (method === "initialize" && o.result !== undefined) agentInit = o.result;
        observeAgentMessage(setup.findings, probe, msg, version, (id) => askedOfAgent.get(JSON.stringify(id)));
      },
    },
  );
  const toEditor = (line: string | Buffer) => {
    const msg = JSON.parse(String(line)) as unknown;
    const problem = schemaProblem(editorSchema, msg, (id) => askedByEditor.get(JSON.stringify(id)));
    if (problem !== undefined) editorViolations.push(problem);
    const o = recordOf(msg);
    if (o.method === undefined) pending.get(JSON.stringify(o.id))?.(o);
    else if (o.id !== undefined)
      // Nothing is prompted, so nothing is asked of the editor that it must grant.
      bridge.clientLine(
        Buffer.from(
          JSON.stringify({ jsonrpc: "2.0", id: o.id, error: { code: METHOD_NOT_FOUND, message: "Method not found" } }),
        ),
      );
  };
  const bridge: Bridge = new Bridge(config, { push: toEditor }, { push: (l) => agent.write(l) });
  const agent = new ProbeAgent(setup.command, setup.args, setup.cwd, (line) => bridge.agentLine(Buffer.from(line)));
  void agent.exited.then(() => {
    const info = agent.exitInfo ?? { code: null, signal: null };
    bridge.agentGone({ code: info.code, signal: info.signal });
  });

  let nextId = 0;
  const request = async (method: string, params: unknown): Promise<Record<string, unknown> | "timeout"> => {
    const id = ++nextId;
    askedByEditor.set(JSON.stringify(id), method);
    const reply = new Promise<Record<string, unknown>>((resolve) => pending.set(JSON.stringify(id), resolve));
    bridge.clientLine(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id, method, params })));
    // The handshake has its own deadline (the same); a margin lets its answer come first.
    return within(reply, setup.timeoutMs + (method === "initialize" ? 500 : 0));
  };
  /** Methods the bridge answered itself, as its results' `_meta` says (H §2.3). */
  const emulatedSeen: { method: string; note: string }[] = [];
  const outcome = (r: Record<string, unknown> | "timeout"): Outcome => {
    if (r === "timeout") return "timeout";
    if (r.error !== undefined)
      return recordOf(r.error).code === AUTH_REQUIRED ? "login needed" : describeError(r.error);
    const emulated = recordOf(recordOf(recordOf(r.result)._meta)[STASH_KEY]).emulated;
    if (typeof emulated !== "string") return "ok";
    emulatedSeen.push({ method: emulated, note: EMULATION[emulated] ?? "H §2.3" });
    return "ok (emulated by the bridge)";
  };

  const requests: Record<string, Outcome> = {};
  let result: EditorResult;
  const base = { editor, ms: 0, authMethods: [] as AuthMethodInfo[], capabilities: [] as string[], notReaching: [] };
  const init = await request("initialize", initializeParams(editor));
  requests.initialize = outcome(init);
  if (init === "timeout" || init.error !== undefined) {
    result = { ...base, usable: false, requests, problem: `initialize: ${requests.initialize}` };
  } else {
    const r = recordOf(init.result);
    const caps = capabilityPaths(editor === 1 ? r.agentCapabilities : r.capabilities);
    const versions = bridge.versions;
    const agentVersion = versions?.agent ?? editor;
    // v2 has session/* only with `session`; v1's session/new is baseline, list and close advertised.
    const sessions = editor === 1 || caps.some((c) => c === "session" || c.startsWith("session."));
    let loginNeeded: boolean | undefined;
    let problem: string | undefined;
    if (sessions) {
      const made = await request("session/new", { cwd: setup.cwd, mcpServers: [] });
      requests["session/new"] = outcome(made);
      loginNeeded = requests["session/new"] === "login needed";
      const sessionId = made === "timeout" ? undefined : recordOf(made.result).sessionId;
      if (made === "timeout" || (made.error !== undefined && !loginNeeded))
        problem = `session/new: ${requests["session/new"]}`;
      if (typeof sessionId === "string") {
        const advertised = (what: string) =>
          editor === 2 ||
          caps.some((c) => c === `sessionCapabilities.${what}` || c.startsWith(`sessionCapabilities.${what}.`));
        for (const [method, params] of [
          ["session/list", {}],
          ["session/close", { sessionId }],
        ] as const) {
          const what = method.slice("session/".length);
          if (!advertised(what)) {
            requests[method] = "not advertised";
            continue;
          }
          const answer = await request(method, params);
          requests[method] = outcome(answer);
          if (answer !== "timeout" && recordOf(answer.error).code === METHOD_NOT_FOUND)
            setup.findings.add({
              tier: "CAPABILITY",
              code: "advertised-but-refused",
              message: `advertises ${method} (${editor === 1 ? `sessionCapabilities.${what}` : "session, whose baseline it is in v2"}) to a v${String(editor)} editor, but ${method} is answered -32601`,
              spec: editor === 1 ? "ACP spec: Session list / Session close (capability-gated methods)" : "H §2.3",
              probe,
            });
        }
      }
    } else requests["session/new"] = "not advertised (no session capability)";
    const sessionNew = sentToAgent.find((m) => m.method === "session/new");
    const servers = recordOf(sessionNew?.params).mcpServers;
    const tools = Array.isArray(servers)
      ? servers.filter(isObject).find((s) => s.name === "editor" || s.name === "acp-bridge-editor")
      : undefined;
    const editorTools =
      tools === undefined
        ? undefined
        : `MCP server '${String(tools.name)}' over ${text(tools.type ?? "stdio")} (H §6.5)`;
    result = {
      ...base,
      usable: problem === undefined,
      ...(problem === undefined ? {} : { problem }),
      agentVersion,
      ...(bridge.mode === undefined ? {} : { mode: bridge.mode }),
      capabilities: caps,
      authMethods: authMethods(r),
      ...(loginNeeded === undefined ? {} : { loginNeeded }),
      requests,
      methods: methodsView(editor, agentVersion, emulatedSeen),
      notReaching: lostOffer(editor, agentVersion, agentInit, editorTools),
      ...(editorTools === undefined ? {} : { editorTools }),
    };
  }
  // Its exit on stdin's close is timed by the direct probes: here it only has to go.
  const exit = await agent.finish(Math.min(setup.graceMs, EDITOR_PROBE_GRACE_MS));
  bridge.clientGone();
  if (agent.spawnError !== undefined)
    return { ...result, usable: false, problem: `the agent could not be started: ${agent.spawnError}` };
  exitFindings(setup, probe, agent, exit, false);
  if (editorViolations.length > 0) {
    setup.findings.add({
      tier: "MANDATORY",
      code: "editor-gets-invalid-message",
      message: `through the bridge, a v${String(editor)} editor gets a message its schema refuses: ${(editorViolations[0] ?? "").slice(0, 400)}`,
      spec: "ACP schema (node_modules/@agentclientprotocol/sdk/schema)",
      probe,
    });
    result = {
      ...result,
      usable: false,
      problem: result.problem ?? "the bridge's answers to it break its version's schema",
    };
  }
  return { ...result, ms: Date.now() - start };
}
