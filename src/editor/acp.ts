// The editor's MCP server over MCP-over-ACP (H §6.5), for a v2 agent that advertises
// `session.mcp.acp`: the agent sends `mcp/message` requests to the bridge, which stands where the
// client would. The binding (envelopes, request ids, cancellation, limits) is the ACP SDK's own
// `McpOverAcpProvider`, and MCP is the MCP SDK behind `fromMcpServer`: the provider needs an SDK
// connection, so the bridge runs one in memory, fed with the agent's `mcp/message` requests for
// the bridge's servers and `$/cancel_request` for them, whose answers go to the agent as they are.
import type { McpServer } from "@modelcontextprotocol/server";
import { fromMcpServer } from "@agentclientprotocol/sdk/experimental/mcp-server";
import {
  client,
  methods,
  McpOverAcpProvider,
  type AnyMessage,
  type ClientConnection,
  type McpServerAcpDeclaration,
} from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { VERSION } from "../version.js";

export interface AcpRegistration {
  readonly declaration: McpServerAcpDeclaration;
  dispose(): Promise<void>;
}

export class AcpMcpHost {
  /**
   * Every server id the bridge declared on this connection, closed ones included: a request for a
   * closed one is still the bridge's to answer (the provider's -33001), never the client's.
   */
  private readonly servers = new Set<string>();
  private constructor(
    /** Ids of the agent's requests the connection is serving. */
    private readonly active: Set<string | number>,
    private readonly connection: ClientConnection,
    private readonly provider: McpOverAcpProvider,
    private readonly push: (m: AnyMessage) => void,
  ) {}

  /**
   * The in-memory connection, initialized (the SDK serves nothing before): its `initialize` is
   * answered here; everything else it writes is an answer or a notification for the agent.
   */
  static async start(toAgent: (m: AnyMessage) => void): Promise<AcpMcpHost> {
    let push: ((m: AnyMessage) => void) | undefined;
    const readable = new ReadableStream<AnyMessage>({ start: (c) => void (push = (m) => c.enqueue(m)) });
    const active = new Set<string | number>();
    const writable = new WritableStream<AnyMessage>({
      write(m) {
        if ("method" in m && m.method === "initialize" && "id" in m) {
          push?.({
            jsonrpc: "2.0",
            id: m.id,
            result: { protocolVersion: 2, info: { name: "acp-bridge", version: VERSION }, capabilities: {} },
          });
          return;
        }
        if ("id" in m && !("method" in m) && m.id !== null) active.delete(m.id);
        toAgent(m);
      },
    });
    const provider = new McpOverAcpProvider();
    const app = client().onRequest(methods.client.mcp.message, provider.handleRequest);
    const connection = app.connect({ readable, writable });
    await connection.agent.request("initialize", {
      protocolVersion: 2,
      info: { name: "acp-bridge-editor", version: VERSION },
      capabilities: {},
    });
    return new AcpMcpHost(active, connection, provider, (m) => push?.(m));
  }

  register(name: string, factory: () => McpServer): AcpRegistration {
    const adapter = fromMcpServer(factory);
    const registration = this.provider.registerServer(this.connection.agent, { name, handler: adapter.handler });
    this.servers.add(registration.serverId);
    return {
      declaration: registration.declaration,
      dispose: async () => {
        await registration.dispose();
        await adapter.close();
      },
    };
  }

  /** Whether an agent's `mcp/message` request is for one of the bridge's servers. */
  owns(params: unknown): boolean {
    return (
      typeof params === "object" &&
      params !== null &&
      this.servers.has(String((params as Record<string, unknown>).serverId))
    );
  }

  /** The agent's request, served by the provider; its answer reaches the agent through `toAgent`. */
  request(id: string | number, params: unknown): void {
    this.active.add(id);
    this.push({ jsonrpc: "2.0", id, method: "mcp/message", params });
  }

  /** The agent's `$/cancel_request`: true when it named a request the host serves. */
  cancel(requestId: unknown): boolean {
    if ((typeof requestId !== "string" && typeof requestId !== "number") || !this.active.has(requestId)) return false;
    this.push({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId } });
    return true;
  }

  close(): void {
    this.connection.close();
  }
}
