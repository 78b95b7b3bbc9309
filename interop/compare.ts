// Compare folded views and classify every difference of a bridge run:
// - `agent-other-version`: the client got what the agent put on the wire behind the bridge, and that
//   differs from what the agent's same-version build sends directly (the agent's builds differ);
// - `no-place`: the agent put it on the wire behind the bridge, and the client's version has no
//   field for it (the client got nothing for it; the agent's same-version build sends none);
// - `bridge-lost`: the agent put it on the wire behind the bridge, and the client did not get it
//   (in its version's shape), or got something else.
// A key the agent-side view lacks but the client has exactly as the direct run has it counts as
// carried (the bridge rebuilt it faithfully, e.g. v1 `modes` from a v2 mode config option).
import type { AcpVersion } from "./agents/recipe.js";
import { hasPlaceIn, type View } from "./fold.js";

type DifferenceClass = "agent-other-version" | "no-place" | "bridge-lost";

export interface Difference {
  readonly cls: DifferenceClass;
  readonly key: string;
  /** The same-version client's view of the agent directly. */
  readonly direct: string | undefined;
  /** What the client behind the bridge got. */
  readonly bridged: string | undefined;
  /** What the agent put on the wire behind the bridge (its own version's shape, folded). */
  readonly agent: string | undefined;
  readonly note?: string;
  /** The agent-side and client-side messages that set the key last. */
  readonly agentMessage?: unknown;
  readonly clientMessage?: unknown;
}

export interface RunOutcome {
  readonly label: string;
  readonly agentVersion: AcpVersion;
  readonly clientVersion: AcpVersion;
  readonly via: "direct" | "bridge";
  readonly view: View;
  /** Bridge runs: the agent side, folded from the bridge's trace. */
  readonly agentView?: View;
  readonly schemaProblems: readonly string[];
  /** Messages the client got with the bridge's `_meta["acp-bridge"]` stash, and its bytes. */
  readonly stash: { readonly messages: number; readonly bytes: number };
  /** Turn failures: timeout, exit, files not as expected. */
  readonly failures: readonly string[];
  /** Bridge runs of the main scenario: the `--report` file and the summary line the bridge printed. */
  readonly report?: { readonly file: string; readonly line: string };
}

interface Row {
  readonly agent: string;
  readonly direction: string;
  readonly failed: boolean;
  readonly schema: number;
  readonly otherVersion: number;
  readonly noPlace: number;
  readonly bridgeLost: number;
  readonly differences: readonly Difference[];
  readonly outcome: RunOutcome;
}

export interface AgentResult {
  readonly agent: string;
  readonly direct: readonly RunOutcome[];
  /** Direct v1 vs direct v2, folded: what the agent's two builds send differently. */
  readonly buildDifferences: readonly { key: string; v1?: string; v2?: string }[];
  readonly rows: readonly Row[];
}

/**
 * Classify the differences of a bridged view against the direct same-version view and the agent
 * side; `clientVersion` tells what the client's version has a place for (all keys without it).
 */
export function classify(direct: View, bridged: View, agent: View, clientVersion?: AcpVersion): Difference[] {
  const keys = [...new Set([...Object.keys(direct.items), ...Object.keys(bridged.items), ...Object.keys(agent.items)])];
  const out: Difference[] = [];
  for (const key of keys) {
    const d = direct.items[key];
    const b = bridged.items[key];
    const a = agent.items[key];
    let cls: DifferenceClass | undefined;
    if (b === a) cls = b === d ? undefined : "agent-other-version";
    else if (a === undefined && b === d) cls = undefined;
    else if (b === undefined && d === undefined && clientVersion !== undefined && !hasPlaceIn(clientVersion, key))
      cls = "no-place";
    else cls = "bridge-lost";
    if (cls === undefined) continue;
    const note = [direct.notes[key], bridged.notes[key], agent.notes[key]]
      .map((n, i) => (n ? `${["direct", "bridged", "agent"][i]}: ${n}` : ""))
      .filter((n) => n !== "")
      .join("; ");
    out.push({
      cls,
      key,
      direct: d,
      bridged: b,
      agent: a,
      ...(note ? { note } : {}),
      ...(agent.sources[key] !== undefined ? { agentMessage: agent.sources[key] } : {}),
      ...(bridged.sources[key] !== undefined ? { clientMessage: bridged.sources[key] } : {}),
    });
  }
  return out;
}

/** Keys whose folded values differ between two views. */
function viewDifferences(a: View, b: View): { key: string; v1?: string; v2?: string }[] {
  const keys = [...new Set([...Object.keys(a.items), ...Object.keys(b.items)])];
  return keys
    .filter((k) => a.items[k] !== b.items[k])
    .map((key) => ({
      key,
      ...(a.items[key] !== undefined ? { v1: a.items[key] } : {}),
      ...(b.items[key] !== undefined ? { v2: b.items[key] } : {}),
    }));
}

const EMPTY: View = { items: {}, notes: {}, sources: {} };

export function compareRuns(
  agent: string,
  direct: ReadonlyMap<AcpVersion, RunOutcome>,
  bridged: readonly RunOutcome[],
): AgentResult {
  const d1 = direct.get(1);
  const d2 = direct.get(2);
  const rows = bridged.map((run): Row => {
    const same = direct.get(run.clientVersion);
    // An agent with one version (Gemini CLI: v1) has no same-version build for the other client:
    // what it sent is the reference, so only what the bridge lost shows.
    const agentView = run.agentView ?? EMPTY;
    const differences = classify(same?.view ?? agentView, run.view, agentView, run.clientVersion);
    return {
      agent,
      direction: `v${run.clientVersion} client → bridge → v${run.agentVersion} agent`,
      failed: run.failures.length > 0,
      schema: run.schemaProblems.length,
      otherVersion: differences.filter((x) => x.cls === "agent-other-version").length,
      noPlace: differences.filter((x) => x.cls === "no-place").length,
      bridgeLost: differences.filter((x) => x.cls === "bridge-lost").length,
      differences,
      outcome: run,
    };
  });
  return {
    agent,
    direct: [...direct.values()],
    buildDifferences: d1 && d2 ? viewDifferences(d1.view, d2.view) : [],
    rows,
  };
}

function cut(s: string | undefined, n = 160): string {
  if (s === undefined) return "(none)";
  const one = JSON.stringify(s);
  return one.length > n ? `${one.slice(0, n)}…` : one;
}

function cell(s: string): string {
  return s.replace(/\|/g, "\\|");
}

function stashCell(o: RunOutcome): string {
  return `${o.stash.messages} (${o.stash.bytes})`;
}

function messageLine(m: unknown): string {
  const j = JSON.stringify(m);
  return j.length > 600 ? `${j.slice(0, 600)}…` : j;
}

/** The fidelity table and the details, as markdown. */
export function renderReport(results: readonly AgentResult[], when = new Date()): string {
  const lines: string[] = [];
  lines.push(`# Interop with real agents: last result (${when.toISOString()})`, "");
  lines.push(
    "| agent | run | turn | schema problems | agent-other-version | no-place | bridge-lost | stash messages (bytes) |",
  );
  lines.push("|---|---|---|---|---|---|---|---|");
  for (const r of results) {
    for (const d of r.direct)
      lines.push(
        `| ${r.agent} | v${d.clientVersion} client → v${d.agentVersion} agent (direct) | ${d.failures.length === 0 ? "ok" : "FAILED"} | ${d.schemaProblems.length} | – | – | – | ${stashCell(d)} |`,
      );
    for (const row of r.rows)
      lines.push(
        `| ${row.agent} | ${row.direction} | ${row.failed ? "FAILED" : "ok"} | ${row.schema} | ${row.otherVersion} | ${row.noPlace} | ${row.bridgeLost} | ${stashCell(row.outcome)} |`,
      );
  }
  lines.push(
    "",
    "Classes: `agent-other-version`, the client got what the agent sent, which its same-version build " +
      "sends differently; `no-place`, the agent sent it and the client's version has no field for it; " +
      "`bridge-lost`, the agent sent it and the client did not get it in its version's shape.",
  );
  for (const r of results) {
    lines.push("", `## ${r.agent}`, "");
    const failing = [...r.direct, ...r.rows.map((x) => x.outcome)].filter(
      (o) => o.failures.length > 0 || o.schemaProblems.length > 0,
    );
    for (const o of failing) {
      lines.push(`### ${o.label}: problems`, "");
      for (const f of o.failures) lines.push(`- turn: ${f}`);
      for (const p of o.schemaProblems) lines.push(`- schema: ${p.split("\n")[0] ?? ""}`);
      lines.push("");
    }
    if (r.buildDifferences.length === 0 && r.direct.length > 1)
      lines.push("The agent's v1 and v2 builds, directly, give the same folded view.", "");
    if (r.buildDifferences.length > 0) {
      lines.push("### The agent's v1 and v2 builds, directly (folded)", "");
      lines.push("| key | v1 build | v2 build |", "|---|---|---|");
      for (const d of r.buildDifferences) lines.push(`| ${d.key} | ${cell(cut(d.v1))} | ${cell(cut(d.v2))} |`);
      lines.push("");
    }
    for (const row of r.rows) {
      lines.push(`### ${row.direction}`, "");
      if (row.differences.length === 0) {
        lines.push("No difference: the client saw what the same-version build shows it.", "");
        continue;
      }
      lines.push("| class | key | direct (same version) | through the bridge | agent sent (its version) |");
      lines.push("|---|---|---|---|---|");
      for (const d of row.differences)
        lines.push(
          `| ${d.cls} | ${d.key} | ${cell(cut(d.direct))} | ${cell(cut(d.bridged))} | ${cell(cut(d.agent))}${d.note ? ` (${cell(d.note)})` : ""} |`,
        );
      lines.push("");
      for (const d of row.differences.filter((x) => x.cls !== "agent-other-version")) {
        lines.push(`- ${d.cls} \`${d.key}\`:`);
        if (d.agentMessage !== undefined) lines.push(`  - agent sent: \`${messageLine(d.agentMessage)}\``);
        if (d.clientMessage !== undefined) lines.push(`  - client got: \`${messageLine(d.clientMessage)}\``);
        else lines.push("  - client got: nothing for this key");
      }
      lines.push("");
    }
  }
  return lines.join("\n");
}
