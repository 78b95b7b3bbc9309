// Schema checks for tests: every message the bridge emits is validated per `$defs` name.
import { check, type SchemaProblem, type SchemaVersion } from "../../src/schema/validate.js";

export { check, schemaOf, type SchemaVersion } from "../../src/schema/validate.js";

export function expectValid(version: SchemaVersion, def: string, value: unknown): void {
  const problems = check(version, def, value);
  if (problems) {
    throw new Error(
      `not a valid ${version} ${def}: ${describeProblems(problems)}\n  value: ${JSON.stringify(value)?.slice(0, 2000)}`,
    );
  }
}

export function describeProblems(problems: readonly SchemaProblem[]): string {
  return problems.map((p) => `${p.path} ${p.message}`).join("; ");
}
