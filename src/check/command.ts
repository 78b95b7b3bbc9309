// `acp-bridge check [--protocol 1|2] [FILE]`: a recorded conversation checked against the official
// schemas, offline, streamed line by line (memory bounded by the longest line and the pending-request
// map, never by the file). Loaded only for this sub-command (src/cli.ts).
import { openInput, painter, processStreams, Progress, readLines, type Streams } from "../recording/lines.js";
import { ConversationChecker, type Violation } from "./conversation.js";
import { checkHelp, MAX_PENDING, parseCheckArgs } from "./options.js";

export async function runCheck(argv: readonly string[], io: Streams = processStreams()): Promise<number> {
  const args = parseCheckArgs(argv);
  if (args === "help") {
    io.stdout.write(checkHelp());
    return 0;
  }
  if ("problem" in args) {
    io.stderr.write(`acp-bridge check: ${args.problem}\nTry 'acp-bridge check --help'.\n`);
    return 2;
  }
  const input = openInput(args.file, io.stdin);
  if ("problem" in input) {
    io.stderr.write(`acp-bridge check: ${input.problem}\n`);
    return 2;
  }
  const name = input.name;
  const paint = painter(io.stdout, io.env);
  const paintErr = painter(io.stderr, io.env);

  const checker = new ConversationChecker({ protocol: args.protocol, maxPending: MAX_PENDING });
  const progress = new Progress("checking", input, io.stderr);
  let out = "";
  const flush = async () => {
    if (out === "") return;
    const text = out;
    out = "";
    // Both on one terminal: the progress line goes first, and comes back on the next tick.
    progress.clear();
    if (!io.stdout.write(text)) await new Promise((r) => io.stdout.once("drain", r));
  };
  const emit = (vs: readonly Violation[]) => {
    for (const v of vs)
      out += `${paint("1", `${name}:${String(v.line)}:`)} ${v.subject}: ${v.path === "" ? "" : `${paint("36", v.path)}: `}${v.wanted}\n`;
  };

  try {
    await readLines(input.stream, args.maxLineBytes, {
      line: (text, n) => emit(checker.line(text, n)),
      tooLong: (n) =>
        emit(
          checker.report({
            line: n,
            subject: "line too long",
            path: "",
            wanted: `at most ${String(args.maxLineBytes)} bytes (--max-line-bytes); the line is skipped`,
          }),
        ),
      chunk: async (read) => {
        progress.tick(read);
        if (out.length > 64 * 1024) await flush();
      },
    });
  } catch (e) {
    progress.clear();
    io.stderr.write(`acp-bridge check: reading '${name}': ${(e as Error).message}\n`);
    return 2;
  }
  await flush();
  progress.clear();

  const unchecked =
    checker.unchecked > 0
      ? `, ${String(checker.unchecked)} not checked (no version known: give --protocol, or a response to a forgotten request)`
      : "";
  const summary = `${name}: ${String(checker.messages)} messages, ${String(checker.violations)} violation${checker.violations === 1 ? "" : "s"}${unchecked}`;
  io.stderr.write(`${checker.violations > 0 ? paintErr("31", summary) : summary}\n`);
  return checker.violations > 0 ? 1 : 0;
}
