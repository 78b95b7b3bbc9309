// A report as people read it (markdown) and as programs read it (JSON, its shape in the README,
// "Reporting what the bridge did"), and the one line the bridge prints on stderr at exit.
import { VERSION } from "../version.js";
import { OTHER, type ReportData } from "./collector.js";

/** How the run ended, as the transport saw it. */
export type ReportEnd = { readonly status: number } | { readonly signal: string };

/** The JSON document (`--report FILE.json`). */
export interface ReportJson {
  readonly report: "acp-bridge";
  readonly shape: 1;
  readonly bridgeVersion: string;
  readonly startedAt: string;
  readonly endedAt: string;
  readonly durationMs: number;
  readonly end: ReportEnd;
  readonly negotiated: { readonly client: 1 | 2; readonly agent: 1 | 2; readonly mode: "pass" | "A" | "B" } | null;
  readonly messages: {
    readonly received: ReportData["received"];
    readonly sent: ReportData["sent"];
    readonly kinds: ReportData["kinds"];
  };
  readonly losses: { readonly total: number; readonly kinds: ReportData["losses"] };
  readonly emulations: { readonly total: number; readonly kinds: ReportData["emulations"] };
  readonly errors: { readonly total: number; readonly kinds: ReportData["errors"] };
  readonly diffs: ReportData["diffs"];
  readonly stash: ReportData["stash"];
  readonly capped: ReportData["capped"];
}

const MODE_NAMES = { pass: "pass-through", A: "direction A", B: "direction B" } as const;

function total(rows: readonly { count: number }[]): number {
  return rows.reduce((n, r) => n + r.count, 0);
}

/** Kinds by name, the "(other)" row last. */
function sortedKinds(kinds: ReportData["kinds"]): ReportData["kinds"] {
  return [...kinds].sort((a, b) =>
    a.kind === OTHER ? 1 : b.kind === OTHER ? -1 : a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0,
  );
}

export function reportJson(d: ReportData, end: ReportEnd, endedAt: Date): ReportJson {
  return {
    report: "acp-bridge",
    shape: 1,
    bridgeVersion: VERSION,
    startedAt: d.startedAt.toISOString(),
    endedAt: endedAt.toISOString(),
    durationMs: endedAt.getTime() - d.startedAt.getTime(),
    end,
    negotiated: d.negotiated,
    messages: { received: d.received, sent: d.sent, kinds: sortedKinds(d.kinds) },
    losses: { total: total(d.losses), kinds: d.losses },
    emulations: { total: total(d.emulations), kinds: d.emulations },
    errors: { total: total(d.errors), kinds: d.errors },
    diffs: d.diffs,
    stash: d.stash,
    capped: d.capped,
  };
}

/** `v1 client ⇄ v2 agent (direction A)`, or what stood in the way. */
function versionsLine(n: ReportJson["negotiated"]): string {
  if (n === null) return "no handshake completed";
  return `v${String(n.client)} client ⇄ v${String(n.agent)} agent (${MODE_NAMES[n.mode]})`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${String(n)} ${n === 1 ? one : many}`;
}

/** A table cell: no pipe or line break may end it early. */
function cell(x: string | number | null): string {
  return String(x ?? "")
    .replace(/\|/g, "\\|")
    .replace(/[\r\n]+/g, " ");
}

/** A code span that holds any text: a backtick inside is written as a look-alike, so one backtick fences it. */
function code(text: string): string {
  return text === "" ? "" : `\`${text.replace(/`/g, "ˋ")}\``;
}

function table(head: readonly string[], rows: readonly (readonly (string | number | null)[])[]): string[] {
  return [
    `| ${head.join(" | ")} |`,
    `|${head.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`),
  ];
}

export function reportMarkdown(j: ReportJson): string {
  const end = "status" in j.end ? `exit status ${String(j.end.status)}` : `ended by ${j.end.signal}`;
  const out: string[] = [
    "# acp-bridge report",
    "",
    `- bridge: acp-bridge ${j.bridgeVersion}`,
    `- run: ${j.startedAt} to ${j.endedAt} (${(j.durationMs / 1000).toFixed(1)} s), ${end}`,
    `- versions: ${versionsLine(j.negotiated)}`,
    `- messages: ${String(j.messages.received.client)} from the client, ${String(j.messages.received.agent)} from the agent; ${String(j.messages.sent.agent)} to the agent, ${String(j.messages.sent.client)} to the client`,
  ];
  if (j.capped.length > 0)
    out.push(`- bounded: ${j.capped.join(", ")} reached their row limit; the last row of each gathers the rest`);
  out.push("", "## Messages", "");
  out.push(
    ...table(
      ["message", "client → bridge", "bridge → agent", "agent → bridge", "bridge → client"],
      j.messages.kinds.map((k) => [code(k.kind), k.fromClient, k.toAgent, k.fromAgent, k.toClient]),
    ),
  );
  out.push(
    "",
    `## Losses (${plural(j.losses.total, "loss", "losses")} of ${plural(j.losses.kinds.length, "kind")})`,
    "",
  );
  if (j.losses.kinds.length === 0) out.push("Nothing was lost, invented or approximated.");
  else
    out.push(
      "What a conversion could not carry to the other version, invented, or approximated (examples redacted).",
      "",
      ...table(
        ["direction", "message", "path", "reason", "count", "example"],
        j.losses.kinds.map((l) => [l.direction, code(l.message), code(l.path), l.reason, l.count, code(l.example)]),
      ),
    );
  out.push("", `## Emulations (${String(j.emulations.total)})`, "");
  if (j.emulations.kinds.length === 0) out.push("The bridge answered nothing on a peer's behalf.");
  else
    out.push(
      ...table(
        ["method", "how", "count"],
        j.emulations.kinds.map((e) => [code(e.method), e.how, e.count]),
      ),
    );
  out.push("", `## Errors returned (${String(j.errors.total)})`, "");
  if (j.errors.kinds.length === 0) out.push("None.");
  else
    out.push(
      "`bridge`: the bridge's own refusal or failure; `relayed`: the other peer's error, passed on.",
      "",
      ...table(
        ["to", "answering", "code", "reason", "origin", "count"],
        j.errors.kinds.map((e) => [e.to, code(e.method), e.code, e.reason, e.origin, e.count]),
      ),
    );
  out.push(
    "",
    "## Diffs",
    "",
    `- made exact from the files: ${String(j.diffs.exact)}`,
    `- hunks only (file not read): ${String(j.diffs.hunkOnly)}`,
    "",
    "## Stash",
    "",
    ...table(
      ["toward", "level", 'messages carrying `_meta["acp-bridge"]`', "bytes"],
      (["client", "agent"] as const).map((side) => [
        `the ${side}`,
        j.stash[side].level ?? "n/a",
        j.stash[side].messages,
        j.stash[side].bytes,
      ]),
    ),
    "",
  );
  return out.join("\n");
}

/** The one line on stderr at exit. */
export function summaryLine(path: string, j: ReportJson): string {
  const received = j.messages.received.client + j.messages.received.agent;
  const sent = j.messages.sent.client + j.messages.sent.agent;
  return (
    `acp-bridge: report written to ${path}: ${versionsLine(j.negotiated)}, ` +
    `${plural(received, "message")} received, ${String(sent)} sent, ` +
    `${plural(j.losses.total, "loss", "losses")} of ${plural(j.losses.kinds.length, "kind")}, ` +
    `${plural(j.emulations.total, "emulation")}, ${plural(j.errors.total, "error")} returned`
  );
}
