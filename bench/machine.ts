// What machine a figure was measured on, printed with it: the bridge's JavaScript and a baseline's
// native JSON and UTF-8 code speed up differently from one CPU to another (node's UTF-8 routines
// take AVX2 or AVX-512 where the CPU has them), so a ratio holds for the kind of machine it names
// (docs/performance.md, "Another machine").
import { cpus } from "node:os";
import { readFileSync } from "node:fs";

/** The vector extensions node's native string code dispatches on, as /proc/cpuinfo names them. */
const VECTOR_FLAGS = ["avx2", "avx512f", "avx512bw", "avx512vbmi2"];

export function machine(): string {
  const list = cpus();
  const model = (list[0]?.model ?? "unknown CPU").replace(/\s+/g, " ").trim();
  let vectors: string;
  try {
    const flags = new Set(/^flags\s*:\s*(.*)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1]?.split(" ") ?? []);
    vectors = VECTOR_FLAGS.filter((f) => flags.has(f)).join(" ") || "no AVX2";
  } catch {
    vectors = "vector extensions unknown";
  }
  return `${model}, ${list.length} cores, ${vectors}`;
}
