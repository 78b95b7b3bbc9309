// The crash barrier (issue 19): an exception thrown while the bridge handles something (a bug: a
// converter or an engine path that did not expect an input) never ends the process. The connection
// core (bridge.ts) refuses the one message whose handling threw and keeps serving; work that runs
// later, outside any message (timers, microtasks), goes through `contained`, which logs the throw.
import type { Logger } from "../log.js";

/** What an exception says, for a log line and an error's `data.detail`. */
export function causeOf(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : "a value that is not an Error was thrown";
}

/** The stack of an exception, for the debug log. */
export function stackOf(e: unknown): string | undefined {
  return e instanceof Error ? e.stack : undefined;
}

/** `fn` for a timer or a microtask: what it throws is logged, never left to end the process. */
export function contained(log: Logger, what: string, fn: () => void): () => void {
  return () => {
    try {
      fn();
    } catch (e) {
      log.error(`${what} failed, the bridge goes on: ${causeOf(e)}`);
      log.debug("stack", stackOf(e));
    }
  };
}
