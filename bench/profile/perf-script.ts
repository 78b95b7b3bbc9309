// The samples of `perf script` (Linux perf, call graphs on), summed per function: the time a
// function is on the stack (inclusive) and at its top (self), and who calls a function. A profile of
// the process as the kernel sees it: native code, system calls and GC threads included, each sample
// where the CPU was. V8's `--cpu-prof` samples from a thread of its own and can charge the time of a
// system call to the wrong frame (docs/performance.md, "Profiles from perf"). JavaScript frames are
// named when node ran with `--perf-basic-prof` (`JS:*name url:line:col`, `*` optimized, `^` baseline,
// `~` interpreted). Pure; bench/perf-summary.ts reads the text.

/** One sample's frames, the innermost first, each a function's name as perf printed it. */
export type Stack = readonly string[];

/** The stacks in `perf script`'s text: a header line per sample, then its frames indented, a blank line after. */
export function parsePerfScript(text: string): Stack[] {
  const stacks: Stack[] = [];
  let frames: string[] | undefined;
  for (const line of text.split("\n")) {
    if (line.trim() === "") {
      if (frames !== undefined && frames.length > 0) stacks.push(frames);
      frames = undefined;
    } else if (line.startsWith("\t") || line.startsWith(" ")) {
      // `<address> <symbol>+0x<offset> (<object>)`: the symbol without its offset and object.
      const body = line.trim();
      const space = body.indexOf(" ");
      if (space < 0 || frames === undefined) continue;
      frames.push(frameName(body.slice(space + 1)));
    } else frames = [];
  }
  if (frames !== undefined && frames.length > 0) stacks.push(frames);
  return stacks;
}

/** A frame's symbol without perf's `+0x…` offset and `(object)` suffix. */
export function frameName(symbol: string): string {
  return symbol.replace(/\s*\([^()]*\)$/, "").replace(/\+0x[0-9a-f]+$/, "");
}

export interface FunctionTime {
  readonly name: string;
  /** Samples with the function anywhere on the stack (once a sample, however deep it recurses). */
  readonly inclusive: number;
  /** Samples with the function at the top. */
  readonly self: number;
}

/** Inclusive and self samples per function (named by `rename`, which may merge frames), most inclusive first. */
export function functionTimes(stacks: readonly Stack[], rename: (frame: string) => string = (f) => f): FunctionTime[] {
  const inclusive = new Map<string, number>();
  const self = new Map<string, number>();
  for (const stack of stacks) {
    const seen = new Set<string>();
    stack.forEach((frame, depth) => {
      const name = rename(frame);
      if (depth === 0) self.set(name, (self.get(name) ?? 0) + 1);
      if (seen.has(name)) return;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + 1);
    });
  }
  return [...inclusive]
    .map(([name, n]) => ({ name, inclusive: n, self: self.get(name) ?? 0 }))
    .sort((a, b) => b.inclusive - a.inclusive || a.name.localeCompare(b.name));
}

/**
 * Who calls the frames `target` matches: for each sample with one on its stack, the first `depth`
 * JavaScript frames outside it (the innermost match's callers), joined by " <- ", with their samples.
 */
export function callersOf(
  stacks: readonly Stack[],
  target: RegExp,
  depth = 1,
  rename: (frame: string) => string = (f) => f,
): { callers: string; samples: number }[] {
  const counts = new Map<string, number>();
  for (const stack of stacks) {
    const at = stack.findIndex((f) => target.test(rename(f)));
    if (at < 0) continue;
    const js = stack
      .slice(at + 1)
      .map(rename)
      .filter((f) => f.startsWith("JS:") && !target.test(f))
      .slice(0, depth);
    const key = js.length === 0 ? "(no JavaScript caller)" : js.join(" <- ");
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([callers, samples]) => ({ callers, samples })).sort((a, b) => b.samples - a.samples);
}
