import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diffStashOf, diffToV1, diffToV2, type DiffStage, type FileTexts } from "../../src/convert/diff.js";
import type { DiffRendering } from "../../src/convert/diff-options.js";
import { formatHunks, gitPatchSection, gitQuote, splitLines, unifiedHunks } from "../../src/convert/git-patch.js";
import type { Converted, Loss, Path } from "../../src/convert/result.js";
import type { ConvertOptions } from "../../src/convert/stash.js";
import { arb, jsonValue } from "../support/arbitrary.js";
import { allPaths, diffPaths, norm, numRuns, options, setAt } from "../support/properties.js";
import { expectValid } from "../support/schema.js";

type V1Diff = Extract<v1.ToolCallContent, { type: "diff" }>;
type V2Diff = Extract<v2.ToolCallContent, { type: "diff" }>;
type Obj = Record<string, any>;

const runs = { numRuns: numRuns() };
const compact = options("compact");
const full = options("full");
const off = options("off");
const RENDERINGS: DiffRendering[] = ["full", "safe", "hunks", "text"];

function v1Of(r: ReturnType<typeof diffToV1>): Converted<Obj[]> {
  if (!r.ok) throw new Error(`diffToV1 failed: ${JSON.stringify(r.error)}`);
  for (const it of r.value) expectValid("v1", "ToolCallContent", it);
  return r;
}

function toV1(
  item: unknown,
  rendering: DiffRendering = "safe",
  opts: ConvertOptions = compact,
  group = 7,
): Converted<Obj[]> {
  return v1Of(diffToV1(item as V2Diff, { opts, rendering, group }));
}

function toV2(item: unknown, opts: ConvertOptions = compact, cwd?: string, toolKind?: string): Converted<Obj> {
  const r = diffToV2(item as V1Diff, { opts, cwd, toolKind });
  if (!r.ok) throw new Error(`diffToV2 failed: ${JSON.stringify(r.error)}`);
  expectValid("v2", "ToolCallContent", r.value);
  return r;
}

function bridge(x: Obj): Obj | undefined {
  return x._meta?.["acp-bridge"];
}

/** What a B proxy does with the v1 content of one tool call (T §3.3 B↓-5). */
function restore(items: readonly Obj[], opts: ConvertOptions = compact, toolKind?: string): unknown[] {
  const out: unknown[] = [];
  const seen = new Set<number>();
  for (const it of items) {
    const group = diffStashOf(it);
    if (group) {
      if (group.original && !seen.has(group.group)) out.push(group.original);
      seen.add(group.group);
    } else if (it.type === "diff") out.push(toV2(it, opts, undefined, toolKind).value);
    else out.push(it);
  }
  return out;
}

function text(item: Obj): string {
  expect(item.type).toBe("content");
  expect(item.content.type).toBe("text");
  return item.content.text as string;
}

function isPrefix(p: Path, q: Path): boolean {
  return p.length <= q.length && p.every((x, i) => String(x) === String(q[i]));
}

function unreported(diffs: Path[], lost: readonly Loss[]): Path[] {
  return diffs.filter((d) => !lost.some((l) => isPrefix(l.path, d) || isPrefix(d, l.path)));
}

// ---------------------------------------------------------------------------------------------
// Generators

const LINES = [
  "a",
  "b",
  "c",
  "",
  "  x",
  "ünï 日本",
  "😀",
  "\\ No newline at end of file",
  "+p",
  "-m",
  "@@ -1 +1 @@",
  "diff --git /x /x",
  "`code`",
  "```",
];
const lineArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...LINES) },
  { weight: 1, arbitrary: fc.string({ maxLength: 5 }).map((s) => s.replace(/\n/g, "")) },
);
const textArb = fc
  .record({
    lines: fc.array(lineArb, { maxLength: 25 }),
    eol: fc.constantFrom("\n", "\n", "\r\n"),
    final: fc.boolean(),
  })
  .map(({ lines, eol, final }) => (lines.length === 0 ? "" : lines.join(eol) + (final ? eol : "")));
const textPairArb: fc.Arbitrary<[string, string]> = fc.oneof(
  fc.tuple(textArb, textArb),
  fc
    .tuple(
      textArb,
      fc.array(fc.record({ at: fc.nat(), del: fc.nat({ max: 3 }), ins: fc.array(lineArb, { maxLength: 3 }) }), {
        maxLength: 4,
      }),
    )
    .map(([old, edits]): [string, string] => {
      const lines = splitLines(old);
      for (const e of edits)
        lines.splice(lines.length === 0 ? 0 : e.at % (lines.length + 1), e.del, ...e.ins.map((l) => l + "\n"));
      return [old, lines.join("")];
    }),
);
const pathArb = fc
  .array(
    fc.oneof(
      fc.stringMatching(/^[a-z0-9._-]{1,8}$/),
      fc.constantFrom("my dir", "ünï", "日本", 'a"b', "back\\slash", "tab\tx", "😀", "x ", "`tick`", "dev", "null"),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((parts) => "/" + parts.join("/"));
const metaArb = fc.option(
  fc.oneof(fc.constant({}), fc.constant(null), fc.dictionary(fc.constantFrom("trace", "x"), jsonValue, { maxKeys: 2 })),
  { nil: undefined },
);

/** v1 diff items from the schema, with realistic texts now and then; relative paths resolve against /w. */
const v1DiffArb: fc.Arbitrary<Obj> = fc.oneof(
  (arb("v1", "Diff") as fc.Arbitrary<Obj>).map((d): Obj => ({ ...d, type: "diff" })).filter((d) => d.path !== ""),
  fc
    .record({
      path: pathArb,
      texts: textPairArb,
      old: fc.constantFrom("text", "absent", "null", "same", "emptied"),
      meta: metaArb,
    })
    .map(({ path, texts: [o, n], old, meta }) => {
      const d: Obj = { type: "diff", path };
      if (old === "text") d.oldText = o;
      if (old === "null") d.oldText = null;
      if (old === "same") d.oldText = o;
      if (old === "emptied") d.oldText = o === "" ? "x\n" : o;
      d.newText = old === "same" ? o : old === "emptied" ? "" : n;
      if (meta !== undefined) d._meta = meta;
      return d;
    }),
);
const toolKindArb = fc.constantFrom(undefined, "delete", "edit", "_custom");

type FileKind =
  "add" | "emptyAdd" | "delete" | "modify" | "move" | "copy" | "binary" | "directory" | "unknown" | "symlink";
interface FileSpec {
  kind: FileKind;
  path: string;
  oldPath: string;
  old: string;
  next: string;
  section: boolean;
}
interface Truth {
  readonly item: Obj;
  readonly files: readonly FileSpec[];
}

function pairSection(op: "rename" | "copy", from: string, to: string, old: string, next: string): string {
  const [qf, qt] = [gitQuote(from), gitQuote(to)];
  let s = `diff --git ${qf} ${qt}\nsimilarity index 50%\n${op} from ${qf}\n${op} to ${qt}\n`;
  const hunks = unifiedHunks(old, next);
  if (hunks.length > 0)
    s += `--- ${qf}${from.includes(" ") ? "\t" : ""}\n+++ ${qt}${to.includes(" ") ? "\t" : ""}\n${formatHunks(hunks)}`;
  return s;
}

function sectionOf(f: FileSpec): string {
  const q = gitQuote(f.path);
  switch (f.kind) {
    case "add":
    case "emptyAdd":
      return gitPatchSection("add", f.path, "", f.kind === "add" ? f.next : "");
    case "delete":
      return gitPatchSection("delete", f.path, f.old, "");
    case "modify":
      return gitPatchSection("modify", f.path, f.old, f.next);
    case "move":
      return pairSection("rename", f.oldPath, f.path, f.old, f.next);
    case "copy":
      return pairSection("copy", f.oldPath, f.path, f.old, f.next);
    case "binary":
      return `diff --git ${q} ${q}\nindex 1111111..2222222 100644\nBinary files ${q} and ${q} differ\n`;
    case "symlink":
      return `diff --git ${q} ${q}\nnew file mode 120000\n--- /dev/null\n+++ ${q}\n@@ -0,0 +1 @@\n+target\n\\ No newline at end of file\n`;
    default:
      return "";
  }
}

function changeOf(f: FileSpec, fileType: string | undefined, meta: unknown): Obj {
  const op = {
    add: "add",
    emptyAdd: "add",
    delete: "delete",
    modify: "modify",
    move: "move",
    copy: "copy",
    binary: "modify",
    directory: "add",
    unknown: "_archive",
    symlink: "add",
  }[f.kind];
  const c: Obj = { operation: op, path: f.path };
  if (f.kind === "move" || f.kind === "copy") c.oldPath = f.oldPath;
  const type = { binary: "binary", directory: "directory", symlink: "symlink" }[f.kind as string] ?? fileType;
  if (type !== undefined) c.fileType = type;
  if (f.kind === "binary") c.mimeType = "image/png";
  if (meta !== undefined) c._meta = meta;
  return c;
}

/** Consistent v2 diffs built from known full texts, so a test can tell exact v1 texts from partial ones. */
const realisticV2Arb: fc.Arbitrary<Truth> = fc
  .tuple(
    fc.uniqueArray(pathArb, { minLength: 12, maxLength: 12 }),
    fc.oneof({ weight: 2, arbitrary: fc.constant(1) }, { weight: 3, arbitrary: fc.integer({ min: 0, max: 5 }) }),
  )
  .chain(([paths, n]) =>
    fc.record({
      files: fc.tuple(
        ...Array.from({ length: n }, (_, k) =>
          fc.record({
            kind: fc.constantFrom<FileKind>(
              "add",
              "emptyAdd",
              "delete",
              "modify",
              "modify",
              "move",
              "copy",
              "binary",
              "directory",
              "unknown",
              "symlink",
            ),
            path: fc.constant(paths[2 * k]!),
            oldPath: fc.constant(paths[2 * k + 1]!),
            texts: textPairArb,
            section: fc.oneof(
              { weight: 9, arbitrary: fc.constant(true) },
              { weight: 1, arbitrary: fc.constant(false) },
            ),
          }),
        ),
      ),
      fileType: fc.constantFrom(undefined, "text"),
      patch: fc.constantFrom("patch", "patch", "patch", "null", "absent", "shuffled"),
      meta: metaArb,
      changeMeta: metaArb,
    }),
  )
  .map(({ files: raw, fileType, patch, meta, changeMeta }) => {
    const files: FileSpec[] = raw.map((f) => ({
      kind: f.kind,
      path: f.path,
      oldPath: f.oldPath,
      old: f.kind === "delete" && f.texts[0] === "" ? "gone\n" : f.texts[0],
      next: f.texts[1],
      section: f.section,
    }));
    const item: Obj = {
      type: "diff",
      changes: files.map((f, k) => changeOf(f, fileType, k === 0 ? changeMeta : undefined)),
    };
    const sections = files.filter((f) => f.section).map(sectionOf);
    if (patch === "shuffled") sections.reverse();
    if (patch === "null") item.patch = null;
    else if (patch !== "absent") item.patch = { format: "git_patch", text: sections.join("") };
    if (meta !== undefined) item._meta = meta;
    return { item, files };
  });

const v2DiffArb: fc.Arbitrary<Obj> = fc.oneof(
  (arb("v2", "Diff") as fc.Arbitrary<Obj>).map((d) => ({ ...d, type: "diff" })),
  realisticV2Arb.map((t) => t.item),
);

// ---------------------------------------------------------------------------------------------
// T §9 case 12: one v2 diff covering an add, a modify with two hunks, a delete, a move and a binary modify.

const modifyOld = Array.from({ length: 20 }, (_, i) => `line ${i + 1}\n`).join("");
const modifyNew = modifyOld.replace("line 2\n", "line two\n").replace("line 19\n", "line nineteen\n");
const case12Patch = [
  gitPatchSection("add", "/w/new file é.txt", "", "hello\nworld\n"),
  gitPatchSection("modify", "/w/src/ünï.ts", modifyOld, modifyNew),
  gitPatchSection("delete", "/w/old.txt", "bye\n", ""),
  pairSection("rename", "/w/a.txt", "/w/b dir/a.txt", "1\n2\n3\n", "1\n2\nthree\n"),
  "diff --git /w/logo.png /w/logo.png\nindex 1111111..2222222 100644\nBinary files /w/logo.png and /w/logo.png differ\n",
].join("");
const case12: Obj = {
  type: "diff",
  changes: [
    { operation: "add", path: "/w/new file é.txt", fileType: "text" },
    { operation: "modify", path: "/w/src/ünï.ts", fileType: "text" },
    { operation: "delete", path: "/w/old.txt", fileType: "text" },
    { operation: "move", oldPath: "/w/a.txt", path: "/w/b dir/a.txt", fileType: "text" },
    { operation: "modify", path: "/w/logo.png", fileType: "binary", mimeType: "image/png" },
  ],
  patch: { format: "git_patch", text: case12Patch },
};

describe("v2 diff → v1 items (T §3.3 A↓, T §9 case 12)", () => {
  it("parses the quoted paths with spaces and non-ASCII characters of the patch", () => {
    expect(case12.patch.text).toContain('diff --git "/w/new file \\303\\251.txt" "/w/new file \\303\\251.txt"');
    const [add] = toV1(case12, "hunks").value;
    expect(add).toMatchObject({ type: "diff", path: "/w/new file é.txt", newText: "hello\nworld\n" });
  });

  it("renders every change per the A↓ table with hunks rendering", () => {
    const items = toV1(case12, "hunks").value;
    expect(items.map((i) => ({ ...i, _meta: undefined }))).toEqual([
      { type: "diff", path: "/w/new file é.txt", newText: "hello\nworld\n", _meta: undefined },
      {
        type: "diff",
        path: "/w/src/ünï.ts",
        oldText: "line 1\nline 2\nline 3\nline 4\nline 5\n⋮\nline 16\nline 17\nline 18\nline 19\nline 20\n",
        newText: "line 1\nline two\nline 3\nline 4\nline 5\n⋮\nline 16\nline 17\nline 18\nline nineteen\nline 20\n",
        _meta: undefined,
      },
      { type: "diff", path: "/w/old.txt", oldText: "bye\n", newText: "", _meta: undefined },
      { type: "content", content: { type: "text", text: "Moved `/w/a.txt` → `/w/b dir/a.txt`" }, _meta: undefined },
      { type: "diff", path: "/w/b dir/a.txt", oldText: "1\n2\n3\n", newText: "1\n2\nthree\n", _meta: undefined },
      {
        type: "content",
        content: { type: "text", text: "Modified `/w/logo.png` (binary, image/png)" },
        _meta: undefined,
      },
    ]);
  });

  it("stashes the whole v2 diff on the first item and the group part on the others", () => {
    const items = toV1(case12, "hunks").value;
    expect(bridge(items[0]!)).toEqual({
      v: 1,
      from: 2,
      hadMeta: false,
      residual: { diff: case12, diffGroup: 7, parts: 6 },
    });
    expect(bridge(items[1]!)).toEqual({
      v: 1,
      from: 2,
      hadMeta: false,
      residual: { diffPart: { group: 7, index: 1 }, partial: true },
    });
    expect(bridge(items[2]!)?.residual).toEqual({ diffPart: { group: 7, index: 2 }, deleted: true });
    expect(bridge(items[3]!)?.residual).toEqual({ diffPart: { group: 7, index: 3 } });
    expect(bridge(items[4]!)?.residual).toEqual({ diffPart: { group: 7, index: 4 }, partial: true });
    expect(restore(items)).toEqual([case12]);
  });

  it("emits v1 diffs only with exact full-file texts by default (safe), the rest as fallback F text", () => {
    const r = toV1(case12);
    const items = r.value;
    expect(items).toHaveLength(4);
    expect(items[0]).toMatchObject({ type: "diff", path: "/w/new file é.txt", newText: "hello\nworld\n" });
    expect(items[0]).not.toHaveProperty("oldText");
    const modifySection = gitPatchSection("modify", "/w/src/ünï.ts", modifyOld, modifyNew);
    expect(text(items[1]!)).toBe("Modified `/w/src/ünï.ts`\n\n```diff\n" + modifySection + "```");
    expect(items[2]).toMatchObject({ type: "diff", path: "/w/old.txt", oldText: "bye\n", newText: "" });
    expect(bridge(items[2]!)?.residual).toEqual({ diffPart: { group: 7, index: 2 }, deleted: true });
    const moveSection = pairSection("rename", "/w/a.txt", "/w/b dir/a.txt", "1\n2\n3\n", "1\n2\nthree\n");
    expect(text(items[3]!)).toBe(
      "- Moved `/w/a.txt` → `/w/b dir/a.txt`\n- Modified `/w/logo.png` (binary, image/png)\n\n```diff\n" +
        moveSection +
        "```",
    );
    expect(r.lost).toEqual([{ path: [], reason: expect.any(String) }]);
    expect(restore(items)).toEqual([case12]);
  });

  it("renders everything as one fallback F item with patchText rendering", () => {
    const [only, ...rest] = toV1(case12, "text").value;
    expect(rest).toEqual([]);
    expect(text(only!)).toBe(
      [
        "- Added `/w/new file é.txt`",
        "- Modified `/w/src/ünï.ts`",
        "- Deleted `/w/old.txt`",
        "- Moved `/w/a.txt` → `/w/b dir/a.txt`",
        "- Modified `/w/logo.png` (binary, image/png)",
        "",
        "```diff",
        `${case12.patch.text as string}\`\`\``,
      ].join("\n"),
    );
    expect(bridge(only!)?.residual).toEqual({ diff: case12, diffGroup: 7, parts: 1 });
  });

  it("writes no stash when B↓ turns the lone v1 diff back into this very item", () => {
    const item = {
      type: "diff",
      changes: [{ operation: "add", path: "/w/a.ts", fileType: "text" }],
      patch: { format: "git_patch", text: gitPatchSection("add", "/w/a.ts", "", "x\n") },
      _meta: { trace: 1 },
    };
    const r = toV1(item);
    expect(r.value).toEqual([{ type: "diff", path: "/w/a.ts", newText: "x\n", _meta: { trace: 1 } }]);
    expect(r.lost).toEqual([]);
    expect(restore(r.value)).toEqual([item]);
    // At full, B↓ would add its own v1Diff stash: the group stash keeps the original exact.
    const atFull = toV1(item, "safe", full);
    expect(bridge(atFull.value[0]!)?.residual).toMatchObject({ diff: item, diffGroup: 7, parts: 1 });
    expect(atFull.lost).toEqual([]);
    expect(restore(atFull.value, full)).toEqual([item]);
  });

  it("stashes and reports what the lone v1 diff cannot carry, such as the MIME type and an unknown file type", () => {
    const item = {
      type: "diff",
      changes: [{ operation: "add", path: "/w/a.md", mimeType: "text/markdown" }],
      patch: { format: "git_patch", text: gitPatchSection("add", "/w/a.md", "", "# t\n") },
    };
    const r = toV1(item);
    expect(r.value[0]).toMatchObject({ type: "diff", path: "/w/a.md", newText: "# t\n" });
    expect(r.lost.map((l) => l.path)).toEqual([
      ["changes", 0, "mimeType"],
      ["changes", 0, "fileType"],
    ]);
    expect(bridge(r.value[0]!)?.residual).toMatchObject({ diff: item, diffGroup: 7, parts: 1 });
    expect(restore(r.value)).toEqual([item]);
  });

  it("keeps the deleted flag so an emptied file still reads back as a delete", () => {
    const item = {
      type: "diff",
      changes: [{ operation: "delete", path: "/w/x" }],
      patch: { format: "git_patch", text: gitPatchSection("delete", "/w/x", "x\n", "") },
    };
    const r = toV1(item);
    expect(r.value[0]).toMatchObject({ type: "diff", path: "/w/x", oldText: "x\n", newText: "" });
    expect(bridge(r.value[0]!)?.residual).toMatchObject({ deleted: true });
    // Without the group stash, the deleted flag alone still makes it a delete.
    const bare = {
      ...r.value[0],
      _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { deleted: true } } },
    };
    expect(toV2(bare).value.changes[0].operation).toBe("delete");
  });

  it("gives an exact empty v1 file for an add of an empty file (header lines only)", () => {
    const item = {
      type: "diff",
      changes: [{ operation: "add", path: "/w/empty", fileType: "text" }],
      patch: { format: "git_patch", text: gitPatchSection("add", "/w/empty", "", "") },
    };
    expect(toV1(item).value).toEqual([{ type: "diff", path: "/w/empty", newText: "" }]);
  });

  it("summarizes an add without patch text instead of inventing its content", () => {
    const item = { type: "diff", changes: [{ operation: "add", path: "/w/a" }] };
    const [t] = toV1(item).value;
    expect(text(t!)).toBe("Added `/w/a`");
    expect(toV1({ ...item, patch: null }, "hunks").value.map(text)).toEqual(["Added `/w/a`"]);
  });

  it("names non-text file types and unknown operations in the summary (T §6)", () => {
    const item = {
      type: "diff",
      changes: [
        { operation: "add", path: "/w/d", fileType: "directory" },
        { operation: "delete", path: "/w/l", fileType: "symlink" },
        { operation: "modify", path: "/w/x", fileType: "_sparse" },
        { operation: "_archive", path: "/w/z", oldPath: "/w/y" },
        { operation: "future_op" },
        { operation: "copy", oldPath: "/w/p", path: "/w/q", fileType: "text" },
      ],
    };
    expect(toV1(item, "hunks").value.map(text)).toEqual([
      "Added directory `/w/d`",
      "Deleted symlink `/w/l`",
      "Modified `/w/x` (_sparse)",
      "_archive `/w/y` → `/w/z`",
      "future_op",
      "Copied `/w/p` → `/w/q`",
    ]);
  });

  it("treats a section with a symlink or submodule mode as non-text even without a file type", () => {
    const q = "/w/link";
    const item = {
      type: "diff",
      changes: [{ operation: "add", path: q }],
      patch: {
        format: "git_patch",
        text: `diff --git ${q} ${q}\nnew file mode 120000\n--- /dev/null\n+++ ${q}\n@@ -0,0 +1 @@\n+target\n\\ No newline at end of file\n`,
      },
    };
    expect(toV1(item, "hunks").value.map(text)).toEqual(["Added `/w/link` (mode 120000)"]);
  });

  it("matches each change to the section shaped like its operation, whatever the section order", () => {
    const item = {
      type: "diff",
      changes: [
        { operation: "modify", path: "/w/a" },
        { operation: "move", oldPath: "/w/a", path: "/w/b" },
      ],
      patch: {
        format: "git_patch",
        text: pairSection("rename", "/w/a", "/w/b", "r\n", "R\n") + gitPatchSection("modify", "/w/a", "m\n", "M\n"),
      },
    };
    const items = toV1(item, "hunks").value;
    expect(items.map((i) => [i.path, i.oldText, i.newText])).toEqual([
      ["/w/a", "m\n", "M\n"],
      [undefined, undefined, undefined],
      ["/w/b", "r\n", "R\n"],
    ]);
  });

  it("says binary when the patch does although the change claims text", () => {
    const item = {
      type: "diff",
      changes: [{ operation: "modify", path: "/w/p", fileType: "text" }],
      patch: { format: "git_patch", text: "diff --git /w/p /w/p\nBinary files /w/p and /w/p differ\n" },
    };
    expect(toV1(item, "hunks").value.map(text)).toEqual(["Modified `/w/p` (binary)"]);
    expect(toV1(item).value.map(text)).toEqual(["Modified `/w/p` (binary)"]);
  });

  it("falls back to F with a plain fence for an unknown patch format", () => {
    const item = {
      type: "diff",
      changes: [{ operation: "modify", path: "/w/a" }],
      patch: { format: "_svn", text: "Index: a\n" },
    };
    for (const rendering of RENDERINGS)
      expect(text(toV1(item, rendering).value[0]!)).toBe("Modified `/w/a`\n\n```\nIndex: a\n```");
  });

  it("falls back to F when the git patch cannot be parsed, whatever the rendering", () => {
    const bad = "--- /w/a\n+++ /w/a\n@@ -1 +1 @@\n-a\n+b\n";
    const item = {
      type: "diff",
      changes: [{ operation: "add", path: "/w/a" }],
      patch: { format: "git_patch", text: bad },
    };
    for (const rendering of RENDERINGS) {
      const items = toV1(item, rendering).value;
      expect(items).toHaveLength(1);
      expect(text(items[0]!)).toBe("Added `/w/a`\n\n```diff\n" + bad + "```");
    }
  });

  it("says so when a diff has no changes", () => {
    const items = toV1({ type: "diff", changes: [] }).value;
    expect(items.map(text)).toEqual(["No file changes"]);
    expect(restore(items)).toEqual([{ type: "diff", changes: [] }]);
  });

  it("reads a malformed patch, file type or MIME type as absent, as the v2 schema defaults them", () => {
    const items = toV1({
      type: "diff",
      changes: [{ operation: "add", path: "/w/a", fileType: 5, mimeType: [] }],
      patch: "nope",
    }).value;
    expect(items.map(text)).toEqual(["Added `/w/a`"]);
  });

  it("fences patch text holding backtick runs with a longer fence, and paths with backticks in longer spans", () => {
    const p = gitPatchSection("modify", "/w/`x`", "```\n", "````\n");
    const item = {
      type: "diff",
      changes: [{ operation: "modify", path: "/w/`x`" }],
      patch: { format: "git_patch", text: p },
    };
    expect(text(toV1(item).value[0]!)).toBe("Modified `` /w/`x` ``\n\n`````diff\n" + p + "`````");
  });

  it("restores the exact v1 diff a B proxy kept at full (v1Diff)", () => {
    const src = { type: "diff", path: "rel/x.ts", oldText: "a\nb\n", newText: "a\nB\n", _meta: { trace: "t" } };
    const mid = toV2(src, full, "/w").value;
    expect(bridge(mid)?.residual).toEqual({
      path: "rel/x.ts",
      v1Diff: { path: "rel/x.ts", oldText: "a\nb\n", newText: "a\nB\n" },
    });
    for (const rendering of RENDERINGS) {
      const r = toV1(mid, rendering, full);
      expect(r.value).toEqual([src]);
      expect(r.lost).toEqual([]);
    }
  });

  it("keeps the items without a stash when the stash is off, and reports the whole item lost", () => {
    const r = toV1(case12, "hunks", off);
    expect(JSON.stringify(r.value)).not.toContain("acp-bridge");
    expect(r.lost).toEqual([{ path: [], reason: expect.any(String) }]);
  });

  it.each([
    ["a missing changes array", { type: "diff" }, "changes", "expected_array"],
    ["a change that is not an object", { type: "diff", changes: [3] }, "changes[0]", "expected_object"],
    [
      "an operation that is not a string",
      { type: "diff", changes: [{ operation: 1, path: "/a" }] },
      "changes[0].operation",
      "expected_string",
    ],
    [
      "a known operation without a path",
      { type: "diff", changes: [{ operation: "modify" }] },
      "changes[0].path",
      "expected_string",
    ],
    [
      "a move without oldPath",
      { type: "diff", changes: [{ operation: "move", path: "/b" }] },
      "changes[0].oldPath",
      "expected_string",
    ],
    ["an item that is not a diff", { type: "content", changes: [] }, "type", "not_a_diff"],
  ])("answers -32602 for %s", (_name, item, field, reason) => {
    const r = diffToV1(item as unknown as V2Diff, { opts: compact, rendering: "safe", group: 1 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ code: -32602, data: { field, reason } });
  });
});

describe("v1 diff → v2 diff (T §3.3 B↓)", () => {
  it("makes an add with a full-file hunk and fileType text when oldText is absent", () => {
    const r = toV2({ type: "diff", path: "/w/a.txt", newText: "hello\n" });
    expect(r.value).toEqual({
      type: "diff",
      changes: [{ operation: "add", path: "/w/a.txt", fileType: "text" }],
      patch: {
        format: "git_patch",
        text: "diff --git /w/a.txt /w/a.txt\nnew file mode 100644\n--- /dev/null\n+++ /w/a.txt\n@@ -0,0 +1 @@\n+hello\n",
      },
    });
    expect(r.lost).toEqual([]);
  });

  it("stashes a null oldText, which v2 cannot tell from an absent one", () => {
    const r = toV2({ type: "diff", path: "/w/a", oldText: null, newText: "" });
    expect(r.value.changes[0].operation).toBe("add");
    expect(r.value.patch.text).toBe("diff --git /w/a /w/a\nnew file mode 100644\n");
    expect(bridge(r.value)?.residual).toEqual({ oldText: null });
    expect(r.lost.map((l) => l.path)).toEqual([["oldText"]]);
    expect(toV1(r.value).value).toEqual([{ type: "diff", path: "/w/a", oldText: null, newText: "" }]);
  });

  it("takes an empty oldText marked _meta.kind add (Gemini CLI's new file) as an add, restorably", () => {
    const src = { type: "diff", path: "/w/n.py", oldText: "", newText: "x\n", _meta: { kind: "add" } };
    const r = toV2(src);
    expect(r.value.changes[0].operation).toBe("add");
    expect(r.value.patch.text).toContain("--- /dev/null");
    expect(r.lost.map((l) => l.path)).toEqual([["oldText"]]);
    expect(toV1(r.value).value).toEqual([src]);
    // Unmarked, an empty old text is an empty file being written.
    expect(toV2({ type: "diff", path: "/w/e", oldText: "", newText: "x\n" }).value.changes[0].operation).toBe("modify");
  });

  it("makes a modify with hunks; the texts the hunks cannot give back are lost; v1Diff keeps them at compact", () => {
    const src = { type: "diff", path: "/w/m", oldText: "a\nb\n", newText: "a\nc\n" };
    const r = toV2(src, off);
    expect(r.value).toEqual({
      type: "diff",
      changes: [{ operation: "modify", path: "/w/m", fileType: "text" }],
      patch: { format: "git_patch", text: "diff --git /w/m /w/m\n--- /w/m\n+++ /w/m\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n" },
    });
    // The one hunk's sides are the whole texts: nothing lost. The stash still keeps them, so a
    // chained A gives the very item (its own rendering would add a `partial` stash).
    expect(r.lost).toEqual([]);
    for (const opts of [compact, full])
      expect(bridge(toV2(src, opts).value)?.residual).toEqual({
        v1Diff: { path: "/w/m", oldText: "a\nb\n", newText: "a\nc\n" },
      });
    expect(toV1(toV2(src).value).value).toEqual([src]);
    // Lines beyond the context: the hunk no longer holds the texts, the stash does at compact (a chained A restores them).
    const long = { ...src, oldText: "1\n2\n3\n4\n5\na\n", newText: "1\n2\n3\n4\n5\nb\n" };
    const lr = toV2(long);
    expect(lr.lost.map((l) => l.path)).toEqual([["oldText"], ["newText"]]);
    expect(bridge(lr.value)?.residual).toEqual({
      v1Diff: { path: "/w/m", oldText: long.oldText, newText: long.newText },
    });
    expect(toV1(lr.value).value).toEqual([long]);
    expect(bridge(toV2(long, { stash: "compact", stashMaxBytes: 10 }).value)).toBeUndefined();
    expect(bridge(toV2(long, off).value)).toBeUndefined();
  });

  it("makes an emptied file a delete only for a delete tool, the deleted stash or the draft flag", () => {
    const src = { type: "diff", path: "/w/d", oldText: "x\n", newText: "" };
    expect(toV2(src).value.changes[0].operation).toBe("modify");
    const del = toV2(src, off, undefined, "delete").value;
    expect(del).toEqual({
      type: "diff",
      changes: [{ operation: "delete", path: "/w/d", fileType: "text" }],
      patch: {
        format: "git_patch",
        text: "diff --git /w/d /w/d\ndeleted file mode 100644\n--- /w/d\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n",
      },
    });
    expect(toV2({ ...src, deleted: true }).value).toMatchObject({ changes: [{ operation: "delete" }], deleted: true });
    expect(toV2({ ...src, oldText: "" }, compact, undefined, "delete").value.changes[0].operation).toBe("modify");
  });

  it("emits the change without a patch when oldText equals newText (the texts ride in the stash)", () => {
    const src = { type: "diff", path: "/w/s", oldText: "same\n", newText: "same\n" };
    expect(toV2(src, off).value).toEqual({
      type: "diff",
      changes: [{ operation: "modify", path: "/w/s", fileType: "text" }],
    });
    expect(toV1(toV2(src).value).value).toEqual([src]);
  });

  it("resolves a relative path against the session cwd and stashes the original", () => {
    const r = toV2({ type: "diff", path: "src/../a b.ts", newText: "x" }, compact, "/w");
    expect(r.value.changes[0].path).toBe("/w/a b.ts");
    expect(r.value.patch.text).toContain("+++ /w/a b.ts\t\n");
    expect(bridge(r.value)?.residual).toEqual({ path: "src/../a b.ts" });
    expect(r.lost.map((l) => l.path)).toEqual([["path"]]);
    expect(toV2({ type: "diff", path: "a.ts", newText: "x" }, compact, "C:\\w").value.changes[0].path).toBe(
      "C:\\w\\a.ts",
    );
  });

  it("refuses a relative path it cannot resolve", () => {
    for (const [path, cwd] of [
      ["a.ts", undefined],
      ["a.ts", "relative/cwd"],
      ["", "/w"],
      ["D:a.ts", "C:\\w"],
    ] as const) {
      const r = diffToV2({ type: "diff", path, newText: "" }, { opts: compact, cwd });
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toMatchObject({ code: -32602, data: { field: "path", reason: "not_absolute" } });
    }
  });

  it("copies _meta and unknown keys, and stashes keys v2 reads as its own", () => {
    const r = toV2({ type: "diff", path: "/w/a", newText: "", _meta: { k: 1 }, zz: [1], patch: "mine" });
    expect(r.value).toMatchObject({ zz: [1], patch: { format: "git_patch" } });
    expect(r.value._meta).toEqual({
      k: 1,
      "acp-bridge": { v: 1, from: 1, hadMeta: true, residual: { raw: { patch: "mine" } } },
    });
    expect(toV1(r.value).value).toEqual([
      { type: "diff", path: "/w/a", newText: "", _meta: { k: 1 }, zz: [1], patch: "mine" },
    ]);
  });

  it("restores the original v2 diff from the first item of a group", () => {
    const items = toV1(case12, "hunks").value;
    expect(toV2(items[0]).value).toEqual(case12);
    expect(diffStashOf(items[0] as v1.ToolCallContent)).toEqual({ group: 7, original: case12 });
    expect(diffStashOf(items[4] as v1.ToolCallContent)).toEqual({ group: 7 });
    expect(diffStashOf({ type: "diff", path: "/a", newText: "" })).toBeUndefined();
    expect(
      diffStashOf({
        type: "content",
        content: { type: "text", text: "t" },
        _meta: { "acp-bridge": { v: 1, from: 1, hadMeta: false } },
      }),
    ).toBeUndefined();
  });

  it.each([
    ["a path that is not a string", { type: "diff", path: 1, newText: "" }, "path", "expected_string"],
    ["a newText that is not a string", { type: "diff", path: "/a" }, "newText", "expected_string"],
    [
      "an oldText of the wrong type",
      { type: "diff", path: "/a", newText: "", oldText: 3 },
      "oldText",
      "expected_string_or_null",
    ],
  ])("answers -32602 for %s", (_name, item, field, reason) => {
    const r = diffToV2(item as unknown as V1Diff, { opts: compact });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ code: -32602, data: { field, reason } });
  });
});

describe("diff round trips (T §3.3, T §0.2, properties)", () => {
  it("v1 diff → v2 → v1 is the identity with stash full, every rendering", () => {
    fc.assert(
      fc.property(v1DiffArb, toolKindArb, fc.constantFrom(...RENDERINGS), (src, toolKind, rendering) => {
        const mid = toV2(src, full, "/w", toolKind).value;
        expect(norm(toV1(mid, rendering, full).value)).toEqual([norm(src)]);
      }),
      runs,
    );
  });

  it("v1 add → v2 → v1 is the identity with stash compact, in safe and hunks rendering", () => {
    fc.assert(
      fc.property(
        v1DiffArb,
        toolKindArb,
        fc.constantFrom<DiffRendering>("safe", "hunks"),
        (src, toolKind, rendering) => {
          const add = { ...src };
          if (typeof add.oldText === "string") delete add.oldText;
          const mid = toV2(add, compact, "/w", toolKind);
          expect(mid.value.changes[0].operation).toBe("add");
          expect(norm(toV1(mid.value, rendering, compact).value)).toEqual([norm(add)]);
        },
      ),
      runs,
    );
  });

  it("with stash compact a v1 modify loses only its full texts (hunks rendering) and a delete only gains the stash", () => {
    fc.assert(
      fc.property(v1DiffArb, (src) => {
        fc.pre(typeof src.oldText === "string");
        const toolKind = "delete";
        const r1 = toV2(src, compact, "/w", toolKind);
        const [back, ...more] = toV1(r1.value, "hunks", compact).value;
        expect(more).toEqual([]);
        const { _meta: meta, ...rest } = back!;
        const srcRest = { ...src };
        delete srcRest._meta;
        const op = r1.value.changes[0].operation;
        if (op === "delete") {
          expect(norm(rest)).toEqual(norm(srcRest));
        } else if (op === "modify" && src.oldText !== src.newText) {
          expect(unreported(diffPaths(norm(srcRest), norm(rest)), r1.lost)).toEqual([]);
        }
        if (bridge(back!) === undefined) {
          // No stash: the hunks covered the whole file, so B↓ gives this very v2 item back.
          expect(norm(back)).toEqual(norm(src));
        } else {
          expect(meta?.["acp-bridge"].residual.diff).toEqual(r1.value);
        }
      }),
      runs,
    );
  });

  it("v1 diff → v2 → v1 with the stash off differs only where losses were reported", () => {
    fc.assert(
      fc.property(v1DiffArb, toolKindArb, (src, toolKind) => {
        const r1 = toV2(src, off, "/w", toolKind);
        expect(JSON.stringify(r1.value)).not.toContain('"acp-bridge"');
        const r2 = toV1(r1.value, "hunks", off);
        expect(r2.value).toHaveLength(1);
        const diffs = diffPaths(norm(src), norm(r2.value[0]));
        expect(unreported(diffs, [...r1.lost, ...r2.lost])).toEqual([]);
        // An add loses only what it reports, and each report shows.
        if (r1.value.changes[0].operation === "add") {
          for (const l of r1.lost) expect(diffs.some((d) => isPrefix(l.path, d))).toBe(true);
        }
      }),
      runs,
    );
  });

  it("v2 diff → v1 items → v2 (restored through diffStashOf) is the identity with the stash on", () => {
    fc.assert(
      fc.property(v2DiffArb, fc.constantFrom(...RENDERINGS), fc.constantFrom(compact, full), (src, rendering, opts) => {
        const items = toV1(src, rendering, opts).value;
        expect(norm(restore(items, opts))).toEqual([norm(src)]);
      }),
      runs,
    );
  });

  it("v2 diff → v1 with the stash off reports every difference B↓ would bring back", () => {
    fc.assert(
      fc.property(v2DiffArb, fc.constantFrom(...RENDERINGS), (src, rendering) => {
        const r = toV1(src, rendering, off);
        expect(JSON.stringify(r.value)).not.toContain('"acp-bridge"');
        const back = restore(r.value, off);
        if (r.lost.some((l) => l.path.length === 0)) return;
        expect(back).toHaveLength(1);
        const diffs = diffPaths(norm(src), norm(back[0]));
        expect(unreported(diffs, r.lost)).toEqual([]);
        for (const l of r.lost) expect(diffs.some((d) => isPrefix(l.path, d) || isPrefix(d, l.path))).toBe(true);
      }),
      runs,
    );
  });

  it("property: coarse losses (the engine's) emit exactly what the full losses emit, in any rendering and stash", () => {
    // Files as the engine may read them: the old text (pending), the new (applied), another, or none.
    const withFiles = fc.oneof(
      realisticV2Arb.chain(({ item, files }) =>
        fc.tuple(...files.map(() => fc.constantFrom("old", "next", "other", "none"))).map((picks): [Obj, FileTexts] => {
          const texts = new Map<string, string>();
          picks.forEach((pick, k) => {
            const f = files[k]!;
            if (pick === "old") texts.set(f.oldPath, f.old).set(f.path, f.old);
            if (pick === "next") texts.set(f.path, f.next);
            if (pick === "other") texts.set(f.path, "other\n");
          });
          return [item, texts];
        }),
      ),
      v2DiffArb.map((item): [Obj, FileTexts] => [item, new Map()]),
    );
    fc.assert(
      fc.property(
        withFiles,
        fc.constantFrom(...RENDERINGS),
        fc.constantFrom(off, compact, full),
        fc.constantFrom<DiffStage>(undefined, "pending", "applied"),
        ([item, files], rendering, opts, stage) => {
          const ctx = { opts, rendering, group: 3, files, stage };
          const exact = diffToV1(item as V2Diff, ctx);
          const coarse = diffToV1(item as V2Diff, { ...ctx, coarseLosses: true });
          expect(coarse.ok).toBe(exact.ok);
          if (!coarse.ok || !exact.ok) return;
          // Key order included: the client gets these bytes.
          expect(JSON.stringify(coarse.value)).toBe(JSON.stringify(exact.value));
          if (opts !== off) expect(coarse.lost).toEqual(exact.lost);
          else if (exact.lost.length > 0) expect(coarse.lost.length).toBeGreaterThan(0);
        },
      ),
      runs,
    );
  });

  it("property: coarse losses toward v2 emit exactly what the full losses emit, with or without the file", () => {
    fc.assert(
      fc.property(
        v1DiffArb,
        toolKindArb,
        fc.constantFrom(off, compact, full),
        fc.constantFrom<DiffStage>(undefined, "pending", "applied"),
        fc.constantFrom("none", "old", "new", "other", "around"),
        (src, toolKind, opts, stage, pick) => {
          const path = typeof src.path === "string" && src.path.startsWith("/") ? src.path : `/ws/${String(src.path)}`;
          const old = typeof src.oldText === "string" ? src.oldText : "";
          const next = typeof src.newText === "string" ? src.newText : "";
          const text = { none: undefined, old, new: next, other: "other\n", around: `head\n${old}tail\n` }[pick];
          const files: FileTexts = text === undefined ? new Map() : new Map([[path, text]]);
          const ctx = { opts, cwd: "/ws", toolKind, files, stage };
          const exact = diffToV2(src as V1Diff, ctx);
          const coarse = diffToV2(src as V1Diff, { ...ctx, coarseLosses: true });
          expect(coarse.ok).toBe(exact.ok);
          if (!coarse.ok || !exact.ok) return;
          // Key order included: the client gets these bytes.
          expect(JSON.stringify(coarse.value)).toBe(JSON.stringify(exact.value));
          // Whatever the exact losses name, the coarse ones name too (they may name more).
          for (const l of exact.lost) expect(coarse.lost.map((c) => c.path)).toContainEqual(l.path);
        },
      ),
      runs,
    );
  });

  it("safe rendering never hands a v1 client a partial text: every v1 diff holds the exact full-file texts", () => {
    fc.assert(
      fc.property(realisticV2Arb, fc.constantFrom(compact, off), ({ item, files }, opts) => {
        const items = toV1(item, "safe", opts).value;
        for (const it of items.filter((i) => i.type === "diff")) {
          const f = files.find((x) => x.path === it.path);
          expect(f, `a v1 diff for a path the change list does not hold: ${it.path}`).toBeDefined();
          expect(f!.section).toBe(true);
          expect(item.patch).toBeTruthy();
          if (f!.kind === "add" || f!.kind === "emptyAdd") {
            expect(it).not.toHaveProperty("oldText");
            expect(it.newText).toBe(f!.kind === "add" ? f!.next : "");
          } else {
            expect(f!.kind).toBe("delete");
            expect(it.oldText).toBe(f!.old);
            expect(it.newText).toBe("");
          }
        }
      }),
      runs,
    );
  });

  it("hunks rendering flags every v1 diff without exact texts as partial", () => {
    fc.assert(
      fc.property(realisticV2Arb, ({ item, files }) => {
        const items = toV1(item, "hunks", compact).value;
        for (const it of items.filter((i) => i.type === "diff")) {
          const f = files.find((x) => x.path === it.path)!;
          const partial = bridge(it)?.residual?.partial === true;
          expect(partial).toBe(!(f.kind === "add" || f.kind === "emptyAdd" || f.kind === "delete"));
        }
      }),
      runs,
    );
  });

  it("never throws, never mutates its input, and answers a typed error for broken input", () => {
    fc.assert(
      fc.property(
        fc.oneof(v2DiffArb, v1DiffArb),
        fc.nat(),
        jsonValue,
        fc.constantFrom(...RENDERINGS),
        fc.constantFrom(off, compact, full),
        (src, pick, wrong, rendering, opts) => {
          const paths = allPaths(src);
          const mutated = setAt(src, paths[pick % paths.length]!, wrong) as Obj;
          const before = JSON.stringify(mutated);
          const r1 = diffToV1(mutated as V2Diff, { opts, rendering, group: 1 });
          const r2 = diffToV2(mutated as V1Diff, { opts, cwd: "/w", toolKind: "delete" });
          expect(JSON.stringify(mutated)).toBe(before);
          for (const r of [r1, r2]) {
            if (!r.ok) {
              expect(r.error.code).toBe(-32602);
              expect(typeof r.error.data.reason).toBe("string");
            }
          }
        },
      ),
      runs,
    );
  });
});
