import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { contentBlockToV1, contentBlockToV2, promptBlockToV1 } from "../../src/convert/content.js";
import type { Conv } from "../../src/convert/result.js";
import type { ConvertOptions } from "../../src/convert/stash.js";
import { defaultOptions } from "../support/conv.js";
import { arb } from "../support/arbitrary.js";
import { convertsLosslessly, options } from "../support/properties.js";
import { expectValid } from "../support/schema.js";
import { value } from "../support/conv.js";

const compact: ConvertOptions = defaultOptions;
const off = options("off");

/** The value of a conversion, checked against the target schema. */
function valid<T>(version: "v1" | "v2", r: Conv<T>): T {
  const x = value(r);
  expectValid(version, "ContentBlock", x);
  return x;
}

/** v1 `uri` fields are plain strings, v2 ones `format: uri`: the bridge passes them (T §3.1), so
 *  generate URIs (a v1 peer sending a non-URI is a peer error the bridge does not repair). */
const URIS = ["file:///w/a.txt", "https://example.com/x?y=1", "urn:isbn:0451450523", "mcp://srv/res"];
function withUri(def: string): fc.Arbitrary<unknown> {
  return fc.tuple(arb("v1", def), fc.constantFrom(...URIS)).map(([v, uri]) => {
    const o = v as Record<string, unknown>;
    return typeof o.uri === "string" ? { ...o, uri } : o;
  });
}
const v1UriOverrides = {
  ResourceLink: withUri("ResourceLink"),
  ImageContent: withUri("ImageContent"),
  TextResourceContents: withUri("TextResourceContents"),
  BlobResourceContents: withUri("BlobResourceContents"),
};

describe("content blocks A↓ v2 → v1 (T §3.1, §6 ContentBlock.type and Role)", () => {
  it("turns an unknown block type into a text placeholder that stashes the raw block", () => {
    const block = { type: "_widget", spec: { n: 1 }, _meta: { k: 1 } } as unknown as v2.ContentBlock;
    const r = contentBlockToV1(block, compact);
    const out = value(r);
    expectValid("v1", "ContentBlock", out);
    expect(out).toEqual({
      type: "text",
      text: "[unsupported content: _widget]",
      _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { raw: block } } },
    });
    expect(r.ok && r.lost).toEqual([{ path: [], reason: expect.any(String) }]);
  });

  it("restores the raw unknown block on the way back to v2", () => {
    const block = { type: "future_chart", data: [1, 2] } as unknown as v2.ContentBlock;
    const back = valid("v2", contentBlockToV2(valid("v1", contentBlockToV1(block, compact)), compact));
    expectValid("v2", "ContentBlock", back);
    expect(back).toEqual(block);
  });

  it("writes the placeholder without a stash when the stash is off, and still reports the loss", () => {
    const r = contentBlockToV1({ type: "_x" } as unknown as v2.ContentBlock, off);
    expect(value(r)).toEqual({ type: "text", text: "[unsupported content: _x]" });
    expect(r.ok && r.lost.length).toBe(1);
  });

  it("drops resource_link icons into the stash and restores them", () => {
    const link: v2.ContentBlock = {
      type: "resource_link",
      name: "a",
      uri: "file:///w/a",
      size: 12,
      icons: [{ src: "https://x/i.png", theme: "dark" }],
      _meta: { trace: "t" },
    };
    const r = contentBlockToV1(link, compact);
    const out = value(r);
    expectValid("v1", "ContentBlock", out);
    expect(out).toEqual({
      type: "resource_link",
      name: "a",
      uri: "file:///w/a",
      size: 12,
      _meta: { trace: "t", "acp-bridge": { v: 1, from: 2, hadMeta: true, residual: { icons: link.icons } } },
    });
    expect(r.ok && r.lost).toEqual([{ path: ["icons"], reason: expect.any(String) }]);
    expect(valid("v2", contentBlockToV2(out, compact))).toEqual(link);
  });

  it("removes unknown audience roles and stashes the original list on the annotations", () => {
    const block = {
      type: "text",
      text: "hi",
      annotations: { audience: ["user", "_reviewer", "assistant"], priority: 0.5 },
    } as v2.ContentBlock;
    const r = contentBlockToV1(block, compact);
    const out = value(r);
    expectValid("v1", "ContentBlock", out);
    expect(out).toEqual({
      type: "text",
      text: "hi",
      annotations: {
        audience: ["user", "assistant"],
        priority: 0.5,
        _meta: {
          "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { audience: ["user", "_reviewer", "assistant"] } },
        },
      },
    });
    expect(r.ok && r.lost).toEqual([{ path: ["annotations", "audience"], reason: expect.any(String) }]);
    expect(valid("v2", contentBlockToV2(out, compact))).toEqual(block);
  });

  it("leaves an audience of known roles, data, blobs and uris untouched", () => {
    const blocks: v2.ContentBlock[] = [
      {
        type: "image",
        data: "aGk=",
        mimeType: "image/png",
        uri: "https://x/y.png",
        annotations: { audience: ["user"] },
      },
      { type: "audio", data: "AAAA", mimeType: "audio/wav" },
      { type: "resource", resource: { uri: "file:///w/b.bin", blob: "AAEC", mimeType: "application/octet-stream" } },
      { type: "resource", resource: { uri: "file:///w/t.txt", text: "t" }, annotations: null },
    ];
    for (const b of blocks) {
      const r = contentBlockToV1(b, compact);
      expect(value(r)).toEqual(b);
      expect(r.ok && r.lost).toEqual([]);
      expectValid("v1", "ContentBlock", value(r));
    }
  });

  it("gives -32602 naming the field for a malformed known block", () => {
    const r = contentBlockToV1({ type: "text", text: 5 } as unknown as v2.ContentBlock, compact);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ code: -32602, data: { reason: "expected_string", field: "text" } });
    const a = contentBlockToV1(
      { type: "text", text: "", annotations: { audience: [1] } } as unknown as v2.ContentBlock,
      compact,
    );
    if (a.ok) throw new Error("expected an error");
    expect(a.error.data.field).toBe("annotations.audience[0]");
  });
});

describe("content blocks B↓ / A↑ v1 → v2 (T §3.1)", () => {
  it("passes a v1 prompt block through unchanged (A↑)", () => {
    const b: v1.ContentBlock = { type: "text", text: "fix it", annotations: { priority: 1, audience: ["user"] } };
    const r = contentBlockToV2(b, compact);
    expect(value(r)).toEqual(b);
    expect(r.ok && r.lost).toEqual([]);
  });

  it("clamps an out-of-range priority and stashes the original on the annotations", () => {
    const b: v1.ContentBlock = { type: "text", text: "x", annotations: { priority: 7.5, lastModified: "now" } };
    const r = contentBlockToV2(b, compact);
    const out = value(r);
    expectValid("v2", "ContentBlock", out);
    expect(out).toEqual({
      type: "text",
      text: "x",
      annotations: {
        priority: 1,
        lastModified: "now",
        _meta: { "acp-bridge": { v: 1, from: 1, hadMeta: false, residual: { priority: 7.5 } } },
      },
    });
    expect(r.ok && r.lost).toEqual([{ path: ["annotations", "priority"], reason: expect.any(String) }]);
    expect(valid("v1", contentBlockToV1(out, compact))).toEqual(b);
    expect(valid("v2", contentBlockToV2({ type: "text", text: "x", annotations: { priority: -2 } }, off))).toEqual({
      type: "text",
      text: "x",
      annotations: { priority: 0 },
    });
  });

  it("omits a negative resource_link size and restores it on the way back", () => {
    const b: v1.ContentBlock = { type: "resource_link", name: "n", uri: "file:///w/n", size: -1, _meta: null };
    const r = contentBlockToV2(b, compact);
    const out = value(r);
    expectValid("v2", "ContentBlock", out);
    expect(out).toEqual({
      type: "resource_link",
      name: "n",
      uri: "file:///w/n",
      _meta: { "acp-bridge": { v: 1, from: 1, hadMeta: false, metaWasNull: true, residual: { size: -1 } } },
    });
    expect(valid("v1", contentBlockToV1(out, compact))).toEqual(b);
  });

  it("leaves an envelope of an unknown stash version untouched", () => {
    const b = { type: "text", text: "x", _meta: { "acp-bridge": { v: 9, raw: { type: "_x" } } } } as v1.ContentBlock;
    expect(valid("v2", contentBlockToV2(b, compact))).toEqual(b);
  });
});

describe("prompt blocks B↑ v2 → v1 (T §3.1 prompt direction, §6)", () => {
  it("rejects an unknown prompt block type with -32602 instead of a placeholder", () => {
    const r = promptBlockToV1({ type: "_canvas", x: 1 } as unknown as v2.ContentBlock, compact);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe(-32602);
      expect(r.error.data).toMatchObject({ reason: "unknown_variant", field: "type", type: "_canvas" });
    }
  });

  it("converts known prompt blocks like any other block", () => {
    const b: v2.ContentBlock = { type: "resource_link", name: "a", uri: "file:///a", icons: null };
    const out = valid("v1", promptBlockToV1(b, compact));
    expectValid("v1", "ContentBlock", out);
    expect(valid("v2", contentBlockToV2(out, compact))).toEqual(b);
  });
});

describe("ContentBlock v1 ⇄ v2 (T §3.1)", () => {
  convertsLosslessly<v1.ContentBlock, v2.ContentBlock>({
    name: "ContentBlock",
    v1: {
      schema: "v1",
      def: "ContentBlock",
      arb: arb("v1", "ContentBlock", { overrides: v1UriOverrides }) as fc.Arbitrary<v1.ContentBlock>,
    },
    v2: { schema: "v2", def: "ContentBlock" },
    toV2: (x, o) => contentBlockToV2(x, o),
    toV1: (x, o) => contentBlockToV1(x, o),
    interpreted: {
      v1: [
        ["type"],
        ["text"],
        ["data"],
        ["name"],
        ["size"],
        ["resource"],
        ["resource", "uri"],
        ["annotations"],
        ["annotations", "priority"],
        ["annotations", "audience"],
        ["annotations", "audience", "*"],
      ],
      v2: [
        ["type"],
        ["text"],
        ["data"],
        ["name"],
        ["resource"],
        ["resource", "uri"],
        ["annotations"],
        ["annotations", "audience"],
        ["annotations", "audience", "*"],
      ],
    },
    levels: ["compact", "full"],
  });
});

describe("URIs v2 requires where v1 takes any string (B↓)", () => {
  const full: ConvertOptions = { ...defaultOptions, stash: "full" };
  for (const block of [
    { type: "resource_link", name: "notes", uri: "" },
    { type: "resource_link", name: "notes", uri: "my notes.txt" },
    { type: "image", data: "", mimeType: "image/png", uri: "a b" },
    { type: "resource", resource: { uri: "relative/path.md", text: "x" } },
  ]) {
    it(`stands in a valid URI for ${JSON.stringify(block)} and restores the v1 string`, () => {
      const r = contentBlockToV2(block as v1.ContentBlock, full);
      const v = value(r);
      expectValid("v2", "ContentBlock", v);
      expect(JSON.stringify(v)).toContain("urn:acp-bridge:invalid-uri:");
      expect(r.ok && r.lost.length).toBeGreaterThan(0);
      expect(value(contentBlockToV1(v, full))).toEqual(block);
    });
  }
  for (const uri of ["not a uri \ud800", "\udc00", "a\udc00\ud800b", "x\ud83d"])
    it(`stands in a valid URI for the lone surrogate(s) of ${JSON.stringify(uri)} and restores them from the stash`, () => {
      for (const block of [
        { type: "resource_link", name: "n", uri },
        { type: "image", data: "", mimeType: "image/png", uri },
        { type: "resource", resource: { uri, text: "x" } },
      ]) {
        const r = contentBlockToV2(block as v1.ContentBlock, full);
        const v = value(r);
        expectValid("v2", "ContentBlock", v);
        expect(JSON.stringify(v)).toContain("urn:acp-bridge:invalid-uri:");
        expect(JSON.stringify(v)).toContain("%EF%BF%BD");
        expect(value(contentBlockToV1(v, full))).toEqual(block);
      }
    });
});
