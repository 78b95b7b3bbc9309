// Diff items of tool-call content (T §3.3, T §6 diff rows, T §7.2 keys diff…deleted, v1Diff): a v2
// `Diff` (changes + git patch) becomes v1 `diff` and text items (A↓); a v1 `diff` becomes a v2 `Diff`
// with a produced git patch (B↓). Both read the current text of the files named, when the engine
// could read them (`FileTexts`), to give exact full texts (A↓) or place a snippet (B↓).

import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { diffTable, fileTypeNoun, isTextFileType, operationRow, type DiffOperationRow } from "../../mappings/diff.js";
import {
  applyHunks,
  gitPatchSection,
  parseGitPatch,
  reverseHunks,
  sideText,
  type PatchOperation,
  type PatchSection,
  type Splice,
} from "./git-patch.js";
import { isObject, isString, jsonEqual, type Obj, setOwn, withMembers, copyMembers } from "../base/json.js";
import { attempt, ok, type Conv, type Loss, type Path } from "./result.js";
import { residualOf, setMeta, Stash, unstash, type ConvertOptions } from "./stash.js";
import { isAbsoluteAnywhere, resolvePath } from "./paths.js";
import { bad } from "./check.js";
import type { DiffRendering } from "./diff-options.js";

/** Whether a rendering uses the files' current text (`hunks` and `text` never do). */
export function renderingReadsFiles(rendering: DiffRendering): boolean {
  return rendering === "full" || rendering === "safe";
}

/**
 * The current text of files a diff names, as the engine read them: absolute path → text. A path
 * missing here could not be read as text (absent, too large, not UTF-8, not a regular file).
 */
export type FileTexts = ReadonlyMap<string, string>;

/** Whether the tool's edit is still to come (`pending`), done (`applied`), or not known. */
export type DiffStage = "pending" | "applied" | undefined;

/** The `diff` members of each version's `ToolCallContent`. */
export type V1Diff = Extract<v1.ToolCallContent, { type: "diff" }>;
export type V2Diff = Extract<v2.ToolCallContent, { type: "diff" }>;

/** Keys each version's diff item interprets; any other key is copied as is. */
const V1_KEYS = new Set(["type", "path", "oldText", "newText", "_meta"]);
const V2_KEYS = new Set(["type", "changes", "patch", "_meta"]);

function extras(src: Obj, known: ReadonlySet<string>, alsoSkip: ReadonlySet<string>): Obj {
  const out: Obj = {};
  for (const k in src) if (Object.hasOwn(src, k) && !known.has(k) && !alsoSkip.has(k)) setOwn(out, k, src[k]);
  return out;
}

// ---------------------------------------------------------------------------------------------
// B↓: v1 diff → v2 diff

function uniqueIndex(text: string, part: string): number | undefined {
  if (part === "") return undefined;
  const at = text.indexOf(part);
  return at !== -1 && text.indexOf(part, at + 1) === -1 ? at : undefined;
}

/** A v1 diff's full texts, and where they differ when that is known. */
interface PlacedTexts {
  readonly oldText: string;
  readonly newText: string;
  readonly splice?: Splice;
}

/**
 * The full texts of a v1 snippet edit (`oldText` replaced by `newText`) in the file's current
 * `text`: pending when `oldText` occurs there once, applied when `newText` does, with the splice that
 * relates them (their patch is worked out from the file and it: `splicedHunks`). A known `stage`
 * accepts only its own reading; without one, a single reading is taken and two that disagree give
 * `undefined`: never a guess.
 * @internal Runs inside the snippet diff conversion; exported for its unit tests.
 */
export function placeSnippet(
  text: string,
  oldText: string,
  newText: string,
  stage: DiffStage,
): PlacedTexts | undefined {
  // A known stage reads the file one way only (each search is of the whole file).
  const o = stage === "applied" ? undefined : uniqueIndex(text, oldText);
  const n = stage === "pending" ? undefined : uniqueIndex(text, newText);
  const pending =
    o === undefined
      ? undefined
      : {
          oldText: text,
          newText: text.slice(0, o) + newText + text.slice(o + oldText.length),
          splice: { base: "old", at: o, removed: oldText.length, inserted: newText } as const,
        };
  const applied =
    n === undefined
      ? undefined
      : {
          oldText: text.slice(0, n) + oldText + text.slice(n + newText.length),
          newText: text,
          splice: { base: "new", at: n, removed: newText.length, inserted: oldText } as const,
        };
  if (pending && applied && pending.oldText === applied.oldText && pending.newText === applied.newText) return pending;
  // A substring match is weak evidence: a status that tells takes only its own reading.
  if (stage !== undefined) return stage === "pending" ? pending : applied;
  return pending && applied ? undefined : (pending ?? applied);
}

/** Whether the one section of `patch` has hunks whose sides are exactly these texts. */
function sidesAre(patch: string | undefined, oldText: string, newText: string): boolean {
  if (patch === undefined) return false;
  const parsed = parseGitPatch(patch);
  const hunks = parsed.ok && parsed.sections.length === 1 ? (parsed.sections[0]?.hunks ?? []) : undefined;
  if (!hunks) return false;
  const sep = diffTable.hunkSeparator;
  return sideText(hunks, "old", sep) === oldText && sideText(hunks, "new", sep) === newText;
}

/** Whole lines for a snippet's unplaced patch: a snippet's missing last newline says nothing of the file's end. */
function asLines(text: string): string {
  return text === "" || text.endsWith("\n") ? text : text + "\n";
}

/** The v1 texts a stash keeps (`v1Diff`), so a reverse conversion restores them exactly. */
interface V1Texts {
  readonly path: string;
  readonly oldText?: string | null;
  readonly newText: string;
}

function isV1Texts(x: unknown): x is V1Texts {
  return (
    isObject(x) &&
    isString(x.path) &&
    isString(x.newText) &&
    (x.oldText === undefined || x.oldText === null || isString(x.oldText))
  );
}

/**
 * T §3.3 B↓: a v1 diff (one text file) as a v2 `Diff` with one change and a git patch. A relative
 * `path` is resolved against `cwd`; `toolKind: "delete"` (or the `deleted` stash or draft flag)
 * makes an emptied file a `delete`. An item carrying the `diff` stash restores that original.
 * When `files` has the file's text and the texts are not the whole file (a snippet, as v1 agents
 * send), the snippet is placed in it (`placeSnippet`) for true line numbers and end of file; one
 * that cannot be placed gets a patch whose hunk heading says so (`snippetHeading`).
 */
export function diffToV2(
  item: V1Diff,
  ctx: {
    opts: ConvertOptions;
    cwd?: string | undefined;
    toolKind?: string | undefined;
    files?: FileTexts | undefined;
    stage?: DiffStage;
    /**
     * The caller reads no losses: a modified file's texts are reported lost without parsing the
     * patch back to see whether its hunks are they (what is emitted is the same).
     */
    coarseLosses?: boolean | undefined;
  },
): Conv<v2.ToolCallContent> {
  return attempt(() => {
    const src: unknown = item;
    if (!isObject(src) || src.type !== "diff") bad("type", "not_a_diff");
    const { meta, env } = unstash(src._meta, 2);
    const original = residualOf(env, "diff");
    if (isObject(original) && original.type === "diff") return ok(original as v2.ToolCallContent);

    const { path, oldText, newText } = src;
    if (!isString(path)) bad("path", "expected_string");
    if (!isString(newText)) bad("newText", "expected_string");
    if (oldText !== undefined && oldText !== null && !isString(oldText)) bad("oldText", "expected_string_or_null");

    const lost: Loss[] = [];
    const stash = new Stash(1, ctx.opts);
    let absolute = path;
    if (!isAbsoluteAnywhere(path)) {
      const resolved = resolvePath(ctx.cwd, path);
      if (resolved === undefined) bad("path", "not_absolute");
      absolute = resolved;
      stash.keep("path", path);
      lost.push({ path: ["path"], reason: "v2 paths are absolute: resolved against the session cwd" });
    }
    // Agents mark a new file as `_meta.kind: "add"`; Gemini CLI also sends it `oldText: ""`.
    const markedAdd = oldText === "" && isObject(meta) && meta.kind === "add";
    if (oldText === null || markedAdd) {
      stash.keep("oldText", oldText);
      lost.push({ path: ["oldText"], reason: "v2 has no null, omitted or empty old text for an added file" });
    }

    const deleted = ctx.toolKind === "delete" || residualOf(env, "deleted") === true || src.deleted === true;
    const op: PatchOperation =
      oldText === undefined || oldText === null || markedAdd
        ? "add"
        : newText === "" && oldText !== "" && deleted
          ? "delete"
          : "modify";

    const copied = extras(src, V1_KEYS, new Set());
    const shadowed: Obj = {};
    for (const k of V2_KEYS) {
      if (Object.hasOwn(copied, k)) {
        shadowed[k] = copied[k];
        lost.push({ path: [k], reason: `the v2 diff item uses the key "${k}" itself` });
      }
    }
    if (Object.keys(shadowed).length > 0) stash.keep("raw", shadowed);

    const out: Obj = {
      ...copied,
      type: "diff",
      changes: [{ operation: op, path: absolute, fileType: "text" }],
    };
    const old = oldText ?? "";
    const file = op === "modify" ? ctx.files?.get(absolute) : undefined;
    const known = file !== undefined && old !== newText;
    // Whole-file texts are the snippet that covers the file; when that reads both ways and no
    // status settles it, the texts are taken as whole (what they say), unless the status says otherwise.
    let placed: PlacedTexts | undefined = known ? placeSnippet(file, old, newText, ctx.stage) : undefined;
    const wholeFits = (file === old && ctx.stage !== "applied") || (file === newText && ctx.stage !== "pending");
    if (known && !placed && wholeFits) placed = { oldText: old, newText };
    const whole = placed !== undefined && placed.oldText === old && placed.newText === newText;
    /** The file was read and the texts are not the whole of it. */
    const snippet = known && !whole;
    let patchText: string | undefined;
    if (placed) patchText = gitPatchSection(op, absolute, placed.oldText, placed.newText, undefined, placed.splice);
    else if (known) {
      // Snippets that differ only in their last newline keep it: then that is the change.
      const lined = asLines(old) !== asLines(newText);
      const [a, b] = lined ? [asLines(old), asLines(newText)] : [old, newText];
      patchText = gitPatchSection(op, absolute, a, b, diffTable.snippetHeading);
    } else if (op !== "modify" || old !== newText) patchText = gitPatchSection(op, absolute, old, newText);
    if (patchText !== undefined) out.patch = { format: diffTable.gitPatchFormat, text: patchText };
    // What A↓ gives back without the file is the hunks' sides: the texts are lost unless those are they.
    if (patchText === undefined && op === "modify") {
      lost.push({ path: [], reason: "no change: v2 has no patch for it, a v1 client gets a summary" });
    } else if (op === "modify" && (ctx.coarseLosses === true || !sidesAre(patchText, old, newText))) {
      const why = snippet && !placed ? ": a snippet not found once in the file, without true line numbers" : "";
      lost.push(
        { path: ["oldText"], reason: `v2 carries the changed hunks with their context${why}` },
        { path: ["newText"], reason: `v2 carries the changed hunks with their context${why}` },
      );
    }
    // The exact texts, so a chained A restores this very item (docs/decisions.md#the-stash: complete toward a
    // bridge at the default level, diff texts included): A↓ alone would give a file's texts, the
    // hunks or a `partial`/`deleted` stash of its own. An add's patch is its text: kept at `full`
    // only, so the restore does not depend on the A side's rendering (`text`).
    const texts: Obj = { path, newText };
    if (oldText !== undefined) texts.oldText = oldText;
    if (op !== "add") stash.keepBounded("v1Diff", texts);
    else stash.keepLarge("v1Diff", () => texts);
    setMeta(out, stash.into(meta));
    return ok(out as V2Diff, lost);
  });
}

// ---------------------------------------------------------------------------------------------
// A↓: v2 diff → v1 items

interface Change {
  readonly operation: string;
  readonly row: DiffOperationRow | undefined;
  readonly path: string | undefined;
  readonly oldPath: string | undefined;
  readonly fileType: string | undefined;
  readonly mimeType: string | undefined;
}

function optionalString(x: unknown): string | undefined {
  return isString(x) ? x : undefined;
}

function readChanges(raw: unknown): Change[] {
  if (!Array.isArray(raw)) bad("changes", "expected_array");
  return raw.map((c: unknown, i): Change => {
    const at = `changes[${i}]`;
    if (!isObject(c)) bad(at, "expected_object", { index: i });
    if (!isString(c.operation)) bad(`${at}.operation`, "expected_string", { index: i });
    const row = operationRow(c.operation);
    if (row && !isString(c.path)) bad(`${at}.path`, "expected_string", { index: i });
    if (row?.pair && !isString(c.oldPath)) bad(`${at}.oldPath`, "expected_string", { index: i });
    // fileType and mimeType default on error (v2 schema): a malformed value reads as unknown.
    return {
      operation: c.operation,
      row,
      path: optionalString(c.path),
      oldPath: row && !row.pair ? undefined : optionalString(c.oldPath),
      fileType: optionalString(c.fileType),
      mimeType: optionalString(c.mimeType),
    };
  });
}

/** The patch, or `undefined` when absent, `null` or malformed (the v2 schema defaults it on error). */
function readPatch(raw: unknown): { format: string; text: string } | undefined {
  if (!isObject(raw) || !isString(raw.format) || !isString(raw.text)) return undefined;
  return { format: raw.format, text: raw.text };
}

function longestRun(s: string, ch: string): number {
  let best = 0;
  let cur = 0;
  for (const c of s) {
    cur = c === ch ? cur + 1 : 0;
    if (cur > best) best = cur;
  }
  return best;
}

/** A Markdown code span that survives backticks in the path. */
function code(s: string): string {
  const ticks = "`".repeat(longestRun(s, "`") + 1);
  const pad =
    s.startsWith("`") || s.endsWith("`") || (s.startsWith(" ") && s.endsWith(" ") && s.trim() !== "") ? " " : "";
  return ticks + pad + s + pad + ticks;
}

/** A fenced block no line of `body` can close early. */
function fence(body: string, lang: string): string {
  const ticks = "`".repeat(Math.max(3, longestRun(body, "`") + 1));
  return `${ticks}${lang}\n${body}${body.endsWith("\n") ? "" : "\n"}${ticks}`;
}

function nonTextMode(s: PatchSection | undefined): boolean {
  if (s === undefined) return false;
  const modes = diffTable.nonTextModes;
  return (
    (s.oldMode !== undefined && modes.includes(s.oldMode)) || (s.newMode !== undefined && modes.includes(s.newMode))
  );
}

/** Whether the change's content can become v1 text. */
function isText(c: Change, s: PatchSection | undefined): boolean {
  return isTextFileType(c.fileType) && !(s?.isBinary ?? false) && !nonTextMode(s);
}

/** One summary line: ``Modified `/p` (binary, image/png)``, ``Added directory `/d` ``, ``Moved `/a` → `/b` ``. */
function summary(c: Change, s: PatchSection | undefined): string {
  const named = [c.oldPath, c.path].filter((p): p is string => p !== undefined).map(code);
  const paths = named.join(` ${diffTable.arrow} `);
  const noun = fileTypeNoun(c.fileType);
  const details: string[] = [];
  if (c.fileType !== undefined && noun === undefined && c.fileType !== "text") details.push(c.fileType);
  else if (s?.isBinary === true) details.push("binary");
  else if (noun === undefined && nonTextMode(s)) details.push(`mode ${s?.newMode ?? s?.oldMode ?? ""}`);
  if (c.mimeType !== undefined) details.push(c.mimeType);
  const head = [c.row?.verb ?? c.operation, noun, paths].filter((x) => x !== undefined && x !== "").join(" ");
  return details.length > 0 ? `${head} (${details.join(", ")})` : head;
}

/** The section of a change (T §3.3 A↓-2), preferring the section shaped like the operation, so a
 *  modify of `/a` does not take the rename section of a move from `/a`. */
function findSection(c: Change, sections: readonly PatchSection[], used: Set<number>): PatchSection | undefined {
  const row = c.row;
  if (!row) return undefined;
  const tries = row.pair ? 1 : row.side === "either" ? 3 : 2;
  for (let t = 0; t < tries; t++) {
    for (let k = 0; k < sections.length; k++) {
      const s = sections[k];
      if (s === undefined || used.has(k) || !sectionFits(c, row, t, s)) continue;
      used.add(k);
      return s;
    }
  }
  return undefined;
}

/** Whether section `s` is what `findSection`'s try `t` looks for: the exact shape first, then a side's path. */
function sectionFits(c: Change, row: DiffOperationRow, t: number, s: PatchSection): boolean {
  if (row.pair) return s.oldPath === c.oldPath && s.newPath === c.path;
  if (row.side === "new") return t === 0 ? s.isNew && s.newPath === c.path : s.newPath === c.path;
  if (row.side === "old") return t === 0 ? s.isDeleted && s.oldPath === c.path : s.oldPath === c.path;
  if (t === 0) return s.oldPath === c.path && s.newPath === c.path;
  return t === 1 ? s.newPath === c.path : s.oldPath === c.path;
}

interface DiffPlan {
  readonly kind: "diff";
  readonly path: string;
  readonly oldText?: string;
  readonly newText: string;
  readonly partial: boolean;
  readonly deleted: boolean;
}
interface TextPlan {
  readonly kind: "text";
  readonly text: string;
}
type Plan = DiffPlan | TextPlan;

/** The exact full-file v1 diff of an add or delete section, when there is one. */
function exactDiff(c: Change, s: PatchSection | undefined): DiffPlan | undefined {
  if (!s || c.path === undefined || !isText(c, s)) return undefined;
  const [h, ...more] = s.hunks;
  if (more.length > 0) return undefined;
  if (c.operation === "add" && s.isNew) {
    if (h && !(h.oldStart === 0 && h.oldCount === 0 && h.newStart === 1 && h.lines.every((l) => l.op === "+")))
      return undefined;
    const newText = h ? sideText([h], "new", diffTable.hunkSeparator) : "";
    return { kind: "diff", path: c.path, newText, partial: false, deleted: false };
  }
  if (c.operation === "delete" && s.isDeleted) {
    if (h && !(h.newStart === 0 && h.newCount === 0 && h.oldStart === 1 && h.lines.every((l) => l.op === "-")))
      return undefined;
    const oldText = h ? sideText([h], "old", diffTable.hunkSeparator) : "";
    return { kind: "diff", path: c.path, oldText, newText: "", partial: false, deleted: true };
  }
  return undefined;
}

/**
 * The exact full texts of a text modify, move or copy, from the current text of its file(s): the
 * patch applied forward to the file (still pending) or backward (already applied); `stage` settles
 * a patch that reads both ways. `undefined` when neither fits exactly: never a guess.
 */
function fileDiff(c: Change, s: PatchSection | undefined, files: FileTexts, stage: DiffStage): DiffPlan | undefined {
  if (!s || !c.row || c.path === undefined || !isText(c, s) || s.isNew || s.isDeleted) return undefined;
  if (s.hunks.length === 0 || (c.operation !== "modify" && !c.row.pair)) return undefined;
  const before = files.get(c.oldPath ?? c.path);
  const after = files.get(c.path);
  const forward = before === undefined ? undefined : applyHunks(before, s.hunks);
  const backward = after === undefined ? undefined : applyHunks(after, reverseHunks(s.hunks));
  const pending = before !== undefined && forward !== undefined ? { oldText: before, newText: forward } : undefined;
  const applied = after !== undefined && backward !== undefined ? { oldText: backward, newText: after } : undefined;
  let texts = pending ?? applied;
  if (pending && applied && (pending.oldText !== applied.oldText || pending.newText !== applied.newText))
    texts = stage === "pending" ? pending : stage === "applied" ? applied : undefined;
  if (!texts) return undefined;
  return { kind: "diff", path: c.path, ...texts, partial: false, deleted: false };
}

/** T §3.3 A↓ table (`hunks` rendering): the items of one change that has no exact texts. */
function hunkItems(c: Change, s: PatchSection | undefined): Plan[] {
  // The summary only where an item says it (most changes are a modify: one diff item).
  if (!s || !c.row || c.path === undefined || !isText(c, s) || s.hunks.length === 0)
    return [{ kind: "text", text: summary(c, s) }];
  const newText = sideText(s.hunks, "new", diffTable.hunkSeparator);
  const deleted = c.operation === "delete";
  if (c.operation === "add") return [{ kind: "diff", path: c.path, newText, partial: true, deleted }];
  const oldText = sideText(s.hunks, "old", diffTable.hunkSeparator);
  const item: DiffPlan = { kind: "diff", path: c.path, oldText, newText, partial: true, deleted };
  return c.row.pair ? [{ kind: "text", text: summary(c, s) }, item] : [item];
}

/** Fallback F: a summary of `changes` and, when there is any, the patch text in a fence. */
function fallbackText(
  changes: readonly Change[],
  sections: readonly (PatchSection | undefined)[],
  body: string,
  lang: string,
): string {
  const lines = changes.map((c, k) => summary(c, sections[k]));
  const head =
    lines.length === 0
      ? diffTable.noChanges
      : lines.length === 1
        ? (lines[0] ?? "")
        : lines.map((l) => `- ${l}`).join("\n");
  return body === "" ? head : `${head}\n\n${fence(body, lang)}`;
}

interface PlanContext {
  readonly rendering: DiffRendering;
  readonly files?: FileTexts | undefined;
  readonly stage?: DiffStage;
}

function plan(
  changes: readonly Change[],
  patch: { format: string; text: string } | undefined,
  ctx: PlanContext,
): Plan[] {
  const { rendering } = ctx;
  const parsed = patch?.format === diffTable.gitPatchFormat ? parseGitPatch(patch.text) : undefined;
  if (rendering === "text" || changes.length === 0 || (patch !== undefined && parsed?.ok !== true)) {
    const lang = patch?.format === diffTable.gitPatchFormat ? "diff" : "";
    return [{ kind: "text", text: fallbackText(changes, [], patch?.text ?? "", lang) }];
  }
  const sections = parsed?.ok === true ? parsed.sections : [];
  const used = new Set<number>();
  const found = changes.map((c) => findSection(c, sections, used));
  const out: Plan[] = [];
  // Safe rendering gathers each run of changes without exact texts into one F item.
  let run: number[] = [];
  const flush = (): void => {
    if (run.length === 0) return;
    const shown = run.map((k) => found[k]).filter((s): s is PatchSection => s !== undefined && !s.isBinary);
    const body = shown.map((s) => s.text).join("");
    out.push({
      kind: "text",
      text: fallbackText(
        run.map((k) => changes[k] as Change),
        run.map((k) => found[k]),
        body,
        "diff",
      ),
    });
    run = [];
  };
  const files = rendering === "hunks" ? undefined : ctx.files;
  changes.forEach((c, k) => {
    const s = found[k];
    const exact = exactDiff(c, s) ?? (files ? fileDiff(c, s, files, ctx.stage) : undefined);
    if (exact) {
      flush();
      if (c.row?.pair) out.push({ kind: "text", text: summary(c, s) });
      out.push(exact);
    } else if (rendering === "hunks" || rendering === "full") out.push(...hunkItems(c, s));
    else run.push(k);
  });
  flush();
  return out;
}

function v1Item(p: Plan): Obj {
  if (p.kind === "text") return { type: "content", content: { type: "text", text: p.text } };
  const out: Obj = { type: "diff", path: p.path };
  if (p.oldText !== undefined) out.oldText = p.oldText;
  out.newText = p.newText;
  return out;
}

/** Where two JSON values differ, as deep as both still have the same shape. */
function differences(a: unknown, b: unknown, at: Path = []): Path[] {
  if (jsonEqual(a, b)) return [];
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    return a.flatMap((x: unknown, i) => differences(x, b[i], [...at, i]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) => differences(a[k], b[k], [...at, k]));
  }
  return [at];
}

const LOSS_REASONS: Readonly<Record<string, string>> = {
  changes: "a v1 diff is one text file: operation, file type, MIME type and change metadata are implied",
  patch: "a v1 diff carries texts, not the agent's patch text",
};

/**
 * T §3.3 A↓: one v2 diff item as v1 tool-call content, rendered per `rendering`, with exact full
 * texts from `files` where the patch fits them (`fileDiff`). The first item carries the `diff`
 * stash (the original, with `diffGroup: group` and `parts`), the others `diffPart`, unless the
 * single emitted v1 diff converts back to exactly this item.
 */
export function diffToV1(
  item: V2Diff,
  ctx: {
    opts: ConvertOptions;
    rendering: DiffRendering;
    group: number;
    files?: FileTexts | undefined;
    stage?: DiffStage;
    /**
     * The caller reads no losses: with the stash off (where the round trip below decides nothing
     * but the losses) a lone v1 diff reports one loss at the root instead of the exact paths,
     * without converting it back. What is emitted is the same.
     */
    coarseLosses?: boolean | undefined;
  },
): Conv<v1.ToolCallContent[]> {
  return attempt(() => {
    const src: unknown = item;
    if (!isObject(src) || src.type !== "diff") bad("type", "not_a_diff");
    const { meta, env } = unstash(src._meta, 1);
    const v2Extras = extras(src, V2_KEYS, V1_KEYS);

    // B↓-4 restore: this diff was made from a v1 diff whose texts were kept.
    const kept = residualOf(env, "v1Diff");
    if (isV1Texts(kept)) {
      const raw = residualOf(env, "raw");
      const out: Obj = withMembers(v2Extras, { ...(isObject(raw) ? raw : {}), type: "diff", path: kept.path });
      if (kept.oldText !== undefined) out.oldText = kept.oldText;
      out.newText = kept.newText;
      setMeta(out, meta);
      return ok([out as V1Diff]);
    }

    const changes = readChanges(src.changes);
    const plans = plan(changes, readPatch(src.patch), ctx);
    const items = plans.map(v1Item);

    // A lone v1 diff that converts back to this very item needs no stash (B↓ is its inverse).
    const single = plans.length === 1 && plans[0]?.kind === "diff" ? plans[0] : undefined;
    let lost: Loss[] = [
      { path: [], reason: single ? "the v1 diff does not convert back" : "rendered as text or several v1 items" },
    ];
    let needsStash = true;
    if (single) {
      // The v1 item: its own members, the v2 item's other members after them, its `_meta` last.
      const into = items[0];
      if (into) {
        for (const k in v2Extras) if (Object.hasOwn(v2Extras, k)) setOwn(into, k, v2Extras[k]);
        if (meta !== undefined) into._meta = meta;
      }
      // Stash off: `needsStash` writes nothing (Stash.into), so only the losses need the way back.
      const back =
        ctx.coarseLosses === true && ctx.opts.stash === "off"
          ? undefined
          : diffToV2({ ...into } as V1Diff, { opts: ctx.opts });
      if (back?.ok === true) {
        // Losses are what B↓ cannot bring back; its own stash (v1Diff at `full`) is no loss.
        const unstashed = unstash(back.value._meta, 1);
        const plain: Obj = copyMembers(back.value);
        setMeta(plain, unstashed.meta);
        const target: Obj = copyMembers(src);
        setMeta(target, meta);
        lost = differences(target, plain).map((p) => ({
          path: p,
          reason: LOSS_REASONS[String(p[0])] ?? "not expressible in a v1 diff item",
        }));
        // B↓ adding a stash of its own would break the identity too. A partial item keeps its flag
        // even when its hunks happen to give the same patch back; an emptied file reads back as a
        // delete only with the tool kind, which this item lacks.
        needsStash =
          lost.length > 0 ||
          unstashed.env !== undefined ||
          single.partial ||
          (single.newText === "" && (single.oldText ?? "") !== "");
      }
      // Residuals of the v1 origin (B↓-1 path, null oldText, shadowed keys).
      if (env) {
        const first = items[0] ?? {};
        const path = residualOf(env, "path");
        if (isString(path)) first.path = path;
        const oldText = residualOf(env, "oldText");
        if ((oldText === null || oldText === "") && first.oldText === undefined) first.oldText = oldText;
        const raw = residualOf(env, "raw");
        if (isObject(raw)) for (const [k, v] of Object.entries(raw)) setOwn(first, k, v);
      }
    } else if (items[0]) {
      setMeta(items[0], meta);
    }

    // Off, a stash writes nothing (`Stash.into`).
    if (needsStash && ctx.opts.stash !== "off") {
      plans.forEach((p, k) => {
        const it = items[k];
        if (!it) return;
        const stash = new Stash(2, ctx.opts);
        if (k === 0) stash.keep("diff", src).keep("diffGroup", ctx.group).keep("parts", plans.length);
        else stash.keep("diffPart", { group: ctx.group, index: k });
        if (p.kind === "diff" && p.partial) stash.keep("partial", true);
        if (p.kind === "diff" && p.deleted) stash.keep("deleted", true);
        setMeta(it, stash.into(k === 0 ? it._meta : undefined));
      });
    }
    return ok(items as v1.ToolCallContent[], lost);
  });
}

/**
 * The absolute paths whose current text the converters use for these tool-call content items:
 * v2 diffs' modified, moved and copied text files (A↓), v1 diffs' files (B↓, `path` resolved
 * against `cwd`). Items a stash restores need none. The engine reads them (`src/engine/files.ts`).
 */
export function diffFilePaths(content: unknown, from: 1 | 2, cwd?: string): string[] {
  if (!Array.isArray(content)) return [];
  const out = new Set<string>();
  for (const item of content) {
    if (!isObject(item) || item.type !== "diff") continue;
    if (from === 2) {
      if (unstash(item._meta, 1).env?.residual?.v1Diff !== undefined || !Array.isArray(item.changes)) continue;
      for (const c of item.changes) {
        if (!isObject(c) || !isString(c.operation) || !isTextFileType(optionalString(c.fileType))) continue;
        const row = operationRow(c.operation);
        if (!row || (c.operation !== "modify" && !row.pair)) continue;
        if (isString(c.path)) out.add(c.path);
        if (row.pair && isString(c.oldPath)) out.add(c.oldPath);
      }
    } else {
      if (unstash(item._meta, 2).env !== undefined || !isString(item.path) || !isString(item.oldText)) continue;
      const path = isAbsoluteAnywhere(item.path) ? item.path : resolvePath(cwd, item.path);
      if (path !== undefined) out.add(path);
    }
  }
  return [...out];
}

/**
 * The diff group a v1 item belongs to (T §3.3 B↓-5): `original` on the group's first item, the
 * v2 diff to emit once in place of every item of that group. `undefined` for any other item.
 */
export function diffStashOf(item: unknown): { group: number; original?: v2.ToolCallContent } | undefined {
  const src = item;
  if (!isObject(src)) return undefined;
  const { env } = unstash(src._meta, 2);
  if (!env) return undefined;
  const group = residualOf(env, "diffGroup");
  const original = residualOf(env, "diff");
  if (typeof group === "number" && isObject(original) && original.type === "diff") {
    return { group, original: original as v2.ToolCallContent };
  }
  const part = residualOf(env, "diffPart");
  if (isObject(part) && typeof part.group === "number") return { group: part.group };
  return undefined;
}
