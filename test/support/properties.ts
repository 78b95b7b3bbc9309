// The standard properties every v1 ⇄ v2 converter pair must have (issue 2, "properties"):
// (a) outputs validate against the target schema; (b) round trips are exact identities with the
// stash on; (c) with the stash off a round trip differs only where the converter reported a loss;
// (d) no throw (and no mutation of the input) on valid input; (e) breaking an interpreted field
// gives the typed error, and random mutations never throw.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Conv, Converted, Loss, Path } from "../../src/convert/result.js";
import type { ConvertOptions, StashLevel } from "../../src/convert/stash.js";
import { DEFAULT_STASH_MAX_BYTES } from "../../src/convert/stash.js";
import { arb, jsonValue } from "./arbitrary.js";
import { check, expectValid, type SchemaVersion } from "./schema.js";

/**
 * Runs per property: 100 by default (a fast local loop); `FC_NUM_RUNS` raises it (CI runs 1,000,
 * `.ci/run`).
 */
export function numRuns(): number {
  const n = Number(process.env.FC_NUM_RUNS);
  return Number.isFinite(n) && n > 0 ? n : 100;
}

export function options(stash: StashLevel): ConvertOptions {
  return { stash, stashMaxBytes: DEFAULT_STASH_MAX_BYTES };
}

interface Side<T> {
  readonly schema: SchemaVersion;
  readonly def: string;
  readonly arb?: fc.Arbitrary<T>;
}

export type PathPattern = readonly (string | number)[];

export interface PairSpec<A, B> {
  readonly name: string;
  readonly v1: Side<A>;
  readonly v2: Side<B>;
  readonly toV2: (x: A, opts: ConvertOptions) => Conv<B>;
  readonly toV1: (x: B, opts: ConvertOptions) => Conv<A>;
  /** Fields the converter interprets ("*" = any array index or object key). */
  readonly interpreted?: { readonly v1?: readonly PathPattern[]; readonly v2?: readonly PathPattern[] };
  /** Round trips that cannot be identities, with the reason. */
  readonly skip?: { readonly v1RoundTrip?: string; readonly v2RoundTrip?: string };
  /** Stash levels the identity property runs at (default `compact`). */
  readonly levels?: readonly StashLevel[];
}

/** JSON normal form: drops `undefined`, turns -0 into 0. */
export function norm(x: unknown): unknown {
  return x === undefined ? undefined : JSON.parse(JSON.stringify(x));
}

/** The places where two JSON values differ, as deep as both sides still have structure. */
export function diffPaths(a: unknown, b: unknown, at: Path = []): Path[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  const bothArrays = Array.isArray(a) && Array.isArray(b);
  const bothObjects =
    typeof a === "object" &&
    a !== null &&
    typeof b === "object" &&
    b !== null &&
    !Array.isArray(a) &&
    !Array.isArray(b);
  if (bothArrays && a.length === b.length) return a.flatMap((x, i) => diffPaths(x, b[i], [...at, i]));
  if (bothObjects) {
    const ao = a as Record<string, unknown>;
    const bo = b as Record<string, unknown>;
    const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
    return [...keys].flatMap((k) => diffPaths(ao[k], bo[k], [...at, k]));
  }
  if (deepEqualUnordered(a, b)) return [];
  return [at];
}

function deepEqualUnordered(a: unknown, b: unknown): boolean {
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqualUnordered(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao);
  return ak.length === Object.keys(bo).length && ak.every((k) => k in bo && deepEqualUnordered(ao[k], bo[k]));
}

function isPrefix(p: Path, q: Path): boolean {
  return p.length <= q.length && p.every((x, i) => String(x) === String(q[i]));
}

function covered(d: Path, lost: readonly Loss[]): boolean {
  return lost.some((l) => isPrefix(l.path, d) || isPrefix(d, l.path));
}

function showPath(p: Path): string {
  return p.length === 0 ? "/" : "/" + p.join("/");
}

/** Concrete paths in `value` that match `pattern`. */
export function matchPaths(value: unknown, pattern: PathPattern, at: Path = []): Path[] {
  if (pattern.length === 0) return [at];
  const [head, ...rest] = pattern;
  if (typeof value !== "object" || value === null) return [];
  if (head === "*") {
    const keys = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
    return keys.flatMap((k) => matchPaths((value as Record<string, unknown>)[k], rest, [...at, k]));
  }
  if (!Object.hasOwn(value, String(head))) return [];
  return matchPaths((value as Record<string, unknown>)[String(head)], rest, [...at, head!]);
}

export function setAt(value: unknown, path: Path, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [...value] : { ...(value as object) };
  (copy as Record<string, unknown>)[String(head)] = setAt(
    (value as Record<string, unknown>)[String(head)],
    rest,
    replacement,
  );
  return copy;
}

export function allPaths(value: unknown, at: Path = []): Path[] {
  if (typeof value !== "object" || value === null) return [at];
  const keys = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return [at, ...keys.flatMap((k) => allPaths((value as Record<string, unknown>)[k], [...at, k]))];
}

const WRONG_VALUES: readonly unknown[] = [42, "x", true, null, {}, [], -1.5, [42]];

function describeResult(r: Conv<unknown>): string {
  return r.ok ? `ok: ${JSON.stringify(r.value)?.slice(0, 500)}` : `error: ${JSON.stringify(r.error)}`;
}

function expectOk<T>(r: Conv<T>, what: string): Converted<T> {
  if (!r.ok) throw new Error(`${what} failed on a valid input: ${JSON.stringify(r.error)}`);
  return r;
}

function expectTypedError(r: Conv<unknown>, what: string): void {
  if (r.ok) throw new Error(`${what}: expected the typed error, got ${describeResult(r)}`);
  expect(typeof r.error.code).toBe("number");
  expect(typeof r.error.message).toBe("string");
  expect(typeof r.error.data.reason).toBe("string");
}

interface Leg<X, Y> {
  readonly from: Side<X>;
  readonly to: Side<Y>;
  readonly fwd: (x: X, o: ConvertOptions) => Conv<Y>;
  readonly back: (y: Y, o: ConvertOptions) => Conv<X>;
  readonly label: string; // "v1 → v2"
  readonly skip: string | undefined;
  readonly interpreted: readonly PathPattern[];
}

function legProperties<X, Y>(leg: Leg<X, Y>, levels: readonly StashLevel[]): void {
  const gen = (leg.from.arb ?? arb(leg.from.schema, leg.from.def)) as fc.Arbitrary<X>;
  const runs = { numRuns: numRuns() };
  const tag = `${leg.from.def} ${leg.label}`;

  it(`(a) ${tag}: every output validates against ${leg.to.schema} ${leg.to.def}`, () => {
    fc.assert(
      fc.property(gen, fc.constantFrom<StashLevel>("off", "compact", "full"), (x, level) => {
        const r = leg.fwd(x, options(level));
        if (r.ok) expectValid(leg.to.schema, leg.to.def, r.value);
      }),
      runs,
    );
  });

  if (leg.skip) {
    it.skip(`(b) ${tag} round trip: ${leg.skip}`, () => undefined);
  } else {
    for (const level of levels) {
      it(`(b) ${tag} and back is the identity with the stash ${level}`, () => {
        fc.assert(
          fc.property(gen, (x) => {
            const y = expectOk(leg.fwd(x, options(level)), leg.label).value;
            const back = expectOk(leg.back(y, options(level)), "reverse").value;
            expect(norm(back)).toEqual(norm(x));
          }),
          runs,
        );
      });
    }

    it(`(c) ${tag} and back with the stash off differs exactly where losses were reported`, () => {
      fc.assert(
        fc.property(gen, (x) => {
          const r1 = expectOk(leg.fwd(x, options("off")), leg.label);
          const y = r1.value;
          expect(JSON.stringify(y)).not.toContain('"acp-bridge"');
          const r2 = expectOk(leg.back(y, options("off")), "reverse");
          const back = r2.value;
          const diffs = diffPaths(norm(x), norm(back));
          const all = [...r1.lost, ...r2.lost];
          const unreported = diffs.filter((d) => !covered(d, all));
          expect(unreported.map(showPath), "differences nobody reported").toEqual([]);
          const phantom = r1.lost.filter((l) => !diffs.some((d) => isPrefix(l.path, d) || isPrefix(d, l.path)));
          expect(
            phantom.map((l) => `${showPath(l.path)} (${l.reason})`),
            "reported losses that survived the round trip",
          ).toEqual([]);
        }),
        runs,
      );
    });
  }

  it(`(d) ${tag} never throws on valid input and never mutates it`, () => {
    fc.assert(
      fc.property(gen, fc.constantFrom<StashLevel>("off", "compact", "full"), (x, level) => {
        const before = JSON.stringify(x);
        leg.fwd(x, options(level));
        expect(JSON.stringify(x)).toBe(before);
      }),
      runs,
    );
  });

  for (const pattern of leg.interpreted) {
    it(`(e) ${tag}: a wrong type at ${showPath(pattern)} gives the typed error`, () => {
      let exercised = 0;
      fc.assert(
        fc.property(gen, fc.nat(), (x, pick) => {
          const paths = matchPaths(x, pattern);
          if (paths.length === 0) return;
          const path = paths[pick % paths.length]!;
          for (const wrong of WRONG_VALUES) {
            const mutated = setAt(x, path, wrong);
            if (check(leg.from.schema, leg.from.def, mutated) === undefined) continue;
            exercised++;
            expectTypedError(
              leg.fwd(mutated as X, options("compact")),
              `${tag} with ${JSON.stringify(wrong)} at ${showPath(path)}`,
            );
            return;
          }
        }),
        runs,
      );
      expect(exercised, `no generated value had ${showPath(pattern)}`).toBeGreaterThan(0);
    });
  }

  it(`(e) ${tag}: random mutations never throw`, () => {
    fc.assert(
      fc.property(gen, fc.nat(), jsonValue, (x, pick, wrong) => {
        const paths = allPaths(x);
        const mutated = setAt(x, paths[pick % paths.length]!, wrong);
        const r = leg.fwd(mutated as X, options("compact"));
        if (!r.ok) expect(typeof r.error.data.reason).toBe("string");
      }),
      runs,
    );
  });
}

/** Registers the standard properties for a converter pair (call inside or outside a `describe`). */
export function convertsLosslessly<A, B>(spec: PairSpec<A, B>): void {
  const levels = spec.levels ?? ["compact"];
  describe(`${spec.name} (properties)`, () => {
    legProperties<A, B>(
      {
        from: spec.v1,
        to: spec.v2,
        fwd: spec.toV2,
        back: spec.toV1,
        label: "v1 → v2",
        skip: spec.skip?.v1RoundTrip,
        interpreted: spec.interpreted?.v1 ?? [],
      },
      levels,
    );
    legProperties<B, A>(
      {
        from: spec.v2,
        to: spec.v1,
        fwd: spec.toV1,
        back: spec.toV2,
        label: "v2 → v1",
        skip: spec.skip?.v2RoundTrip,
        interpreted: spec.interpreted?.v2 ?? [],
      },
      levels,
    );
  });
}
