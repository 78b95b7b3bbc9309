// What the agent may touch through the editor's tools (H §6.5): absolute paths inside the session's
// roots, lexically and through symbolic links.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { pathProblem } from "../../src/editor/paths.js";

const base = mkdtempSync(join(tmpdir(), "acp-bridge-paths-"));
const work = join(base, "work");
const other = join(base, "other");
mkdirSync(work);
mkdirSync(other);
symlinkSync(other, join(work, "link-out"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const roots = { cwd: work, directories: [] as string[] };
const ok = (path: string, r = roots, anyPath = false) => pathProblem(path, r, "posix", anyPath);

describe("the editor tools' path rule", () => {
  it("accepts absolute paths inside the cwd, the cwd itself and files not created yet", () => {
    expect(ok(join(work, "a.txt"))).toBeUndefined();
    expect(ok(work)).toBeUndefined();
    expect(ok(join(work, "new/dir/file.txt"))).toBeUndefined();
  });

  it("refuses a relative path, whatever the roots", () => {
    expect(ok("a.txt")).toContain("must be absolute");
    expect(ok("a.txt", roots, true)).toContain("must be absolute");
  });

  it("refuses a path outside the roots, `..` escapes and a sibling sharing the root's prefix", () => {
    expect(ok("/etc/passwd")).toContain("outside the session's directories");
    expect(ok(join(work, "../other/x"))).toContain("outside");
    expect(ok(`${work}-other/x`)).toContain("outside");
  });

  it("accepts paths in additionalDirectories", () => {
    expect(ok(join(other, "x"), { cwd: work, directories: [other] })).toBeUndefined();
  });

  it("refuses a symbolic link inside a root that leads out of every root", () => {
    expect(ok(join(work, "link-out", "x"))).toContain("through a symbolic link");
    expect(ok(join(work, "link-out", "x"), { cwd: work, directories: [other] })).toBeUndefined();
  });

  it("lifts the roots rule with --editor-tools-any-path", () => {
    expect(ok("/etc/passwd", roots, true)).toBeUndefined();
  });

  it("follows Windows rules for a Windows agent: drive paths, either separator, case-insensitive", () => {
    const w = { cwd: "C:\\Work", directories: [] };
    expect(pathProblem("c:\\work\\a.txt", w, "windows", false)).toBeUndefined();
    expect(pathProblem("C:/Work/sub/a.txt", w, "windows", false)).toBeUndefined();
    expect(pathProblem("C:\\Other\\a.txt", w, "windows", false)).toContain("outside");
    expect(pathProblem("\\Work\\a.txt", w, "windows", false)).toContain("must be absolute");
  });
});
