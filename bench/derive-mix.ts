// `npx tsx bench/derive-mix.ts [--runs interop/.runs] [--fixtures interop/fixtures]`: extracts the
// agent side's `session/update` lines of the interop recordings into the committed corpus
// (bench/traffic/corpus-v1.ndjson, corpus-v2.ndjson: one recorded turn per agent and scenario,
// normalised) and writes bench/traffic/FIGURES.md: the counted figures per recording and the
// proportions of the mixes the fake agent sends (own, real, replay), so anyone can recompute them.
// With no recordings (a fresh clone: interop/.runs is not committed), `--corpus-only` recounts the
// committed corpus alone.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  agentUpdates,
  normalise,
  notificationLine,
  parseCorpus,
  render,
  turnsOf,
  type CorpusLine,
  type Update,
} from "./traffic/corpus.js";
import { emptyShapes, mean, pct, quantile, shapesOf, type Shapes } from "./traffic/figures.js";
import { ownUpdateLine } from "./traffic/own-mix.js";
import { realTurns, replayTurns, REAL_VARIANTS, type Turn } from "./traffic/pool.js";
import { CHUNK_FEATURES, CHUNK_LENGTHS, CODE_FEATURES, VOLUME } from "./traffic/text-model.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : process.argv[i + 1]!;
};
const RUNS = arg("--runs", join(root, "interop/.runs"));
const FIXTURES = arg("--fixtures", join(root, "interop/fixtures"));
const OUT = join(root, "bench/traffic");
const corpusOnly = process.argv.includes("--corpus-only");

interface Recording {
  readonly file: string;
  /** The agent and scenario: `claude`, `editor-codex`, … */
  readonly source: string;
  readonly agentVersion: 1 | 2;
  /** Preference for the corpus: a direct wire (0) over a bridge's trace (1) over a committed fixture (2). */
  readonly rank: number;
  readonly updates: Update[];
}

function recordings(): Recording[] {
  const out: Recording[] = [];
  const add = (dir: string, file: string, re: RegExp, rank: (m: RegExpExecArray) => number) => {
    const m = re.exec(file);
    if (!m || statSync(join(dir, file)).size === 0) return;
    out.push({
      file: join(dir === RUNS ? "interop/.runs" : "interop/fixtures", file),
      source: m[1]!,
      agentVersion: Number(m.at(-1)) as 1 | 2,
      rank: rank(m),
      updates: agentUpdates(readFileSync(join(dir, file), "utf8")).map(normalise),
    });
  };
  if (existsSync(RUNS))
    for (const f of readdirSync(RUNS).sort()) {
      // A direct run's client wire is the agent's side; a bridged run's agent side is in its trace.
      add(RUNS, f, /^((?:editor-)?[a-z]+)-v\d-direct-v(\d)\.wire\.jsonl$/, () => 0);
      add(RUNS, f, /^((?:editor-)?[a-z]+)-v\d-bridge-v(\d)\.trace\.jsons$/, () => 1);
    }
  if (existsSync(FIXTURES))
    for (const f of readdirSync(FIXTURES).sort()) add(FIXTURES, f, /^([a-z]+)-v(\d)\.ndjson$/, () => 2);
  return out;
}

/** One recording per agent and scenario of an agent version: the most direct one. */
function chosen(recs: readonly Recording[], version: 1 | 2): Recording[] {
  const best = new Map<string, Recording>();
  for (const r of recs)
    if (r.agentVersion === version && r.rank < (best.get(r.source)?.rank ?? Infinity)) best.set(r.source, r);
  return [...best.values()].sort((a, b) => a.source.localeCompare(b.source));
}

function corpusFrom(recs: readonly Recording[], version: 1 | 2): CorpusLine[] {
  return chosen(recs, version).flatMap((r) => r.updates.map((update) => ({ source: r.source, update })));
}

function kindsOf(updates: readonly Update[]): Record<string, number> {
  const k: Record<string, number> = {};
  for (const u of updates) k[u.sessionUpdate] = (k[u.sessionUpdate] ?? 0) + 1;
  return k;
}

const line = (u: Update) => notificationLine("bench", u);
const kindsText = (k: Record<string, number>, of: number) =>
  Object.entries(k)
    .sort((a, b) => b[1] - a[1])
    .map(([n, c]) => `${n} ${c} (${pct(c, of)})`)
    .join(", ");

function shapesRow(name: string, s: Shapes): string {
  const plans = (s.kinds.plan ?? 0) + (s.kinds.plan_update ?? 0);
  const content = Object.entries(s.content)
    .map(([k, c]) => `${k} ${c}`)
    .join(", ");
  return (
    `| ${name} | ${s.updates} | ${s.toolCalls} | ${s.toolCallUpdates} | ${s.withRawInput} | ${s.withLocations} | ` +
    `${content || "–"} | ${s.terminalMeta} / ${s.kinds.terminal_update ?? 0} | ${s.diffChars.join(", ") || "–"} | ` +
    `${plans} | ${s.kinds.usage_update ?? 0} | ${s.kinds.available_commands_update ?? 0} | ${s.kinds.session_info_update ?? 0} | ` +
    `${s.text.chunks} chunks, ${s.text.codeUnits} chars |`
  );
}

/** Counts over the lines a mix sends (the session/update lines of its pool, ids renamed as in the flood). */
function mixShapes(lines: readonly string[]): Shapes {
  const s = emptyShapes();
  for (const l of lines) {
    const u = (JSON.parse(l) as { params: { update: Update } }).params.update;
    shapesOf([u], () => l, s);
  }
  return s;
}

const poolLines = (turns: readonly Turn[]) => turns.flatMap((t, i) => t.map((x) => render(x, `-r${i}`)));

function mixRow(mix: string, version: number, s: Shapes): string {
  const t = s.text;
  const chunks = (s.kinds.agent_message_chunk ?? 0) + (s.kinds.agent_thought_chunk ?? 0);
  return (
    `| ${mix} | v${version} | ${s.updates} | ${pct(chunks, s.updates)} | ${pct(s.toolCallUpdates, s.updates)} | ` +
    `${kindsText(s.kinds, s.updates)} | ${mean(s.lineBytes).toFixed(0)} / ${quantile(s.lineBytes, 0.5)} / ${quantile(s.lineBytes, 0.99)} | ` +
    `${t.chunks === 0 ? "–" : (t.codeUnits / t.chunks).toFixed(1)} | ${pct(t.withQuote, t.chunks)} | ${pct(t.withBackslash, t.chunks)} | ` +
    `${pct(t.withNewline, t.chunks)} | ${pct(t.withNonAscii, t.chunks)} | ${pct(t.withSurrogatePair, t.chunks)} |`
  );
}

function main(): void {
  const recs = corpusOnly ? [] : recordings();
  const corpora = new Map<1 | 2, CorpusLine[]>();
  for (const v of [1, 2] as const) {
    const file = join(OUT, `corpus-v${v}.ndjson`);
    if (corpusOnly) corpora.set(v, parseCorpus(readFileSync(file, "utf8")));
    else {
      const c = corpusFrom(recs, v);
      if (c.length === 0) throw new Error(`no recording of a v${v} agent under ${RUNS} or ${FIXTURES}`);
      writeFileSync(file, c.map((l) => JSON.stringify(l) + "\n").join(""));
      corpora.set(v, c);
    }
  }
  const md: string[] = [
    "# Figures of the bench's traffic (generated)",
    "",
    "Written by `npx tsx bench/derive-mix.ts` (see README.md); do not edit by hand.",
    "",
  ];
  if (!corpusOnly) {
    md.push(
      "## Update kinds per recording (agent side)",
      "",
      "The recordings are real agents (Claude's, Codex's and Gemini's ACP adapters) driven by the interop",
      "suite's scripted model mocks: the shapes are the adapters', the text is the mock's (short).",
      "",
      "| recording | agent | in corpus | updates | kinds (count, share) |",
      "|---|---|---|---|---|",
    );
    const inCorpus = new Set([...chosen(recs, 1), ...chosen(recs, 2)]);
    for (const r of recs)
      md.push(
        `| ${r.file} | ${r.source} v${r.agentVersion} | ${inCorpus.has(r) ? "yes" : ""} | ${r.updates.length} | ${kindsText(kindsOf(r.updates), r.updates.length)} |`,
      );
    md.push("");
  }
  md.push(
    "## Shapes per corpus turn",
    "",
    "Tool-call updates: either version's `tool_call` / `tool_call_update`. rawInput, locations: updates with a",
    "non-empty one. Terminals: updates with v1's `_meta.terminal_output`/`terminal_exit`, v2 `terminal_update`s.",
    "Diff sizes: characters of `oldText` + `newText` (v1) or of the git patch (v2). Text: the agent message",
    "chunks, which are the mock's.",
    "",
    "| turn | updates | tool calls | tool-call updates | with rawInput | with locations | content items | terminal meta / updates | diff chars | plans | usage | commands | session info | text (mock) |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
  );
  for (const v of [1, 2] as const)
    for (const [source, updates] of turnsOf(corpora.get(v)!))
      md.push(shapesRow(`${source} v${v}`, shapesOf(updates, line)));
  md.push(
    "",
    "## What each mix sends",
    "",
    `Counted over the lines of one cycle of each mix (own: 10,000 lines; real: the ${REAL_VARIANTS} synthetic`,
    "variants of every corpus turn; replay: every corpus turn once, without a v2 `idle`). Line bytes: mean /",
    "median / p99 of the `session/update` line. Chunk text: message and thought chunks.",
    "",
    '| mix | agent | lines | chunks | tool-call updates | kinds | line bytes | chunk chars (mean) | with `"` | with `\\` | with newline | non-ASCII | surrogate pair |',
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
  );
  for (const v of [1, 2] as const) {
    const own = Array.from({ length: 10_000 }, (_, i) => ownUpdateLine(i, "bench", v, 20));
    md.push(mixRow("bench's own mix", v, mixShapes(own)));
    md.push(mixRow("real-derived", v, mixShapes(poolLines(realTurns(corpora.get(v)!, "bench")))));
    md.push(mixRow("replay", v, mixShapes(poolLines(replayTurns(corpora.get(v)!, "bench")))));
  }
  md.push(
    "",
    "## The text model (stated, not measured)",
    "",
    "Chunk lengths (UTF-16 code units, uniform within a range): " +
      CHUNK_LENGTHS.map((b) => `${b.min}–${b.max}: ${b.weight * 100}%`).join(", ") +
      ". Per chunk, independently: " +
      Object.entries(CHUNK_FEATURES)
        .map(([k, p]) => `${k} ${(p * 100).toFixed(1)}%`)
        .join(", ") +
      ". Per line of tool output or file text: " +
      Object.entries(CODE_FEATURES)
        .map(([k, p]) => `${k} ${(p * 100).toFixed(1)}%`)
        .join(", ") +
      `. Per step (before each tool call): ${VOLUME.thoughtTokensPerStep} thought chunks and ${VOLUME.messageTokensPerStep} message chunks; the final answer ${VOLUME.finalMessageTokens} chunks; tool output ${VOLUME.outputLines.min}–${VOLUME.outputLines.max} lines, edited files ${VOLUME.fileLines.min}–${VOLUME.fileLines.max} lines with ${VOLUME.changedLines.min}–${VOLUME.changedLines.max} lines changed, lines of ${VOLUME.lineLength.min}–${VOLUME.lineLength.max} characters plus indentation and features.`,
    "",
  );
  writeFileSync(join(OUT, "FIGURES.md"), md.join("\n"));
  process.stdout.write(md.join("\n"));
}

main();
