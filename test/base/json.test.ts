import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { copyMembers, omit, withMembers } from "../../src/base/json.js";
import { anyJson, anyKey } from "../support/arbitrary.js";

/** What `omit` did before it built its copy key by key: a spread, then a delete of each key. */
function spreadThenDelete(o: object, keys: string[]): Record<string, unknown> {
  const out = { ...o } as Record<string, unknown>;
  for (const k of keys) Reflect.deleteProperty(out, k);
  return out;
}

const anyObject = fc
  .array(fc.tuple(fc.oneof(anyKey, fc.constantFrom("0", "7", "42", "-1", "01", "_meta")), anyJson), { maxLength: 8 })
  .map((entries) => Object.fromEntries(entries) as Record<string, unknown>);

/** `got` is the copy `expected` is: the same own keys, in the same order, the same values, a plain object. */
function expectSameCopy(got: Record<string, unknown>, expected: Record<string, unknown>): void {
  expect(Reflect.ownKeys(got)).toEqual(Reflect.ownKeys(expected));
  for (const k of Object.keys(expected)) expect(got[k]).toBe(expected[k]);
  expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
  expect(JSON.stringify(got)).toBe(JSON.stringify(expected));
}

describe("omit", () => {
  it("gives the spread-and-delete copy: the same own keys, in the same order, with the same values", () => {
    fc.assert(
      fc.property(anyObject, fc.array(fc.oneof(anyKey, fc.constantFrom("0", "_meta")), { maxLength: 3 }), (o, keys) => {
        expectSameCopy(omit(o, ...keys), spreadThenDelete(o, keys));
      }),
    );
  });

  it("copies an own __proto__ key as a key, never as the copy's prototype", () => {
    const o = JSON.parse('{"a":1,"__proto__":{"polluted":true},"b":2}') as Record<string, unknown>;
    const got = omit(o, "a") as Record<string, unknown>;
    expect(Object.keys(got)).toEqual(["__proto__", "b"]);
    expect((got as { polluted?: unknown }).polluted).toBeUndefined();
    expect(JSON.stringify(got)).toBe('{"__proto__":{"polluted":true},"b":2}');
  });
});

describe("withMembers", () => {
  it("gives what a spread gives (copyMembers too): the same own keys, in the same order, with the same values", () => {
    fc.assert(
      fc.property(fc.option(anyObject, { nil: undefined }), anyObject, (o, extra) => {
        expectSameCopy(withMembers(o, extra), { ...o, ...extra });
        expectSameCopy(copyMembers(o), { ...o });
      }),
    );
  });

  it("gives what a spread gives when every added member is already the object's (a tag set again)", () => {
    const sameKeys = anyObject.chain((o) =>
      fc.tuple(
        fc.constant(o),
        fc
          .subarray(Object.keys(o))
          .chain((keys) =>
            fc
              .array(anyJson, { minLength: keys.length, maxLength: keys.length })
              .map((values) => Object.fromEntries(keys.map((k, i) => [k, values[i]])) as Record<string, unknown>),
          ),
      ),
    );
    fc.assert(
      fc.property(sameKeys, ([o, extra]) => {
        expectSameCopy(withMembers(o, extra), { ...o, ...extra });
      }),
    );
  });

  it("copies an own __proto__ key of either side as a key, and takes null as a spread does", () => {
    const o = JSON.parse('{"a":1,"__proto__":{"polluted":true}}') as Record<string, unknown>;
    const extra = JSON.parse('{"__proto__":{"again":true},"b":2}') as Record<string, unknown>;
    const got = withMembers(o, extra) as Record<string, unknown>;
    expect(Object.keys(got)).toEqual(["a", "__proto__", "b"]);
    expect((got as { polluted?: unknown; again?: unknown }).again).toBeUndefined();
    expect(JSON.stringify(got)).toBe('{"a":1,"__proto__":{"again":true},"b":2}');
    // Only members `o` has: set again in place, still as keys.
    const again = withMembers(o, JSON.parse('{"__proto__":{"third":true}}') as Record<string, unknown>);
    expect(Object.keys(again)).toEqual(["a", "__proto__"]);
    expect((again as { third?: unknown }).third).toBeUndefined();
    expect(JSON.stringify(again)).toBe('{"a":1,"__proto__":{"third":true}}');
    expect(withMembers(null as unknown as object, { b: 2 })).toEqual({ b: 2 });
  });
});
