// Key order across a chain of bridges. Converters rebuild objects, so a v1 → v2 → v1 round trip
// restores every value but not the order of keys, and two bridges back to back would not be
// byte-transparent (issue 4; T §9 case 20: messages the proxies do not coalesce are byte-identical).
// A bridge talking to another bridge records the key order of each message it translates in the
// root `_meta` (converters carry unknown `_meta` keys verbatim); the bridge that writes the message
// back in its source version puts the keys in that order and removes the record. Plain peers never
// see a record: only bridges write them, only toward bridges.
import { isObject, type Obj } from "../base/json.js";

/**
 * Next to the stash envelope (`_meta["acp-bridge"]`), which converters consume on the way. A link
 * looks for it in a line before splicing one (link.ts `takesSplice`); tests read the record.
 */
export const KEY_ORDER_KEY = "acp-bridge/order";

interface KeyOrderRecord {
  /** The version of the message the order was taken from: restored when written in that version. */
  readonly v: 1 | 2;
  /** Whether the root had `_meta` before the record was added. */
  readonly hadMeta: boolean;
  /** It was `null` (v2: ≡ absent, kept exact). */
  readonly metaWasNull?: true;
  /** JSON pointer (RFC 6901) of each object with two or more keys → its keys in order. */
  readonly keys: Readonly<Record<string, readonly string[]>>;
}

function rootField(msg: Obj): "params" | "result" | undefined {
  if (isObject(msg.params)) return "params";
  if (isObject(msg.result)) return "result";
  return undefined;
}

const escapeToken = (k: string): string => k.replace(/~/g, "~0").replace(/\//g, "~1");

function collect(value: unknown, pointer: string, out: Record<string, string[]>): void {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) collect(value[i], `${pointer}/${String(i)}`, out);
    return;
  }
  if (!isObject(value)) return;
  const keys = Object.keys(value);
  if (keys.length >= 2) out[pointer] = keys;
  for (const k of keys) collect(value[k], `${pointer}/${escapeToken(k)}`, out);
}

/**
 * The key order of a message's params or result, or `undefined` when there is no order to keep
 * (`acp-bridge convert` records the handshake's own request with it, src/replay/chain.ts).
 */
export function keyOrderOf(msg: Obj, version: 1 | 2): KeyOrderRecord | undefined {
  const field = rootField(msg);
  if (!field) return undefined;
  const root = msg[field] as Obj;
  const meta = root._meta;
  // A record rides in an object `_meta`; a `null` one is rebuilt from the record's flag.
  if (meta !== undefined && meta !== null && !isObject(meta)) return undefined;
  const keys: Record<string, string[]> = {};
  collect(root, "", keys);
  if (Object.keys(keys).length === 0) return undefined;
  return meta === null
    ? { v: version, hadMeta: true, metaWasNull: true, keys }
    : { v: version, hadMeta: meta !== undefined, keys };
}

/** Adds the record to the message's root `_meta` (a new `_meta` object; the message is ours to change). */
export function recordKeyOrder(msg: Obj, version: 1 | 2): void {
  const record = keyOrderOf(msg, version);
  if (!record) return;
  const root = msg[rootField(msg) as string] as Obj;
  const meta = isObject(root._meta) ? root._meta : {};
  root._meta = Object.fromEntries([...Object.entries(meta), [KEY_ORDER_KEY, record]]);
}

function isRecord(x: unknown): x is KeyOrderRecord {
  if (!isObject(x) || (x.v !== 1 && x.v !== 2) || typeof x.hadMeta !== "boolean" || !isObject(x.keys)) return false;
  if (x.metaWasNull !== undefined && x.metaWasNull !== true) return false;
  return Object.values(x.keys).every((ks) => Array.isArray(ks) && ks.every((k) => typeof k === "string"));
}

/** Every ancestor pointer of the recorded ones (the paths the rebuild must walk). */
function prefixesOf(pointers: readonly string[]): Set<string> {
  const set = new Set<string>();
  for (const p of pointers) {
    let cut = p.length;
    for (;;) {
      const prefix = p.slice(0, cut);
      if (set.has(prefix)) break;
      set.add(prefix);
      if (cut === 0) break;
      cut = p.lastIndexOf("/", cut - 1);
    }
  }
  return set;
}

function reorder(
  value: unknown,
  pointer: string,
  keys: Readonly<Record<string, readonly string[]>>,
  walk: Set<string>,
): unknown {
  if (!walk.has(pointer)) return value;
  if (Array.isArray(value)) return value.map((v, i) => reorder(v, `${pointer}/${String(i)}`, keys, walk));
  if (!isObject(value)) return value;
  const order = Object.hasOwn(keys, pointer) ? keys[pointer] : undefined;
  const entries: [string, unknown][] = [];
  const done = new Set<string>();
  const take = (k: string): void => {
    done.add(k);
    entries.push([k, reorder(value[k], `${pointer}/${escapeToken(k)}`, keys, walk)]);
  };
  for (const k of order ?? []) if (!done.has(k) && Object.hasOwn(value, k)) take(k);
  // Keys the record does not know (added on the way) keep their relative order, after.
  for (const k of Object.keys(value)) if (!done.has(k)) take(k);
  // fromEntries defines own properties, so a `__proto__` key stays a key.
  return Object.fromEntries(entries);
}

/**
 * The message as it should be written to a peer of `version`: when its root `_meta` carries a record
 * taken from that version, the record is removed and every recorded object gets its keys back in
 * order. A record of the other version is left for the bridge further on. Returns `msg` itself when
 * there is nothing to do.
 */
export function restoreKeyOrder(msg: object, version: 1 | 2): object {
  const m = msg as Obj;
  const field = rootField(m);
  if (!field) return msg;
  const root = m[field] as Obj;
  const meta = root._meta;
  if (!isObject(meta) || !Object.hasOwn(meta, KEY_ORDER_KEY)) return msg;
  const record = meta[KEY_ORDER_KEY];
  const valid = isRecord(record);
  if (valid && record.v !== version) return msg;
  const rest = Object.fromEntries(Object.entries(meta).filter(([k]) => k !== KEY_ORDER_KEY));
  const empty = Object.keys(rest).length === 0;
  const stripped: Obj = Object.fromEntries(
    Object.entries(root).filter(([k]) => k !== "_meta" || !empty || !valid || record.hadMeta),
  );
  if (Object.hasOwn(stripped, "_meta")) stripped._meta = valid && empty && record.metaWasNull === true ? null : rest;
  const ordered = valid ? reorder(stripped, "", record.keys, prefixesOf(Object.keys(record.keys))) : stripped;
  return { ...m, [field]: ordered };
}
