// A v2 agent for the editor's tools (H §6.5), on the official SDKs: it advertises the MCP transport
// `EDITOR_AGENT_MCP` names (acp, http, stdio or none), connects to the server named `editor` of each
// session with the MCP SDK's own client (MCP-over-ACP: the ACP SDK's caller) and plays the prompt's
// lines, `call <tool> <json arguments>`, one tool call each: a `tool_call_update` named like Claude
// Code names MCP tools (`mcp__editor__<tool>`, its input as rawInput, the tool call's id in the MCP
// request's `_meta` as `claudecode/toolUseId`), the tool's result as the update's content and as an
// agent message, then idle. `servers` answers the session's MCP declarations as JSON.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import * as acp from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { Readable, Writable } from "node:stream";

const MODE = process.env.EDITOR_AGENT_MCP ?? "http";
const mcp: Record<string, object> = MODE === "none" ? {} : { [MODE]: {} };
const caller = new acp.McpOverAcpCaller({ clientInfo: { name: "editor-agent", version: "0.0.0" } });

interface Live {
  readonly servers: readonly Record<string, unknown>[];
  tools?: (name: string, args: unknown, meta: Record<string, unknown>) => Promise<unknown>;
  close?: () => Promise<void>;
}
const sessions = new Map<string, Live>();
let n = 0;

async function connect(live: Live, client: acp.AgentContext): Promise<void> {
  if (live.tools) return;
  const decl = live.servers.find((s) => s.name === "editor");
  if (!decl) throw new Error("no server named editor");
  if (decl.type === "acp") {
    const serverId = String(decl.serverId);
    live.tools = async (name, args, meta) => {
      const outcome = await caller.request(client, serverId, "tools/call", { name, arguments: args, _meta: meta });
      return "result" in outcome
        ? outcome.result
        : { isError: true, content: [{ type: "text", text: JSON.stringify(outcome.error) }] };
    };
    return;
  }
  const mcpClient = new Client({ name: "editor-agent", version: "0.0.0" });
  if (decl.type === "http") {
    const headers = Object.fromEntries(
      (decl.headers as { name: string; value: string }[]).map((h) => [h.name, h.value]),
    );
    await mcpClient.connect(new StreamableHTTPClientTransport(new URL(String(decl.url)), { requestInit: { headers } }));
  } else {
    const env = Object.fromEntries((decl.env as { name: string; value: string }[]).map((e) => [e.name, e.value]));
    await mcpClient.connect(
      new StdioClientTransport({
        command: String(decl.command),
        args: (decl.args as string[]) ?? [],
        env: { ...env, PATH: process.env.PATH ?? "" },
        stderr: "inherit",
      }),
    );
  }
  live.tools = (name, args, meta) =>
    mcpClient.callTool({ name, arguments: args as Record<string, unknown>, _meta: meta });
  live.close = () => mcpClient.close();
}

function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((c) => c.text ?? "").join("");
}

async function turn(client: acp.AgentContext, sessionId: string, lines: string[]): Promise<void> {
  const live = sessions.get(sessionId)!;
  const update = (u: acp.SessionUpdate) => client.notify(acp.methods.client.session.update, { sessionId, update: u });
  await update({ sessionUpdate: "state_update", state: "running" });
  for (const line of lines) {
    const messageId = `m${++n}`;
    if (line.trim() === "servers") {
      await update({
        sessionUpdate: "agent_message_chunk",
        messageId,
        content: { type: "text", text: JSON.stringify(live.servers) },
      });
      continue;
    }
    const m = /^call (\w+) (.*)$/.exec(line.trim());
    if (!m) continue;
    const [, tool, json] = m;
    const args: unknown = JSON.parse(json!);
    const toolCallId = `toolu_${++n}`;
    await update({
      sessionUpdate: "tool_call_update",
      toolCallId,
      title: `mcp__editor__${tool}`,
      kind: "other",
      status: "in_progress",
      rawInput: args,
    });
    let text: string;
    let failed: boolean;
    try {
      await connect(live, client);
      const result = await live.tools!(tool!, args, { "claudecode/toolUseId": toolCallId });
      text = textOf(result);
      failed = (result as { isError?: boolean }).isError === true;
    } catch (e) {
      text = `mcp failure: ${e instanceof Error ? e.message : String(e)}`;
      failed = true;
    }
    await update({
      sessionUpdate: "tool_call_update",
      toolCallId,
      status: failed ? "failed" : "completed",
      content: [{ type: "content", content: { type: "text", text } }],
    });
    await update({
      sessionUpdate: "agent_message_chunk",
      messageId,
      content: { type: "text", text: `${failed ? "ERROR " : ""}${tool}: ${text}` },
    });
  }
  await update({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
}

const app = acp
  .agent({ name: "editor-agent" })
  .onRequest(acp.methods.agent.initialize, () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    info: { name: "editor-agent", version: "0.0.0" },
    capabilities: { session: { mcp, additionalDirectories: {} } },
  }))
  .onRequest(acp.methods.agent.session.new, ({ params }) => {
    const sessionId = `s${++n}`;
    sessions.set(sessionId, { servers: params.mcpServers ?? [] });
    return { sessionId };
  })
  .onRequest(acp.methods.agent.session.close, async ({ params }) => {
    await sessions.get(params.sessionId)?.close?.();
    sessions.delete(params.sessionId);
    return {};
  })
  .onRequest(acp.methods.agent.session.prompt, ({ params, client }) => {
    const text = params.prompt.map((b) => (b.type === "text" ? b.text : "")).join("");
    setImmediate(() => void turn(client, params.sessionId, text.split("\n")));
    return { messageId: `u${++n}` };
  })
  .onNotification(acp.methods.agent.mcp.message, caller.handleNotification)
  .onNotification(acp.methods.agent.session.cancel, () => undefined);

app.connect(
  acp.ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  ),
);
