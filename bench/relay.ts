// Baselines for the benchmark: a relay between stdin/stdout and a child process that either moves
// lines untouched (`raw`: read line, write line) or parses and re-serializes each (`parse`).
import { spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";

const mode = process.argv[2] === "parse" ? "parse" : "raw";
const [command, ...args] = process.argv.slice(3);
if (!command) throw new Error("usage: relay raw|parse <command> [args...]");
const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });

function pipeLines(from: Readable, to: Writable): void {
  let rest = "";
  from.setEncoding("utf8");
  from.on("data", (chunk: string) => {
    const text = rest + chunk;
    const lines = text.split("\n");
    rest = lines.pop() ?? "";
    let out = "";
    for (const l of lines) out += (mode === "parse" ? JSON.stringify(JSON.parse(l)) : l) + "\n";
    if (!to.write(out)) {
      from.pause();
      to.once("drain", () => from.resume());
    }
  });
  from.on("end", () => to.end());
}

pipeLines(process.stdin, child.stdin);
pipeLines(child.stdout, process.stdout);
child.on("close", (code) => {
  process.exitCode = code ?? 1;
});
