// The editor endpoints' secrets (H §6.5, SECURITY.md): fresh per use, compared in constant time.
import { describe, expect, it } from "vitest";
import { bearerOf, freshToken, tokenMatches } from "../../src/editor/token.js";

describe("endpoint tokens", () => {
  it("are 256 random bits, URL-safe, fresh each time", () => {
    const a = freshToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set(Array.from({ length: 100 }, freshToken)).size).toBe(100);
  });

  it("match only themselves: not a prefix, not a longer string, not nothing", () => {
    const t = freshToken();
    expect(tokenMatches(t, t)).toBe(true);
    expect(tokenMatches(t.slice(0, -1), t)).toBe(false);
    expect(tokenMatches(`${t}x`, t)).toBe(false);
    expect(tokenMatches("", t)).toBe(false);
    expect(tokenMatches(undefined, t)).toBe(false);
  });

  it("are read from an Authorization header only in the Bearer form", () => {
    expect(bearerOf("Bearer abc")).toBe("abc");
    expect(bearerOf("bearer abc")).toBe("abc");
    expect(bearerOf("Basic abc")).toBeUndefined();
    expect(bearerOf("Bearer")).toBeUndefined();
    expect(bearerOf(undefined)).toBeUndefined();
  });
});
