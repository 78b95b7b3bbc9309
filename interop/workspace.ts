// One scratch workspace per run: the session's cwd with SCENARIO.files, and a scratch HOME.
import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Workspace } from "./agents/recipe.js";
import { SCENARIO } from "./scenario.js";

export async function prepareWorkspace(cache: string, label: string): Promise<Workspace> {
  const root = await mkdtemp(join(tmpdir(), `acp-interop-${label}-`));
  const cwd = join(root, "work");
  const home = join(root, "home");
  await mkdir(cwd, { recursive: true });
  await mkdir(home, { recursive: true });
  for (const [name, text] of Object.entries(SCENARIO.files)) await writeFile(join(cwd, name), text);
  return { cwd, home, cache };
}

/** Differences between the workspace's files and SCENARIO.expected (empty when they match). */
export async function checkFiles(cwd: string): Promise<string[]> {
  const problems: string[] = [];
  for (const [name, want] of Object.entries(SCENARIO.expected)) {
    const got = await readFile(join(cwd, name), "utf8").catch(() => undefined);
    if (got !== want) problems.push(`${name}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
  }
  const extra = (await readdir(cwd)).filter((n) => !(n in SCENARIO.expected) && !n.startsWith("."));
  if (extra.length > 0) problems.push(`unexpected files: ${extra.join(", ")}`);
  return problems;
}

/** Remove a workspace and its HOME. */
export async function removeWorkspace(ws: Workspace): Promise<void> {
  await rm(dirname(ws.cwd), { recursive: true, force: true });
}
