// What the agent may touch through the editor's tools (H §6.5): an absolute path inside the
// session's roots, `cwd` and `additionalDirectories`, the same roots the bridge checks on session
// requests (H §4.10). Lexical first (`..` resolved, no prefix tricks such as `/work-other` for
// `/work`), then, where the path exists on this machine, through symbolic links: a link inside a
// root that leads out of every root is refused too.
import { realpathSync } from "node:fs";
import { posix, win32 } from "node:path";
import type { Platform } from "../convert/directories.js";
import { isAbsoluteOn } from "../convert/paths.js";

export interface Roots {
  readonly cwd: string;
  readonly directories: readonly string[];
}

function within(path: string, root: string, p: typeof posix): boolean {
  const rel = p.relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !p.isAbsolute(rel));
}

function inside(path: string, roots: readonly string[], p: typeof posix, fold: boolean): boolean {
  const key = (s: string) => (fold ? s.toLowerCase() : s);
  return roots.some((root) => within(key(p.resolve(path)), key(p.resolve(root)), p));
}

/** The real path of `path`, or of its nearest existing parent with the rest appended. */
function realish(path: string, p: typeof posix): string {
  let head = path;
  let tail = "";
  for (;;) {
    try {
      return p.join(realpathSync.native(head), tail);
    } catch {
      const parent = p.dirname(head);
      if (parent === head) return path;
      tail = p.join(p.basename(head), tail);
      head = parent;
    }
  }
}

/** Why `path` is refused, or `undefined` when the agent may use it. */
export function pathProblem(path: string, roots: Roots, platform: Platform, anyPath: boolean): string | undefined {
  if (!isAbsoluteOn(path, platform)) return `the path must be absolute: ${JSON.stringify(path)}`;
  if (anyPath) return undefined;
  const p = platform === "windows" ? win32 : posix;
  const fold = platform === "windows";
  const all = [roots.cwd, ...roots.directories];
  const refusal = `the path is outside the session's directories (${all.join(", ")}): ${JSON.stringify(path)}`;
  if (!inside(path, all, p, fold)) return refusal;
  // Only the machine's own path rules can follow links on it.
  const native = (platform === "windows") === (process.platform === "win32");
  if (
    native &&
    !inside(
      realish(p.resolve(path), p),
      all.map((r) => realish(p.resolve(r), p)),
      p,
      fold,
    )
  )
    return `${refusal} (through a symbolic link)`;
  return undefined;
}
