// Command line entry: `acp-bridge [options] -- <agent command> [args...]`.
// The live bridge lands with issue 3; until then only --version and --help work.
import { VERSION } from "./version.js";

const args = process.argv.slice(2);
if (args.includes("--version") || args.includes("-V")) {
  process.stdout.write(`${VERSION}\n`);
} else {
  process.stderr.write("usage: acp-bridge [options] -- <agent command> [args...]\n");
  process.exitCode = 2;
}
