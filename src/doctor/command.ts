// `acp-bridge doctor [--json] [--cwd DIR] -- <agent command>`: probes an agent (a fresh process per
// probe, each bounded in time, never a prompt) and reports what a v1 and a v2 editor get through the
// bridge, with findings about the agent in tiers. Loaded only for this sub-command (src/cli.ts).
import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { Writable } from "node:stream";
import { DEFAULT_OPTIONS } from "../options.js";
import { VERSION } from "../version.js";
import { Findings, type Finding } from "./findings.js";
import { doctorHelp, parseDoctorArgs } from "./options.js";
import { probeDirect, probeEditor, text, versionFindings, type DirectResult, type EditorResult } from "./probes.js";

interface Streams {
  readonly stdout: Writable & { isTTY?: boolean };
  readonly stderr: Writable & { isTTY?: boolean };
  readonly env: NodeJS.ProcessEnv;
}

export interface DoctorReport {
  readonly acpBridge: string;
  readonly agent: { readonly command: readonly string[]; readonly cwd: string };
  readonly ok: boolean;
  readonly direct: { readonly v1: DirectResult; readonly v2: DirectResult };
  readonly editors: { readonly v1: EditorResult; readonly v2: EditorResult };
  readonly findings: readonly Finding[];
}

const SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";

type Paint = (code: string, s: string) => string;
const painter = (on: boolean): Paint => (on ? (code, s) => `\u001b[${code}m${s}\u001b[0m` : (_, s) => s);

/** One probe's progress line on stderr: a spinner and elapsed time on a terminal, one plain line when piped. */
async function step<T>(
  io: Streams,
  paint: Paint,
  label: string,
  run: () => Promise<T>,
  summary: (t: T) => { text: string; ok: boolean },
): Promise<T> {
  const tty = io.stderr.isTTY === true;
  const start = Date.now();
  let frame = 0;
  const draw = () => {
    const s = ((Date.now() - start) / 1000).toFixed(1);
    io.stderr.write(`\r\u001b[K${SPINNER[frame++ % SPINNER.length] ?? ""} ${label} … ${s} s`);
  };
  const timer = tty ? setInterval(draw, 100) : undefined;
  if (tty) draw();
  try {
    const t = await run();
    const { text, ok } = summary(t);
    const ms = Date.now() - start;
    io.stderr.write(
      `${tty ? "\r\u001b[K" : ""}${paint(ok ? "32" : "31", ok ? "✓" : "✗")} ${label}: ${text} (${String(ms)} ms)\n`,
    );
    return t;
  } finally {
    clearInterval(timer);
  }
}

function directSummary(d: DirectResult): { text: string; ok: boolean } {
  switch (d.outcome) {
    case "answered":
      return { text: `answers protocolVersion ${JSON.stringify(d.protocolVersion) ?? "absent"}`, ok: true };
    case "error":
      return { text: `answers error ${String(d.error?.code)} ${text(d.error?.message ?? "")}`, ok: true };
    case "not-started":
      return { text: `cannot start: ${text(d.error?.message ?? "")}`, ok: false };
    default:
      return { text: d.outcome === "timeout" ? "no answer" : "exited without answering", ok: false };
  }
}

function editorSummary(e: EditorResult): { text: string; ok: boolean } {
  if (!e.usable) return { text: `cannot use the agent: ${e.problem ?? "?"}`, ok: false };
  return {
    text: `${modeText(e)}; session/new: ${e.requests["session/new"] ?? "—"}`,
    ok: true,
  };
}

function modeText(e: EditorResult): string {
  if (e.agentVersion === undefined) return "no version negotiated";
  return e.agentVersion === e.editor
    ? `v${String(e.editor)} ↔ v${String(e.agentVersion)}, pass-through`
    : `v${String(e.editor)} editor ↔ v${String(e.agentVersion)} agent, translated`;
}

const TIER_COLOUR: Record<Finding["tier"], string> = {
  MANDATORY: "31",
  CAPABILITY: "33",
  ADVISORY: "36",
  INFORMATIONAL: "2",
};

function renderHuman(r: DoctorReport, paint: Paint): string {
  const out: string[] = [];
  const line = (s = "") => out.push(s);
  line(paint("1", `acp-bridge doctor ${r.acpBridge}: ${r.agent.command.join(" ")}`));
  line();
  line(paint("1", "The agent's own answers"));
  for (const d of [r.direct.v1, r.direct.v2]) {
    const what =
      d.outcome === "answered"
        ? `protocolVersion ${JSON.stringify(d.protocolVersion) ?? "absent"}`
        : directSummary(d).text;
    const exit =
      d.outcome === "not-started"
        ? "never ran"
        : d.exitMs === null
          ? "did not exit in time after stdin closed"
          : `exits ${String(d.exitMs)} ms after stdin closed`;
    line(`  v${String(d.asked)} initialize: ${what}; ${exit}`);
  }
  for (const e of [r.editors.v1, r.editors.v2]) {
    line();
    line(
      paint(
        "1",
        `A v${String(e.editor)} editor through the bridge: ${e.usable ? paint("32", "usable") : paint("31", "NOT usable")}`,
      ),
    );
    if (!e.usable) line(`  problem: ${e.problem ?? "?"}`);
    line(`  negotiated: ${modeText(e)}`);
    line(`  capabilities it sees: ${e.capabilities.length === 0 ? "none" : e.capabilities.join(", ")}`);
    line(
      `  auth methods: ${e.authMethods.length === 0 ? "none" : e.authMethods.map((m) => `${m.id} (${m.name})`).join(", ")}; ` +
        `sessions need a login: ${e.loginNeeded === undefined ? "unknown" : e.loginNeeded ? "yes" : "no"}`,
    );
    line(
      `  requests: ${Object.entries(e.requests)
        .map(([m, o]) => `${m} ${o}`)
        .join("; ")}`,
    );
    const m = e.methods;
    if (m?.passThrough === true) line("  methods: all forwarded as they are (same version: pass-through)");
    else if (m !== undefined) {
      line(`  translated or renamed (${String(m.translated.length)}): ${m.translated.join(", ")}`);
      line(`  forwarded unchanged (${String(m.forwarded.length)}): ${m.forwarded.join(", ")}`);
      line(`  emulated by the bridge:${m.emulated.length === 0 ? " none" : ""}`);
      for (const x of m.emulated) line(`    ${x.method}: ${x.note}`);
      line(`  refused (-32601 for a request, dropped for a notification):${m.refused.length === 0 ? " none" : ""}`);
      for (const x of m.refused) line(`    ${x.method} (${x.kind}): ${x.reason}`);
    }
    if (e.notReaching.length > 0) {
      line("  what the editor offers that the agent will not get:");
      for (const x of e.notReaching) line(`    ${x.capability}: ${x.how}`);
    }
    if (e.editorTools !== undefined) line(`  the editor's fs and terminals reach the agent as: ${e.editorTools}`);
  }
  line();
  line(paint("1", `Findings: ${r.findings.length === 0 ? "none" : String(r.findings.length)}`));
  for (const f of r.findings) {
    line(`  ${paint(TIER_COLOUR[f.tier], f.tier)} ${f.code}: ${f.message}`);
    line(`    spec: ${f.spec}; seen by: ${f.probe}`);
  }
  line();
  line(
    r.ok
      ? paint("32", "An editor of each version can use this agent through the bridge.")
      : paint("31", "An editor of some version cannot use this agent through the bridge."),
  );
  return `${out.join("\n")}\n`;
}

export async function runDoctor(
  argv: readonly string[],
  io: Streams = { stdout: process.stdout, stderr: process.stderr, env: process.env },
): Promise<number> {
  const args = parseDoctorArgs(argv);
  if (args === "help") {
    io.stdout.write(doctorHelp());
    return 0;
  }
  const usage = (problem: string) => {
    io.stderr.write(`acp-bridge doctor: ${problem}\nTry 'acp-bridge doctor --help'.\n`);
    return 2;
  };
  if ("problem" in args) return usage(args.problem);
  const cwd = resolve(args.cwd ?? process.cwd());
  try {
    if (!statSync(cwd).isDirectory()) return usage(`--cwd ${args.cwd ?? ""} is not a directory`);
  } catch {
    return usage(`--cwd ${args.cwd ?? ""} does not exist`);
  }
  const colour = (tty: boolean | undefined) => tty === true && io.env.NO_COLOR === undefined;
  const paintErr = painter(colour(io.stderr.isTTY));
  const findings = new Findings();
  const setup = {
    command: args.command,
    args: args.args,
    cwd,
    timeoutMs: args.timeoutMs,
    graceMs: DEFAULT_OPTIONS.shutdownGraceMs,
    findings,
  };
  const direct1 = await step(
    io,
    paintErr,
    "[1/4] the agent's own answer to a v1 initialize",
    () => probeDirect(setup, 1),
    directSummary,
  );
  const direct2 = await step(
    io,
    paintErr,
    "[2/4] the agent's own answer to a v2 initialize",
    () => probeDirect(setup, 2),
    directSummary,
  );
  versionFindings(findings, direct1, direct2);
  const editor1 = await step(
    io,
    paintErr,
    "[3/4] a v1 editor through the bridge",
    () => probeEditor(setup, 1),
    editorSummary,
  );
  const editor2 = await step(
    io,
    paintErr,
    "[4/4] a v2 editor through the bridge",
    () => probeEditor(setup, 2),
    editorSummary,
  );
  const report: DoctorReport = {
    acpBridge: VERSION,
    agent: { command: [args.command, ...args.args], cwd },
    ok: editor1.usable && editor2.usable,
    direct: { v1: direct1, v2: direct2 },
    editors: { v1: editor1, v2: editor2 },
    findings: findings.sorted(),
  };
  const text = args.json
    ? `${JSON.stringify(report, null, 2)}\n`
    : renderHuman(report, painter(colour(io.stdout.isTTY)));
  await new Promise<void>((done) => io.stdout.write(text, () => done()));
  return report.ok ? 0 : 1;
}
