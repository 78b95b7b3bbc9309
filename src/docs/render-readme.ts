// `npm run docs`: rewrite the README's generated parts: the matrix from mappings/, the options table
// from src/options.ts, check's from src/check/options.ts, doctor's from src/doctor/options.ts, convert's
// from src/replay/options.ts.
import { readFileSync, writeFileSync } from "node:fs";
import { withMatrix } from "./matrix.js";
import { withCheckOptions, withConvertOptions, withDoctorOptions, withOptions } from "./options-table.js";

const path = new URL("../../../README.md", import.meta.url);
writeFileSync(
  path,
  withConvertOptions(withDoctorOptions(withCheckOptions(withOptions(withMatrix(readFileSync(path, "utf8")))))),
);
