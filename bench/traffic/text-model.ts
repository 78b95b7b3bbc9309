// A stated model of the text a real agent streams, for the bench's "real" mix. The interop
// recordings cannot give these figures: their text comes from our loopback model mocks (one short
// English sentence per message, sent as one chunk). So this is a model, not a measurement: the
// parameters below are the bench's assumptions, printed in bench/traffic/README.md beside the
// generated traffic's measured statistics. Deterministic (a seeded PRNG), pure.

/** mulberry32: a small seeded PRNG, the same stream on every machine. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Chunk lengths in UTF-16 code units (a streamed token or a few), 1–20: weights of the ranges below.
 * Mean about 4.6 code units, near what BPE tokenizers give on English and code.
 */
export const CHUNK_LENGTHS: readonly { readonly min: number; readonly max: number; readonly weight: number }[] = [
  { min: 1, max: 3, weight: 0.35 },
  { min: 4, max: 6, weight: 0.4 },
  { min: 7, max: 12, weight: 0.2 },
  { min: 13, max: 20, weight: 0.05 },
];

/** Per chunk: the chance that it contains each feature (independently). */
export const CHUNK_FEATURES = {
  /** `"`: quoted names, code spans, JSON in prose. */
  quote: 0.05,
  /** `\`: Windows paths, regexes, escapes in code spans. */
  backslash: 0.015,
  /** `\n`: paragraph and list breaks, code blocks. */
  newline: 0.1,
  /** `\t`: code blocks. */
  tab: 0.01,
  /** Accented Latin (é, ü, ñ …): names, non-English prose. */
  latin: 0.02,
  /** CJK (one to three BMP characters, 3 bytes each in UTF-8). */
  cjk: 0.03,
  /** An emoji: a surrogate pair (4 bytes in UTF-8). */
  emoji: 0.01,
} as const;

/** Lines of tool output and file text (read results, diffs, terminal output): per line. */
export const CODE_FEATURES = {
  quote: 0.3,
  backslash: 0.05,
  tab: 0.1,
  nonAscii: 0.02,
  emoji: 0.005,
} as const;

/**
 * Tokens streamed per turn, per step (a step: the thought and the message before one tool call) and
 * for the final answer; lines of a tool's output. Assumptions, of the order of a coding agent's turn.
 */
export const VOLUME = {
  thoughtTokensPerStep: 40,
  messageTokensPerStep: 15,
  finalMessageTokens: 120,
  /** Lines of a file read, a terminal's output, a text content: uniform in this range. */
  outputLines: { min: 5, max: 60 },
  /** Lines of a file an edit touches, and lines changed in it. */
  fileLines: { min: 10, max: 60 },
  changedLines: { min: 1, max: 8 },
  lineLength: { min: 0, max: 80 },
} as const;

const WORDS = (
  "the of to and a in is it you that for on with as this be are file function return const let " +
  "value error test change line path update session agent tool call read write run check fix " +
  "import export type string number if else await async new class interface"
).split(" ");
const PUNCT = [".", ",", ":", ";", "(", ")", "`", "-", "*", "#", "=", "{", "}", "[", "]"];
const LATIN = ["é", "ü", "ñ", "ç", "ø", "å", "ß", "à"];
const CJK = ["的", "是", "文", "件", "代", "码", "测", "试", "更", "新", "関", "数", "한", "국"];
const EMOJI = ["😀", "🚀", "✅", "🎉", "👍", "🔧", "📁", "🐛"];

export class TextModel {
  private readonly r: () => number;
  constructor(seed: number) {
    this.r = prng(seed);
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.r() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.r() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.r() * xs.length)]!;
  }

  chunkLength(): number {
    let x = this.r();
    for (const b of CHUNK_LENGTHS) {
      if (x < b.weight) return this.int(b.min, b.max);
      x -= b.weight;
    }
    return 4;
  }

  /** ASCII filler of exactly `n` code units (words, spaces, punctuation). */
  private ascii(n: number): string {
    let s = "";
    while (s.length < n) s += this.chance(0.15) ? this.pick(PUNCT) : (s.length > 0 ? " " : "") + this.pick(WORDS);
    return s.slice(0, n);
  }

  /** One streamed chunk: a length from CHUNK_LENGTHS, features from CHUNK_FEATURES spliced in. */
  chunk(): string {
    const n = this.chunkLength();
    const extras: string[] = [];
    if (this.chance(CHUNK_FEATURES.quote)) extras.push('"');
    if (this.chance(CHUNK_FEATURES.backslash)) extras.push("\\");
    if (this.chance(CHUNK_FEATURES.newline)) extras.push("\n");
    if (this.chance(CHUNK_FEATURES.tab)) extras.push("\t");
    if (this.chance(CHUNK_FEATURES.latin)) extras.push(this.pick(LATIN));
    if (this.chance(CHUNK_FEATURES.cjk))
      extras.push(Array.from({ length: this.int(1, 3) }, () => this.pick(CJK)).join(""));
    if (this.chance(CHUNK_FEATURES.emoji)) extras.push(this.pick(EMOJI));
    let s = this.ascii(Math.max(0, n - extras.join("").length));
    for (const e of extras) {
      const at = this.int(0, s.length);
      s = s.slice(0, at) + e + s.slice(at);
    }
    return s === "" ? " " : s;
  }

  /** One line of code or tool output (no terminator), features from CODE_FEATURES. */
  codeLine(): string {
    const indent = this.chance(CODE_FEATURES.tab) ? "\t" : " ".repeat(2 * this.int(0, 3));
    let s = indent + this.ascii(this.int(VOLUME.lineLength.min, VOLUME.lineLength.max));
    if (this.chance(CODE_FEATURES.quote)) s += ` "${this.ascii(this.int(1, 16))}"`;
    if (this.chance(CODE_FEATURES.backslash)) s += ' "\\n"';
    if (this.chance(CODE_FEATURES.nonAscii)) s += " // " + this.pick(CJK) + this.pick(LATIN);
    if (this.chance(CODE_FEATURES.emoji)) s += " " + this.pick(EMOJI);
    return s;
  }

  lines(min: number, max: number): string[] {
    return Array.from({ length: this.int(min, max) }, () => this.codeLine());
  }

  /** A tool's text output: VOLUME.outputLines lines, newline-terminated. */
  output(): string {
    return this.lines(VOLUME.outputLines.min, VOLUME.outputLines.max).join("\n") + "\n";
  }
}

/** What a piece of generated text contains (for the README's measured statistics). */
export interface TextStats {
  chunks: number;
  codeUnits: number;
  utf8Bytes: number;
  withQuote: number;
  withBackslash: number;
  withNewline: number;
  withNonAscii: number;
  withSurrogatePair: number;
}

export function emptyStats(): TextStats {
  return {
    chunks: 0,
    codeUnits: 0,
    utf8Bytes: 0,
    withQuote: 0,
    withBackslash: 0,
    withNewline: 0,
    withNonAscii: 0,
    withSurrogatePair: 0,
  };
}

export function addStats(s: TextStats, text: string): void {
  s.chunks++;
  s.codeUnits += text.length;
  s.utf8Bytes += Buffer.byteLength(text, "utf8");
  if (text.includes('"')) s.withQuote++;
  if (text.includes("\\")) s.withBackslash++;
  if (text.includes("\n")) s.withNewline++;
  if (/[\u0080-\uffff]/.test(text)) s.withNonAscii++;
  if (/[\ud800-\udbff][\udc00-\udfff]/.test(text)) s.withSurrogatePair++;
}
