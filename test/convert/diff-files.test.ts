// Diffs made exact with the files' current text (docs/decisions.md#v2-diffs-toward-v1, T §3.3): A↓ gives a v1
// client the exact full texts by applying the patch forward (pending) or backward (applied), never a
// guess; B↓ places a v1 snippet in the real file for a true patch; a chained bridge restores the
// source item exactly from the stash at the default level.
import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diffTable } from "../../mappings/diff.js";
import {
  diffFilePaths,
  diffToV1,
  diffToV2,
  placeSnippet,
  type DiffStage,
  type FileTexts,
} from "../../src/convert/diff.js";
import type { DiffRendering } from "../../src/convert/diff-options.js";
import { applyHunks, gitPatchSection, parseGitPatch } from "../../src/convert/git-patch.js";
import type { ConvertOptions } from "../../src/convert/stash.js";
import { numRuns, options } from "../support/properties.js";
import { expectValid } from "../support/schema.js";

type Obj = Record<string, any>;
type V1Diff = Extract<v1.ToolCallContent, { type: "diff" }>;
type V2Diff = Extract<v2.ToolCallContent, { type: "diff" }>;

const runs = { numRuns: numRuns() };
const compact = options("compact");
const off = options("off");
const P = "/w/src/f.txt";

function toV1(
  item: unknown,
  files?: FileTexts,
  stage?: DiffStage,
  rendering: DiffRendering = "full",
  opts: ConvertOptions = compact,
): Obj[] {
  const r = diffToV1(item as V2Diff, { opts, rendering, group: 0, files, stage });
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  for (const i of r.value) expectValid("v1", "ToolCallContent", i);
  return r.value;
}

function toV2(item: unknown, files?: FileTexts, stage?: DiffStage, opts: ConvertOptions = compact): Obj {
  const r = diffToV2(item as V1Diff, { opts, cwd: "/w", files, stage });
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  expectValid("v2", "ToolCallContent", r.value);
  return r.value;
}

function modify(oldText: string, newText: string, path = P): Obj {
  return {
    type: "diff",
    changes: [{ operation: "modify", path, fileType: "text" }],
    patch: { format: "git_patch", text: gitPatchSection("modify", path, oldText, newText) },
  };
}

/** The v1 item without the bridge's stash: what a plain v1 client reads. */
function plain(item: Obj): Obj {
  const out = { ...item };
  delete out._meta;
  return out;
}

const lines = (n: number, tag = "l") => Array.from({ length: n }, (_, i) => `${tag}${i}\n`).join("");
const OLD = lines(20);
const NEW = OLD.replace("l10\n", "changed\n");

function patchOf(v2Item: Obj): string {
  return v2Item.patch.text as string;
}

/** The one section's hunks applied to `text`. */
function applyPatch(patch: string, text: string): string | undefined {
  const parsed = parseGitPatch(patch);
  if (!parsed.ok || parsed.sections.length !== 1) return undefined;
  return applyHunks(text, parsed.sections[0]!.hunks);
}

describe("v2 diff → v1 with the file's text (A↓, --diff-rendering full)", () => {
  it("gives the exact full texts of a pending edit: the patch applies forward to the file", () => {
    const out = toV1(modify(OLD, NEW), new Map([[P, OLD]]), "pending");
    expect(out.map(plain)).toEqual([{ type: "diff", path: P, oldText: OLD, newText: NEW }]);
    // No `partial` flag: these are the file texts.
    expect(out[0]!._meta["acp-bridge"].residual.partial).toBeUndefined();
  });

  it("gives the exact full texts of an applied edit: the patch applies backward to the file", () => {
    for (const stage of ["applied", undefined] as const) {
      const out = toV1(modify(OLD, NEW), new Map([[P, NEW]]), stage);
      expect(out.map(plain)).toEqual([{ type: "diff", path: P, oldText: OLD, newText: NEW }]);
    }
  });

  it("goes by what applies, not by the status: a completed tool whose file is still old", () => {
    const out = toV1(modify(OLD, NEW), new Map([[P, OLD]]), "applied");
    expect(out.map(plain)).toEqual([{ type: "diff", path: P, oldText: OLD, newText: NEW }]);
  });

  it("falls back to the hunk texts when the patch fits the file neither way, or the file is unknown", () => {
    const hunks = toV1(modify(OLD, NEW), undefined, undefined, "hunks");
    for (const files of [new Map([[P, "something else\n"]]), new Map<string, string>(), undefined]) {
      const out = toV1(modify(OLD, NEW), files, "pending");
      expect(out).toEqual(hunks);
      expect(out[0]).toMatchObject({ type: "diff", path: P, oldText: "l7\nl8\nl9\nl10\nl11\nl12\nl13\n" });
      expect(out[0]!._meta["acp-bridge"].residual.partial).toBe(true);
    }
  });

  it("settles a patch that reads both ways by the status, and never guesses without one", () => {
    const file = "a\na\n";
    const item = {
      type: "diff",
      changes: [{ operation: "modify", path: P }],
      patch: { format: "git_patch", text: `diff --git ${P} ${P}\n--- ${P}\n+++ ${P}\n@@ -1 +1,2 @@\n a\n+a\n` },
    };
    const files = new Map([[P, file]]);
    expect(toV1(item, files, "pending").map(plain)).toEqual([
      { type: "diff", path: P, oldText: file, newText: "a\na\na\n" },
    ]);
    expect(toV1(item, files, "applied").map(plain)).toEqual([{ type: "diff", path: P, oldText: "a\n", newText: file }]);
    const unsure = toV1(item, files, undefined);
    expect(unsure.map(plain)).toEqual([{ type: "diff", path: P, oldText: "a\n", newText: "a\na\n" }]);
    expect(unsure[0]!._meta["acp-bridge"].residual.partial).toBe(true);
  });

  it("gives a moved file's texts from the old path (pending) or the new one (applied), after the summary", () => {
    const to = "/w/src/g.txt";
    const section = gitPatchSection("modify", to, OLD, NEW).replace(
      `diff --git ${to} ${to}\n`,
      `diff --git ${P} ${to}\nrename from ${P}\nrename to ${to}\n`,
    );
    const item = {
      type: "diff",
      changes: [{ operation: "move", oldPath: P, path: to, fileType: "text" }],
      patch: { format: "git_patch", text: section.replace(`--- ${to}`, `--- ${P}`) },
    };
    for (const files of [new Map([[P, OLD]]), new Map([[to, NEW]])]) {
      const out = toV1(item, files);
      expect(out[0]!.content.text).toBe(`Moved \`${P}\` → \`${to}\``);
      expect(plain(out[1]!)).toEqual({ type: "diff", path: to, oldText: OLD, newText: NEW });
    }
  });

  it("uses the file at safe (exact texts, else the patch as text), never at hunks or text", () => {
    const files = new Map([[P, OLD]]);
    expect(toV1(modify(OLD, NEW), files, "pending", "safe").map(plain)).toEqual([
      { type: "diff", path: P, oldText: OLD, newText: NEW },
    ]);
    expect(toV1(modify(OLD, NEW), undefined, "pending", "safe")[0]!.type).toBe("content");
    expect(toV1(modify(OLD, NEW), files, "pending", "hunks")[0]!._meta["acp-bridge"].residual.partial).toBe(true);
    expect(toV1(modify(OLD, NEW), files, "pending", "text")[0]!.content.text).toContain("```diff");
  });

  it("adds and deletes need no file: their patch is the whole text; a new file has no oldText", () => {
    const add = {
      type: "diff",
      changes: [{ operation: "add", path: P, fileType: "text" }],
      patch: { format: "git_patch", text: gitPatchSection("add", P, "", "x\n") },
    };
    expect(toV1(add, new Map()).map(plain)).toEqual([{ type: "diff", path: P, newText: "x\n" }]);
    expect(diffFilePaths([add], 2)).toEqual([]);
  });

  it("names the files to read: modified, moved and copied text files, not restored or binary ones", () => {
    const items = [
      modify(OLD, NEW),
      { type: "diff", changes: [{ operation: "move", oldPath: "/a", path: "/b" }] },
      { type: "diff", changes: [{ operation: "modify", path: "/bin", fileType: "binary" }] },
      {
        ...modify(OLD, NEW, "/restored"),
        _meta: { "acp-bridge": { v: 1, from: 1, hadMeta: false, residual: { v1Diff: { path: "/r", newText: "" } } } },
      },
      { type: "content", content: { type: "text", text: "t" } },
    ];
    expect(diffFilePaths(items, 2).sort()).toEqual(["/a", "/b", P].sort());
    expect(diffFilePaths([{ type: "diff", path: "rel.txt", oldText: "a", newText: "b" }], 1, "/w")).toEqual([
      "/w/rel.txt",
    ]);
    expect(diffFilePaths([{ type: "diff", path: "/new", newText: "b" }], 1, "/w")).toEqual([]);
  });

  const textLines = fc.array(fc.constantFrom("a\n", "b\n", "c\n", "\n", "a", "x\r\n"), { maxLength: 30 }).map((ls) => {
    // Only the last line may lack its newline.
    return ls.map((l, i) => (i < ls.length - 1 && !l.endsWith("\n") ? l + "\n" : l)).join("");
  });

  it("property: for any file and edit, the file before (pending) or after (applied) gives the exact texts", () => {
    fc.assert(
      fc.property(textLines, textLines, fc.constantFrom<DiffStage>("pending", "applied"), (before, after, stage) => {
        fc.pre(before !== after);
        const file = stage === "pending" ? before : after;
        const out = toV1(modify(before, after), new Map([[P, file]]), stage);
        expect(out.map(plain)).toEqual([{ type: "diff", path: P, oldText: before, newText: after }]);
      }),
      runs,
    );
  });

  it("property: without a status, the texts are exact or the hunks (marked partial), never wrong", () => {
    fc.assert(
      fc.property(textLines, textLines, fc.boolean(), (before, after, applied) => {
        fc.pre(before !== after);
        const [out] = toV1(modify(before, after), new Map([[P, applied ? after : before]]), undefined);
        expect(out!.type).toBe("diff");
        const partial = out!._meta?.["acp-bridge"]?.residual?.partial === true;
        if (!partial) expect(plain(out!)).toEqual({ type: "diff", path: P, oldText: before, newText: after });
      }),
      runs,
    );
  });
});

describe("v1 snippet diff → v2 placed in the real file (B↓)", () => {
  const FILE = "head\nfn a() {\n  return 1;\n}\ntail";

  it("places a pending snippet: true line numbers, the file's own end without a newline", () => {
    const src = { type: "diff", path: P, oldText: "return 1;", newText: "return 2;" };
    const out = toV2(src, new Map([[P, FILE]]), "pending");
    const after = FILE.replace("return 1;", "return 2;");
    expect(patchOf(out)).toBe(gitPatchSection("modify", P, FILE, after));
    expect(patchOf(out)).toContain("@@ -1,5 +1,5 @@\n head\n fn a() {\n-  return 1;\n+  return 2;\n");
    expect(applyPatch(patchOf(out), FILE)).toBe(after);
    // The stash keeps the snippet, so a chained A gives its v1 client the very item.
    expect(toV1(out, new Map([[P, FILE]]), "pending")).toEqual([src]);
  });

  it("places an applied snippet (the new text is in the file), relative paths included", () => {
    const applied = FILE.replace("return 1;", "return 2;");
    const src = { type: "diff", path: "src/f.txt", oldText: "return 1;", newText: "return 2;" };
    const out = toV2(src, new Map([[P, applied]]), "applied");
    expect(patchOf(out)).toBe(gitPatchSection("modify", P, FILE, applied));
  });

  it("keeps whole-file texts as they are", () => {
    const src = { type: "diff", path: P, oldText: FILE, newText: FILE + "\n" };
    for (const file of [FILE, FILE + "\n"]) {
      expect(patchOf(toV2(src, new Map([[P, file]])))).toBe(gitPatchSection("modify", P, FILE, FILE + "\n"));
    }
  });

  it("marks a snippet it cannot place once: a heading on the hunk, no false end-of-file claim", () => {
    for (const file of ["nothing here\n", "x;\nx;\n"]) {
      const src = { type: "diff", path: P, oldText: "x;", newText: "y;" };
      const out = toV2(src, new Map([[P, file]]));
      expect(patchOf(out)).toBe(
        `diff --git ${P} ${P}\n--- ${P}\n+++ ${P}\n@@ -1 +1 @@ ${diffTable.snippetHeading}\n-x;\n+y;\n`,
      );
      expect(patchOf(out)).not.toContain(diffTable.noNewlineMarker);
      expect(toV1(out)).toEqual([src]);
    }
  });

  it("settles a snippet found both ways by the status, else marks it; a status takes only its own reading", () => {
    // "a" → "ab": the file "ab\n" holds both the old text (inside "ab") and the new one.
    const src = { type: "diff", path: P, oldText: "a", newText: "ab" };
    const files = new Map([[P, "ab\n"]]);
    expect(patchOf(toV2(src, files, "applied"))).toBe(gitPatchSection("modify", P, "a\n", "ab\n"));
    expect(patchOf(toV2(src, files, "pending"))).toBe(gitPatchSection("modify", P, "ab\n", "abb\n"));
    expect(patchOf(toV2(src, files, undefined))).toContain(diffTable.snippetHeading);
  });

  it("placeSnippet never places an empty text nor one found twice", () => {
    expect(placeSnippet("a\na\n", "a", "b", "pending")).toBeUndefined();
    expect(placeSnippet("abc", "", "x", "pending")).toBeUndefined();
    expect(placeSnippet("abc", "b", "", "pending")).toEqual({
      oldText: "abc",
      newText: "ac",
      splice: { base: "old", at: 1, removed: 1, inserted: "" },
    });
    expect(placeSnippet("ac", "b", "", "applied")).toBeUndefined();
    // A status that tells takes only its own reading (a substring is weak evidence).
    expect(placeSnippet("bcb", "bc", "b", "applied")).toBeUndefined();
    expect(placeSnippet("bcb", "bc", "b", undefined)).toMatchObject({ oldText: "bcb", newText: "bb" });
  });

  const chars = fc.constantFrom("a", "b", "\n", " ", "c");
  const str = (max: number) => fc.array(chars, { maxLength: max }).map((a) => a.join(""));

  it("property: a placed snippet's patch applies to the real file and gives the real result", () => {
    fc.assert(
      fc.property(str(40), fc.nat(), fc.nat(), str(6), fc.boolean(), (file, i, len, replacement, applied) => {
        const start = i % (file.length + 1);
        const oldText = file.slice(start, start + (len % 8));
        fc.pre(oldText !== "" && oldText !== replacement);
        fc.pre(file.indexOf(oldText) === start && file.indexOf(oldText, start + 1) === -1);
        const after = file.slice(0, start) + replacement + file.slice(start + oldText.length);
        const src = { type: "diff", path: P, oldText, newText: replacement };
        const out = toV2(src, new Map([[P, applied ? after : file]]), applied ? "applied" : "pending");
        const patch = out.patch?.text as string | undefined;
        if (patch !== undefined && !patch.includes(diffTable.snippetHeading)) {
          expect(applyPatch(patch, file)).toBe(after);
        } else if (patch === undefined) {
          expect(file).toBe(after);
        }
        // Placed or not, a chained A restores the snippet exactly at the default stash level.
        // (An emptied text carries A's own group stash: a plain v1 client does not get it.)
        expect(toV1(out, new Map([[P, applied ? after : file]])).map(plain)).toEqual([src]);
      }),
      runs,
    );
  });

  it("property: chains are exact at compact both ways, with the files read on both bridges", () => {
    fc.assert(
      fc.property(str(30), str(30), fc.boolean(), (before, after, applied) => {
        fc.pre(before !== after);
        const files = new Map([[P, applied ? after : before]]);
        const stage: DiffStage = applied ? "applied" : "pending";
        // v2 agent → A → B → v2 client.
        const v2Item = modify(before, after);
        const v1Items = toV1(v2Item, files, stage);
        expect(v1Items).toHaveLength(1);
        expect(toV2(v1Items[0], files, stage)).toEqual(v2Item);
        // v1 agent → B → A → v1 client.
        const v1Item = { type: "diff", path: P, oldText: before, newText: after };
        expect(toV1(toV2(v1Item, files, stage), files, stage).map(plain)).toEqual([v1Item]);
      }),
      runs,
    );
  });

  it("with the stash off, the snippet's full texts reach a v1 client through A (the file read there)", () => {
    const src = { type: "diff", path: P, oldText: "return 1;", newText: "return 2;" };
    const files = new Map([[P, FILE]]);
    const out = toV2(src, files, "pending", off);
    expect(out._meta).toBeUndefined();
    expect(toV1(out, files, "pending", "full", off)).toEqual([
      { type: "diff", path: P, oldText: FILE, newText: FILE.replace("return 1;", "return 2;") },
    ]);
  });
});
