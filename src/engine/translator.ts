// What a mode (pass-through, direction A, direction B) implements once the handshake is done.
import type { Received } from "../wire/jsonrpc.js";
import type { ScannedCall } from "../wire/call-scan.js";
import type { ScannedMembers } from "../wire/member-scan.js";
import type { ScannedUpdate } from "../wire/update-scan.js";
import type { ScannedCommands } from "../wire/commands-scan.js";
import type { ProvenRests } from "../wire/proven-rests.js";
import type { Link } from "./link.js";
import type { RequestRoute } from "./relay.js";

/** A message for a translator: valid, with its line when it was read alone (wire/jsonrpc.ts). */
export type Incoming = Received;

export interface ExitInfo {
  readonly code: number | null;
  readonly signal: string | null;
  /** Why the agent is gone when it is not (yet) an exit: it closed its stdout, or its remote connection closed. */
  readonly reason?: "agent_closed_stdout" | "remote_closed";
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
  /** `fastUpdate` takes a user's message chunks too (the update scan runs for them). */
  readonly fastUserChunks?: boolean;
  /** The same for an agent's `available_commands_update` of the shape `commandsScan` proves (commands-scan.ts). */
  fastCommands?(c: ScannedCommands): boolean;
  readonly commandsScan?: (line: Buffer, maxDepth: number) => ScannedCommands | undefined;
  /**
   * Likewise for an agent `session/update` of one of `memberTags` that update-scan.ts does not take
   * and member-scan.ts proved (usage, session info, tool calls).
   */
  fastMembers?(m: ScannedMembers): boolean;
  readonly memberTags?: readonly Uint8Array[];
  /** The tags of `memberTags` also taken at any place among the update's members. */
  readonly memberTagsAnywhere?: readonly Uint8Array[];
  /**
   * How a `content` list `fastMembers` declines starts (after its `[`): the member scan gives up
   * there instead of scanning the rest of the line (member-scan.ts).
   */
  readonly memberDeclines?: readonly Uint8Array[];
  /**
   * The fast path of a call whose translation only maps its id (fast-lines.ts): a request or result
   * `line` the scan proved, handled as the full path would handle its parse, and true; or false,
   * having changed nothing. A request is handed over only once `admit` (the core's admission) took it.
   */
  fastCall?(from: Link, call: ScannedCall, line: Buffer, admit: Admit): boolean;
  /**
   * Pass-through: the rests of long agent `session/update` lines the full path forwarded as their
   * bytes (wire/proven-rests.ts), which prove the same lines again under the fast path.
   */
  readonly provenUpdates?: ProvenRests;
}

/**
 * The core's admission of a request the fast path took (bridge.ts): true, and the request is
 * admitted, when the full path would hand it to the translator; false, having done nothing, else.
 */
export type Admit = (from: Link, call: ScannedCall) => boolean;
