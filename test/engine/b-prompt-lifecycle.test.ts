// Direction B's prompt lifecycle (src/engine/v2-client/prompt-lifecycle.ts) on its own: each numbered rule
// of T §1.4, its transitions and the messages it returns, in order. Every message is checked
// against the schema of the side it goes to (v2 toward the client, v1 toward the agent).
import type * as v1 from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PeerTurns } from "../../src/engine/v2-client/peer.js";
import type { TurnIO } from "../../src/engine/v2-client/prompt-lifecycle.js";
import { SessionB } from "../../src/engine/v2-client/session.js";
import { LocalTurns } from "../../src/engine/v2-client/turns.js";
import type { Outgoing } from "../../src/engine/outgoing.js";
import type { Inbound } from "../../src/engine/relay.js";
import type { ResponseMessage } from "../../src/wire/jsonrpc.js";
import { expectValid } from "../support/schema.js";
import { silentLogger } from "../support/log.js";

const S = "s1";
const EXITED = { code: -32603, message: "Agent process exited", data: { reason: "agent_exited", exitCode: 1 } };

/** A written message, as a test reads it. */
type Seen =
  | { to: "client" | "agent"; update: Record<string, unknown> }
  | { to: "client" | "agent"; answer: unknown; id: unknown }
  | { to: "client" | "agent"; method: string; params: unknown };

/** One session's lifecycle with a recording engine: requests get ids 1, 2, …, answered by `respond`. */
function rig(ackGraceMs = 0) {
  const seen: Seen[] = [];
  const answered = new Map<number, (resp: ResponseMessage) => void>();
  let nextId = 0;
  const write = (out: readonly Outgoing[]) => {
    for (const o of out) {
      switch (o.kind) {
        case "notify":
          if (o.method === "session/update") {
            expectValid("v2", "UpdateSessionNotification", o.params);
            const params = o.params as { update: Record<string, unknown> };
            seen.push({ to: o.to, update: params.update });
          } else {
            if (o.to === "agent") expectValid("v1", "CancelNotification", o.params);
            else expectValid("v2", "CancelRequestNotification", o.params);
            seen.push({ to: o.to, method: o.method, params: o.params });
          }
          break;
        case "answer":
          if (o.entry.answered) break;
          o.entry.answered = true;
          if ("result" in o.answer && o.entry.method === "session/prompt")
            expectValid("v2", "PromptResponse", o.answer.result);
          seen.push({ to: o.to, id: o.entry.id, answer: o.answer });
          break;
        case "request": {
          expectValid("v1", "PromptRequest", o.params);
          const id = ++nextId;
          answered.set(id, o.answered);
          o.issued(id);
          seen.push({ to: o.to, method: o.method, params: o.params });
          break;
        }
        default:
          throw new Error(`unexpected ${o.kind}`);
      }
    }
  };
  const io: TurnIO = {
    ackGraceMs,
    toClient: { stash: "off", stashMaxBytes: 0 },
    write,
    errorForClient: (error) => error,
    log: silentLogger,
  };
  const s = new SessionB(S, io);
  let promptIds = 0;
  return {
    s,
    seen,
    write,
    /** Messages written since the last call. */
    take(): Seen[] {
      return seen.splice(0);
    },
    /** A v2 prompt (already converted for v1), with its tracked request. */
    prompt(text: string): Inbound {
      const entry: Inbound = { id: `p${String(++promptIds)}`, method: "session/prompt", answered: false };
      const params: v1.PromptRequest = { sessionId: S, prompt: [{ type: "text", text }] };
      write(s.prompts.prompt(entry, params));
      return entry;
    },
    /** The v1 agent answers request `id`. */
    respond(id: number, resp: Omit<ResponseMessage, "jsonrpc" | "id">): void {
      const cb = answered.get(id);
      if (!cb) throw new Error(`no request ${String(id)}`);
      answered.delete(id);
      cb({ jsonrpc: "2.0", id, ...resp });
    },
  };
}

const state = (s: string, extra: Record<string, unknown> = {}) => ({
  to: "client",
  update: { sessionUpdate: "state_update", state: s, ...extra },
});
const toAgent = (text: string) => ({
  to: "agent",
  method: "session/prompt",
  params: { sessionId: S, prompt: [{ type: "text", text }] },
});
const ack = (id: string, messageId: string) => ({ to: "client", id, answer: { result: { messageId } } });
const userMessage = (messageId: string, text: string) => ({
  to: "client",
  update: { sessionUpdate: "user_message", messageId, content: [{ type: "text", text }] },
});
const U1 = "acpb:s1:u:1";
const U2 = "acpb:s1:u:2";

afterEach(() => {
  vi.useRealTimers();
});

describe("B prompt lifecycle (T §1.4)", () => {
  it("rule 1: an idle session sends the prompt; one sent during a turn or a load is held unanswered", () => {
    const r = rig(1000);
    r.prompt("one");
    expect(r.take()).toEqual([toAgent("one")]);
    expect(r.s.prompts.busy).toBe(true);
    r.prompt("two");
    expect(r.take()).toEqual([]);

    const q = rig(1000);
    q.s.prompts.loadStarted();
    q.prompt("during the load");
    expect(q.take()).toEqual([]);
    q.s.prompts.loadEnded();
    q.write(q.s.prompts.next());
    expect(q.take()).toEqual([toAgent("during the load")]);
  });

  it("rule 2: the ack, user_message and running come in that order, at once when the grace is 0", () => {
    const r = rig(0);
    r.prompt("hi");
    expect(r.take()).toEqual([toAgent("hi"), ack("p1", U1), userMessage(U1, "hi"), state("running")]);
    expect(r.s.prompts.reported).toBe("running");
  });

  it("rule 2 (a): the first v1 message acks; a user chunk with the agent's id gives the prompt that id", () => {
    const r = rig(1000);
    r.prompt("hi");
    r.take();
    r.write(r.s.prompts.heard({ sessionUpdate: "user_message_chunk", messageId: "m-agent" }));
    expect(r.take()).toEqual([ack("p1", "m-agent"), userMessage("m-agent", "hi"), state("running")]);
    r.write(r.s.prompts.heard({ sessionUpdate: "agent_message_chunk" }));
    expect(r.take()).toEqual([]); // acked once
    // The generated number was given back: the next prompt gets u:1 again.
    r.respond(1, { result: { stopReason: "end_turn" } });
    r.take();
    r.prompt("again");
    r.write(r.s.prompts.heard());
    expect(r.take()).toContainEqual(ack("p2", U1));
  });

  it("rule 2 (b): a success answer before any message acks, then the idle", () => {
    const r = rig(1000);
    r.prompt("hi");
    r.take();
    r.respond(1, { result: { stopReason: "max_tokens" } });
    expect(r.take()).toEqual([
      ack("p1", U1),
      userMessage(U1, "hi"),
      state("running"),
      state("idle", { stopReason: "max_tokens" }),
    ]);
  });

  it("rule 2 (c): the grace timer acks a prompt the agent is silent about", () => {
    vi.useFakeTimers();
    const r = rig(100);
    r.prompt("hi");
    r.take();
    vi.advanceTimersByTime(99);
    expect(r.take()).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(r.take()).toEqual([ack("p1", U1), userMessage(U1, "hi"), state("running")]);
  });

  it("rule 3: user chunks right after the ack are the echo, under the acked id; a non-user update closes it", () => {
    const r = rig(0);
    r.prompt("hi");
    expect(r.s.prompts.echo(true)).toEqual({ messageId: U1, first: true });
    expect(r.s.prompts.echo(true)).toEqual({ messageId: U1, first: false });
    r.s.prompts.closeEcho();
    expect(r.s.prompts.echo(true)).toBeUndefined();

    const q = rig(0);
    q.prompt("hi");
    expect(q.s.prompts.echo(false)).toBeUndefined(); // an agent chunk closes it too
    expect(q.s.prompts.echo(true)).toBeUndefined();
  });

  it("rule 4: the first blocker reports requires_action, the last answer running; none after a cancel", () => {
    const r = rig(0);
    r.prompt("hi");
    r.take();
    const perm = (id: number): Inbound => ({ id, method: "session/request_permission", answered: false });
    r.write(r.s.prompts.willBlock());
    const release1 = r.s.prompts.blocking(perm(7), {});
    r.write(r.s.prompts.willBlock());
    const release2 = r.s.prompts.blocking(perm(8), {});
    expect(r.take()).toEqual([state("requires_action")]);
    r.write(release1());
    expect(r.take()).toEqual([]);
    r.write(release2());
    expect(r.take()).toEqual([state("running")]);

    r.write(r.s.prompts.willBlock());
    const release3 = r.s.prompts.blocking(perm(9), {});
    r.take();
    r.s.prompts.cancel();
    r.write(release3());
    r.write(r.s.prompts.willBlock());
    expect(r.take()).toEqual([]);
  });

  it("rule 5: the idle ends the turn, then the next held prompt starts: its prompt, ack and running follow", () => {
    const r = rig(0);
    r.prompt("one");
    r.prompt("two");
    r.take();
    r.respond(1, { result: { stopReason: "end_turn" } });
    expect(r.take()).toEqual([
      state("idle", { stopReason: "end_turn" }),
      toAgent("two"),
      ack("p2", U2),
      userMessage(U2, "two"),
      state("running"),
    ]);
  });

  it("rule 6: an error before the ack fails the prompt alone; after it, an error idle; after a cancel, cancelled", () => {
    const error = { code: -32000, message: "Auth required" };
    const early = rig(1000);
    early.prompt("hi");
    early.take();
    early.respond(1, { error });
    // The agent's own error, relayed (what `--report` tells from the bridge's refusals).
    expect(early.take()).toEqual([{ to: "client", id: "p1", answer: { error, relayed: true } }]);
    expect(early.s.prompts.busy).toBe(false);

    const late = rig(0);
    late.prompt("hi");
    late.take();
    late.respond(1, { error });
    expect(late.take()).toEqual([state("idle", { stopReason: "error", error })]);

    const cancelled = rig(0);
    cancelled.prompt("hi");
    cancelled.take();
    cancelled.write(cancelled.s.prompts.cancel());
    cancelled.respond(1, { error });
    expect(cancelled.take()).toEqual([state("idle", { stopReason: "cancelled" })]);
  });

  it("rule 7: session/cancel answers held prompts -32800, the agent's blockers cancelled, and withdraws them from the client", () => {
    const r = rig(0);
    r.prompt("one");
    r.prompt("two");
    r.take();
    const perm: Inbound = { id: 7, method: "session/request_permission", answered: false, outboundId: 3 };
    r.s.prompts.blocking(perm, { outcome: { outcome: "cancelled" } });
    r.write(r.s.prompts.cancel());
    expect(r.take()).toEqual([
      { to: "client", id: "p2", answer: { error: { code: -32800, message: "Request cancelled" } } },
      { to: "agent", id: 7, answer: { result: { outcome: { outcome: "cancelled" } } } },
      { to: "client", method: "$/cancel_request", params: { requestId: 3 } },
    ]);
    expect(r.s.prompts.cancelRequested).toBe(true);
  });

  it("rule 8: $/cancel_request drops a held prompt, withdraws an un-acked one, ignores an acked one", () => {
    const r = rig(1000);
    const first = r.prompt("one");
    const held = r.prompt("two");
    r.take();
    held.onCancel?.();
    expect(r.take()).toEqual([
      { to: "client", id: "p2", answer: { error: { code: -32800, message: "Request cancelled" } } },
    ]);
    first.onCancel?.();
    expect(r.take()).toEqual([{ to: "agent", method: "session/cancel", params: { sessionId: S } }]);
    // Withdrawn: no ack, even on a message of the agent; its answer is -32800 and nothing else.
    r.write(r.s.prompts.heard({ sessionUpdate: "agent_message_chunk" }));
    r.respond(1, { result: { stopReason: "cancelled" } });
    expect(r.take()).toEqual([
      { to: "client", id: "p1", answer: { error: { code: -32800, message: "Request cancelled" } } },
    ]);

    const acked = rig(0);
    const p = acked.prompt("hi");
    acked.take();
    p.onCancel?.();
    expect(acked.take()).toEqual([]);
  });

  it("rule 9: a close waits for the turn (cancelled meanwhile), or at most the drain time", () => {
    const r = rig(0);
    r.prompt("hi");
    r.take();
    let closed = 0;
    r.write(r.s.prompts.afterTurn(5000, () => (closed++, [])));
    expect(closed).toBe(0);
    expect(r.s.prompts.cancelRequested).toBe(true);
    r.respond(1, { error: { code: -32800, message: "cancelled" } });
    expect(closed).toBe(1);
    expect(r.take()).toEqual([state("idle", { stopReason: "cancelled" })]);

    vi.useFakeTimers();
    const slow = rig(0);
    slow.prompt("hi");
    slow.take();
    let drained = 0;
    slow.write(slow.s.prompts.afterTurn(5000, () => (drained++, slow.s.prompts.closed())));
    vi.advanceTimersByTime(5000);
    expect(drained).toBeGreaterThan(0);
    expect(slow.take()).toEqual([state("idle", { stopReason: "cancelled" })]);
    expect(slow.s.prompts.busy).toBe(false);
  });

  it("rule 10: the resume snapshot reports running during a turn, idle otherwise", () => {
    const r = rig(1000);
    r.write(r.s.prompts.snapshot());
    r.prompt("hi");
    r.write(r.s.prompts.snapshot());
    expect(r.take()).toEqual([state("idle"), toAgent("hi"), state("running")]);
  });

  it("rule 11: the agent gone: an acked turn ends with an error idle, held and un-acked prompts fail", () => {
    const r = rig(0);
    r.prompt("one");
    r.prompt("two");
    r.take();
    r.write(r.s.prompts.agentGone(EXITED));
    expect(r.take()).toEqual([
      { to: "client", id: "p2", answer: { error: EXITED } },
      state("idle", { stopReason: "error", error: EXITED }),
    ]);

    const unacked = rig(1000);
    unacked.prompt("one");
    unacked.take();
    unacked.write(unacked.s.prompts.agentGone(EXITED));
    expect(unacked.take()).toEqual([{ to: "client", id: "p1", answer: { error: EXITED } }]);
    expect(unacked.s.prompts.busy).toBe(false);
  });

  it("ignores the late v1 answer of a turn that already ended, without ending the next one", () => {
    vi.useFakeTimers();
    const r = rig(0);
    r.prompt("one");
    r.take();
    // The close drain gives up on the first turn; a later prompt runs its own turn.
    r.write(r.s.prompts.afterTurn(10, () => r.s.prompts.closed()));
    vi.advanceTimersByTime(10);
    r.prompt("two");
    r.take();
    r.respond(1, { result: { stopReason: "end_turn" } });
    expect(r.take()).toEqual([]);
    expect(r.s.prompts.busy).toBe(true);
  });
});

describe("B turn strategies, chosen at the handshake (T §1.4, §5.5)", () => {
  it("LocalTurns runs the session's lifecycle and ignores prompt_accepted", () => {
    const r = rig(0);
    const turns = new LocalTurns();
    expect(turns.accepted()).toEqual([]);
    expect(turns.state(r.s)).toBe("idle");
    r.write(turns.snapshot(r.s));
    expect(r.take()).toEqual([state("idle")]);
  });

  it("PeerTurns sends every prompt at once, acks on prompt_accepted, synthesizes no state", () => {
    const r = rig(0);
    const turns = new PeerTurns({ write: r.write, errorForClient: (e) => e });
    const entry = (id: string): Inbound => ({ id, method: "session/prompt", answered: false });
    const p1 = entry("p1");
    const p2 = entry("p2");
    const params = (text: string): v1.PromptRequest => ({ sessionId: S, prompt: [{ type: "text", text }] });
    r.write(turns.prompt(r.s, p1, params("one")));
    r.write(turns.prompt(r.s, p2, params("two")));
    expect(r.take()).toEqual([toAgent("one"), toAgent("two")]);
    expect(p1.outboundId).toBe(1); // a withdrawal is forwarded under it
    r.write(turns.heard());
    r.write(turns.willBlock());
    r.write(turns.snapshot());
    expect(turns.state()).toBeUndefined();
    expect(r.take()).toEqual([]);
    r.write(turns.accepted({ sessionId: S, requestId: 1, messageId: "m1" }));
    expect(r.take()).toEqual([{ to: "client", id: "p1", answer: { result: { messageId: "m1" } } }]);
    // The v1 answer of an accepted prompt only closes the bookkeeping; one never accepted fails.
    r.respond(1, { result: { stopReason: "end_turn" } });
    r.respond(2, { result: { stopReason: "end_turn" } });
    expect(r.take()).toEqual([
      {
        to: "client",
        id: "p2",
        answer: {
          error: {
            code: -32603,
            message: "Agent ended a prompt it never accepted",
            data: { reason: "not_accepted" },
          },
        },
      },
    ]);
  });

  it("PeerTurns ends an accepted turn with an error idle and fails an unaccepted prompt when the agent is gone", () => {
    const r = rig(0);
    const turns = new PeerTurns({ write: r.write, errorForClient: (e) => e });
    const params: v1.PromptRequest = { sessionId: S, prompt: [{ type: "text", text: "x" }] };
    r.write(turns.prompt(r.s, { id: "p1", method: "session/prompt", answered: false }, params));
    r.write(turns.prompt(r.s, { id: "p2", method: "session/prompt", answered: false }, params));
    r.write(turns.accepted({ requestId: 1, messageId: "m1" }));
    r.take();
    r.write(turns.agentGone([r.s], EXITED));
    expect(r.take()).toEqual([
      state("idle", { stopReason: "error", error: EXITED }),
      { to: "client", id: "p2", answer: { error: EXITED } },
    ]);
  });
});
