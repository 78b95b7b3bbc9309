// Diff tables (T §3.3, T §6 rows DiffChange.operation / DiffFileType / DiffPatchFormat): how each v2
// change reads in a v1 text summary, which file types and modes carry text, and the patch constants.

import { z } from "zod";
import { defineTable } from "./table.js";

const Operation = z.object({
  /** Past-tense verb of the summary line ("Modified `/p`"). */
  verb: z.string().min(1),
  /** `move`/`copy` name two paths (`oldPath` → `path`). */
  pair: z.boolean(),
  /** The side of the git patch section the change's `path` names. */
  side: z.enum(["new", "old", "either"]),
});

const FileType = z.object({
  /** Whether hunks of this file type can become v1 `oldText`/`newText`. */
  text: z.boolean(),
  /** Noun placed before the path in a summary ("Added directory `/p`"); null: detail in parentheses. */
  noun: z.string().nullable(),
});

export const diffTable = defineTable(
  "diff",
  z.object({
    operations: z.record(z.string(), Operation),
    /** Known v2 file types; any other (`_x`, future) is treated as non-text (T §6). */
    fileTypes: z.record(z.string(), FileType),
    /** The only patch format the bridge parses; any other takes fallback F (T §6). */
    gitPatchFormat: z.literal("git_patch"),
    /** Line joining the hunks of one side of a partial v1 diff, so the gap renders as context. */
    hunkSeparator: z.string().min(1),
    /** Lines of context around each hunk of a produced patch (Git's default). */
    contextLines: z.number().int().nonnegative(),
    /** Mode written for added and deleted files: v1 knows none, so a regular file is assumed. */
    assumedFileMode: z.string().regex(/^[0-7]{6}$/),
    /** Git modes whose content is not file text: symlink target, submodule commit. */
    nonTextModes: z.array(z.string().regex(/^[0-7]{6}$/)),
    /** Summary of a v2 diff whose `changes` is empty. */
    noChanges: z.string().min(1),
    /** Arrow between the two paths of a move or copy. */
    arrow: z.string().min(1),
    /** Marker after a line that has no newline (Git, GNU diff). */
    noNewlineMarker: z.string().startsWith("\\ "),
    /**
     * Hunk heading (after the second `@@`) of a v1 snippet diff the bridge could not place in the
     * real file: its line numbers count from the snippet's first line, not the file's.
     */
    snippetHeading: z.string().min(1),
    /**
     * What a tool call's status says of its edit, to settle a patch (or snippet) that reads both as
     * pending and as applied in the current file. A status not listed settles nothing.
     */
    stageOfStatus: z.record(z.string(), z.enum(["pending", "applied"])),
  }),
  {
    operations: {
      add: { verb: "Added", pair: false, side: "new" },
      delete: { verb: "Deleted", pair: false, side: "old" },
      modify: { verb: "Modified", pair: false, side: "either" },
      move: { verb: "Moved", pair: true, side: "new" },
      copy: { verb: "Copied", pair: true, side: "new" },
    },
    fileTypes: {
      text: { text: true, noun: null },
      binary: { text: false, noun: null },
      directory: { text: false, noun: "directory" },
      symlink: { text: false, noun: "symlink" },
    },
    gitPatchFormat: "git_patch",
    hunkSeparator: "⋮",
    contextLines: 3,
    assumedFileMode: "100644",
    nonTextModes: ["120000", "160000"],
    noChanges: "No file changes",
    arrow: "→",
    noNewlineMarker: "\\ No newline at end of file",
    snippetHeading: "snippet: its place in the file is unknown",
    // `in_progress` may or may not have written the file yet: it settles nothing.
    stageOfStatus: { pending: "pending", completed: "applied" },
  },
);

export type DiffOperationRow = z.output<typeof Operation>;

/** The table row of a known v2 `DiffChange.operation`, `undefined` for `_x` and future values. */
export function operationRow(operation: string): DiffOperationRow | undefined {
  return Object.hasOwn(diffTable.operations, operation) ? diffTable.operations[operation] : undefined;
}

/** Whether a v2 `fileType` (absent/null = unknown, read as text) can carry text hunks. */
export function isTextFileType(fileType: string | undefined): boolean {
  if (fileType === undefined) return true;
  return Object.hasOwn(diffTable.fileTypes, fileType) && diffTable.fileTypes[fileType]?.text === true;
}

/** Whether a tool call in this status has applied its edit yet, when the status tells (see `stageOfStatus`). */
export function diffStageOf(status: unknown): "pending" | "applied" | undefined {
  return typeof status === "string" && Object.hasOwn(diffTable.stageOfStatus, status)
    ? diffTable.stageOfStatus[status]
    : undefined;
}

/** The noun of a known non-text file type ("directory"), `undefined` otherwise. */
export function fileTypeNoun(fileType: string | undefined): string | undefined {
  if (fileType === undefined || !Object.hasOwn(diffTable.fileTypes, fileType)) return undefined;
  return diffTable.fileTypes[fileType]?.noun ?? undefined;
}
