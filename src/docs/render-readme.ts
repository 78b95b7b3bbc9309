// `npm run docs`: rewrite the README's generated matrix from mappings/.
import { readFileSync, writeFileSync } from "node:fs";
import { withMatrix } from "./matrix.js";

const path = new URL("../../../README.md", import.meta.url);
writeFileSync(path, withMatrix(readFileSync(path, "utf8")));
