// `npm run docs`: rewrite the README's generated parts: the matrix from mappings/, the options table
// from src/options.ts.
import { readFileSync, writeFileSync } from "node:fs";
import { withMatrix } from "./matrix.js";
import { withOptions } from "./options-table.js";

const path = new URL("../../../README.md", import.meta.url);
writeFileSync(path, withOptions(withMatrix(readFileSync(path, "utf8"))));
