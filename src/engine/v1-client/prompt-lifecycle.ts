// Direction A prompt lifecycle (T §1.2): a v1 prompt is answered at the END of its turn, but a v2
// agent acks it at insertion and reports the end with an idle `state_update`. This decides which
// idle completes which prompt (never a snapshot, never work that began before insertion), holds
// user-message echoes until the ack, and falls back to a settle timer for agents that never report
// `running`. What a rule produces (answers, released messages) is returned, in order, for the
// engine core to write; only the settle timer writes itself, through the core's writer.
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { ErrorCodes } from "../../base/errors.js";
import { isObject, jsonEqual, type Obj } from "../../base/json.js";
import type { RpcError } from "../../wire/jsonrpc.js";
import { limits } from "../../../mappings/limits.js";
import { NOTHING, type Outgoing } from "../outgoing.js";
import { contained } from "../barrier.js";
import type { Logger } from "../../log.js";

/** Events kept per un-acked prompt to replay at its ack (bounded, T §1.2). */
const LOG_LIMIT = 1000;

/** The answers of one v1 prompt (one of them is used, once): what each writes, in order. */
export interface PromptHandle {
  answerIdle(idle: v2.IdleStateUpdate, cancelRequested: boolean): readonly Outgoing[];
  /** `relayed`: the agent's own error for the prompt (not the bridge's, e.g. on its exit). */
  answerError(error: RpcError, relayed?: boolean): readonly Outgoing[];
  answerCancelled(): readonly Outgoing[];
}

/** A held user message: released (rendered) once no prompt awaits its ack. */
interface Held {
  readonly update: Obj;
  readonly messageId: string | undefined;
  readonly release: () => readonly Outgoing[];
}

/** An idle `state_update` (the state is checked here, the stop reason by the converter). */
function isIdle(update: Obj): update is Obj & v2.IdleStateUpdate {
  return update.state === "idle";
}

interface LogEvent {
  readonly seq: number;
  readonly kind: "user" | "state";
  readonly messageId?: string | undefined;
  readonly state?: string | undefined;
  readonly prev?: string | undefined;
  readonly update?: v2.IdleStateUpdate | undefined;
}

interface Pending {
  readonly handle: PromptHandle;
  readonly outboundId: number;
  readonly content: unknown;
  acked: boolean;
  userMsgId: string | undefined;
  insertionSeq: number | undefined;
  cancelRequested: boolean;
  readonly log: LogEvent[];
  settleTimer: NodeJS.Timeout | undefined;
}

export interface LifecycleOptions {
  readonly idleSettleMs: number;
  /** Shared per connection: once the agent reported `running`, the settle fallback is off. */
  readonly connection: { agentReportsBusy: boolean };
  /** Forward the agent's echo of the client's own prompt (default: suppress, project decision). */
  readonly forwardPromptEcho: boolean;
  /** The engine core's writer, for the answer a settle timer gives. */
  readonly write: (out: readonly Outgoing[]) => void;
  /** Where a settle timer logs what it throws (the crash barrier). */
  readonly log: Logger;
}

/** What to do with a user-message update. */
export type UserMessageDecision = "forward" | "drop" | "hold";

const HELD_MEMORY = limits.heldUserMessages.default;
const ECHO_MEMORY = 64;

export class PromptLifecycle {
  agentState = "idle";
  private seq = 0;
  private readonly pending: Pending[] = [];
  /** User-message updates received while a prompt is not acked yet, with their release action. */
  private held: Held[] = [];
  /** Message ids of acked prompts: their echoes are dropped (bounded). */
  private readonly echoIds: string[] = [];
  /** Resumes of this session awaiting their answer (rule 8; a client may send two). */
  private resumes = 0;
  /** The last idle `state_update`, and the last one with a stop reason (rule 8's reconciliation). */
  private lastIdle: { readonly seq: number; readonly update: v2.IdleStateUpdate } | undefined;
  private lastReasonedIdle: { readonly seq: number; readonly update: v2.IdleStateUpdate } | undefined;

  constructor(private readonly opts: LifecycleOptions) {}

  get hasPending(): boolean {
    return this.pending.length > 0;
  }

  /** Rule 8: a resume (a v1 load or resume) of this session awaits its answer. */
  get resumeInFlight(): boolean {
    return this.resumes > 0;
  }

  /** Rule 1: a v1 prompt was forwarded under `outboundId`. */
  sent(handle: PromptHandle, outboundId: number, content: unknown): void {
    this.pending.push({
      handle,
      outboundId,
      content,
      acked: false,
      userMsgId: undefined,
      insertionSeq: undefined,
      cancelRequested: false,
      log: [],
      settleTimer: undefined,
    });
  }

  /** Rule 2: the v2 answer to a forwarded prompt. */
  answered(outboundId: number, result: unknown, error: RpcError | undefined): readonly Outgoing[] {
    const p = this.pending.find((x) => x.outboundId === outboundId);
    if (!p) return NOTHING;
    const seq = ++this.seq;
    if (error) {
      this.remove(p);
      const answer =
        p.cancelRequested && error.code === ErrorCodes.requestCancelled
          ? p.handle.answerCancelled()
          : p.handle.answerError(error, true);
      return [...answer, ...this.releaseHeld(undefined)];
    }
    p.acked = true;
    p.userMsgId = isObject(result) && typeof result.messageId === "string" ? result.messageId : undefined;
    const firstEcho = p.log.find((e) => e.kind === "user" && p.userMsgId !== undefined && e.messageId === p.userMsgId);
    p.insertionSeq = firstEcho ? firstEcho.seq : seq;
    if (p.userMsgId !== undefined) this.rememberEcho(p.userMsgId);
    // An idle that arrived before the ack may already complete it.
    const out: Outgoing[] = [];
    for (const e of p.log) {
      if (e.kind === "state" && e.state === "idle" && e.update && this.completes(p, e.seq, e.prev)) {
        out.push(...this.complete(p, e.update));
        break;
      }
    }
    p.log.length = 0;
    out.push(...this.releaseHeld(p));
    return out;
  }

  /**
   * A user-message update (`user_message` / `user_message_chunk`). Held while a prompt is not acked;
   * the echo of an acked prompt is dropped (T §1.2-2).
   */
  userMessage(update: Obj, messageId: string | undefined, release: () => readonly Outgoing[]): UserMessageDecision {
    const seq = ++this.seq;
    // Replayed history is shown in full: the client's own earlier prompts included.
    if (this.resumeInFlight) return "forward";
    for (const p of this.pending) if (!p.acked) this.log(p, { seq, kind: "user", messageId });
    if (!this.opts.forwardPromptEcho && messageId !== undefined && this.echoIds.includes(messageId)) return "drop";
    // Held per turn at most `limits.heldUserMessages` (an agent that never acks must not grow us).
    if (this.pending.some((p) => !p.acked) && !this.opts.forwardPromptEcho && this.held.length < HELD_MEMORY) {
      this.held.push({ update, messageId, release });
      return "hold";
    }
    return "forward";
  }

  /**
   * What `userMessage` will decide for `messageId` where it holds nothing and logs nothing (during a
   * resume, or with no prompt awaiting its ack): "forward" or "drop". Undefined where it may hold or
   * log. Nothing is recorded: the caller then calls `userMessage`, which decides the same.
   */
  userMessageAtOnce(messageId: string): "forward" | "drop" | undefined {
    if (this.resumeInFlight) return "forward";
    if (this.pending.some((p) => !p.acked)) return undefined;
    return !this.opts.forwardPromptEcho && this.echoIds.includes(messageId) ? "drop" : "forward";
  }

  /**
   * Rules 3 and 4: a `state_update`; returns the answers of the prompts it completes. During a
   * resume too: a snapshot that repeats an idle completes nothing (rule 4), but a turn that ends
   * while its session is reloaded ends its prompt (its idle follows a busy state).
   */
  stateUpdate(update: Obj): readonly Outgoing[] {
    const seq = ++this.seq;
    const prev = this.agentState;
    const state = typeof update.state === "string" ? update.state : "unknown";
    this.agentState = state;
    if (state !== "idle") {
      this.opts.connection.agentReportsBusy = true;
      for (const p of this.pending) this.clearSettle(p);
    }
    const idle = isIdle(update) ? update : undefined;
    if (idle) {
      this.lastIdle = { seq, update: idle };
      if (idle.stopReason !== undefined && idle.stopReason !== null) this.lastReasonedIdle = this.lastIdle;
    }
    const out: Outgoing[] = [];
    for (const p of [...this.pending]) {
      if (!p.acked) {
        this.log(p, { seq, kind: "state", state, prev, update: idle });
        continue;
      }
      if (!idle) continue;
      if (this.completes(p, seq, prev)) out.push(...this.complete(p, idle));
      // A resume's snapshot may repeat an old stop reason: no settle timer on it (rule 8 reconciles).
      else if (!this.resumeInFlight) out.push(...this.maybeSettle(p, idle));
    }
    return out;
  }

  /** Rule 8: a resume of this session was sent to the agent. */
  resumeStarted(): void {
    this.resumes++;
  }

  /**
   * Rule 8: the resume was answered. Its snapshot (sent before a successful answer) is the session's
   * current state: when it is idle, no turn runs, so a prompt inserted before it has ended (a turn
   * that ended during the reload with no busy state before its idle, or whose idle the bridge never
   * saw). Each ends with the last idle that carried a stop reason after its insertion, else the snapshot.
   */
  resumeEnded(ok: boolean): readonly Outgoing[] {
    if (this.resumes > 0) this.resumes--;
    const idle = this.lastIdle;
    if (!ok || this.resumes > 0 || this.agentState !== "idle" || idle === undefined) return NOTHING;
    const reasoned = this.lastReasonedIdle;
    const out: Outgoing[] = [];
    for (const p of [...this.pending]) {
      if (!p.acked || p.insertionSeq === undefined || idle.seq <= p.insertionSeq) continue;
      const end = reasoned !== undefined && reasoned.seq > p.insertionSeq ? reasoned : idle;
      out.push(...this.complete(p, end.update));
    }
    return out;
  }

  private completes(p: Pending, seq: number, prev: string | undefined): boolean {
    return p.acked && p.insertionSeq !== undefined && seq > p.insertionSeq && prev !== undefined && prev !== "idle";
  }

  /** Settle fallback for agents that never report `running` (rule 4). */
  private maybeSettle(p: Pending, idle: Obj & v2.IdleStateUpdate): readonly Outgoing[] {
    if (this.opts.connection.agentReportsBusy) return NOTHING;
    const reason = idle.stopReason;
    if (reason === undefined || reason === null) return NOTHING;
    // A replay (no window): the agent said nothing more before its next message.
    if (this.opts.idleSettleMs === 0) return this.complete(p, idle);
    // One timer per idle run: a later idle (no busy state between) must not replace the first.
    if (p.settleTimer) return NOTHING;
    p.settleTimer = setTimeout(
      contained(this.opts.log, "a prompt's idle settle", () => {
        p.settleTimer = undefined;
        if (this.pending.includes(p) && this.agentState === "idle") this.opts.write(this.complete(p, idle));
      }),
      this.opts.idleSettleMs,
    );
    p.settleTimer.unref();
    return NOTHING;
  }

  private clearSettle(p: Pending): void {
    if (p.settleTimer) clearTimeout(p.settleTimer);
    p.settleTimer = undefined;
  }

  private complete(p: Pending, idle: v2.IdleStateUpdate): readonly Outgoing[] {
    this.remove(p);
    return p.handle.answerIdle(idle, p.cancelRequested);
  }

  private remove(p: Pending): void {
    this.clearSettle(p);
    const i = this.pending.indexOf(p);
    if (i >= 0) this.pending.splice(i, 1);
  }

  private log(p: Pending, e: LogEvent): void {
    if (p.log.length < LOG_LIMIT) p.log.push(e);
  }

  private rememberEcho(id: string): void {
    this.echoIds.push(id);
    if (this.echoIds.length > ECHO_MEMORY) this.echoIds.shift();
  }

  /** Release held user messages once no prompt awaits its ack; drop the acked prompt's echo. */
  private releaseHeld(acked: Pending | undefined): Outgoing[] {
    if (this.pending.some((p) => !p.acked)) {
      if (acked) this.held = this.held.filter((h) => !this.isEcho(h, acked));
      return [];
    }
    const held = this.held;
    this.held = [];
    let echoTaken = false;
    const out: Outgoing[] = [];
    for (const h of held) {
      if (acked && this.isEcho(h, acked, echoTaken)) {
        echoTaken ||= acked.userMsgId === undefined;
        continue;
      }
      out.push(...h.release());
    }
    return out;
  }

  private isEcho(h: Held, p: Pending, echoTaken = false): boolean {
    if (p.userMsgId !== undefined) return h.messageId === p.userMsgId || this.echoIds.includes(h.messageId ?? "");
    if (echoTaken) return false;
    // No messageId in the ack (D1): the echo is the first held message whose content is the prompt.
    const content = h.update.content;
    return (
      jsonEqual(content, p.content) ||
      (Array.isArray(p.content) && p.content.length === 1 && jsonEqual(content, p.content[0]))
    );
  }

  /** Rule 5: `session/cancel` marks every pending prompt. */
  cancelAll(): void {
    for (const p of this.pending) p.cancelRequested = true;
  }

  /** Rule 6: `$/cancel_request` on one prompt. Returns whether it was acked (else also withdraw it). */
  cancelOne(outboundId: number): { found: boolean; acked: boolean } {
    const p = this.pending.find((x) => x.outboundId === outboundId);
    if (!p) return { found: false, acked: false };
    p.cancelRequested = true;
    return { found: true, acked: p.acked };
  }

  /** Rule 7: the session was closed: prompts still pending end as cancelled. */
  closed(): readonly Outgoing[] {
    const out: Outgoing[] = [];
    for (const p of [...this.pending]) {
      this.remove(p);
      out.push(...p.handle.answerCancelled());
    }
    this.held = [];
    return out;
  }

  /** Rule 9: the agent is gone. */
  agentGone(error: RpcError): readonly Outgoing[] {
    const out: Outgoing[] = [];
    for (const p of [...this.pending]) {
      this.remove(p);
      out.push(...p.handle.answerError(error));
    }
    this.held = [];
    return out;
  }
}
