// The handshake of direction B (H §1.5, §2): the v2 client's initialize rendered for the v1 agent,
// the agent's answer rendered for the client, and the flags the translation depends on.
import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { agentFlagsFromV1 } from "../../convert/capabilities.js";
import {
  bridgeMarkerOf,
  clientFacingVersion,
  initializeRequestToV1,
  initializeResponseToV2,
} from "../../convert/initialize.js";
import { isObject } from "../../convert/json.js";
import { rpcErrors } from "../../wire/jsonrpc.js";
import { VERSION } from "../../version.js";
import { recordKeyOrder } from "../../wire/key-order.js";
import type { Pairing } from "../handshake.js";
import { DirectionB, type BConfig } from "./direction-b.js";

export function pairingB(config: BConfig): Pairing {
  return {
    renderInit(clientParams) {
      const facing = clientFacingVersion(clientParams);
      const r = initializeRequestToV1(clientParams as unknown as v2.InitializeRequest, config.opts, {
        protocolVersion: 1,
        lenient: facing.ok ? facing.value.lenient : true,
        // T §5.5: identify this bridge, so an A bridge standing in for the agent opens its channel.
        bridgeMarker: { bridge: { name: "acp-bridge", version: VERSION }, clientProtocol: 2, agentProtocol: 1 },
      });
      if (!r.ok) return { error: r.error };
      return { params: r.value };
    },
    accept(clientParams, agentResult) {
      // An A bridge in front (its marker in the request): the result's key order rides to it (wire/key-order.ts).
      const clientIsBridge = bridgeMarkerOf(clientParams._meta) !== undefined;
      if (clientIsBridge && config.opts.stash !== "off") recordKeyOrder({ result: agentResult }, 1);
      const r = initializeResponseToV2(agentResult as unknown as v1.InitializeResponse, config.opts, {
        protocolVersion: 2,
        bridgeMarker: { bridge: { name: "acp-bridge", version: VERSION }, clientProtocol: 2, agentProtocol: 1 },
      });
      if (!r.ok)
        return {
          error: rpcErrors.internal("Agent handshake failed", {
            reason: "malformed initialize result",
            detail: r.error.data,
          }),
        };
      const flags = agentFlagsFromV1(agentResult.agentCapabilities, agentResult.authMethods);
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
