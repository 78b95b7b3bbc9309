// A fresh secret per endpoint, and the one comparison of a presented secret with it: constant time
// over equal-length digests, so neither the secret's bytes nor its length leak through timing.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** 256 random bits, URL-safe (it travels in an HTTP header or an environment variable). */
export function freshToken(): string {
  return randomBytes(32).toString("base64url");
}

const digest = (s: string): Buffer => createHash("sha256").update(s, "utf8").digest();

/** Whether `presented` is `token`, in time independent of where they differ. */
export function tokenMatches(presented: string | undefined, token: string): boolean {
  if (presented === undefined) return false;
  return timingSafeEqual(digest(presented), digest(token));
}

/** The token of an `Authorization: Bearer <token>` header, if it has that form. */
export function bearerOf(header: string | undefined): string | undefined {
  const m = header === undefined ? null : /^Bearer +(\S+) *$/i.exec(header);
  return m?.[1];
}
