// The bench's "real" mix: each recorded turn of the corpus (bench/traffic/corpus-v{1,2}.ndjson)
// kept as its skeleton (the update kinds, their order and shapes: tool calls announced with rawInput,
// locations and content, completed with text, diff and terminal content; plans, usage, commands,
// session info, as the agent wrote them), with the text the mock could not give replaced by the
// stated model of bench/traffic/text-model.ts: every message streamed per token (a thought and a
// message before each tool call, the final answer in place of the mock's one-chunk sentence), tool
// output, file text, diffs and terminal output of realistic sizes with quotes, backslashes, tabs and
// non-ASCII text. Pure and deterministic.
import { replayable, type Update } from "./corpus.js";
import { TextModel, VOLUME } from "./text-model.js";

/** Keys whose string value is a file's or a tool's text (regenerated as lines of code/output). */
const TEXT_KEYS = new Set([
  "text",
  "rawOutput",
  "content",
  "old_string",
  "new_string",
  "oldString",
  "newString",
  "originalFile",
  "stdout",
  "stderr",
]);
/** Keys whose string value is one line (a command, a description). */
const LINE_KEYS = new Set(["command", "description"]);

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function isObject(v: Json | undefined): v is { [k: string]: Json } {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** A file's lines before and after an edit of a few consecutive lines. */
function edit(m: TextModel): { old: string[]; new: string[]; at: number; removed: number; added: number } {
  const old = m.lines(VOLUME.fileLines.min, VOLUME.fileLines.max);
  const removed = Math.min(old.length, m.int(VOLUME.changedLines.min, VOLUME.changedLines.max));
  const added = m.int(VOLUME.changedLines.min, VOLUME.changedLines.max);
  const at = m.int(0, old.length - removed);
  const next = [...old.slice(0, at), ...m.lines(added, added), ...old.slice(at + removed)];
  return { old, new: next, at, removed, added };
}

/** A git patch with the recorded one's headers and a generated hunk (one hunk over the whole file). */
function patch(m: TextModel, recorded: string): string {
  const cut = recorded.indexOf("\n@@");
  const header = cut === -1 ? recorded : recorded.slice(0, cut + 1);
  if (header.includes("--- /dev/null")) {
    const lines = m.lines(VOLUME.fileLines.min, VOLUME.fileLines.max);
    return `${header}@@ -0,0 +1,${lines.length} @@\n${lines.map((l) => `+${l}\n`).join("")}`;
  }
  const e = edit(m);
  const body = [
    ...e.old.slice(0, e.at).map((l) => ` ${l}`),
    ...e.old.slice(e.at, e.at + e.removed).map((l) => `-${l}`),
    ...e.new.slice(e.at, e.at + e.added).map((l) => `+${l}`),
    ...e.old.slice(e.at + e.removed).map((l) => ` ${l}`),
  ];
  return `${header}@@ -1,${e.old.length} +1,${e.new.length} @@\n${body.map((l) => `${l}\n`).join("")}`;
}

function regenerate(m: TextModel, v: Json, key: string, base64Data: boolean): Json {
  if (typeof v === "string") {
    if (key === "data") return base64Data ? Buffer.from(m.output()).toString("base64") : m.output();
    if (TEXT_KEYS.has(key)) return m.output();
    if (LINE_KEYS.has(key)) return m.codeLine().trim() || "ls";
    return v;
  }
  if (Array.isArray(v)) return v.map((x) => regenerate(m, x, key, base64Data));
  if (!isObject(v)) return v;
  const out: { [k: string]: Json } = {};
  const p = v.patch;
  const diff = v.type === "diff" && "newText" in v ? edit(m) : undefined;
  for (const [k, x] of Object.entries(v)) {
    if (diff && k === "oldText") out[k] = x === null ? null : diff.old.join("\n");
    else if (diff && k === "newText") out[k] = diff.new.join("\n");
    else if (k === "patch" && isObject(p) && p.format === "git_patch" && typeof p.text === "string")
      out[k] = { ...p, text: patch(m, p.text) };
    else out[k] = regenerate(m, x, k, base64Data);
  }
  return out;
}

/** A chunk update shaped as the recorded one (its key order, its messageId or none). */
function chunkUpdate(template: Update | undefined, kind: string, messageId: string | undefined, text: string): Update {
  const u: Record<string, unknown> = {};
  const keys = template ? Object.keys(template) : ["sessionUpdate", "messageId", "content"];
  for (const k of keys) {
    if (k === "sessionUpdate") u[k] = kind;
    else if (k === "content") u[k] = { type: "text", text };
    else if (k === "messageId") {
      if (messageId !== undefined) u[k] = messageId;
    } else u[k] = template![k];
  }
  if (messageId !== undefined && !("messageId" in u)) u.messageId = messageId;
  return u as Update;
}

function stream(m: TextModel, template: Update | undefined, kind: string, id: string | undefined, tokens: number) {
  return Array.from({ length: tokens }, () => chunkUpdate(template, kind, id, m.chunk()));
}

/**
 * One synthetic turn from a recorded one. The recorded chunk's messageId (if the agent writes one)
 * names the final answer; each step's thought and message get ids derived from it.
 */
export function expandTurn(recorded: readonly Update[], seed: number): Update[] {
  const m = new TextModel(seed);
  const chunk = recorded.find((u) => u.sessionUpdate === "agent_message_chunk");
  const baseId = typeof chunk?.messageId === "string" ? chunk.messageId : undefined;
  const seen = new Set<string>();
  const out: Update[] = [];
  let step = 0;
  for (const u of recorded) {
    if (!replayable(u)) continue;
    const kind = u.sessionUpdate;
    if (kind === "agent_message_chunk") {
      out.push(
        ...stream(m, chunk, kind, typeof u.messageId === "string" ? u.messageId : undefined, VOLUME.finalMessageTokens),
      );
      continue;
    }
    const isTool = kind === "tool_call" || kind === "tool_call_update";
    if (isTool && typeof u.toolCallId === "string" && !seen.has(u.toolCallId)) {
      seen.add(u.toolCallId);
      const id = (suffix: string) => (baseId === undefined ? undefined : `${baseId}-${suffix}${step}`);
      out.push(...stream(m, chunk, "agent_thought_chunk", id("t"), VOLUME.thoughtTokensPerStep));
      out.push(...stream(m, chunk, "agent_message_chunk", id("s"), VOLUME.messageTokensPerStep));
      step++;
    }
    out.push(
      isTool || kind === "terminal_update" ? (regenerate(m, u as Json, "", kind === "terminal_update") as Update) : u,
    );
  }
  return out;
}
