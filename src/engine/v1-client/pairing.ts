// The handshake of direction A (H §1.5, §2): the v1 client's initialize rendered for the v2 agent,
// the agent's answer rendered for the client, and the flags the translation depends on.
import { agentFlagsFromV2, clientCapabilitiesToV2, clientFlagsFromV1 } from "../../convert/capabilities.js";
import { bridgeMarkerOf, initializeRequestToV2, initializeResponseToV1 } from "../../convert/initialize.js";
import { isObject } from "../../base/json.js";
import { optionsToward } from "../../convert/stash.js";
import { VERSION } from "../../version.js";
import { rpcErrors } from "../../base/errors.js";
import { recordKeyOrder } from "../../wire/key-order.js";
import type { Pairing } from "../handshake.js";
import { noteLost, resultKind } from "../observer.js";
import { DirectionA, type AConfig, type AgentFlagsA } from "./engine.js";
import type { ClientFlags } from "./updates/index.js";
import type { Obj } from "../../base/json.js";

function clientFlagsA(params: Obj): ClientFlags {
  const f = clientFlagsFromV1(params.clientCapabilities);
  return {
    booleanOptions: f.booleanOptions,
    notices: f.notices,
    compaction: f.compaction,
    plan: f.plan,
    bridgePeer: bridgeMarkerOf(params._meta) !== undefined,
    terminalOutput: f.terminalOutput,
    fsRead: f.fsRead,
    fsWrite: f.fsWrite,
    terminals: f.terminals,
  };
}

/** The flags A reads, from the converter's flags of the agent's capabilities (H §2.4). */
function agentFlagsA(result: Obj): AgentFlagsA {
  const f = agentFlagsFromV2(result.capabilities, result.authMethods);
  return {
    hasSession: f.hasSession,
    additionalDirectories: f.addDirs,
    mcp: { stdio: f.mcpStdio, http: f.mcpHttp, acp: f.mcpAcp },
    bridge: bridgeMarkerOf(result._meta) !== undefined,
  };
}

/** Paths of the v1 client's capabilities it actually sent that v2 capabilities have no form for. */
function sentWithoutV2Form(caps: unknown): string[] {
  if (!isObject(caps)) return [];
  const r = clientCapabilitiesToV2(caps, { stash: "off", stashMaxBytes: 0 });
  if (!r.ok) return [];
  const sent = (path: readonly (string | number)[]) => {
    let at: unknown = caps;
    for (const key of path) {
      if (!isObject(at) || !(String(key) in at)) return false;
      at = at[String(key)];
    }
    return true;
  };
  return r.lost.filter((l) => sent(l.path)).map((l) => `clientCapabilities.${l.path.join(".")}`);
}

const MARKER = { bridge: { name: "acp-bridge", version: VERSION }, clientProtocol: 1, agentProtocol: 2 } as const;

export function pairingA(config: AConfig): Pairing {
  return {
    renderInit(clientParams) {
      // Whether the agent is a bridge is known only from its answer: the request gets the bridge level.
      const r = initializeRequestToV2(clientParams, optionsToward(config.stash, undefined), {
        protocolVersion: 2,
        // H §1.5: identify this bridge, so a B bridge standing in for the agent keeps key order for it.
        bridgeMarker: MARKER,
      });
      if (!r.ok) return { error: r.error };
      noteLost(config.observer, "initialize", "client", clientParams, r);
      return { params: r.value };
    },
    accept(clientParams, agentResult) {
      const clientFlags = clientFlagsA(clientParams);
      const agentFlags = agentFlagsA(agentResult);
      // Here, once per handshake (renderInit runs per probe), and only what the client sent: v2 has no
      // place for client fs or terminals whatever the agent is (H §2.1), which is news, not a warning.
      const unoffered = sentWithoutV2Form(clientParams.clientCapabilities);
      if (unoffered.length > 0)
        config.log.info(`not offered to the v2 agent (v2 has no place for them): ${unoffered.join(", ")}`);
      const toClient = optionsToward(config.stash, clientFlags.bridgePeer);
      // A B bridge in front: the result's key order rides to it (wire/key-order.ts).
      if (clientFlags.bridgePeer && toClient.stash !== "off") recordKeyOrder({ result: agentResult }, 2);
      const r = initializeResponseToV1(agentResult, toClient, {
        protocolVersion: 1,
        // Only a bridge in front looks for it (T §5.5); a plain client gets no `_meta["acp-bridge"]`.
        ...(clientFlags.bridgePeer ? { bridgeMarker: MARKER } : {}),
      });
      if (!r.ok)
        return {
          error: rpcErrors.internal("Agent handshake failed", {
            reason: "malformed initialize result",
            detail: r.error.data,
          }),
        };
      noteLost(config.observer, resultKind("initialize"), "agent", agentResult, r);
      return {
        clientResult: r.value,
        createTranslator: (client, agent) => new DirectionA(client, agent, config, clientFlags, agentFlags),
      };
    },
  };
}
