// `node dist/bench/terminal-output.js`: what one update of a long-running command's terminal costs
// the bridge's terminal state (direction A), as the output grows. Two shapes agents send: a v2
// `terminal_update` carrying the whole output so far (Claude's adapter, as the interop recordings
// have it: `output.data`), compared with what the client was shown (`snapshotToAppend`); and
// `terminal_output_chunk`s appended to the retained output (`appendOutput`, 256 KiB kept). The output
// grows by an 80-byte line an update. µs per update, the last of three runs; the machine is printed.
import { appendOutput, newTerminal, snapshotToAppend } from "../src/convert/terminal.js";
import { machine } from "./machine.js";
import { timed } from "./timing.js";

const LINE = Buffer.from(`${"x".repeat(79)}\n`);
const KEPT = 256 * 1024;

console.log(`terminal output, one 80-byte line an update; node ${process.version}; ${machine()}`);
for (const kib of [1, 16, 64, 256]) {
  const shown = Buffer.alloc(kib * 1024, LINE.toString());
  const next = Buffer.concat([shown, LINE]);
  const us = timed(Math.max(200, Math.floor(2e7 / shown.length)), () => {
    snapshotToAppend(shown, true, next);
  });
  console.log(`snapshot with ${kib} KiB shown: ${us.toFixed(2)} µs an update`);
}
for (const kib of [16, 256, 1024]) {
  const n = (kib * 1024) / LINE.length;
  let t = newTerminal("t");
  const us = timed(1, () => {
    t = newTerminal("t");
    for (let i = 0; i < n; i++) appendOutput(t, LINE, KEPT);
  });
  console.log(`chunks, ${kib} KiB streamed (${KEPT / 1024} KiB kept): ${(us / n).toFixed(2)} µs a chunk`);
}
