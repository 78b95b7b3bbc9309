// The handshake of direction B (H §1.5, §2): the v2 client's initialize rendered for the v1 agent,
// the agent's answer rendered for the client, and the flags the translation depends on.
import { agentFlagsFromV1 } from "../../convert/capabilities.js";
import {
  bridgeMarkerOf,
  clientFacingVersion,
  initializeRequestToV1,
  initializeResponseToV2,
} from "../../convert/initialize.js";
import { isObject } from "../../base/json.js";
import { optionsToward } from "../../convert/stash.js";
import { rpcErrors } from "../../base/errors.js";
import { VERSION } from "../../version.js";
import { recordKeyOrder } from "../../wire/key-order.js";
import type { Pairing } from "../handshake.js";
import { noteLost, resultKind } from "../observer.js";
import { DirectionB, type BConfig } from "./engine.js";

const MARKER = { bridge: { name: "acp-bridge", version: VERSION }, clientProtocol: 2, agentProtocol: 1 } as const;

export function pairingB(config: BConfig): Pairing {
  return {
    renderInit(clientParams) {
      const facing = clientFacingVersion(clientParams);
      // Whether the agent is a bridge is known only from its answer: the request gets the bridge level.
      const toAgent = optionsToward(config.stash, undefined);
      const r = initializeRequestToV1(clientParams, toAgent, {
        protocolVersion: 1,
        lenient: facing.ok ? facing.value.lenient : true,
        // T §5.5: identify this bridge, so an A bridge standing in for the agent opens its channel.
        bridgeMarker: MARKER,
      });
      if (!r.ok) return { error: r.error };
      noteLost(config.observer, "initialize", "client", clientParams, r);
      return { params: r.value };
    },
    accept(clientParams, agentResult) {
      // An A bridge in front (its marker in the request): the result's key order rides to it (wire/key-order.ts).
      const clientIsBridge = bridgeMarkerOf(clientParams._meta) !== undefined;
      const toClient = optionsToward(config.stash, clientIsBridge);
      if (clientIsBridge && toClient.stash !== "off") recordKeyOrder({ result: agentResult }, 1);
      const r = initializeResponseToV2(agentResult, toClient, {
        protocolVersion: 2,
        // Only a bridge in front looks for it (T §5.5); a plain client gets no `_meta["acp-bridge"]`.
        ...(clientIsBridge ? { bridgeMarker: MARKER } : {}),
      });
      if (!r.ok)
        return {
          error: rpcErrors.internal("Agent handshake failed", {
            reason: "malformed initialize result",
            detail: r.error.data,
          }),
        };
      noteLost(config.observer, resultKind("initialize"), "agent", agentResult, r);
      const flags = agentFlagsFromV1(agentResult.agentCapabilities);
      // The v1 "agent" is an A bridge when it identified itself (T §5.5).
      const peer = bridgeMarkerOf(agentResult._meta) !== undefined;
      if (peer) config.log.info("the agent side is another acp-bridge: lifecycle states come from its channel");
      if (!isObject(agentResult.agentCapabilities))
        config.log.debug("the v1 agent sent no agentCapabilities: v1 defaults apply");
      return {
        clientResult: r.value,
        createTranslator: (client, agent) => new DirectionB(client, agent, config, flags, peer, clientIsBridge),
      };
    },
  };
}
