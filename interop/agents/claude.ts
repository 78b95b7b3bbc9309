// Claude's ACP adapter (@agentclientprotocol/claude-agent-acp): one package serves v1 and v2,
// forced by CLAUDE_AGENT_ACP_PROTOCOL. Claude Code keeps its state under HOME/.claude; the
// settings keep the `default` permission mode, so the edit asks the client (a diff in a permission
// request), with an `ask` rule for Bash: the scenario's command is read-only, which Claude Code
// would otherwise run unasked.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { editorResults, editorScript, startAnthropicMock } from "../mocks/anthropic.js";
import type { AgentRecipe } from "./recipe.js";

export const claude: AgentRecipe = {
  name: "claude",
  versions: [1, 2],
  versionForcedByLaunch: true,
  startMock: (ws) => startAnthropicMock(ws.cwd),
  editor: {
    async startMock(ws) {
      const mock = await startAnthropicMock(ws.cwd, editorScript);
      return { ...mock, editorResults: () => editorResults(mock.results()) };
    },
    // Claude Code defers MCP tools behind ToolSearch by default; the editor's tools carry
    // `anthropic/alwaysLoad` (mappings/editor-tools.ts), so nothing is set here, as a user sets
    // nothing (the script still plays the deferred way, one ToolSearch call first, if they were).
    env: {},
  },
  async launch(version, ws, mock) {
    const dir = join(ws.home, ".claude");
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, "settings.json"),
      JSON.stringify({ permissions: { defaultMode: "default", ask: ["Bash"] } }, null, 2),
    );
    return {
      command: process.execPath,
      args: [join(ws.cache, "node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js")],
      env: {
        CLAUDE_AGENT_ACP_PROTOCOL: `v${version}`,
        ANTHROPIC_BASE_URL: mock.url,
        ANTHROPIC_API_KEY: "sk-ant-interop-dummy",
        IS_SANDBOX: "1",
        CLAUDE_CODE_ENABLE_TODO_TOOLS: "1",
        // TodoWrite is only enabled while the Task* tools (its successors) are off.
        CLAUDE_CODE_ENABLE_TASKS: "false",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_AUTOUPDATER: "1",
        DISABLE_TELEMETRY: "1",
      },
    };
  },
};
