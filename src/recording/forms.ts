// The forms a recorded conversation is written in, read one line at a time (no I/O): which form the
// file is in (from its first message), and which JSON-RPC messages a line holds, who sent them, and
// where each sits in the line. `acp-bridge check` and `acp-bridge convert` read recordings with this.

/**
 * How the file is written, from its first message: `trace` (`--trace` `.jsons` events), `wire`
 * (`{"dir":"in"|"out","msg":…}`, relative to the recording peer), `fixture` (`{"from":"client"|"agent",
 * "message":…}`, interop/fixtures), `bare` (one JSON-RPC message or batch a line).
 */
export type Form = "trace" | "wire" | "fixture" | "bare";

export type Role = "client" | "agent";

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === "object" && x !== null && !Array.isArray(x);

export type Member = "params" | "result" | "error" | "id" | "method" | "jsonrpc" | "";

/** One JSON-RPC message of a line, with where it sits in the line and who sent it. */
export interface Located {
  readonly msg: unknown;
  /** Pointer of each member in the line (a trace's result is its `payload`). */
  readonly at: (member: Member) => string;
  /** The connection it travelled on. */
  readonly conn: string;
  /** Who sent it, as the file names it; `undefined` in the bare form. */
  readonly from: string | undefined;
  readonly to: string | undefined;
  /** Whether the sender is the client or the agent of its connection, when the file says. */
  readonly role: Role | undefined;
  /** A trace event's `ts` (seconds). */
  readonly ts: number | undefined;
}

/** A line that is not one of its form's. */
export interface NotALine {
  readonly subject: string;
  readonly wanted: string;
}

function formOf(value: unknown): Form {
  if (isObj(value) && !("jsonrpc" in value)) {
    if (typeof value.type === "string" && typeof value.from === "string") return "trace";
    if (value.dir === "in" || value.dir === "out") return "wire";
    if ((value.from === "client" || value.from === "agent") && "message" in value) return "fixture";
  }
  return "bare";
}

export function otherRole(role: Role): Role {
  return role === "client" ? "agent" : "client";
}

/** The lines of one recording: the form is settled by the first message, the `dir` roles by the first `initialize`. */
export class Locator {
  form: Form | undefined;
  /** In the `wire` form: which of `out`/`in` is the client, once an `initialize` request says. */
  outRole: Role | undefined;

  /** The messages of one parsed line, or what is wrong with it. */
  locate(value: unknown): Located[] | NotALine {
    this.form ??= formOf(value);
    const bad = (wanted: string): NotALine => ({ subject: `not a ${this.form ?? ""} line`, wanted });
    switch (this.form) {
      case "trace": {
        const e = isObj(value) ? value : {};
        const { type, from, to } = e;
        if (
          (type !== "request" && type !== "response" && type !== "notification") ||
          typeof from !== "string" ||
          typeof to !== "string"
        )
          return bad('a trace event: {"type":"request"|"response"|"notification","from":…,"to":…}');
        const msg: Obj =
          type === "response"
            ? e.is_error === true
              ? { id: e.id, error: e.payload }
              : { id: e.id, result: e.payload }
            : { ...(type === "request" ? { id: e.id } : {}), method: e.method, params: e.params };
        const role =
          from === "client" || to === "agent" ? "client" : from === "agent" || to === "client" ? "agent" : undefined;
        const at = (m: Member) => (m === "result" || m === "error" ? "/payload" : m === "" ? "" : `/${m}`);
        const ts = typeof e.ts === "number" ? e.ts : undefined;
        return [{ msg, at, conn: [from, to].sort().join("|"), from, to, role, ts }];
      }
      case "wire": {
        if (!isObj(value) || (value.dir !== "in" && value.dir !== "out"))
          return bad('a wire entry: {"dir":"in"|"out","msg":…}');
        if (!("msg" in value)) return { subject: `not JSON (${value.dir})`, wanted: "a JSON-RPC message" };
        const dir = value.dir;
        return this.each(value.msg, "/msg", (msg, at) => {
          if (this.outRole === undefined && isObj(msg) && msg.method === "initialize" && "id" in msg)
            this.outRole = dir === "out" ? "client" : "agent";
          const role = this.outRole === undefined ? undefined : dir === "out" ? this.outRole : otherRole(this.outRole);
          return { msg, at, conn: "wire", from: dir, to: dir === "out" ? "in" : "out", role, ts: undefined };
        });
      }
      case "fixture": {
        if (!isObj(value) || (value.from !== "client" && value.from !== "agent") || !("message" in value))
          return bad('a fixture entry: {"from":"client"|"agent","message":…}');
        const from = value.from;
        return this.each(value.message, "/message", (msg, at) => ({
          msg,
          at,
          conn: "wire",
          from,
          to: otherRole(from),
          role: from,
          ts: undefined,
        }));
      }
      default:
        return this.each(value, "", (msg, at) => ({
          msg,
          at,
          conn: "wire",
          from: undefined,
          to: undefined,
          role: undefined,
          ts: undefined,
        }));
    }
  }

  /** A message or a batch's messages. */
  private each(value: unknown, base: string, make: (msg: unknown, at: Located["at"]) => Located): Located[] {
    const atOf = (prefix: string) => (m: Member) => (m === "" ? prefix : `${prefix}/${m}`);
    return Array.isArray(value)
      ? value.map((m, i) => make(m, atOf(`${base}/${String(i)}`)))
      : [make(value, atOf(base))];
  }
}
