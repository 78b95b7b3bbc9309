// Direction B's session half where a v1 agent lacks the v2 baseline (H §2.3): `session/resume`
// through `session/load` or answered locally, `session/list` from the sessions this bridge has
// seen, `session/close` as a cancel; and the close that drains a running turn first (T §1.4-9).
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { isObject, jsonEqual, type Obj, withMembers, copyMembers } from "../../base/json.js";
import { agentConfigFromResult } from "../../convert/mode.js";
import { listSessionsRequestToV1, listSessionsResponseToV2, resumeSessionRequestToV1 } from "../../convert/session.js";
import { ErrorCodes, rpcErrors, sessionNotFound } from "../../base/errors.js";
import { loadResponseToResumeResult, resumeSessionResponseToV2 } from "../../convert/session-result.js";
import { STASH_KEY } from "../../convert/stash.js";
import type { RequestMessage, ResponseMessage } from "../../wire/jsonrpc.js";
import { answer, noSessionId, NOTHING, notify, rejected, request, type Outgoing } from "../outgoing.js";
import type { Answer, Inbound } from "../relay.js";
import { malformed, objectResult } from "../translating.js";
import { mcp, refused, roots, type EngineB } from "./context.js";
import type { SessionB } from "./session.js";
import { isBridgeMade, noteLost, resultKind } from "../observer.js";
import { boundary, clientUpdate } from "./updates/index.js";

/** Marks a result the bridge made up for a method the agent lacks. */
function emulatedMeta(method: string): Obj {
  return { [STASH_KEY]: { emulated: method } };
}

interface LiveInfo {
  readonly title: string | undefined;
  readonly updatedAt: string | undefined;
}

/** The session info the client has, forgotten until the agent (or `resendInfo`) reports it again. */
function takeInfo(s: SessionB): LiveInfo {
  const live = { title: s.title, updatedAt: s.updatedAt };
  s.title = undefined;
  s.updatedAt = undefined;
  return live;
}

/**
 * After a resume result: the session info (title) the client had live, where the agent did not
 * report it again during the resume (a v1 `session/resume` replays nothing, H §2.3).
 */
function resendInfo(b: EngineB, s: SessionB, live: LiveInfo): readonly Outgoing[] {
  const update: Obj = { sessionUpdate: "session_info_update" };
  if (s.title === undefined && live.title !== undefined) update.title = s.title = live.title;
  if (s.updatedAt === undefined && live.updatedAt !== undefined) update.updatedAt = s.updatedAt = live.updatedAt;
  // An A bridge's v1 client keeps its view through a load, as it would with a direct v1 agent.
  if (Object.keys(update).length > 1 && !b.clientIsBridge) return [clientUpdate(s.sessionId, update)];
  return NOTHING;
}

/** H §2.3 and §4.4: forward, load with or without the history, answer locally, or refuse. */
export function resume(b: EngineB, msg: RequestMessage, params: Obj): readonly Outgoing[] {
  const sessionId = params.sessionId;
  if (typeof sessionId !== "string") return noSessionId(msg);
  const replayFrom = params.replayFrom;
  const wantsReplay = replayFrom !== undefined && replayFrom !== null;
  const f = b.flags;
  const viaLoad = !wantsReplay && !f.resume && f.load;
  if (wantsReplay && !f.load && isObject(replayFrom) && replayFrom.type === "start")
    return refused(msg, rpcErrors.invalidParams({ field: "replayFrom", reason: "replay not supported by agent" }));
  const r = resumeSessionRequestToV1(params as v2.ResumeSessionRequest, {
    ...b.toAgent,
    ...roots(b),
    ...mcp(b),
    viaLoad,
  });
  if (!r.ok) return rejected(msg, r.error);
  noteLost(b.config.observer, msg.method, "client", params, r);
  const s = b.session(sessionId);
  if (!wantsReplay && !f.resume && !f.load) return resumeLocally(b, msg, s, params);
  if (viaLoad) b.config.observer?.emulated(msg.method, "through the v1 agent's session/load, its replay withheld");
  const { method, params: out } = r.value;
  // Revived now, so its replay is forwarded; a failed resume leaves it closed.
  const wasClosed = s.closed;
  // What the client had live: whatever the agent does not say again during the resume is re-sent.
  const info = takeInfo(s);
  s.closed = false;
  s.prompts.loadStarted();
  const before: Outgoing[] = [];
  if (method === "session/load") {
    before.push(...boundary(s));
    s.resetForReplay();
    s.suppressHistory = !wantsReplay;
  }
  const entry = b.down.local(msg);
  const resumed = (resp: ResponseMessage): readonly Outgoing[] => {
    s.prompts.loadEnded();
    s.suppressHistory = false;
    const done = boundary(s);
    if (entry.answered) return done;
    if (resp.error) {
      s.closed = wasClosed;
      s.title ??= info.title;
      s.updatedAt ??= info.updatedAt;
      return [
        ...done,
        answer("client", entry, { error: b.errorForClient(resp.error, sessionId), relayed: !isBridgeMade(resp) }),
        ...s.prompts.next(),
      ];
    }
    const ctx = s.availableCommands !== undefined ? { availableCommands: s.availableCommands } : {};
    const conv =
      method === "session/load"
        ? loadResponseToResumeResult(resp.result, ctx, b.toClient)
        : resumeSessionResponseToV2(resp.result, ctx, b.toClient);
    if (!conv.ok) return [...done, answer("client", entry, malformed(method, conv.error.data))];
    noteLost(b.config.observer, resultKind(method), "agent", resp.result, conv);
    s.record(params);
    s.config = agentConfigFromResult(resp.result);
    s.rememberCommands(conv.value);
    const result: Obj = copyMembers(conv.value);
    if (viaLoad) result._meta = withMembers(isObject(result._meta) ? result._meta : {}, emulatedMeta("session/resume"));
    // A v2 resume response is preceded by a state snapshot (T §1.4-10).
    return [
      ...done,
      ...b.turns.snapshot(s),
      answer("client", entry, { result }),
      ...resendInfo(b, s, info),
      ...s.prompts.next(),
    ];
  };
  return [
    ...before,
    request(
      "agent",
      method,
      out,
      (resp) => b.write(resumed(resp)),
      (id) => (entry.outboundId = id),
    ),
  ];
}

/** Neither resume nor load: answered for a session live on this connection with the same parameters. */
function resumeLocally(b: EngineB, msg: RequestMessage, s: SessionB, params: Obj): readonly Outgoing[] {
  const live = !s.closed && s.params.cwd !== undefined;
  if (!live) return rejected(msg, sessionNotFound(s.sessionId));
  const same =
    jsonEqual(s.params.cwd, params.cwd) &&
    jsonEqual(s.params.additionalDirectories ?? [], params.additionalDirectories ?? []) &&
    jsonEqual(s.params.mcpServers ?? [], params.mcpServers ?? []);
  if (!same) return refused(msg, rpcErrors.invalidParams({ reason: "agent cannot re-apply session parameters" }));
  const entry = b.down.local(msg);
  b.config.observer?.emulated(msg.method, "answered by the bridge: the session is live on this connection");
  const result: Obj = { _meta: emulatedMeta("session/resume") };
  if (s.availableCommands !== undefined) result.availableCommands = s.availableCommands;
  return [...b.turns.snapshot(s), answer("client", entry, { result }), ...resendInfo(b, s, takeInfo(s))];
}

export function list(b: EngineB, msg: RequestMessage, params: Obj): readonly Outgoing[] {
  const r = listSessionsRequestToV1(params, withMembers(b.toAgent, roots(b)));
  if (!r.ok) return rejected(msg, r.error);
  noteLost(b.config.observer, msg.method, "client", params, r);
  const filter = r.value.directoriesFilter;
  const keep = <T extends { additionalDirectories?: unknown }>(sessions: T[]): T[] =>
    filter === undefined ? sessions : sessions.filter((i) => jsonEqual(i.additionalDirectories ?? [], filter));
  if (!b.flags.list) {
    // Emulated from the sessions this bridge has seen: incomplete by nature (H §2.3).
    const cwd = params.cwd;
    const sessions: Obj[] = [];
    for (const s of b.sessions()) {
      if (s.closed || typeof s.params.cwd !== "string") continue;
      if (typeof cwd === "string" && s.params.cwd !== cwd) continue;
      const info: Obj = { sessionId: s.sessionId, cwd: s.params.cwd };
      if (Array.isArray(s.params.additionalDirectories) && s.params.additionalDirectories.length > 0)
        info.additionalDirectories = s.params.additionalDirectories;
      if (s.title !== undefined) info.title = s.title;
      if (s.updatedAt !== undefined) info.updatedAt = s.updatedAt;
      sessions.push(info);
    }
    const entry = b.down.local(msg);
    b.config.observer?.emulated(msg.method, "answered by the bridge from the sessions it has seen");
    return [answer("client", entry, { result: { sessions: keep(sessions), _meta: emulatedMeta("session/list") } })];
  }
  b.down.forward(msg, "session/list", r.value.params, (resp) => {
    if (resp.error) return { error: resp.error };
    const conv = listSessionsResponseToV2(resp.result, b.toClient);
    if (!conv.ok) return malformed("session/list", conv.error.data);
    noteLost(b.config.observer, resultKind("session/list"), "agent", resp.result, conv);
    const result = conv.value;
    return {
      result: Array.isArray(result.sessions) ? withMembers(result, { sessions: keep(result.sessions) }) : result,
    };
  });
  return NOTHING;
}

/** T §1.4-9 and H §2.3: held prompts -32800, the turn ends cancelled, then the close answer. */
export function close(b: EngineB, msg: RequestMessage, params: Obj): readonly Outgoing[] {
  const sessionId = params.sessionId;
  if (typeof sessionId !== "string") return noSessionId(msg);
  const s = b.known(sessionId);
  const out = s ? s.prompts.dropHeld() : [];
  const entry = b.down.local(msg);
  const finish = (a: Answer): readonly Outgoing[] => closed(s, entry, a);
  const afterTurn = (then: () => readonly Outgoing[]) =>
    s ? s.prompts.afterTurn(b.config.closeDrainMs, then) : then();
  if (b.flags.close) {
    const closedByAgent = (resp: ResponseMessage) => {
      if (entry.answered) return;
      // Clients treat -32002 on close as success (H §4.7).
      const a = resp.error
        ? resp.error.code !== ErrorCodes.resourceNotFound
          ? { error: resp.error, relayed: !isBridgeMade(resp) }
          : { result: {} }
        : objectResult(resp);
      b.write(afterTurn(() => finish(a)));
    };
    return [...out, request("agent", "session/close", params, closedByAgent, (id) => (entry.outboundId = id))];
  }
  b.config.observer?.emulated(msg.method, "answered by the bridge, a running turn cancelled first");
  if (s?.prompts.busy) out.push(notify("agent", "session/cancel", { sessionId }));
  return [...out, ...afterTurn(() => finish({ result: { _meta: emulatedMeta("session/close") } }))];
}

/** The close is answered once the turn is over; prompts held while it drained end with the session. */
function closed(s: SessionB | undefined, entry: Inbound, a: Answer): readonly Outgoing[] {
  if (!s) return [answer("client", entry, a)];
  s.closed = true;
  return [...s.prompts.closed(), answer("client", entry, a), ...s.prompts.dropHeld()];
}
