// Command line entry: `acp-bridge [options] -- <agent command> [args...]` (or `acp-bridge serve ...`). The bridge replaces the
// agent command in an editor's configuration; everything after `--` is the real agent.
import { VERSION } from "./version.js";

const argv = process.argv.slice(2);

/** V8 tuned for a bridge: its inlining budget, its young generation held (src/v8-tuning.ts). */
function tune(v8: typeof import("./v8-tuning.js")): void {
  v8.tuneV8();
  v8.holdYoungGeneration();
}
const dashdash = argv.indexOf("--");
const own = dashdash === -1 ? argv : argv.slice(0, dashdash);

// Fast path: nothing else loaded just to print the version (start-up budget).
if (own.length === 1 && (own[0] === "--version" || own[0] === "-V")) {
  process.stdout.write(`${VERSION}\n`);
} else if (dashdash === -1 && own[0] === "editor-mcp") {
  // The stdio face of the editor's MCP server, spawned by a v2 agent (src/editor/stdio-command.ts).
  process.exitCode = await (await import("./editor/stdio-command.js")).runEditorMcp();
} else if (argv[0] === "check") {
  // `acp-bridge check [FILE]`: a recorded conversation against the schemas, offline (src/check/).
  process.exitCode = await (await import("./check/command.js")).runCheck(argv.slice(1));
} else if (argv[0] === "convert") {
  // `acp-bridge convert --to 1|2 [FILE]`: a recorded conversation in the other version, offline (src/replay/).
  process.exitCode = await (await import("./replay/command.js")).runConvert(argv.slice(1));
} else if (argv[0] === "serve") {
  // A stdio agent served over ACP's remote transport (src/remote/serve-command.ts).
  tune(await import("./v8-tuning.js"));
  process.exitCode = await (await import("./remote/serve-command.js")).runServe(argv.slice(1));
} else if (argv[0] === "doctor") {
  // `acp-bridge doctor -- <agent>`: probes an agent, reports what editors get through the bridge (src/doctor/).
  process.exitCode = await (await import("./doctor/command.js")).runDoctor(argv.slice(1));
} else {
  // The agent first (launch.ts, a small chunk), then the bridge, V8 tuned for it (before anything is hot).
  const early = (await import("./launch.js")).startEarly(argv);
  tune(await import("./v8-tuning.js"));
  const { main } = await import("./main.js");
  process.exitCode = await main(argv, early);
}
