// A scripted v1 agent speaking raw NDJSON the way the v1 builds of Codex's adapter and Gemini CLI
// do where the pinned schemas say nothing: legacy `models` in session results, changed with
// `session/set_model`; `usage` on the prompt response; a session title. For end-to-end tests only.
import { createInterface } from "node:readline";

type Msg = { id?: unknown; method?: string; params?: Record<string, unknown> };

const models = {
  currentModelId: "gpt-5",
  availableModels: [
    { modelId: "gpt-5", name: "GPT-5" },
    { modelId: "gpt-5-mini", name: "GPT-5 mini", description: "Faster" },
  ],
};
const send = (m: unknown) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...(m as object) })}\n`);
const update = (sessionId: unknown, u: unknown) => send({ method: "session/update", params: { sessionId, update: u } });

createInterface({ input: process.stdin }).on("line", (line) => {
  const msg = JSON.parse(line) as Msg;
  const p = msg.params ?? {};
  switch (msg.method) {
    case "initialize":
      send({
        id: msg.id,
        result: { protocolVersion: 1, agentCapabilities: { sessionCapabilities: { resume: {} } }, authMethods: [] },
      });
      return;
    case "session/new":
      send({ id: msg.id, result: { sessionId: "legacy-1", models } });
      update("legacy-1", { sessionUpdate: "session_info_update", title: "Legacy session" });
      return;
    case "session/resume":
      send({ id: msg.id, result: { models } });
      return;
    case "session/set_model":
      models.currentModelId = String(p.modelId);
      send({ id: msg.id, result: {} });
      return;
    case "session/prompt":
      update(p.sessionId, {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: `on ${models.currentModelId}` },
      });
      send({
        id: msg.id,
        result: { stopReason: "end_turn", usage: { totalTokens: 12, inputTokens: 5, outputTokens: 7 } },
      });
      return;
    default:
      if (msg.id !== undefined) send({ id: msg.id, error: { code: -32601, message: "Method not found" } });
  }
});
