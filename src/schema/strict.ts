// `--strict`: every message the bridge writes is validated against the official schema of the side
// it goes to (the unstable variant: a superset), and violations are logged. Loaded and compiled
// only when asked for, so a normal start pays nothing (performance budget).
import type { Logger } from "../log.js";
import { messageProblem } from "./wire.js";

type Side = "client" | "agent";

interface Hooks {
  onReceive(from: Side, msg: unknown): void;
  onSend(to: Side, msg: unknown): void;
}

function field(msg: unknown, key: string): unknown {
  return typeof msg === "object" && msg !== null && !Array.isArray(msg)
    ? (msg as Record<string, unknown>)[key]
    : undefined;
}

/** Hooks for the bridge's config; `report` gets each violation (default: a warning on stderr). */
export function strictHooks(log: Logger, report?: (violation: string) => void): Hooks {
  const versions: Partial<Record<Side, 1 | 2>> = {};
  /** Requests each side sent and the bridge has not answered yet: id → method. */
  const asked: Record<Side, Map<string, string>> = { client: new Map(), agent: new Map() };
  /** Ids of the initialize requests the bridge sent the agent (its answers fix the agent's version). */
  const probes = new Set<string>();
  const key = (id: unknown) => JSON.stringify(id);
  const say = report ?? ((v: string) => log.warn(`strict: ${v}`));
  const versionOf = (result: unknown): 1 | 2 | undefined => {
    const v = field(result, "protocolVersion");
    return v === 1 || v === 2 ? v : undefined;
  };
  return {
    onReceive(from, msg) {
      for (const m of Array.isArray(msg) ? (msg as unknown[]) : [msg]) {
        const method = field(m, "method");
        const id = field(m, "id");
        if (typeof method === "string" && id !== undefined) asked[from].set(key(id), method);
        if (from === "agent" && method === undefined && probes.delete(key(id))) {
          const v = versionOf(field(m, "result"));
          if (v) versions.agent = v;
        }
      }
    },
    onSend(to, msg) {
      for (const m of Array.isArray(msg) ? (msg as unknown[]) : [msg]) {
        const method = field(m, "method");
        const id = field(m, "id");
        if (to === "agent" && method === "initialize") probes.add(key(id));
        let answered: string | undefined;
        if (method === undefined && id !== undefined) {
          answered = asked[to].get(key(id));
          asked[to].delete(key(id));
          const v = to === "client" && answered === "initialize" ? versionOf(field(m, "result")) : undefined;
          if (v) versions.client = v;
        }
        const version = versions[to];
        if (version === undefined) continue;
        const problem = messageProblem(version === 1 ? "v1u" : "v2u", m, () => answered);
        if (problem) say(`to the ${to} (v${version}): ${problem}`);
      }
    },
  };
}
