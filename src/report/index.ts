// `--report FILE`: the file is opened at start (a path that cannot be opened is a usage error, as
// for `--trace`), the collector watches the run, and the report is written once, synchronously, at
// exit: after a normal end, after the agent crashed, on a signal. A report that cannot be written is
// an error on stderr; it never changes the exit status.
import { closeSync, openSync, writeSync } from "node:fs";
import { ReportCollector } from "./collector.js";
import { reportJson, reportMarkdown, summaryLine, type ReportEnd } from "./render.js";

export class ReportWriter {
  readonly collector = new ReportCollector();
  private written = false;

  private constructor(
    private readonly fd: number,
    private readonly path: string,
  ) {}

  /** Opens (truncates) the report file at once, so that a path that cannot be written is a usage error. */
  static open(path: string): ReportWriter {
    let fd: number;
    try {
      fd = openSync(path, "w");
    } catch (e) {
      throw new Error(`cannot open the report file '${path}': ${(e as Error).message}`, { cause: e });
    }
    return new ReportWriter(fd, path);
  }

  /**
   * Writes the report (once: a second call does nothing) and returns the line for stderr: the
   * summary, or why the report could not be written (`failed`).
   */
  finish(end: ReportEnd): { line: string; failed: boolean } | undefined {
    if (this.written) return undefined;
    this.written = true;
    const json = reportJson(this.collector.data(), end, new Date());
    const text = this.path.endsWith(".json") ? `${JSON.stringify(json, null, 2)}\n` : reportMarkdown(json);
    try {
      const bytes = Buffer.from(text);
      for (let at = 0; at < bytes.length;) at += writeSync(this.fd, bytes, at);
      return { line: summaryLine(this.path, json), failed: false };
    } catch (e) {
      return {
        line: `acp-bridge error: cannot write the report file '${this.path}': ${(e as Error).message}`,
        failed: true,
      };
    } finally {
      try {
        closeSync(this.fd);
      } catch {
        // Already closed or gone: nothing more to say than the write did.
      }
    }
  }

  /** Closes the file without writing (the run never started: a usage error after it was opened). */
  discard(): void {
    if (this.written) return;
    this.written = true;
    try {
      closeSync(this.fd);
    } catch {
      // Nothing to do.
    }
  }
}
