// What a mode (pass-through, direction A, direction B) implements once the handshake is done.
import type { NotificationMessage, RequestMessage, ResponseMessage } from "../wire/jsonrpc.js";
import type { ScannedUpdate } from "../wire/update-scan.js";
import type { RequestRoute } from "./relay.js";

/** A classified message; `line` is its original bytes when it arrived alone (not in a batch). */
export type Incoming =
  | { kind: "request"; msg: RequestMessage; line?: Buffer | undefined }
  | { kind: "notification"; msg: NotificationMessage; line?: Buffer | undefined }
  | { kind: "response"; msg: ResponseMessage; line?: Buffer | undefined };

export interface ExitInfo {
  readonly code: number | null;
  readonly signal: string | null;
  /** Why the agent is gone when it is not (yet) an exit: it closed its stdout. */
  readonly reason?: "agent_closed_stdout";
}

export interface Translator {
  readonly mode: "pass" | "A" | "B";
  fromClient(m: Incoming): void;
  fromAgent(m: Incoming): void;
  /** The agent process is gone: answer what it owed, cancel what it asked. */
  agentGone(info: ExitInfo): void;
  /** Requests the client sent that are not answered yet. */
  pendingFromClient(): RequestRoute;
  /** Requests the agent sent that are not answered yet. */
  pendingFromAgent(): RequestRoute;
  /**
   * The fast path of a translating mode (fast-lines.ts): an agent `session/update` the scan proved,
   * handled exactly as the full path would handle its parsed form, and true; or false, having
   * changed nothing, and the full path takes the line.
   */
  fastUpdate?(u: ScannedUpdate): boolean;
}
