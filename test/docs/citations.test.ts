// Every `H §…` / `T §…` citation in the repository resolves to a section heading of docs/ (the
// citation scheme of docs/README.md), every link into docs/ lands, and the section headings keep
// the one format the citations rely on. Runs on the source tree; nothing is built.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const DOCS = "docs";
/** The document each citation letter refers to. */
const SECTION_DOCS = { H: "docs/handshake-and-sessions.md", T: "docs/turns-and-updates.md" } as const;
type Letter = keyof typeof SECTION_DOCS;

/** Where citations are written: code, tests, tools, and every Markdown file at the top or in docs/. */
const SCANNED_DIRS = ["src", "mappings", "test", "bench", "interop", "build", DOCS];
const SKIPPED_DIRS = new Set(["node_modules", ".cache", ".runs", "dist"]);
const TEXT_FILE = /\.(ts|js|mjs|md)$/;
/** This file: its examples of bad citations are data, not citations. */
const SELF = relative(process.cwd(), fileURLToPath(import.meta.url));

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return SKIPPED_DIRS.has(e.name) ? [] : filesUnder(path);
    return TEXT_FILE.test(e.name) ? [path] : [];
  });
}

function scannedFiles(): string[] {
  const top = readdirSync(".").filter((f) => f.endsWith(".md"));
  return [...top, ...SCANNED_DIRS.flatMap(filesUnder)].filter((f) => normalize(f) !== normalize(SELF));
}

interface Citation {
  readonly letter: Letter;
  readonly section: string;
  readonly at: string;
}

/**
 * The sections one line cites. A bare `§` takes the letter of the nearest citation before it on the
 * line (`H §5.1, §5.4`); `§a-b.c` is a range (both ends cited), `§a-n` item n of §a; `issue 7 §4`
 * cites an issue, not these docs. A bare `§` with no letter before it is returned as `orphan`.
 */
function citationsOf(line: string): { sections: { letter: Letter; section: string }[]; orphans: string[] } {
  const sections: { letter: Letter; section: string }[] = [];
  const orphans: string[] = [];
  let letter: Letter | undefined;
  for (const m of line.matchAll(/(\bissue \d+ )?(?:\b([HT]) )?§(\d+(?:\.\d+)*)(?:-(\d+(?:\.\d+)+))?/g)) {
    if (m[1] !== undefined) continue;
    if (m[2] !== undefined) letter = m[2] as Letter;
    const [start, end] = [m[3] ?? "", m[4]];
    if (letter === undefined) orphans.push(`§${start}`);
    else for (const section of end === undefined ? [start] : [start, end]) sections.push({ letter, section });
  }
  return { sections, orphans };
}

function allCitations(): { citations: Citation[]; orphans: string[] } {
  const citations: Citation[] = [];
  const orphans: string[] = [];
  for (const file of scannedFiles()) {
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, i) => {
        const at = `${file}:${i + 1}`;
        const found = citationsOf(line);
        for (const c of found.sections) citations.push({ ...c, at });
        for (const o of found.orphans) orphans.push(`${at}: ${o} has no H or T before it on its line`);
      });
  }
  return { citations, orphans };
}

/** A section heading: `## H §4 Title` (a top-level section) or `### H §4.10 Title`. */
const SECTION_HEADING = /^(#{2,3}) ([HT]) §(\d+)(?:\.(\d+))? (\S.*)$/;

interface Heading {
  readonly level: number;
  readonly letter: Letter;
  readonly section: string;
}

/** The section headings of a docs file, and every heading line that mentions `§` but is not one. */
function sectionHeadings(file: string): { headings: Heading[]; malformed: string[] } {
  const headings: Heading[] = [];
  const malformed: string[] = [];
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((line, i) => {
      if (!line.startsWith("#") || !line.includes("§")) return;
      const m = SECTION_HEADING.exec(line);
      if (!m) return void malformed.push(`${file}:${i + 1}: ${line}`);
      const [, hashes = "", letter = "", major = "", minor] = m;
      headings.push({
        level: hashes.length,
        letter: letter as Letter,
        section: minor === undefined ? major : `${major}.${minor}`,
      });
    });
  return { headings, malformed };
}

function docsFiles(): string[] {
  return readdirSync(DOCS)
    .filter((f) => f.endsWith(".md"))
    .map((f) => join(DOCS, f));
}

/** GitHub's anchor for a heading: lowercase, punctuation dropped, spaces as hyphens; repeats numbered. */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const m = /^#{1,6} (.*)$/.exec(line);
    if (!m) continue;
    const slug = (m[1] ?? "")
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
      .replace(/ /g, "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** What is wrong with a link to `target` (a repository path) and `anchor`, if anything. */
function linkProblem(target: string, anchor: string | undefined): string | undefined {
  if (!existsSync(target)) return `${target} does not exist`;
  if (anchor === undefined || !target.endsWith(".md")) return undefined;
  return anchorsOf(target).has(anchor) ? undefined : `${target} has no heading #${anchor}`;
}

/** Links that must land: `docs/x.md#a` named anywhere, and every relative link inside docs/. */
function brokenLinks(): string[] {
  const broken: string[] = [];
  for (const file of scannedFiles()) {
    const inDocs = dirname(file) === DOCS;
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, i) => {
        const at = `${file}:${i + 1}`;
        for (const m of line.matchAll(/(?<![\w./-])docs\/([\w.-]+\.md)(?:#([\w-]+))?/g)) {
          const problem = linkProblem(join(DOCS, m[1] ?? ""), m[2]);
          if (problem) broken.push(`${at}: ${problem}`);
        }
        if (!inDocs) return;
        for (const m of line.matchAll(/\]\(([^)\s]*)\)/g)) {
          const href = m[1] ?? "";
          if (/^[a-z]+:/.test(href)) continue;
          const [path = "", anchor] = href.split("#");
          const problem = linkProblem(path === "" ? file : normalize(join(DOCS, path)), anchor);
          if (problem) broken.push(`${at}: ${problem}`);
        }
      });
  }
  return broken;
}

describe("citations of the design notes (docs/README.md)", () => {
  it("reads a bare § with the letter before it, ranges as both ends, and items as their section", () => {
    expect(citationsOf("modes (H §5.2, §5.3), T §1.4-7/11 and T §3.2-3.3; issue 7 §4").sections).toEqual([
      { letter: "H", section: "5.2" },
      { letter: "H", section: "5.3" },
      { letter: "T", section: "1.4" },
      { letter: "T", section: "3.2" },
      { letter: "T", section: "3.3" },
    ]);
    expect(citationsOf("the spec's §1.4 INIT1").orphans).toEqual(["§1.4"]);
  });

  it("every H and T citation in the repository names a section that has a heading in docs/", () => {
    const headings = new Set(
      Object.values(SECTION_DOCS).flatMap((f) => sectionHeadings(f).headings.map((h) => `${h.letter} §${h.section}`)),
    );
    const { citations } = allCitations();
    expect(citations.length).toBeGreaterThan(500);
    const unresolved = citations.filter((c) => !headings.has(`${c.letter} §${c.section}`));
    expect(unresolved.map((c) => `${c.at}: ${c.letter} §${c.section}`)).toEqual([]);
  });

  it("every § citation says which document it cites (H or T)", () => {
    expect(allCitations().orphans).toEqual([]);
  });

  it("section headings keep the format `## H §4 Title` / `### H §4.10 Title`, each once, in order, in their letter's file", () => {
    const problems: string[] = [];
    for (const file of docsFiles()) {
      const { headings, malformed } = sectionHeadings(file);
      problems.push(...malformed.map((m) => `${m}: not a section heading`));
      const own = Object.entries(SECTION_DOCS).find(([, f]) => normalize(f) === normalize(file))?.[0];
      let last: number[] = [];
      const majors = new Set<string>();
      for (const h of headings) {
        const where = `${file}: ${h.letter} §${h.section}`;
        if (h.letter !== own) problems.push(`${where}: belongs in ${SECTION_DOCS[h.letter]}`);
        const parts = h.section.split(".").map(Number);
        if (h.level !== parts.length + 1) problems.push(`${where}: a ${"#".repeat(parts.length + 1)} heading`);
        const [major = 0, minor = -1] = parts;
        const [lastMajor = -1, lastMinor = -1] = last;
        if (major < lastMajor || (major === lastMajor && minor <= lastMinor))
          problems.push(`${where}: out of order or repeated`);
        if (parts.length === 1) majors.add(String(major));
        else if (!majors.has(String(major))) problems.push(`${where}: no ## ${h.letter} §${major} heading before it`);
        last = [major, minor];
      }
    }
    expect(problems).toEqual([]);
    for (const [letter, file] of Object.entries(SECTION_DOCS))
      expect(sectionHeadings(file).headings.filter((h) => h.letter === letter).length).toBeGreaterThan(20);
  });

  it("links into docs/ and between its files land on an existing file and heading", () => {
    expect(brokenLinks()).toEqual([]);
  });

  it("nothing points at the specification that used to live outside the repository", () => {
    const outside = scannedFiles().filter((f) => /shared\/spec|spec README/.test(readFileSync(f, "utf8")));
    expect(outside).toEqual([]);
  });
});
