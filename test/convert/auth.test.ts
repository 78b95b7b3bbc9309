import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { methodRow } from "../../mappings/methods.js";
import {
  authMethodsToV1,
  authMethodsToV2,
  authMethodToV1,
  authMethodToV2,
  restoreOmitted,
} from "../../src/convert/auth.js";
import type { ConvertOptions } from "../../src/convert/stash.js";
import { logoutUnsupported } from "../../src/base/errors.js";
import { defaultOptions } from "../support/conv.js";
import { arb } from "../support/arbitrary.js";
import { convertsLosslessly, options } from "../support/properties.js";
import { expectValid } from "../support/schema.js";
import { value } from "../support/conv.js";

const off: ConvertOptions = options("off");

function toV2(m: unknown, opts = defaultOptions): v2.AuthMethod {
  const out = value(authMethodToV2(m as v1.AuthMethod, opts));
  expectValid("v2", "AuthMethod", out);
  return out;
}

function toV1(m: unknown, opts = defaultOptions): v1.AuthMethod {
  const out = value(authMethodToV1(m as v2.AuthMethod, opts));
  expectValid("v1", "AuthMethod", out);
  return out;
}

describe("H §3.1 authenticate ⇄ auth/login, logout ⇄ auth/logout", () => {
  it("renames the methods through the method table", () => {
    expect(methodRow(1, "authenticate")?.v2).toBe("auth/login");
    expect(methodRow(2, "auth/login")?.v1).toBe("authenticate");
    expect(methodRow(1, "logout")?.v2).toBe("auth/logout");
    expect(methodRow(2, "auth/logout")?.v1).toBe("logout");
  });

  it("refuses auth/logout toward a v1 agent without auth.logout with -32601", () => {
    expect(logoutUnsupported()).toEqual({
      code: -32601,
      message: "Method not found",
      data: { method: "auth/logout", reason: "v1 agent does not support logout" },
    });
  });
});

describe("H §3.2 AuthMethod descriptors", () => {
  it("renames id to methodId and adds type agent (B), and back (A)", () => {
    const v1m = { id: "agent-login", name: "Agent login", description: "Sign in" };
    const v2m = toV2(v1m);
    expect(v2m).toEqual({ type: "agent", methodId: "agent-login", name: "Agent login", description: "Sign in" });
    expect(toV1(v2m)).toEqual(v1m);
  });

  it("turns a terminal env map into a list in key order, and the list back into the map (spec example)", () => {
    const v1m = { type: "terminal", id: "tty", name: "Login", args: ["--login"], env: { ACP_LOGIN: "1", B: "2" } };
    const v2m = toV2(v1m);
    expect(v2m).toEqual({
      type: "terminal",
      methodId: "tty",
      name: "Login",
      args: ["--login"],
      env: [
        { name: "ACP_LOGIN", value: "1" },
        { name: "B", value: "2" },
      ],
    });
    expect(toV1(v2m)).toEqual(v1m);
  });

  it("lets the last of duplicate env names win toward v1 and restores the list from the stash", () => {
    const env = [
      { name: "A", value: "1" },
      { name: "A", value: "2" },
    ];
    const r = authMethodToV1({ type: "terminal", methodId: "t", name: "T", env }, defaultOptions);
    const v1m = value(r);
    expect((v1m as { env?: unknown }).env).toEqual({ A: "2" });
    expect(r.ok && r.lost).toEqual([{ path: ["env"], reason: expect.any(String) }]);
    expect(toV2(v1m)).toEqual({ type: "terminal", methodId: "t", name: "T", env });
  });

  it("stashes EnvVariable _meta on the method and restores it", () => {
    const v2m = { type: "terminal", methodId: "t", name: "T", env: [{ name: "K", value: "v", _meta: { trace: 1 } }] };
    const v1m = toV1(v2m);
    expect(v1m).toEqual({
      type: "terminal",
      id: "t",
      name: "T",
      env: { K: "v" },
      _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { env: v2m.env } } },
    });
    expect(toV2(v1m)).toEqual(v2m);
  });

  it("keeps env names that JavaScript would reorder (integer-like keys) in their v2 order", () => {
    const v2m = {
      type: "terminal",
      methodId: "t",
      name: "T",
      env: [
        { name: "b", value: "1" },
        { name: "2", value: "x" },
      ],
    };
    expect(toV2(toV1(v2m))).toEqual(v2m);
    expect(toV2(toV1(v2m, off), off)).not.toEqual(v2m);
  });

  it("drops the null env and args a v2 reader tolerates (∅ for v1) and restores them", () => {
    const v2m = { type: "terminal", methodId: "t", name: "T", env: null, args: null };
    const v1m = toV1(v2m);
    expect(v1m).not.toHaveProperty("env");
    expect(v1m).not.toHaveProperty("args");
    expect(value(authMethodToV2(v1m, defaultOptions))).toEqual(v2m);
  });

  it("rejects a v2 type v1 does not know with unknown_variant", () => {
    const r = authMethodToV1({ type: "_sso", methodId: "s", name: "SSO" }, defaultOptions);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ code: -32602, data: { field: "type", reason: "unknown_variant" } });
  });

  it("keeps a v1 entry of an unknown type toward v2 and restores it as a v1 entry (H §7.6)", () => {
    const v1m = { type: "_vendor", id: "x", name: "X" };
    const r = authMethodToV2(v1m, defaultOptions);
    const v2m = value(r);
    expect(v2m).toMatchObject({ type: "_vendor", methodId: "x", name: "X" });
    expectValid("v2", "AuthMethod", v2m);
    expect(value(authMethodToV1(v2m, defaultOptions))).toEqual(v1m);
    // without the stash, the reverse cannot know the entry is v1-visible
    expect(authMethodToV1(value(authMethodToV2(v1m as unknown as v1.AuthMethod, off)), off).ok).toBe(false);
  });

  it("restores an explicit v1 type agent that the reverse would drop", () => {
    const v1m = { type: "agent", id: "a", name: "A" };
    const v2m = toV2(v1m);
    expect(v2m.type).toBe("agent");
    expect(toV1(v2m)).toEqual(v1m);
  });

  it("keeps a v1 extra key named methodId aside instead of overwriting it", () => {
    const v1m = { id: "a", name: "A", methodId: "other" };
    const v2m = toV2(v1m);
    expect(v2m.methodId).toBe("a");
    expect(toV1(v2m)).toEqual(v1m);
  });

  it("rejects a v1 terminal env that is not a string map", () => {
    const r = authMethodToV2(
      { type: "terminal", id: "t", name: "T", env: { A: 1 } } as unknown as v1.AuthMethod,
      defaultOptions,
    );
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.data).toMatchObject({ field: "env", reason: "not_string_map" });
  });

  it("rejects a description that is not a string in either direction, as both schemas do", () => {
    const to2 = authMethodToV2({ id: "a", name: "A", description: {} } as unknown as v1.AuthMethod, defaultOptions);
    expect(to2.ok).toBe(false);
    if (!to2.ok) expect(to2.error.data).toMatchObject({ field: "description", reason: "not_string" });
    const v2m = { type: "agent", methodId: "a", name: "A", description: 7 } as unknown as v2.AuthMethod;
    const to1 = authMethodToV1(v2m, defaultOptions);
    expect(to1.ok).toBe(false);
    if (!to1.ok) expect(to1.error.data).toMatchObject({ field: "description", reason: "not_string" });
  });
});

describe("H §3.2-3.3 authMethods lists (conformance H §9 case 13)", () => {
  const v2List = [
    { type: "agent", methodId: "a", name: "A" },
    { type: "_sso", methodId: "s", name: "SSO" },
    { type: "terminal", methodId: "t", name: "T", env: [{ name: "K", value: "v" }] },
  ];

  it("omits a v2 _sso method from the v1 list with its index, and a chained bridge restores it", () => {
    const r = authMethodsToV1(v2List, defaultOptions);
    expect(r.value.methods).toEqual([
      { id: "a", name: "A" },
      { type: "terminal", id: "t", name: "T", env: { K: "v" } },
    ]);
    expect(r.value.omitted).toEqual([{ index: 1, entry: v2List[1] }]);
    expect(r.lost).toEqual([{ path: [1], reason: expect.stringContaining("unknown to v1") }]);
    const back = authMethodsToV2(r.value.methods, defaultOptions);
    expect(restoreOmitted(back.value.methods, r.value.omitted)).toEqual(v2List);
  });

  it("omits invalid v1 entries toward v2 (v1 skips them too)", () => {
    const r = authMethodsToV2([{ id: "a", name: "A" }, { name: "no id" }, 5], defaultOptions);
    expect(r.value.methods).toEqual([{ type: "agent", methodId: "a", name: "A" }]);
    expect(r.value.omitted.map((o) => o.index)).toEqual([1, 2]);
    expect(restoreOmitted([{ id: "a", name: "A" }], r.value.omitted)).toEqual([
      { id: "a", name: "A" },
      { name: "no id" },
      5,
    ]);
  });

  it("ignores a malformed omitted stash", () => {
    expect(restoreOmitted([1], [{ index: -1, entry: 2 }, { index: "x", entry: 3 }, "junk"])).toEqual([1]);
    expect(restoreOmitted([1], { index: 0 })).toEqual([1]);
  });
});

const knownV2Types = (m: unknown) => {
  const t = (m as { type?: unknown }).type;
  return t === "agent" || t === "terminal";
};

describe("H §3 auth (properties)", () => {
  convertsLosslessly<v1.AuthMethod, v2.AuthMethod>({
    name: "AuthMethod v1 ⇄ v2",
    v1: { schema: "v1", def: "AuthMethod" },
    // Unknown v2 types have no v1 form (the list omits them: InitializeResponse properties).
    v2: {
      schema: "v2",
      def: "AuthMethod",
      arb: arb("v2", "AuthMethod").filter(knownV2Types) as fc.Arbitrary<v2.AuthMethod>,
    },
    toV2: authMethodToV2,
    toV1: authMethodToV1,
    interpreted: {
      v1: [["id"], ["name"]],
      v2: [["type"], ["methodId"], ["name"], ["env"], ["env", "*"], ["env", "*", "name"]],
    },
    levels: ["compact", "full"],
  });
});
