// Direction B prompt lifecycle (T §1.4): a v2 client expects its prompt acked at INSERTION (with the
// user message's id) and the turn reported with `state_update`s, while a v1 agent says nothing of
// insertion and answers the prompt at the END of its turn. This decides when a prompt counts as
// inserted (the ack trigger), holds the prompts sent while a turn runs, reports `running`,
// `requires_action` and the idle, and renders the agent's echo of the prompt as the acked message.
// Behind an A bridge none of this runs: peer.ts takes the states from the bridge (T §5.5).
//
// The rules, numbered as in T §1.4: 1 `prompt` (start or hold), 2 `ack` (triggers: `heard`, the
// v1 answer, the grace timer), 3 `echo`, 4 `willBlock` / `blocking`, 5 and 6 `answered` / `end`,
// 7 `cancel`, 8 `withdraw`, 9 `afterTurn` / `closed`, 10 `loadStarted` / `snapshot`, 11
// `agentGone`. Rule 12 is what is absent: updates outside a turn change no reported state.
import type * as v1 from "@agentclientprotocol/sdk";
import { generatedMessageId } from "../../../mappings/message.js";
import { setOwn, withMembers } from "../../base/json.js";
import { nextGeneratedId } from "../../convert/message.js";
import { promptErrorToIdle, promptResponseToIdle } from "../../convert/prompt.js";
import type { ConvertOptions } from "../../convert/stash.js";
import { isBridgeMade, noteLost, resultKind, type BridgeObserver } from "../observer.js";
import type { ResponseMessage, RpcError } from "../../wire/jsonrpc.js";
import { rpcErrors } from "../../base/errors.js";
import { answer, notify, NOTHING, request, type Outgoing } from "../outgoing.js";
import { contained } from "../barrier.js";
import type { Logger } from "../../log.js";
import type { Inbound } from "../relay.js";
import type { SessionB } from "./session.js";
import { boundary, clientUpdate } from "./updates/index.js";
import type { Obj } from "../../base/json.js";

/** What the v2 client was last told of the session's foreground (`session/status` repeats it). */
export type Reported = "idle" | "running" | "requires_action";

/** Where a turn is. Rules move it forward only: sent → (withdrawn | acked) → ended. */
type Phase =
  /** Rule 1: sent to the v1 agent, awaiting the ack trigger; `timer` is its grace window (rule 2c). */
  | { readonly name: "sent"; readonly timer: NodeJS.Timeout | undefined }
  /** Rule 8: withdrawn before its ack; answered -32800 once the v1 agent answers, nothing emitted. */
  | { readonly name: "withdrawn" }
  /** Rule 2: acked; `echo` counts the echo's chunks while its window is open (rule 3), else undefined. */
  | { readonly name: "acked"; readonly echo: number | undefined }
  /** Rules 5, 6, 8, 9, 11: over; `acked` tells whether the client ever got the ack. */
  | { readonly name: "ended"; readonly acked: boolean };

/** A v2 prompt the v1 agent works on (T §1.4 `turn`). */
interface Turn {
  readonly entry: Inbound;
  readonly prompt: unknown[];
  /** The id of the v1 `session/prompt`, once it is written. */
  outboundId: number | undefined;
  userMsgId: string;
  phase: Phase;
  /** Rule 7: the client cancelled: no more `requires_action`/`running`, an error ends it `cancelled`. */
  cancelRequested: boolean;
  /** Rule 4: the agent's requests relayed to the client and not answered yet. */
  readonly blockers: Set<Blocker>;
  /** Rule 9: a close waiting for the turn to end. */
  onEnd: (() => readonly Outgoing[]) | undefined;
}

interface Blocker {
  readonly entry: Inbound;
  /** What the v1 agent is answered when the turn is cancelled (rule 7). */
  readonly onCancel: unknown;
}

/** A v2 prompt held while another turn runs or a load replays (rule 1). */
interface HeldPrompt {
  readonly entry: Inbound;
  readonly params: v1.PromptRequest;
}

/** What the lifecycle needs from its engine. */
export interface TurnIO {
  /** T §1.4-2 (c): the ack comes this long after sending the prompt if the agent said nothing. */
  readonly ackGraceMs: number;
  readonly toClient: ConvertOptions;
  /** Write what an event no handler returns from (the v1 answer, a timer, a withdrawal) produced. */
  write(out: readonly Outgoing[]): void;
  /** A v1 error as the v2 client gets it (H §7.1). */
  errorForClient(error: RpcError, sessionId: string): RpcError;
  /** Where a timer logs what it throws (the crash barrier). */
  readonly log: Logger;
  /** Told what the conversions lost (`--report`); absent: nobody asks. */
  readonly observer?: BridgeObserver | undefined;
}

export class PromptLifecycleB {
  private reportedState: Reported = "idle";
  private turn: Turn | undefined;
  private readonly queue: HeldPrompt[] = [];
  private loadInFlight = false;

  constructor(
    private readonly s: SessionB,
    private readonly io: TurnIO,
  ) {}

  get reported(): Reported {
    return this.reportedState;
  }

  /** A turn is running (acked or not). */
  get busy(): boolean {
    return this.turn !== undefined;
  }

  /** No turn, no held prompt, no load: the session's state may be forgotten (mappings/limits.ts). */
  get quiet(): boolean {
    return this.turn === undefined && this.queue.length === 0 && !this.loadInFlight;
  }

  /** Rule 2: a turn waits for its ack trigger (`heard` would ack it). */
  get awaitsAck(): boolean {
    return this.turn?.phase.name === "sent";
  }

  /** Rule 7: the running turn was cancelled by the client. */
  get cancelRequested(): boolean {
    return this.turn?.cancelRequested === true;
  }

  /** The v2 id of the running turn's prompt, if the v1 agent knows it as `outboundId`. */
  promptSentAs(outboundId: unknown): string | number | undefined {
    const turn = this.turn;
    if (turn === undefined || turn.outboundId !== outboundId) return undefined;
    return turn.entry.id ?? undefined;
  }

  private state(state: Reported): Outgoing {
    this.reportedState = state;
    return clientUpdate(this.s.sessionId, { sessionUpdate: "state_update", state });
  }

  /** Rule 1: a v2 prompt (converted for v1): started now, or held without an answer. */
  prompt(entry: Inbound, params: v1.PromptRequest): readonly Outgoing[] {
    const held: HeldPrompt = { entry, params };
    entry.onCancel = () => this.io.write(this.withdraw(held));
    if (this.turn || this.loadInFlight) {
      this.queue.push(held);
      return NOTHING;
    }
    return this.start(held);
  }

  private start(held: HeldPrompt): readonly Outgoing[] {
    const out = [...boundary(this.s)]; // a new prompt starts new messages
    const gen = nextGeneratedId(this.s.chunkIds, this.s.sessionId, "user");
    this.s.chunkIds = gen.state;
    const prompt: unknown[] = Array.isArray(held.params.prompt) ? held.params.prompt : [];
    let timer: NodeJS.Timeout | undefined;
    if (this.io.ackGraceMs > 0) {
      timer = setTimeout(
        contained(this.io.log, "a prompt's ack", () => this.io.write(this.ack(turn))),
        this.io.ackGraceMs,
      );
      timer.unref();
    }
    const turn: Turn = {
      entry: held.entry,
      prompt,
      outboundId: undefined,
      userMsgId: gen.messageId,
      phase: { name: "sent", timer },
      cancelRequested: false,
      blockers: new Set(),
      onEnd: undefined,
    };
    this.turn = turn;
    out.push(
      request(
        "agent",
        "session/prompt",
        held.params,
        (resp) => this.io.write(this.answered(turn, resp)),
        (id) => (turn.outboundId = id),
      ),
    );
    if (timer === undefined) out.push(...this.ack(turn));
    return out;
  }

  /** Rule 2: the ack, the user message and `running`, before anything of the turn. */
  private ack(turn: Turn, adoptId?: string): readonly Outgoing[] {
    if (turn.phase.name !== "sent" || this.turn !== turn) return NOTHING;
    if (turn.phase.timer) clearTimeout(turn.phase.timer);
    if (adoptId !== undefined && adoptId !== turn.userMsgId) {
      // The agent's own id replaces the generated one: give its number back, since a replay (which
      // generates no id for this message) must number the next id-less ones the same way.
      const ids = this.s.chunkIds;
      const n = ids.counter.user;
      if (turn.userMsgId === generatedMessageId(this.s.sessionId, "user", n))
        this.s.chunkIds = withMembers(ids, { counter: { ...ids.counter, user: n - 1 } });
      turn.userMsgId = adoptId;
    }
    turn.phase = { name: "acked", echo: 0 };
    return [
      answer("client", turn.entry, { result: { messageId: turn.userMsgId } }),
      clientUpdate(this.s.sessionId, {
        sessionUpdate: "user_message",
        messageId: turn.userMsgId,
        content: turn.prompt,
      }),
      this.state("running"),
    ];
  }

  /**
   * Rule 2 (a): any v1 message of the session acks the running prompt first; a user chunk with
   * the agent's own message id gives the prompt that id.
   */
  heard(update?: Obj): readonly Outgoing[] {
    if (!this.turn) return NOTHING;
    const own =
      update?.sessionUpdate === "user_message_chunk" && typeof update.messageId === "string"
        ? update.messageId
        : undefined;
    return this.ack(this.turn, own);
  }

  /**
   * Rule 3: while the echo window is open, a user chunk is the agent's echo of the prompt: it keeps
   * the acked message id (`first`: it replaces the bridge's copy). Anything else closes the window.
   */
  echo(user: boolean): { readonly messageId: string; readonly first: boolean } | undefined {
    const turn = this.turn;
    if (turn?.phase.name !== "acked" || turn.phase.echo === undefined) return undefined;
    if (!user) {
      turn.phase = { name: "acked", echo: undefined };
      return undefined;
    }
    const first = turn.phase.echo === 0;
    turn.phase = { name: "acked", echo: turn.phase.echo + 1 };
    return { messageId: turn.userMsgId, first };
  }

  /** Rule 3: a non-user update (plan, tool call) closes the echo window. */
  closeEcho(): void {
    this.echo(false);
  }

  /** Rule 4: before relaying a request that blocks the turn, the first one reports `requires_action`. */
  willBlock(): readonly Outgoing[] {
    const turn = this.turn;
    if (turn?.phase.name !== "acked" || turn.blockers.size > 0 || turn.cancelRequested) return NOTHING;
    return [this.state("requires_action")];
  }

  /** Rule 4: count a relayed request; the returned release reports `running` when the last is answered. */
  blocking(entry: Inbound, onCancel: unknown): () => readonly Outgoing[] {
    const turn = this.turn;
    if (!turn) return () => NOTHING;
    const blocker: Blocker = { entry, onCancel };
    turn.blockers.add(blocker);
    return () => {
      turn.blockers.delete(blocker);
      if (turn.blockers.size > 0 || turn.cancelRequested || turn.phase.name !== "acked" || this.turn !== turn)
        return NOTHING;
      return [this.state("running")];
    };
  }

  /** Rules 5 and 6: the v1 answer to the prompt. */
  private answered(turn: Turn, resp: ResponseMessage): readonly Outgoing[] {
    if (turn.phase.name === "sent" && turn.phase.timer) clearTimeout(turn.phase.timer);
    if (turn.phase.name === "withdrawn")
      // Rule 8: withdrawn before its ack: -32800, nothing emitted.
      return [answer("client", turn.entry, { error: rpcErrors.cancelled() }), ...this.finish(turn)];
    const acked = turn.phase.name === "acked" || (turn.phase.name === "ended" && turn.phase.acked);
    if (resp.error && !acked)
      // Rule 6: failed before insertion: the v2 prompt fails the same way, nothing else.
      return [
        answer("client", turn.entry, {
          error: this.io.errorForClient(resp.error, this.s.sessionId),
          relayed: !isBridgeMade(resp),
        }),
        ...this.finish(turn),
      ];
    // Rule 5: not acked yet, the answer is the trigger (2b); then the idle.
    const out = [...this.ack(turn), ...boundary(this.s)];
    const cancelled = turn.cancelRequested;
    const idle = resp.error
      ? promptErrorToIdle(resp.error, { cancelRequested: cancelled }, this.io.toClient)
      : promptResponseToIdle(resp.result as v1.PromptResponse);
    noteLost(this.io.observer, resultKind("session/prompt"), "agent", resp.error ?? resp.result, idle);
    if (!idle.ok) out.push(...this.end(turn, { stopReason: cancelled ? "cancelled" : "end_turn" }));
    else if (cancelled && idle.value.stopReason !== "cancelled" && resp.error)
      // Rule 6: a v2 agent reports `cancelled`, not an error, after a cancel.
      out.push(...this.end(turn, withMembers(idle.value, { stopReason: "cancelled", error: undefined })));
    else out.push(...this.end(turn, idle.value));
    return out;
  }

  /** Rule 5: the idle that ends the turn, then the next held prompt. */
  private end(turn: Turn, idle: object): readonly Outgoing[] {
    if (this.turn !== turn) return NOTHING;
    const update: Obj = { sessionUpdate: "state_update", state: "idle" };
    for (const [k, v] of Object.entries(idle))
      if (v !== undefined && k !== "sessionUpdate" && k !== "state") setOwn(update, k, v);
    this.reportedState = "idle";
    return [clientUpdate(this.s.sessionId, update), ...this.finish(turn)];
  }

  private finish(turn: Turn): readonly Outgoing[] {
    if (this.turn !== turn) return NOTHING;
    this.turn = undefined;
    turn.phase = { name: "ended", acked: turn.phase.name === "acked" };
    const onEnd = turn.onEnd;
    turn.onEnd = undefined;
    return [...(onEnd?.() ?? NOTHING), ...this.next()];
  }

  /** Rules 5 and 10: start the next held prompt, unless a turn runs, a load replays or the session closed. */
  next(): readonly Outgoing[] {
    if (this.turn || this.loadInFlight || this.s.closed) return NOTHING;
    const held = this.queue.shift();
    return held ? this.start(held) : NOTHING;
  }

  /** Rule 7: v2 `session/cancel` (the engine forwards it to v1). */
  cancel(): readonly Outgoing[] {
    const out = this.dropHeld();
    const turn = this.turn;
    if (!turn) return out;
    turn.cancelRequested = true;
    for (const b of [...turn.blockers]) {
      // Answer the v1 agent ourselves, withdraw the request from the v2 client, drop its late answer.
      turn.blockers.delete(b);
      out.push(answer("agent", b.entry, { result: b.onCancel }));
      if (b.entry.outboundId !== undefined)
        out.push(notify("client", "$/cancel_request", { requestId: b.entry.outboundId }));
    }
    return out;
  }

  /** Rules 7 and 9: the held prompts are answered -32800 (D10). */
  dropHeld(): Outgoing[] {
    return this.queue.splice(0).map((held) => answer("client", held.entry, { error: rpcErrors.cancelled() }));
  }

  /** Rule 8: `$/cancel_request` on a prompt: a held one is dropped, the running one withdrawn if not acked. */
  private withdraw(held: HeldPrompt): readonly Outgoing[] {
    const i = this.queue.indexOf(held);
    if (i >= 0) {
      this.queue.splice(i, 1);
      return [answer("client", held.entry, { error: rpcErrors.cancelled() })];
    }
    const turn = this.turn;
    if (turn?.entry !== held.entry || (turn.phase.name !== "sent" && turn.phase.name !== "withdrawn")) return NOTHING; // acked: ignored
    if (turn.phase.name === "sent" && turn.phase.timer) clearTimeout(turn.phase.timer);
    turn.phase = { name: "withdrawn" };
    return [notify("agent", "session/cancel", { sessionId: this.s.sessionId })];
  }

  /**
   * Rule 9: `then` runs once the turn has ended, at most `drainMs` later (its output written then);
   * at once when no turn runs. The turn is cancelled meanwhile.
   */
  afterTurn(drainMs: number, then: () => readonly Outgoing[]): readonly Outgoing[] {
    const turn = this.turn;
    if (!turn) return then();
    turn.cancelRequested = true;
    const timer = setTimeout(
      contained(this.io.log, "the end of a drained turn", () => this.io.write(then())),
      drainMs,
    );
    timer.unref();
    turn.onEnd = () => {
      clearTimeout(timer);
      return then();
    };
    return NOTHING;
  }

  /** Rule 9: the session closed: a turn still running ends `cancelled`. */
  closed(): readonly Outgoing[] {
    return this.turn ? this.end(this.turn, { stopReason: "cancelled" }) : NOTHING;
  }

  /** Rule 10: a resume replays the session: prompts are held until its answer. */
  loadStarted(): void {
    this.loadInFlight = true;
  }

  loadEnded(): void {
    this.loadInFlight = false;
  }

  /** Rule 10: the snapshot a resume result is preceded by. */
  snapshot(): readonly Outgoing[] {
    return [this.state(this.turn ? "running" : "idle")];
  }

  /** Rule 11: the agent is gone: an acked turn ends with an error idle, everything else waiting fails. */
  agentGone(error: RpcError): readonly Outgoing[] {
    const out = this.queue.splice(0).map((held) => answer("client", held.entry, { error }));
    const turn = this.turn;
    if (!turn) return out;
    if (turn.phase.name === "sent" && turn.phase.timer) clearTimeout(turn.phase.timer);
    if (turn.phase.name === "acked") return [...out, ...this.end(turn, { stopReason: "error", error })];
    this.turn = undefined;
    turn.phase = { name: "ended", acked: false };
    return [...out, answer("client", turn.entry, { error })];
  }
}
