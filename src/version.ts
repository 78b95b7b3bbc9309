// The package version, from package.json (found from the source tree and from dist/ alike).
import { readFileSync } from "node:fs";

function read(): string {
  for (const rel of ["../package.json", "../../package.json"]) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === "acp-bridge" && typeof pkg.version === "string") return pkg.version;
    } catch {
      // try the next location
    }
  }
  return "0.0.0";
}

export const VERSION: string = read();
