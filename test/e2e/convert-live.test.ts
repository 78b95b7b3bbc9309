// `acp-bridge convert` equals a LIVE bridge on the same recording (issue 23, item 3): the built CLI
// between a scripted client replaying the recording's client messages and a scripted agent of the
// other version replaying the agent side of `convert --to Y --stash off`'s output
// (test/fixtures/replay-agent.ts). What the live agent receives is the output's client→agent side,
// and what the live client receives is what the recording's client received through convert's
// chain; ids are compared by order (each bridge allocates its own).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Obj } from "../../src/base/json.js";
import { Chain } from "../../src/replay/chain.js";
import { spawnRaw, tsxArgs } from "../support/peers.js";

const TIMEOUT = 90_000;
const dir = mkdtempSync(join(tmpdir(), "acp-bridge-convert-live-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Written = Parameters<ConstructorParameters<typeof Chain>[0]["write"]>[0];

interface Entry {
  readonly from: "client" | "agent";
  readonly message: Obj;
}

const read = (path: string): Entry[] =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Entry);

/** Requests' ids by their order (each bridge picks its own); answers keep theirs (the far peer's). */
function byOrder(msgs: readonly Obj[]): Obj[] {
  let n = 0;
  return msgs.map((m) => (typeof m.method === "string" && m.id !== undefined ? { ...m, id: `#${String(n++)}` } : m));
}

/** The bridge's name in its `initialize` (a live bridge names itself; convert's --stash off output does not). */
function withoutMarker(m: Obj): Obj {
  if (m.method !== "initialize") return m;
  const params = { ...(m.params as Obj) };
  const meta = { ...(params._meta as Obj) };
  delete meta["acp-bridge"];
  if (Object.keys(meta).length === 0) delete params._meta;
  else params._meta = meta;
  return { ...m, params };
}

/** convert --to `to` --stash off in-process: the output, what the recorded client got, and when. */
async function converted(recording: readonly Entry[], from: 1 | 2, to: 1 | 2) {
  const output: Written[] = [];
  const toClient: Obj[] = [];
  const chain = new Chain({
    from,
    to,
    stash: "off",
    recordedBetweenBridges: false,
    maxPending: 1024,
    write: (w) => output.push(w),
    skip: (s) => {
      throw new Error(`skipped line ${String(s.line)}: ${s.what}: ${s.why}`);
    },
    atEnd: (peer, msg) => {
      if (peer === "client") toClient.push(msg);
    },
  });
  /** Before each recorded client message: how many messages the recorded client had received. */
  const heardBefore: number[] = [];
  for (const [i, e] of recording.entries()) {
    if (e.from === "client") heardBefore.push(toClient.length);
    await chain.feed({ from: e.from, msg: e.message, line: i + 1 });
  }
  chain.end();
  return { output, toClient, heardBefore };
}

describe.each([
  { fixture: "codex-v1", from: 1, to: 2 },
  { fixture: "codex-v2", from: 2, to: 1 },
] as const)("$fixture, converted to v$to, against a live bridge", ({ fixture, from, to }) => {
  it(
    "the live agent receives the output's client side, and the live client what convert's recorded client got",
    async () => {
      const recording = read(`interop/fixtures/${fixture}.ndjson`);
      const { output, toClient, heardBefore } = await converted(recording, from, to);
      const script = join(dir, `${fixture}-v${String(to)}.ndjson`);
      const log = join(dir, `${fixture}-agent.log`);
      writeFileSync(script, output.map((w) => `${JSON.stringify({ from: w.from, message: w.msg })}\n`).join(""));
      writeFileSync(log, "");

      const bridge = spawnRaw(process.execPath, [
        "bin/acp-bridge.js",
        "--stash",
        "off",
        "--ack-grace-ms",
        "0",
        // convert configures both versions; a live bridge would probe the agent with v`from` first.
        "--agent-protocol",
        String(to),
        "--",
        process.execPath,
        ...tsxArgs("test/fixtures/replay-agent.ts"),
        script,
        log,
      ]);
      try {
        // The client's answers go under the ids the live bridge asked with (requests matched in order).
        const liveRequests = () =>
          bridge.lines.map((l) => JSON.parse(l) as Obj).filter((m) => m.method !== undefined && m.id !== undefined);
        const answered = new Map<string, number>();
        let k = 0;
        for (const e of recording) {
          if (e.from !== "client") continue;
          const heard = heardBefore[k++] ?? 0;
          const deadline = Date.now() + 5_000;
          while (bridge.lines.length < heard && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
          const m = e.message;
          if (typeof m.method !== "string") {
            const asked = recording.find(
              (x) => x.from === "agent" && x.message.id === m.id && x.message.method !== undefined,
            );
            const method = String(asked?.message.method);
            const nth = answered.get(method) ?? 0;
            answered.set(method, nth + 1);
            const live = liveRequests().filter((x) => x.method === method)[nth];
            bridge.send({ ...m, id: live?.id });
          } else bridge.send(m);
        }
        const deadline = Date.now() + 5_000;
        while (bridge.lines.length < toClient.length && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 20));
        await new Promise((r) => setTimeout(r, 300));
      } finally {
        await bridge.close();
      }
      const agentGot = readFileSync(log, "utf8")
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as Obj);
      const clientSide = output.filter((w) => w.from === "client").map((w) => w.msg);
      expect(byOrder(agentGot.map(withoutMarker))).toEqual(byOrder(clientSide));
      expect(byOrder(bridge.lines.map((l) => JSON.parse(l) as Obj))).toEqual(byOrder(toClient));
    },
    TIMEOUT,
  );
});
