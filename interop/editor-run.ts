// Plays the editor scenario (interop/editor-scenario.ts) against one real agent: a v1 editor client
// with unsaved buffers, fs and terminals -> the built bridge -> the agent's v2 build, which reaches
// the editor through the bridge's `editor` MCP server. Run by interop/run.ts after the main runs.
import { mkdtemp, mkdir, rm, stat, writeFile } from "node:fs/promises";
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { AgentRecipe, EditorRecipe } from "./agents/recipe.js";
import { runClient } from "./client.js";
import { checkEditorRun, EDITOR_SCENARIO, editorServerEntry, transportOf } from "./editor-scenario.js";
import { spokenVersion, wireFromTrace } from "./fold.js";
import { bridgeLaunch, versionFailures } from "./launch.js";

export interface EditorOutcome {
  readonly agent: string;
  readonly transport: string;
  readonly read: boolean;
  readonly write: boolean;
  readonly terminal: boolean;
  readonly turnEnded: boolean;
  readonly schemaProblems: readonly string[];
  readonly failures: readonly string[];
}

export interface EditorRunContext {
  readonly bin: string;
  readonly cache: string;
  readonly runs: string;
  readonly baseEnv: (home: string) => NodeJS.ProcessEnv;
  readonly timeoutMs: number;
}

/** Play the editor scenario once against `recipe`'s v2 build behind the bridge. */
export async function playEditor(
  recipe: AgentRecipe,
  editor: EditorRecipe,
  ctx: EditorRunContext,
): Promise<EditorOutcome> {
  const label = `editor-${recipe.name}-v1-bridge-v2`;
  process.stderr.write(`interop: ${label} ...\n`);
  const root = await mkdtemp(join(tmpdir(), `acp-interop-${label}-`));
  const ws = { cwd: join(root, "work"), home: join(root, "home"), cache: ctx.cache };
  await mkdir(ws.cwd, { recursive: true });
  await mkdir(ws.home, { recursive: true });
  for (const [name, text] of Object.entries(EDITOR_SCENARIO.files)) await writeFile(join(ws.cwd, name), text);
  const buffers = Object.fromEntries(
    Object.entries(EDITOR_SCENARIO.buffers).map(([name, text]) => [join(ws.cwd, name), text]),
  );
  const mock = await editor.startMock(ws);
  try {
    const agent = await recipe.launch(2, ws, mock);
    const trace = join(ctx.runs, `${label}.trace.jsons`);
    writeFileSync(trace, "");
    const launch = bridgeLaunch(ctx.bin, recipe, 2, { ...agent, env: { ...agent.env, ...editor.env } }, trace);
    const started = Date.now();
    const run = await runClient({
      version: 1,
      launch,
      env: { ...ctx.baseEnv(ws.home), ...launch.env },
      cwd: ws.cwd,
      timeoutMs: ctx.timeoutMs,
      editor: { buffers, prompt: EDITOR_SCENARIO.prompt },
    });
    writeFileSync(join(ctx.runs, `${label}.wire.jsonl`), run.wire.map((e) => JSON.stringify(e)).join("\n") + "\n");
    writeFileSync(join(ctx.runs, `${label}.stderr.log`), run.stderr);
    const dumpDir = process.env.INTEROP_DUMP_DIR;
    if (dumpDir !== undefined)
      writeFileSync(join(dumpDir, `${label}.model-requests.json`), JSON.stringify(mock.bodies()));
    const agentWire = wireFromTrace(readFileSync(trace, "utf8"));
    const writtenOnDisk = await stat(join(ws.cwd, EDITOR_SCENARIO.steps.write.path)).then(
      () => true,
      () => false,
    );
    const verdict = checkEditorRun({ cwd: ws.cwd, clientWire: run.wire, results: mock.editorResults(), writtenOnDisk });
    const failures = [
      ...(run.failure ? [run.failure] : []),
      ...versionFailures(spokenVersion(agentWire), 2),
      ...verdict.failures,
      ...(run.problems.length > 0 ? [`${run.problems.length} schema problems on the client wire`] : []),
    ];
    if (failures.length === 0) await rm(root, { recursive: true, force: true });
    else failures.push(`workspace kept in ${dirname(ws.cwd)}`);
    const transport = transportOf(editorServerEntry(agentWire));
    process.stderr.write(
      `interop: ${label}: ${failures.length === 0 ? "ok" : failures.join("; ")} (transport ${transport}, ${Date.now() - started} ms, ${mock.requests()} model requests)\n`,
    );
    return {
      agent: recipe.name,
      transport,
      read: verdict.read,
      write: verdict.write,
      terminal: verdict.terminal,
      turnEnded: run.failure === "",
      schemaProblems: run.problems,
      failures,
    };
  } finally {
    await mock.close();
  }
}

const mark = (ok: boolean): string => (ok ? "ok" : "FAILED");

/** The report's "Editor scenario" section. */
export function renderEditorSection(outcomes: readonly EditorOutcome[]): string {
  const lines = [
    "## Editor scenario",
    "",
    "A v1 client offering fs (read, write) and terminals, with an unsaved buffer that differs from the disk, → bridge → the agent's v2 build, which reaches the editor through the bridge's `editor` MCP server (H §6.5). Read: the model got the buffer's text, not the disk's. Write: the client got fs/write_text_file with the content and the file is not on disk. Terminal: the client got terminal/create for the command and the model got its output.",
    "",
    "| agent | transport | read | write | terminal | turn | schema problems |",
    "|---|---|---|---|---|---|---|",
    ...outcomes.map(
      (o) =>
        `| ${o.agent} | ${o.transport} | ${mark(o.read)} | ${mark(o.write)} | ${mark(o.terminal)} | ${o.turnEnded ? "ok" : "FAILED"} | ${o.schemaProblems.length} |`,
    ),
  ];
  const failed = outcomes.filter((o) => o.failures.length > 0);
  for (const o of failed) {
    lines.push("", `### ${o.agent}: failures`, "", ...o.failures.map((f) => `- ${f}`));
    if (o.schemaProblems.length > 0) lines.push(...o.schemaProblems.slice(0, 10).map((p) => `- schema: ${p}`));
  }
  return lines.join("\n");
}

/** Whether an outcome fails the suite. */
export function editorFailed(o: EditorOutcome): boolean {
  return o.failures.length > 0;
}
