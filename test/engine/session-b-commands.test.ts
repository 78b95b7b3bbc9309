// A session's latest commands, as a fast path remembers them: a copy of the list's bytes, not a
// view of the written line (built lines share a slab of memory, reused once they are written).
import { describe, expect, it } from "vitest";
import type { TurnIO } from "../../src/engine/v2-client/prompt-lifecycle.js";
import { SessionB } from "../../src/engine/v2-client/session.js";
import { allocLine } from "../../src/wire/writer.js";
import { silentLogger } from "../support/log.js";

describe("a v2 client's session: the commands a fast path wrote", () => {
  it("keeps its own copy of the list, whatever becomes of the line's memory", () => {
    const io: TurnIO = {
      ackGraceMs: 0,
      toClient: { stash: "off", stashMaxBytes: 0 },
      write: () => undefined,
      errorForClient: (error) => error,
      log: silentLogger,
    };
    const s = new SessionB("s", io);
    const list = '[{"name":"plan","description":"Plan"}]';
    const line = allocLine(list.length + 2);
    line.write(`x${list}x`);
    s.rememberCommandsText(line.subarray(1, 1 + list.length));
    // The line was written; its memory is another line's now.
    line.fill(0x20);
    expect(s.availableCommands).toEqual([{ name: "plan", description: "Plan" }]);
  });
});
