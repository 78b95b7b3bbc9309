// The source maps beside built files (dist/**/*.js.map), each read once: which source file a position
// in a built file came from, for the profile summaries (bench/profile-summary.ts, bench/perf-summary.ts).
import { existsSync, readFileSync } from "node:fs";
import { SourceMap } from "./summary.js";

const maps = new Map<string, SourceMap | null>();

/** The source the position `line`, `column` (both from 0) of the built file `path` came from, when its map says. */
export function sourceAt(path: string, line: number, column: number): string | undefined {
  let map = maps.get(path);
  if (map === undefined) {
    const mapPath = `${path}.map`;
    map = existsSync(mapPath)
      ? new SourceMap(JSON.parse(readFileSync(mapPath, "utf8")) as ConstructorParameters<typeof SourceMap>[0])
      : null;
    maps.set(path, map);
  }
  return map?.sourceAt(line, column) ?? undefined;
}
