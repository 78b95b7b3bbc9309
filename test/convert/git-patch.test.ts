import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  applyHunks,
  changedBlocks,
  gitPatchSection,
  gitQuote,
  gitUnquote,
  needsGitQuoting,
  parseGitPatch,
  sideText,
  splicedHunks,
  splitLines,
  unifiedHunks,
  unifiedLineHunks,
  type Hunk,
  type PatchSection,
} from "../../src/convert/git-patch.js";
import { numRuns } from "../support/properties.js";

const runs = { numRuns: numRuns() };

function sectionsOf(text: string): readonly PatchSection[] {
  const r = parseGitPatch(text);
  if (!r.ok) throw new Error(`unparseable patch (line ${r.line}: ${r.reason}):\n${text}`);
  return r.sections;
}

function only(text: string): PatchSection {
  const s = sectionsOf(text);
  expect(s).toHaveLength(1);
  return s[0]!;
}

// ---------------------------------------------------------------------------------------------
// Generators of realistic texts: lines from a small vocabulary (so edits leave common lines), with
// CRLF, missing final newlines, empty files, unicode, and lines that look like patch syntax.

const LINES = [
  "a",
  "b",
  "c",
  "",
  "  indented",
  "ünïcødé 日本",
  "emoji 😀",
  "tab\there",
  "trailing space ",
  "\\ No newline at end of file",
  "+plus",
  "-minus",
  " space",
  "@@ -1 +1 @@",
  "diff --git /x /x",
  "--- /dev/null",
  "mid\rcr",
  "}",
];
const lineArb = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...LINES) },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }).map((s) => s.replace(/\n/g, "")) },
);

const textArb: fc.Arbitrary<string> = fc
  .record({
    lines: fc.array(lineArb, { maxLength: 40 }),
    eol: fc.constantFrom("\n", "\n", "\r\n"),
    final: fc.boolean(),
  })
  .map(({ lines, eol, final }) => (lines.length === 0 ? "" : lines.join(eol) + (final ? eol : "")));

type Edit = { at: number; del: number; ins: string[] };

/** (old, new) pairs: mostly `new` derived from `old` by a few edits, sometimes unrelated texts. */
const textPairArb: fc.Arbitrary<[string, string]> = fc.oneof(
  { weight: 1, arbitrary: fc.tuple(textArb, textArb) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        textArb,
        fc.array(fc.record({ at: fc.nat(), del: fc.nat({ max: 4 }), ins: fc.array(lineArb, { maxLength: 4 }) }), {
          maxLength: 5,
        }),
        fc.constantFrom("keep", "drop", "add"),
      )
      .map(([old, edits, ending]): [string, string] => {
        const lines = splitLines(old);
        for (const e of edits as Edit[]) {
          const at = lines.length === 0 ? 0 : e.at % (lines.length + 1);
          lines.splice(at, e.del, ...e.ins.map((l) => l + "\n"));
        }
        let text = lines.join("");
        if (ending === "drop" && text.endsWith("\n")) text = text.slice(0, -1);
        if (ending === "add" && text !== "" && !text.endsWith("\n")) text += "\n";
        return [old, text];
      }),
  },
);

/** Absolute paths with the characters Git quotes or pads: spaces, quotes, backslashes, controls, non-ASCII. */
const pathArb: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      fc.stringMatching(/^[a-z0-9._-]{1,8}$/),
      fc.constantFrom(
        "my dir",
        "ünï",
        "日本",
        'a"b',
        "back\\slash",
        "tab\tx",
        "new\nline",
        "😀",
        "x ",
        " y",
        "dev",
        "null",
      ),
      fc.string({ unit: "binary", minLength: 1, maxLength: 4 }).filter((s) => !s.includes("/")),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((parts) => "/" + parts.join("/"));

// ---------------------------------------------------------------------------------------------

describe("Git path quoting (T §3.3 B↓-3)", () => {
  it("leaves plain paths, spaces included, unquoted", () => {
    expect(gitQuote("/w/src/a-b_c.ts")).toBe("/w/src/a-b_c.ts");
    expect(gitQuote("/w/my file.txt")).toBe("/w/my file.txt");
    expect(needsGitQuoting("/w/my file.txt")).toBe(false);
  });

  it("quotes non-ASCII as octal UTF-8 bytes, as Git does with core.quotePath", () => {
    expect(gitQuote("/w/h é.txt")).toBe('"/w/h \\303\\251.txt"');
    expect(gitQuote("/w/😀")).toBe('"/w/\\360\\237\\230\\200"');
  });

  it("uses C escapes for quotes, backslashes and the named control characters, octal for the rest", () => {
    expect(gitQuote('/w/a"b')).toBe('"/w/a\\"b"');
    expect(gitQuote("/w/a\\b")).toBe('"/w/a\\\\b"');
    expect(gitQuote("/w/\x07\b\t\n\v\f\r")).toBe('"/w/\\a\\b\\t\\n\\v\\f\\r"');
    expect(gitQuote("/w/\x01\x1f\x7f")).toBe('"/w/\\001\\037\\177"');
  });

  it("writes a lone surrogate as its three WTF-8 bytes so it survives a round trip", () => {
    expect(gitQuote("/\ud800")).toBe('"/\\355\\240\\200"');
    expect(gitUnquote(gitQuote("/\ud800"))?.value).toBe("/\ud800");
  });

  it("unquotes what Git writes, including raw UTF-8 inside quotes (core.quotePath=false)", () => {
    expect(gitUnquote('"h \\303\\251.txt"')).toEqual({ value: "h é.txt", end: 16 });
    expect(gitUnquote('"h é.txt" rest')).toEqual({ value: "h é.txt", end: 9 });
  });

  it("rejects an unterminated string and unknown escapes", () => {
    expect(gitUnquote('"abc')).toBeUndefined();
    expect(gitUnquote('"a\\qb"')).toBeUndefined();
    expect(gitUnquote('"a\\8"')).toBeUndefined();
    expect(gitUnquote("abc")).toBeUndefined();
  });

  it("decodes invalid UTF-8 from other producers as U+FFFD instead of failing", () => {
    expect(gitUnquote('"\\377x"')?.value).toBe("\uFFFDx");
  });

  it("round trips every string, lone surrogates and controls included (property)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary" }), fc.string({ unit: "grapheme" }), pathArb), (s) => {
        const q = gitQuote(s);
        if (!needsGitQuoting(s)) expect(q).toBe(s);
        else {
          expect(q).toMatch(/^"[\x20-\x7e]*"$/);
          expect(gitUnquote(q)).toEqual({ value: s, end: q.length });
        }
      }),
      runs,
    );
  });
});

describe("producing git patches (T §3.3 B↓-3)", () => {
  it("writes a modify as Git does: no prefixes, no index line, merged and split hunks, no-newline marker", () => {
    const old = Array.from({ length: 20 }, (_, i) => `${i + 1}\n`).join("");
    const next = old.replace("5\n", "FIVE\n").replace("13\n", "") + "21";
    expect(gitPatchSection("modify", "/w/n1", old, next)).toBe(
      [
        "diff --git /w/n1 /w/n1",
        "--- /w/n1",
        "+++ /w/n1",
        "@@ -2,7 +2,7 @@",
        " 2",
        " 3",
        " 4",
        "-5",
        "+FIVE",
        " 6",
        " 7",
        " 8",
        "@@ -10,7 +10,6 @@",
        " 10",
        " 11",
        " 12",
        "-13",
        " 14",
        " 15",
        " 16",
        "@@ -18,3 +17,4 @@",
        " 18",
        " 19",
        " 20",
        "+21",
        "\\ No newline at end of file",
        "",
      ].join("\n"),
    );
  });

  it("merges two changes six context lines apart into one hunk and splits them at seven", () => {
    const ten = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
    const merged = unifiedHunks(ten, "1\n2\nX\n4\n5\n6\n7\n8\n9\nY\n");
    expect(merged.map((h) => [h.oldStart, h.oldCount, h.newStart, h.newCount])).toEqual([[1, 10, 1, 10]]);
    const eleven = ten + "11\n";
    const split = unifiedHunks(eleven, "1\n2\nX\n4\n5\n6\n7\n8\n9\n10\nY\n");
    expect(split.map((h) => [h.oldStart, h.oldCount, h.newStart, h.newCount])).toEqual([
      [1, 6, 1, 6],
      [8, 4, 8, 4],
    ]);
  });

  it("omits a count of one and names the line before an empty range", () => {
    expect(gitPatchSection("modify", "/s", "x\n", "y\n")).toBe(
      "diff --git /s /s\n--- /s\n+++ /s\n@@ -1 +1 @@\n-x\n+y\n",
    );
    expect(gitPatchSection("modify", "/e", "", "y\n")).toContain("@@ -0,0 +1 @@\n+y\n");
    expect(gitPatchSection("modify", "/e", "y\n", "")).toContain("@@ -1 +0,0 @@\n-y\n");
  });

  it("writes an add with new file mode and /dev/null on the old side", () => {
    expect(gitPatchSection("add", "/w/a", "", "x\ny")).toBe(
      "diff --git /w/a /w/a\nnew file mode 100644\n--- /dev/null\n+++ /w/a\n@@ -0,0 +1,2 @@\n+x\n+y\n\\ No newline at end of file\n",
    );
  });

  it("writes an add of an empty file as the header lines alone", () => {
    expect(gitPatchSection("add", "/w/empty", "", "")).toBe("diff --git /w/empty /w/empty\nnew file mode 100644\n");
  });

  it("writes a delete with deleted file mode and /dev/null on the new side", () => {
    expect(gitPatchSection("delete", "/w/s1", "x\n", "")).toBe(
      "diff --git /w/s1 /w/s1\ndeleted file mode 100644\n--- /w/s1\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n",
    );
  });

  it("appends a TAB to the file lines of a path holding a space, quoted or not", () => {
    const p = gitPatchSection("modify", "/w/my file.txt", "a\n", "b\n");
    expect(p).toContain("diff --git /w/my file.txt /w/my file.txt\n--- /w/my file.txt\t\n+++ /w/my file.txt\t\n");
    const q = gitPatchSection("add", "/w/h é.txt", "", "a\n");
    expect(q).toContain('diff --git "/w/h \\303\\251.txt" "/w/h \\303\\251.txt"\n');
    expect(q).toContain('--- /dev/null\n+++ "/w/h \\303\\251.txt"\t\n');
  });

  it("keeps CRLF line endings verbatim inside the lines", () => {
    expect(gitPatchSection("modify", "/c", "a\r\nb\r\n", "a\r\nB\r\n")).toBe(
      "diff --git /c /c\n--- /c\n+++ /c\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+B\r\n",
    );
  });

  it("gives no hunks for identical texts", () => {
    expect(unifiedHunks("a\nb\n", "a\nb\n")).toEqual([]);
    expect(gitPatchSection("modify", "/same", "a\n", "a\n")).toBe("diff --git /same /same\n");
  });

  it("finds a shortest edit script (Myers)", () => {
    const blocks = changedBlocks(["a", "b", "c", "a", "b", "b", "a"], ["c", "b", "a", "b", "a", "c"]);
    const edits = blocks.reduce((n, b) => n + (b.a1 - b.a0) + (b.b1 - b.b0), 0);
    expect(edits).toBe(5); // D of the paper's example
  });

  it("edits no more lines of texts that share a head and a tail than of what lies between (property)", () => {
    // Lines in common at both ends are matched, never edited (the head and tail are compared before
    // the lines are interned: an edit of a large file diffs its few changed lines).
    const lines = fc.array(fc.constantFrom("a", "b", "c", "d"), { maxLength: 12 });
    const edits = (a: string[], b: string[]) =>
      changedBlocks(a, b).reduce((n, k) => n + (k.a1 - k.a0) + (k.b1 - k.b0), 0);
    fc.assert(
      fc.property(lines, lines, lines, lines, (head, x, y, tail) => {
        const blocks = changedBlocks([...head, ...x, ...tail], [...head, ...y, ...tail]);
        expect(edits([...head, ...x, ...tail], [...head, ...y, ...tail])).toBe(edits(x, y));
        // In order, apart, and each a change.
        let a = 0;
        let b = 0;
        for (const k of blocks) {
          expect(k.a0).toBeGreaterThanOrEqual(a);
          expect(k.b0).toBeGreaterThanOrEqual(b);
          expect(k.a1 - k.a0 + (k.b1 - k.b0)).toBeGreaterThan(0);
          a = k.a1 + 1;
          b = k.b1 + 1;
        }
      }),
      runs,
    );
  });

  it("still produces a correct patch for large unrelated texts within the work budget", () => {
    const old = Array.from({ length: 6000 }, (_, i) => `old ${i}\n`).join("");
    const next = Array.from({ length: 6000 }, (_, i) => (i % 2 === 0 ? `old ${i}\n` : `new ${i}\n`)).join("");
    const s = only(gitPatchSection("modify", "/big", old, next));
    expect(applyHunks(old, s.hunks)).toBe(next);
  });
});

describe("parsing git patches (T §3.3 A↓-1)", () => {
  const renameAndBinary = [
    "diff --git /r/b.png /r/b.png",
    "old mode 100644",
    "new mode 100755",
    "index 87ae6b6..22f6b3b",
    "Binary files /r/b.png and /r/b.png differ",
    'diff --git /r/f g.txt "/r/h \\303\\251.txt"',
    "similarity index 66%",
    "rename from /r/f g.txt",
    'rename to "/r/h \\303\\251.txt"',
    "index de98044..6dcce7d 100644",
    "--- /r/f g.txt\t",
    '+++ "/r/h \\303\\251.txt"\t',
    "@@ -1,3 +1,3 @@",
    " a",
    " b",
    "-c",
    "+C",
    "",
  ].join("\n");

  it("reads a binary section with a mode change and a quoted rename with its hunk", () => {
    const [bin, ren] = sectionsOf(renameAndBinary);
    expect(bin).toMatchObject({
      oldPath: "/r/b.png",
      newPath: "/r/b.png",
      isBinary: true,
      oldMode: "100644",
      newMode: "100755",
      hunks: [],
    });
    expect(ren).toMatchObject({
      oldPath: "/r/f g.txt",
      newPath: "/r/h é.txt",
      isRename: true,
      isCopy: false,
      newMode: "100644",
    });
    expect(sideText(ren!.hunks, "old", "⋮")).toBe("a\nb\nc\n");
    expect(sideText(ren!.hunks, "new", "⋮")).toBe("a\nb\nC\n");
    expect(ren!.text).toBe(renameAndBinary.slice(renameAndBinary.indexOf("diff --git /r/f g.txt")));
  });

  it("skips a GIT binary patch payload up to the next section", () => {
    const text = [
      "diff --git /r/b.png /r/b.png",
      "index 87ae6b695deceaf160611414f7dcd5c7366b2e79..22f6b3b038c9c8f81e86f801c481bbf851e477fe 100644",
      "GIT binary patch",
      "literal 8",
      "PcmYew%wtF_sx$%s42c4`",
      "",
      "literal 7",
      "OcmYew%wtF_sssQD(E^45",
      "",
      "diff --git /r/x /r/x",
      "--- /r/x",
      "+++ /r/x",
      "@@ -1 +1 @@",
      "-x",
      "+y",
    ].join("\n");
    const [bin, txt] = sectionsOf(text);
    expect(bin).toMatchObject({ isBinary: true, oldPath: "/r/b.png", newMode: "100644" });
    expect(txt).toMatchObject({ oldPath: "/r/x", newPath: "/r/x", isBinary: false });
  });

  it("reads copy headers and a pure rename without hunks", () => {
    const s = sectionsOf(
      [
        "diff --git /a /b",
        "similarity index 100%",
        "copy from /a",
        "copy to /b",
        "diff --git /c d /e f",
        "similarity index 100%",
        "rename from /c d",
        "rename to /e f",
        "",
      ].join("\n"),
    );
    expect(s[0]).toMatchObject({ oldPath: "/a", newPath: "/b", isCopy: true, hunks: [] });
    expect(s[1]).toMatchObject({ oldPath: "/c d", newPath: "/e f", isRename: true, hunks: [] });
  });

  it("tells added and deleted files by mode headers or /dev/null, an empty add by its header alone", () => {
    const [add, del, empty] = sectionsOf(
      gitPatchSection("add", "/n", "", "x\n") +
        gitPatchSection("delete", "/d", "y\n", "") +
        gitPatchSection("add", "/e", "", ""),
    );
    expect(add).toMatchObject({ oldPath: null, newPath: "/n", isNew: true, isDeleted: false });
    expect(del).toMatchObject({ oldPath: "/d", newPath: null, isNew: false, isDeleted: true });
    expect(empty).toMatchObject({ oldPath: null, newPath: "/e", isNew: true, hunks: [] });
    const plain = only("diff --git /p /p\n--- /dev/null\n+++ /p\n@@ -0,0 +1 @@\n+x\n");
    expect(plain).toMatchObject({ isNew: true, oldPath: null, newPath: "/p" });
  });

  it("reads a file literally named /dev/null as a path when the header says so", () => {
    const s = only("diff --git /dev/null /dev/null\n--- /dev/null\n+++ /dev/null\n@@ -1 +1 @@\n-a\n+b\n");
    expect(s).toMatchObject({ oldPath: "/dev/null", newPath: "/dev/null", isNew: false, isDeleted: false });
  });

  it("cuts GNU timestamps after a TAB and strips CR from header lines, never from content", () => {
    const s = only(
      "diff --git /t /t\r\n--- /t\t2024-01-01 00:00:00\r\n+++ /t\t2024-01-02 00:00:00\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n",
    );
    expect(s).toMatchObject({ oldPath: "/t", newPath: "/t" });
    expect(sideText(s.hunks, "new", "⋮")).toBe("b\r\n");
  });

  it("applies the no-newline marker to the line before it, on its side only", () => {
    const s = only("diff --git /n /n\n--- /n\n+++ /n\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n");
    expect(sideText(s.hunks, "old", "⋮")).toBe("a");
    expect(sideText(s.hunks, "new", "⋮")).toBe("a\n");
  });

  it("reads a blank line inside a hunk as an empty context line (whitespace-stripped patches)", () => {
    const s = only("diff --git /b /b\n--- /b\n+++ /b\n@@ -1,3 +1,3 @@\n a\n\n-c\n+C\n");
    expect(applyHunks("a\n\nc\n", s.hunks)).toBe("a\n\nC\n");
  });

  it("joins the hunks of one side with the separator line", () => {
    const old = Array.from({ length: 20 }, (_, i) => `${i + 1}\n`).join("");
    const s = only(gitPatchSection("modify", "/j", old, old.replace("2\n", "two\n").replace("19\n", "nineteen\n")));
    expect(s.hunks).toHaveLength(2);
    expect(sideText(s.hunks, "old", "⋮")).toBe("1\n2\n3\n4\n5\n⋮\n16\n17\n18\n19\n20\n");
    expect(sideText(s.hunks, "new", "⋮")).toBe("1\ntwo\n3\n4\n5\n⋮\n16\n17\n18\nnineteen\n20\n");
  });

  it("accepts an empty patch as no sections", () => {
    expect(parseGitPatch("")).toEqual({ ok: true, sections: [] });
  });

  it.each([
    [
      "text before the first section",
      "From abc Mon Sep 17 00:00:00 2001\ndiff --git /a /a\n",
      "text_before_first_section",
    ],
    ["a plain unified diff", "--- /a\n+++ /a\n@@ -1 +1 @@\n-a\n+b\n", "text_before_first_section"],
    ["a truncated hunk", "diff --git /a /a\n--- /a\n+++ /a\n@@ -1,2 +1,2 @@\n-a\n+b\n", "truncated_hunk"],
    [
      "a hunk with more lines than counted",
      "diff --git /a /a\n--- /a\n+++ /a\n@@ -1 +1 @@\n-a\n+b\n+c\n",
      "unexpected_line",
    ],
    ["a line of unknown kind in a hunk", "diff --git /a /a\n--- /a\n+++ /a\n@@ -1 +1 @@\n*a\n+b\n", "bad_hunk_line"],
    ["a missing +++ line", "diff --git /a /a\n--- /a\n@@ -1 +1 @@\n-a\n+b\n", "missing_plus_line"],
    ["bad quoting", 'diff --git /a /a\n--- "/a\n+++ /a\n', "bad_quoting"],
    [
      "a marker with no line before it",
      "diff --git /a /a\n--- /a\n+++ /a\n@@ -1 +1 @@\n\\ No newline\n-a\n+b\n",
      "misplaced_no_newline_marker",
    ],
    [
      "lines after the end of a file",
      "diff --git /a /a\n--- /a\n+++ /a\n@@ -1,2 +1,2 @@\n-a\n\\ No newline\n-b\n+c\n+d\n",
      "hunk_line_count",
    ],
    ["a section without any path", "diff --git /a /b\nold mode 100644\nnew mode 100755\n", "unknown_path"],
    ["an email signature", "diff --git /a /a\n--- /a\n+++ /a\n@@ -1 +1 @@\n-a\n+b\n-- \n2.40.0\n", "unexpected_line"],
  ])("rejects %s, so the caller shows the text instead", (_name, text, reason) => {
    const r = parseGitPatch(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toBe(reason);
  });

  it("applying a parsed patch to the old text gives the new text (property)", () => {
    fc.assert(
      fc.property(textPairArb, pathArb, fc.constantFrom("modify", "add", "delete"), ([old, next], path, op) => {
        const before = op === "add" ? "" : old;
        const after = op === "delete" ? "" : next;
        const text = gitPatchSection(op, path, before, after);
        const s = only(text);
        expect(s.text).toBe(text);
        expect(s.oldPath).toBe(op === "add" ? null : path);
        expect(s.newPath).toBe(op === "delete" ? null : path);
        expect(applyHunks(before, s.hunks)).toBe(after);
        if (op === "add") expect(sideText(s.hunks, "new", "⋮")).toBe(after);
        if (op === "delete") expect(sideText(s.hunks, "old", "⋮")).toBe(before);
      }),
      runs,
    );
  });

  it("parses several produced sections back in order, each with its own text (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(textPairArb, pathArb), { minLength: 1, maxLength: 4 }), (files) => {
        const texts = files.map(([[old, next], path]) => gitPatchSection("modify", path, old, next));
        const sections = sectionsOf(texts.join(""));
        expect(sections.map((s) => s.text)).toEqual(texts);
        sections.forEach((s, k) => expect(applyHunks(files[k]![0][0], s.hunks)).toBe(files[k]![0][1]));
      }),
      runs,
    );
  });

  it("diffs the window between the common head and tail as it diffs the whole texts (property)", () => {
    // The window's lines are split and diffed alone, numbered from the lines before it.
    fc.assert(
      fc.property(textPairArb, fc.nat({ max: 4 }), ([old, next], context) => {
        expect(unifiedHunks(old, next, context)).toEqual(unifiedLineHunks(splitLines(old), splitLines(next), context));
      }),
      runs,
    );
    // A change at either end, next to a newline, one text the other's head or tail (the tail must not
    // reach into the head), with and without context.
    for (const [old, next] of [
      ["\na\nb\n", "a\nb\n"],
      ["a\nb\n", "\na\nb\n"],
      ["a\nb", "a\nb\n"],
      ["a\nb\n", "a\nbc\n"],
      ["x\nx\n", "x\nx\nx\n"],
      ["x\nx\nx\n", "x\n"],
      ["x\n".repeat(300) + "y\n", "x\n".repeat(300)],
      ["x\n".repeat(300), "x\n".repeat(299) + "z\n" + "x\n"],
    ] as const)
      for (const context of [0, 1, 3])
        expect(unifiedHunks(old, next, context)).toEqual(unifiedLineHunks(splitLines(old), splitLines(next), context));
  });

  it("diffs a splice from its base text as it diffs the two texts (property)", () => {
    const inserted = fc.oneof(
      fc.array(lineArb, { maxLength: 3 }).map((ls) => ls.join("\n")),
      fc.constantFrom("", "\n", "x", "a\n", "\nb"),
    );
    fc.assert(
      fc.property(
        textArb,
        fc.nat(),
        fc.nat(),
        inserted,
        fc.constantFrom("old", "new"),
        fc.nat({ max: 4 }),
        (base, i, n, text, side, context) => {
          const at = i % (base.length + 1);
          const removed = n % (base.length - at + 1);
          const other = base.slice(0, at) + text + base.slice(at + removed);
          const splice = { base: side, at, removed, inserted: text } as const;
          const [old, next] = side === "old" ? [base, other] : [other, base];
          expect(splicedHunks(base, splice, context)).toEqual(unifiedHunks(old, next, context));
        },
      ),
      runs,
    );
    // At either end of the text, next to a newline; an insertion that repeats what follows it (the
    // texts' common head runs on past the splice, past the lines around it).
    for (const [base, at, removed, inserted] of [
      ["+plus\nb\n", 5, 0, "\nb"],
      ["a\nb\nb\nb\nb\nc\n", 2, 0, "b\n"],
      ["a\nb\nb\nb\nb\nc\n", 4, 2, ""],
      ["x\ny\nx\ny\n", 4, 0, "x\ny\n"],
      ["\nx\n", 0, 0, "a"],
      ["\nx\n", 0, 1, ""],
      ["x\n", 2, 0, "y\n"],
      ["x", 1, 0, "\n"],
    ] as const)
      for (const context of [0, 3])
        for (const side of ["old", "new"] as const) {
          const other = base.slice(0, at) + inserted + base.slice(at + removed);
          const [old, next] = side === "old" ? [base, other] : [other, base];
          expect(splicedHunks(base, { base: side, at, removed, inserted }, context)).toEqual(
            unifiedHunks(old, next, context),
          );
        }
  });

  it("applies hunks to any text as its lines would take them, or not at all (property)", () => {
    // The definition: the text's lines, those before each hunk kept, its lines checked and replaced.
    const byLines = (text: string, hunks: readonly Hunk[]): string | undefined => {
      const lines = splitLines(text);
      const out: string[] = [];
      let pos = 0;
      for (const h of hunks) {
        const start = h.oldCount === 0 ? h.oldStart : h.oldStart - 1;
        if (start < pos || start > lines.length) return undefined;
        for (; pos < start; pos++) out.push(lines[pos]!);
        for (const l of h.lines) {
          const full = l.eol ? `${l.text}\n` : l.text;
          if (l.op === "+") out.push(full);
          else if (lines[pos++] !== full) return undefined;
          else if (l.op === " ") out.push(full);
        }
      }
      return [...out, ...lines.slice(pos)].join("");
    };
    fc.assert(
      fc.property(textPairArb, textArb, ([old, next], other) => {
        const hunks = unifiedHunks(old, next);
        // On its own old text, on another, and on the new one (a patch already applied).
        for (const text of [old, other, next]) expect(applyHunks(text, hunks)).toBe(byLines(text, hunks));
      }),
      runs,
    );
    // Past the last line, at it, and out of order.
    const add = (at: number): Hunk => ({
      oldStart: at,
      oldCount: 0,
      newStart: at + 1,
      newCount: 1,
      lines: [{ op: "+", text: "x", eol: true }],
    });
    const keep = (at: number, text: string): Hunk => ({
      oldStart: at,
      oldCount: 1,
      newStart: at,
      newCount: 1,
      lines: [{ op: " ", text, eol: true }],
    });
    for (const [text, hunks] of [
      ["a\n", [add(2)]],
      ["a\n", [add(1)]],
      ["a", [add(1)]],
      ["", [add(0)]],
      ["", [add(1)]],
      ["a\nb\n", [keep(2, "b"), keep(1, "a")]],
      ["a\nb\n", [keep(1, "a"), add(0)]],
      ["a\nb\n", [keep(1, "a"), keep(2, "b")]],
    ] as const)
      expect(applyHunks(text, hunks)).toBe(byLines(text, hunks));
    expect(applyHunks("a\n", [add(2)])).toBeUndefined();
    expect(applyHunks("a\n", [add(1)])).toBe("a\nx\n");
  });

  it("hunk headers count their lines and ranges do not overlap (property)", () => {
    fc.assert(
      fc.property(textPairArb, ([old, next]) => {
        const hunks = unifiedHunks(old, next);
        let lastOld = 0;
        for (const h of hunks) {
          expect(h.lines.filter((l) => l.op !== "+")).toHaveLength(h.oldCount);
          expect(h.lines.filter((l) => l.op !== "-")).toHaveLength(h.newCount);
          expect(h.lines.some((l) => l.op !== " ")).toBe(true);
          const first = h.oldCount === 0 ? h.oldStart + 1 : h.oldStart;
          expect(first).toBeGreaterThan(lastOld);
          lastOld = h.oldStart + h.oldCount - 1;
        }
      }),
      runs,
    );
  });
});
