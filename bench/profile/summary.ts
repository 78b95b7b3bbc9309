// Where a bridge's time goes, from a V8 .cpuprofile (`--cpu-prof`): each sample's self time is put
// in a category by the function it was taken in, mapped back through the bundle's source maps to
// the source file (src/wire/update-scan.ts …). Pure; bench/profile-summary.ts reads the files.

export interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
  readonly columnNumber: number;
}

export interface CpuProfile {
  readonly nodes: readonly { readonly id: number; readonly callFrame: CallFrame }[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export type Category =
  | "scanning"
  | "parsing"
  | "converting"
  | "writing"
  | "framing"
  | "node streams and I/O"
  | "garbage collection"
  | "other";

export const CATEGORIES: readonly Category[] = [
  "scanning",
  "parsing",
  "converting",
  "writing",
  "framing",
  "node streams and I/O",
  "garbage collection",
  "other",
];

/**
 * The category of a function, by its source file (after mapping) or, for V8's builtins (no file),
 * by name: `JSON.parse` is parsing, `JSON.stringify` and the string → bytes encoders writing.
 */
export function categorise(source: string, functionName: string): Category {
  if (functionName === "(garbage collector)") return "garbage collection";
  if (source === "") {
    if (functionName === "parse") return "parsing";
    if (functionName === "stringify") return "writing";
    if (
      /^(writeBuffer|writev|writeUtf8String|writeLatin1String|utf8Write|utf8Slice|latin1Slice|onStreamRead|open|close)$/.test(
        functionName,
      )
    )
      return "node streams and I/O";
    if (functionName === "isUtf8") return "framing";
    return "other";
  }
  // V8 shows no frame for JSON.parse and JSON.stringify: their time is their JS caller's self time.
  // `Bridge.line` is the full path's bytes → UTF-16 → JSON.parse (and depth check); `Link.write` and
  // `Link.withExactId` are JSON.stringify of an outgoing message.
  if (/src\/engine\/bridge\.ts$/.test(source) && functionName === "line") return "parsing";
  if (/src\/engine\/link\.ts$/.test(source) && /^(write|withExactId|sendArray)$/.test(functionName)) return "writing";
  if (/src\/wire\/[^/]*scan[^/]*\.ts$|src\/wire\/(json-string|key-order)\.ts$/.test(source)) return "scanning";
  if (/src\/wire\/(envelope|jsonrpc)\.ts$/.test(source)) return "parsing";
  if (/src\/wire\/writer\.ts$/.test(source)) return "writing";
  if (/src\/wire\//.test(source) || /src\/transport\//.test(source)) return "framing";
  if (/src\/(convert|engine|base)\/|mappings\//.test(source)) return "converting";
  if (source.startsWith("node:")) return "node streams and I/O";
  return "other";
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Base64 VLQ values of one source-map segment. */
export function decodeVlq(segment: string): number[] {
  const out: number[] = [];
  let value = 0;
  let shift = 0;
  for (const ch of segment) {
    const digit = B64.indexOf(ch);
    if (digit === -1) throw new Error(`not a base64 VLQ digit: ${ch}`);
    value += (digit & 31) << shift;
    if (digit & 32) shift += 5;
    else {
      out.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return out;
}

/** A source map (v3) as a lookup from a generated (0-based) line and column to the source's name. */
export class SourceMap {
  /** Per generated line: [column, source index] pairs, columns ascending. */
  private readonly lines: [number, number][][] = [];
  constructor(private readonly map: { readonly sources: readonly string[]; readonly mappings: string }) {
    let source = 0;
    for (const line of map.mappings.split(";")) {
      const segs: [number, number][] = [];
      let col = 0;
      for (const seg of line.split(",")) {
        if (seg === "") continue;
        const v = decodeVlq(seg);
        col += v[0]!;
        if (v.length >= 4) {
          source += v[1]!;
          segs.push([col, source]);
        }
        // Source lines and columns (v[2], v[3]) are relative too, but a file is all this needs.
      }
      this.lines.push(segs);
    }
  }

  sourceAt(line: number, column: number): string | undefined {
    const segs = this.lines[line];
    if (!segs || segs.length === 0) return undefined;
    let found: [number, number] | undefined;
    for (const s of segs) {
      if (s[0] > column) break;
      found = s;
    }
    return this.map.sources[(found ?? segs[0]!)[1]];
  }
}

export interface Summary {
  /** µs of self time per category, idle and `(program)` left out. */
  readonly byCategory: Map<Category, number>;
  /** µs of self time per function (`name source`), for the top list. */
  readonly byFunction: Map<string, number>;
  readonly busyUs: number;
}

/**
 * Self time per category. `sourceOf(url, line, column)` maps a frame to its source file (through a
 * source map, or the url itself); V8's builtins have no url.
 */
export function summarise(
  profile: CpuProfile,
  sourceOf: (frame: CallFrame) => string,
  categoryOf: (source: string, fn: string) => Category = categorise,
): Summary {
  const nodeById = new Map(profile.nodes.map((n) => [n.id, n]));
  const byCategory = new Map<Category, number>(CATEGORIES.map((c) => [c, 0]));
  const byFunction = new Map<string, number>();
  const sources = new Map<number, { source: string; category: Category; key: string }>();
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    // A sample's time is the delta to the next sample (the last one's: its own delta).
    const dt = profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0;
    const id = profile.samples[i]!;
    const node = nodeById.get(id);
    if (!node) continue;
    const fn = node.callFrame.functionName;
    if (fn === "(idle)" || fn === "(program)" || fn === "(root)") continue;
    let s = sources.get(id);
    if (!s) {
      const source = sourceOf(node.callFrame);
      s = { source, category: categoryOf(source, fn), key: `${fn || "(anonymous)"} ${source || "(builtin)"}` };
      sources.set(id, s);
    }
    busy += dt;
    byCategory.set(s.category, byCategory.get(s.category)! + dt);
    byFunction.set(s.key, (byFunction.get(s.key) ?? 0) + dt);
  }
  return { byCategory, byFunction, busyUs: busy };
}
