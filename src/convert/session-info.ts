// Session title and timestamp, `session_info_update` (T §2.9): the same in both versions, except
// that v2 requires RFC 3339 for `updatedAt`, where v1 takes any string.

import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { expectObject, invalid } from "./content.js";
import { isObject, isString, type Obj, copyMembers } from "../base/json.js";
import { isRfc3339 } from "./rfc3339.js";
import { attempt, type Conv, type Loss, ok } from "./result.js";
import { type ConvertOptions, hasResidual, residualOf, setMeta, Stash, unstash } from "./stash.js";

/** A↓ `session_info_update` (body or whole update): passes; a stashed v1 `updatedAt` comes back. */
export function sessionInfoToV1(u: v2.SessionInfoUpdate): Conv<v1.SessionInfoUpdate> {
  return attempt(() => {
    const src = expectObject(u, []);
    checkTitle(src);
    if (src.updatedAt !== undefined && src.updatedAt !== null && !isString(src.updatedAt))
      invalid(["updatedAt"], "expected_string");
    const { meta, env } = unstash(src._meta, 1);
    const out: Obj = copyMembers(src);
    const stashed = residualOf(env, "updatedAt");
    if (hasResidual(env, "updatedAt") && (stashed === null || isString(stashed))) out.updatedAt = stashed;
    setMeta(out, meta);
    return ok(out as v1.SessionInfoUpdate);
  });
}

/**
 * B↓ `session_info_update`: passes (`null` clears `title` / `updatedAt` in both); an `updatedAt`
 * that is not RFC 3339 is omitted and stashed. `_meta`, a patch in v2, is forwarded as it is.
 */
export function sessionInfoToV2(u: v1.SessionInfoUpdate, opts: ConvertOptions): Conv<v2.SessionInfoUpdate> {
  return attempt(() => {
    const src = expectObject(u, []);
    checkTitle(src);
    const at = src.updatedAt;
    if (at !== undefined && at !== null && !isString(at)) invalid(["updatedAt"], "expected_string");
    const { meta } = unstash(src._meta, 2);
    const out: Obj = copyMembers(src);
    const stash = new Stash(1, opts);
    const lost: Loss[] = [];
    if (isString(at) && !isRfc3339(at)) {
      Reflect.deleteProperty(out, "updatedAt");
      stash.keep("updatedAt", at);
      lost.push({ path: ["updatedAt"], reason: "v2 timestamps are RFC 3339" });
    }
    setMeta(out, stash.into(meta));
    return ok(out as v2.SessionInfoUpdate, lost);
  });
}

/** Both versions: `title` a string or `null`, `_meta` an object or `null` (copied as they are). */
function checkTitle(src: Record<string, unknown>): void {
  if (src.title !== undefined && src.title !== null && !isString(src.title)) invalid(["title"], "expected_string");
  if (src._meta !== undefined && src._meta !== null && !isObject(src._meta)) invalid(["_meta"], "expected_object");
}
