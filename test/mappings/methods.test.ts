// mappings/methods.ts must route every method of the four pinned schemas (v1 and v2, stable and
// unstable): a new SDK that adds a method fails here until the method has a row (and so a route in
// both engines, which the compiler then demands).
import { describe, expect, it } from "vitest";
import { methodTable, refusal, rowsFrom, type Handlers, type MethodRow } from "../../mappings/methods.js";
import { schemaOf, type SchemaVersion } from "../support/schema.js";

interface SchemaMethod {
  readonly method: string;
  readonly kind: "request" | "notification";
  readonly side: string;
}

/** The methods a schema defines: its `x-method` / `x-side` annotated request and notification `$defs`. */
function schemaMethods(version: SchemaVersion): SchemaMethod[] {
  const out: SchemaMethod[] = [];
  for (const [name, def] of Object.entries(schemaOf(version).$defs)) {
    const method = def["x-method"];
    const side = def["x-side"];
    if (typeof method !== "string" || typeof side !== "string") continue;
    if (name.endsWith("Request")) out.push({ method, kind: "request", side });
    else if (name.endsWith("Notification")) out.push({ method, kind: "notification", side });
  }
  return out;
}

const column = (v: SchemaVersion): "v1" | "v2" => (v.startsWith("v1") ? "v1" : "v2");
const rowFor = (v: SchemaVersion, m: SchemaMethod): MethodRow | undefined =>
  methodTable.find((r) => r[column(v)] === m.method && r.kind === m.kind);

/** Methods of earlier SDKs that real agents still send (issue 7): rows without a pinned schema. */
const LEGACY = new Set(["session/set_model"]);

describe("the method map covers the pinned schemas", () => {
  const versions: SchemaVersion[] = ["v1", "v1u", "v2", "v2u"];

  it.each(versions)("every method of the %s schema has a row, with the schema's side", (v) => {
    const methods = schemaMethods(v);
    expect(methods.length).toBeGreaterThan(10);
    const missing = methods.filter((m) => rowFor(v, m) === undefined).map((m) => `${m.kind} ${m.method}`);
    expect(missing).toEqual([]);
    for (const m of methods) expect(rowFor(v, m)?.handledBy, m.method).toBe(m.side);
  });

  it("marks as unstable exactly the rows whose methods only the unstable schemas define", () => {
    const stable = new Set(
      (["v1", "v2"] as const).flatMap((v) => schemaMethods(v).map((m) => `${column(v)} ${m.kind} ${m.method}`)),
    );
    for (const r of methodTable) {
      for (const col of ["v1", "v2"] as const) {
        const name = r[col];
        if (name === null || LEGACY.has(name)) continue;
        expect(stable.has(`${col} ${r.kind} ${name}`), `${col} ${name}`).toBe(r.unstable !== true);
      }
    }
  });

  it("names in its rows only methods the schemas define (legacy methods aside)", () => {
    const defined = new Set(versions.flatMap((v) => schemaMethods(v).map((m) => `${column(v)} ${m.kind} ${m.method}`)));
    for (const r of methodTable)
      for (const col of ["v1", "v2"] as const) {
        const name = r[col];
        if (name !== null && !LEGACY.has(name)) expect(defined.has(`${col} ${r.kind} ${name}`), name).toBe(true);
      }
  });

  it("has one row per method and kind in each version", () => {
    for (const col of ["v1", "v2"] as const) {
      const keys = methodTable.filter((r) => r[col] !== null).map((r) => `${r.kind} ${r[col]}`);
      expect(new Set(keys).size).toBe(keys.length);
    }
  });

  it("gives routes that fit the names: forward keeps the name, rename changes it, a missing name cannot be sent", () => {
    for (const r of methodTable) {
      for (const d of ["a", "b"] as const) {
        const route = r[d];
        if (route === "forward") expect(r.v1, `${d} ${r.v1}`).toBe(r.v2);
        if (route === "rename") expect(r.v1 !== null && r.v2 !== null && r.v1 !== r.v2, `${d} ${r.v1}`).toBe(true);
        // Who sends it in this direction, in which version (the receiver implements the method).
        const clientSends = r.handledBy !== "client";
        const senderVersion = clientSends === (d === "a") ? "v1" : "v2";
        if (route === "n/a") expect(r[senderVersion], `${d} ${r.v1 ?? r.v2}`).toBeNull();
        if (r[senderVersion] === null) expect(["n/a", "refuse"], `${d} ${r.v1 ?? r.v2}`).toContain(route);
      }
    }
  });
});

/** The `$defs` entry of a method's request params (`Request`) or result (`Response`), in the unstable schema. */
function defOf(col: "v1" | "v2", method: string, suffix: "Request" | "Response"): Record<string, any> | undefined {
  const defs = schemaOf(col === "v1" ? "v1u" : "v2u").$defs as Record<string, Record<string, any>>;
  return Object.entries(defs).find(([name, d]) => d["x-method"] === method && name.endsWith(suffix))?.[1];
}

describe("the session columns (opensSession, afterClose)", () => {
  const flagged = methodTable.filter((r) => r.opensSession !== undefined || r.afterClose !== undefined);

  it("are set on requests to the agent only, some of each", () => {
    expect(flagged.filter((r) => r.opensSession === "new").length).toBeGreaterThan(0);
    expect(flagged.filter((r) => r.opensSession === "named").length).toBeGreaterThan(2);
    expect(flagged.filter((r) => r.afterClose).length).toBeGreaterThan(2);
    for (const r of flagged) expect([r.kind, r.handledBy], `${r.v1 ?? r.v2}`).toEqual(["request", "agent"]);
  });

  it("mark as naming a session (named, afterClose) only requests whose params require a sessionId", () => {
    for (const r of flagged.filter((r) => r.opensSession === "named" || r.afterClose))
      for (const col of ["v1", "v2"] as const) {
        const name = r[col];
        if (name === null || LEGACY.has(name)) continue;
        expect(defOf(col, name, "Request")?.required, `${col} ${name}`).toContain("sessionId");
      }
  });

  it("mark as creating a session (new) only requests whose result gives the new session's id", () => {
    for (const r of flagged.filter((r) => r.opensSession === "new"))
      for (const col of ["v1", "v2"] as const) {
        const name = r[col];
        if (name !== null) expect(defOf(col, name, "Response")?.required, `${col} ${name}`).toContain("sessionId");
      }
  });
});

describe("routes and refusals", () => {
  it("looks methods up by name only: prototype names are no methods", () => {
    for (const name of ["__proto__", "constructor", "toString", "hasOwnProperty"])
      for (const d of ["a", "b"] as const)
        for (const from of ["client", "agent"] as const)
          for (const kind of ["request", "notification"] as const)
            expect(rowsFrom(d, from, kind).get(name)).toBeUndefined();
  });

  it("names the missing counterpart in a refusal", () => {
    const cancel = rowsFrom("b", "client", "request").get("tool_call/cancel");
    expect(cancel?.b).toBe("refuse");
    expect(refusal("b", "client", cancel!).reason).toMatch(/^the v1 agent has no counterpart for tool_call\/cancel: /);
    const fs = rowsFrom("b", "agent", "request").get("fs/read_text_file");
    expect(refusal("b", "agent", fs!)).toEqual({
      method: "fs/read_text_file",
      reason:
        "the v2 client has no counterpart for fs/read_text_file: ACP v2 removed the client fs and terminal methods",
    });
    const proxy = rowsFrom("a", "client", "request").get("proxy/initialize");
    expect(refusal("a", "client", proxy!).reason).toMatch(/not a proxy-chain component/);
  });

  it("sends each stream's methods in the sender's version", () => {
    expect(rowsFrom("a", "client", "request").has("session/load")).toBe(true);
    expect(rowsFrom("b", "client", "request").has("session/load")).toBe(false);
    expect(rowsFrom("b", "client", "request").has("auth/login")).toBe(true);
    expect(rowsFrom("a", "agent", "request").has("mcp/message")).toBe(true);
    expect(rowsFrom("a", "client", "notification").has("mcp/message")).toBe(true);
    expect(rowsFrom("b", "agent", "request").has("fs/read_text_file")).toBe(true);
    expect(rowsFrom("a", "agent", "request").has("fs/read_text_file")).toBe(false);
  });
});

describe("the engines' handler tables are checked by the compiler (npm run typecheck)", () => {
  type H = () => void;
  const h: H = () => undefined;
  it("accepts exactly the handled methods, optionally the forwarded ones", () => {
    const exact: Handlers<"b", "agent", "notification", H> = { "session/update": h, "$/cancel_request": h };
    const observing: Handlers<"b", "agent", "notification", H> = {
      "session/update": h,
      "$/cancel_request": h,
      "elicitation/complete": h,
    };
    // @ts-expect-error a method the table routes through the engine needs its handler
    const missing: Handlers<"b", "agent", "notification", H> = { "session/update": h };
    const refused: Handlers<"b", "agent", "notification", H> = {
      "session/update": h,
      "$/cancel_request": h,
      // @ts-expect-error a refused method takes no handler
      "proxy/successor": h,
    };
    const unknown: Handlers<"a", "client", "request", H> = {
      ...({} as Handlers<"a", "client", "request", H>),
      // @ts-expect-error neither can a method the sender's version does not have
      "auth/login": h,
    };
    expect([exact, observing, missing, refused, unknown]).toHaveLength(5);
  });
});
