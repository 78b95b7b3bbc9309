// The turns the fake agent floods with, for the corpus-based mixes: `replay` sends the recorded
// updates as they are (but a v2 `idle`), `real` the synthetic turns of real-mix.ts. Either way one
// session, and each turn's tool-call, terminal and message ids renamed per turn (`<id>-r<turn>`), so
// that the bridge sees a new tool call per replayed turn, as in a long session. Pure.
import { compileTurn, render, replayable, turnsOf, type CorpusLine, type Template } from "./corpus.js";
import { expandTurn } from "./real-mix.js";

export type Mix = "own" | "real" | "replay";

/** Synthetic variants per recorded turn (different seeds): the fake agent cycles through them. */
export const REAL_VARIANTS = 4;

/** A turn's lines (session `sessionId`), before the per-turn id renaming. */
export type Turn = readonly Template[];

export function replayTurns(corpus: readonly CorpusLine[], sessionId: string): Turn[] {
  return [...turnsOf(corpus).values()].map((t) => compileTurn(sessionId, t.filter(replayable)));
}

export function realTurns(corpus: readonly CorpusLine[], sessionId: string, variants = REAL_VARIANTS): Turn[] {
  const turns = [...turnsOf(corpus).values()];
  const out: Turn[] = [];
  for (let v = 0; v < variants; v++)
    for (const [i, t] of turns.entries()) out.push(compileTurn(sessionId, expandTurn(t, 1000 * v + i + 1)));
  return out;
}

/**
 * The flood: line after line of the turns in turn, turn `t` of the flood rendered with suffix
 * `-r<t>`. Stateful only in its position; `next()` gives the next line.
 */
export class Flood {
  private turn = 0;
  private line = 0;
  private suffix = "-r0";
  constructor(private readonly turns: readonly Turn[]) {
    if (turns.length === 0 || turns.some((t) => t.length === 0)) throw new Error("empty corpus turn");
  }

  next(): string {
    const t = this.turns[this.turn % this.turns.length]!;
    const s = render(t[this.line]!, this.suffix);
    if (++this.line === t.length) {
      this.line = 0;
      this.turn++;
      this.suffix = `-r${this.turn}`;
    }
    return s;
  }
}
