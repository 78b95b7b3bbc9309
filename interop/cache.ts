// The interop cache: the real agents pinned by interop/package-lock.json, installed with `npm ci`
// into `ACP_INTEROP_CACHE` (default interop/.cache) only when the lock changed, never by the root
// `npm ci`. The copy of the lock in the cache records what was installed there.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

export const INTEROP_DIR = resolve(import.meta.dirname);

export function cacheDir(): string {
  return resolve(process.env.ACP_INTEROP_CACHE ?? join(INTEROP_DIR, ".cache"));
}

function same(a: string, b: string): boolean {
  return existsSync(a) && existsSync(b) && readFileSync(a, "utf8") === readFileSync(b, "utf8");
}

/** Install the pinned agents into `dir` unless it already holds exactly this lock. */
export function ensureCache(dir: string): void {
  const lock = join(INTEROP_DIR, "package-lock.json");
  const installed = join(dir, "node_modules", ".package-lock.json");
  if (existsSync(installed) && same(lock, join(dir, "package-lock.json"))) return;
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(INTEROP_DIR, "package.json"), join(dir, "package.json"));
  copyFileSync(lock, join(dir, "package-lock.json"));
  process.stderr.write(`interop: installing the pinned agents into ${dir} (npm ci)\n`);
  const r = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: dir, stdio: ["ignore", 2, 2] });
  if (r.status !== 0) throw new Error(`npm ci in ${dir} failed (exit ${String(r.status)})`);
}
