import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  finalizeSyntheticToolCall,
  permissionRequestToV1,
  permissionRequestToV2,
  permissionResponseToV1,
  permissionResponseToV2,
  type PermissionRequestToV1,
  type PermissionRequestToV2,
  type PermissionToV1Context,
  type PermissionToV2Context,
} from "../../src/convert/permission.js";
import { rpcErrors } from "../../src/base/errors.js";
import type { Conv } from "../../src/convert/result.js";
import type { ConvertOptions } from "../../src/convert/stash.js";
import { defaultOptions } from "../support/conv.js";
import {
  isPermissionAnnouncement,
  isPermissionPreAnnouncement,
  toolCallMessageToV2,
} from "../../src/convert/tool-call.js";
import { arb } from "../support/arbitrary.js";
import { convertsLosslessly, norm, numRuns, options } from "../support/properties.js";
import { expectValid, type SchemaVersion } from "../support/schema.js";
import { value } from "../support/conv.js";

/** The v1 params alone, as the engine sends them for a `prompt` outcome. */
function permissionParamsToV1(
  params: v2.RequestPermissionRequest,
  ctx: PermissionToV1Context,
): Conv<v1.RequestPermissionRequest> {
  const r = permissionRequestToV1(params, ctx);
  if (!r.ok) return r;
  if (r.value.kind !== "prompt")
    return { ok: false, error: rpcErrors.invalidParams({ reason: "refused_subject", field: "subject" }) };
  return { ok: true, value: r.value.params, lost: r.lost };
}

/** The v2 params alone (`options: []` gives the typed error). */
function permissionParamsToV2(
  params: v1.RequestPermissionRequest,
  ctx: PermissionToV2Context,
): Conv<v2.RequestPermissionRequest> {
  const r = permissionRequestToV2(params, ctx);
  if (!r.ok) return r;
  if (r.value.kind !== "prompt")
    return { ok: false, error: rpcErrors.invalidParams({ reason: "no_options", field: "options" }) };
  return { ok: true, value: r.value.params, lost: r.lost };
}

type Json = Record<string, unknown>;

const CWD = "/w";

// The tool call inside a v1 request follows tool-call.ts's rules, so its arbitrary gets the same
// refinements as there: v1 `uri` fields are plain strings but v2 ones `format: uri` (T §3.1), a v1
// diff names a file, and a v1 diff of an existing file is exact only at `full` (T §3.3 B↓-4).
const URIS = ["file:///w/a.txt", "https://example.com/x?y=1", "urn:isbn:0451450523", "mcp://srv/res"];
function withUri(def: string): fc.Arbitrary<unknown> {
  return fc.tuple(arb("v1", def), fc.constantFrom(...URIS)).map(([v, uri]) => {
    const o = v as Json;
    return typeof o.uri === "string" ? { ...o, uri } : o;
  });
}
const v1Overrides = {
  Diff: arb("v1", "Diff").map((d) => ((d as { path: string }).path === "" ? { ...(d as object), path: "f" } : d)),
  ResourceLink: withUri("ResourceLink"),
  ImageContent: withUri("ImageContent"),
  TextResourceContents: withUri("TextResourceContents"),
  BlobResourceContents: withUri("BlobResourceContents"),
};

/** The converted value, schema-checked as `def` of `version`. */
function valid<T>(version: SchemaVersion, def: string, r: Conv<T>): T {
  const v = value(r);
  expectValid(version, def, v);
  return v;
}

const allow = { optionId: "yes", name: "Allow", kind: "allow_once" } as const;
const reject = { optionId: "no", name: "Reject", kind: "reject_once" } as const;

function ctxV1(over: Partial<PermissionToV1Context> = {}): PermissionToV1Context {
  return { opts: defaultOptions, v2RequestId: 7, isAnnounced: () => false, ...over };
}

function ctxV2(over: Partial<PermissionToV2Context> = {}): PermissionToV2Context {
  return { opts: defaultOptions, seen: () => true, cwd: CWD, ...over };
}

/** A↓, expecting a prompt; every emitted message is schema-checked. */
function toV1(params: Json, ctx: PermissionToV1Context = ctxV1()): Extract<PermissionRequestToV1, { kind: "prompt" }> {
  const r = value(permissionRequestToV1(params as unknown as v2.RequestPermissionRequest, ctx));
  if (r.kind !== "prompt") throw new Error("expected a prompt");
  expectValid("v1", "RequestPermissionRequest", r.params);
  for (const u of r.before) expectValid("v1", "SessionUpdate", u);
  return r;
}

function toV2(params: Json, ctx: PermissionToV2Context = ctxV2()): Extract<PermissionRequestToV2, { kind: "prompt" }> {
  const r = value(permissionRequestToV2(params as unknown as v1.RequestPermissionRequest, ctx));
  if (r.kind !== "prompt") throw new Error("expected a prompt");
  expectValid("v2", "RequestPermissionRequest", r.params);
  for (const u of r.before) expectValid("v2", "SessionUpdate", u);
  return r;
}

const envelope = (from: 1 | 2, rest: Json, hadMeta = false) => ({ "acp-bridge": { v: 1, from, hadMeta, ...rest } });

describe("T §4 A↓ permission requests (v2 agent → v1 client)", () => {
  it("synthesizes an execute tool call for a command subject without a toolCallId, then fails it after a rejection", () => {
    const params = {
      sessionId: "s",
      title: "Run tests?",
      subject: { type: "command", command: "npm test", cwd: "/w" },
      options: [allow, reject],
    };
    const r = toV1(params);
    expect(r.before).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: "acpb-perm-7",
        title: "Run tests?",
        kind: "execute",
        status: "pending",
        rawInput: { command: "npm test", cwd: "/w" },
        content: [{ type: "content", content: { type: "text", text: "$ npm test\n(in /w)" } }],
        _meta: envelope(2, { synthetic: ["toolCall"] }),
      },
    ]);
    expect(r.syntheticToolCallId).toBe("acpb-perm-7");
    expect(r.params).toEqual({
      sessionId: "s",
      toolCall: { toolCallId: "acpb-perm-7" },
      options: [allow, reject],
      _meta: envelope(2, {
        residual: { subject: params.subject, title: "Run tests?" },
        synthetic: ["toolCall"],
      }),
    });
    const fin = finalizeSyntheticToolCall(
      "acpb-perm-7",
      { outcome: "selected", optionId: "no" },
      params.options,
      defaultOptions,
    );
    expectValid("v1", "SessionUpdate", fin);
    expect(fin).toEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: "acpb-perm-7",
      status: "failed",
      _meta: envelope(2, { synthetic: ["toolCall"] }),
    });
  });

  it("finalizes a synthetic tool call as completed after an allow option, failed after a cancel", () => {
    const opts = [allow, reject];
    expect(finalizeSyntheticToolCall("t", { outcome: "selected", optionId: "yes" }, opts, defaultOptions).status).toBe(
      "completed",
    );
    expect(finalizeSyntheticToolCall("t", { outcome: "cancelled" }, opts, defaultOptions).status).toBe("failed");
    expect(finalizeSyntheticToolCall("t", undefined, opts, defaultOptions).status).toBe("failed");
    expect(finalizeSyntheticToolCall("t", { outcome: "selected", optionId: "gone" }, opts, options("off"))).toEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: "t",
      status: "failed",
    });
  });

  it("points a command subject at its announced tool call without synthesizing one", () => {
    const subject = { type: "command", command: "ls", cwd: "/w", toolCallId: "tc1", terminalId: "term" };
    const r = toV1(
      { sessionId: "s", title: "List?", subject, options: [allow] },
      ctxV1({ isAnnounced: (id) => id === "tc1" }),
    );
    expect(r.before).toEqual([]);
    expect(r.syntheticToolCallId).toBeUndefined();
    expect(r.params.toolCall).toEqual({ toolCallId: "tc1" });
    expect(r.params._meta).toEqual(envelope(2, { residual: { subject, title: "List?" } }));
  });

  it("synthesizes the command's tool call under its own toolCallId when that id was not announced", () => {
    const r = toV1({
      sessionId: "s",
      title: "t",
      subject: { type: "command", command: "x", cwd: "/", toolCallId: "tc9" },
      options: [allow],
    });
    expect(r.syntheticToolCallId).toBe("tc9");
    expect(r.before[0]).toMatchObject({ sessionUpdate: "tool_call", toolCallId: "tc9", kind: "execute" });
  });

  it("announces an unannounced tool_call subject titled with the permission title, without copying it into the request", () => {
    const r = toV1({
      sessionId: "s",
      title: "Edit main.ts?",
      subject: { type: "tool_call", toolCall: { toolCallId: "tc1", kind: "edit", status: "pending" } },
      options: [allow, reject],
    });
    expect(r.before).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: "tc1",
        title: "Edit main.ts?",
        kind: "edit",
        status: "pending",
        // `forPermission`: a chained B's v2 client has it from the subject, so B shows nothing.
        _meta: envelope(2, { synthetic: ["title", "forPermission"] }),
      },
    ]);
    expect(r.syntheticToolCallId).toBeUndefined();
    expect(r.params).toEqual({
      sessionId: "s",
      toolCall: { toolCallId: "tc1", kind: "edit", status: "pending" },
      options: [allow, reject],
      _meta: envelope(2, { residual: { title: "Edit main.ts?" } }),
    });
  });

  it("keeps a tool call's real title when announcing it for a permission", () => {
    const r = toV1({
      sessionId: "s",
      title: "Allow?",
      subject: { type: "tool_call", toolCall: { toolCallId: "a", title: "Read x" } },
      options: [allow],
    });
    expect(r.before[0]).toMatchObject({ title: "Read x" });
  });

  it("converts an announced tool_call subject with the tool_call_update null rules and sends nothing first", () => {
    const r = toV1(
      {
        sessionId: "s",
        title: "Go?",
        subject: { type: "tool_call", toolCall: { toolCallId: "a", kind: null, status: null, content: null } },
        options: [allow],
      },
      ctxV1({ isAnnounced: () => true }),
    );
    expect(r.before).toEqual([]);
    expect(r.params.toolCall).toMatchObject({ toolCallId: "a", kind: "other", status: "pending", content: [] });
  });

  it("synthesizes an 'other' tool call for an absent subject, with the title and description as input", () => {
    const r = toV1({ sessionId: "s", title: "Continue?", description: "It costs money", options: [allow] });
    expect(r.before).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: "acpb-perm-7",
        title: "Continue?",
        kind: "other",
        status: "pending",
        rawInput: { title: "Continue?", description: "It costs money" },
        content: [{ type: "content", content: { type: "text", text: "It costs money" } }],
        _meta: envelope(2, { synthetic: ["toolCall"] }),
      },
    ]);
    expect(r.params._meta).toEqual(
      envelope(2, { residual: { title: "Continue?", description: "It costs money" }, synthetic: ["toolCall"] }),
    );
  });

  it("stashes an unknown subject and a null one exactly", () => {
    const unknown = { type: "_browser_tab", url: "https://x.y/" };
    expect(toV1({ sessionId: "s", title: "t", subject: unknown, options: [allow] }).params._meta).toEqual(
      envelope(2, { residual: { subject: unknown, title: "t" }, synthetic: ["toolCall"] }),
    );
    expect(toV1({ sessionId: "s", title: "t", subject: null, options: [allow] }).params._meta).toEqual(
      envelope(2, { residual: { subject: null, title: "t" }, synthetic: ["toolCall"] }),
    );
  });

  it("answers cancelled without prompting for an unknown subject under unknownSubjectPolicy reject", () => {
    const r = value(
      permissionRequestToV1(
        {
          sessionId: "s",
          title: "t",
          subject: { type: "future_thing" },
          options: [allow],
        } as v2.RequestPermissionRequest,
        ctxV1({ unknownSubjectPolicy: "reject" }),
      ),
    );
    expect(r).toEqual({ kind: "cancel", response: { outcome: { outcome: "cancelled" } } });
    // Known and absent subjects are still prompted.
    expect(toV1({ sessionId: "s", title: "t", options: [allow] }, ctxV1({ unknownSubjectPolicy: "reject" })).kind).toBe(
      "prompt",
    );
  });

  it("removes options of unknown kind and stashes them with their position", () => {
    const defer = { optionId: "later", name: "Ask later", kind: "_defer" };
    const r = permissionRequestToV1(
      {
        sessionId: "s",
        title: "t",
        subject: { type: "tool_call", toolCall: { toolCallId: "a", title: "t" } },
        options: [allow, defer, reject],
      },
      ctxV1({ isAnnounced: () => true }),
    );
    if (!r.ok || r.value.kind !== "prompt") throw new Error("prompt expected");
    expect(r.value.params.options).toEqual([allow, reject]);
    expect(r.value.params._meta).toEqual(
      envelope(2, { residual: { title: "t", options: [{ index: 1, option: defer }] } }),
    );
    expect(r.lost.map((l) => l.path)).toEqual([["options", 1]]);
  });

  it("shows options as reject_once when none of their kinds exist in v1, never as allow", () => {
    const opts = [
      { optionId: "a", name: "A", kind: "_approve_forever" },
      { optionId: "b", name: "B", kind: "future_maybe", _meta: { x: 1 } },
    ];
    const r = toV1({ sessionId: "s", title: "t", options: opts });
    expect(r.params.options).toEqual([
      { optionId: "a", name: "A", kind: "reject_once", _meta: envelope(2, { residual: { kind: "_approve_forever" } }) },
      {
        optionId: "b",
        name: "B",
        kind: "reject_once",
        _meta: { x: 1, ...envelope(2, { residual: { kind: "future_maybe" } }, true) },
      },
    ]);
  });

  it("writes no envelope anywhere with the stash off, yet still synthesizes", () => {
    const r = toV1(
      { sessionId: "s", title: "t", subject: { type: "command", command: "c", cwd: "/" }, options: [allow] },
      ctxV1({ opts: options("off") }),
    );
    expect(JSON.stringify(r)).not.toContain("acp-bridge");
    expect(r.before).toHaveLength(1);
  });

  it("rejects malformed interpreted fields with -32602", () => {
    const bad: Json[] = [
      { sessionId: "s", title: 1, options: [allow] },
      { sessionId: "s", title: "t", options: {} },
      { sessionId: "s", title: "t", options: [{ optionId: "x", name: "x", kind: 3 }] },
      { sessionId: "s", title: "t", subject: { type: "tool_call" }, options: [allow] },
      { sessionId: "s", title: "t", subject: { type: "command", command: "c" }, options: [allow] },
      { sessionId: "s", title: "t", subject: 5, options: [allow] },
      { sessionId: "s", title: "t", description: 5, options: [allow] },
    ];
    for (const p of bad) {
      const r = permissionRequestToV1(p as unknown as v2.RequestPermissionRequest, ctxV1());
      expect(r.ok, JSON.stringify(p)).toBe(false);
      if (!r.ok) expect(r.error.code).toBe(-32602);
    }
  });
});

describe("T §4 B↓ permission requests (v1 agent → v2 client)", () => {
  it("takes the title from the tool's last title, emits the unseen tool call first, and marks the title invented (T §9 case 18)", () => {
    const r = toV2(
      { sessionId: "s", toolCall: { toolCallId: "tc1", status: "pending" }, options: [allow, reject] },
      ctxV2({ seen: () => false, lastTitle: (id) => (id === "tc1" ? "Run rm" : undefined) }),
    );
    expect(r.params).toEqual({
      sessionId: "s",
      title: "Run rm",
      subject: { type: "tool_call", toolCall: { toolCallId: "tc1", status: "pending" } },
      options: [allow, reject],
      // `toolCallUnannounced`: a chained A does not announce what the v1 agent never did.
      _meta: envelope(1, { synthetic: ["toolCallUnannounced", "title"] }),
    });
    expect(r.before).toEqual([
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "tc1",
        status: "pending",
        _meta: envelope(1, { synthetic: ["forPermission"] }),
      },
    ]);
  });

  it("prefers the v1 tool call's own title and sends nothing first for a seen tool call", () => {
    const r = toV2(
      { sessionId: "s", toolCall: { toolCallId: "a", title: "Delete build/" }, options: [allow] },
      ctxV2({ lastTitle: () => "old" }),
    );
    expect(r.params.title).toBe("Delete build/");
    expect(r.before).toEqual([]);
  });

  it("derives the title from the kind, or the last kind, or a generic phrase", () => {
    const title = (tc: Json, lastKind?: string) =>
      toV2({ sessionId: "s", toolCall: tc, options: [allow] }, ctxV2({ lastKind: () => lastKind })).params.title;
    expect(title({ toolCallId: "a", kind: "execute" })).toBe("Allow command execution?");
    expect(title({ toolCallId: "a", kind: "edit" })).toBe("Allow file edit?");
    expect(title({ toolCallId: "a" }, "fetch")).toBe("Allow network fetch?");
    expect(title({ toolCallId: "a", kind: "think" })).toBe("Permission required");
    expect(title({ toolCallId: "a", title: null })).toBe("Permission required");
  });

  it("drops v1 null fields of the tool call (null means unchanged in v1)", () => {
    const r = toV2(
      { sessionId: "s", toolCall: { toolCallId: "a", title: "T", kind: null, content: null }, options: [allow] },
      ctxV2({ opts: options("off") }),
    );
    expect(r.params.subject).toEqual({ type: "tool_call", toolCall: { toolCallId: "a", title: "T" } });
  });

  it("answers cancelled without prompting when v1 gives no options", () => {
    const r = value(permissionRequestToV2({ sessionId: "s", toolCall: { toolCallId: "a" }, options: [] }, ctxV2()));
    expect(r).toEqual({ kind: "cancel", response: { outcome: { outcome: "cancelled" } } });
    expectValid("v1", "RequestPermissionResponse", r.kind === "cancel" ? r.response : undefined);
  });

  it("rejects malformed interpreted fields with -32602", () => {
    for (const p of [
      { sessionId: "s", options: [allow] },
      { sessionId: "s", toolCall: { toolCallId: 1 }, options: [allow] },
      { sessionId: "s", toolCall: { toolCallId: "a" }, options: "x" },
      { sessionId: "s", toolCall: { toolCallId: "a" }, options: [{ optionId: "o", name: "n" }] },
    ]) {
      const r = permissionRequestToV2(p as unknown as v1.RequestPermissionRequest, ctxV2());
      expect(r.ok, JSON.stringify(p)).toBe(false);
    }
  });
});

/** v2 agent → A → v1 → B → v2 client, with B's state fed by A's `before` messages. */
function chain(
  params: Json,
  announced: ReadonlySet<string>,
  opts: ConvertOptions = defaultOptions,
): { v2: Json; beforeV2: unknown[] } {
  const a = toV1(params, ctxV1({ opts, isAnnounced: (id) => announced.has(id) }));
  const seen = new Set(announced);
  const beforeV2: unknown[] = [];
  for (const m of a.before) {
    const r = value(toolCallMessageToV2(m, { opts, seen: seen.has(m.toolCallId) }));
    // What B's engine knows afterwards (v2-client/updates/): not A's stand-in for a non-tool-call subject.
    if (r.length > 0 || isPermissionAnnouncement(m)) seen.add(m.toolCallId);
    beforeV2.push(...r);
  }
  const b = toV2(a.params, ctxV2({ opts, seen: (id) => seen.has(id) }));
  return { v2: b.params, beforeV2: [...beforeV2, ...b.before] };
}

describe("T §4 chains v2 agent → A → v1 → B → v2 client", () => {
  const cases: [string, Json][] = [
    [
      "a command subject",
      {
        sessionId: "s",
        title: "Run?",
        description: "why",
        subject: { type: "command", command: "rm -rf x", cwd: "/w", terminalId: null },
        options: [allow, reject],
      },
    ],
    [
      "an unknown subject",
      { sessionId: "s", title: "Open tab?", subject: { type: "_tab", url: "u" }, options: [allow] },
    ],
    ["a null subject", { sessionId: "s", title: "Go?", description: null, subject: null, options: [reject] }],
    ["an absent subject", { sessionId: "s", title: "Go?", options: [allow], _meta: { trace: 1 } }],
    [
      "a tool_call subject with its own _meta",
      {
        sessionId: "s",
        title: "Edit?",
        subject: { type: "tool_call", toolCall: { toolCallId: "t1", title: "Edit a" }, _meta: { m: 1 } },
        options: [allow],
      },
    ],
    [
      "options of unknown kinds",
      {
        sessionId: "s",
        title: "Pick",
        options: [{ optionId: "a", name: "A", kind: "_x" }, allow, { optionId: "b", name: "B", kind: "future" }],
      },
    ],
    [
      "only unknown option kinds",
      { sessionId: "s", title: "Pick", options: [{ optionId: "a", name: "A", kind: "_x" }] },
    ],
  ];
  for (const [name, params] of cases) {
    it(`restores ${name} exactly`, () => {
      expect(chain(params, new Set()).v2).toEqual(params);
      expect(chain(params, new Set(["t1"])).v2).toEqual(params);
    });
  }

  it("never shows the v2 client the tool call A synthesized", () => {
    const { beforeV2 } = chain(
      { sessionId: "s", title: "Run?", subject: { type: "command", command: "c", cwd: "/" }, options: [allow] },
      new Set(),
    );
    expect(beforeV2).toEqual([]);
  });

  it("shows the v2 client nothing A announced for a tool_call subject: as from a direct agent, the subject carries it", () => {
    const { beforeV2 } = chain(
      {
        sessionId: "s",
        title: "Edit?",
        subject: { type: "tool_call", toolCall: { toolCallId: "t1", kind: "edit" } },
        options: [allow],
      },
      new Set(),
    );
    expect(beforeV2).toEqual([]);
  });
});

describe("T §4 permission responses", () => {
  it("B↑ turns an unknown outcome into cancelled, stashing it; A↑ restores it", () => {
    const resp = { outcome: { outcome: "_approve_with_edits", optionId: "y", edits: [1] } };
    const r = permissionResponseToV1(resp as v2.RequestPermissionResponse, defaultOptions);
    const out = value(r);
    expectValid("v1", "RequestPermissionResponse", out);
    expect(out).toEqual({
      outcome: { outcome: "cancelled" },
      _meta: envelope(2, { residual: { outcome: resp.outcome } }),
    });
    expect(r.ok && r.lost.map((l) => l.path)).toEqual([["outcome"]]);
    expect(valid("v2", "RequestPermissionResponse", permissionResponseToV2(out))).toEqual(resp);
  });

  it("relays selected and cancelled unchanged in both directions", () => {
    for (const resp of [
      { outcome: { outcome: "selected", optionId: "yes", _meta: { a: 1 } } },
      { outcome: { outcome: "cancelled" }, _meta: { b: 2 } },
    ]) {
      expect(
        valid(
          "v1",
          "RequestPermissionResponse",
          permissionResponseToV1(resp as v2.RequestPermissionResponse, defaultOptions),
        ),
      ).toEqual(resp);
      expect(
        valid("v2", "RequestPermissionResponse", permissionResponseToV2(resp as v1.RequestPermissionResponse)),
      ).toEqual(resp);
    }
  });

  it("rejects an outcome without a string tag", () => {
    expect(
      permissionResponseToV1({ outcome: { outcome: 3 } } as unknown as v2.RequestPermissionResponse, defaultOptions).ok,
    ).toBe(false);
    expect(
      permissionResponseToV2({ outcome: { outcome: "selected" } } as unknown as v1.RequestPermissionResponse).ok,
    ).toBe(false);
  });
});

describe("T §4 chains (properties)", () => {
  const request = arb("v2", "RequestPermissionRequest") as fc.Arbitrary<Json>;
  it("v2 agent → A → v1 → B → v2 client restores every request exactly, whatever was announced", () => {
    fc.assert(
      fc.property(
        request,
        fc.boolean(),
        fc.constantFrom<"compact" | "full">("compact", "full"),
        (params, announceAll, level) => {
          const subject = params.subject as Json | null | undefined;
          const tc = subject?.type === "tool_call" ? (subject.toolCall as Json | undefined) : undefined;
          const ids = new Set<string>(announceAll && typeof tc?.toolCallId === "string" ? [tc.toolCallId] : []);
          if (announceAll && typeof subject?.toolCallId === "string") ids.add(subject.toolCallId);
          expect(norm(chain(params, ids, options(level)).v2)).toEqual(norm(params));
        },
      ),
      { numRuns: numRuns() },
    );
  });
});

const v1Request = (arb("v1", "RequestPermissionRequest", { overrides: v1Overrides }) as fc.Arbitrary<Json>).filter(
  (x) => (x.options as unknown[]).length > 0,
);

convertsLosslessly<v1.RequestPermissionRequest, v2.RequestPermissionRequest>({
  name: "T §4 RequestPermissionRequest",
  v1: {
    schema: "v1",
    def: "RequestPermissionRequest",
    arb: v1Request as unknown as fc.Arbitrary<v1.RequestPermissionRequest>,
  },
  v2: { schema: "v2", def: "RequestPermissionRequest" },
  toV2: (x, opts) => permissionParamsToV2(x, ctxV2({ opts })),
  toV1: (x, opts) => permissionParamsToV1(x, ctxV1({ opts, isAnnounced: () => true })),
  levels: ["compact", "full"],
  interpreted: {
    v1: [["toolCall"], ["toolCall", "toolCallId"], ["options"], ["options", "*"], ["options", "*", "kind"]],
    v2: [
      ["title"],
      ["description"],
      ["options"],
      ["options", "*"],
      ["options", "*", "kind"],
      ["subject"],
      ["subject", "type"],
      ["subject", "toolCall"],
      ["subject", "command"],
      ["subject", "cwd"],
    ],
  },
});

convertsLosslessly<v1.RequestPermissionResponse, v2.RequestPermissionResponse>({
  name: "T §4 RequestPermissionResponse",
  v1: { schema: "v1", def: "RequestPermissionResponse" },
  v2: { schema: "v2", def: "RequestPermissionResponse" },
  toV2: permissionResponseToV2,
  toV1: permissionResponseToV1,
  interpreted: { v1: [["outcome"], ["outcome", "outcome"]], v2: [["outcome"], ["outcome", "outcome"]] },
});

describe("T §4 v1 agent → B → v2 → A → v1 client: an unannounced tool call stays unannounced", () => {
  it("marks B's announcement and the request, so A announces nothing and restores the request exactly", () => {
    const params = {
      sessionId: "s",
      toolCall: { toolCallId: "tc9", title: "Run" },
      options: [{ optionId: "a", name: "Allow", kind: "allow_once" }],
    };
    const b = toV2(params, ctxV2({ seen: () => false }));
    expect(b.before).toHaveLength(1);
    expect(isPermissionPreAnnouncement(b.before[0])).toBe(true);
    const a = toV1(b.params, ctxV1({ isAnnounced: () => false }));
    expect(a.before).toEqual([]);
    expect(a.params).toEqual(params);
  });
});
