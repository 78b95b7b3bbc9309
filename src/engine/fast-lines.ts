// Fast paths of the bridge core: lines whose handling a cheap scan proves, forwarded without
// parsing (performance budget, issue 9). Each is proven byte-for-byte equal to the full path by a
// property test (test/engine/fast-lines.test.ts); whatever a scan cannot prove takes the full path.
import { notificationMethod } from "../wire/scan.js";
import type { Link } from "./link.js";
import type { Translator } from "./translator.js";

/** Handles a line from `from` and returns true, or returns false having done nothing. */
export type FastPath = (from: Link, line: Buffer) => boolean;

/**
 * The fast path of a negotiated mode, if it has one. Pass-through forwards every notification as
 * its bytes but `$/cancel_request`, whose request id it maps (passthrough.ts): here, a notification
 * proven so by the scan goes to the other side untouched, parsed by nobody.
 */
/**
 * Longest line a fast path scans: the scan's byte loop costs more per byte than JSON.parse, and wins
 * by building nothing, which pays only on short lines (the bulk of a stream: chunks, tool updates).
 */
const MAX_FAST_LINE_BYTES = 1024;

export function fastPathFor(
  mode: Translator["mode"],
  client: Link,
  agent: Link,
  maxDepth: number,
): FastPath | undefined {
  if (mode !== "pass") return undefined;
  return (from, line) => {
    if (line.length > MAX_FAST_LINE_BYTES) return false;
    const method = notificationMethod(line, maxDepth);
    if (method === undefined || method === "$/cancel_request") return false;
    return (from === client ? agent : client).forwardVerbatim(line);
  };
}
