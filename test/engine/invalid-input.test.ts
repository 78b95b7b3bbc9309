// Issue 19, "a malformed request reaches the other side invalid": for every method the bridge
// translates (routes translate, rename, emulate in mappings/methods.ts), from either peer, in both
// directions, an input its own version's schema rejects is either refused (an error to its sender,
// a notification dropped) or becomes a message the other version's schema accepts. The inputs are
// schema-derived valid messages broken at one random place (a key dropped, a value replaced), kept
// only when the sender's schemas (stable and unstable) both reject them.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { rowsFrom, type Direction, type Kind, type Sender } from "../../mappings/methods.js";
import { defsFor, messageProblem } from "../../src/schema/wire.js";
import { arb, jsonValue } from "../support/arbitrary.js";
import { harness, type Harness } from "../support/harness.js";
import { numRuns } from "../support/properties.js";
import { check, schemaOf, type SchemaVersion } from "../support/schema.js";

const S = "s1";
/** The client's id of the prompt in flight, when there is one. */
const PROMPT_ID = 7;

const versionOf = { a: { client: 1, agent: 2 }, b: { client: 2, agent: 1 } } as const;

/** The schemas of a version a message of `method` belongs to: stable when it has the method. */
function schemasOf(version: 1 | 2, method: string): SchemaVersion[] {
  const stable: SchemaVersion = version === 1 ? "v1" : "v2";
  const unstable: SchemaVersion = version === 1 ? "v1u" : "v2u";
  return defsFor(stable, method) ? [stable, unstable] : [unstable];
}

interface Case {
  readonly d: Direction;
  readonly from: Sender;
  readonly kind: Kind;
  readonly method: string;
  readonly def: string;
  readonly schemas: SchemaVersion[];
}

/** Every method `from` sends in `d` that the bridge translates, with its params `$defs`. */
function cases(d: Direction, from: Sender): Case[] {
  const out: Case[] = [];
  for (const kind of ["request", "notification"] as const)
    for (const [method, row] of rowsFrom(d, from, kind)) {
      if (!["translate", "rename", "emulate"].includes(row[d])) continue;
      const schemas = schemasOf(versionOf[d][from], method);
      const def = defsFor(schemas[0]!, method)?.params;
      // `session/set_model` is legacy, in neither pinned schema: no validity to break. `initialize`
      // after the handshake is refused whatever it holds: the handshake has its own property.
      if (def === undefined || method === "initialize") continue;
      out.push({ d, from, kind, method, def, schemas });
    }
  return out;
}

/** Every `const` string of both versions' schemas: a tag of the wrong variant, or of the other version. */
function tags(): string[] {
  const out = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (typeof node === "object" && node !== null) {
      const o = node as Record<string, unknown>;
      if (typeof o.const === "string") out.add(o.const);
      Object.values(o).forEach(walk);
    }
  };
  for (const v of ["v1u", "v2u"] as const) walk(schemaOf(v).$defs);
  return [...out].sort();
}

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(null, 0, -1, 1.5, "", "zz_not_a_tag", [], {}, true, [1], { a: 1 }) },
  { weight: 2, arbitrary: fc.constantFrom(...tags()) },
  { weight: 1, arbitrary: jsonValue },
);

type Edit = { readonly op: "delete" } | { readonly op: "set"; readonly value: unknown };
const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.constant({ op: "delete" as const }),
  hostileValue.map((value) => ({ op: "set" as const, value })),
);

/** `value` with the `pick`-th place (pre-order, the root included) deleted or replaced. */
function mutate(value: unknown, pick: number, e: Edit): unknown {
  const paths: (string | number)[][] = [[]];
  const walk = (v: unknown, path: (string | number)[]) => {
    const children: [string | number, unknown][] = Array.isArray(v)
      ? v.map((x, i): [number, unknown] => [i, x])
      : typeof v === "object" && v !== null
        ? Object.entries(v)
        : [];
    for (const [key, child] of children) {
      paths.push([...path, key]);
      walk(child, [...path, key]);
    }
  };
  walk(value, []);
  // A deletion picks among object keys (a required field dropped), a replacement anywhere.
  const candidates = e.op === "delete" ? paths.filter((p) => typeof p[p.length - 1] === "string") : paths;
  const path = candidates.length === 0 ? [] : candidates[pick % candidates.length]!;
  if (path.length === 0) return e.op === "delete" ? undefined : e.value;
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let at = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (e.op === "set") at[last] = e.value;
  else Reflect.deleteProperty(at, last);
  return copy;
}

interface Live {
  readonly h: Harness;
  /** The agent's id of the prompt in flight (its version), when there is one. */
  readonly agentPromptId: unknown;
}

/** A connection of direction `d`, a session `s1`, and a prompt in flight when `prompting`. */
async function connect(d: Direction, prompting: boolean): Promise<Live> {
  const h = harness({ diffFileMaxBytes: 0, ackGraceMs: 60_000, ...(d === "a" ? { agentProtocol: 2 } : {}) });
  if (d === "a") {
    h.client({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: 1,
        clientCapabilities: {
          fs: { readTextFile: true, writeTextFile: true },
          terminal: true,
          elicitation: { form: {}, url: {} },
        },
      },
    });
    await h.settle();
    const [probe] = h.takeAgent();
    h.agent({
      jsonrpc: "2.0",
      id: probe.id,
      result: {
        protocolVersion: 2,
        info: { name: "agent", version: "1" },
        capabilities: {
          session: {
            prompt: { image: {}, audio: {}, embeddedContext: {} },
            mcp: { stdio: {}, http: {} },
            delete: {},
            additionalDirectories: {},
            fork: {},
          },
        },
        authMethods: [],
      },
    });
  } else {
    h.client({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: 2,
        info: { name: "zed", version: "1" },
        capabilities: { elicitation: { form: {}, url: {} } },
      },
    });
    await h.settle();
    const [probe2] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: probe2.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
    await h.settle();
    const [probe1] = h.takeAgent();
    h.agent({
      jsonrpc: "2.0",
      id: probe1.id,
      result: {
        protocolVersion: 1,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, audio: true, embeddedContext: true },
          mcpCapabilities: { http: true, sse: true },
          sessionCapabilities: { list: {}, resume: {}, close: {}, fork: {}, additionalDirectories: {}, status: {} },
          auth: { logout: {} },
        },
        authMethods: [],
      },
    });
  }
  await h.settle();
  expect(h.bridge.mode).toBe(d.toUpperCase());
  h.client({
    jsonrpc: "2.0",
    id: "new",
    method: "session/new",
    params: d === "a" ? { cwd: "/w", mcpServers: [] } : { cwd: "/w" },
  });
  const [req] = h.takeAgent();
  h.agent({ jsonrpc: "2.0", id: req.id, result: { sessionId: S } });
  await h.settle();
  let agentPromptId: unknown;
  if (prompting) {
    const prompt = [{ type: "text", text: "go" }];
    h.client({ jsonrpc: "2.0", id: PROMPT_ID, method: "session/prompt", params: { sessionId: S, prompt } });
    agentPromptId = h.takeAgent()[0].id;
  }
  h.takeClient();
  h.takeAgent();
  return { h, agentPromptId };
}

/** Point a generated message at the live session and the prompt in flight, as real peers do. */
function aim(params: unknown, c: Case, live: Live, aimed: boolean): unknown {
  if (!aimed || typeof params !== "object" || params === null || Array.isArray(params)) return params;
  const p = { ...(params as Record<string, unknown>) };
  if (typeof p.sessionId === "string") p.sessionId = S;
  if (p.requestId !== undefined && live.agentPromptId !== undefined)
    p.requestId = c.from === "agent" ? live.agentPromptId : PROMPT_ID;
  return p;
}

/** The first schema problem of what the bridge wrote to `side` (stable schemas when they have the method). */
function problemOf(msg: any, version: 1 | 2): string | undefined {
  if (typeof msg?.method !== "string") return undefined;
  const [schema] = schemasOf(version, msg.method);
  return messageProblem(schema!, msg, () => undefined);
}

function property(c: Case) {
  const valid = fc.oneof(...c.schemas.map((s) => arb(s, c.def)));
  const invalid = fc
    .tuple(valid, fc.nat(), edit)
    .map(([params, pick, e]) => mutate(params, pick, e))
    .filter((params) => c.schemas.every((s) => check(s, c.def, params) !== undefined));
  return fc.asyncProperty(invalid, fc.boolean(), fc.boolean(), async (params, prompting, aimed) => {
    const live = await connect(c.d, prompting);
    const { h } = live;
    const p = aim(params, c, live, aimed);
    const msg = {
      jsonrpc: "2.0",
      ...(c.kind === "request" ? { id: "x" } : {}),
      method: c.method,
      ...(p === undefined ? {} : { params: p }),
    };
    if (c.from === "client") h.client(msg);
    else h.agent(msg);
    await h.settle();
    await h.settle(1);
    const toClient = h.takeClient();
    const toAgent = h.takeAgent();
    const problems = [
      ...h.violations,
      ...toClient.map((m) => problemOf(m, versionOf[c.d].client)),
      ...toAgent.map((m) => problemOf(m, versionOf[c.d].agent)),
    ].filter((x) => x !== undefined);
    expect(problems, `input: ${JSON.stringify(msg).slice(0, 800)}`).toEqual([]);
  });
}

for (const d of ["a", "b"] as const)
  for (const from of ["client", "agent"] as const)
    describe(`direction ${d.toUpperCase()}: an invalid input from the ${from} is refused or crosses valid`, () => {
      for (const c of cases(d, from))
        it(`${c.method} (${c.kind})`, async () => {
          await fc.assert(property(c), { numRuns: numRuns() });
        });
    });

/** Values of `def` that none of `schemas` accepts: a valid one broken at one place. */
function invalidOf(schemas: SchemaVersion[], def: string): fc.Arbitrary<unknown> {
  return fc
    .tuple(fc.oneof(...schemas.map((s) => arb(s, def))), fc.nat(), edit)
    .map(([value, pick, e]) => mutate(value, pick, e))
    .filter((value) => value !== undefined && schemas.every((s) => check(s, def, value) !== undefined));
}

/**
 * The answers: a valid request crosses, the receiver answers it with a result its own version
 * rejects, and what the requester gets back is an error or a valid result of its version.
 */
function answerProperty(c: Case) {
  const other = c.from === "client" ? "agent" : "client";
  const valid = fc
    .oneof(...c.schemas.map((s) => arb(s, c.def)))
    .filter((params) => c.schemas.some((s) => check(s, c.def, params) === undefined));
  return fc.asyncProperty(valid, fc.boolean(), fc.boolean(), fc.gen(), async (params, prompting, aimed, g) => {
    const live = await connect(c.d, prompting);
    const { h } = live;
    const msg = { jsonrpc: "2.0", id: "x", method: c.method, params: aim(params, c, live, aimed) };
    const send = (side: Sender, m: unknown) => (side === "client" ? h.client(m) : h.agent(m));
    const take = (side: Sender) => (side === "client" ? h.takeClient() : h.takeAgent());
    send(c.from, msg);
    await h.settle();
    const answers: unknown[] = [];
    for (const fwd of take(other)) {
      if (typeof fwd.method !== "string" || fwd.id === undefined) continue;
      const schemas = schemasOf(versionOf[c.d][other], fwd.method);
      const def = defsFor(schemas[0]!, fwd.method)?.result;
      if (def === undefined) continue;
      const result = g(() => invalidOf(schemas, def));
      answers.push(result);
      send(other, { jsonrpc: "2.0", id: fwd.id, result });
    }
    await h.settle();
    await h.settle(1);
    const version = versionOf[c.d][c.from];
    const [schema] = schemasOf(version, c.method);
    const back = take(c.from);
    const problems = [
      ...h.violations,
      ...back.map((m) => (m.id === "x" ? messageProblem(schema!, m, () => c.method) : problemOf(m, version))),
      ...take(other).map((m) => problemOf(m, versionOf[c.d][other])),
    ].filter((x) => x !== undefined);
    expect(problems, `request: ${JSON.stringify(msg).slice(0, 600)}\nanswers: ${JSON.stringify(answers)}`).toEqual([]);
  });
}

for (const d of ["a", "b"] as const)
  for (const from of ["client", "agent"] as const)
    describe(`direction ${d.toUpperCase()}: an invalid answer to a request from the ${from} is refused or crosses valid`, () => {
      for (const c of cases(d, from).filter((c) => c.kind === "request" && c.method !== "initialize"))
        it(c.method, async () => {
          // Shrinking replays a whole connection per step, and an answer drawn inside the run
          // (fc.gen) shrinks slowly: the first counterexample is reported as found.
          await fc.assert(answerProperty(c), { numRuns: numRuns(), endOnFailure: true });
        });
    });

/**
 * The handshake's own translation: the client's first `initialize`, invalid in its version, is
 * refused or reaches the agent valid in the agent's (pinned with --agent-protocol); and a valid one
 * answered with a result the agent's version rejects gives the client an error or a valid result.
 */
function handshakeProperty(d: Direction, broken: "request" | "answer") {
  const clientVersion = versionOf[d].client;
  const agentVersion = versionOf[d].agent;
  const cs = schemasOf(clientVersion, "initialize");
  const as = schemasOf(agentVersion, "initialize");
  // Left out (reported): a client capability object whose children have the wrong shape (e.g.
  // `elicitation.form: true`): the walker copies a container's children as they are. A copied
  // capability that is not an object at all reads as absent (convert/capabilities.ts).
  const capsKey = clientVersion === 1 ? "clientCapabilities" : "capabilities";
  const params =
    broken === "request"
      ? invalidOf(cs, defsFor(cs[0]!, "initialize")!.params!).filter((p) => {
          const caps = (p as Record<string, unknown> | null)?.[capsKey];
          return caps === undefined || cs.some((s) => check(s, "ClientCapabilities", caps) === undefined);
        })
      : fc.constant(undefined);
  const answer = broken === "answer" ? invalidOf(as, defsFor(as[0]!, "initialize")!.result!) : fc.constant(undefined);
  return fc.asyncProperty(params, answer, async (p, result) => {
    const h = harness({ agentProtocol: agentVersion });
    const valid =
      clientVersion === 1
        ? { protocolVersion: 1, clientCapabilities: {} }
        : { protocolVersion: 2, info: { name: "zed", version: "1" }, capabilities: {} };
    const msg = { jsonrpc: "2.0", id: 0, method: "initialize", params: p ?? valid };
    h.client(msg);
    await h.settle();
    const problems: (string | undefined)[] = [];
    // Every probe, the retries the answers cause included, is answered.
    for (let probes = h.takeAgent(); probes.length > 0; probes = h.takeAgent())
      for (const probe of probes) {
        // Each probe is checked in the version it is rendered in: an agent may turn out the other one.
        const v = probe.params?.protocolVersion;
        problems.push(v === 1 || v === 2 ? problemOf(probe, v) : `a probe of version ${JSON.stringify(v)}`);
        const ok =
          agentVersion === 1
            ? { protocolVersion: 1, agentCapabilities: {}, authMethods: [] }
            : { protocolVersion: 2, info: { name: "a", version: "1" }, capabilities: {}, authMethods: [] };
        h.agent({ jsonrpc: "2.0", id: probe.id, result: result ?? ok });
        await h.settle();
      }
    // The client's version is what its request says (it may be broken too); one the agent speaks
    // is passed through, out of scope here.
    if (h.bridge.versions !== undefined && h.bridge.versions.client === h.bridge.versions.agent) return;
    const cv = h.bridge.versions?.client ?? clientVersion;
    const [schema] = schemasOf(cv, "initialize");
    for (const m of h.takeClient())
      problems.push(m.id === 0 ? messageProblem(schema!, m, () => "initialize") : problemOf(m, cv));
    problems.push(...h.violations);
    const found = problems.filter((x) => x !== undefined);
    expect(found, `initialize: ${JSON.stringify(msg)}\nanswer: ${JSON.stringify(result)}`).toEqual([]);
  });
}

for (const d of ["a", "b"] as const)
  describe(`direction ${d.toUpperCase()}: the handshake`, () => {
    it("an invalid client initialize is refused or reaches the agent valid", async () => {
      await fc.assert(handshakeProperty(d, "request"), { numRuns: numRuns() });
    });
    it("an invalid agent answer to initialize gives the client an error or a valid result", async () => {
      await fc.assert(handshakeProperty(d, "answer"), { numRuns: numRuns() });
    });
  });

describe("the reported cases: refused to their sender, nothing reaches the other side", () => {
  it("direction A: a v1 client's session/new whose stdio MCP server has no command never reaches the agent", async () => {
    const { h } = await connect("a", false);
    const servers = [{ name: "fs", args: [], env: [] }];
    h.client({ jsonrpc: "2.0", id: 9, method: "session/new", params: { cwd: "/w", mcpServers: servers } });
    await h.settle();
    expect(h.takeClient()).toEqual([
      {
        jsonrpc: "2.0",
        id: 9,
        error: {
          code: -32602,
          message: "Invalid params",
          data: { field: "mcpServers[0].command", index: 0, reason: "missing" },
        },
      },
    ]);
    // The session is not created: the agent never hears of it.
    expect(h.takeAgent()).toEqual([]);
    expect(h.violations).toEqual([]);
  });

  it("direction B: a v2 client's session/new whose http MCP server has no url never reaches the agent", async () => {
    const { h } = await connect("b", false);
    h.client({
      jsonrpc: "2.0",
      id: 9,
      method: "session/new",
      params: { cwd: "/w", mcpServers: [{ type: "http", name: "h" }] },
    });
    await h.settle();
    expect(h.takeClient()).toMatchObject([
      { id: 9, error: { code: -32602, data: { field: "mcpServers[0].url", index: 0, reason: "missing" } } },
    ]);
    expect(h.takeAgent()).toEqual([]);
    expect(h.violations).toEqual([]);
  });

  it("direction B: a v1 agent's form elicitation with neither sessionId nor requestId is refused to the agent", async () => {
    const { h } = await connect("b", true);
    const requestedSchema = { type: "object", properties: { name: { type: "string" } } };
    h.agent({
      jsonrpc: "2.0",
      id: 50,
      method: "elicitation/create",
      params: { message: "Name?", mode: "form", requestedSchema },
    });
    await h.settle();
    expect(h.takeAgent()).toEqual([
      {
        jsonrpc: "2.0",
        id: 50,
        error: {
          code: -32602,
          message: "Invalid params",
          data: {
            field: "sessionId",
            reason: "missing_scope",
            detail: "an elicitation is scoped to a sessionId or a requestId",
          },
        },
      },
    ]);
    expect(h.takeClient()).toEqual([]);
    expect(h.violations).toEqual([]);
  });

  it("direction B: a v1 agent's URL elicitation without url is refused to the agent", async () => {
    const { h } = await connect("b", false);
    h.agent({
      jsonrpc: "2.0",
      id: 51,
      method: "elicitation/create",
      params: { message: "Sign in", mode: "url", elicitationId: "e1", sessionId: S },
    });
    await h.settle();
    expect(h.takeAgent()).toMatchObject([
      { id: 51, error: { code: -32602, data: { field: "url", reason: "missing" } } },
    ]);
    expect(h.takeClient()).toEqual([]);
    expect(h.violations).toEqual([]);
  });

  it("direction A: a v2 agent's URL elicitation with neither sessionId nor requestId is refused to the agent", async () => {
    const { h } = await connect("a", true);
    h.agent({
      jsonrpc: "2.0",
      id: 52,
      method: "elicitation/create",
      params: { message: "Sign in", mode: "url", elicitationId: "e1", url: "https://example.com/login" },
    });
    await h.settle();
    expect(h.takeAgent()).toMatchObject([
      { id: 52, error: { code: -32602, data: { field: "sessionId", reason: "missing_scope" } } },
    ]);
    expect(h.takeClient()).toEqual([]);
    expect(h.violations).toEqual([]);
  });
});

describe("other classes the property found", () => {
  it("direction B: session/status without a sessionId is refused, never forwarded", async () => {
    const { h } = await connect("b", false);
    h.client({ jsonrpc: "2.0", id: 9, method: "session/status", params: {} });
    await h.settle();
    expect(h.takeClient()).toMatchObject([
      { id: 9, error: { code: -32602, data: { field: "sessionId", reason: "missing" } } },
    ]);
    expect(h.takeAgent()).toEqual([]);
  });

  it("direction B: session/fork whose systemPrompt has no mode is refused, never forwarded", async () => {
    const { h } = await connect("b", false);
    const systemPrompt = { content: [{ type: "text", text: "be brief" }] };
    h.client({ jsonrpc: "2.0", id: 9, method: "session/fork", params: { sessionId: S, cwd: "/w", systemPrompt } });
    await h.settle();
    expect(h.takeClient()).toMatchObject([
      { id: 9, error: { code: -32602, data: { field: "systemPrompt.mode", reason: "not_string" } } },
    ]);
    expect(h.takeAgent()).toEqual([]);
  });

  it("direction B: a v1 agent's plan_update whose plan v2 rejects is dropped; a valid one passes as it is", async () => {
    const { h } = await connect("b", false);
    const update = (u: unknown) => ({ jsonrpc: "2.0", method: "session/update", params: { sessionId: S, update: u } });
    h.agent(update({ sessionUpdate: "plan_update", plan: false }));
    h.agent(
      update({ sessionUpdate: "plan_update", plan: { type: "items", planId: "p", entries: [{ content: "c" }] } }),
    );
    await h.settle();
    expect(h.takeClient()).toEqual([]);
    const plan = { type: "items", planId: "p", entries: [{ content: "c", priority: "high", status: "pending" }] };
    h.agent(update({ sessionUpdate: "plan_update", plan }));
    await h.settle();
    expect(h.takeClient()).toEqual([update({ sessionUpdate: "plan_update", plan })]);
    expect(h.violations).toEqual([]);
  });

  it("direction B: a v1 agent's update named after a v2-only variant is dropped, an unknown one passes", async () => {
    const { h } = await connect("b", false);
    const update = (u: unknown) => ({ jsonrpc: "2.0", method: "session/update", params: { sessionId: S, update: u } });
    for (const tag of ["state_update", "tool_call_content_chunk", "terminal_update", "terminal_output_chunk"])
      h.agent(update({ sessionUpdate: tag }));
    for (const tag of ["user_message", "agent_message", "agent_thought"]) h.agent(update({ sessionUpdate: tag }));
    await h.settle();
    expect(h.takeClient()).toEqual([]);
    h.agent(update({ sessionUpdate: "subagent_update", x: 1 }));
    await h.settle();
    expect(h.takeClient()).toEqual([update({ sessionUpdate: "subagent_update", x: 1 })]);
    expect(h.violations).toEqual([]);
  });
});

describe("the handshake refuses what it would render invalid", () => {
  it("direction A: a v1 client's initialize whose nested _meta is not an object is -32602, never probed", async () => {
    const h = harness({ agentProtocol: 2 });
    const clientCapabilities = { fs: { readTextFile: true, _meta: 1 } };
    h.client({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities } });
    await h.settle();
    expect(h.takeAgent()).toEqual([]);
    expect(h.takeClient()).toMatchObject([
      { id: 0, error: { code: -32602, data: { field: "clientCapabilities.fs._meta", reason: "not_object" } } },
    ]);
  });

  it("direction B: a v1 agent's initialize answer whose _meta is not an object fails the handshake", async () => {
    const h = harness({ agentProtocol: 1 });
    const params = { protocolVersion: 2, info: { name: "zed", version: "1" }, capabilities: {} };
    h.client({ jsonrpc: "2.0", id: 0, method: "initialize", params });
    await h.settle();
    const [probe] = h.takeAgent();
    h.agent({
      jsonrpc: "2.0",
      id: probe.id,
      result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [], _meta: "x" },
    });
    await h.settle();
    expect(h.takeClient()).toMatchObject([
      { id: 0, error: { code: -32603, data: { reason: "malformed_result", field: "_meta", detail: "not_object" } } },
    ]);
  });
});

describe("a capability of the wrong shape reads as absent instead of crossing invalid", () => {
  it("direction B: a v1 agent's sessionCapabilities.delete that is not an object is not offered to the v2 client", async () => {
    const h = harness({ agentProtocol: 1 });
    const params = { protocolVersion: 2, info: { name: "zed", version: "1" }, capabilities: {} };
    h.client({ jsonrpc: "2.0", id: 0, method: "initialize", params });
    await h.settle();
    const [probe] = h.takeAgent();
    const agentCapabilities = { loadSession: true, sessionCapabilities: { delete: -1, close: {} } };
    h.agent({ jsonrpc: "2.0", id: probe.id, result: { protocolVersion: 1, agentCapabilities, authMethods: [] } });
    await h.settle();
    const [answer] = h.takeClient();
    expect(problemOf(answer, 2)).toBeUndefined();
    expect(answer.result.capabilities.session).not.toHaveProperty("delete");
  });
});

describe("answers the other version would reject are refused to the requester", () => {
  it("direction B: a v1 agent's session/new result whose _meta is not an object is -32603 for the client", async () => {
    const { h } = await connect("b", false);
    h.client({ jsonrpc: "2.0", id: 9, method: "session/new", params: { cwd: "/w" } });
    const [req] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: req.id, result: { sessionId: "s2", _meta: 5 } });
    await h.settle();
    expect(h.takeClient()).toMatchObject([
      { id: 9, error: { code: -32603, data: { reason: "malformed_result", field: "_meta", detail: "not_object" } } },
    ]);
    expect(h.violations).toEqual([]);
  });

  it("direction A: a v1 client's permission answer whose _meta is not an object is -32603 for the agent", async () => {
    const { h } = await connect("a", true);
    const options = [{ optionId: "y", name: "Yes", kind: "allow_once" }];
    h.agent({
      jsonrpc: "2.0",
      id: 60,
      method: "session/request_permission",
      params: { sessionId: S, title: "Run?", subject: { type: "tool_call", toolCall: { toolCallId: "t" } }, options },
    });
    await h.settle();
    const asked = h.takeClient().find((m) => m.method === "session/request_permission");
    h.client({ jsonrpc: "2.0", id: asked.id, result: { outcome: { outcome: "cancelled" }, _meta: [] } });
    await h.settle();
    expect(h.takeAgent()).toMatchObject([
      { id: 60, error: { code: -32603, data: { reason: "malformed_result", field: "_meta" } } },
    ]);
    expect(h.violations).toEqual([]);
  });

  it("direction B: a v1 agent's session/status answer without status is -32603 for the client", async () => {
    const { h } = await connect("b", false);
    h.client({ jsonrpc: "2.0", id: 9, method: "session/status", params: { sessionId: S } });
    const [req] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: req.id, result: {} });
    await h.settle();
    expect(h.takeClient()).toMatchObject([
      {
        id: 9,
        error: {
          code: -32603,
          data: { reason: "malformed_agent_result", detail: { field: "status", reason: "not_string" } },
        },
      },
    ]);
  });
});
