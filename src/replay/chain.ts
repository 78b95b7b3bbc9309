// The engine of `acp-bridge convert`: one recorded connection (version X) replayed through two
// in-process bridges, the very engine a live bridge runs (src/engine/bridge.ts):
//
//   recorded client (X) → bridge 1 [client X, agent Y] → middle (Y) → bridge 2 [client Y, agent X] → recorded agent (X)
//
// The middle wire is the output. The recorded client's messages go into bridge 1's client side, the
// recorded agent's into bridge 2's agent side, one at a time, each after the engines went quiet.
// The bridges allocate their own ids toward the recorded peers: a request reaching an end is matched
// to that peer's next request of the same method the recording holds, and the recorded answer is
// fed under the bridge's id. On the middle, the driver picks the ids: a request that is the
// translation of recorded request R carries R's id, so a round trip gives the original ids back.
import { isObject, type Obj } from "../base/json.js";
import { Bridge } from "../engine/bridge.js";
import { createBridgeConfig } from "../engine/config.js";
import { createLogger } from "../log.js";
import { DEFAULT_OPTIONS } from "../options.js";
import { BRIDGE_METHOD_PREFIX, methodRow, type Route } from "../../mappings/methods.js";
import { STASH_KEY } from "../convert/stash.js";
import { KEY_ORDER_KEY, keyOrderOf, restoreKeyOrder } from "../wire/key-order.js";
import type { Role } from "../recording/forms.js";

export type Version = 1 | 2;
type StashChoice = "full" | "off";

/** One recorded message and where it came from. */
export interface Recorded {
  readonly from: Role;
  readonly msg: Obj;
  readonly line: number;
}

/** A message of the output: sent on the middle by `from`'s side, caused by recorded line `line`. */
interface Written {
  readonly from: Role;
  readonly msg: Obj;
  readonly cause: number;
}

/** A message not carried over, and why. */
export interface Skipped {
  readonly line: number;
  readonly what: string;
  readonly why: string;
  /** The engine refused it (status 1), rather than a known loss of the version. */
  readonly refused: boolean;
}

export interface ChainOptions {
  readonly from: Version;
  readonly to: Version;
  readonly stash: StashChoice;
  /**
   * The recording is itself the wire between two bridges (its `initialize` carries a bridge's
   * marker): the chain's bridges stand in for those and face each other as plain peers.
   */
  readonly recordedBetweenBridges: boolean;
  /** Bound of every map of unanswered requests (the oldest is forgotten past it). */
  readonly maxPending: number;
  readonly write: (w: Written) => void;
  readonly skip: (s: Skipped) => void;
  /** Sees what the bridges send each recorded peer (not part of the output). */
  readonly atEnd?: (to: Role, msg: Obj) => void;
}

/** A recorded request on its way: fed to a bridge, not yet matched to a message of the chain. */
interface Open {
  readonly id: unknown;
  readonly method: string;
  readonly line: number;
}

const key = (id: unknown): string => JSON.stringify(id) ?? "undefined";

/** A bounded first-in first-out list of open requests, looked up by method. */
class OpenList {
  private readonly items = new Map<string, Open>();
  constructor(private readonly max: number) {}
  add(o: Open): void {
    this.items.delete(key(o.id));
    this.items.set(key(o.id), o);
    if (this.items.size > this.max) {
      const oldest = this.items.keys().next().value;
      if (oldest !== undefined) this.items.delete(oldest);
    }
  }
  /** The oldest open request `matches` accepts, taken off the list. */
  take(matches: (o: Open) => boolean): Open | undefined {
    for (const [k, o] of this.items)
      if (matches(o)) {
        this.items.delete(k);
        return o;
      }
    return undefined;
  }
  remove(id: unknown): Open | undefined {
    const o = this.items.get(key(id));
    this.items.delete(key(id));
    return o;
  }
}

/** A bounded map (oldest forgotten first). */
class Bounded<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  set(k: string, v: V): void {
    this.map.delete(k);
    this.map.set(k, v);
    if (this.map.size > this.max) {
      const oldest = this.map.keys().next().value;
      if (oldest !== undefined) this.map.delete(oldest);
    }
  }
  take(k: string): V | undefined {
    const v = this.map.get(k);
    this.map.delete(k);
    return v;
  }
  get(k: string): V | undefined {
    return this.map.get(k);
  }
}

/** What one side's bridge did with the recorded requests of its peer. */
interface Side {
  /** The bridge this side's recorded peer talks to (client: bridge 1, agent: bridge 2). */
  readonly bridge: Bridge;
  /** Recorded requests of this peer not yet carried onto the middle (their middle id is theirs). */
  readonly unclaimed: OpenList;
  /** Recorded requests of this peer not yet seen arriving at the other end. */
  readonly unarrived: OpenList;
  /** Recorded requests of the OTHER peer, by recorded id: the id the near bridge gave them toward this peer. */
  readonly endIds: Bounded<unknown>;
  /** Why a recorded request of this peer never reached the other end: the bridge answered it. */
  readonly answeredHere: Bounded<string>;
  /** Middle ids of this side's bridge's requests → the bridge's own id. */
  readonly middleIds: Bounded<{ own: unknown; written: boolean }>;
  /** The reverse: the bridge's own id → the middle id (its `$/cancel_request` names its own). */
  readonly byOwn: Bounded<unknown>;
  /** Middle ids of requests not written (no recorded counterpart): their answers are not written either. */
  readonly unwritten: Bounded<true>;
}

/** The route of `method` sent by `from` into a bridge whose client speaks `clientVersion`. */
function routeOf(clientVersion: Version, from: Role, agentVersion: Version, method: string): Route | undefined {
  if (clientVersion === agentVersion) return "forward";
  const senderVersion = from === "client" ? clientVersion : agentVersion;
  const row = methodRow(senderVersion, method);
  if (!row) return undefined;
  return clientVersion === 1 ? row.a : row.b;
}

/** The name `method` of version `from` has in version `to` (itself for extension and unknown methods). */
function counterpart(method: string, from: Version, to: Version): string {
  if (from === to) return method;
  const row = methodRow(from, method);
  const name = row?.[to === 1 ? "v1" : "v2"];
  return name ?? method;
}

function errorText(e: unknown): string {
  if (!isObject(e)) return "an error";
  const data = isObject(e.data) && typeof e.data.reason === "string" ? ` (${e.data.reason})` : "";
  return `${typeof e.message === "string" ? e.message : "an error"}${data}`;
}

/** A chained A bridge's ack of a prompt to a B bridge (T §5.5): it names the prompt by its request id. */
const PROMPT_ACCEPTED = `${BRIDGE_METHOD_PREFIX}prompt_accepted`;

/**
 * Messages whose `params.requestId` names a request their sender RECEIVED (from the other peer):
 * the bridges know it by another id than the recording's, and than each other's. (`$/cancel_request`
 * names one its sender sent: handled apart.)
 */
const NAMES_RECEIVED: ReadonlySet<string> = new Set([PROMPT_ACCEPTED, "elicitation/create"]);

/** `msg` with `params.requestId` replaced by `map`'s answer for it (`msg` itself when it has none). */
function withRequestId(msg: Obj, map: (id: unknown) => unknown): Obj {
  const params = isObject(msg.params) ? msg.params : undefined;
  if (params === undefined || !NAMES_RECEIVED.has(String(msg.method)) || !("requestId" in params)) return msg;
  const id = map(params.requestId);
  return id === undefined ? msg : { ...msg, params: { ...params, requestId: id } };
}

const MARKER_KEYS = ["bridge", "clientProtocol", "agentProtocol"];

/** `msg` with the key order of `recorded` (of version `version`) recorded in its params' `_meta`. */
function withKeyOrderOf(msg: Obj, recorded: Obj | undefined, version: Version): Obj {
  const record = recorded === undefined ? undefined : keyOrderOf(recorded, version);
  if (record === undefined || !isObject(msg.params)) return msg;
  const meta = isObject(msg.params._meta) ? msg.params._meta : {};
  return { ...msg, params: { ...msg.params, _meta: { ...meta, [KEY_ORDER_KEY]: record } } };
}

/** `holder._meta` without a bridge's marker (nor `_meta` itself when the source had none, as the envelope says). */
function withoutMarker(holder: unknown): void {
  if (!isObject(holder) || !isObject(holder._meta)) return;
  const meta = holder._meta;
  const mine = meta[STASH_KEY];
  if (!isObject(mine)) return;
  const had = mine.hadMeta !== false;
  for (const k of MARKER_KEYS) Reflect.deleteProperty(mine, k);
  // The envelope the marker rode in, when it carries nothing else.
  if (mine.residual === undefined && mine.synthetic === undefined) Reflect.deleteProperty(meta, STASH_KEY);
  if (Object.keys(meta).length === 0 && !had) Reflect.deleteProperty(holder, "_meta");
}

export class Chain {
  private readonly client: Side;
  private readonly agent: Side;
  /** Lines between the bridges, delivered in order once the current one is handled (never re-entrant). */
  private readonly queue: { to: "b1" | "b2"; msg: Obj }[] = [];
  private activity = 0;
  private cause = 0;
  private generated = 0;
  private ended = false;
  /** Whether the bridges see each other as bridges (their markers cross the middle). */
  private readonly peers: boolean;
  private recordedInit: { request: Obj | undefined; answer: Obj | undefined } = {
    request: undefined,
    answer: undefined,
  };
  private initMiddleId: unknown;
  /** The recorded request being fed, while it is. */
  private feeding: { from: Role; open: Open } | undefined;

  constructor(private readonly opts: ChainOptions) {
    const log = createLogger("silent", () => undefined);
    this.peers = opts.stash === "full" && !opts.recordedBetweenBridges;
    const make = (clientProtocol: Version, agentProtocol: Version) =>
      createBridgeConfig(
        {
          ...DEFAULT_OPTIONS,
          clientProtocol,
          agentProtocol,
          // Bridges that see each other stash what the middle version cannot carry (auto: full
          // between them, nothing toward the recorded peers); plain ones stash nothing.
          stash: this.peers ? "auto" : "off",
          editorTools: "off",
          replay: true,
        },
        log,
      );
    const b1: Bridge = new Bridge(
      make(opts.from, opts.to),
      { push: (l) => this.atEnd("client", l) },
      { push: (l) => this.onMiddle("client", l) },
    );
    const b2: Bridge = new Bridge(
      make(opts.to, opts.from),
      { push: (l) => this.onMiddle("agent", l) },
      { push: (l) => this.atEnd("agent", l) },
    );
    const side = (bridge: Bridge): Side => ({
      bridge,
      unclaimed: new OpenList(opts.maxPending),
      unarrived: new OpenList(opts.maxPending),
      endIds: new Bounded(opts.maxPending),
      answeredHere: new Bounded(opts.maxPending),
      middleIds: new Bounded(opts.maxPending),
      byOwn: new Bounded(opts.maxPending),
      unwritten: new Bounded(opts.maxPending),
    });
    this.client = side(b1);
    this.agent = side(b2);
  }

  /** Feeds one recorded message and lets the engines settle. */
  async feed(r: Recorded): Promise<void> {
    this.cause = r.line;
    const near = r.from === "client" ? this.client : this.agent;
    const far = r.from === "client" ? this.agent : this.client;
    const m = r.msg;
    const line = (o: Obj) => Buffer.from(JSON.stringify(o));
    const feedNear = (o: Obj) =>
      r.from === "client" ? near.bridge.clientLine(line(o)) : near.bridge.agentLine(line(o));
    if (typeof m.method === "string") {
      if (m.id !== undefined) {
        const open = { id: m.id, method: m.method, line: r.line };
        near.unclaimed.add(open);
        near.unarrived.add(open);
        if (m.method === "initialize" && r.from === "client") this.recordedInit.request = m;
        this.feeding = { from: r.from, open };
      }
      // The recorded peer names a request it received by the recorded id: the bridge sent it under its own.
      feedNear(withRequestId(m, (id) => near.endIds.get(key(id))));
    } else if (m.id !== undefined) {
      // An answer of the recorded peer to a request of the other: under the id the bridge gave it.
      let answer = m;
      if (
        r.from === "agent" &&
        key(m.id) === key(this.recordedInit.request?.id) &&
        this.recordedInit.answer === undefined
      ) {
        this.recordedInit.answer = m;
        // A recorded bridge answering a plain client named itself but spoke to it as to a plain
        // client (no channel, T §5.5): the bridge facing it must not wait for that channel.
        if (!this.opts.recordedBetweenBridges && isObject(m.result)) {
          answer = { ...m, result: structuredClone(m.result) };
          withoutMarker(answer.result);
        }
      }
      const own = near.endIds.take(key(m.id));
      if (own === undefined) {
        const why = far.answeredHere.take(key(m.id));
        this.opts.skip({
          line: r.line,
          what: `the ${r.from}'s answer to request ${key(m.id)}`,
          why:
            why === undefined
              ? `the request never reached the ${r.from} through the bridges`
              : `the bridge answered the request itself: ${why}`,
          refused: false,
        });
      } else feedNear({ ...answer, id: own });
    } else
      this.opts.skip({
        line: r.line,
        what: "a message",
        why: "neither a request, a notification nor a response",
        refused: true,
      });
    await this.settle();
    this.feeding = undefined;
  }

  /** The recording ended: what the bridges still hold is wound down, nothing more is written. */
  end(): void {
    this.ended = true;
    const gone = { code: 0, signal: null };
    this.client.bridge.clientGone();
    this.agent.bridge.agentGone(gone);
    this.agent.bridge.clientGone();
    this.client.bridge.agentGone(gone);
  }

  private async settle(): Promise<void> {
    for (let quiet = 0; quiet < 2;) {
      const before = this.activity;
      for (let next = this.queue.shift(); next !== undefined; next = this.queue.shift()) {
        const l = Buffer.from(JSON.stringify(next.msg));
        if (next.to === "b2") this.agent.bridge.clientLine(l);
        else this.client.bridge.agentLine(l);
      }
      await new Promise((r) => setImmediate(r));
      quiet = this.activity === before && this.queue.length === 0 ? quiet + 1 : 0;
    }
  }

  /** A message a bridge wrote on the middle: `from` is the side of the bridge that wrote it. */
  private onMiddle(from: Role, raw: string | Buffer): void {
    this.activity++;
    if (this.ended) return;
    const msg = JSON.parse(String(raw)) as Obj;
    const side = from === "client" ? this.client : this.agent;
    const other = from === "client" ? this.agent : this.client;
    const to = from === "client" ? "b2" : "b1";
    const versionOfMiddle = this.opts.to;
    if (typeof msg.method === "string" && msg.id !== undefined) {
      const own = msg.id;
      const method = msg.method;
      // The oldest recorded request of that name's counterpart; else the one being fed, translated
      // into another method (v1 `session/load` is a v2 `session/resume`).
      const feeding = this.feeding;
      const claimed =
        side.unclaimed.take((o) => counterpart(o.method, this.opts.from, versionOfMiddle) === method) ??
        (feeding !== undefined && feeding.from === from ? side.unclaimed.take((o) => o === feeding.open) : undefined);
      const id = claimed?.id ?? `acp-bridge-convert:${String(++this.generated)}`;
      side.middleIds.set(key(id), { own, written: claimed !== undefined });
      side.byOwn.set(key(own), id);
      let out: Obj = { ...msg, id };
      let written = out;
      if (method === "initialize" && from === "client") {
        this.initMiddleId = id;
        // The handshake's request is sent before the bridges keep key order (wire/key-order.ts): the
        // recorded request's order rides on the output, and is put back when it is converted back.
        if (!this.peers) withoutMarker(out.params);
        out = restoreKeyOrder(out, versionOfMiddle) as Obj;
        written = this.peers ? withKeyOrderOf(out, this.recordedInit.request, this.opts.from) : out;
      }
      if (claimed !== undefined) this.opts.write({ from, msg: written, cause: this.cause });
      else {
        side.unwritten.set(key(id), true);
        this.opts.skip({
          line: this.cause,
          what: `a '${method}' request of the bridge`,
          why: "the bridge's own call, with no recorded counterpart",
          refused: false,
        });
      }
      // A request it received, named by its middle id: the requester's own id for it.
      this.queue.push({ to, msg: withRequestId(out, (id) => other.middleIds.get(key(id))?.own) });
      return;
    }
    if (typeof msg.method === "string") {
      const params = isObject(msg.params) ? msg.params : undefined;
      if (params !== undefined && msg.method === "$/cancel_request") {
        // It names a request of its sender's bridge by that bridge's own id: the middle id is written.
        const middle = side.byOwn.get(key(params.requestId));
        const out = middle === undefined ? msg : { ...msg, params: { ...params, requestId: middle } };
        if (middle === undefined || side.middleIds.get(key(middle))?.written === true)
          this.opts.write({ from, msg: out, cause: this.cause });
        this.queue.push({ to, msg: out });
        return;
      }
      this.opts.write({ from, msg, cause: this.cause });
      // It names a request the sender received, by its middle id: the requester's own id for it.
      this.queue.push({ to, msg: withRequestId(msg, (id) => other.middleIds.get(key(id))?.own) });
      return;
    }
    // An answer to a middle request of the other side's bridge: written under the middle id, handed
    // to that bridge under its own.
    const asked = other.middleIds.take(key(msg.id));
    // The answer to a recorded request that never reached the far end: that bridge answered it itself.
    if (asked?.written === true) {
      const open = other.unarrived.remove(msg.id);
      if (open !== undefined)
        other.answeredHere.set(
          key(msg.id),
          "error" in msg ? errorText(msg.error) : "answered by the bridge (emulated)",
        );
    }
    if (key(msg.id) === key(this.initMiddleId) && from === "agent" && !this.peers) withoutMarker(msg.result);
    if (asked?.written === true) this.opts.write({ from, msg, cause: this.cause });
    this.queue.push({ to, msg: asked === undefined ? msg : { ...msg, id: asked.own } });
  }

  /** A message a bridge wrote toward a recorded peer: `to` names that peer. */
  private atEnd(to: Role, raw: string | Buffer): void {
    this.activity++;
    if (this.ended) return;
    const msg = JSON.parse(String(raw)) as Obj;
    this.opts.atEnd?.(to, msg);
    const peerSide = to === "client" ? this.client : this.agent;
    const otherSide = to === "client" ? this.agent : this.client;
    if (typeof msg.method === "string" && msg.id !== undefined) {
      // A request toward the recorded peer: the other peer's recorded request it stands for.
      const method = msg.method;
      const recorded = otherSide.unarrived.take((o) => o.method === method);
      if (recorded === undefined)
        this.opts.skip({
          line: this.cause,
          what: `a '${method}' request of the bridge to the ${to}`,
          why: `the ${to} never answered it in the recording (the bridge's own call)`,
          refused: false,
        });
      else peerSide.endIds.set(key(recorded.id), msg.id);
      return;
    }
    if (typeof msg.method === "string" || msg.id === undefined) return;
    // An answer to a recorded request of this peer: given by the bridge itself when that request
    // never reached the other end.
    // Carried onto the middle: the answer is the far side's, or the bridge's own ack (a v2 prompt).
    if (peerSide.unclaimed.remove(msg.id) === undefined) return;
    const open = peerSide.unarrived.remove(msg.id);
    if (open === undefined) return;
    const bridgeClient = to === "client" ? this.opts.from : this.opts.to;
    const bridgeAgent = to === "client" ? this.opts.to : this.opts.from;
    const route = routeOf(bridgeClient, to, bridgeAgent, open.method);
    if ("error" in msg) {
      const why = errorText(msg.error);
      peerSide.answeredHere.set(key(msg.id), why);
      const expected = route === "refuse" || route === "n/a";
      this.opts.skip({
        line: open.line,
        what: `the ${to}'s '${open.method}' request`,
        why: expected
          ? `the bridge refuses it toward v${String(this.opts.to)}: ${why}`
          : `the bridge refused it: ${why}`,
        refused: !expected,
      });
    } else peerSide.answeredHere.set(key(msg.id), "answered by the bridge (emulated)");
  }
}
