import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { capabilityTable } from "../../mappings/capabilities.js";
import {
  agentCapabilitiesToV1,
  agentFlagsFromV1,
  agentFlagsFromV2,
  clientCapabilitiesToV2,
  clientFlagsFromV1,
} from "../../src/convert/capabilities.js";
import {
  answeredVersion,
  bridgeMarkerOf,
  clientFacingVersion,
  initializeRequestToV1,
  initializeRequestToV2,
  initializeResponseToV1,
  initializeResponseToV2,
  retryVersionFrom,
  type BridgeMarker,
  type InitializeRequestToV1Context,
} from "../../src/convert/initialize.js";
import type { ConvertOptions } from "../../src/convert/stash.js";
import { noSessionSurface, notInitialized } from "../../src/base/errors.js";
import { defaultOptions } from "../support/conv.js";
import { arb } from "../support/arbitrary.js";
import { convertsLosslessly, numRuns, options } from "../support/properties.js";
import { expectValid, schemaOf } from "../support/schema.js";
import { value } from "../support/conv.js";

const off: ConvertOptions = options("off");

type Json = Record<string, unknown>;

/** A: v1 client params → v2 agent, schema-checked. */
function reqToV2(p: unknown, opts = defaultOptions, ctx = {}): Json {
  const out = value(initializeRequestToV2(p as v1.InitializeRequest, opts, ctx));
  expectValid("v2", "InitializeRequest", out);
  return out;
}

/** B: v2 client params → v1 agent, schema-checked. */
function reqToV1(p: unknown, opts = defaultOptions, ctx: InitializeRequestToV1Context = {}): Json {
  const out = value(initializeRequestToV1(p as v2.InitializeRequest, opts, ctx));
  expectValid("v1", "InitializeRequest", out);
  return out;
}

/** A: v2 agent result → v1 client, schema-checked. */
function resToV1(r: unknown, opts = defaultOptions, ctx = {}): Json {
  const out = value(initializeResponseToV1(r as v2.InitializeResponse, opts, ctx));
  expectValid("v1", "InitializeResponse", out);
  return out;
}

/** B: v1 agent result → v2 client, schema-checked. */
function resToV2(r: unknown, opts = defaultOptions, ctx = {}): Json {
  const out = value(initializeResponseToV2(r as v1.InitializeResponse, opts, ctx));
  expectValid("v2", "InitializeResponse", out);
  return out;
}

const stash = (from: 1 | 2, rest: Json) => ({ "acp-bridge": { v: 1, from, hadMeta: false, ...rest } });
const syntheticInfo = { name: "unknown", version: "unknown", _meta: stash(1, { synthetic: ["info"] }) };

describe("H §1.3 client-facing version", () => {
  it("speaks v1 to a client requesting 1, leniently", () => {
    expect(value(clientFacingVersion({ protocolVersion: 1 }))).toEqual({ version: 1, lenient: true });
  });

  it("speaks v2 to a client requesting 2, strictly", () => {
    expect(value(clientFacingVersion({ protocolVersion: 2 }))).toEqual({ version: 2, lenient: false });
  });

  it("speaks v2 to a client requesting a newer version, leniently", () => {
    expect(value(clientFacingVersion({ protocolVersion: 7 }))).toEqual({ version: 2, lenient: true });
    expect(value(clientFacingVersion({ protocolVersion: 65535 }))).toMatchObject({ version: 2 });
  });

  it("answers a client requesting 0 with -32022 listing the supported versions", () => {
    const r = clientFacingVersion({ protocolVersion: 0 });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe(-32022);
      expect(r.error.data).toMatchObject({ requested: 0, supported: [1, 2] });
      expectValid("v2", "UnsupportedProtocolVersionErrorData", r.error.data);
    }
  });

  it.each([[-1], [1.5], ["2"], [65536], [null], [undefined]])(
    "rejects protocolVersion %j with -32602 and the SDK's message",
    (pv) => {
      const r = clientFacingVersion(pv === undefined ? {} : { protocolVersion: pv });
      expect(r).toEqual({
        ok: false,
        error: {
          code: -32602,
          message: "initialize.protocolVersion must be a valid ACP protocol version",
          data: { field: "protocolVersion", reason: "invalid_protocol_version" },
        },
      });
    },
  );

  it("rejects params that are not an object with -32602", () => {
    const r = clientFacingVersion([1]);
    expect(r.ok || r.error.code).toBe(-32602);
  });

  it("names the method in the pre-initialize -32600", () => {
    expect(notInitialized("session/new")).toEqual({
      code: -32600,
      message: "ACP connection must be initialized before 'session/new'",
      data: { reason: "not_initialized", method: "session/new" },
    });
  });
});

describe("H §1.4 agent-side probe helpers", () => {
  it("retries with the highest version of the agent's -32022 supported list the bridge speaks", () => {
    expect(retryVersionFrom({ requested: 1, supported: [2] })).toBe(2);
    expect(retryVersionFrom({ requested: 2, supported: [1] })).toBe(1);
    expect(retryVersionFrom({ requested: 2, supported: [1, 2, 3] })).toBe(2);
    expect(retryVersionFrom({ requested: 2, supported: [3] })).toBeUndefined();
    expect(retryVersionFrom(null)).toBeUndefined();
  });

  it("accepts only answered versions 1 and 2", () => {
    expect(answeredVersion({ protocolVersion: 1 })).toBe(1);
    expect(answeredVersion({ protocolVersion: 2 })).toBe(2);
    expect(answeredVersion({ protocolVersion: 3 })).toBeUndefined();
  });
});

describe("H §1.5, §2.1 initialize request, A (v1 client → v2 agent)", () => {
  const exampleA = {
    protocolVersion: 1,
    clientCapabilities: {
      fs: { readTextFile: true, writeTextFile: true },
      terminal: true,
      auth: { terminal: true },
      session: { configOptions: { boolean: {} } },
    },
  };

  it("gives the v2 agent exactly the spec's example A", () => {
    expect(reqToV2(exampleA)).toEqual({
      protocolVersion: 2,
      info: syntheticInfo,
      capabilities: {
        auth: { terminal: {} },
        _meta: stash(1, {
          residual: {
            v1ClientCaps: {
              fs: { readTextFile: true, writeTextFile: true },
              terminal: true,
              session: { configOptions: { boolean: {} } },
            },
          },
        }),
      },
    });
  });

  it("reports fs, terminal and the missing session markers as lost, and writes nothing with the stash off", () => {
    const r = initializeRequestToV2(exampleA, off);
    expect(r.ok && JSON.stringify(r.value)).not.toContain("acp-bridge");
    expect(r.ok && r.lost.map((l) => l.path.join("."))).toEqual(
      expect.arrayContaining([
        "clientInfo",
        "clientCapabilities.fs",
        "clientCapabilities.terminal",
        "clientCapabilities.session",
      ]),
    );
  });

  it("copies clientInfo, elicitation and every _meta verbatim (H §7.5)", () => {
    const p = {
      protocolVersion: 1,
      clientInfo: { name: "zed", title: "Zed", version: "0.200.0", _meta: { a: 1 } },
      clientCapabilities: { elicitation: { form: {}, url: null }, auth: { _meta: { b: 2 } }, _meta: { c: 3 } },
      _meta: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" },
    };
    const out = reqToV2(p);
    expect(out.info).toEqual(p.clientInfo);
    expect(out._meta).toEqual(p._meta);
    expect(out.capabilities).toMatchObject({
      elicitation: p.clientCapabilities.elicitation,
      auth: { _meta: { b: 2 } },
    });
    expect((out.capabilities as Json)._meta).toMatchObject({ c: 3 });
  });

  it("synthesizes info for a null or malformed clientInfo and restores the original", () => {
    for (const clientInfo of [null, { name: "x" }]) {
      const p = { protocolVersion: 1, clientInfo, clientCapabilities: {} };
      const v2p = reqToV2(p);
      expect(v2p.info).toMatchObject({ name: "unknown", version: "unknown" });
      // restored exactly, malformed as it came
      expect(value(initializeRequestToV1(v2p as v2.InitializeRequest, defaultOptions))).toEqual(p);
    }
  });

  it("sends no capabilities for absent clientCapabilities and restores their absence", () => {
    const p = { protocolVersion: 1, clientInfo: { name: "c", version: "1" } };
    const v2p = reqToV2(p);
    expect(v2p).not.toHaveProperty("capabilities");
    expect(v2p._meta).toEqual(stash(1, { residual: { absent: ["clientCapabilities"] } }));
    expect(reqToV1(v2p)).toEqual(p);
  });

  it("omits auth.terminal when the bridge cannot relaunch the agent (H §3.4)", () => {
    const out = reqToV2({ protocolVersion: 1, clientCapabilities: { auth: { terminal: true } } }, off, {
      terminalAuth: false,
    });
    expect(out.capabilities).toEqual({ auth: {} });
  });

  it("stashes unstable plan and subagents, restores them, and offers plan to no v1 agent on its own", () => {
    const p = { protocolVersion: 1, clientCapabilities: { plan: {}, subagents: { _meta: { s: 1 } }, zzvendor: true } };
    const v2p = value(initializeRequestToV2(p as v1.InitializeRequest, defaultOptions));
    expectValid("v2u", "InitializeRequest", v2p);
    expect(v2p.capabilities?._meta).toEqual(
      stash(1, {
        residual: {
          v1ClientCaps: {
            plan: {},
            subagents: { _meta: { s: 1 } },
            unknown: { zzvendor: true },
          },
        },
      }),
    );
    expect(value(initializeRequestToV1(v2p, defaultOptions))).toEqual(p);
    const plain = value(
      initializeRequestToV1({ protocolVersion: 2, info: { name: "c", version: "1" } }, defaultOptions),
    );
    expect((plain.clientCapabilities as Json).plan).toBeUndefined();
  });
});

describe("H §1.5, §2.1 initialize request, B (v2 client → v1 agent)", () => {
  const zed = { name: "zed", version: "0.200.0" };

  it("renders a v2 client's initialize for a v1 agent as the H §1.4 example shows", () => {
    expect(reqToV1({ protocolVersion: 2, info: zed, capabilities: { auth: { terminal: {} } } })).toEqual({
      protocolVersion: 1,
      clientInfo: zed,
      clientCapabilities: {
        fs: { readTextFile: false, writeTextFile: false },
        terminal: false,
        auth: { terminal: true },
        session: { configOptions: { boolean: {} }, notices: {}, compaction: {} },
        // Issue 7: the bridge turns the `_meta` terminal convention into v2 terminals (T §2.5).
        _meta: { terminal_output: true },
      },
    });
  });

  it("never offers a v1 agent a stashed fs/terminal offer: nobody answers those calls (H §6)", () => {
    const v2p = reqToV2({
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true, _meta: { m: 1 } }, terminal: true },
    });
    expect(reqToV1(v2p, defaultOptions).clientCapabilities).toEqual({
      fs: { readTextFile: false, writeTextFile: false, _meta: { m: 1 } },
      terminal: false,
    });
  });

  it("sends auth.terminal false when the bridge cannot relaunch the agent (H §3.4)", () => {
    const out = reqToV1({ protocolVersion: 2, info: zed, capabilities: { auth: { terminal: {} } } }, off, {
      terminalAuth: false,
    });
    expect(out.clientCapabilities).toMatchObject({ auth: { terminal: false } });
  });

  it("stashes the marker content of auth.terminal and v2-only keys, and restores them", () => {
    const p = {
      protocolVersion: 2,
      info: zed,
      capabilities: { auth: { terminal: { _meta: { t: 1 } } }, zzfuture: { x: 1 } },
    };
    const v1p = reqToV1(p);
    // The bridge's own `terminal_output` offer shares `_meta` with the stash (T §2.5).
    expect((v1p.clientCapabilities as Json)._meta).toEqual({
      terminal_output: true,
      "acp-bridge": {
        ...stash(2, {
          residual: {
            v2ClientCaps: { unknown: { zzfuture: { x: 1 } }, markers: { "auth.terminal": { _meta: { t: 1 } } } },
          },
        })["acp-bridge"],
        hadMeta: true,
      },
    });
    expect(reqToV2(v1p)).toEqual(p);
  });

  it("rejects a missing or malformed info with -32602 when the client asked for exactly 2", () => {
    const cases: [unknown, string, string][] = [
      [undefined, "info", "missing"],
      [5, "info", "not_object"],
      [{ name: 1, version: "1" }, "info.name", "not_string"],
      [{ name: "n" }, "info.version", "not_string"],
    ];
    for (const [info, field, reason] of cases) {
      const r = initializeRequestToV1({ protocolVersion: 2, info }, defaultOptions);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toMatchObject({ code: -32602, data: { field, reason } });
    }
  });

  it("rejects an info whose title is not a string, which v1 copies as it is (issue 19)", () => {
    const r = initializeRequestToV1(
      { protocolVersion: 2, info: { name: "n", version: "1", title: [] } },
      defaultOptions,
    );
    expect(r.ok ? r.value : r.error).toMatchObject({
      code: -32602,
      data: { field: "info.title", reason: "not_string" },
    });
  });

  it("omits clientInfo for a missing info when lenient (R ≥ 3), like the SDK router", () => {
    const out = reqToV1({ protocolVersion: 7 }, defaultOptions, { lenient: true });
    expect(out).not.toHaveProperty("clientInfo");
    // a chained A restores the request as it came, without info
    expect(value(initializeRequestToV2(out as v1.InitializeRequest, defaultOptions))).toEqual({ protocolVersion: 2 });
  });

  it("drops the synthesized info of a chained A instead of sending unknown/unknown", () => {
    expect(reqToV1({ protocolVersion: 2, info: syntheticInfo })).not.toHaveProperty("clientInfo");
  });

  it("identifies the bridge to the v1 agent, and a chained A reads and consumes the marker (T §5.5)", () => {
    const marker: BridgeMarker = {
      bridge: { name: "acp-bridge", version: "0.1.0" },
      clientProtocol: 2,
      agentProtocol: 1,
    };
    const out = reqToV1({ protocolVersion: 2, info: zed, _meta: { traceparent: "t" } }, defaultOptions, {
      bridgeMarker: marker,
    });
    expect(bridgeMarkerOf(out._meta)).toEqual(marker);
    expect(bridgeMarkerOf({ "acp-bridge": { bridge: { name: 1 } } })).toBeUndefined();
    const again = reqToV2(out);
    expect(again._meta).toEqual({ traceparent: "t" });
    expect(JSON.stringify(reqToV1({ protocolVersion: 2, info: zed }, off, { bridgeMarker: marker }))).toContain(
      '"bridge"',
    );
  });
});

describe("H §2.2, §3.3 initialize result, B (v1 agent → v2 client)", () => {
  const exampleB = {
    protocolVersion: 1,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: true, embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
      sessionCapabilities: { list: {}, delete: {}, additionalDirectories: {} },
      auth: { logout: {} },
    },
    authMethods: [{ id: "agent-login", name: "Agent login" }],
  };

  it("gives the v2 client exactly the spec's example B", () => {
    expect(resToV2(exampleB)).toEqual({
      protocolVersion: 2,
      info: syntheticInfo,
      capabilities: {
        session: {
          prompt: { image: {}, embeddedContext: {} },
          mcp: { stdio: {}, http: {} },
          delete: {},
          additionalDirectories: {},
          _meta: stash(1, {
            residual: {
              v1AgentCaps: { loadSession: true, sessionCapabilities: { list: {} }, mcpSse: true, authLogout: {} },
            },
          }),
        },
      },
      authMethods: [{ methodId: "agent-login", type: "agent", name: "Agent login" }],
    });
  });

  it("conformance 2: synthesized info, stdio always, SSE dropped and stashed, methodId, type agent, env list", () => {
    const v1r = {
      protocolVersion: 1,
      agentCapabilities: { mcpCapabilities: { sse: true } },
      authMethods: [{ type: "terminal", id: "tty", name: "Login", args: ["--login"], env: { ACP_LOGIN: "1" } }],
    };
    const r = initializeResponseToV2(v1r, defaultOptions);
    const out = value(r);
    expect(out.info).toEqual(syntheticInfo);
    expect(out.capabilities?.session?.mcp).toEqual({ stdio: {} });
    expect(out.capabilities?.session?._meta).toMatchObject({
      "acp-bridge": { residual: { v1AgentCaps: { mcpSse: true } } },
    });
    expect(out.authMethods).toEqual([
      { type: "terminal", methodId: "tty", name: "Login", args: ["--login"], env: [{ name: "ACP_LOGIN", value: "1" }] },
    ]);
    expect(r.ok && r.lost.map((l) => l.path.join("."))).toContain("agentCapabilities.mcpCapabilities.sse");
    expect(agentFlagsFromV1(v1r.agentCapabilities)).toMatchObject({
      mcpSse: true,
      mcpStdio: true,
      load: false,
      logout: false,
    });
  });

  it("always advertises session, even for an agent without agentCapabilities", () => {
    const out = resToV2({ protocolVersion: 1 });
    expect(out.capabilities).toEqual({ session: { mcp: { stdio: {} } } });
    expect(resToV1(out)).toEqual({ protocolVersion: 1 });
  });

  it("keeps auth.logout absent for an agent whose only method is of a v1-only type (visible through the stash)", () => {
    const v1r = {
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: true,
        sessionCapabilities: { list: {}, resume: {}, close: {} },
        mcpCapabilities: { sse: false },
      },
      authMethods: [{ type: "_vendor", id: "v", name: "V" }],
    };
    const v2r = resToV2(v1r);
    // the plain reverse is exact; only the stash makes the entry visible, so the group is written anyway
    expect((v2r.capabilities as Json).session).toMatchObject({
      _meta: stash(1, { residual: { v1AgentCaps: { loadSession: true } } }),
    });
    expect(value(initializeResponseToV1(v2r as v2.InitializeResponse, defaultOptions))).toEqual(v1r);
  });

  it("records explicit false booleans so the reverse restores them", () => {
    const v1r = {
      protocolVersion: 1,
      agentInfo: { name: "a", version: "1" },
      agentCapabilities: {
        loadSession: false,
        promptCapabilities: { image: false, audio: false, embeddedContext: false },
        mcpCapabilities: { http: false, sse: false },
        sessionCapabilities: {},
        auth: {},
      },
      authMethods: [],
    };
    const v2r = resToV2(v1r);
    expect(v2r.capabilities).toMatchObject({ session: { prompt: {}, mcp: { stdio: {} } }, auth: {} });
    expect(resToV1(v2r)).toEqual(v1r);
  });
});

describe("H §2.2, §3.3 initialize result, A (v2 agent → v1 client)", () => {
  const agent = {
    protocolVersion: 2,
    info: { name: "agent", version: "2.0.0" },
    capabilities: {
      session: {
        prompt: { image: {}, audio: {} },
        mcp: { stdio: {}, http: {} },
        delete: {},
        additionalDirectories: {},
      },
    },
    authMethods: [{ type: "agent", methodId: "login", name: "Log in" }],
  };

  it("conformance 1: loadSession, list/resume/close, booleans, sse false, auth.logout, ids without type agent", () => {
    expect(resToV1(agent)).toEqual({
      protocolVersion: 1,
      agentInfo: agent.info,
      agentCapabilities: {
        loadSession: true,
        sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {}, additionalDirectories: {} },
        promptCapabilities: { image: true, audio: true },
        mcpCapabilities: { http: true, sse: false },
        auth: { logout: {} },
      },
      authMethods: [{ id: "login", name: "Log in" }],
    });
  });

  it("offers auth.logout only when the v1-visible authMethods are non-empty (H §3.3)", () => {
    const sso = { ...agent, authMethods: [{ type: "_sso", methodId: "s", name: "SSO" }] };
    const out = resToV1(sso);
    expect(out.authMethods).toEqual([]);
    expect(out.agentCapabilities).not.toHaveProperty("auth");
    const none = resToV1({ ...agent, authMethods: undefined });
    expect(none.authMethods).toEqual([]);
    expect(none.agentCapabilities).not.toHaveProperty("auth");
  });

  it("completes initialize with every flag false for an agent without session, and stashes the absence", () => {
    const out = resToV1({ protocolVersion: 2, info: agent.info, capabilities: {} });
    expect(out.agentCapabilities).toEqual({
      loadSession: false,
      mcpCapabilities: { sse: false },
      _meta: stash(2, { residual: { v2AgentCaps: { absent: ["session"] } } }),
    });
    expect(agentFlagsFromV2({})).toMatchObject({
      hasSession: false,
      load: false,
      list: false,
      resume: false,
      close: false,
    });
    expect(resToV2(out)).toEqual({ protocolVersion: 2, info: agent.info, capabilities: {} });
  });

  it("names the method when refusing session/* to an agent without session", () => {
    expect(noSessionSurface("session/new")).toEqual({
      code: -32601,
      message: "Method not found",
      data: { method: "session/new", reason: "agent advertises no session surface" },
    });
  });

  it("stashes a missing session.mcp.stdio (v1 cannot say no) and the engine flag reads false (H §4.2)", () => {
    const caps = { session: { mcp: { http: {} } } };
    const out = resToV1({ protocolVersion: 2, info: agent.info, capabilities: caps, authMethods: [] });
    expect(out.agentCapabilities).toMatchObject({
      _meta: stash(2, { residual: { v2AgentCaps: { absent: ["session.mcp.stdio"] } } }),
    });
    expect(agentFlagsFromV2(caps)).toMatchObject({ hasSession: true, mcpStdio: false, mcpHttp: true });
  });

  it("stashes marker content and null markers at markers.<v2 path> and restores them", () => {
    const caps = { session: { prompt: { image: { _meta: { q: 1 } }, audio: null }, mcp: { stdio: {} } } };
    const v2r = { protocolVersion: 2, info: agent.info, capabilities: caps, authMethods: [] };
    const out = resToV1(v2r);
    expect(out.agentCapabilities).toMatchObject({
      promptCapabilities: { image: true, audio: false },
      _meta: stash(2, {
        residual: {
          v2AgentCaps: { markers: { "session.prompt.image": { _meta: { q: 1 } }, "session.prompt.audio": null } },
        },
      }),
    });
    expect(resToV2(out)).toEqual(v2r);
  });

  it("keeps _meta of restructured objects at their mapped place (H §7.5 rule 3)", () => {
    const caps = {
      session: { _meta: { s: 1 }, prompt: { _meta: { p: 1 } }, mcp: { _meta: { m: 1 }, stdio: {} } },
      auth: { _meta: { a: 1 } },
      _meta: { c: 1 },
    };
    const out = resToV1({ protocolVersion: 2, info: agent.info, capabilities: caps, authMethods: [], _meta: { r: 1 } });
    expect(out._meta).toEqual({ r: 1 });
    expect(out.agentCapabilities).toMatchObject({
      sessionCapabilities: { _meta: { s: 1 } },
      promptCapabilities: { _meta: { p: 1 } },
      mcpCapabilities: { _meta: { m: 1 } },
      auth: { _meta: { a: 1 } },
      _meta: { c: 1 },
    });
  });

  it("omits an _sso method from the v1 list and a chained bridge restores it (conformance 13)", () => {
    const v2r = {
      ...agent,
      authMethods: [
        { type: "_sso", methodId: "s", name: "SSO" },
        { type: "terminal", methodId: "t", name: "T", env: [{ name: "K", value: "v" }] },
      ],
    };
    const out = resToV1(v2r);
    expect(out.authMethods).toEqual([{ type: "terminal", id: "t", name: "T", env: { K: "v" } }]);
    expect(out._meta).toEqual(stash(2, { residual: { authMethods: [{ index: 0, entry: v2r.authMethods[0] }] } }));
    expect(resToV2(out)).toEqual(v2r);
  });

  it("puts the bridge marker in the v1 result for a chained B (T §5.5)", () => {
    const marker: BridgeMarker = {
      bridge: { name: "acp-bridge", version: "0.1.0" },
      clientProtocol: 1,
      agentProtocol: 2,
    };
    const out = resToV1(agent, defaultOptions, { bridgeMarker: marker });
    expect(bridgeMarkerOf(out._meta)).toEqual(marker);
    expect(resToV2(out)).toEqual(agent);
  });
});

describe("H §9 conformance 4: chained bridges are transparent", () => {
  const client = {
    protocolVersion: 1,
    clientInfo: { name: "editor", version: "1" },
    clientCapabilities: {
      fs: { readTextFile: true, writeTextFile: false },
      terminal: true,
      auth: { terminal: true },
      session: { configOptions: { boolean: {} } },
      _meta: { x: 1 },
    },
  };
  const agentResult = {
    protocolVersion: 1,
    agentCapabilities: {
      loadSession: false,
      sessionCapabilities: { resume: {} },
      mcpCapabilities: { http: true, sse: true },
    },
    authMethods: [{ type: "terminal", id: "tty", name: "Login", env: { A: "1", B: "2" } }],
  };

  it("v1 client → A → B → v1 agent: no fs/terminal offer reaches the far agent, everything else is restored", () => {
    const atAgent = reqToV1(reqToV2(client), defaultOptions);
    expect(JSON.stringify(atAgent)).not.toContain("acp-bridge");
    expect(atAgent).toEqual({
      ...client,
      clientCapabilities: {
        ...client.clientCapabilities,
        fs: { readTextFile: false, writeTextFile: false },
        terminal: false,
      },
    });
  });

  it("v1 agent → B → A → v1 client: the client sees the agent's result", () => {
    expect(resToV1(resToV2(agentResult))).toEqual(agentResult);
  });

  it("v2 client → B → A → v2 agent and back: both ends see the original messages", () => {
    const v2client = {
      protocolVersion: 2,
      info: { name: "zed", version: "1" },
      capabilities: { auth: { terminal: {} } },
    };
    expect(reqToV2(reqToV1(v2client))).toEqual(v2client);
    const v2agent = {
      protocolVersion: 2,
      info: { name: "a", version: "1" },
      capabilities: { session: { mcp: { http: {} } } },
      authMethods: [{ type: "_sso", methodId: "s", name: "S" }],
    };
    expect(resToV2(resToV1(v2agent))).toEqual(v2agent);
  });
});

describe("T §2.5 the `_meta` terminal convention in initialize", () => {
  const info = { name: "c", version: "1" };

  it("B offers `_meta.terminal_output: true` to the v1 agent, unless told not to", () => {
    const out = reqToV1({ protocolVersion: 2, info, capabilities: {} });
    expect((out.clientCapabilities as Json)._meta).toEqual({ terminal_output: true });
    const plain = reqToV1({ protocolVersion: 2, info, capabilities: {} }, defaultOptions, { terminalOutput: false });
    expect((plain.clientCapabilities as Json)._meta).toBeUndefined();
    // The client's own `_meta` keys ride along.
    const own = reqToV1({ protocolVersion: 2, info, capabilities: { _meta: { x: 1 } } }, defaultOptions, {
      terminalOutput: true,
    });
    expect((own.clientCapabilities as Json)._meta).toEqual({ x: 1, terminal_output: true });
  });

  it("the offer is the bridge's: nothing of the v2 client is lost, and v2 never sees it back", () => {
    const src = { protocolVersion: 2, info, capabilities: { auth: { terminal: {} } } };
    const r = initializeRequestToV1(src, defaultOptions, { terminalOutput: true });
    expect(r.ok && r.lost).toEqual([]);
    const back = reqToV2(value(r), options("off"));
    expect((back.capabilities as Json)._meta).toBeUndefined();
  });

  it("A keeps a v1 client's opt-in out of the v2 agent's capabilities, restorably (chains)", () => {
    const src = { protocolVersion: 1, clientInfo: info, clientCapabilities: { _meta: { terminal_output: true } } };
    const v2p = reqToV2(src);
    expect(JSON.stringify(v2p)).not.toContain('"terminal_output":true,');
    expect(reqToV1(v2p, defaultOptions, { terminalOutput: true })).toEqual(src);
    // A v1 client without it: a chained B does not offer it to the v1 agent either.
    const none = { protocolVersion: 1, clientInfo: info, clientCapabilities: { fs: { readTextFile: true } } };
    const back = reqToV1(reqToV2(none), defaultOptions, { terminalOutput: true });
    expect((back.clientCapabilities as Json)._meta).toBeUndefined();
  });
});

describe("H §2.4 engine flags", () => {
  it("reads v1 client flags, malformed values as unsupported", () => {
    expect(
      clientFlagsFromV1({
        fs: { readTextFile: true, writeTextFile: "yes" },
        terminal: true,
        session: { configOptions: { boolean: {} }, notices: null },
        auth: { terminal: true },
        elicitation: { form: {} },
        _meta: { terminal_output: true },
      }),
    ).toEqual({
      terminalOutput: true,
      booleanOptions: true,
      notices: false,
      compaction: false,
      plan: false,
      fsRead: true,
      fsWrite: false,
      terminals: true,
    });
    expect(clientFlagsFromV1(undefined)).toMatchObject({ terminalOutput: false, booleanOptions: false, plan: false });
    expect(clientFlagsFromV1({ _meta: { terminal_output: "yes" } }).terminalOutput).toBe(false);
  });

  it("reads v1 agent flags", () => {
    expect(
      agentFlagsFromV1({
        loadSession: true,
        sessionCapabilities: { list: {}, close: {}, delete: {}, additionalDirectories: {} },
        mcpCapabilities: { http: true },
        promptCapabilities: { image: true },
        auth: { logout: {} },
      }),
    ).toEqual({
      hasSession: true,
      load: true,
      list: true,
      resume: false,
      close: true,
      addDirs: true,
      logout: true,
      mcpStdio: true,
      mcpHttp: true,
      mcpSse: false,
      mcpAcp: false,
    });
  });

  it("reads v2 agent flags: list, resume and close come with session; logout with authMethods", () => {
    expect(
      agentFlagsFromV2({ session: { mcp: { stdio: {} }, delete: {} } }, [{ type: "agent", methodId: "a", name: "A" }]),
    ).toEqual({
      hasSession: true,
      load: true,
      list: true,
      resume: true,
      close: true,
      addDirs: false,
      logout: true,
      mcpStdio: true,
      mcpHttp: false,
      mcpSse: false,
      mcpAcp: false,
    });
    expect(agentFlagsFromV2({}, [])).toMatchObject({ hasSession: false, load: false, close: false, logout: false });
  });

  describe("each flag is read from its row of mappings/capabilities.ts", () => {
    /** `{a: {b: value}}` for the path `a.b` (and the row's `at` below it). */
    const nested = (path: string, value: unknown): Record<string, unknown> =>
      path.split(".").reduceRight<Record<string, unknown>>((inner, k) => ({ [k]: inner }), value as never);
    const reads = (caps: "client" | "agent") =>
      capabilityTable.filter((r) => r.caps === caps).flatMap((r) => r.flags.map((f) => ({ row: r, f, name: f.flag })));
    const readers = {
      client: { 1: clientFlagsFromV1, 2: undefined },
      agent: { 1: agentFlagsFromV1, 2: agentFlagsFromV2 },
    } as const;

    it.each(["client", "agent"] as const)("the %s flags are exactly the flags its rows name", (caps) => {
      const names = reads(caps).map((r) => r.name);
      expect(new Set(names).size).toBe(names.length);
      expect(Object.keys(readers[caps][1]({})).sort()).toEqual([...names].sort());
      const v2 = readers[caps][2];
      if (v2) expect(Object.keys(v2({})).sort()).toEqual([...names].sort());
    });

    it.each(["client", "agent"] as const)("a v1 %s sets a flag at its row's v1 path, and only that flag", (caps) => {
      const none = readers[caps][1]({});
      for (const { row, f, name } of reads(caps)) {
        if (f.v1 === undefined) {
          expect(none[name as never], name).toBe(true);
          continue;
        }
        expect(none[name as never], name).toBe(false);
        const path = [row.v1, f.at].filter((p) => p !== undefined && p !== null).join(".");
        const set = readers[caps][1](nested(path, f.v1 === "true" ? true : {}));
        const on = Object.entries(set).filter(([k, v]) => v !== none[k as never]);
        expect(on, name).toEqual([[name, true]]);
        // The other form of yes reads as no (a marker where a boolean belongs, `true` for a marker).
        expect(readers[caps][1](nested(path, f.v1 === "true" ? {} : true))[name as never], name).toBe(false);
      }
    });

    it("a v2 agent sets a flag with a marker at its row's v2 path, or as the row synthesizes it toward v1", () => {
      const none = agentFlagsFromV2({});
      const full = agentFlagsFromV2({ session: {} }, [{ type: "agent", methodId: "a", name: "A" }]);
      for (const { row, name } of reads("agent")) {
        const flag = name as keyof typeof none;
        if (row.v2 === null) {
          const expected = { hasSession: true, emptyIfSession: true, emptyIfAuthMethods: true, false: false };
          expect(full[flag], name).toBe(expected[row.synthV1 as keyof typeof expected]);
          expect(none[flag], name).toBe(false);
          continue;
        }
        expect(none[flag], name).toBe(false);
        expect(agentFlagsFromV2(nested(row.v2, {}))[flag], name).toBe(true);
        expect(agentFlagsFromV2(nested(row.v2, true))[flag], name).toBe(false);
      }
    });
  });
});

describe("H §2.1-2.2 capability table (mappings/capabilities.ts)", () => {
  /** Whether `path` names a property of `def` (following $ref, allOf and anyOf). */
  function hasPath(version: "v1u" | "v2u", def: string, path: readonly string[]): boolean {
    const defs = schemaOf(version).$defs;
    const props = (node: Record<string, unknown> | undefined): Record<string, Record<string, unknown>>[] => {
      if (!node) return [];
      const out: Record<string, Record<string, unknown>>[] = [];
      if (typeof node.$ref === "string") out.push(...props(defs[node.$ref.replace("#/$defs/", "")]));
      for (const k of ["allOf", "anyOf"] as const) {
        const list = node[k];
        if (Array.isArray(list)) for (const n of list as Record<string, unknown>[]) out.push(...props(n));
      }
      if (node.properties) out.push(node.properties as Record<string, Record<string, unknown>>);
      return out;
    };
    let nodes: Record<string, unknown>[] = [defs[def]!];
    for (const key of path) {
      nodes = nodes.flatMap((n) =>
        props(n)
          .map((p) => p[key])
          .filter((x): x is Record<string, unknown> => x !== undefined),
      );
      if (nodes.length === 0) return false;
    }
    return true;
  }

  it("names only paths that exist in the pinned schemas", () => {
    for (const row of capabilityTable) {
      const [d1, d2] =
        row.caps === "client"
          ? ["ClientCapabilities", "ClientCapabilities"]
          : ["AgentCapabilities", "AgentCapabilities"];
      // A key inside `_meta` is a convention no schema names (`_meta.terminal_output`, T §2.5): `_meta` must exist.
      const inSchema = (p: string) => {
        const keys = p.split(".");
        const meta = keys.indexOf("_meta");
        return meta >= 0 ? keys.slice(0, meta + 1) : keys;
      };
      if (row.v1 !== null && row.v1 !== "*") expect(hasPath("v1u", d1, inSchema(row.v1)), `v1 ${row.v1}`).toBe(true);
      if (row.v2 !== null && row.v2 !== "*") expect(hasPath("v2u", d2, inSchema(row.v2)), `v2 ${row.v2}`).toBe(true);
    }
  });

  it("has a row for every property of the v1 and v2 capability objects", () => {
    const covered = (version: 1 | 2, caps: "client" | "agent") =>
      new Set(capabilityTable.filter((r) => r.caps === caps).map((r) => (version === 1 ? r.v1 : r.v2)?.split(".")[0]));
    for (const [version, schema, caps, def] of [
      [1, "v1u", "client", "ClientCapabilities"],
      [2, "v2u", "client", "ClientCapabilities"],
      [1, "v1u", "agent", "AgentCapabilities"],
      [2, "v2u", "agent", "AgentCapabilities"],
    ] as const) {
      const keys = Object.keys((schemaOf(schema).$defs[def] as { properties: object }).properties);
      for (const k of keys) expect(covered(version, caps).has(k), `${schema} ${def}.${k}`).toBe(true);
    }
  });
});

describe("H §2 capability objects on their own", () => {
  it("rejects a capability object that is not an object", () => {
    expect(clientCapabilitiesToV2(5, defaultOptions).ok).toBe(false);
    expect(agentCapabilitiesToV1(null, defaultOptions, { authMethodsNonEmpty: false }).ok).toBe(false);
  });

  it("never throws on arbitrary JSON capability values", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (x) => {
        clientCapabilitiesToV2(x, defaultOptions);
        agentCapabilitiesToV1(x, defaultOptions, { authMethodsNonEmpty: true });
      }),
      { numRuns: numRuns() },
    );
  });
});

const withVersion = (v: number) => (x: unknown) => ({ ...(x as object), protocolVersion: v });

/** A v1 client's fs/terminal offers set to false: what a v1 agent behind the bridge is offered. */
function withoutFsTerminalOffers(x: unknown): v1.InitializeRequest {
  const o = { ...(x as Json) };
  const caps = o.clientCapabilities;
  if (typeof caps === "object" && caps !== null && !Array.isArray(caps)) {
    const c: Json = { ...(caps as Json) };
    if (c.terminal === true) c.terminal = false;
    const fs = c.fs;
    if (typeof fs === "object" && fs !== null && !Array.isArray(fs)) {
      const f: Json = { ...(fs as Json) };
      if (f.readTextFile === true) f.readTextFile = false;
      if (f.writeTextFile === true) f.writeTextFile = false;
      c.fs = f;
    }
    o.clientCapabilities = c;
  }
  return o as v1.InitializeRequest;
}

describe("H §1.5, §2.1-2.2 initialize (properties)", () => {
  for (const [s1, s2] of [
    ["v1", "v2"],
    ["v1u", "v2u"],
  ] as const) {
    convertsLosslessly<v1.InitializeRequest, v2.InitializeRequest>({
      name: `InitializeRequest ${s1} ⇄ ${s2}`,
      // protocolVersion is negotiated by the engine, not carried: each side gets its own.
      // The bridge offers a v1 agent no fs/terminal (H §6): a client's own offers do not come back.
      v1: {
        schema: s1,
        def: "InitializeRequest",
        arb: arb(s1, "InitializeRequest").map(withVersion(1)).map(withoutFsTerminalOffers),
      },
      v2: {
        schema: s2,
        def: "InitializeRequest",
        arb: arb(s2, "InitializeRequest").map(withVersion(2)) as fc.Arbitrary<v2.InitializeRequest>,
      },
      toV2: (x, o) => initializeRequestToV2(x, o),
      toV1: (x, o) => initializeRequestToV1(x, o),
      interpreted: { v2: [["info"], ["info", "name"], ["info", "version"]] },
      levels: ["compact", "full"],
    });
    convertsLosslessly<v1.InitializeResponse, v2.InitializeResponse>({
      name: `InitializeResponse ${s1} ⇄ ${s2}`,
      v1: { schema: s1, def: "InitializeResponse", arb: arb(s1, "InitializeResponse").map(withVersion(1)) },
      v2: {
        schema: s2,
        def: "InitializeResponse",
        arb: arb(s2, "InitializeResponse").map(withVersion(2)) as fc.Arbitrary<v2.InitializeResponse>,
      },
      toV2: (x, o) => initializeResponseToV2(x, o),
      toV1: (x, o) => initializeResponseToV1(x, o),
      levels: ["compact", "full"],
    });
  }
});
