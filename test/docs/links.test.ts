// The README sends readers to docs/ and SECURITY.md for what it no longer holds: every relative link
// of the repository's Markdown pages must name a file that exists, and every `#anchor` a heading of
// the page it points into (GitHub's heading ids).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";

const PAGES = ["README.md", "SECURITY.md", "CONTRIBUTING.md", ...readdirSync("docs").map((f) => `docs/${f}`)].filter(
  (f) => f.endsWith(".md"),
);

/** The text outside fenced code blocks and code spans, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
}

/** GitHub's ids of a page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const ids = new Set<string>();
  for (const [, heading] of markdown.replace(/^```[\s\S]*?^```/gm, "").matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = (heading ?? "")
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, "")
      .replace(/ /g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${String(n)}`);
  }
  return ids;
}

function links(page: string): { target: string; anchor: string | undefined }[] {
  const out: { target: string; anchor: string | undefined }[] = [];
  for (const [, href] of prose(readFileSync(page, "utf8")).matchAll(/\]\(([^)\s]+)\)/g)) {
    if (href === undefined || /^[a-z]+:/i.test(href)) continue;
    const [path = "", anchor] = href.split("#");
    out.push({ target: path === "" ? page : normalize(join(dirname(page), path)), anchor });
  }
  return out;
}

describe("Markdown links", () => {
  it.each(PAGES)("every relative link of %s names an existing file and heading", (page) => {
    const broken: string[] = [];
    for (const { target, anchor } of links(page)) {
      if (!existsSync(target)) broken.push(`${target}: no such file`);
      else if (anchor !== undefined && target.endsWith(".md") && !anchors(readFileSync(target, "utf8")).has(anchor))
        broken.push(`${target}#${anchor}: no such heading`);
    }
    expect(broken).toEqual([]);
  });

  it("the README links to the performance and interop narratives it summarizes", () => {
    const targets = links("README.md").map((l) => l.target);
    expect(targets).toContain("docs/performance.md");
    expect(targets).toContain("docs/interop.md");
  });
});
