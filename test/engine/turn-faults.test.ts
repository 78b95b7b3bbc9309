// Turn lifecycle faults (issue 19) on the in-memory bridge, in every mode where the client's
// request is still open: an agent answer over the size limit settles what it answers, and a reload
// that supersedes a running turn still gives its prompt exactly one answer. Every message the
// bridge writes is schema-checked (harness).
import { afterEach, describe, expect, it } from "vitest";
import { handshakeA, handshakeB, harness, type Harness } from "../support/harness.js";

const S = "s1";
const text = (t: string) => ({ type: "text", text: t });
const update = (u: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  method: "session/update",
  params: { sessionId: S, update: u },
});
const state = (s: string, rest: Record<string, unknown> = {}) =>
  update({ sessionUpdate: "state_update", state: s, ...rest });
const tooLarge = { code: -32603, data: { reason: "message_too_large", bytes: 40 << 20 } };

let current: Harness | undefined;
afterEach(() => {
  if (current) expect(current.violations).toEqual([]);
  current = undefined;
});

/** The line the agent sent in answer to `id` was over the size limit (what the framing reports). */
function oversizeAnswer(h: Harness, id: number): void {
  h.bridge.oversize("agent", { bytes: 40 << 20, envelope: { kind: "response", id } });
}

// ------------------------------------------------------------------ direction A

/** A v1 client, a v2 agent that can resume, and session s1 open. */
async function directionA(options: Parameters<typeof harness>[0] = {}): Promise<Harness> {
  const h = harness(options);
  current = h;
  await handshakeA(h, {}, { session: { resume: {} } });
  h.client({ jsonrpc: "2.0", id: "new", method: "session/new", params: { cwd: "/w", mcpServers: [] } });
  await h.settle();
  const [req] = h.takeAgent();
  h.agent({ jsonrpc: "2.0", id: req.id, result: { sessionId: S } });
  await h.settle();
  h.takeClient();
  expect(h.bridge.mode).toBe("A");
  return h;
}

/** The v1 prompt `id`; returns the id of the v2 prompt the agent got. */
function promptA(h: Harness, id: number): number {
  h.client({ jsonrpc: "2.0", id, method: "session/prompt", params: { sessionId: S, prompt: [text("hi")] } });
  const [req] = h.takeAgent();
  expect(req.method).toBe("session/prompt");
  return req.id;
}

/** A v1 reload of s1 (`session/load` or `session/resume`); returns the id of the v2 resume. */
async function reloadA(h: Harness, method: string, id = 8): Promise<number> {
  h.client({ jsonrpc: "2.0", id, method, params: { sessionId: S, cwd: "/w", mcpServers: [] } });
  await h.settle();
  const [req] = h.takeAgent();
  expect(req.method).toBe("session/resume");
  return req.id;
}

describe("direction A: an oversize answer", () => {
  it("answers the v1 prompt with -32603 when the agent's ack is over the limit, and the next prompt completes", async () => {
    const h = await directionA();
    const first = promptA(h, 7);
    // The agent inserted it (its echo is held until the ack) and answered with too large a line.
    h.agent(update({ sessionUpdate: "user_message", messageId: "u1", content: [text("hi")] }));
    oversizeAnswer(h, first);
    // The answer, then the held echo: the prompt failed, so it is not known to be the prompt's (T §1.2-2).
    expect(h.takeClient()).toMatchObject([
      { id: 7, error: tooLarge },
      { method: "session/update", params: { update: { sessionUpdate: "user_message_chunk", messageId: "u1" } } },
    ]);
    h.agent(state("running"));
    h.agent(state("idle", { stopReason: "end_turn" }));
    const second = promptA(h, 9);
    h.agent({ jsonrpc: "2.0", id: second, result: { messageId: "u2" } });
    h.agent(state("running"));
    h.agent(state("idle", { stopReason: "max_tokens" }));
    expect(h.takeClient().filter((m) => m.id !== undefined)).toEqual([
      { jsonrpc: "2.0", id: 9, result: { stopReason: "max_tokens" } },
    ]);
  });

  it("answers a cancelled v1 prompt with the -32603 too, not with an invented stop reason", async () => {
    const h = await directionA();
    const first = promptA(h, 7);
    h.client({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: S } });
    oversizeAnswer(h, first);
    expect(h.takeClient()).toMatchObject([{ id: 7, error: tooLarge }]);
  });

  it.each(["session/load", "session/resume"])(
    "answers a v1 %s with -32603 when the resume's answer is over the limit, and its prompt still ends",
    async (method) => {
      const h = await directionA();
      const p = promptA(h, 7);
      h.agent({ jsonrpc: "2.0", id: p, result: { messageId: "u1" } });
      h.agent(state("running"));
      const resume = await reloadA(h, method);
      oversizeAnswer(h, resume);
      expect(h.takeClient()).toMatchObject([{ id: 8, error: tooLarge }]);
      h.agent(state("idle", { stopReason: "end_turn" }));
      expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: 7, result: { stopReason: "end_turn" } }]);
    },
  );
});

describe("direction A: a reload while a turn runs (T §1.2-8)", () => {
  it.each(["session/load", "session/resume"])(
    "answers the prompt with the idle that ends its turn during a %s, before the reload's answer",
    async (method) => {
      const h = await directionA();
      const p = promptA(h, 7);
      h.agent({ jsonrpc: "2.0", id: p, result: { messageId: "u1" } });
      h.agent(state("running"));
      const resume = await reloadA(h, method);
      h.client({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: S } });
      expect(h.takeAgent()).toEqual([{ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: S } }]);
      h.agent(state("idle", { stopReason: "cancelled" }));
      h.agent(state("idle")); // the resume's snapshot
      h.agent({ jsonrpc: "2.0", id: resume, result: {} });
      expect(h.takeClient()).toEqual([
        { jsonrpc: "2.0", id: 7, result: { stopReason: "cancelled" } },
        { jsonrpc: "2.0", id: 8, result: {} },
      ]);
    },
  );

  it("keeps the turn's own stop reason when it ends during the reload without a cancel", async () => {
    const h = await directionA();
    const p = promptA(h, 7);
    h.agent({ jsonrpc: "2.0", id: p, result: { messageId: "u1" } });
    h.agent(state("running"));
    const resume = await reloadA(h, "session/load");
    h.agent(state("idle", { stopReason: "max_tokens" }));
    h.agent(state("idle", { stopReason: "max_tokens" })); // a snapshot may repeat the last stop reason
    h.agent({ jsonrpc: "2.0", id: resume, result: {} });
    expect(h.takeClient()).toEqual([
      { jsonrpc: "2.0", id: 7, result: { stopReason: "max_tokens" } },
      { jsonrpc: "2.0", id: 8, result: {} },
    ]);
  });

  it("ends the prompt at the reload's answer when the agent never reported running and its snapshot is idle", async () => {
    const h = await directionA();
    const p = promptA(h, 7);
    h.agent({ jsonrpc: "2.0", id: p, result: { messageId: "u1" } });
    const resume = await reloadA(h, "session/resume");
    h.agent(state("idle", { stopReason: "refusal" })); // the turn's end, with no busy state before it
    h.agent(state("idle")); // the snapshot
    expect(h.takeClient()).toEqual([]);
    h.agent({ jsonrpc: "2.0", id: resume, result: {} });
    expect(h.takeClient()).toEqual([
      { jsonrpc: "2.0", id: 7, result: { stopReason: "refusal" } },
      { jsonrpc: "2.0", id: 8, result: {} },
    ]);
  });

  it("ends a cancelled prompt cancelled at the reload's answer when only the idle snapshot reports its end", async () => {
    const h = await directionA();
    const p = promptA(h, 7);
    h.agent({ jsonrpc: "2.0", id: p, result: { messageId: "u1" } });
    const resume = await reloadA(h, "session/load");
    h.client({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: S } });
    h.agent(state("idle"));
    h.agent({ jsonrpc: "2.0", id: resume, result: {} });
    expect(h.takeClient()).toEqual([
      { jsonrpc: "2.0", id: 7, result: { stopReason: "cancelled" } },
      { jsonrpc: "2.0", id: 8, result: {} },
    ]);
  });

  it("leaves the prompt open while the snapshot says its turn still runs, and answers it at the turn's idle", async () => {
    const h = await directionA();
    const p = promptA(h, 7);
    h.agent({ jsonrpc: "2.0", id: p, result: { messageId: "u1" } });
    h.agent(state("running"));
    const resume = await reloadA(h, "session/load");
    h.agent(state("running"));
    h.agent({ jsonrpc: "2.0", id: resume, result: {} });
    expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: 8, result: {} }]);
    h.agent(state("idle", { stopReason: "end_turn" }));
    expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: 7, result: { stopReason: "end_turn" } }]);
  });

  it("completes nothing with a snapshot that repeats an idle, nor a prompt acked after the snapshot", async () => {
    const h = await directionA();
    const resume = await reloadA(h, "session/load");
    h.agent(state("idle", { stopReason: "end_turn" })); // the snapshot, repeating the last turn's end
    const p = promptA(h, 7);
    h.agent({ jsonrpc: "2.0", id: p, result: { messageId: "u1" } });
    h.agent({ jsonrpc: "2.0", id: resume, result: {} });
    expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: 8, result: {} }]);
    h.agent(state("running"));
    h.agent(state("idle", { stopReason: "end_turn" }));
    expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: 7, result: { stopReason: "end_turn" } }]);
  });

  it("leaves the prompt to its turn's idle when the reload fails", async () => {
    const h = await directionA();
    const p = promptA(h, 7);
    h.agent({ jsonrpc: "2.0", id: p, result: { messageId: "u1" } });
    const resume = await reloadA(h, "session/resume");
    h.agent(state("idle"));
    h.agent({ jsonrpc: "2.0", id: resume, error: { code: -32603, message: "Internal error" } });
    expect(h.takeClient()).toMatchObject([{ id: 8, error: { code: -32603 } }]);
    h.agent(state("running"));
    h.agent(state("idle", { stopReason: "end_turn" }));
    expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: 7, result: { stopReason: "end_turn" } }]);
  });

  it("answers the running prompt cancelled when the session is closed during its turn (T §1.2-7)", async () => {
    const h = await directionA();
    const p = promptA(h, 7);
    h.agent({ jsonrpc: "2.0", id: p, result: { messageId: "u1" } });
    h.agent(state("running"));
    h.client({ jsonrpc: "2.0", id: 8, method: "session/close", params: { sessionId: S } });
    const [close] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: close.id, result: {} });
    expect(h.takeClient()).toEqual([
      { jsonrpc: "2.0", id: 7, result: { stopReason: "cancelled" } },
      { jsonrpc: "2.0", id: 8, result: {} },
    ]);
  });

  it("leaves the running prompt to its own idle when the session is forked during its turn", async () => {
    const h = await directionA();
    const p = promptA(h, 7);
    h.agent({ jsonrpc: "2.0", id: p, result: { messageId: "u1" } });
    h.agent(state("running"));
    h.client({ jsonrpc: "2.0", id: 8, method: "session/fork", params: { sessionId: S, cwd: "/w", mcpServers: [] } });
    await h.settle();
    const [fork] = h.takeAgent();
    expect(fork.method).toBe("session/fork");
    h.agent({ jsonrpc: "2.0", id: fork.id, result: { sessionId: "s2" } });
    await h.settle();
    expect(h.takeClient()).toMatchObject([{ id: 8, result: { sessionId: "s2" } }]);
    h.agent(state("idle", { stopReason: "end_turn" }));
    expect(h.takeClient()).toEqual([{ jsonrpc: "2.0", id: 7, result: { stopReason: "end_turn" } }]);
  });
});

// ------------------------------------------------------------------ direction B

/** A v2 client, a v1 agent that can load and resume, and session s1 open. */
async function directionB(ackGraceMs = 0): Promise<Harness> {
  const h = harness({ ackGraceMs });
  current = h;
  await handshakeB(h, { loadSession: true, sessionCapabilities: { resume: {} } });
  h.client({ jsonrpc: "2.0", id: "new", method: "session/new", params: { cwd: "/w" } });
  const [req] = h.takeAgent();
  h.agent({ jsonrpc: "2.0", id: req.id, result: { sessionId: S } });
  await h.settle();
  h.takeClient();
  expect(h.bridge.mode).toBe("B");
  return h;
}

function promptB(h: Harness, id: number): number {
  h.client({ jsonrpc: "2.0", id, method: "session/prompt", params: { sessionId: S, prompt: [text("hi")] } });
  const [req] = h.takeAgent();
  expect(req.method).toBe("session/prompt");
  return req.id;
}

const updates = (msgs: any[]) => msgs.filter((m) => m.method === "session/update").map((m) => m.params.update);

describe("direction B: an oversize answer", () => {
  it("ends the acked turn with an error idle naming the size limit, and the next prompt starts", async () => {
    const h = await directionB();
    const first = promptB(h, 3);
    expect(h.takeClient()[0]).toMatchObject({ id: 3, result: { messageId: expect.any(String) } });
    oversizeAnswer(h, first);
    expect(updates(h.takeClient())).toEqual([
      {
        sessionUpdate: "state_update",
        state: "idle",
        stopReason: "error",
        error: {
          code: -32603,
          message: "The agent's answer was unreadable: Message too large",
          data: tooLarge.data,
        },
      },
    ]);
    const second = promptB(h, 4);
    expect(h.takeClient()[0]).toMatchObject({ id: 4, result: { messageId: expect.any(String) } });
    h.agent({ jsonrpc: "2.0", id: second, result: { stopReason: "end_turn" } });
    expect(updates(h.takeClient()).at(-1)).toEqual({
      sessionUpdate: "state_update",
      state: "idle",
      stopReason: "end_turn",
    });
  });

  it("answers a prompt not acked yet with the -32603 itself, and reports no turn", async () => {
    const h = await directionB(60_000);
    const first = promptB(h, 3);
    expect(h.takeClient()).toEqual([]);
    oversizeAnswer(h, first);
    expect(h.takeClient()).toMatchObject([{ id: 3, error: tooLarge }]);
  });

  it("reports cancelled, not an error, for a cancelled turn whose answer is over the limit (T §1.4-6)", async () => {
    const h = await directionB();
    const first = promptB(h, 3);
    h.takeClient();
    h.client({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: S } });
    oversizeAnswer(h, first);
    expect(updates(h.takeClient())).toEqual([
      { sessionUpdate: "state_update", state: "idle", stopReason: "cancelled" },
    ]);
  });

  it.each([{ replayFrom: { type: "start" } }, {}])(
    "answers a resume %j emulated by the bridge with -32603, and starts the prompt held meanwhile",
    async (replay) => {
      const h = await directionB();
      h.client({ jsonrpc: "2.0", id: 4, method: "session/resume", params: { sessionId: S, cwd: "/w", ...replay } });
      const [load] = h.takeAgent();
      h.client({ jsonrpc: "2.0", id: 5, method: "session/prompt", params: { sessionId: S, prompt: [text("hi")] } });
      expect(h.takeAgent()).toEqual([]);
      oversizeAnswer(h, load.id);
      expect(h.takeClient()).toMatchObject([
        { id: 4, error: tooLarge },
        { id: 5, result: { messageId: expect.any(String) } },
        { method: "session/update" },
        { method: "session/update" },
      ]);
      expect(h.takeAgent()).toMatchObject([{ method: "session/prompt" }]);
    },
  );
});

describe("direction B: a reload while a turn runs (T §1.4-10)", () => {
  it.each([{ replayFrom: { type: "start" } }, {}])(
    "ends the turn with the v1 answer during a resume %j, then sends the idle snapshot and the answer",
    async (replay) => {
      const h = await directionB();
      const p = promptB(h, 3);
      h.takeClient();
      h.client({ jsonrpc: "2.0", id: 4, method: "session/resume", params: { sessionId: S, cwd: "/w", ...replay } });
      h.client({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: S } });
      const [load] = h.takeAgent();
      expect(load.method).toBe("replayFrom" in replay ? "session/load" : "session/resume");
      h.agent({ jsonrpc: "2.0", id: p, result: { stopReason: "cancelled" } });
      h.agent({ jsonrpc: "2.0", id: load.id, result: {} });
      const out = h.takeClient();
      expect(updates(out)).toEqual([
        { sessionUpdate: "state_update", state: "idle", stopReason: "cancelled" },
        { sessionUpdate: "state_update", state: "idle" },
      ]);
      expect(out.at(-1)).toMatchObject({ id: 4, result: {} });
    },
  );

  it("reports the turn still running in the snapshot when the reload ends first, and its idle later", async () => {
    const h = await directionB();
    const p = promptB(h, 3);
    h.takeClient();
    h.client({ jsonrpc: "2.0", id: 4, method: "session/resume", params: { sessionId: S, cwd: "/w" } });
    const [resume] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: resume.id, result: {} });
    const out = h.takeClient();
    expect(updates(out)).toEqual([{ sessionUpdate: "state_update", state: "running" }]);
    expect(out.at(-1)).toMatchObject({ id: 4, result: {} });
    h.agent({ jsonrpc: "2.0", id: p, result: { stopReason: "end_turn" } });
    expect(updates(h.takeClient())).toEqual([{ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" }]);
  });
});

// ------------------------------------------------------------------ pass-through

describe("pass-through: an oversize answer to a prompt", () => {
  it("settles a v1 prompt with -32603", async () => {
    const h = harness();
    current = h;
    h.client({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
    await h.settle();
    const [probe] = h.takeAgent();
    h.agent({ jsonrpc: "2.0", id: probe.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
    await h.settle();
    h.takeClient();
    expect(h.bridge.mode).toBe("pass");
    h.client({ jsonrpc: "2.0", id: 7, method: "session/prompt", params: { sessionId: S, prompt: [text("hi")] } });
    const [fwd] = h.takeAgent();
    oversizeAnswer(h, fwd.id);
    expect(h.takeClient()).toMatchObject([{ id: 7, error: tooLarge }]);
  });

  it("settles a v2 prompt with -32603", async () => {
    const h = harness();
    current = h;
    h.client({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: 2, info: { name: "c", version: "1" }, capabilities: {} },
    });
    await h.settle();
    const [probe] = h.takeAgent();
    h.agent({
      jsonrpc: "2.0",
      id: probe.id,
      result: { protocolVersion: 2, info: { name: "a", version: "1" }, capabilities: {}, authMethods: [] },
    });
    await h.settle();
    h.takeClient();
    expect(h.bridge.mode).toBe("pass");
    h.client({ jsonrpc: "2.0", id: 7, method: "session/prompt", params: { sessionId: S, prompt: [text("hi")] } });
    const [fwd] = h.takeAgent();
    oversizeAnswer(h, fwd.id);
    expect(h.takeClient()).toMatchObject([{ id: 7, error: tooLarge }]);
  });
});
