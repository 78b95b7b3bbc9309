// The package version, read once from package.json (kept out of the hot start-up path otherwise).
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const pkg = require("../../package.json") as { version: string };

export const VERSION: string = pkg.version;
