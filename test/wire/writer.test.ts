// The line writer: whatever it is handed (serialized lines, views of read chunks that lie one after
// the other or not, with flushes anywhere), the stream gets each line followed by one newline.
import { Writable } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LineWriter, allocLine, allocLineFrom, splicedLine } from "../../src/wire/writer.js";
import { numRuns } from "../support/properties.js";

function sink(): { stream: Writable; written: Buffer[] } {
  const written: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      written.push(Buffer.from(chunk));
      callback();
    },
  });
  return { stream, written };
}

/**
 * A read chunk and the lines in it: `text` split at `\n`, a `\r` before it now and then; or views
 * of a buffer one byte apart, that byte no newline (only a newline between makes lines adjacent).
 * Its memory is its own or the pool's.
 */
const chunk = fc
  .tuple(
    fc.array(fc.tuple(fc.string({ maxLength: 6 }), fc.boolean()), { minLength: 1, maxLength: 6 }),
    fc.constantFrom("\n", "\n", ","),
    fc.boolean(),
  )
  .map(([lines, separator, own]) => {
    const text = Buffer.from(lines.map(([l, cr]) => l + (cr ? "\r" : "") + separator).join(""));
    // In memory of its own, as a read chunk is, or in the pool small buffers share.
    const bytes = own ? Buffer.from(new Uint8Array(text).buffer) : text;
    const views: Buffer[] = [];
    let at = 0;
    for (const [l, cr] of lines) {
      const length = Buffer.byteLength(l);
      views.push(bytes.subarray(at, at + length));
      at += length + (cr ? 1 : 0) + 1;
    }
    return views;
  });

type Step = { push: Buffer | string } | { flush: true };

const steps = fc
  .array(
    fc.oneof(
      chunk.chain((views) => fc.subarray(views).map((picked): Step[] => picked.map((v) => ({ push: v })))),
      fc.string({ maxLength: 5 }).map((s): Step[] => [{ push: s }]),
      fc.constant<Step[]>([{ flush: true }]),
    ),
    { maxLength: 8 },
  )
  .map((groups) => groups.flat());

describe("line writer", () => {
  it("writes every line followed by one newline, in order, however the lines lie in memory", () => {
    fc.assert(
      fc.property(steps, (plan) => {
        const { stream, written } = sink();
        const writer = new LineWriter(stream);
        let expected = "";
        for (const step of plan) {
          if ("flush" in step) writer.flush();
          else {
            writer.push(step.push);
            expected += String(step.push) + "\n";
          }
        }
        writer.flush();
        expect(Buffer.concat(written).toString()).toBe(expected);
      }),
      { numRuns: numRuns() * 3 },
    );
  });

  it("writes every line in order when read lines of several chunks, built lines and strings interleave, and never reuses a buffer before its write completed", () => {
    // Lines of up to three chunks, each chunk in its own memory or in one shared pool, picked in any
    // order; lines built by `allocLine`; strings. The stream completes writes only when told to, and
    // checks then that what it was handed is still what was written.
    const plan = fc.record({
      chunks: fc.array(chunk, { minLength: 1, maxLength: 3 }),
      steps: fc.array(
        fc.oneof(
          fc.record({ view: fc.nat(), of: fc.nat(2) }),
          fc.record({ built: fc.string({ maxLength: 7 }) }),
          fc.record({ text: fc.string({ maxLength: 5 }) }),
          fc.constant({ flush: true as const }),
          fc.constant({ complete: true as const }),
        ),
        { maxLength: 40 },
      ),
    });
    fc.assert(
      fc.property(plan, ({ chunks, steps }) => {
        const pending: { chunk: Buffer; copy: Buffer; done: (() => void) | undefined }[] = [];
        const written: Buffer[] = [];
        const stream = new Writable();
        stream.write = ((data: Buffer, done?: () => void) => {
          pending.push({ chunk: data, copy: Buffer.from(data), done });
          return true;
        }) as typeof stream.write;
        const complete = () => {
          for (const p of pending.splice(0)) {
            expect(p.chunk.equals(p.copy)).toBe(true);
            written.push(p.copy);
            p.done?.();
          }
        };
        const writer = new LineWriter(stream);
        let expected = "";
        for (const step of steps) {
          if ("flush" in step) writer.flush();
          else if ("complete" in step) complete();
          else if ("text" in step) {
            writer.push(step.text);
            expected += `${step.text}\n`;
          } else if ("built" in step) {
            const bytes = Buffer.from(step.built);
            const line = allocLine(bytes.length);
            bytes.copy(line);
            writer.push(line);
            expected += `${step.built}\n`;
          } else {
            const views = chunks[step.of % chunks.length] ?? [];
            const view = views[step.view % views.length];
            if (view === undefined) continue;
            writer.push(view);
            expected += `${view.toString()}\n`;
          }
        }
        writer.flush();
        complete();
        expect(Buffer.concat(written).toString()).toBe(expected);
      }),
      { numRuns: numRuns() * 3 },
    );
  });

  it("writes a large flush into the buffer of an earlier one whose write completed, and only then; a small one into its own", () => {
    const writes: { data: Buffer; done: (() => void) | undefined }[] = [];
    const stream = new Writable();
    stream.write = ((data: Buffer, done?: () => void) => {
      writes.push({ data, done });
      return true;
    }) as typeof stream.write;
    const writer = new LineWriter(stream);
    // Two lines of 10,000 bytes: a flush of 20,002, a read's worth.
    const flushOf = (c: string) => {
      writer.push(c.repeat(10_000));
      writer.push(c.repeat(10_000));
      writer.flush();
      return writes.at(-1) as { data: Buffer; done: (() => void) | undefined };
    };
    const text = (c: string) => `${c.repeat(10_000)}\n`.repeat(2);
    const first = flushOf("a");
    // Not completed: the next flush takes another buffer.
    const second = flushOf("b");
    expect(second.data.buffer).not.toBe(first.data.buffer);
    expect(first.data.toString()).toBe(text("a"));
    first.done?.();
    const third = flushOf("c");
    expect(third.data.buffer).toBe(first.data.buffer);
    expect(second.data.toString()).toBe(text("b"));
    expect(third.data.toString()).toBe(text("c"));
    // Small flushes waiting on a slow stream hold no large buffer each: they are slices of node's
    // shared pool (8 KiB on node 20 and 22, 64 KiB from node 24 on), none of the writer's own buffers.
    const large = new Set([first.data.buffer, second.data.buffer, third.data.buffer]);
    const held = new Set<ArrayBufferLike>();
    for (let k = 0; k < 20; k++) {
      writer.push(`line ${String(k)}`);
      writer.push("another");
      writer.flush();
      const data = (writes.at(-1) as { data: Buffer }).data;
      expect(data.toString()).toBe(`line ${String(k)}\nanother\n`);
      expect(large.has(data.buffer)).toBe(false);
      held.add(data.buffer);
    }
    // Twenty flushes of a few bytes share one pool, or two where one ran out.
    expect(held.size).toBeLessThanOrEqual(2);
    for (const b of held) expect(b.byteLength).toBeLessThanOrEqual(Math.max(Buffer.poolSize, 8 * 1024) + 64);
  });

  it("flushes by itself on the next microtask, or, once held, only when its caller flushes", async () => {
    const { stream, written } = sink();
    const writer = new LineWriter(stream);
    writer.push("a");
    await Promise.resolve();
    expect(Buffer.concat(written).toString()).toBe("a\n");
    writer.hold();
    writer.push("b");
    writer.push(Buffer.from("c"));
    await new Promise((r) => setImmediate(r));
    expect(Buffer.concat(written).toString()).toBe("a\n");
    writer.flush();
    expect(Buffer.concat(written).toString()).toBe("a\nb\nc\n");
    // The flush ends the hold.
    writer.push("d");
    await Promise.resolve();
    expect(Buffer.concat(written).toString()).toBe("a\nb\nc\nd\n");
  });

  it("writes lines built one after another as they lie, without a copy (each followed by its newline)", () => {
    const writes: Buffer[] = [];
    const stream = new Writable();
    stream.write = ((chunk: Buffer) => {
      writes.push(chunk);
      return true;
    }) as typeof stream.write;
    const writer = new LineWriter(stream);
    // Lengths whose newline ends off an 8-byte boundary: node's pool would leave a gap after each.
    const lines = ["first line", "second", "the third line"].map((text) => {
      const line = allocLine(Buffer.byteLength(text));
      line.write(text);
      return line;
    });
    for (const line of lines) writer.push(line);
    writer.flush();
    expect(writes).toHaveLength(1);
    expect(writes[0]?.buffer).toBe(lines[0]?.buffer);
    expect(writes[0]?.toString()).toBe("first line\nsecond\nthe third line\n");
  });

  it("builds a line from parts of another in the same memory, the line followed by its newline, and leaves every earlier line as it was", () => {
    // Each line is built from a source (text of any size, or an earlier built line) by moving parts
    // of the source's copy with copyWithin, as member-scan.ts builds relaid lines.
    const step = fc.record({
      // Now and then longer than an eighth of the slab: a line of its own memory.
      text: fc.oneof(
        { arbitrary: fc.string({ maxLength: 40 }), weight: 7 },
        { arbitrary: fc.string({ minLength: 1, maxLength: 4 }).map((t) => t.padEnd(9000, t)), weight: 1 },
      ),
      earlier: fc.option(fc.nat(), { nil: undefined }),
      cut: fc.nat(),
    });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
        const built: { line: Buffer; expected: string }[] = [];
        for (const { text, earlier, cut } of steps) {
          const from = earlier !== undefined && built.length > 0 ? built[earlier % built.length] : undefined;
          const source = from?.line ?? Buffer.from(text);
          const sourceText = from?.expected ?? text;
          // The source's bytes with its first `at` bytes moved to the end (two parts swapped).
          const at = source.length === 0 ? 0 : cut % source.length;
          const work = allocLineFrom(source, source.length);
          work.mem.copyWithin(work.at, work.from + at, work.from + source.length);
          work.mem.copyWithin(work.at + source.length - at, work.from, work.from + at);
          const expected = Buffer.concat([
            Buffer.from(sourceText).subarray(at),
            Buffer.from(sourceText).subarray(0, at),
          ]);
          expect(work.line.equals(expected)).toBe(true);
          expect(work.line.buffer).toBe(work.mem.buffer);
          expect(work.mem[work.at + source.length]).toBe(0x0a);
          built.push({ line: work.line, expected: expected.toString("latin1") });
        }
        for (const b of built) {
          expect(b.line.toString("latin1")).toBe(b.expected);
          expect(new Uint8Array(b.line.buffer, b.line.byteOffset + b.line.length, 1)[0]).toBe(0x0a);
        }
      }),
      { numRuns: numRuns() },
    );
  });

  it("splices any range of a line with any bytes, growing or shrinking, the result followed by its newline", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 60 }),
        fc.nat(),
        fc.nat(),
        fc.uint8Array({ maxLength: 20 }),
        (line, a, b, bytes) => {
          const start = line.length === 0 ? 0 : a % (line.length + 1);
          const end = start + (line.length === start ? 0 : b % (line.length - start + 1));
          const out = splicedLine(line, start, end, bytes);
          const expected = Buffer.concat([line.subarray(0, start), bytes, line.subarray(end)]);
          expect(out.equals(expected)).toBe(true);
          expect(new Uint8Array(out.buffer, out.byteOffset + out.length, 1)[0]).toBe(0x0a);
        },
      ),
      { numRuns: numRuns() },
    );
  });

  it("writes a run of adjacent lines as the chunk's own memory, without a copy", () => {
    const bytes = Buffer.from('{"a":1}\n{"b":2}\n{"c":3}\n');
    const { stream, written } = sink();
    const writes: Buffer[] = [];
    stream.write = ((chunk: Buffer) => {
      writes.push(chunk);
      written.push(chunk);
      return true;
    }) as typeof stream.write;
    const writer = new LineWriter(stream);
    writer.push(bytes.subarray(0, 7));
    writer.push(bytes.subarray(8, 15));
    writer.push(bytes.subarray(16, 23));
    writer.flush();
    expect(writes).toHaveLength(1);
    expect(writes[0]?.buffer).toBe(bytes.buffer);
    expect(writes[0]?.toString()).toBe(bytes.toString());
  });
});
