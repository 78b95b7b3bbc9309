// Direction B behind an A bridge (T §5.5): the "v1 agent" is a bridge in front of a v2 agent, which
// runs the real lifecycle. Every prompt goes at once (the real agent holds it), its ack is the
// bridge's `_acp-bridge/prompt_accepted`, and states, echo and idle arrive on the bridge's channel:
// this bridge synthesizes none of them. The sessions' own lifecycles never start a turn, so a
// cancel or a close finds nothing of theirs to end.
import type * as v1 from "@agentclientprotocol/sdk";
import { isObject, type Obj } from "../../base/json.js";
import type { ResponseMessage, RpcError } from "../../wire/jsonrpc.js";
import { rpcErrors } from "../../base/errors.js";
import { answer, NOTHING, request, type Outgoing } from "../outgoing.js";
import type { Inbound } from "../relay.js";
import type { TurnIO } from "./prompt-lifecycle.js";
import type { SessionB } from "./session.js";
import type { TurnStrategy } from "./turns.js";
import { clientUpdate } from "./updates/index.js";

/** A prompt relayed to the A bridge, by the id this bridge sent it under. */
interface PeerPrompt {
  readonly entry: Inbound;
  outboundId: number | undefined;
  readonly sessionId: string;
  acked: boolean;
  ended: boolean;
}

export class PeerTurns implements TurnStrategy {
  private readonly prompts = new Map<number, PeerPrompt>();

  constructor(private readonly io: Pick<TurnIO, "write" | "errorForClient">) {}

  prompt(s: SessionB, entry: Inbound, params: v1.PromptRequest): readonly Outgoing[] {
    const p: PeerPrompt = { entry, outboundId: undefined, sessionId: s.sessionId, acked: false, ended: false };
    const issued = (id: number) => {
      p.outboundId = id;
      this.prompts.set(id, p);
      // Until inserted, `$/cancel_request` is forwarded under this id (withdrawal); once acked the
      // request is answered and the route drops it, as v2 wants (T §1.4-8).
      entry.outboundId = id;
    };
    return [request("agent", "session/prompt", params, (resp) => this.io.write(this.answered(p, resp)), issued)];
  }

  /** The v1 answer only closes the bookkeeping, unless the prompt was never accepted. */
  private answered(p: PeerPrompt, resp: ResponseMessage): readonly Outgoing[] {
    p.ended = true;
    if (p.outboundId !== undefined) this.prompts.delete(p.outboundId);
    if (p.acked || p.entry.answered) return NOTHING;
    // Never inserted: rejected, or withdrawn (the peer answers a withdrawn prompt `cancelled`).
    if (resp.error) return [answer("client", p.entry, { error: this.io.errorForClient(resp.error, p.sessionId) })];
    if (isObject(resp.result) && resp.result.stopReason === "cancelled")
      return [answer("client", p.entry, { error: rpcErrors.cancelled() })];
    return [
      answer("client", p.entry, {
        error: rpcErrors.internal("Agent ended a prompt it never accepted", { reason: "not_accepted" }),
      }),
    ];
  }

  accepted(params: Obj): readonly Outgoing[] {
    const p = typeof params.requestId === "number" ? this.prompts.get(params.requestId) : undefined;
    if (!p || p.acked) return NOTHING;
    p.acked = true;
    const messageId = typeof params.messageId === "string" ? params.messageId : undefined;
    return [answer("client", p.entry, { result: messageId === undefined ? {} : { messageId } })];
  }

  /** An accepted prompt's turn ends with an error idle (the bridge's channel is gone too, T §1.4-11). */
  agentGone(_sessions: Iterable<SessionB>, error: RpcError): readonly Outgoing[] {
    const out: Outgoing[] = [];
    for (const p of this.prompts.values()) {
      if (!p.acked) out.push(answer("client", p.entry, { error }));
      else if (!p.ended)
        out.push(
          clientUpdate(p.sessionId, { sessionUpdate: "state_update", state: "idle", stopReason: "error", error }),
        );
    }
    this.prompts.clear();
    return out;
  }

  heard(): readonly Outgoing[] {
    return NOTHING;
  }

  willBlock(): readonly Outgoing[] {
    return NOTHING;
  }

  blocking(): () => readonly Outgoing[] {
    return () => NOTHING;
  }

  /** The bridge forwards the agent's own snapshot. */
  snapshot(): readonly Outgoing[] {
    return NOTHING;
  }

  /** The real agent answers `session/status` with its own state. */
  state(): undefined {
    return undefined;
  }
}
