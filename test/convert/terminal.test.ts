// Terminal rendering toward v1 clients (T §2.5 A↓ text mode, T §9 case 11).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  appendOutput,
  commandOf,
  conventionOf,
  conventionToV2Updates,
  newTerminal,
  replaceOutput,
  sanitize,
  sanitizeText,
  snapshotToAppend,
  terminalExitMeta,
  terminalInfoMeta,
  terminalOutputMeta,
  terminalToV1Item,
  transcript,
} from "../../src/convert/terminal.js";
import { clientFlagsFromV1 } from "../../src/convert/capabilities.js";
import { numRuns, options } from "../support/properties.js";
import { anyJson } from "../support/arbitrary.js";
import { terminalConventionTable } from "../../mappings/terminal.js";
import { expectValid } from "../support/schema.js";

const b = (s: string) => Buffer.from(s, "utf8");

describe("terminal rendering (T §2.5)", () => {
  it("strips CSI colour codes and OSC titles", () => {
    expect(sanitize(b("\x1b[31mred\x1b[0m \x1b]0;title\x07ok"))).toBe("red ok");
  });

  it("turns CRLF into LF and lets a lone CR overwrite the line (progress bars)", () => {
    expect(sanitize(b("a\r\nb\n 10%\r 50%\r100%\ndone"))).toBe("a\nb\n100%\ndone");
  });

  it("applies backspace and drops other control characters", () => {
    expect(sanitize(b("abc\bX\x00\x07y\tz"))).toBe("abXy\tz");
  });

  it("keeps a text without controls as it is, which sanitize returns without the character loop", () => {
    // Any unicode (astral pairs, U+FFFD of bad bytes) but the controls sanitize changes.
    const plain = fc
      .string({ unit: "binary", maxLength: 80 })
      // eslint-disable-next-line no-control-regex
      .map((s) => s.replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, "").replace(/[\ud800-\udfff]/g, "\ufffd"));
    fc.assert(
      fc.property(plain, (text) => {
        expect(sanitizeText(text)).toBe(text);
      }),
      { numRuns: numRuns() },
    );
  });

  it("sanitizes any bytes as the character loop does (controls, escapes, invalid UTF-8)", () => {
    const piece = fc.oneof(
      fc.uint8Array({ maxLength: 12 }),
      fc.constantFrom("\x1b[31m", "\r\n", "\r", "\b", "\x7f", "\u0085", "\t", "\n", "é", "😀").map(b),
      fc.string({ unit: "binary", maxLength: 8 }).map(b),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (pieces) => {
        const bytes = Buffer.concat(pieces);
        expect(sanitize(bytes)).toBe(sanitizeText(new TextDecoder("utf-8", { fatal: false }).decode(bytes)));
      }),
      { numRuns: numRuns() },
    );
  });

  it("reassembles a UTF-8 character and an escape sequence split across chunks", () => {
    const t = newTerminal("t1");
    const bytes = b("é\x1b[1mbold\x1b[0m");
    appendOutput(t, bytes.subarray(0, 1));
    appendOutput(t, bytes.subarray(1, 4));
    appendOutput(t, bytes.subarray(4));
    expect(sanitize(t.bytes)).toBe("ébold");
  });

  it("keeps only the tail of the output over the limit, and a snapshot resets it", () => {
    const t = newTerminal("t1");
    appendOutput(t, b("0123456789"), 4);
    expect(sanitize(t.bytes)).toBe("6789");
    replaceOutput(t, b("new"), 4);
    expect(sanitize(t.bytes)).toBe("new");
  });

  it("retains the tail of what was appended and snapshotted, and never changes output it retained before", () => {
    // Appends of any size (some over the limit), snapshots, under a small limit: the retained bytes
    // are the tail of the output since the last snapshot, and every earlier `bytes` is as it was.
    const step = fc.oneof(
      fc.record({ append: fc.uint8Array({ maxLength: 40 }) }),
      fc.record({ snapshot: fc.uint8Array({ maxLength: 40 }) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), fc.integer({ min: 1, max: 64 }), (steps, max) => {
        const t = newTerminal("t1");
        let output: number[] = [];
        const seen: { view: Uint8Array; copy: Buffer }[] = [];
        for (const s of steps) {
          if ("append" in s) {
            appendOutput(t, s.append, max);
            output = [...output, ...s.append];
          } else {
            replaceOutput(t, s.snapshot, max);
            output = [...s.snapshot];
          }
          expect(Buffer.from(t.bytes)).toEqual(Buffer.from(output.slice(Math.max(0, output.length - max))));
          seen.push({ view: t.bytes, copy: Buffer.from(t.bytes) });
        }
        for (const { view, copy } of seen) expect(Buffer.from(view)).toEqual(copy);
      }),
      { numRuns: numRuns() },
    );
  });

  it("fences the transcript longer than any backtick run and says how it ended", () => {
    const t = newTerminal("t1");
    t.command = "cargo test";
    appendOutput(t, b("uses ``` fences"));
    t.exitStatus = { exitCode: 0 };
    expect(transcript(t)).toBe("````console\n$ cargo test\nuses ``` fences\n````\nExited with code 0");
    t.exitStatus = { signal: "SIGTERM" };
    expect(transcript(t)).toMatch(/Terminated by SIGTERM$/);
  });

  it("renders a terminal as a v1 text item with its state stashed", () => {
    const t = newTerminal("term1");
    t.command = "cargo test";
    t.cwd = "/w";
    appendOutput(t, Buffer.from("dGVzdCBvayAK", "base64"));
    const item = terminalToV1Item(t, options("compact"));
    expectValid("v1", "ToolCallContent", item);
    expect(item).toEqual({
      type: "content",
      content: {
        type: "text",
        text: "```console\n$ cargo test\ntest ok \n```",
        _meta: {
          "acp-bridge": {
            v: 1,
            from: 2,
            hadMeta: false,
            residual: { terminal: { terminalId: "term1", command: "cargo test", cwd: "/w" } },
          },
        },
      },
    });
    const full = terminalToV1Item(t, options("full"));
    expect(
      (full as unknown as { content: { _meta: { "acp-bridge": { residual: { bytes: string } } } } }).content._meta[
        "acp-bridge"
      ].residual.bytes,
    ).toBe("dGVzdCBvayAK");
    expect(terminalToV1Item(t, options("off"))).toEqual({
      type: "content",
      content: { type: "text", text: "```console\n$ cargo test\ntest ok \n```" },
    });
  });
});

describe("the `_meta` terminal convention (T §2.5)", () => {
  const runs = { numRuns: numRuns() };

  it("reads the client opt-in exactly as Zed sends it", () => {
    const offers = (caps: unknown) => clientFlagsFromV1(caps).terminalOutput;
    expect(offers({ _meta: { terminal_output: true } })).toBe(true);
    expect(offers({ _meta: { terminal_output: "true" } })).toBe(false);
    expect(offers({ terminal: true })).toBe(false);
    expect(offers(null)).toBe(false);
  });

  it("writes info, output and exit with the keys Zed reads", () => {
    const t = { ...newTerminal("t1"), cwd: "/w" };
    expect(terminalInfoMeta(t)).toEqual({ terminal_info: { terminal_id: "t1", cwd: "/w" } });
    expect(terminalInfoMeta(newTerminal("t2"))).toEqual({ terminal_info: { terminal_id: "t2" } });
    expect(terminalOutputMeta("t1", "\x1b[31mred\n")).toEqual({
      terminal_output: { terminal_id: "t1", data: "\x1b[31mred\n" },
    });
    expect(terminalExitMeta("t1", { exitCode: 2 })).toEqual({
      terminal_exit: { terminal_id: "t1", exit_code: 2, signal: null },
    });
    expect(terminalExitMeta("t1", { exitCode: null, signal: "SIGKILL" })).toEqual({
      terminal_exit: { terminal_id: "t1", exit_code: null, signal: "SIGKILL" },
    });
    // Still running when the turn ended: neither code nor signal, as the adapters send for an interrupt.
    expect(terminalExitMeta("t1", undefined)).toEqual({
      terminal_exit: { terminal_id: "t1", exit_code: null, signal: null },
    });
  });

  it("writes output as terminal_output_delta, codex-acp's key for a client without the capability", () => {
    expect(terminalOutputMeta("t1", "a\n", "outputDelta")).toEqual({
      terminal_output_delta: { terminal_id: "t1", data: "a\n" },
    });
    // B reads it back as output.
    expect(conventionOf(terminalOutputMeta("t1", "a\n", "outputDelta")).events).toEqual([
      { terminalId: "t1", output: "a\n" },
    ]);
  });

  it("appends what a snapshot adds, and resets when it does not extend the shown output", () => {
    const read = (r: { reset: boolean; append: Uint8Array }) => ({
      reset: r.reset,
      append: Buffer.from(r.append).toString(),
    });
    expect(read(snapshotToAppend(b("ab"), true, b("abcd")))).toEqual({ reset: false, append: "cd" });
    expect(read(snapshotToAppend(b("ab"), true, b("xbcd")))).toEqual({ reset: true, append: "xbcd" });
    expect(read(snapshotToAppend(b("abcd"), true, b("ab")))).toEqual({ reset: true, append: "ab" });
    // A trimmed tail cannot be compared: reset.
    expect(snapshotToAppend(b("ab"), false, b("abcd")).reset).toBe(true);
  });

  it("appends exactly when the snapshot begins with the whole shown output, byte for byte, at any size", () => {
    // The shown output, and a snapshot that extends it, changes one byte of it, cuts it, or is any.
    const shown = fc.uint8Array({ maxLength: 300 });
    const snapshot = (s: Uint8Array) =>
      fc.oneof(
        fc.uint8Array({ maxLength: 40 }).map((extra) => new Uint8Array([...s, ...extra])),
        fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 }), fc.uint8Array({ maxLength: 5 })).map(([at, x, extra]) => {
          const next = new Uint8Array([...s, ...extra]);
          if (next.length > 0) next[at % next.length] = (next[at % next.length] ?? 0) ^ x;
          return next;
        }),
        fc.nat().map((n) => s.slice(0, s.length === 0 ? 0 : n % s.length)),
        fc.uint8Array({ maxLength: 300 }),
      );
    fc.assert(
      fc.property(
        shown.chain((s) => fc.tuple(fc.constant(s), snapshot(s), fc.boolean())),
        ([s, next, complete]) => {
          const r = snapshotToAppend(s, complete, next);
          const grows = complete && next.length >= s.length && s.every((byte, i) => next[i] === byte);
          expect(r.reset).toBe(!grows);
          expect(Buffer.from(r.append)).toEqual(Buffer.from(grows ? next.slice(s.length) : next));
        },
      ),
      { numRuns: numRuns() },
    );
  });

  it("reads codex-acp's tool_call (info with cwd, content elsewhere) and keeps other _meta keys", () => {
    const meta = { terminal_info: { cwd: "/repo", terminal_id: "call_1" }, codex: { x: 1 } };
    expect(conventionOf(meta)).toEqual({
      events: [{ terminalId: "call_1", info: { cwd: "/repo" } }],
      rest: { codex: { x: 1 } },
    });
  });

  it("reads output (and the _delta spelling) and the exit, in one update", () => {
    const meta = {
      terminal_output: { terminal_id: "t", data: "a" },
      terminal_output_delta: { terminal_id: "t", data: "b" },
      terminal_exit: { terminal_id: "t", exit_code: 1, signal: null },
    };
    expect(conventionOf(meta)).toEqual({
      events: [{ terminalId: "t", output: "ab", exit: { exitCode: 1 } }],
      rest: undefined,
    });
    expect(conventionOf({ terminal_exit: { terminal_id: "t", exit_code: null, signal: "SIGTERM" } }).events).toEqual([
      { terminalId: "t", exit: { signal: "SIGTERM" } },
    ]);
  });

  it("leaves keys without the convention's shape in _meta, uninterpreted", () => {
    const meta = {
      terminal_info: "t",
      terminal_output: { terminal_id: "t", data: 5 },
      terminal_exit: { exit_code: 0 },
    };
    expect(conventionOf(meta)).toEqual({ events: [], rest: meta });
    expect(conventionOf(undefined)).toEqual({ events: [], rest: undefined });
    // A relative cwd cannot be a v2 cwd: the terminal is still announced.
    expect(conventionOf({ terminal_info: { terminal_id: "t", cwd: "rel" } }).events).toEqual([
      { terminalId: "t", info: {} },
    ]);
  });

  it("reads a _meta without the convention's keys as no events, the _meta all the rest (an empty one: none)", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 12 }), anyJson, { maxKeys: 4 }), (meta) => {
        for (const k of Object.values(terminalConventionTable.keys)) Reflect.deleteProperty(meta, k);
        expect(conventionOf(meta)).toEqual({ events: [], rest: Object.keys(meta).length > 0 ? meta : undefined });
      }),
      { numRuns: numRuns() },
    );
  });

  it("names the command from rawInput.command (a string, or words)", () => {
    expect(commandOf({ command: "ls -la" })).toBe("ls -la");
    expect(commandOf({ command: ["bash", "-lc", "ls"] })).toBe("bash -lc ls");
    expect(commandOf({ command: "" })).toBeUndefined();
    expect(commandOf({ command: [1] })).toBeUndefined();
    expect(commandOf(undefined)).toBeUndefined();
  });

  it("gives v2 updates in order: state, bytes, exit; each schema-valid", () => {
    const updates = conventionToV2Updates(
      { terminalId: "t", info: { cwd: "/w" }, output: "héllo\n", exit: { exitCode: 0 } },
      "cargo test",
    );
    expect(updates).toEqual([
      { sessionUpdate: "terminal_update", terminalId: "t", command: "cargo test", cwd: "/w" },
      { sessionUpdate: "terminal_output_chunk", terminalId: "t", data: Buffer.from("héllo\n").toString("base64") },
      { sessionUpdate: "terminal_update", terminalId: "t", exitStatus: { exitCode: 0 } },
    ]);
    for (const u of updates) expectValid("v2", "SessionUpdate", u);
    // Nothing to say: nothing sent (an empty output is no chunk).
    expect(conventionToV2Updates({ terminalId: "t", output: "" }, undefined)).toEqual([]);
  });

  it("property: bytes split anywhere reach v1 as text whose UTF-8 is the bytes (valid UTF-8 in)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.array(fc.nat(), { maxLength: 6 }), (text, cuts) => {
        const bytes = b(text);
        const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((x, y) => x - y);
        const decoder = new TextDecoder("utf-8", { fatal: false });
        let shown = "";
        let from = 0;
        for (const p of [...points, bytes.length]) {
          shown += decoder.decode(bytes.subarray(from, p), { stream: true });
          from = p;
        }
        shown += decoder.decode();
        // What B makes of it again: the same bytes (chains are exact for UTF-8 output).
        const [chunk] = conventionToV2Updates({ terminalId: "t", output: shown }, undefined);
        const back = chunk === undefined ? new Uint8Array(0) : Buffer.from((chunk as { data: string }).data, "base64");
        expect(Buffer.compare(back, bytes)).toBe(0);
      }),
      runs,
    );
  });

  it("property: any bytes (invalid UTF-8 too) give well-formed text and valid JSON", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.nat(64), (bytes, cut) => {
        const decoder = new TextDecoder("utf-8", { fatal: false });
        const at = cut % (bytes.length + 1);
        const text = decoder.decode(bytes.subarray(0, at), { stream: true }) + decoder.decode(bytes.subarray(at));
        // Well-formed: no lone surrogate, so its UTF-8 decodes back to the same text.
        expect(Buffer.from(text, "utf8").toString("utf8")).toBe(text);
        const meta = terminalOutputMeta("t", text);
        expect(JSON.parse(JSON.stringify(meta))).toEqual(meta);
      }),
      runs,
    );
  });

  it("property: an exit status survives v2 → convention → v2", () => {
    fc.assert(
      fc.property(
        fc.option(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { nil: undefined }),
        fc.option(fc.constantFrom("SIGTERM", "SIGKILL", "SIGINT"), { nil: undefined }),
        (exitCode, signal) => {
          const exit = { ...(exitCode !== undefined ? { exitCode } : {}), ...(signal !== undefined ? { signal } : {}) };
          const [event] = conventionOf(terminalExitMeta("t", exit)).events;
          expect(event?.exit).toEqual(exit);
        },
      ),
      runs,
    );
  });
});
