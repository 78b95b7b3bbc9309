// The schema checks of wire messages live in the product (`--strict` uses them too).
export { messageProblem as wireProblems } from "../../src/schema/wire.js";
