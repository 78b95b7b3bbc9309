import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import type { Conv } from "../../src/convert/result.js";
import type { ConvertOptions } from "../../src/convert/stash.js";
import { resolvePath } from "../../src/convert/paths.js";
import { defaultOptions } from "../support/conv.js";
import {
  fallbackTitle,
  restoresV1ToolCall,
  restoresV1Update,
  toolCallMessageToV2,
  toolCallStatusToV1,
  toolCallToV1,
  type ToolCallToV1Context,
  type ToolCallToV2Context,
  toolCallUpdateToV1,
  toolCallUpdateToV2,
  toolKindToV1,
  type V1ToolCallMessage,
} from "../../src/convert/tool-call.js";
import { arb } from "../support/arbitrary.js";
import { convertsLosslessly, diffPaths, norm, numRuns, options } from "../support/properties.js";
import type { DiffRendering } from "../../src/convert/diff-options.js";
import { expectValid } from "../support/schema.js";
import { value, within } from "../support/conv.js";
import { residualOf, unstash } from "../../src/convert/stash.js";

const compact: ConvertOptions = defaultOptions;
const off = options("off");
const full = options("full");
const CWD = "/w";

/** The value of a conversion, checked against the target schema (`[]`: each item of an array). */
function valid<T>(version: "v1" | "v2", def: string, r: Conv<T>): T {
  const x = value(r);
  if (Array.isArray(x)) for (const i of x) expectValid(version, def, i);
  else expectValid(version, def, x);
  return x;
}

// Content items, locations and v1 creations seen through the converters the engine runs: an
// update carrying them (`within` puts the losses and error fields back relative to the item).

function toolCallContentToV1(items: v2.ToolCallContent[], ctx: ToolCallToV1Context): Conv<v1.ToolCallContent[]> {
  return within(toolCallUpdateToV1({ toolCallId: "c", content: items }, ctx), ["content"]);
}

function toolCallContentToV2(items: v1.ToolCallContent[], ctx: ToolCallToV2Context): Conv<v2.ToolCallContent[]> {
  return within(toolCallUpdateToV2({ toolCallId: "c", content: items }, ctx), ["content"]);
}

function locationToV1(loc: v2.ToolCallLocation, opts: ConvertOptions): Conv<v1.ToolCallLocation> {
  return within(toolCallUpdateToV1({ toolCallId: "c", locations: [loc] }, { opts }), ["locations", 0]);
}

function locationToV2(
  loc: v1.ToolCallLocation,
  ctx: { readonly opts: ConvertOptions; readonly cwd?: string | undefined },
): Conv<v2.ToolCallLocation> {
  return within(toolCallUpdateToV2({ toolCallId: "c", locations: [loc] }, { ...ctx, seen: true }), ["locations", 0]);
}

/** A v1 `tool_call` as B sends it: its one v2 `tool_call_update`, without the tag. */
function toolCallToV2(tc: v1.ToolCall, ctx: ToolCallToV2Context): Conv<v2.ToolCallUpdate> {
  const r = toolCallMessageToV2({ sessionUpdate: "tool_call", ...tc }, ctx);
  if (!r.ok) return r;
  if (r.value.length !== 1) throw new Error(`expected one update, got ${JSON.stringify(r.value)}`);
  const u: Record<string, unknown> = { ...r.value[0] };
  delete u.sessionUpdate;
  return { ok: true, value: u as v2.ToolCallUpdate, lost: r.lost };
}

/** The v2 terminal A's v1 text item stands for, as B reads it back (the item's stash, then its block's). */
function terminalStashOf(item: v1.ToolCallContent): unknown {
  const src = item as Record<string, unknown>;
  const block = src.content as Record<string, unknown>;
  for (const meta of [src._meta, block._meta]) {
    const env = unstash(meta, 2).env;
    const terminal = residualOf(env, "terminal");
    if (terminal === undefined) continue;
    const bytes = residualOf(env, "bytes");
    return bytes === undefined ? { terminal } : { terminal, bytes };
  }
  return undefined;
}

function lostPaths<T>(r: Conv<T>): unknown[] {
  return r.ok ? r.lost.map((l) => l.path) : [];
}

function bridge(residual: Record<string, unknown> | undefined, extra: Record<string, unknown> = {}) {
  return { v: 1, from: 2, hadMeta: false, ...(residual ? { residual } : {}), ...extra };
}

// v1 `uri` fields are plain strings, v2 ones `format: uri`; the bridge passes them (T §3.1).
const URIS = ["file:///w/a.txt", "https://example.com/x?y=1", "urn:isbn:0451450523", "mcp://srv/res"];
function withUri(def: string): fc.Arbitrary<unknown> {
  return fc.tuple(arb("v1", def), fc.constantFrom(...URIS)).map(([v, uri]) => {
    const o = v as Record<string, unknown>;
    return typeof o.uri === "string" ? { ...o, uri } : o;
  });
}
/** v1 diffs name a file: diff.ts refuses an empty path, which no cwd resolves (T §3.3 B↓-1). */
const v1Overrides = {
  Diff: arb("v1", "Diff").map((d) => ((d as { path: string }).path === "" ? { ...(d as object), path: "f" } : d)),
  ResourceLink: withUri("ResourceLink"),
  ImageContent: withUri("ImageContent"),
  TextResourceContents: withUri("TextResourceContents"),
  BlobResourceContents: withUri("BlobResourceContents"),
};
const v1Arb = (def: string) => arb("v1", def, { overrides: v1Overrides });

describe("tool calls A↓: first sighting (T §2.4 A↓-1, §9 case 8)", () => {
  it("announces a title-less v2 tool call as a v1 tool_call with the kind label and synthetic title", () => {
    const r = toolCallToV1({ toolCallId: "c1", kind: "execute", status: "pending" }, { opts: compact });
    const out = value(r);
    expectValid("v1", "ToolCall", out);
    expect(out).toEqual({
      toolCallId: "c1",
      title: "Execute",
      kind: "execute",
      status: "pending",
      _meta: { "acp-bridge": bridge(undefined, { synthetic: ["title"] }) },
    });
    expect(lostPaths(r)).toEqual([["title"]]);
  });

  it("prefers the permission title, then the name, then the kind label, then a generic title", () => {
    expect(fallbackTitle({ toolCallId: "a", name: "grep", kind: "search" }, "Run grep?")).toBe("Run grep?");
    expect(fallbackTitle({ toolCallId: "a", name: "grep", kind: "search" })).toBe("grep");
    expect(fallbackTitle({ toolCallId: "a", name: "", kind: "search" })).toBe("Search");
    expect(fallbackTitle({ toolCallId: "a", kind: "_k" })).toBe("Tool call");
    expect(fallbackTitle({ toolCallId: "a", kind: "other" })).toBe("Tool call");
    const out = valid(
      "v1",
      "ToolCall",
      toolCallToV1({ toolCallId: "a", name: "grep" }, { opts: compact, titleHint: "Allow grep?" }),
    );
    expect(out.title).toBe("Allow grep?");
  });

  it("keeps a concrete v2 title, even an empty one, without a stash", () => {
    const r = toolCallToV1({ toolCallId: "c", title: "" }, { opts: compact });
    expect(value(r)).toEqual({ toolCallId: "c", title: "" });
    expect(lostPaths(r)).toEqual([]);
  });

  it("omits v2 nulls a v1 tool_call cannot hold and names them in cleared", () => {
    const r = toolCallToV1(
      {
        toolCallId: "c",
        title: null,
        kind: null,
        status: null,
        content: null,
        locations: null,
        name: null,
        rawInput: null,
      },
      { opts: compact },
    );
    const out = value(r);
    expectValid("v1", "ToolCall", out);
    expect(out).toEqual({
      toolCallId: "c",
      title: "Tool call",
      name: null,
      rawInput: null,
      _meta: {
        "acp-bridge": bridge(
          { cleared: ["title", "kind", "status", "content", "locations"] },
          { synthetic: ["title"] },
        ),
      },
    });
    const back = valid("v2", "ToolCallUpdate", toolCallToV2(out, { opts: compact, seen: false }));
    expect(back).toEqual({
      toolCallId: "c",
      title: null,
      kind: null,
      status: null,
      content: null,
      locations: null,
      name: null,
      rawInput: null,
    });
  });
});

describe("tool calls A↓: later updates (T §2.4 A↓-2 null table, §9 case 8)", () => {
  it("maps v2 nulls to their v1 meaning and stashes which fields were cleared", () => {
    const u: v2.ToolCallUpdate = {
      toolCallId: "c",
      kind: null,
      status: null,
      content: null,
      locations: null,
      title: null,
      rawOutput: null,
      name: null,
      rawInput: null,
      _meta: null,
    };
    const r = toolCallUpdateToV1(u, { opts: compact });
    const out = value(r);
    expectValid("v1", "ToolCallUpdate", out);
    expect(out).toEqual({
      toolCallId: "c",
      kind: "other",
      status: "pending",
      content: [],
      locations: [],
      title: "",
      _meta: {
        "acp-bridge": bridge({
          cleared: ["title", "kind", "status", "content", "locations", "name", "rawInput", "rawOutput", "_meta"],
        }),
      },
    });
    expect(lostPaths(r)).toHaveLength(9);
    expect(valid("v2", "ToolCallUpdate", toolCallUpdateToV2(out, { opts: compact, seen: true }))).toEqual(u);
  });

  it("never forwards capabilities: they ride in the stash", () => {
    const u: v2.ToolCallUpdate = { toolCallId: "c", status: "in_progress", capabilities: { cancel: {} } };
    const r = toolCallUpdateToV1(u, { opts: compact });
    expect(value(r)).toEqual({
      toolCallId: "c",
      status: "in_progress",
      _meta: { "acp-bridge": bridge({ capabilities: { cancel: {} } }) },
    });
    expect(lostPaths(r)).toEqual([["capabilities"]]);
    expect(valid("v1", "ToolCallUpdate", toolCallUpdateToV1(u, { opts: off }))).toEqual({
      toolCallId: "c",
      status: "in_progress",
    });
    expect(valid("v2", "ToolCallUpdate", toolCallUpdateToV2(value(r), { opts: compact, seen: true }))).toEqual(u);
  });

  it("passes concrete fields and unknown keys through, keeping the caller's _meta", () => {
    const u = {
      toolCallId: "c",
      title: "Read a.ts",
      name: "read",
      kind: "read",
      status: "completed",
      rawInput: { path: "/a.ts" },
      rawOutput: "ok",
      locations: [{ path: "/w/a.ts", line: 3 }],
      content: [{ type: "content", content: { type: "text", text: "x" } }],
      zzVendor: 1,
      _meta: { trace: 1 },
    } as v2.ToolCallUpdate;
    const r = toolCallUpdateToV1(u, { opts: compact });
    expect(value(r)).toEqual(u);
    expect(lostPaths(r)).toEqual([]);
  });
});

describe("enum downgrades (T §3.4, §6 ToolKind / ToolCallStatus, §9 case 7)", () => {
  it("downgrades kinds and statuses per the table", () => {
    expect(toolKindToV1("_k")).toEqual({ value: "other", changed: true });
    expect(toolKindToV1("future_kind")).toEqual({ value: "other", changed: true });
    expect(toolKindToV1("switch_mode")).toEqual({ value: "switch_mode", changed: false });
    expect(toolCallStatusToV1("paused")).toEqual({ value: "in_progress", changed: true });
    expect(toolCallStatusToV1("cancelled")).toEqual({ value: "failed", changed: true });
    expect(toolCallStatusToV1("_waiting")).toEqual({ value: "in_progress", changed: true });
    expect(toolCallStatusToV1("completed")).toEqual({ value: "completed", changed: false });
  });

  it("sends kind _k as other, status paused as in_progress and content _widget as a placeholder, all v1-valid", () => {
    const u = {
      toolCallId: "c",
      kind: "_k",
      status: "paused",
      content: [{ type: "_widget", w: 1 }],
    } as unknown as v2.ToolCallUpdate;
    const r = toolCallUpdateToV1(u, { opts: compact });
    const out = value(r);
    expectValid("v1", "ToolCallUpdate", out);
    expect(out).toEqual({
      toolCallId: "c",
      kind: "other",
      status: "in_progress",
      content: [
        {
          type: "content",
          content: { type: "text", text: "[unsupported tool output: _widget]" },
          _meta: { "acp-bridge": bridge({ raw: { type: "_widget", w: 1 } }) },
        },
      ],
      _meta: { "acp-bridge": bridge({ kind: "_k", status: "paused" }) },
    });
    expect(lostPaths(r)).toEqual([["kind"], ["status"], ["content", 0]]);
    expect(valid("v2", "ToolCallUpdate", toolCallUpdateToV2(out, { opts: compact, seen: true }))).toEqual(u);
  });

  it("sends a cancelled tool call to v1 as failed and restores cancelled (T §9 case 5)", () => {
    const out = valid(
      "v1",
      "ToolCallUpdate",
      toolCallUpdateToV1({ toolCallId: "c", status: "cancelled" }, { opts: compact }),
    );
    expect(out.status).toBe("failed");
    expect(valid("v2", "ToolCallUpdate", toolCallUpdateToV2(out, { opts: compact, seen: true })).status).toBe(
      "cancelled",
    );
  });
});

describe("tool-call content A↓ (T §3.2, §2.5)", () => {
  it("shows a display terminal as a placeholder text with the terminal stash on the block", () => {
    const items = [{ type: "terminal", terminalId: "t1", _meta: { k: 1 } }] as v2.ToolCallContent[];
    const r = toolCallContentToV1(items, { opts: compact });
    const out = value(r);
    out.forEach((i) => expectValid("v1", "ToolCallContent", i));
    expect(out).toEqual([
      {
        type: "content",
        content: {
          type: "text",
          text: "[terminal t1]",
          _meta: { "acp-bridge": bridge({ terminal: { terminalId: "t1" } }) },
        },
        _meta: { k: 1 },
      },
    ]);
    expect(lostPaths(r)).toEqual([[0]]);
    expect(terminalStashOf(out[0]!)).toEqual({ terminal: { terminalId: "t1" } });
    expect(valid("v2", "ToolCallContent", toolCallContentToV2(out, { opts: compact, seen: true }))).toEqual(items);
  });

  it("uses the engine's terminal renderer when there is one", () => {
    const rendered: v1.ToolCallContent = {
      type: "content",
      content: {
        type: "text",
        text: "```\n$ ls\na\n```",
        _meta: {
          "acp-bridge": {
            v: 1,
            from: 2,
            hadMeta: false,
            residual: { terminal: { terminalId: "t2", command: "ls" }, bytes: "YQo=" },
          },
        },
      },
    };
    const out = valid(
      "v1",
      "ToolCallContent",
      toolCallContentToV1([{ type: "terminal", terminalId: "t2" }], { opts: compact, renderTerminal: () => rendered }),
    );
    expect(out).toEqual([rendered]);
    expect(terminalStashOf(out[0]!)).toEqual({ terminal: { terminalId: "t2", command: "ls" }, bytes: "YQo=" });
    expect(valid("v2", "ToolCallContent", toolCallContentToV2(out, { opts: compact, seen: true }))).toEqual([
      { type: "terminal", terminalId: "t2" },
    ]);
    const ext = toolCallContentToV1([{ type: "terminal", terminalId: "t3" }], {
      opts: compact,
      renderTerminal: (id) => ({ type: "terminal", terminalId: id }),
    });
    expect(value(ext)).toEqual([{ type: "terminal", terminalId: "t3" }]);
    expect(lostPaths(ext)).toEqual([]);
  });

  it("converts the blocks inside content items and prefixes their errors with the item", () => {
    const r = toolCallContentToV1(
      [{ type: "content", content: { type: "resource_link", name: "n", uri: "file:///n", icons: [] } }],
      { opts: off },
    );
    expect(value(r)).toEqual([{ type: "content", content: { type: "resource_link", name: "n", uri: "file:///n" } }]);
    expect(lostPaths(r)).toEqual([[0, "content", "icons"]]);
    const bad = toolCallUpdateToV1(
      {
        toolCallId: "c",
        content: [{ type: "content", content: { type: "text", text: 1 } } as unknown as v2.ToolCallContent],
      },
      { opts: compact },
    );
    if (bad.ok) throw new Error("expected an error");
    expect(bad.error).toMatchObject({
      code: -32602,
      data: { reason: "expected_string", field: "content[0].content.text" },
    });
  });
});

describe("tool-call content B↓ (T §3.2, §2.5 B↓)", () => {
  it("shows a v1 client terminal without the extension as text and stashes the raw item", () => {
    const items: v1.ToolCallContent[] = [{ type: "terminal", terminalId: "term-1" }];
    const r = toolCallContentToV2(items, { opts: compact, seen: true });
    const out = value(r);
    out.forEach((i) => expectValid("v2", "ToolCallContent", i));
    expect(out).toEqual([
      {
        type: "content",
        content: { type: "text", text: "[terminal term-1: output not available]" },
        _meta: { "acp-bridge": { v: 1, from: 1, hadMeta: false, residual: { raw: items[0] } } },
      },
    ]);
    expect(lostPaths(r)).toEqual([[0]]);
    expect(valid("v1", "ToolCallContent", toolCallContentToV1(out, { opts: compact }))).toEqual(items);
  });

  it("keeps a terminal announced through the _meta.terminal_info extension as a v2 terminal", () => {
    const items: v1.ToolCallContent[] = [{ type: "terminal", terminalId: "term-1" }];
    const out = valid(
      "v2",
      "ToolCallContent",
      toolCallContentToV2(items, { opts: compact, seen: true, extensionTerminals: new Set(["term-1"]) }),
    );
    expect(out).toEqual(items);
  });

  it("resolves a relative diff path against the session cwd", () => {
    const items: v1.ToolCallContent[] = [{ type: "diff", path: "src/a.ts", oldText: "a\n", newText: "b\n" }];
    const out = valid("v2", "ToolCallContent", toolCallContentToV2(items, { opts: compact, seen: true, cwd: CWD }));
    expectValid("v2", "ToolCallContent", out[0]);
    expect(out[0]).toMatchObject({ type: "diff", changes: [{ operation: "modify", path: "/w/src/a.ts" }] });
  });

  it("restores a v2 diff that A split into several v1 items once", () => {
    const diff = {
      type: "diff",
      changes: [
        { operation: "add", path: "/w/a", fileType: "text" },
        { operation: "move", oldPath: "/w/b", path: "/w/c" },
      ],
      patch: {
        format: "git_patch",
        text: "diff --git /w/a /w/a\nnew file mode 100644\n--- /dev/null\n+++ /w/a\n@@ -0,0 +1 @@\n+x\n",
      },
    } as v2.ToolCallContent;
    const items = [diff, { type: "content", content: { type: "text", text: "after" } }] as v2.ToolCallContent[];
    for (const diffRendering of ["full", "safe", "hunks", "text"] as const) {
      const v1Items = valid("v1", "ToolCallContent", toolCallContentToV1(items, { opts: compact, diffRendering }));
      v1Items.forEach((i) => expectValid("v1", "ToolCallContent", i));
      expect(valid("v2", "ToolCallContent", toolCallContentToV2(v1Items, { opts: compact, seen: true }))).toEqual(
        items,
      );
    }
  });
});

describe("tool calls B↓ (T §2.4 B↓-1..3, §9 case 15)", () => {
  const tc: v1.ToolCall = { toolCallId: "c", title: "Run ls", kind: "execute", status: "pending" };

  it("sends an unseen v1 tool_call as a v2 tool_call_update with its fields", () => {
    const r = toolCallToV2(tc, { opts: compact, seen: false });
    expectValid("v2", "ToolCallUpdate", value(r));
    expect(value(r)).toEqual(tc);
    expect(lostPaths(r)).toEqual([]);
  });

  it("sends a re-sent v1 tool_call as nulls for its absent fields, restorable as the same tool_call", () => {
    const r = toolCallToV2(tc, { opts: compact, seen: true });
    const out = value(r);
    expectValid("v2", "ToolCallUpdate", out);
    expect(out).toEqual({
      ...tc,
      name: null,
      content: null,
      locations: null,
      rawInput: null,
      rawOutput: null,
      _meta: {
        "acp-bridge": {
          v: 1,
          from: 1,
          hadMeta: false,
          residual: { op: "tool_call" },
          synthetic: ["name", "content", "locations", "rawInput", "rawOutput"],
        },
      },
    });
    expect(valid("v2", "ToolCallUpdate", toolCallToV2(tc, { opts: off, seen: true }))).toEqual({
      ...tc,
      name: null,
      content: null,
      locations: null,
      rawInput: null,
      rawOutput: null,
    });
    expect(restoresV1ToolCall(out)).toBe(true);
    expect(valid("v1", "ToolCallUpdate", toolCallUpdateToV1(out, { opts: compact }))).toEqual(tc);
    expect(valid("v1", "ToolCall", toolCallToV1(out, { opts: compact }))).toEqual(tc);
    const wrapped = valid(
      "v2",
      "SessionUpdate",
      toolCallMessageToV2({ sessionUpdate: "tool_call", ...tc }, { opts: compact, seen: true }),
    );
    expect(wrapped).toEqual([{ sessionUpdate: "tool_call_update", ...out }]);
  });

  it("drops v1 nulls (unchanged) and remembers them for the way back", () => {
    const u: v1.ToolCallUpdate = {
      toolCallId: "c",
      title: null,
      kind: null,
      status: "completed",
      content: null,
      _meta: null,
    };
    const r = toolCallUpdateToV2(u, { opts: compact, seen: true });
    const out = value(r);
    expectValid("v2", "ToolCallUpdate", out);
    expect(out).toEqual({
      toolCallId: "c",
      status: "completed",
      _meta: {
        "acp-bridge": { v: 1, from: 1, hadMeta: false, residual: { nulls: ["title", "kind", "content", "_meta"] } },
      },
    });
    expect(lostPaths(r)).toEqual([["title"], ["kind"], ["content"], ["_meta"]]);
    expect(valid("v2", "ToolCallUpdate", toolCallUpdateToV2(u, { opts: off, seen: true }))).toEqual({
      toolCallId: "c",
      status: "completed",
    });
    expect(valid("v1", "ToolCallUpdate", toolCallUpdateToV1(out, { opts: compact }))).toEqual(u);
  });

  it("removes a synthetic title when restoring a creation A made", () => {
    const v1tc = valid("v1", "ToolCall", toolCallToV1({ toolCallId: "c", kind: "read" }, { opts: compact }));
    expect(valid("v2", "ToolCallUpdate", toolCallToV2(v1tc, { opts: compact, seen: false }))).toEqual({
      toolCallId: "c",
      kind: "read",
    });
  });

  it("drops A's synthetic tool call of a permission subject", () => {
    const synthetic = {
      sessionUpdate: "tool_call",
      toolCallId: "perm-1",
      title: "Run rm",
      kind: "execute",
      _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, synthetic: ["toolCall"] } },
    } as V1ToolCallMessage;
    const r = toolCallMessageToV2(synthetic, { opts: compact, seen: false });
    expect(valid("v2", "SessionUpdate", r)).toEqual([]);
    expect(r.ok && r.lost).toEqual([{ path: [], reason: "bridge-made tool call of a permission subject" }]);
  });
});

describe("tool_call_content_chunk (T §2.4 A↓-3 and B↓-3, §9 case 9)", () => {
  const x = { type: "content", content: { type: "text", text: "X" } } as v2.ToolCallContent;
  const y = { type: "content", content: { type: "text", text: "Y" } } as v2.ToolCallContent;
  const z = { type: "content", content: { type: "text", text: "Z" } } as v2.ToolCallContent;
  const chunk = (content: v2.ToolCallContent, extra: Record<string, unknown> = {}) =>
    ({ sessionUpdate: "tool_call_content_chunk", toolCallId: "c", content, ...extra }) as const;

  it("sends accumulated chunks as one v1 update with the whole content and op content_chunk", () => {
    const chunks = [chunk(x), chunk(y), chunk(z, { _meta: { seq: 3 } })];
    const out = valid(
      "v1",
      "ToolCallUpdate",
      toolCallUpdateToV1({ toolCallId: "c", content: [x, y, z] }, { opts: compact, chunks }),
    );
    expectValid("v1", "ToolCallUpdate", out);
    expect(out).toEqual({
      toolCallId: "c",
      content: [x, y, z],
      _meta: { "acp-bridge": bridge({ op: "content_chunk", count: 3, chunks: [{}, {}, { _meta: { seq: 3 } }] }) },
    });
    const back = valid(
      "v2",
      "SessionUpdate",
      toolCallMessageToV2(
        { sessionUpdate: "tool_call_update", ...out },
        { opts: compact, seen: true, lastContent: [] },
      ),
    );
    expect(back).toEqual(chunks);
  });

  it("restores only the appended chunks after a full update, and the full update when lastContent differs", () => {
    const out = valid(
      "v1",
      "ToolCallUpdate",
      toolCallUpdateToV1({ toolCallId: "c", content: [x, y] }, { opts: compact, chunks: [chunk(y)] }),
    );
    const msg = { sessionUpdate: "tool_call_update", ...out } as V1ToolCallMessage;
    expect(
      valid("v2", "SessionUpdate", toolCallMessageToV2(msg, { opts: compact, seen: true, lastContent: [x] })),
    ).toEqual([chunk(y)]);
    expect(
      valid("v2", "SessionUpdate", toolCallMessageToV2(msg, { opts: compact, seen: true, lastContent: [z] })),
    ).toEqual([{ sessionUpdate: "tool_call_update", toolCallId: "c", content: [x, y] }]);
    expect(valid("v2", "SessionUpdate", toolCallMessageToV2(msg, { opts: compact, seen: true }))).toEqual([
      { sessionUpdate: "tool_call_update", toolCallId: "c", content: [x, y] },
    ]);
  });

  it("announces a tool call first seen through a chunk as a v1 tool_call that restores to the chunk", () => {
    const out = valid(
      "v1",
      "ToolCall",
      toolCallToV1({ toolCallId: "c", content: [x] }, { opts: compact, chunks: [chunk(x)] }),
    );
    expectValid("v1", "ToolCall", out);
    expect(out.title).toBe("Tool call");
    const back = valid(
      "v2",
      "SessionUpdate",
      toolCallMessageToV2({ sessionUpdate: "tool_call", ...out }, { opts: compact, seen: false }),
    );
    expect(back).toEqual([chunk(x)]);
  });

  it("emits chunks for a plain v1 update that only appends, when emitContentChunks is on (B↓-4)", () => {
    const v1x = { type: "content", content: { type: "text", text: "X" } } as v1.ToolCallContent;
    const v1y = { type: "content", content: { type: "text", text: "Y" } } as v1.ToolCallContent;
    const msg = { sessionUpdate: "tool_call_update", toolCallId: "c", content: [v1x, v1y] } as V1ToolCallMessage;
    expect(
      valid(
        "v2",
        "SessionUpdate",
        toolCallMessageToV2(msg, { opts: compact, seen: true, lastContent: [x], emitContentChunks: true }),
      ),
    ).toEqual([chunk(y)]);
    expect(
      valid("v2", "SessionUpdate", toolCallMessageToV2(msg, { opts: compact, seen: true, lastContent: [x] })),
    ).toHaveLength(1);
  });

  it("restores the chunks exactly for any split of any content (direct property)", () => {
    const item = arb("v2", "ToolCallContent") as fc.Arbitrary<v2.ToolCallContent>;
    const meta = fc.option(
      fc.dictionary(
        fc.string({ maxLength: 4 }).filter((k) => k !== "acp-bridge"),
        fc.jsonValue({ maxDepth: 1 }),
      ),
      {
        nil: undefined,
      },
    );
    fc.assert(
      fc.property(
        fc.array(item, { maxLength: 4 }),
        fc.array(fc.tuple(item, meta), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        fc.constantFrom<ConvertOptions>(compact, full),
        (before, appended, announced, opts) => {
          const chunks = appended.map(([c, m]) => chunk(c, m === undefined ? {} : { _meta: m }));
          const content = [...before, ...appended.map(([c]) => c)];
          const lastContent = announced ? before : [];
          const u = { toolCallId: "c", content };
          const v1u = announced
            ? valid("v1", "ToolCallUpdate", toolCallUpdateToV1(u, { opts, chunks }))
            : valid("v1", "ToolCall", toolCallToV1(u, { opts, chunks }));
          expectValid("v1", announced ? "ToolCallUpdate" : "ToolCall", v1u);
          const msg = { sessionUpdate: announced ? "tool_call_update" : "tool_call", ...v1u } as V1ToolCallMessage;
          const back = valid(
            "v2",
            "SessionUpdate",
            toolCallMessageToV2(msg, { opts, seen: announced, lastContent, cwd: CWD }),
          );
          const expected = announced || before.length === 0 ? chunks : [{ sessionUpdate: "tool_call_update", ...u }];
          expect(norm(back)).toEqual(norm(expected));
          for (const m of back) expectValid("v2", "SessionUpdate", m);
        },
      ),
      { numRuns: numRuns() },
    );
  });
});

describe("locations (T §3.4)", () => {
  it("sends line 0 to v2 as null and stashes it on the location", () => {
    const r = locationToV2({ path: "/w/a.ts", line: 0 }, { opts: compact });
    const out = value(r);
    expectValid("v2", "ToolCallLocation", out);
    expect(out).toEqual({
      path: "/w/a.ts",
      line: null,
      _meta: { "acp-bridge": { v: 1, from: 1, hadMeta: false, residual: { line: 0 } } },
    });
    expect(valid("v1", "ToolCallLocation", locationToV1(out, compact))).toEqual({ path: "/w/a.ts", line: 0 });
  });

  it("resolves a relative path against the session cwd and stashes the original", () => {
    const r = locationToV2({ path: "src/../b.ts", line: 4, _meta: { x: 1 } }, { opts: compact, cwd: CWD });
    const out = value(r);
    expect(out).toEqual({
      path: "/w/b.ts",
      line: 4,
      _meta: { x: 1, "acp-bridge": { v: 1, from: 1, hadMeta: true, residual: { path: "src/../b.ts" } } },
    });
    expect(lostPaths(r)).toEqual([["path"]]);
    expect(valid("v1", "ToolCallLocation", locationToV1(out, compact))).toEqual({
      path: "src/../b.ts",
      line: 4,
      _meta: { x: 1 },
    });
  });

  it("resolves against a Windows cwd in its own syntax and never against the bridge's cwd", () => {
    expect(resolvePath("C:\\proj", "src\\a.ts")).toBe("C:\\proj\\src\\a.ts");
    expect(resolvePath("/w", "/abs")).toBeUndefined();
    expect(resolvePath("relative", "a")).toBeUndefined();
    expect(valid("v2", "ToolCallLocation", locationToV2({ path: "a.ts" }, { opts: compact }))).toEqual({
      path: "a.ts",
    });
  });

  it("passes v2 locations to v1 unchanged", () => {
    const loc: v2.ToolCallLocation = { path: "/w/a", line: 1, _meta: null };
    const r = locationToV1(loc, compact);
    expect(value(r)).toEqual(loc);
    expect(lostPaths(r)).toEqual([]);
  });
});

// ---- properties ----

const toolCallInterpretedV2 = [
  ["toolCallId"],
  ["title"],
  ["name"],
  ["kind"],
  ["status"],
  ["content"],
  ["content", "*"],
  ["content", "*", "type"],
  ["content", "*", "terminalId"],
  ["locations"],
  ["locations", "*"],
  ["locations", "*", "path"],
  ["locations", "*", "line"],
];

describe("ToolCallLocation v1 ⇄ v2 (T §3.4)", () => {
  convertsLosslessly<v1.ToolCallLocation, v2.ToolCallLocation>({
    name: "ToolCallLocation",
    v1: { schema: "v1", def: "ToolCallLocation" },
    v2: { schema: "v2", def: "ToolCallLocation" },
    toV2: (x, o) => locationToV2(x, { opts: o, cwd: CWD }),
    toV1: (x, o) => locationToV1(x, o),
    interpreted: { v1: [["path"], ["line"]], v2: [["path"], ["line"]] },
  });
});

describe("ToolCallContent v1 ⇄ v2 (T §3.2; single items, arrays below)", () => {
  const single = <T>(r: Conv<T[]>): Conv<T> => {
    if (!r.ok) return r;
    if (r.value.length !== 1) throw new Error(`expected one item, got ${JSON.stringify(r.value)}`);
    return { ok: true, value: r.value[0]!, lost: r.lost.map((l) => ({ ...l, path: l.path.slice(1) })) };
  };
  convertsLosslessly<v1.ToolCallContent, v2.ToolCallContent>({
    name: "ToolCallContent (non-diff)",
    v1: {
      schema: "v1",
      def: "ToolCallContent",
      arb: (v1Arb("ToolCallContent") as fc.Arbitrary<v1.ToolCallContent>).filter((i) => i.type !== "diff"),
    },
    v2: {
      schema: "v2",
      def: "ToolCallContent",
      arb: (arb("v2", "ToolCallContent") as fc.Arbitrary<v2.ToolCallContent>).filter((i) => i.type !== "diff"),
    },
    toV2: (x, o) => single(toolCallContentToV2([x], { opts: o, seen: true, cwd: CWD })),
    toV1: (x, o) => single(toolCallContentToV1([x], { opts: o })),
    interpreted: {
      v1: [["type"], ["content"], ["content", "type"], ["terminalId"]],
      v2: [["type"], ["content"], ["content", "type"], ["terminalId"]],
    },
  });
});

describe("ToolCallContent arrays v1 ⇄ v2, diffs included (T §3.2, §3.3 restore by group)", () => {
  const renderings = fc.constantFrom<DiffRendering>("full", "safe", "hunks", "text");
  const v2Items = fc.array(arb("v2", "ToolCallContent") as fc.Arbitrary<v2.ToolCallContent>, { maxLength: 4 });
  const v1Items = fc.array(v1Arb("ToolCallContent") as fc.Arbitrary<v1.ToolCallContent>, { maxLength: 4 });
  const prefix = (p: readonly unknown[], q: readonly unknown[]) =>
    p.length <= q.length && p.every((x, i) => String(x) === String(q[i]));

  it("v2 → v1 gives valid v1 items and comes back as the same array with the stash on", () => {
    fc.assert(
      fc.property(v2Items, renderings, fc.constantFrom(compact, full), (items, diffRendering, opts) => {
        const out = valid("v1", "ToolCallContent", toolCallContentToV1(items, { opts, diffRendering }));
        for (const i of out) expectValid("v1", "ToolCallContent", i);
        expect(norm(valid("v2", "ToolCallContent", toolCallContentToV2(out, { opts, seen: true, cwd: CWD })))).toEqual(
          norm(items),
        );
      }),
      { numRuns: numRuns() },
    );
  });

  it("v1 → v2 gives valid v2 items and comes back as the same array with the stash on", () => {
    fc.assert(
      fc.property(v1Items, fc.constantFrom(compact, full), (items, opts) => {
        const out = valid("v2", "ToolCallContent", toolCallContentToV2(items, { opts, seen: true, cwd: CWD }));
        for (const i of out) expectValid("v2", "ToolCallContent", i);
        expect(norm(valid("v1", "ToolCallContent", toolCallContentToV1(out, { opts })))).toEqual(norm(items));
      }),
      { numRuns: numRuns() },
    );
  });

  it("with the stash off, both round trips differ only where a loss was reported", () => {
    fc.assert(
      fc.property(v2Items, v1Items, renderings, (a, b, diffRendering) => {
        const a1 = toolCallContentToV1(a, { opts: off, diffRendering });
        const a2 = toolCallContentToV2(value(a1), { opts: off, seen: true, cwd: CWD });
        const b1 = toolCallContentToV2(b, { opts: off, seen: true, cwd: CWD });
        const b2 = toolCallContentToV1(value(b1), { opts: off, diffRendering });
        const legs: [unknown, Conv<unknown[]>, Conv<unknown[]>][] = [
          [a, a1, a2],
          [b, b1, b2],
        ];
        for (const [src, r1, r2] of legs) {
          const lost = [...lostPaths(r1), ...lostPaths(r2)] as unknown[][];
          const diffs = diffPaths(norm(src), norm(value(r2)));
          expect(JSON.stringify(value(r1))).not.toContain('"acp-bridge"');
          for (const d of diffs)
            expect(
              lost.some((l) => prefix(l, d) || prefix(d, l)),
              `unreported ${JSON.stringify(d)}`,
            ).toBe(true);
        }
      }),
      { numRuns: numRuns() },
    );
  });
});

describe("ToolCall (v1) ⇄ ToolCallUpdate (v2, unseen) (T §2.4 A↓-1, B↓-1)", () => {
  const pair = {
    v2: { schema: "v2", def: "ToolCallUpdate" },
    toV2: (x: v1.ToolCall, o: ConvertOptions) => toolCallToV2(x, { opts: o, seen: false, cwd: CWD }),
    toV1: (x: v2.ToolCallUpdate, o: ConvertOptions) => toolCallToV1(x, { opts: o }),
    interpreted: { v1: toolCallInterpretedV2, v2: toolCallInterpretedV2 },
  } as const;
  convertsLosslessly<v1.ToolCall, v2.ToolCallUpdate>({
    ...pair,
    name: "ToolCall creation",
    v1: { schema: "v1", def: "ToolCall", arb: v1Arb("ToolCall") as fc.Arbitrary<v1.ToolCall> },
    levels: ["compact", "full"],
  });
  convertsLosslessly<v1.ToolCall, v2.ToolCallUpdate>({
    ...pair,
    name: "ToolCall creation with v1 diffs of existing files",
    v1: { schema: "v1", def: "ToolCall", arb: v1Arb("ToolCall") as fc.Arbitrary<v1.ToolCall> },
    skip: { v2RoundTrip: "the same v2 leg as the pair above" },
    levels: ["full"],
  });
});

describe("ToolCallUpdate v1 ⇄ v2 (T §2.4 A↓-2, B↓-2)", () => {
  const pair = {
    v2: { schema: "v2", def: "ToolCallUpdate" },
    toV2: (x: v1.ToolCallUpdate, o: ConvertOptions) => toolCallUpdateToV2(x, { opts: o, seen: true, cwd: CWD }),
    toV1: (x: v2.ToolCallUpdate, o: ConvertOptions) => toolCallUpdateToV1(x, { opts: o }),
    interpreted: { v1: toolCallInterpretedV2, v2: toolCallInterpretedV2 },
  } as const;
  convertsLosslessly<v1.ToolCallUpdate, v2.ToolCallUpdate>({
    ...pair,
    name: "ToolCallUpdate",
    v1: {
      schema: "v1",
      def: "ToolCallUpdate",
      arb: v1Arb("ToolCallUpdate") as fc.Arbitrary<v1.ToolCallUpdate>,
    },
    levels: ["compact", "full"],
  });
  convertsLosslessly<v1.ToolCallUpdate, v2.ToolCallUpdate>({
    ...pair,
    name: "ToolCallUpdate with v1 diffs of existing files",
    v1: { schema: "v1", def: "ToolCallUpdate", arb: v1Arb("ToolCallUpdate") as fc.Arbitrary<v1.ToolCallUpdate> },
    skip: { v2RoundTrip: "the same v2 leg as the pair above" },
    levels: ["full"],
  });
});

describe("a re-sent v1 tool_call (T §2.4 B↓-1, seen)", () => {
  it("comes back from A as the same v1 tool_call (direct property)", () => {
    fc.assert(
      fc.property(v1Arb("ToolCall") as fc.Arbitrary<v1.ToolCall>, fc.constantFrom(compact, full), (tc, opts) => {
        const u = valid("v2", "ToolCallUpdate", toolCallToV2(tc, { opts, seen: true, cwd: CWD }));
        expectValid("v2", "ToolCallUpdate", u);
        expect(restoresV1ToolCall(u)).toBe(true);
        expect(norm(valid("v1", "ToolCallUpdate", toolCallUpdateToV1(u, { opts })))).toEqual(norm(tc));
      }),
      { numRuns: numRuns() },
    );
  });

  it("reports a loss wherever the stash-off round trip differs (direct property)", () => {
    fc.assert(
      fc.property(v1Arb("ToolCall") as fc.Arbitrary<v1.ToolCall>, (tc) => {
        const r1 = toolCallToV2(tc, { opts: off, seen: true, cwd: CWD });
        const back = toolCallUpdateToV1(value(r1), { opts: off });
        const reported = [...lostPaths(r1), ...lostPaths(back)] as (string | number)[][];
        for (const d of diffPaths(norm(tc), norm(value(back)))) {
          expect(
            reported.some(
              (p) => p.every((x, i) => String(x) === String(d[i])) || d.every((x, i) => String(x) === String(p[i])),
            ),
          ).toBe(true);
        }
      }),
      { numRuns: numRuns() },
    );
  });
});

describe("B↓ degradations a chained A undoes", () => {
  it("shows a v1 diff whose path cannot be made absolute as a text item, restored exactly by A", () => {
    const tc = { toolCallId: "c1", title: "Edit", content: [{ type: "diff", path: "", newText: "x" }] } as v1.ToolCall;
    const up = valid("v2", "ToolCallUpdate", toolCallToV2(tc, { opts: compact, seen: false, cwd: "/w" }));
    expect(up.content).toEqual([
      expect.objectContaining({ type: "content", content: { type: "text", text: "[unsupported tool output: diff]" } }),
    ]);
    expect(valid("v1", "ToolCall", toolCallToV1(up, { opts: compact }))).toEqual(tc);
  });

  it("marks a v1 update of an unseen tool call, so A sends it back as that update (not a tool_call)", () => {
    const u = { toolCallId: "c9", status: "completed" } as v1.ToolCallUpdate;
    const message = (seen: boolean) => {
      const r = toolCallMessageToV2({ sessionUpdate: "tool_call_update", ...u }, { opts: compact, seen });
      const up: Record<string, unknown> = { ...(r.ok ? r.value[0] : {}) };
      delete up.sessionUpdate;
      expectValid("v2", "ToolCallUpdate", up);
      return up as v2.ToolCallUpdate;
    };
    expect(restoresV1Update(message(false))).toBe(true);
    expect(valid("v1", "ToolCallUpdate", toolCallUpdateToV1(message(false), { opts: compact }))).toEqual(u);
    expect(restoresV1Update(message(true))).toBe(false);
  });

  it("drops A's re-render of terminal output (the terminal updates reach a chained B on the channel)", () => {
    const view = { toolCallId: "t1", content: [{ type: "terminal", terminalId: "term1" }] } as v2.ToolCallUpdate;
    const v1u = valid("v1", "ToolCallUpdate", toolCallUpdateToV1(view, { opts: compact, rerender: true }));
    expect((v1u as any)._meta["acp-bridge"].synthetic).toContain("rerender");
    const r = toolCallMessageToV2({ sessionUpdate: "tool_call_update", ...v1u }, { opts: compact, seen: true });
    expect(r.ok && r.value).toEqual([]);
  });
});
