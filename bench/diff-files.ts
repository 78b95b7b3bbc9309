// `node dist/bench/diff-files.js`: what converting one edit's diff costs the bridge when the edited
// file exists, as it does beside a local agent (the replay's recorded paths do not exist on the
// bench's machine, so its diffs never read one). The file is the first N lines of a real source file
// (TypeScript's own lib/typescript.js, in node_modules after `npm ci`), and the edit replaces two
// lines in its middle with three, as an edit tool does. Three shapes the recordings show:
//
// - B, a v1 snippet (Claude's Edit: `oldText` and `newText` the replaced lines), the file not yet
//   edited: placed in the file, the v2 patch is worked out from the file and where the snippet is
//   (`diffToV2`);
// - B, whole texts (Gemini's edits: `oldText` and `newText` the whole file), the file edited;
// - A, a v2 git patch of the edit (Claude's v2 adapter, Codex), the file not yet edited: the v1
//   client is given the whole old and new texts (`diffToV1`, the default rendering `full`).
//
// Against each, `JSON.stringify(JSON.parse(line))` of the item's JSON text, what a parse+stringify
// relay does with it. µs per conversion, the last of three runs; the machine is printed.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { diffToV1, diffToV2 } from "../src/convert/diff.js";
import { gitPatchSection } from "../src/convert/git-patch.js";
import { machine } from "./machine.js";
import { timed } from "./timing.js";

const require = createRequire(import.meta.url);
const source = readFileSync(require.resolve("typescript/lib/typescript.js"), "utf8").split("\n");
const PATH = "/work/app/src/edited.ts";
const opts = { stash: "off", stashMaxBytes: 64 * 1024 } as const;

const relay = (item: unknown) => {
  const line = JSON.stringify(item);
  return () => void JSON.stringify(JSON.parse(line));
};

console.log(
  `one edit (2 lines into 3, mid-file) of a file that exists; node ${process.version}; ${machine()}\n\n` +
    "| file | shape | bridge µs | parse+stringify µs |\n|---|---|---|---|",
);
for (const n of [100, 2000, 20000]) {
  const lines = source.slice(0, n);
  const mid = n >> 1;
  const removed = lines.slice(mid, mid + 2);
  const added = [
    "    // edited by the agent",
    `    const edited = ${JSON.stringify(removed[0] ?? "")};`,
    "    void edited;",
  ];
  const old = `${lines.join("\n")}\n`;
  const next = `${[...lines.slice(0, mid), ...added, ...lines.slice(mid + 2)].join("\n")}\n`;
  const runs = Math.max(20, Math.floor(4e6 / old.length));
  const rows: [string, unknown, () => void][] = [];
  const snippet = { type: "diff", path: PATH, oldText: removed.join("\n"), newText: added.join("\n") } as const;
  const before = new Map([[PATH, old]]);
  rows.push([
    "B: v1 snippet, placed",
    snippet,
    () => void diffToV2(snippet, { opts, files: before, stage: "pending", coarseLosses: true }),
  ]);
  const whole = { type: "diff", path: PATH, oldText: old, newText: next } as const;
  const after = new Map([[PATH, next]]);
  rows.push([
    "B: v1 whole texts",
    whole,
    () => void diffToV2(whole, { opts, files: after, stage: "applied", coarseLosses: true }),
  ]);
  const patch: Parameters<typeof diffToV1>[0] = {
    type: "diff",
    changes: [{ operation: "modify", path: PATH, fileType: "text" }],
    patch: { format: "git_patch", text: gitPatchSection("modify", PATH, old, next) },
  };
  rows.push([
    "A: v2 patch, full texts",
    patch,
    () =>
      void diffToV1(patch, { opts, rendering: "full", group: 0, files: before, stage: "pending", coarseLosses: true }),
  ]);
  for (const [shape, item, body] of rows)
    console.log(`| ${n} lines | ${shape} | ${timed(runs, body).toFixed(1)} | ${timed(runs, relay(item)).toFixed(1)} |`);
}
