// What real agents' lines contain that simple generators miss (issue 21 item 3): per-token text
// full of quotes, backslashes, newlines, non-ASCII and surrogate pairs; lone surrogates; invalid
// UTF-8 bytes; unknown fields; other key orders; `_meta`; large `rawInput`; numbers in every JSON
// spelling. The fast-path equality properties (test/engine/fast-*.test.ts) run over these, so a
// byte-level path is proven equal to the full path on what real traffic holds.
import fc from "fast-check";
import { anyJson, anyString } from "./arbitrary.js";

/** One streamed token's text, as models stream it (bench/traffic/text-model.ts has the proportions). */
const token = fc.oneof(
  { weight: 6, arbitrary: fc.string({ minLength: 1, maxLength: 6 }) },
  { weight: 2, arbitrary: fc.constantFrom(' "quoted"', "\\path\\to", "\n", "\n\n- ", "\t", "```ts\n", "'s") },
  { weight: 2, arbitrary: fc.constantFrom("é", "ü", "漢字", "テスト", "🙂", "👩‍💻", "∑", "\u00a0") },
  { weight: 1, arbitrary: fc.constantFrom("\u2028", "\u2029", "\u0000", "\u001f", "\u007f", "</script>") },
);

/** Text of a chunk: per-token pieces, or any string (lone surrogates, huge, controls). */
export const realText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.array(token, { minLength: 1, maxLength: 4 }).map((t) => t.join("")) },
  { weight: 1, arbitrary: anyString },
);

/**
 * The spellings of numbers JSON allows, for a value the bridge may copy: JSON.stringify's own (a
 * cost's `0.00864`, `1e+21`, a 16-digit integer) and others of the same numbers (`1.0`, `1E+2`,
 * `-0`, digits past a double's precision).
 */
export const numberSpelling = fc.constantFrom(
  "1",
  "1.0",
  "1e2",
  "1E+2",
  "-0",
  "0.5e-3",
  "123456789012345678901",
  "-1",
  "0.5",
  "0.00864",
  "0.0064800000000000005",
  "1e+21",
  "1.5e-7",
  "-2.5",
  "1234567890123456",
  "12345678901234567",
  "0.10",
);

/** A `rawInput` as agents send it: nested, sometimes large. */
export const rawInput: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ command: realText, cwd: fc.constant("/work") }) },
  {
    weight: 2,
    arbitrary: fc.record({ file_path: fc.constant("/work/a.ts"), old_string: realText, new_string: realText }),
  },
  { weight: 1, arbitrary: anyJson },
  {
    weight: 1,
    // Tens of KB at most: a token repeated (any string repeated could reach megabytes).
    arbitrary: fc
      .tuple(fc.array(token, { minLength: 1, maxLength: 3 }), fc.integer({ min: 200, max: 2_000 }))
      .map(([t, n]) => ({ content: t.join("").repeat(n), lines: Array.from({ length: 20 }, (_, i) => i) })),
  },
);

/** Byte edits of a serialized line that keep it meaning the same (or make it invalid on purpose). */
export const realEdit = fc.constantFrom(
  "none",
  "none",
  "surrogate-pair-escape",
  "lone-surrogate-escape",
  "invalid-utf8",
  "number-forms",
  "update-number-forms",
  "unknown-field",
  "update-unknown-field",
  "update-meta",
  "key-order",
  "whitespace",
  "escape-every-char",
);

/** `line` (JSON.stringify's spelling of a session/update) edited as `edit` says. */
export function applyRealEdit(line: string, edit: string, number = "1e2"): Buffer {
  switch (edit) {
    case "surrogate-pair-escape":
      // The same text, with a pair spelled as escapes (as some serializers write non-BMP).
      return Buffer.from(line.replace(/"text":"/, '"text":"\\ud83d\\ude00'));
    case "lone-surrogate-escape":
      return Buffer.from(line.replace(/"text":"/, '"text":"\\udc00'));
    case "invalid-utf8": {
      const b = Buffer.from(line);
      const at = b.indexOf('"text":"');
      return at < 0 ? b : Buffer.concat([b.subarray(0, at + 8), Buffer.from([0xc3, 0x28, 0xff]), b.subarray(at + 8)]);
    }
    case "number-forms":
      return Buffer.from(line.replace(/"params":\{/, `"params":{"n":${number},`));
    case "update-number-forms":
      // Among the update's members, where the member scan reads values (a usage's cost, a `_meta`).
      return Buffer.from(`${line.slice(0, -3)},"n":${number},"m":{"k":[${number}]}}}}`);
    case "unknown-field":
      return Buffer.from(line.replace(/"params":\{/, '"params":{"vendorField":{"a":[1,"x"]},'));
    case "update-unknown-field":
      return Buffer.from(line.replace(/"update":\{/, '"update":{"futureField":true,'));
    case "update-meta":
      return Buffer.from(line.replace(/"update":\{/, '"update":{"_meta":{"trace":"x"},'));
    case "key-order":
      return Buffer.from(line.replace(/^\{"jsonrpc":"2.0",/, "{").replace(/\}$/, ',"jsonrpc":"2.0"}'));
    case "whitespace":
      // Only around members' keys (a key's closing quote and colon cannot occur in a string value).
      return Buffer.from(line.replace('"params":', ' "params" :\t').replace('"update":', '"update" : '));
    case "escape-every-char":
      // Every character of the first text as \\u escapes: the same string.
      return Buffer.from(
        line.replace(/"text":"((?:[^"\\]|\\.)*)"/, (_m, t: string) => {
          const s = JSON.parse(`"${t}"`) as string;
          const esc = Array.from(
            { length: s.length },
            (_, i) => `\\u${s.charCodeAt(i).toString(16).padStart(4, "0")}`,
          ).join("");
          return `"text":"${esc}"`;
        }),
      );
    default:
      return Buffer.from(line);
  }
}
