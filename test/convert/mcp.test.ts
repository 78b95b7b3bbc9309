import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  mcpServersToV1,
  mcpServersToV2,
  mcpServerToV1,
  mcpServerToV2,
  type McpSupport,
  type McpToV1Context,
  type McpToV2Context,
} from "../../src/convert/mcp.js";
import type { Conv } from "../../src/convert/result.js";
import type { ConvertOptions } from "../../src/convert/stash.js";
import { defaultOptions } from "../support/conv.js";
import { arb } from "../support/arbitrary.js";
import { convertsLosslessly } from "../support/properties.js";
import { expectValid, type SchemaVersion } from "../support/schema.js";

const both: McpSupport = { stdio: true, http: true };

function a(agentMcp: McpSupport = both, extra: Partial<McpToV2Context> = {}): McpToV2Context {
  return { ...defaultOptions, agentMcp, onUnsupported: "reject", ...extra };
}
function b(agentMcp: McpSupport = both, extra: Partial<ConvertOptions> = {}): McpToV1Context {
  return { ...defaultOptions, agentMcp, ...extra };
}

function valid<T>(r: Conv<T>, schema: SchemaVersion, def: string): T {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
  const items = Array.isArray(r.value) ? r.value : [r.value];
  for (const item of items) expectValid(schema, def, item);
  return r.value;
}

function failure(r: Conv<unknown>) {
  if (r.ok) throw new Error(`expected an error, got ${JSON.stringify(r.value)}`);
  expect(r.error.code).toBe(-32602);
  return r.error;
}

const stdio1 = { name: "fs", command: "/bin/mcp", args: ["--ro"], env: [{ name: "K", value: "v" }] };
const http1 = {
  type: "http" as const,
  name: "web",
  url: "https://mcp.example.com/x",
  headers: [{ name: "A", value: "b" }],
};
const sse1 = { type: "sse" as const, name: "legacy", url: "https://old.example.com/sse", headers: [] };

describe("H §4.2 MCP servers, A: v1 client → v2 agent (H §9 case 9)", () => {
  it("adds type stdio to a v1 stdio server and keeps args and env", () => {
    const r = mcpServersToV2([stdio1], a());
    if (!r.ok) throw new Error("expected ok");
    for (const s of r.value.servers) expectValid("v2", "McpServer", s);
    expect(r.value).toEqual({ servers: [{ type: "stdio", ...stdio1 }], dropped: [] });
    expect(r.lost).toEqual([]);
  });

  it("copies an http server unchanged", () => {
    const r = mcpServerToV2(http1, a());
    expect(valid(r, "v2", "McpServer")).toEqual(http1);
  });

  it("keeps empty args and env as they are", () => {
    const s = { ...stdio1, args: [], env: [] };
    expect(valid(mcpServerToV2(s, a()), "v2", "McpServer")).toEqual({ type: "stdio", ...s });
  });

  it("omits a null list (v1 SDKs read it as empty; v2's schema has no null for it), and says so", () => {
    const s = { ...stdio1, args: null, env: null };
    const r = mcpServerToV2(s, a());
    const rest = Object.fromEntries(Object.entries(s).filter(([k]) => k !== "args" && k !== "env"));
    expect(valid(r, "v2", "McpServer")).toEqual({ type: "stdio", ...rest });
    expect(r.ok && r.lost.map((l) => l.path)).toEqual([["args"], ["env"]]);
    expect(valid(mcpServerToV2({ ...http1, headers: null }, a()), "v2", "McpServer")).toEqual(
      Object.fromEntries(Object.entries(http1).filter(([k]) => k !== "headers")),
    );
  });

  it("rejects an HTTP server whose url is not a URI (v2's format) with -32602 naming the field", () => {
    const e = failure(mcpServersToV2([stdio1, { ...http1, url: "mcp.example.com x" }], a()));
    expect(e.data).toEqual({ field: "mcpServers[1].url", index: 1, reason: "not_a_uri" });
  });

  it("rejects an SSE server with -32602 naming the type, index and server", () => {
    const e = failure(mcpServersToV2([stdio1, sse1], a()));
    expect(e.data).toEqual({
      field: "mcpServers",
      type: "sse",
      index: 1,
      name: "legacy",
      reason: "transport not supported",
    });
    expect(e.message).toContain("sse");
  });

  it("drops an SSE server under --mcp-unsupported drop and reports its name", () => {
    const r = mcpServersToV2([sse1, stdio1], a(both, { onUnsupported: "drop" }));
    if (!r.ok) throw new Error("expected ok");
    for (const s of r.value.servers) expectValid("v2", "McpServer", s);
    expect(r.value.servers).toEqual([{ type: "stdio", ...stdio1 }]);
    expect(r.value.dropped).toEqual([{ index: 0, name: "legacy", type: "sse" }]);
    expect(r.lost.map((l) => l.path)).toEqual([[0]]);
  });

  it("rejects stdio servers by default when the agent lacks session.mcp.stdio, naming the server", () => {
    const e = failure(mcpServersToV2([http1, stdio1], a({ stdio: false, http: true })));
    expect(e.data).toEqual({
      field: "mcpServers",
      type: "stdio",
      index: 1,
      name: "fs",
      reason: "transport not supported",
    });
    expect(e.message).toContain('"fs"');
  });

  it("drops stdio servers when asked and lists their names (never their env)", () => {
    const r = mcpServersToV2([stdio1, http1], a({ stdio: false, http: true }, { onUnsupported: "drop" }));
    if (!r.ok) throw new Error("expected ok");
    expect(r.value.servers).toEqual([http1]);
    expect(r.value.dropped).toEqual([{ index: 0, name: "fs", type: "stdio" }]);
    expect(JSON.stringify(r.value.dropped)).not.toContain("K");
  });

  it("rejects an http server when the agent lacks session.mcp.http, even under drop", () => {
    const e = failure(mcpServersToV2([http1], a({ stdio: true, http: false }, { onUnsupported: "drop" })));
    expect(e.data).toMatchObject({ type: "http", index: 0, reason: "transport not supported" });
  });

  it("forwards duplicate names untouched (the agent decides)", () => {
    const r = mcpServersToV2([stdio1, stdio1], a());
    expect(r.ok && r.value.servers.length).toBe(2);
  });

  it("forwards an SSE server raw to an agent that takes SSE (a B bridge before an SSE agent)", () => {
    expect(valid(mcpServerToV2(sse1, a({ ...both, sse: true })), "v2", "McpServer")).toEqual(sse1);
  });

  it("forwards an unstable acp server when the agent has session.mcp.acp, and rejects it otherwise", () => {
    const acp = { type: "acp", name: "inproc", serverId: "srv-1" } as unknown as v1.McpServer;
    expect(valid(mcpServerToV2(acp, a({ ...both, acp: true })), "v2u", "McpServer")).toEqual(acp);
    expect(failure(mcpServerToV2(acp, a())).data).toMatchObject({ type: "acp", reason: "transport not supported" });
  });

  it("treats an unknown v1 type as a custom transport: forwarded only when advertised", () => {
    const custom = { type: "_vendor", name: "x", endpoint: "e" } as unknown as v1.McpServer;
    expect(failure(mcpServerToV2(custom, a(both, { onUnsupported: "drop" }))).data).toMatchObject({ type: "_vendor" });
    expect(valid(mcpServerToV2(custom, a({ ...both, custom: ["_vendor"] })), "v2", "McpServer")).toEqual(custom);
  });

  it("keeps an explicit v1 type stdio and stashes it, so a B bridge restores it", () => {
    const explicit = { type: "stdio", ...stdio1 } as unknown as v1.McpServer;
    const r = mcpServerToV2(explicit, a());
    const out = valid(r, "v2", "McpServer")!;
    expect(out._meta).toEqual({ "acp-bridge": { v: 1, from: 1, hadMeta: false, residual: { type: "stdio" } } });
    expect(valid(mcpServerToV1(out, b()), "v1", "McpServer")).toEqual(explicit);
  });

  it("rejects a list that is not an array, and malformed entries", () => {
    expect(failure(mcpServersToV2(null as never, a())).data).toEqual({
      field: "mcpServers",
      index: null,
      reason: "not_array",
    });
    expect(failure(mcpServersToV2([stdio1, 5] as never, a())).data).toEqual({
      field: "mcpServers",
      index: 1,
      reason: "not_object",
    });
    expect(failure(mcpServersToV2([{ ...stdio1, name: 3 }] as never, a())).data).toEqual({
      field: "mcpServers[0].name",
      index: 0,
      reason: "not_string",
    });
    expect(failure(mcpServersToV2([{ ...stdio1, type: 1 }] as never, a())).data).toMatchObject({
      field: "mcpServers[0].type",
    });
  });

  it("refuses a server without the field its transport is reached by (issue 19): stdio command, http and sse url, acp serverId", () => {
    const all = { ...both, sse: true, acp: true };
    const cases: [unknown, string, string][] = [
      [{ name: "fs", args: [], env: [] }, "command", "missing"],
      [{ type: "stdio", name: "fs", command: null, args: [], env: [] }, "command", "not_string"],
      [{ type: "http", name: "h", headers: [] }, "url", "missing"],
      [{ type: "sse", name: "s", headers: [] }, "url", "missing"],
      [{ type: "acp", name: "a" }, "serverId", "missing"],
    ];
    for (const [server, key, reason] of cases)
      expect(failure(mcpServersToV2([stdio1, server] as never, a(all))).data).toEqual({
        field: `mcpServers[1].${key}`,
        index: 1,
        reason,
      });
  });

  it("does not mutate its input", () => {
    const list = [structuredClone(stdio1), structuredClone(http1)];
    const before = JSON.stringify(list);
    mcpServersToV2(list, a());
    expect(JSON.stringify(list)).toBe(before);
  });
});

describe("H §4.2 MCP servers, B: v2 client → v1 agent (H §9 case 9)", () => {
  const stdio2 = { type: "stdio" as const, name: "fs", command: "/bin/mcp" };

  it("strips the stdio type and adds the args and env v1 requires, stashing what was omitted", () => {
    const r = mcpServerToV1(stdio2, b());
    expect(valid(r, "v1", "McpServer")).toEqual({
      name: "fs",
      command: "/bin/mcp",
      args: [],
      env: [],
      _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { omitted: ["args", "env"] } } },
    });
    expect(r.ok && r.lost.map((l) => l.path)).toEqual([["args"], ["env"]]);
  });

  it("adds the stash beside existing _meta keys", () => {
    const r = mcpServerToV1({ ...stdio2, args: ["-v"], env: [], _meta: { traceparent: "t" } }, b());
    expect(valid(r, "v1", "McpServer")).toEqual({
      name: "fs",
      command: "/bin/mcp",
      args: ["-v"],
      env: [],
      _meta: { traceparent: "t" },
    });
  });

  it("adds headers [] to an http server", () => {
    const r = mcpServerToV1({ type: "http", name: "web", url: "https://x.example" }, b());
    expect(valid(r, "v1", "McpServer")).toMatchObject({
      type: "http",
      name: "web",
      url: "https://x.example",
      headers: [],
    });
  });

  it("writes no stash with the stash off, but still reports the additions", () => {
    const r = mcpServerToV1(stdio2, b(both, { stash: "off" }));
    expect(valid(r, "v1", "McpServer")).toEqual({ name: "fs", command: "/bin/mcp", args: [], env: [] });
    expect(r.ok && r.lost.length).toBe(2);
  });

  it("rejects a custom transport with -32602 naming type and index", () => {
    const e = failure(mcpServersToV1([stdio2, { type: "_custom", name: "c" } as unknown as v2.McpServer], b()));
    expect(e.data).toEqual({
      field: "mcpServers",
      type: "_custom",
      index: 1,
      name: "c",
      reason: "transport not supported by v1 agent",
    });
  });

  it("rejects a future transport and SSE unless the v1 agent takes them", () => {
    const sse = { type: "sse", name: "s", url: "https://x.example" } as unknown as v2.McpServer;
    expect(failure(mcpServerToV1(sse, b())).data).toMatchObject({
      type: "sse",
      reason: "transport not supported by v1 agent",
    });
    expect(valid(mcpServerToV1(sse, b({ ...both, sse: true })), "v1", "McpServer")).toMatchObject({
      type: "sse",
      headers: [],
    });
  });

  it("rejects http when the v1 agent lacks mcpCapabilities.http", () => {
    expect(
      failure(mcpServerToV1({ type: "http", name: "w", url: "https://x" }, b({ stdio: true, http: false }))).data,
    ).toMatchObject({
      type: "http",
    });
  });

  it("passes an unstable acp server when both sides speak unstable and the agent has it", () => {
    const acp = { type: "acp", name: "inproc", serverId: "srv-1" } as unknown as v2.McpServer;
    expect(valid(mcpServerToV1(acp, b({ ...both, acp: true })), "v1u", "McpServer")).toEqual(acp);
    expect(failure(mcpServerToV1(acp, b())).data).toMatchObject({ type: "acp" });
  });

  it("accepts stdio from any v1 agent (stdio is v1 baseline)", () => {
    expect(mcpServerToV1(stdio2, b({ stdio: false, http: false })).ok).toBe(true);
  });

  it("refuses a server without the field its transport is reached by (issue 19), rather than send v1 one it rejects", () => {
    const all = { ...both, sse: true, acp: true };
    const cases: [unknown, string, string][] = [
      [{ type: "stdio", name: "fs" }, "command", "missing"],
      [{ type: "stdio", name: "fs", command: 7 }, "command", "not_string"],
      [{ type: "http", name: "h" }, "url", "missing"],
      [{ type: "sse", name: "s", headers: [] }, "url", "missing"],
      [{ type: "acp", name: "a" }, "serverId", "missing"],
    ];
    for (const [server, key, reason] of cases)
      expect(failure(mcpServersToV1([server] as never, b(all))).data).toEqual({
        field: `mcpServers[0].${key}`,
        index: 0,
        reason,
      });
  });

  it("rejects a server without a string type", () => {
    expect(failure(mcpServerToV1({ name: "x" }, b())).data).toEqual({
      field: "mcpServers[0].type",
      index: 0,
      reason: "not_string",
    });
  });
});

describe("H §4.11 MCP chains are exact with the stash", () => {
  it("v2 → B → A → v2 restores omitted lists exactly", () => {
    const list: v2.McpServer[] = [
      { type: "stdio", name: "fs", command: "/bin/mcp" },
      { type: "http", name: "w", url: "https://x.example", _meta: { k: 1 } },
      { type: "stdio", name: "fs", command: "/bin/mcp", args: [], env: [{ name: "A", value: "1" }] },
    ];
    const down = mcpServersToV1(list, b());
    if (!down.ok) throw new Error("expected ok");
    const up = mcpServersToV2(down.value, a());
    expect(up.ok && up.value.servers).toEqual(list);
  });

  it("v1 → A → B → v1 is exact", () => {
    const list = [stdio1, http1, { ...stdio1, args: [], env: [], _meta: null }] as v1.McpServer[];
    const up = mcpServersToV2(list, a());
    if (!up.ok) throw new Error("expected ok");
    expect(mcpServersToV1(up.value.servers, b())).toMatchObject({ ok: true, value: list });
  });
});

describe("H §4.2 McpServer properties", () => {
  // A v1 http url goes to a v2 `uri` field: generate real URLs (the converter does not rewrite them).
  const v1Server = fc
    .tuple(arb("v1", "McpServer"), fc.webUrl())
    .filter(([s]) => (s as { type?: string }).type !== "sse")
    .map(([s, url]) => ((s as { type?: string }).type === "http" ? { ...(s as object), url } : s) as v1.McpServer);
  const v2Server = arb("v2", "McpServer").filter((s) =>
    ["stdio", "http"].includes((s as { type: string }).type),
  ) as fc.Arbitrary<v2.McpServer>;

  convertsLosslessly<v1.McpServer, v2.McpServer>({
    name: "McpServer",
    v1: { schema: "v1", def: "McpServer", arb: v1Server },
    v2: { schema: "v2", def: "McpServer", arb: v2Server },
    toV2: (x, o) => {
      const r = mcpServerToV2(x, { ...o, agentMcp: both, onUnsupported: "reject" });
      if (r.ok && r.value === undefined) throw new Error("nothing is dropped when every transport is supported");
      return r as Conv<v2.McpServer>;
    },
    toV1: (x, o) => mcpServerToV1(x, { ...o, agentMcp: both }),
    interpreted: { v1: [["name"]], v2: [["type"]] },
    levels: ["compact", "full"],
  });
});
