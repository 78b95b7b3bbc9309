// Reading the files a diff names (docs/decisions.md#v2-diffs-toward-v1, T §3.3), for the pure diff converters:
// A↓ gives a v1 client exact full texts, B↓ places a v1 snippet in the real file.
//
// Synchronous on purpose: the engine translates each message synchronously and must keep their
// order; an async read would let later messages overtake this one. It is bounded instead: only
// regular files (fstat first, opened non-blocking so a FIFO cannot hang the bridge), at most
// `maxBytes` each (`--diff-file-max-bytes`), UTF-8 without NUL bytes; anything else reads as absent
// and the converters fall back to the hunk texts.

import { closeSync, constants, fstatSync, openSync, readSync, statSync } from "node:fs";
import { diffFilePaths, type FileTexts } from "../convert/diff.js";
import type { BridgeObserver } from "./observer.js";

const NON_BLOCKING = constants.O_NONBLOCK ?? 0;
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The file's text, or `undefined` when it is not a readable UTF-8 text file of at most `maxBytes`. */
function readTextFile(path: string, maxBytes: number): string | undefined {
  if (maxBytes <= 0) return undefined;
  // A path that names no regular file of at most `maxBytes` is known without opening it (often: the
  // agent's workspace is elsewhere): a failed `openSync` costs an exception (several µs), `statSync`
  // without throwing a fraction of that. The fstat after the open still decides (the file may change
  // in between).
  let pre;
  try {
    pre = statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  if (pre === undefined || !pre.isFile() || pre.size > maxBytes) return undefined;
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | NON_BLOCKING);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > maxBytes) return undefined;
    // One byte more than allowed tells a file that grew since the fstat.
    const buf = Buffer.alloc(Math.min(st.size, maxBytes) + 1);
    let got = 0;
    for (let n = -1; n !== 0 && got < buf.length; got += n) n = readSync(fd, buf, got, buf.length - got, null);
    if (got > maxBytes) return undefined;
    const bytes = buf.subarray(0, got);
    if (bytes.includes(0)) return undefined;
    return utf8.decode(bytes);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * The texts of the files named by the diffs of a tool call's `content` (v2 items when `from` is 2).
 * `observer` learns, per file, whether its text was found (the diff made exact) or not (hunks only).
 */
export function diffFiles(
  content: unknown,
  from: 1 | 2,
  maxBytes: number,
  cwd?: string,
  observer?: BridgeObserver,
): FileTexts | undefined {
  if (maxBytes <= 0) {
    const unread = observer === undefined ? 0 : diffFilePaths(content, from, cwd).length;
    for (let i = 0; i < unread; i++) observer?.diff(false);
    return undefined;
  }
  const paths = diffFilePaths(content, from, cwd);
  if (paths.length === 0) return undefined;
  const out = new Map<string, string>();
  for (const p of paths) {
    const text = readTextFile(p, maxBytes);
    if (text !== undefined) out.set(p, text);
    observer?.diff(text !== undefined);
  }
  return out;
}
