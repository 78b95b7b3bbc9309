// Session title and timestamp, `session_info_update` (T §2.9): the same in both versions, except
// that v2 requires RFC 3339 for `updatedAt`, where v1 takes any string.

import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { expectObject, invalid } from "./content.js";
import { isObject, isString } from "./json.js";
import { attempt, type Conv, type Loss, ok } from "./result.js";
import { type ConvertOptions, hasResidual, residualOf, setMeta, Stash, unstash } from "./stash.js";

type Obj = Record<string, unknown>;

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))$/;

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** RFC 3339 `date-time` (section 5.6, with the space separator its note allows), ranges checked. */
export function isRfc3339(s: string): boolean {
  const m = RFC3339.exec(s);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return false;
  if (hour > 23 || minute > 59 || second > 60) return false;
  if (m[8] !== "Z" && m[8] !== "z" && (Number(m[10]) > 23 || Number(m[11]) > 59)) return false;
  if (second === 60) {
    // A leap second exists only at 23:59:60 UTC.
    const sign = m[9] === "-" ? -1 : 1;
    const offset = m[10] === undefined ? 0 : sign * (Number(m[10]) * 60 + Number(m[11]));
    const utc = (((hour * 60 + minute - offset) % 1440) + 1440) % 1440;
    if (utc !== 23 * 60 + 59) return false;
  }
  return true;
}

/** A↓ `session_info_update` (body or whole update): passes; a stashed v1 `updatedAt` comes back. */
export function sessionInfoToV1(u: v2.SessionInfoUpdate): Conv<v1.SessionInfoUpdate> {
  return attempt(() => {
    const src = expectObject(u, []);
    checkTitle(src);
    const { meta, env } = unstash(src._meta, 1);
    const out: Obj = { ...src };
    if (hasResidual(env, "updatedAt")) out.updatedAt = residualOf(env, "updatedAt");
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
    const out: Obj = { ...src };
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
