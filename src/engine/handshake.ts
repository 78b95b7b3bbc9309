// Version negotiation (H §1.3 bridge as agent, §1.4 bridge as client). The client's version comes
// from its request; the agent's is probed: the client's own version first (pass-through when the
// agent speaks it), the other one on the agent's answer, on -32022, or on a strict -32600/-32602.
// Agents of either upstream answering rule are handled.
import { answeredVersion, clientFacingVersion, retryVersionFrom } from "../convert/initialize.js";
import { isObject } from "../base/json.js";
import { ErrorCodes, rpcErrors } from "../base/errors.js";
import type { ResponseMessage, RpcError } from "../wire/jsonrpc.js";
import type { Link } from "./link.js";
import type { Translator } from "./translator.js";
import { methodRow } from "../../mappings/methods.js";
import { inputProblem, resultProblem } from "./guard.js";

export type ProtocolChoice = "auto" | 1 | 2;
export type Version = 1 | 2;

/** How one pairing (client version, agent version) renders the handshake and starts its mode. */
export interface Pairing {
  /** The client's initialize params in the shape of the agent's version. */
  readonly renderInit: (clientParams: Record<string, unknown>) => { params: unknown } | { error: RpcError };
  /** Turn the agent's initialize result into the client's, and build the translator. */
  readonly accept: (
    clientParams: Record<string, unknown>,
    agentResult: Record<string, unknown>,
  ) => { clientResult: unknown; createTranslator: (client: Link, agent: Link) => Translator } | { error: RpcError };
}

export interface HandshakeConfig {
  readonly agentProtocol: ProtocolChoice;
  readonly clientProtocol: ProtocolChoice;
  readonly handshakeTimeoutMs: number;
  /** The pairing for client version `c` and agent version `a`. */
  pairing(c: Version, a: Version): Pairing;
}

export interface Negotiated {
  readonly clientVersion: Version;
  readonly agentVersion: Version;
  readonly clientResult: unknown;
  readonly createTranslator: (client: Link, agent: Link) => Translator;
}

const other = (v: Version): Version => (v === 1 ? 2 : 1);

/** H §1.3: the version the bridge speaks with the client, unless the user forced one. */
function clientVersion(params: unknown, forced: ProtocolChoice): { version: Version } | { error: RpcError } {
  const r = clientFacingVersion(params);
  if (!r.ok) return { error: r.error };
  return { version: forced === "auto" ? r.value.version : forced };
}

class Deadline {
  private readonly at: number;
  constructor(ms: number) {
    this.at = Date.now() + ms;
  }
  call(link: Link, method: string, params: unknown): Promise<ResponseMessage | "timeout"> {
    const left = Math.max(0, this.at - Date.now());
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve("timeout"), left);
      void link.call(method, params).then((r) => {
        clearTimeout(timer);
        resolve(r);
      });
    });
  }
}

function protocolOf(resp: ResponseMessage): unknown {
  return isObject(resp.result) ? resp.result.protocolVersion : undefined;
}

function asRecord(x: unknown): Record<string, unknown> {
  return isObject(x) ? x : {};
}

/** Run the handshake for a client `initialize`. */
export async function negotiate(
  config: HandshakeConfig,
  agent: Link,
  rawParams: unknown,
): Promise<Negotiated | { error: RpcError }> {
  const cv = clientVersion(rawParams, config.clientProtocol);
  if ("error" in cv) return cv;
  const vc = cv.version;
  const clientParams = asRecord(rawParams);
  const deadline = new Deadline(config.handshakeTimeoutMs);

  const send = async (v: Version): Promise<ResponseMessage | { error: RpcError }> => {
    // Rendered in the other version, a `_meta` that is no object would reach the agent as invalid
    // as it came (the translating modes' input guard, engine/guard.ts, starts after the handshake).
    const row = methodRow(vc, "initialize");
    const problem = v === vc || row === undefined ? undefined : inputProblem(row, rawParams);
    if (problem) return { error: rpcErrors.invalidParams(problem) };
    const rendered = config.pairing(vc, v).renderInit(clientParams);
    if ("error" in rendered) return { error: rendered.error };
    const r = await deadline.call(agent, "initialize", rendered.params);
    if (r === "timeout")
      return { error: rpcErrors.internal("Agent handshake failed", { reason: "agent handshake timed out" }) };
    return r;
  };
  const isResp = (r: ResponseMessage | { error: RpcError }): r is ResponseMessage => "jsonrpc" in r;

  let sent: Version = config.agentProtocol === "auto" ? vc : config.agentProtocol;
  let resp = await send(sent);
  let retriedShape = false;
  let retried32022 = false;

  for (;;) {
    if (!isResp(resp)) return resp;
    if (resp.error) {
      const e = resp.error;
      if (e.code === ErrorCodes.unsupportedProtocolVersion && !retried32022) {
        retried32022 = true;
        const v = retryVersionFrom(e.data);
        if (v === undefined || v === sent)
          return {
            error: rpcErrors.internal("Agent handshake failed", {
              reason: "agent supports no protocol version the bridge speaks",
              supported: isObject(e.data) ? e.data.supported : undefined,
            }),
          };
        sent = v;
        resp = await send(sent);
        continue;
      }
      if ((e.code === ErrorCodes.invalidParams || e.code === ErrorCodes.invalidRequest) && !retriedShape) {
        retriedShape = true;
        sent = other(sent);
        resp = await send(sent);
        continue;
      }
      return { error: e };
    }
    const pv = answeredVersion(resp.result);
    if (pv === undefined)
      return {
        error: rpcErrors.internal("Agent handshake failed", {
          reason: "agent answered an unsupported protocol version",
          agentProtocolVersion: protocolOf(resp),
        }),
      };
    if (pv !== sent) {
      // The agent parsed a body of the other version's shape: speak its version properly.
      const first = resp;
      sent = pv;
      const again = await send(sent);
      if (isResp(again) && !again.error && answeredVersion(again.result) === pv) resp = again;
      else if (pv === 1)
        resp = first; // v1 agent refused a repeat: keep what it answered (reduced caps)
      else
        return isResp(again)
          ? {
              error:
                again.error ??
                rpcErrors.internal("Agent handshake failed", { reason: "agent failed the repeated initialize" }),
            }
          : again;
    }
    // Likewise the agent's answer, before it is rendered in the client's version.
    const bad = sent === vc ? undefined : resultProblem(resp.result);
    if (bad)
      return {
        error: rpcErrors.internal("Agent handshake failed", {
          reason: "malformed_result",
          field: bad.field,
          detail: bad.reason,
        }),
      };
    const accepted = config.pairing(vc, sent).accept(clientParams, asRecord(resp.result));
    if ("error" in accepted) return accepted;
    return {
      clientVersion: vc,
      agentVersion: sent,
      clientResult: accepted.clientResult,
      createTranslator: accepted.createTranslator,
    };
  }
}
