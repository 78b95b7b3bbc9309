// RFC 3339 timestamps, the one check for v2's `updatedAt` (H §4.6 `SessionInfo`, T §2.9
// `session_info_update`). The form is what the v2 SDK's `z.iso.datetime({offset: true})` accepts:
// `T`, seconds, `Z` or `±hh:mm`, no leap second. A v2 SDK client silently drops anything else
// (`defaultOnError`), so a laxer check would hand it timestamps it cannot read.

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-](\d{2}):(\d{2}))$/;
// ISO 8601 calendar forms (extended or basic), reduced precision, `,` fractions, optional zone.
const ISO8601 =
  /^(\d{4})-?(\d{2})-?(\d{2})(?:[Tt ](\d{2})(?::?(\d{2})(?::?(\d{2})([.,]\d+)?)?)?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Calendar date, 24-hour clock without leap seconds, offset within ±23:59 (fields as digit strings). */
function inRange(y = "0", mo = "0", d = "0", h = "00", mi = "00", se = "00", oh = "00", om = "00"): boolean {
  const year = Number(y);
  const month = Number(mo);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : DAYS[month - 1];
  const day = Number(d);
  if (days === undefined || day < 1 || day > days) return false;
  return Number(h) <= 23 && Number(mi) <= 59 && Number(se) <= 59 && Number(oh) <= 23 && Number(om) <= 59;
}

/** Whether `s` is an RFC 3339 `date-time` a v2 SDK peer reads (the form above, ranges checked). */
export function isRfc3339(s: string): boolean {
  const r = RFC3339.exec(s);
  return r !== null && inRange(...r.slice(1));
}

/**
 * `s` as RFC 3339: unchanged when it already is; an ISO 8601 form rewritten exactly (a zone-less
 * time is read as UTC, never as the bridge's local zone, so the result does not depend on the
 * machine); `undefined` otherwise. Not `new Date(x)`: it reads such forms as local.
 */
export function toRfc3339(s: string): string | undefined {
  if (RFC3339.test(s)) return isRfc3339(s) ? s : undefined;
  const m = ISO8601.exec(s.trim());
  if (!m) return undefined;
  const [, y = "", mo = "", d = "", h = "00", mi = "00", se = "00", frac = "", , sign, oh, om = "00"] = m;
  if (!inRange(y, mo, d, h, mi, se, oh, om)) return undefined;
  const zone = sign === undefined || oh === undefined ? "Z" : `${sign}${oh}:${om}`;
  return `${y}-${mo}-${d}T${h}:${mi}:${se}${frac.replace(",", ".")}${zone}`;
}
