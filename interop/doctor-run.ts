// `acp-bridge doctor` against every real agent the suite installs (issue 23): the agent as a user
// runs it (its newest ACP build), in a scratch workspace with its model mock's environment (doctor
// never prompts, so the mock is never called). Run by interop/run.ts; the report gets each agent's
// verdict and findings, .runs/doctor-<agent>.txt the whole human output.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentRecipe } from "./agents/recipe.js";
import { prepareWorkspace, removeWorkspace } from "./workspace.js";

export interface DoctorOutcome {
  readonly agent: string;
  readonly version: number;
  readonly status: number | null;
  /** The human report's findings section and verdict. */
  readonly summary: string;
}

export interface DoctorContext {
  readonly bin: string;
  readonly cache: string;
  readonly runs: string;
  readonly baseEnv: (home: string) => NodeJS.ProcessEnv;
}

export async function runDoctor(recipe: AgentRecipe, ctx: DoctorContext): Promise<DoctorOutcome> {
  const version = Math.max(...recipe.versions) as 1 | 2;
  const label = `doctor-${recipe.name}`;
  process.stderr.write(`interop: ${label} (its v${version} build) ...\n`);
  const ws = await prepareWorkspace(ctx.cache, label);
  const mock = await recipe.startMock(ws);
  try {
    const agent = await recipe.launch(version, ws, mock);
    const child = spawn(
      process.execPath,
      [ctx.bin, "doctor", "--cwd", ws.cwd, "--timeout-ms", "30000", "--", agent.command, ...agent.args],
      { cwd: ws.cwd, env: { ...ctx.baseEnv(ws.home), ...agent.env }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    const status = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    writeFileSync(join(ctx.runs, `${label}.txt`), `${err}\n${out}`);
    const at = out.indexOf("Findings");
    return { agent: recipe.name, version, status, summary: at < 0 ? out.trim() : out.slice(at).trim() };
  } finally {
    await mock.close();
    await removeWorkspace(ws);
  }
}

/** The report's "Doctor" section. */
export function renderDoctorSection(runs: readonly DoctorOutcome[]): string {
  const lines = [
    "## Doctor",
    "",
    "`acp-bridge doctor` against each agent's newest build (exit 0: an editor of each version can use it through the bridge; the whole output in `.runs/doctor-<agent>.txt`).",
    "",
  ];
  for (const r of runs)
    lines.push(
      `### ${r.agent} (v${String(r.version)} build): exit ${String(r.status)}`,
      "",
      "```text",
      r.summary,
      "```",
      "",
    );
  return lines.join("\n");
}
