// `acp-bridge convert --to 1|2 [FILE]`: one recorded connection written as peers of the other version
// would have had it, through the bridge's own engine (chain.ts), offline, streamed line by line in
// the form it was read in (src/recording/). Memory is bounded by the longest line and the replay's
// maps of unanswered requests, never by the file. Loaded only for this sub-command (src/cli.ts).
import { closeSync, createWriteStream, openSync } from "node:fs";
import type { Writable } from "node:stream";
import { isObject, type Obj } from "../base/json.js";
import { bridgeMarkerOf } from "../convert/initialize.js";
import { Locator, type Located, type Role } from "../recording/forms.js";
import { openInput, painter, processStreams, Progress, readLines, type Streams } from "../recording/lines.js";
import { traceEvent } from "../transport/trace.js";
import { methodRow } from "../../mappings/methods.js";
import { Chain, type Skipped, type Version } from "./chain.js";
import { convertHelp, MAX_PENDING, parseConvertArgs, type ConvertArgs } from "./options.js";

/** Lines held while the recording's version is not known yet (before its `initialize`). */
const MAX_EARLY_LINES = 10_000;
/** Skipped messages named one by one on stderr; the rest are counted. */
const MAX_NAMED = 100;

/** Who sent a message of a file that does not say (the bare form, a `dir` line before `initialize`). */
class Senders {
  private readonly open = new Map<string, Role>();

  note(role: Role, msg: Obj): void {
    if (typeof msg.method !== "string" || msg.id === undefined) return;
    const k = JSON.stringify(msg.id);
    this.open.delete(k);
    this.open.set(k, role);
    if (this.open.size > MAX_PENDING) {
      const oldest = this.open.keys().next().value;
      if (oldest !== undefined) this.open.delete(oldest);
    }
  }

  answered(msg: Obj): void {
    if (typeof msg.method !== "string" && msg.id !== undefined) this.open.delete(JSON.stringify(msg.id));
  }

  /** By method ownership (mappings/methods.ts), else by the request an answer or a cancel names. */
  guess(msg: Obj): Role {
    if (typeof msg.method === "string") {
      const row = methodRow(1, msg.method) ?? methodRow(2, msg.method);
      if (row?.handledBy === "agent") return "client";
      if (row?.handledBy === "client") return "agent";
      const named = isObject(msg.params) ? this.open.get(JSON.stringify(msg.params.requestId)) : undefined;
      if (named !== undefined) return named;
      return msg.id === undefined ? "agent" : "client";
    }
    const asker = this.open.get(JSON.stringify(msg.id));
    return asker === "agent" ? "client" : "agent";
  }
}

function versionOf(pv: unknown): Version | undefined {
  return typeof pv === "number" && Number.isInteger(pv) && pv >= 1 ? (pv === 1 ? 1 : 2) : undefined;
}

interface Held {
  readonly text: string;
  readonly n: number;
  readonly role: Role;
  readonly msg: Obj;
  readonly ts: number | undefined;
}

export async function runConvert(argv: readonly string[], io: Streams = processStreams()): Promise<number> {
  const args = parseConvertArgs(argv);
  if (args === "help") {
    io.stdout.write(convertHelp());
    return 0;
  }
  if ("problem" in args) {
    io.stderr.write(`acp-bridge convert: ${args.problem}\nTry 'acp-bridge convert --help'.\n`);
    return 2;
  }
  const input = openInput(args.file, io.stdin);
  if ("problem" in input) {
    io.stderr.write(`acp-bridge convert: ${input.problem}\n`);
    return 2;
  }
  let out: Writable;
  if (args.output === undefined) out = io.stdout;
  else {
    try {
      closeSync(openSync(args.output, "w"));
    } catch (e) {
      io.stderr.write(`acp-bridge convert: cannot write '${args.output}': ${(e as Error).message}\n`);
      return 2;
    }
    out = createWriteStream(args.output);
  }
  const status = await convert(args, input, out, io);
  if (args.output !== undefined) await new Promise<void>((resolve) => out.end(resolve));
  return status;
}

async function convert(
  args: ConvertArgs,
  input: Exclude<ReturnType<typeof openInput>, { problem: string }>,
  out: Writable,
  io: Streams,
): Promise<number> {
  const name = input.name;
  const paintErr = painter(io.stderr, io.env);
  const progress = new Progress("converting", input, io.stderr);
  const locator = new Locator();
  const senders = new Senders();
  const wanted = args.connection === "client" ? "acp-bridge|client" : "acp-bridge|agent";
  const names =
    args.connection === "client" ? { client: "client", agent: "acp-bridge" } : { client: "acp-bridge", agent: "agent" };

  let text = "";
  const flush = async () => {
    if (text === "") return;
    const chunk = text;
    text = "";
    if (!out.write(chunk)) await new Promise((r) => out.once("drain", r));
  };
  let named = 0;
  const say = (line: string) => {
    progress.clear();
    io.stderr.write(`${line}\n`);
  };
  let read = 0;
  let written = 0;
  let skipped = 0;
  let refused = 0;
  let unreadable = 0;
  let otherConnection = 0;
  const skip = (s: Skipped) => {
    skipped++;
    if (s.refused) refused++;
    if (named++ < MAX_NAMED)
      say(`${name}:${String(s.line)}: ${s.refused ? paintErr("31", "not converted") : "skipped"} ${s.what}: ${s.why}`);
  };
  const bad = (n: number, what: string) => {
    unreadable++;
    say(`${name}:${String(n)}: ${paintErr("31", "unreadable")}: ${what}`);
  };

  let ts: number | undefined;
  const render = (from: Role, msg: Obj): string => {
    switch (locator.form) {
      case "trace": {
        const to = from === "client" ? "agent" : "client";
        return JSON.stringify(traceEvent(msg, names[from], names[to], ts ?? 0));
      }
      case "wire":
        return JSON.stringify({ dir: from === (locator.outRole ?? "client") ? "out" : "in", msg });
      case "fixture":
        return JSON.stringify({ from, message: msg });
      default:
        return JSON.stringify(msg);
    }
  };

  let chain: Chain | undefined;
  /** The recording already speaks the target version: its lines go out as they are. */
  let same = false;
  let early: Held[] | undefined = [];
  const feed = async (h: Held) => {
    if (chain === undefined) return;
    ts = h.ts;
    await chain.feed({ from: h.role, msg: h.msg, line: h.n });
  };
  const start = (init: Obj, version: Version) => {
    if (version === args.to) {
      same = true;
      say(`${name}: the recording already speaks v${String(version)}: written unchanged`);
      return;
    }
    const params = isObject(init.params) ? init.params : {};
    chain = new Chain({
      from: version,
      to: args.to,
      stash: args.stash,
      recordedBetweenBridges: bridgeMarkerOf(params._meta) !== undefined,
      maxPending: MAX_PENDING,
      write: (w) => {
        written++;
        text += `${render(w.from, w.msg)}\n`;
      },
      skip,
    });
  };

  const line = async (raw: string, n: number): Promise<void> => {
    if (same) {
      text += `${raw}\n`;
      return;
    }
    if (raw.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      bad(n, `not JSON: ${(e as Error).message}`);
      return;
    }
    const located = locator.locate(value);
    if ("wanted" in located) {
      bad(n, `${located.subject}: ${located.wanted}`);
      return;
    }
    const held: Held[] = [];
    for (const m of located) {
      if (locator.form === "trace" && m.conn !== wanted) {
        otherConnection++;
        continue;
      }
      if (!isObject(m.msg)) {
        bad(n, "a message that is no JSON-RPC object");
        continue;
      }
      read++;
      held.push(heldOf(m, m.msg, raw, n));
    }
    for (const h of held) {
      senders.answered(h.msg);
      senders.note(h.role, h.msg);
      if (early !== undefined) {
        early.push(h);
        if (h.role === "client" && h.msg.method === "initialize" && h.msg.id !== undefined && init === undefined)
          init = {
            msg: h.msg,
            asked: versionOf(isObject(h.msg.params) ? h.msg.params.protocolVersion : undefined) ?? 1,
          };
        else if (
          init !== undefined &&
          h.role === "agent" &&
          h.msg.method === undefined &&
          JSON.stringify(h.msg.id) === JSON.stringify(init.msg.id)
        ) {
          // The settled version is the answer's (a v1 agent answers 1 to a client asking 2), as `check` has it.
          const answered = isObject(h.msg.result) ? versionOf(h.msg.result.protocolVersion) : undefined;
          if (await settle(answered ?? init.asked)) return;
        } else if (early.length > MAX_EARLY_LINES) {
          if (init !== undefined) {
            if (await settle(init.asked)) return;
            continue;
          }
          bad(
            n,
            `no client initialize in the first ${String(MAX_EARLY_LINES)} messages: the recording's version is unknown`,
          );
          early = [];
        }
        continue;
      }
      await feed(h);
    }
  };
  /** The client's initialize request, while its answer is awaited, and the version it asked for. */
  let init: { msg: Obj; asked: Version } | undefined;
  /** The recording's version is known: the messages held are fed (true: the rest of the line is written as is). */
  const settle = async (version: Version): Promise<boolean> => {
    const before = early ?? [];
    early = undefined;
    start(init?.msg ?? {}, version);
    if (same) {
      // The lines read so far, once each (a batch's messages share theirs).
      let last = 0;
      for (const e of before) {
        if (e.n !== last) text += `${e.text}\n`;
        last = e.n;
      }
      return true;
    }
    for (const e of before) await feed(e);
    return false;
  };
  const heldOf = (m: Located, msg: Obj, raw: string, n: number): Held => {
    // A trace event carries no `jsonrpc`: the bridges read JSON-RPC.
    const full = "jsonrpc" in msg ? msg : { jsonrpc: "2.0", ...msg };
    return { text: raw, n, role: m.role ?? senders.guess(full), msg: full, ts: m.ts };
  };

  try {
    await readLines(input.stream, args.maxLineBytes, {
      line: async (raw, n) => {
        await line(raw, n);
        if (text.length > 64 * 1024) await flush();
      },
      tooLong: (n) => bad(n, `longer than ${String(args.maxLineBytes)} bytes (--max-line-bytes); skipped`),
      chunk: (r) => progress.tick(r),
    });
  } catch (e) {
    progress.clear();
    io.stderr.write(`acp-bridge convert: reading '${name}': ${(e as Error).message}\n`);
    return 2;
  }
  // An initialize never answered: the version it asked for.
  if (early !== undefined && init !== undefined) await settle(init.asked);
  chain?.end();
  await flush();
  progress.clear();
  if (chain === undefined && !same) {
    say(paintErr("31", `${name}: no client initialize request: the recording's version is unknown, nothing written`));
    return 1;
  }
  if (same) return unreadable > 0 ? 1 : 0;
  const others = otherConnection > 0 ? `, ${String(otherConnection)} of the other connection not written` : "";
  const more = named > MAX_NAMED ? ` (${String(named - MAX_NAMED)} not named above)` : "";
  const summary = `${name}: v${String(args.to === 1 ? 2 : 1)} → v${String(args.to)}: ${String(read)} messages read, ${String(written)} written, ${String(skipped)} skipped${more}${refused > 0 ? `, ${String(refused)} not converted` : ""}${unreadable > 0 ? `, ${String(unreadable)} unreadable lines` : ""}${others}`;
  io.stderr.write(`${refused + unreadable > 0 ? paintErr("31", summary) : summary}\n`);
  return refused + unreadable > 0 ? 1 : 0;
}
