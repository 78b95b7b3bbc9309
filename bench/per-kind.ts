// Per-kind timing for `in-process.ts --per-kind`: each agent line is named by what its update is (its
// tag, its content items' types, its status, whether it carries rawInput or rawOutput), and the time
// the bridge and parse+stringify spend on each kind is summed, so the bridge's excess over
// parse+stringify can be read kind by kind (docs/performance.md, "Where A's replay loses, per kind").

/** What a `session/update` line's update is: `tool_call_update[diff]/in_progress+ri`, `usage_update`, … */
export function lineKind(line: string): string {
  let update: unknown;
  try {
    update = (JSON.parse(line) as { params?: { update?: unknown } }).params?.update;
  } catch {
    return "(not JSON)";
  }
  if (typeof update !== "object" || update === null) return "(no update)";
  const u = update as Record<string, unknown>;
  let kind = typeof u.sessionUpdate === "string" ? u.sessionUpdate : "(no tag)";
  const typeOf = (c: unknown): string => {
    const o = typeof c === "object" && c !== null ? (c as Record<string, unknown>) : {};
    const inner = typeof o.content === "object" && o.content !== null ? (o.content as Record<string, unknown>) : {};
    return `${String(o.type)}${typeof inner.type === "string" ? `/${inner.type}` : ""}`;
  };
  if (Array.isArray(u.content)) kind += `[${u.content.map(typeOf).join(",")}]`;
  else if (u.content !== undefined) kind += `<${typeOf(u.content)}>`;
  if (typeof u.status === "string") kind += `/${u.status}`;
  if (u.rawInput !== undefined) kind += "+ri";
  if (u.rawOutput !== undefined) kind += "+ro";
  return kind;
}

interface Row {
  lines: number;
  bridgeNs: number;
  relayNs: number;
  /** Of these, the lines no fast path took (the full path parsed them), and their time on both sides. */
  fullLines: number;
  fullBridgeNs: number;
  fullRelayNs: number;
}

/** Time summed per kind, for the bridge and for parse+stringify, and how much of it the full path took. */
export class KindTimes {
  private readonly rows = new Map<string, Row>();

  add(kind: string, bridgeNs: number, relayNs: number, full = false): void {
    const row = this.rows.get(kind) ?? {
      lines: 0,
      bridgeNs: 0,
      relayNs: 0,
      fullLines: 0,
      fullBridgeNs: 0,
      fullRelayNs: 0,
    };
    row.lines++;
    row.bridgeNs += bridgeNs;
    row.relayNs += relayNs;
    if (full) {
      row.fullLines++;
      row.fullBridgeNs += bridgeNs;
      row.fullRelayNs += relayNs;
    }
    this.rows.set(kind, row);
  }

  /**
   * The lines a fast path took against those the full path parsed: their share of the lines and of
   * the bridge's time, and µs a line for both (the fast paths pay where they beat parse+stringify;
   * the full path costs a parse, the engine's rendering and a serialization).
   */
  paths(): string {
    const sum = { lines: 0, bridgeNs: 0, relayNs: 0, fullLines: 0, fullBridgeNs: 0, fullRelayNs: 0 };
    for (const r of this.rows.values()) for (const k of Object.keys(sum) as (keyof Row)[]) sum[k] += r[k];
    const row = (name: string, lines: number, bridgeNs: number, relayNs: number): string =>
      `| ${name} | ${((100 * lines) / sum.lines).toFixed(1)}% | ${((100 * bridgeNs) / sum.bridgeNs).toFixed(1)}% | ` +
      `${(bridgeNs / Math.max(lines, 1) / 1000).toFixed(2)} | ${(relayNs / Math.max(lines, 1) / 1000).toFixed(2)} |`;
    return [
      "| path | share of lines | share of the bridge's time | bridge µs a line | parse+stringify µs a line |",
      "|---|---|---|---|---|",
      row("a fast path", sum.lines - sum.fullLines, sum.bridgeNs - sum.fullBridgeNs, sum.relayNs - sum.fullRelayNs),
      row("the full path", sum.fullLines, sum.fullBridgeNs, sum.fullRelayNs),
      "",
    ].join("\n");
  }

  /**
   * A Markdown table, the largest excess first: each kind's share of the lines, µs a line for both,
   * and the excess per 1,000 lines of the traffic (what the kind adds to the bridge's average).
   */
  table(top = 25): string {
    let lines = 0;
    for (const r of this.rows.values()) lines += r.lines;
    const rows = [...this.rows.entries()]
      .map(([kind, r]) => ({ kind, ...r, excess: (r.bridgeNs - r.relayNs) / 1000 / (lines / 1000) }))
      .sort((x, y) => y.excess - x.excess)
      .slice(0, top);
    const out = [
      "| kind | share of lines | on the full path | bridge µs a line | parse+stringify µs a line | excess, µs per 1,000 lines |",
      "|---|---|---|---|---|---|",
    ];
    for (const r of rows)
      out.push(
        `| ${r.kind} | ${((100 * r.lines) / lines).toFixed(1)}% | ${((100 * r.fullLines) / r.lines).toFixed(0)}% | ` +
          `${(r.bridgeNs / r.lines / 1000).toFixed(2)} | ` +
          `${(r.relayNs / r.lines / 1000).toFixed(2)} | ${r.excess.toFixed(0)} |`,
      );
    return `${out.join("\n")}\n`;
  }
}
