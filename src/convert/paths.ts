// Paths, lexically (no file system, no normalization of what a peer sent, H §4.10 rule 5). Two
// questions with two answers: is a path absolute on a KNOWN platform (the agent's, for roots), and
// is it absolute on ANY platform (a path in a tool call or a diff, whose platform the bridge does
// not know); and one resolution of a relative path against the session's cwd.
import { posix, win32 } from "node:path";
import type { Platform } from "./directories.js";

// `C:\x` or `C:/x`; `C:x` is drive-relative and `\x` root-relative: neither is absolute.
const WINDOWS_DRIVE = /^[A-Za-z]:[\\/]/;
// `\\server\share...` (also `\\?\C:\...` and `\\.\pipe\...`), either separator.
const WINDOWS_UNC = /^[\\/]{2}[^\\/]+[\\/][^\\/]+/;

/** Absolute under the rules of `platform` (the agent's, for `additionalDirectories`, H §4.10). */
export function isAbsoluteOn(path: string, platform: Platform): boolean {
  if (platform === "posix") return path.startsWith("/");
  return WINDOWS_DRIVE.test(path) || WINDOWS_UNC.test(path);
}

/** Absolute on some platform: POSIX `/…`, a Windows drive `C:\…` or a `\\…` UNC prefix. */
export function isAbsoluteAnywhere(path: string): boolean {
  return path.startsWith("/") || path.startsWith("\\\\") || WINDOWS_DRIVE.test(path);
}

/**
 * `path` resolved against the session `cwd`, in the cwd's own syntax (T §3.3 B↓-1, §3.4); `undefined`
 * when `path` is absolute or empty, when `cwd` is absent or not absolute (resolution must never fall
 * back on the bridge's own cwd), and for a drive-relative `D:x` (that drive's cwd is not knowable).
 */
export function resolvePath(cwd: string | undefined, path: string): string | undefined {
  if (cwd === undefined || path === "" || isAbsoluteAnywhere(path) || !isAbsoluteAnywhere(cwd)) return undefined;
  if (cwd.startsWith("/")) return posix.resolve(cwd, path);
  if (/^[A-Za-z]:/.test(path)) return undefined;
  return win32.resolve(cwd, path);
}
