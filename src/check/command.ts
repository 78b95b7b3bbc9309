// `acp-bridge check [--protocol 1|2] [FILE]`: a recorded conversation checked against the official
// schemas, offline, streamed line by line (memory bounded by the longest line and the pending-request
// map, never by the file). Loaded only for this sub-command (src/cli.ts).
import { createReadStream, fstatSync, openSync } from "node:fs";
import type { Writable } from "node:stream";
import { ConversationChecker, type Violation } from "./conversation.js";
import { checkHelp, MAX_PENDING, parseCheckArgs } from "./options.js";

const NEWLINE = 0x0a;
const PROGRESS_MS = 200;

interface Streams {
  readonly stdin: NodeJS.ReadableStream & { fd?: number };
  readonly stdout: Writable & { isTTY?: boolean };
  readonly stderr: Writable & { isTTY?: boolean };
  readonly env: NodeJS.ProcessEnv;
}

const MiB = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

export async function runCheck(
  argv: readonly string[],
  io: Streams = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env },
): Promise<number> {
  const args = parseCheckArgs(argv);
  if (args === "help") {
    io.stdout.write(checkHelp());
    return 0;
  }
  if ("problem" in args) {
    io.stderr.write(`acp-bridge check: ${args.problem}\nTry 'acp-bridge check --help'.\n`);
    return 2;
  }
  const name = args.file === "-" ? "<stdin>" : args.file;
  let fd: number;
  try {
    fd = args.file === "-" ? 0 : openSync(args.file, "r");
  } catch (e) {
    io.stderr.write(`acp-bridge check: cannot read '${args.file}': ${(e as Error).message}\n`);
    return 2;
  }
  let total: number | undefined;
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) {
      io.stderr.write(`acp-bridge check: '${args.file}' is a directory\n`);
      return 2;
    }
    if (st.isFile()) total = st.size;
  } catch {
    // A pipe without a size: no total in the progress line.
  }
  const colour = (tty: boolean | undefined) => tty === true && io.env.NO_COLOR === undefined;
  const paint = colour(io.stdout.isTTY)
    ? (code: string, s: string) => `\u001b[${code}m${s}\u001b[0m`
    : (_: string, s: string) => s;
  const paintErr = colour(io.stderr.isTTY)
    ? (code: string, s: string) => `\u001b[${code}m${s}\u001b[0m`
    : (_: string, s: string) => s;

  const checker = new ConversationChecker({ protocol: args.protocol, maxPending: MAX_PENDING });
  const input = args.file === "-" ? io.stdin : createReadStream("", { fd });
  let read = 0;
  let lastProgress = Date.now();
  let progressShown = false;
  const progress = () => {
    if (io.stderr.isTTY !== true) return;
    const now = Date.now();
    if (now - lastProgress < PROGRESS_MS) return;
    lastProgress = now;
    progressShown = true;
    const pct = total ? ` (${((100 * read) / total).toFixed(0)}%)` : "";
    io.stderr.write(`\r\u001b[Kchecking ${name}: ${MiB(read)}${total === undefined ? "" : ` of ${MiB(total)}`}${pct}`);
  };
  let out = "";
  const flush = async () => {
    if (out === "") return;
    const text = out;
    out = "";
    // Both on one terminal: the progress line goes first, and comes back on the next tick.
    if (progressShown) {
      io.stderr.write("\r\u001b[K");
      progressShown = false;
    }
    if (!io.stdout.write(text)) await new Promise((r) => io.stdout.once("drain", r));
  };
  const emit = (vs: readonly Violation[]) => {
    for (const v of vs)
      out += `${paint("1", `${name}:${String(v.line)}:`)} ${v.subject}: ${v.path === "" ? "" : `${paint("36", v.path)}: `}${v.wanted}\n`;
  };

  // Lines split on bytes (UTF-8 never has 0x0A inside a character), decoded one at a time.
  let parts: Buffer[] = [];
  let partBytes = 0;
  let skipping = false;
  let n = 0;
  /** A complete line: the parts held plus `chunk`. */
  const endLine = (chunk: Buffer | undefined) => {
    n++;
    const line =
      chunk === undefined
        ? Buffer.concat(parts, partBytes)
        : parts.length === 0
          ? chunk
          : Buffer.concat([...parts, chunk]);
    parts = [];
    partBytes = 0;
    emit(checker.line(line.toString("utf8"), n));
  };
  const tooLong = () => {
    emit(
      checker.report({
        line: n + 1,
        subject: "line too long",
        path: "",
        wanted: `at most ${String(args.maxLineBytes)} bytes (--max-line-bytes); the line is skipped`,
      }),
    );
    parts = [];
    partBytes = 0;
    skipping = true;
  };
  try {
    for await (const data of input) {
      const chunk = typeof data === "string" ? Buffer.from(data) : (data as Buffer);
      read += chunk.length;
      let start = 0;
      for (let nl = chunk.indexOf(NEWLINE, start); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
        const piece = chunk.subarray(start, nl);
        if (!skipping && partBytes + piece.length > args.maxLineBytes) tooLong();
        if (skipping) {
          n++;
          skipping = false;
          parts = [];
          partBytes = 0;
        } else endLine(piece);
        start = nl + 1;
      }
      if (start < chunk.length && !skipping) {
        const rest = chunk.subarray(start);
        if (partBytes + rest.length > args.maxLineBytes) tooLong();
        else {
          // A copy: the stream may reuse its buffer.
          parts.push(Buffer.from(rest));
          partBytes += rest.length;
        }
      }
      progress();
      if (out.length > 64 * 1024) await flush();
    }
    if (partBytes > 0 && !skipping) endLine(undefined);
  } catch (e) {
    io.stderr.write(
      `${progressShown ? "\r\u001b[K" : ""}acp-bridge check: reading '${name}': ${(e as Error).message}\n`,
    );
    return 2;
  }
  await flush();
  if (progressShown) io.stderr.write("\r\u001b[K");

  const unchecked =
    checker.unchecked > 0
      ? `, ${String(checker.unchecked)} not checked (no version known: give --protocol, or a response to a forgotten request)`
      : "";
  const summary = `${name}: ${String(checker.messages)} messages, ${String(checker.violations)} violation${checker.violations === 1 ? "" : "s"}${unchecked}`;
  io.stderr.write(`${checker.violations > 0 ? paintErr("31", summary) : summary}\n`);
  return checker.violations > 0 ? 1 : 0;
}
