// What a user chooses about diffs (`--diff-rendering`), apart from the diff
// converters so that the launcher reads the command line without loading them (start-up budget).

/**
 * How a v2 diff reaches a v1 client (docs/decisions.md#v2-diffs-toward-v1, superseding T §3.3's
 * `safe` default): `full` (default) a v1 `diff` always, with the exact full file texts when known
 * (from the patch itself or the file read) else the hunk texts; `hunks` the hunk texts without
 * reading files; `safe` a v1 `diff` only with exact full texts, else fallback F; `text` F everywhere.
 */
export const DIFF_RENDERINGS = ["full", "hunks", "safe", "text"] as const;
export type DiffRendering = (typeof DIFF_RENDERINGS)[number];
export const DEFAULT_DIFF_RENDERING: DiffRendering = "full";
