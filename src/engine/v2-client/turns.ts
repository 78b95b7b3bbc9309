// How direction B runs prompt turns, chosen once at the handshake: the bridge's own lifecycle
// (prompt-lifecycle.ts, T §1.4) in front of a plain v1 agent, or the lifecycle an A bridge reports
// on its channel (peer.ts, T §5.5). The engine calls the strategy where the two differ.
import type * as v1 from "@agentclientprotocol/sdk";
import type { RpcError } from "../../wire/jsonrpc.js";
import { NOTHING, type Outgoing } from "../outgoing.js";
import type { Inbound } from "../relay.js";
import type { Reported } from "./prompt-lifecycle.js";
import type { SessionB } from "./session.js";
import type { Obj } from "../../base/json.js";

export interface TurnStrategy {
  /** A v2 prompt, converted for v1 (`entry` tracks the client's request). */
  prompt(s: SessionB, entry: Inbound, params: v1.PromptRequest): readonly Outgoing[];
  /** A v1 message of the session arrived (an update, or a request naming it), before its translation. */
  heard(s: SessionB, update?: Obj): readonly Outgoing[];
  /** Before a request that blocks the turn is relayed to the client. */
  willBlock(s: SessionB): readonly Outgoing[];
  /** A relayed blocking request; the returned release runs when the client answers it. */
  blocking(s: SessionB, entry: Inbound, onCancel: unknown): () => readonly Outgoing[];
  /** Before a resume result: the state snapshot v2 requires. */
  snapshot(s: SessionB): readonly Outgoing[];
  /** The state `session/status` reports for an open session; undefined: the agent's answer stands. */
  state(s: SessionB): Reported | undefined;
  /** `_acp-bridge/prompt_accepted` from an A bridge. */
  accepted(params: Obj): readonly Outgoing[];
  /** The agent is gone: what each waiting prompt and running turn is told. */
  agentGone(sessions: Iterable<SessionB>, error: RpcError): readonly Outgoing[];
}

/** In front of a plain v1 agent: each session's own lifecycle (T §1.4). */
export class LocalTurns implements TurnStrategy {
  prompt(s: SessionB, entry: Inbound, params: v1.PromptRequest): readonly Outgoing[] {
    return s.prompts.prompt(entry, params);
  }

  heard(s: SessionB, update?: Obj): readonly Outgoing[] {
    return s.prompts.heard(update);
  }

  willBlock(s: SessionB): readonly Outgoing[] {
    return s.prompts.willBlock();
  }

  blocking(s: SessionB, entry: Inbound, onCancel: unknown): () => readonly Outgoing[] {
    return s.prompts.blocking(entry, onCancel);
  }

  snapshot(s: SessionB): readonly Outgoing[] {
    return s.prompts.snapshot();
  }

  state(s: SessionB): Reported {
    return s.prompts.reported;
  }

  /** Only an A bridge sends it; from anyone else it means nothing. */
  accepted(): readonly Outgoing[] {
    return NOTHING;
  }

  agentGone(sessions: Iterable<SessionB>, error: RpcError): readonly Outgoing[] {
    const out: Outgoing[] = [];
    for (const s of sessions) out.push(...s.prompts.agentGone(error));
    return out;
  }
}
