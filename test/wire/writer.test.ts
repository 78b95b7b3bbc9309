// The line writer: whatever it is handed (serialized lines, views of read chunks that lie one after
// the other or not, with flushes anywhere), the stream gets each line followed by one newline.
import { Writable } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LineWriter } from "../../src/wire/writer.js";
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

/** A read chunk and the lines in it: `text` split at `\n`, a `\r` before it now and then. */
const chunk = fc
  .array(fc.tuple(fc.string({ maxLength: 6 }), fc.boolean()), { minLength: 1, maxLength: 6 })
  .map((lines) => {
    const bytes = Buffer.from(lines.map(([l, cr]) => l + (cr ? "\r" : "") + "\n").join(""));
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
