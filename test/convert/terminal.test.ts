// Terminal rendering toward v1 clients (T §2.5 A↓ text mode, T §9 case 11).
import { describe, expect, it } from "vitest";
import {
  appendOutput,
  newTerminal,
  replaceOutput,
  sanitize,
  terminalToV1Item,
  transcript,
} from "../../src/convert/terminal.js";
import { options } from "../support/properties.js";
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
