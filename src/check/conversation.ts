// The checker of a recorded conversation, one line at a time (no I/O): which form the file is in,
// which message each line holds and who sent it, which version each connection speaks, which
// method a response answers; every message validated against its version's schema (the unstable
// variant, a superset of the stable one, as `--strict` does).
import { check, type SchemaProblem, type SchemaVersion } from "../schema/validate.js";
import { methodDefs } from "../schema/wire.js";
import { Locator, otherRole, type Located, type Member } from "../recording/forms.js";

export interface Violation {
  readonly line: number;
  /** `session/prompt request client→acp-bridge`, or what the line is when it is no message. */
  readonly subject: string;
  /** JSON pointer into the line as written. */
  readonly path: string;
  /** What the schema (or JSON-RPC) wanted. */
  readonly wanted: string;
}

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === "object" && x !== null && !Array.isArray(x);

type Say = (subject: string, member: Member, problems: readonly SchemaProblem[]) => void;

interface Pending {
  readonly method: string;
}

export interface CheckerOptions {
  readonly protocol: 1 | 2 | undefined;
  readonly maxPending: number;
}

const schemaOfVersion = (v: 1 | 2): SchemaVersion => (v === 1 ? "v1u" : "v2u");

/** A requested or answered `protocolVersion` as a schema version (3+ is served as 2, as the bridge does). */
function versionOf(pv: unknown): 1 | 2 | undefined {
  return typeof pv === "number" && Number.isInteger(pv) && pv >= 1 ? (pv === 1 ? 1 : 2) : undefined;
}

export class ConversationChecker {
  messages = 0;
  /** Messages not checked: no version known yet, or a response whose request was forgotten. */
  unchecked = 0;
  violations = 0;
  private readonly locator = new Locator();
  private readonly requested = new Map<string, 1 | 2>();
  private readonly settled = new Map<string, 1 | 2>();
  /** Unanswered requests: `conn \0 sender \0 id` → method, bounded (oldest forgotten first). */
  private readonly pending = new Map<string, Pending>();
  private forgotten = 0;

  constructor(private readonly opts: CheckerOptions) {}

  /** The violations of one line (`n` counts from 1); blank lines are skipped. */
  line(text: string, n: number): Violation[] {
    if (text.trim() === "") return [];
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      return this.found([{ line: n, subject: "not JSON", path: "", wanted: (e as Error).message }]);
    }
    const located = this.locator.locate(value);
    if ("wanted" in located)
      return this.found([{ line: n, subject: located.subject, path: "", wanted: located.wanted }]);
    const out: Violation[] = [];
    for (const m of located) out.push(...this.message(m, n));
    return this.found(out);
  }

  /** A violation found outside this checker's reading (a line too long). */
  report(v: Violation): Violation[] {
    return this.found([v]);
  }

  private found(vs: Violation[]): Violation[] {
    this.violations += vs.length;
    return vs;
  }

  private message(m: Located, n: number): Violation[] {
    this.messages++;
    const out: Violation[] = [];
    const dirText =
      m.from === undefined ? "" : m.to === "in" || m.to === "out" ? ` ${m.from}` : ` ${m.from}→${m.to ?? ""}`;
    const say = (subject: string, member: Member, problems: readonly SchemaProblem[]) => {
      for (const p of problems)
        out.push({
          line: n,
          subject: subject + dirText,
          path: m.at(member) + (p.path === "/" ? "" : p.path) || "/",
          wanted: p.message,
        });
    };
    if (!isObj(m.msg)) {
      say("message", "", [{ path: "/", message: "must be a JSON-RPC object" }]);
      return out;
    }
    const o = m.msg;
    if (typeof o.method === "string") this.call(m, o, o.method, say);
    else if ("id" in o && "result" in o !== "error" in o) this.response(m, o, say);
    else say("message", "", [{ path: "/", message: "must be a request, a notification or a response" }]);
    return out;
  }

  private call(m: Located, o: Obj, method: string, say: Say): void {
    const isRequest = "id" in o && o.id !== undefined;
    const subject = `${method} ${isRequest ? "request" : "notification"}`;
    this.envelope(o, subject, say);
    if (method === "initialize" && isObj(o.params)) {
      const v = versionOf(o.params.protocolVersion);
      if (v !== undefined) this.requested.set(m.conn, v);
    }
    const version = this.versionOn(m.conn);
    if (isRequest) {
      if (version !== undefined) {
        const p = check(schemaOfVersion(version), "RequestId", o.id);
        if (p) say(subject, "id", p);
      }
      this.remember(`${m.conn}\0${m.from ?? "?"}\0${JSON.stringify(o.id)}`, { method });
    }
    if (method.startsWith("_")) return;
    if (version === undefined) {
      this.unchecked++;
      return;
    }
    const defs = methodDefs(schemaOfVersion(version));
    const entry = (isRequest ? defs.requests : defs.notifications).get(method);
    if (!entry) {
      const kind = isRequest ? "request" : "notification";
      say(subject, "method", [
        { path: "/", message: `a v${String(version)} ${kind} method or an extension method starting with "_"` },
      ]);
      return;
    }
    const role = m.role;
    if (entry.side !== "protocol" && role !== undefined && entry.side === role)
      say(subject, "method", [
        { path: "/", message: `must come from the ${otherRole(role)} (the ${role} handles ${method})` },
      ]);
    const p = check(schemaOfVersion(version), entry.def, o.params ?? {});
    if (p) say(subject, "params", p);
  }

  private response(m: Located, o: Obj, say: Say): void {
    const key = `${m.conn}\0${m.to ?? "?"}\0${JSON.stringify(o.id)}`;
    const asked = this.pending.get(key);
    this.pending.delete(key);
    if (asked === undefined) {
      this.envelope(o, "response", say);
      if (this.forgotten > 0) this.unchecked++;
      else say("response", "id", [{ path: "/", message: "the id of a request awaiting an answer" }]);
      return;
    }
    const method = asked.method;
    const subject = `${method} ${"error" in o ? "error response" : "response"}`;
    this.envelope(o, subject, say);
    if (method === "initialize" && "result" in o && isObj(o.result)) {
      const v = versionOf(o.result.protocolVersion);
      if (v !== undefined) this.settled.set(m.conn, v);
    }
    const version = this.versionOn(m.conn);
    if (version === undefined) {
      this.unchecked++;
      return;
    }
    const schema = schemaOfVersion(version);
    if ("error" in o) {
      const p = check(schema, "Error", o.error);
      if (p) say(subject, "error", p);
      return;
    }
    const def = method.startsWith("_") ? undefined : methodDefs(schema).responses.get(method);
    if (def === undefined) return;
    const p = check(schema, def, o.result);
    if (p) say(subject, "result", p);
  }

  /** `"jsonrpc":"2.0"` on every message (a trace event does not carry it). */
  private envelope(o: Obj, subject: string, say: Say): void {
    if (this.locator.form !== "trace" && o.jsonrpc !== "2.0")
      say(subject, "jsonrpc", [{ path: "/", message: 'must be "2.0"' }]);
  }

  private versionOn(conn: string): 1 | 2 | undefined {
    return this.opts.protocol ?? this.settled.get(conn) ?? this.requested.get(conn);
  }

  private remember(key: string, p: Pending): void {
    this.pending.delete(key);
    this.pending.set(key, p);
    if (this.pending.size > this.opts.maxPending) {
      const oldest = this.pending.keys().next().value;
      if (oldest !== undefined) this.pending.delete(oldest);
      this.forgotten++;
    }
  }
}
