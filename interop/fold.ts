// Fold one recorded ACP wire (v1 or v2, as a client received it or as an agent sent it) into a
// version-neutral view of what a user sees of the turn: a flat map from a stable key (`message`,
// `tool[2].status`, `permission[0]`, `plan`, ...) to a normalised string, so two views compare key
// by key. Ids and timestamps are left out; the run's cwd and HOME read `<cwd>` and `<home>` in every
// value; a selector (mode, model) has one key whatever its shape; tool calls and permission requests
// are numbered in order of appearance.
import type { WireEntry } from "../test/support/peers.js";
import type { AcpVersion } from "./agents/recipe.js";
import { capabilityRows } from "../mappings/capabilities.js";
import { isObject } from "../src/base/json.js";

type Json = Record<string, unknown>;

function str(x: unknown): string | undefined {
  return typeof x === "string" ? x : undefined;
}
function arr(x: unknown): unknown[] {
  return Array.isArray(x) ? x : [];
}

export interface View {
  /** Compared key by key. */
  readonly items: Record<string, string>;
  /** Shown with a difference, never compared (e.g. whether a diff carried full texts). */
  readonly notes: Record<string, string>;
  /** For each key, the wire message that set it last (for reports). */
  readonly sources: Record<string, unknown>;
}

interface Terminal {
  output: string;
  exit?: string;
  source?: unknown;
}

interface Tool {
  title?: string;
  kind?: string;
  status?: string;
  locations?: string;
  content: unknown[];
  /** Per field, the last message that set it. */
  readonly src: Record<string, unknown>;
  /** Terminal ids shown in the content, and output carried by the v1 `_meta` convention. */
  terminalIds: Set<string>;
}

/** Changed lines of a text change: `-old` and `+new` lines that are not common to both sides. */
export function changedLines(oldText: string, newText: string): string[] {
  const a = oldText === "" ? [] : oldText.replace(/\n$/, "").split("\n");
  const b = newText === "" ? [] : newText.replace(/\n$/, "").split("\n");
  // Longest common subsequence, so a snippet and a full text of the same edit give the same lines.
  const dp: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      dp[i]![j] = a[i] === b[j] ? dp[i + 1]![j + 1]! + 1 : Math.max(dp[i + 1]![j]!, dp[i]![j + 1]!);
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      i++;
      j++;
    } else if (i < a.length && (j >= b.length || dp[i + 1]![j]! >= dp[i]![j + 1]!)) out.push(`-${a[i++]!}`);
    else out.push(`+${b[j++]!}`);
  }
  return out;
}

/** Changed lines of a unified/git patch text. */
export function patchLines(patch: string): string[] {
  return patch
    .split("\n")
    .filter((l) => (l.startsWith("+") && !l.startsWith("+++")) || (l.startsWith("-") && !l.startsWith("---")));
}

function decodeBase64(data: string): string {
  return Buffer.from(data, "base64").toString("utf8");
}

/** Wire entries from a bridge `--trace` file (conductor .jsons): the agent side of a bridge run. */
export function wireFromTrace(text: string): WireEntry[] {
  const out: WireEntry[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const e: unknown = JSON.parse(line);
    if (!isObject(e)) continue;
    const dir = e.from === "agent" ? "in" : e.to === "agent" ? "out" : undefined;
    if (dir === undefined) continue;
    let msg: Json;
    if (e.type === "request") msg = { jsonrpc: "2.0", id: e.id, method: e.method, params: e.params };
    else if (e.type === "notification") msg = { jsonrpc: "2.0", method: e.method, params: e.params };
    else
      msg =
        e.is_error === true
          ? { jsonrpc: "2.0", id: e.id, error: e.payload }
          : { jsonrpc: "2.0", id: e.id, result: e.payload };
    if (msg.params === undefined) delete msg.params;
    out.push({ dir, msg });
  }
  return out;
}

/** The protocol version the answer to the wire's `initialize` carries (undefined without one). */
export function spokenVersion(wire: readonly WireEntry[]): number | undefined {
  const ids = new Set<string>();
  for (const e of wire) {
    const m = e.msg;
    if (!isObject(m)) continue;
    if (e.dir === "out" && m.method === "initialize") ids.add(JSON.stringify(m.id));
    else if (e.dir === "in" && m.method === undefined && ids.has(JSON.stringify(m.id)) && isObject(m.result))
      return typeof m.result.protocolVersion === "number" ? m.result.protocolVersion : undefined;
  }
  return undefined;
}

export interface FoldOptions {
  /** The run's scratch HOME: shown as `<home>` wherever it appears, as the session's cwd is as `<cwd>`. */
  readonly home?: string;
}

/** A selector (mode, model): its current value and the ids offered. */
interface Selector {
  current: unknown;
  ids: readonly string[];
  source: unknown;
}

/**
 * One neutral form for a selector whatever its shape (v1 `modes`, the legacy `models`, or a config
 * option of category mode/model): the current value and the set of ids, the current one included.
 * A v2 select must list its current value among its options, so the bridge adds a legacy
 * `currentModelId` missing from `availableModels`: the same choice to a user, not a difference.
 * The order of the list is not compared.
 */
export function selectorText(current: unknown, ids: readonly string[]): string {
  const all = new Set(ids);
  if (typeof current === "string") all.add(current);
  return `current=${JSON.stringify(current)} options=${[...all].sort().join(",")}`;
}

/** Every occurrence of the run's cwd and HOME replaced by placeholders (the longer first). */
export function placeholders(text: string, paths: Readonly<Record<string, string | undefined>>): string {
  const ordered = Object.entries(paths)
    .filter((e): e is [string, string] => e[1] !== undefined && e[1] !== "")
    .sort((a, b) => b[1].length - a[1].length);
  let out = text;
  for (const [name, path] of ordered) out = out.split(path).join(`<${name}>`);
  return out;
}

/** Folded keys that only one version has a field for (the other version's client cannot get them). */
const ONLY_IN: readonly { version: AcpVersion; key: RegExp }[] = [
  // RequestPermissionRequest.title / description: v1 asks with the tool call alone.
  { version: 2, key: /^permission\[\d+\]\.prompt$/ },
];

/** Whether a client of `version` has a place for what a folded key shows. */
export function hasPlaceIn(version: AcpVersion, key: string): boolean {
  return !ONLY_IN.some((o) => o.version !== version && o.key.test(key));
}

/** Fold a wire; `in` entries are what the agent (or the bridge, for a client) sent. */
export function fold(wire: readonly WireEntry[], version: AcpVersion, options: FoldOptions = {}): View {
  const items: Record<string, string> = {};
  const notes: Record<string, string> = {};
  const sources: Record<string, unknown> = {};
  let cwd = "";
  const rel = (p: string): string => (cwd !== "" && p.startsWith(cwd) ? `<cwd>${p.slice(cwd.length)}` : p);
  let current: unknown;
  const set = (key: string, value: string | undefined, source: unknown = current): void => {
    if (value === undefined) return;
    items[key] = value;
    sources[key] = source;
  };

  const requests = new Map<string, string>();
  const messages = new Map<string, string>(); // messageId → text, in order
  const thoughts = new Map<string, string>();
  let anon = 0;
  const tools = new Map<string, Tool>();
  const terminals = new Map<string, Terminal>();
  let permissions = 0;
  const configs = new Map<string, string>();
  // v1's `modes` / the legacy `models`, or the config option of that category (v2's only place):
  // whichever the agent set last.
  let mode: Selector | undefined;
  let model: Selector | undefined;

  const tool = (id: string): Tool => {
    let t = tools.get(id);
    if (!t) {
      t = { content: [], terminalIds: new Set(), src: {} };
      tools.set(id, t);
    }
    return t;
  };
  const terminal = (id: string): Terminal => {
    let t = terminals.get(id);
    if (!t) {
      t = { output: "" };
      terminals.set(id, t);
    }
    t.source = current;
    return t;
  };
  let messageSource: unknown;
  let thoughtSource: unknown;
  const configSources = new Map<string, unknown>();
  const chunk = (into: Map<string, string>, u: Json): void => {
    const id = str(u.messageId) ?? `#${anon}`;
    const c = u.content;
    const text = isObject(c) && typeof c.text === "string" ? c.text : "";
    into.set(id, (into.get(id) ?? "") + text);
  };
  const whole = (into: Map<string, string>, u: Json): void => {
    const id = str(u.messageId) ?? `#${anon++}`;
    into.set(
      id,
      arr(u.content)
        .map((c) => (isObject(c) && typeof c.text === "string" ? c.text : ""))
        .join(""),
    );
  };

  const foldConfig = (options: unknown): void => {
    for (const o of arr(options)) {
      if (!isObject(o)) continue;
      const id = str(o.configId) ?? str(o.id) ?? "?";
      const values = arr(o.options)
        .flatMap((x) => (isObject(x) && Array.isArray(x.options) ? x.options : [x]))
        .map((x) => (isObject(x) ? str(x.value) : undefined))
        .filter((x) => x !== undefined);
      if (o.category === "mode" || o.category === "model") {
        const s: Selector = { current: o.currentValue, ids: values, source: current };
        if (o.category === "mode") mode = s;
        else model = s;
        continue;
      }
      const folded = isBooleanOption(o.type, values)
        ? `boolean current=${String(o.currentValue === true || o.currentValue === "true" || o.currentValue === "on")}`
        : `current=${JSON.stringify(o.currentValue)} options=${values.join(",")}`;
      configs.set(id, folded);
      configSources.set(id, current);
    }
  };
  const foldSessionResult = (r: Json): void => {
    foldConfig(r.configOptions);
    const ids = (list: unknown, key: string): string[] =>
      arr(list)
        .map((x) => (isObject(x) ? str(x[key]) : undefined))
        .filter((x) => x !== undefined);
    const m = r.modes;
    if (isObject(m)) mode = { current: m.currentModeId, ids: ids(m.availableModes, "id"), source: current };
    const md = r.models;
    if (isObject(md)) model = { current: md.currentModelId, ids: ids(md.availableModels, "modelId"), source: current };
    if (Array.isArray(r.availableCommands)) set("commands", commandNames(r.availableCommands));
  };
  // The agent's capabilities that have a place in both versions (the bridge's own capability table
  // says which), under their v2 path.
  const foldCapabilities = (caps: unknown): void => {
    const rows = capabilityRows("agent").filter((r) => r.v1 !== null && r.v2 !== null && r.v1 !== "*");
    for (const r of rows) {
      const v2 = r.v2 ?? "";
      // Containers are folded through their own rows.
      if (rows.some((o) => o.v2?.startsWith(`${v2}.`))) continue;
      // The bridge's own stash is for chained bridges, not what the agent advertised.
      const value = withoutStash(at(caps, (version === 1 ? r.v1 : r.v2) ?? ""));
      if (value === undefined || value === null || value === false) continue;
      if (v2.endsWith("_meta") && isObject(value) && Object.keys(value).length === 0) continue;
      set(`capability.${v2}`, r.kind === "bool↔marker" ? "yes" : canonical(value));
    }
  };
  const commandNames = (list: unknown[]): string =>
    list
      .map((c) => (isObject(c) ? str(c.name) : undefined))
      .filter((x) => x !== undefined)
      .sort()
      .join(",");

  const applyTool = (u: Json, fromPermission: boolean): void => {
    const id = str(u.toolCallId);
    if (id === undefined) return;
    const t = tool(id);
    if (typeof u.title === "string") [t.title, t.src.title] = [u.title, current];
    if (typeof u.kind === "string") [t.kind, t.src.kind] = [u.kind, current];
    if (typeof u.status === "string" && !fromPermission) [t.status, t.src.status] = [u.status, current];
    if (Array.isArray(u.locations)) {
      t.locations = u.locations
        .map((l) => (isObject(l) ? `${rel(str(l.path) ?? "?")}${typeof l.line === "number" ? `:${l.line}` : ""}` : "?"))
        .join(",");
      t.src.locations = current;
    }
    if (Array.isArray(u.content) && !fromPermission) [t.content, t.src.content] = [u.content, current];
    for (const c of arr(u.content)) if (isObject(c) && c.type === "terminal") t.terminalIds.add(String(c.terminalId));
    // Zed's v1 terminal convention: the output and exit ride on the tool call's `_meta`. A v2
    // client has terminal updates for that; the keys mean nothing to it.
    const meta = u._meta;
    if (isObject(meta) && version === 1) {
      const info = meta.terminal_info;
      if (isObject(info) && typeof info.terminal_id === "string") {
        t.terminalIds.add(info.terminal_id);
        terminal(info.terminal_id);
      }
      // The adapters' name for the same append toward a client that did not opt in.
      const out = isObject(meta.terminal_output) ? meta.terminal_output : meta.terminal_output_delta;
      if (isObject(out) && typeof out.terminal_id === "string" && typeof out.data === "string") {
        t.terminalIds.add(out.terminal_id);
        terminal(out.terminal_id).output += out.data;
      }
      const exit = meta.terminal_exit;
      if (isObject(exit) && typeof exit.terminal_id === "string") {
        t.terminalIds.add(exit.terminal_id);
        terminal(exit.terminal_id).exit = exitText(exit.exit_code, exit.signal);
      }
    }
  };

  const foldContent = (c: unknown): { text: string; note?: string } => {
    if (!isObject(c)) return { text: "?" };
    if (c.type === "content") {
      const b = c.content;
      if (isObject(b) && b.type === "text") return { text: `text:${String(b.text)}` };
      return { text: `content:${isObject(b) ? String(b.type) : "?"}` };
    }
    if (c.type === "diff") {
      if (typeof c.path === "string") {
        const oldText = str(c.oldText) ?? "";
        const newText = str(c.newText) ?? "";
        return {
          text: `diff:${rel(c.path)} ${changedLines(oldText, newText).join(" | ")}`,
          note: `v1 texts (${c.oldText === null || c.oldText === undefined ? "new file" : `${oldText.split("\n").length} old lines`})`,
        };
      }
      const change = arr(c.changes)[0];
      const path = isObject(change) ? (str(change.path) ?? str(change.newPath) ?? "?") : "?";
      const patch = isObject(c.patch) ? (str(c.patch.text) ?? "") : "";
      return { text: `diff:${rel(path)} ${patchLines(patch).join(" | ")}`, note: "v2 patch" };
    }
    if (c.type === "terminal") return { text: "terminal" };
    return { text: `other:${String(c.type)}` };
  };

  const onUpdate = (u: Json): void => {
    switch (u.sessionUpdate) {
      case "agent_message_chunk":
        messageSource = current;
        chunk(messages, u);
        return;
      case "agent_message":
        messageSource = current;
        whole(messages, u);
        return;
      case "agent_thought_chunk":
        thoughtSource = current;
        chunk(thoughts, u);
        return;
      case "agent_thought":
        thoughtSource = current;
        whole(thoughts, u);
        return;
      case "tool_call":
      case "tool_call_update":
        applyTool(u, false);
        return;
      case "tool_call_content_chunk": {
        const id = str(u.toolCallId);
        if (id !== undefined) {
          const t = tool(id);
          t.content = [...t.content, u.content];
          t.src.content = current;
          if (isObject(u.content) && u.content.type === "terminal") t.terminalIds.add(String(u.content.terminalId));
        }
        return;
      }
      case "terminal_update": {
        const t = terminal(String(u.terminalId));
        if (isObject(u.output) && typeof u.output.data === "string") t.output = decodeBase64(u.output.data);
        if (isObject(u.exitStatus)) t.exit = exitText(u.exitStatus.exitCode, u.exitStatus.signal);
        return;
      }
      case "terminal_output_chunk":
        terminal(String(u.terminalId)).output += decodeBase64(String(u.data));
        return;
      case "plan":
      case "plan_update": {
        // By shape, not by the version the wire was expected to speak.
        const entries = isObject(u.plan) ? u.plan.entries : u.entries;
        set(
          "plan",
          arr(entries)
            .map((e) => (isObject(e) ? `${String(e.status)}:${String(e.content)}` : "?"))
            .join(" | "),
        );
        return;
      }
      case "available_commands_update":
        set("commands", commandNames(arr(u.availableCommands)));
        return;
      case "session_info_update":
        if (typeof u.title === "string") set("title", u.title);
        return;
      case "usage_update":
        set("contextUsage", `used=${String(u.used)} size=${String(u.size)}`);
        return;
      case "config_option_update":
        foldConfig(u.configOptions);
        return;
      case "current_mode_update":
        if (mode !== undefined) mode = { ...mode, current: u.currentModeId, source: current };
        return;
      case "notice":
        set(`notice`, `${String(u.severity)}:${String(u.title)}`);
        return;
      case "state_update":
        if (u.state === "idle") {
          set("stopReason", str(u.stopReason));
          if (isObject(u.usage)) set("usage", sortedJson(u.usage));
        }
        return;
      default:
        return;
    }
  };

  for (const e of wire) {
    const m = e.msg;
    if (!isObject(m)) continue;
    current = m;
    if (e.dir === "out") {
      if (typeof m.method === "string" && "id" in m) requests.set(JSON.stringify(m.id), m.method);
      if (m.method === "session/new" && isObject(m.params) && typeof m.params.cwd === "string") cwd = m.params.cwd;
      continue;
    }
    if (typeof m.method === "string") {
      const params = isObject(m.params) ? m.params : {};
      if (m.method === "session/update" && isObject(params.update)) onUpdate(params.update);
      else if (!("id" in m)) {
        // Any other notification (`_auth/status_update`, extensions): whatever the agent says
        // outside a session update, all of them in order, without the session id.
        const key = `notification.${m.method}`;
        const rest = Object.fromEntries(Object.entries(params).filter(([k]) => k !== "sessionId"));
        set(key, [...(items[key] === undefined ? [] : [items[key]]), canonical(withoutStash(rest))].join(" ; "));
      } else if (m.method === "session/request_permission") {
        const subject =
          isObject(params.subject) && isObject(params.subject.toolCall) ? params.subject.toolCall : undefined;
        const tc = isObject(params.toolCall) ? params.toolCall : subject;
        if (tc) applyTool(tc, true);
        // The tool call's title is what both versions show; v2's own prompt (`title`,
        // `description`) is folded apart, and only where it says more than the tool call.
        const toolTitle = (tc ? str(tc.title) : undefined) ?? "";
        const kinds = arr(params.options)
          .map((o) => (isObject(o) ? String(o.kind) : "?"))
          .join(",");
        const k = `permission[${permissions++}]`;
        set(k, `${toolTitle} | ${kinds}`);
        const prompt = str(params.title);
        const description = str(params.description);
        if ((prompt !== undefined && prompt !== toolTitle) || description !== undefined)
          set(`${k}.prompt`, [prompt ?? toolTitle, ...(description !== undefined ? [description] : [])].join(" — "));
        if (tc && Array.isArray(tc.content))
          set(`${k}.content`, tc.content.map((c) => foldContent(c).text).join(" ; "));
      }
      continue;
    }
    const method = requests.get(JSON.stringify(m.id));
    if (!isObject(m.result)) continue;
    if (method === "initialize") foldCapabilities(version === 1 ? m.result.agentCapabilities : m.result.capabilities);
    if (method === "session/new" || method === "session/load" || method === "session/resume")
      foldSessionResult(m.result);
    if (method === "session/prompt" && version === 1) {
      set("stopReason", str(m.result.stopReason));
      if (isObject(m.result.usage)) set("usage", sortedJson(m.result.usage));
    }
  }

  current = undefined;
  const agentText = [...messages.values()].join("");
  if (agentText !== "") set("message", agentText, messageSource);
  const thoughtText = [...thoughts.values()].join("");
  if (thoughtText !== "") set("thought", thoughtText, thoughtSource);
  if (mode) set("mode", selectorText(mode.current, mode.ids), mode.source);
  if (model) set("model", selectorText(model.current, model.ids), model.source);
  for (const [id, v] of configs) set(`config.${id}`, v, configSources.get(id));
  let i = 0;
  for (const t of tools.values()) {
    const k = `tool[${i++}]`;
    set(`${k}.title`, t.title, t.src.title);
    set(`${k}.kind`, t.kind, t.src.kind);
    set(`${k}.status`, t.status, t.src.status);
    set(`${k}.locations`, t.locations, t.src.locations);
    const folded = t.content.map(foldContent);
    set(`${k}.content`, folded.map((f) => f.text).join(" ; "), t.src.content);
    const ns = folded.flatMap((f) => (f.note ? [f.note] : []));
    if (ns.length > 0) notes[`${k}.content`] = ns.join(" ; ");
    const outs = [...t.terminalIds].map((id) => terminals.get(id)).filter((x) => x !== undefined);
    if (outs.length > 0)
      set(
        `${k}.terminal`,
        outs.map((o) => `output=${JSON.stringify(o.output.trim())} exit=${o.exit ?? "none"}`).join(" ; "),
        outs.at(-1)?.source,
      );
  }
  const paths = { cwd: cwd === "" ? undefined : cwd, home: options.home };
  for (const k of Object.keys(items)) items[k] = placeholders(items[k]!, paths);
  return { items, notes, sources };
}

/**
 * A boolean option, or a select that renders one in a version without booleans: an agent's own v1
 * build offers on/off, the bridge true/false; both are the same switch to a user.
 */
function isBooleanOption(type: unknown, values: readonly string[]): boolean {
  if (type === "boolean") return true;
  const set = [...values].sort().join(",");
  return set === "off,on" || set === "false,true";
}

function at(value: unknown, path: string): unknown {
  let v = value;
  for (const k of path.split(".")) v = isObject(v) ? v[k] : undefined;
  return v;
}

const STASH_KEY = "acp-bridge";

function withoutStash(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutStash);
  if (!isObject(v)) return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => k !== STASH_KEY)
      // A `_meta` that held only the stash was the bridge's, not the sender's.
      .filter(([k, x]) => !(k === "_meta" && isObject(x) && Object.keys(x).join() === STASH_KEY))
      .map(([k, x]) => [k, withoutStash(x)]),
  );
}

/** Messages carrying the bridge's `_meta["acp-bridge"]` stash, and its size in bytes. */
export function stashCount(wire: readonly WireEntry[]): { messages: number; bytes: number } {
  let messages = 0;
  let bytes = 0;
  const walk = (v: unknown): number => {
    if (Array.isArray(v)) return v.reduce<number>((n, x) => n + walk(x), 0);
    if (!isObject(v)) return 0;
    let n = 0;
    for (const [k, x] of Object.entries(v)) {
      if (k === "_meta" && isObject(x) && STASH_KEY in x) n += JSON.stringify(x[STASH_KEY]).length;
      n += walk(x);
    }
    return n;
  };
  for (const e of wire) {
    if (e.dir !== "in") continue;
    const n = walk(e.msg);
    if (n > 0) {
      messages++;
      bytes += n;
    }
  }
  return { messages, bytes };
}

/** JSON with sorted keys at every level. */
function canonical(value: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : isObject(v)
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sort(v[k])]),
          )
        : v;
  return JSON.stringify(sort(value));
}

/** An exit status: the code (`null` when killed), and the signal if any. */
function exitText(code: unknown, signal: unknown): string {
  return `${JSON.stringify(code ?? null)}${typeof signal === "string" && signal !== "" ? `/${signal}` : ""}`;
}

function sortedJson(o: Json): string {
  return JSON.stringify(Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b))));
}
