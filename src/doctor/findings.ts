// Findings about the agent, in the tiers of the official conformance kit (acp-tck): MANDATORY (an
// editor cannot rely on it), CAPABILITY (an advertised feature does not work), ADVISORY (it works,
// but against a rule or a recommendation), INFORMATIONAL.
import { isSchemaMethod, EXTENSION_PREFIX } from "../../mappings/methods.js";
import { check, type SchemaVersion } from "../schema/validate.js";
import { defsFor } from "../schema/wire.js";

const TIERS = ["MANDATORY", "CAPABILITY", "ADVISORY", "INFORMATIONAL"] as const;
type Tier = (typeof TIERS)[number];

export interface Finding {
  readonly tier: Tier;
  /** A stable name for the kind of finding (the JSON's key for scripts). */
  readonly code: string;
  readonly message: string;
  /** Where the rule is written: a section of the design notes (H §, T §) or of the ACP spec. */
  readonly spec: string;
  /** The probe that saw it first. */
  readonly probe: string;
}

export class Findings {
  private readonly seen = new Set<string>();
  readonly list: Finding[] = [];

  /** `key` (by default code and message) keeps one finding of a kind across probes. */
  add(f: Finding, key = `${f.code}\u0000${f.message}`): void {
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.list.push(f);
  }

  sorted(): Finding[] {
    return [...this.list].sort((a, b) => TIERS.indexOf(a.tier) - TIERS.indexOf(b.tier));
  }
}

/**
 * The problems of one message against its schema, readable: what it is, then each JSON path and
 * what the schema wanted there. Extension and unknown methods are opaque (as in `--strict`).
 */
export function schemaProblem(
  version: SchemaVersion,
  msg: unknown,
  methodOf: (id: unknown) => string | undefined,
): string | undefined {
  if (typeof msg !== "object" || msg === null || Array.isArray(msg)) return "not a JSON-RPC object";
  const o = msg as Record<string, unknown>;
  let what: string;
  let def: string | undefined;
  let value: unknown;
  if (typeof o.method === "string") {
    what = `${o.method} ${o.id === undefined ? "notification" : "request"} params`;
    def = defsFor(version, o.method)?.params;
    value = o.params;
  } else if (o.error !== undefined) {
    what = "error answer";
    def = "Error";
    value = o.error;
  } else {
    const method = methodOf(o.id);
    what = `${method ?? "?"} result`;
    def = method === undefined ? undefined : defsFor(version, method)?.result;
    value = o.result;
  }
  if (def === undefined) return undefined;
  const problems = check(version, def, value);
  if (problems === undefined) return undefined;
  return `${what} breaks ${version.slice(0, 2)} ${def}: ${problems.map((p) => `${p.path === "" ? "/" : p.path}: ${p.message}`).join("; ")}`;
}

const SPEC_SCHEMA = "ACP schema (node_modules/@agentclientprotocol/sdk/schema)";
const SPEC_EXTENSIONS = "ACP spec: Extensibility (custom methods start with `_`); H §7.4";

/**
 * What one message the agent sent says about it: a method that is neither the schema's nor an
 * extension (`_`), and a message its version's schema refuses (`version` undefined: not checked).
 */
export function observeAgentMessage(
  findings: Findings,
  probe: string,
  msg: unknown,
  version: 1 | 2 | undefined,
  methodOf: (id: unknown) => string | undefined,
): void {
  const o = typeof msg === "object" && msg !== null && !Array.isArray(msg) ? (msg as Record<string, unknown>) : {};
  const method = o.method;
  if (typeof method === "string" && !method.startsWith(EXTENSION_PREFIX) && !isSchemaMethod(method)) {
    const kind = o.id === undefined ? "notification" : "request";
    findings.add({
      tier: "ADVISORY",
      code: "extension-without-underscore",
      message: `sends the ${kind} '${method}', which no ACP schema defines and which lacks the '_' prefix of extensions (a translating bridge drops it)`,
      spec: SPEC_EXTENSIONS,
      probe,
    });
    return;
  }
  if (version === undefined) return;
  // The unstable schemas: a superset of the stable ones (as --strict and `check` use them).
  const problem = schemaProblem(version === 1 ? "v1u" : "v2u", msg, methodOf);
  if (problem !== undefined)
    findings.add({
      tier: "MANDATORY",
      code: "schema-violation",
      message: `its ${problem.slice(0, 400)}`,
      spec: SPEC_SCHEMA,
      probe,
    });
}
