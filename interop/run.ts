// `npm run interop`: install the pinned real agents into the cache, build the bridge, then for each
// agent recipe and ACP version play SCENARIO (a) directly with a same-version client and (b) through
// the built bridge with the other-version client, fold the wires into version-neutral views,
// compare and classify the differences, print the fidelity table and write interop/last-result.md.
// Then the editor scenario (interop/editor-scenario.ts) for each agent with a v2 build: a v1 editor
// client → bridge → v2 agent using the bridge's `editor` MCP server. Then the remote run (issue 22):
// the first agent with a v2 build served by `acp-bridge serve` and reached by a v1 client through
// `acp-bridge --connect` over loopback WebSocket, compared with the direct v2 run as a bridged run is.
// Exit status 1 when the bridge lost something, a message broke its schema, a turn failed or an
// editor check failed.
//
// Options: INTEROP_AGENTS=claude,codex (default all), INTEROP_TIMEOUT_MS (default 180000),
// INTEROP_SCENARIO=editor|main|remote|doctor (default all), INTEROP_DUMP_DIR (the editor runs' model
// requests). Last, `acp-bridge doctor` against every agent (issue 23), its verdicts in the report.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { RECIPES } from "./agents/index.js";
import type { AcpVersion, AgentRecipe } from "./agents/recipe.js";
import { cacheDir, ensureCache, INTEROP_DIR } from "./cache.js";
import { runClient, type ClientRun } from "./client.js";
import { compareRuns, renderReport, type AgentResult, type RunOutcome } from "./compare.js";
import { fold, spokenVersion, stashCount, wireFromTrace } from "./fold.js";
import { bridgeLaunch, serveLaunch, versionFailures } from "./launch.js";
import { startServe, type Served } from "./serve.js";
import { checkFiles, prepareWorkspace, removeWorkspace } from "./workspace.js";
import { editorFailed, playEditor, renderEditorSection, type EditorOutcome } from "./editor-run.js";
import { renderDoctorSection, runDoctor, type DoctorOutcome } from "./doctor-run.js";

const ROOT = resolve(INTEROP_DIR, "..");
const RUNS = join(INTEROP_DIR, ".runs");
const TIMEOUT_MS = Number(process.env.INTEROP_TIMEOUT_MS ?? 180_000);

function baseEnv(home: string): NodeJS.ProcessEnv {
  // A minimal environment: never the developer's own keys.
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8", NO_COLOR: "1" };
}

function save(name: string, run: ClientRun): void {
  writeFileSync(join(RUNS, `${name}.wire.jsonl`), run.wire.map((e) => JSON.stringify(e)).join("\n") + "\n");
  writeFileSync(join(RUNS, `${name}.stderr.log`), run.stderr);
}

async function play(
  recipe: AgentRecipe,
  agentVersion: AcpVersion,
  clientVersion: AcpVersion,
  cache: string,
  /** `remote`: the agent behind `acp-bridge serve`, the client's bridge reaching it with `--connect`. */
  remote = false,
): Promise<RunOutcome> {
  const via = agentVersion === clientVersion ? "direct" : "bridge";
  const label = `${recipe.name}-v${clientVersion}-${remote ? "remote" : via}-v${agentVersion}`;
  process.stderr.write(`interop: ${label} ...\n`);
  const ws = await prepareWorkspace(cache, label);
  const mock = await recipe.startMock(ws);
  let served: Served | undefined;
  try {
    const agent = await recipe.launch(agentVersion, ws, mock);
    const trace = join(RUNS, `${label}.trace.jsons`);
    writeFileSync(trace, "");
    // serve traces its (one) connection into `<trace>-1.jsons`, appending: emptied as the trace is.
    const agentTrace = remote ? trace.replace(/\.jsons$/, "-1.jsons") : trace;
    writeFileSync(agentTrace, "");
    const bin = join(ROOT, "bin/acp-bridge.js");
    const report = join(RUNS, `${label}.report.md`);
    rmSync(report, { force: true });
    // A v1 client's bridged turns write a --report; a v2 client's keep the fast paths (a report sees
    // every message, so it turns them off), so direction B's fast paths still meet real agents.
    // Direction A's meet them in the editor and remote runs.
    const reporting = via === "bridge" && !remote && clientVersion === 1;
    if (remote) {
      // The agent's side is the server's: it runs the agent (in the workspace, with its environment)
      // and traces what the agent said; the client's bridge only moves the editor's lines.
      served = await startServe(
        serveLaunch(bin, recipe, agentVersion, agent, trace),
        {
          ...baseEnv(ws.home),
          ...agent.env,
        },
        ws.cwd,
      );
    }
    // The bridge runs as a user runs it (`--agent-protocol auto`: it probes) where the agent's
    // launch environment forces its version, else it is told the version (see bridgeLaunch).
    const launch = served
      ? {
          command: process.execPath,
          args: [bin, "--connect", served.url, "--header-env", "Authorization=INTEROP_SERVE_TOKEN"],
          env: { INTEROP_SERVE_TOKEN: served.token },
        }
      : via === "direct"
        ? agent
        : bridgeLaunch(bin, recipe, agentVersion, agent, trace, reporting ? report : undefined);
    const started = Date.now();
    const run = await runClient({
      version: clientVersion,
      launch,
      env: { ...baseEnv(ws.home), ...launch.env },
      cwd: ws.cwd,
      timeoutMs: TIMEOUT_MS,
    });
    save(label, run);
    const files = await checkFiles(ws.cwd);
    // The server reaps the agent with its connection: its trace is complete once it stopped.
    await served?.stop();
    const agentWire = via === "bridge" ? wireFromTrace(readFileSync(agentTrace, "utf8")) : undefined;
    const reported = reporting ? reportOf(report, run.stderr) : undefined;
    const failures = [
      ...(reported?.line === "" ? ["the bridge wrote no --report"] : []),
      ...(run.failure ? [run.failure] : []),
      ...(agentWire ? versionFailures(spokenVersion(agentWire), agentVersion) : []),
      ...files,
      ...(mock.requests() === 0 ? ["the agent never called the model mock"] : []),
    ];
    // A failed run keeps its workspace for a look.
    if (failures.length === 0) await removeWorkspace(ws);
    else failures.push(`workspace kept in ${ws.cwd}`);
    process.stderr.write(
      `interop: ${label}: ${failures.length === 0 ? "turn ok" : failures.join("; ")} (${Date.now() - started} ms, ${mock.requests()} model requests, ${run.problems.length} schema problems)\n`,
    );
    return {
      label,
      agentVersion,
      clientVersion,
      via,
      view: fold(run.wire, clientVersion, { home: ws.home }),
      ...(agentWire ? { agentView: fold(agentWire, agentVersion, { home: ws.home }) } : {}),
      schemaProblems: run.problems,
      stash: stashCount(run.wire),
      failures,
      ...(reported ? { report: reported } : {}),
    };
  } finally {
    await served?.stop();
    await mock.close();
  }
}

/** The bridge's `--report` summary line (stderr); a bridged run without one fails. */
function reportOf(file: string, stderr: string): { file: string; line: string } {
  const line = stderr.split("\n").find((l) => l.startsWith("acp-bridge: report written to ")) ?? "";
  // The line names the file by its absolute path: the committed result names it from interop/.
  const shown = relative(INTEROP_DIR, file);
  return { file: shown, line: existsSync(file) ? line.replace(file, shown) : "" };
}

/** Each bridged run's report summary, and where the whole report is. */
function renderReportsSection(runs: readonly RunOutcome[]): string {
  const rows = runs.flatMap((r) => (r.report ? [`- ${r.label}: \`${r.report.line}\` (\`${r.report.file}\`)`] : []));
  return [
    "## Reports",
    "",
    "The `--report` summary line of each v1 client's bridged turn (a v2 client's turns keep the fast paths a report turns off); the reports themselves are in `.runs/`.",
    "",
    ...rows,
  ].join("\n");
}

async function main(): Promise<void> {
  const cache = cacheDir();
  ensureCache(cache);
  const build = spawnSync("npm", ["run", "build"], { cwd: ROOT, stdio: ["ignore", 2, 2] });
  if (build.status !== 0) throw new Error("npm run build failed");
  mkdirSync(RUNS, { recursive: true });
  const only = process.env.INTEROP_AGENTS?.split(",").filter((s) => s !== "");
  const scenario = process.env.INTEROP_SCENARIO ?? "all";
  if (!["all", "main", "editor", "remote", "doctor"].includes(scenario))
    throw new Error(`INTEROP_SCENARIO=${scenario}: main, editor, remote or doctor`);
  const results: AgentResult[] = [];
  const bridgedRuns: RunOutcome[] = [];
  /** The direct v2 runs of the main scenario, by agent (the remote run compares with them). */
  const directV2 = new Map<string, RunOutcome>();
  for (const recipe of RECIPES) {
    if (scenario !== "all" && scenario !== "main") continue;
    if (only && !only.includes(recipe.name)) continue;
    const direct = new Map<AcpVersion, RunOutcome>();
    for (const v of recipe.versions) direct.set(v, await play(recipe, v, v, cache));
    const v2 = direct.get(2);
    if (v2) directV2.set(recipe.name, v2);
    const bridged: RunOutcome[] = [];
    for (const agentVersion of recipe.versions) {
      const clientVersion: AcpVersion = agentVersion === 1 ? 2 : 1;
      bridged.push(await play(recipe, agentVersion, clientVersion, cache));
    }
    results.push(compareRuns(recipe.name, direct, bridged));
    bridgedRuns.push(...bridged);
  }
  const editorRuns: EditorOutcome[] = [];
  for (const recipe of RECIPES) {
    if ((scenario !== "all" && scenario !== "editor") || (only && !only.includes(recipe.name)) || !recipe.editor)
      continue;
    const ctx = { bin: join(ROOT, "bin/acp-bridge.js"), cache, runs: RUNS, baseEnv, timeoutMs: TIMEOUT_MS };
    editorRuns.push(await playEditor(recipe, recipe.editor, ctx));
  }
  // Remote: one agent with a v2 build, a v1 client through `--connect` → `serve` (issue 22).
  const remoteAgent = RECIPES.find((r) => r.versions.includes(2) && (!only || only.includes(r.name)));
  if ((scenario === "all" || scenario === "remote") && remoteAgent) {
    const direct = directV2.get(remoteAgent.name) ?? (await play(remoteAgent, 2, 2, cache));
    const remoteRun = await play(remoteAgent, 2, 1, cache, true);
    results.push(compareRuns(`${remoteAgent.name} (remote: --connect → serve)`, new Map([[2, direct]]), [remoteRun]));
  }
  const doctorRuns: DoctorOutcome[] = [];
  if (scenario === "all" || scenario === "doctor")
    for (const recipe of RECIPES) {
      if (only && !only.includes(recipe.name)) continue;
      doctorRuns.push(await runDoctor(recipe, { bin: join(ROOT, "bin/acp-bridge.js"), cache, runs: RUNS, baseEnv }));
    }
  const report = [
    scenario === "editor" || scenario === "doctor"
      ? `# Interop with real agents: ${scenario} only (${new Date().toISOString()})`
      : renderReport(results).trimEnd(),
    ...(bridgedRuns.length > 0 ? [renderReportsSection(bridgedRuns)] : []),
    ...(editorRuns.length > 0 ? [renderEditorSection(editorRuns)] : []),
    ...(doctorRuns.length > 0 ? [renderDoctorSection(doctorRuns)] : []),
  ].join("\n\n");
  process.stdout.write(report + "\n");
  // A partial run (one scenario, some agents) never replaces the committed full result.
  const partial = scenario !== "all" || only !== undefined;
  writeFileSync(partial ? join(RUNS, "last-partial-result.md") : join(INTEROP_DIR, "last-result.md"), report + "\n");
  const bad =
    results.some((r) => r.rows.some((row) => row.bridgeLost > 0 || row.schema > 0 || row.failed)) ||
    editorRuns.some(editorFailed) ||
    doctorRuns.some((d) => d.status !== 0);
  process.exitCode = bad ? 1 : 0;
}

main().catch((e: unknown) => {
  process.stderr.write(`interop: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 2;
});
