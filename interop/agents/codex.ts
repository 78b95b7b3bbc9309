// Codex's ACP adapter (`@agentclientprotocol/codex-acp`, which runs the `@openai/codex` app
// server): v1 and v2 from one binary (the SDK's router answers the version the client's
// `initialize` asks for), against the loopback Responses API mock.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startOpenAiResponsesMock } from "../mocks/openai-responses.js";
import { codexEditorPicker, codexEditorResults, offeredTools } from "../mocks/openai-editor.js";
import type { AgentRecipe } from "./recipe.js";

const PROVIDER = "interop-mock";
const MODEL = "gpt-5.5";

export const codex: AgentRecipe = {
  name: "codex",
  versions: [1, 2],
  versionForcedByLaunch: false,
  startMock: () => startOpenAiResponsesMock(),
  editor: {
    async startMock(ws) {
      const mock = await startOpenAiResponsesMock(codexEditorPicker(ws.cwd));
      const turns = (): unknown[] =>
        mock.log.filter((r) => r.method === "POST" && offeredTools(r.body).length > 0).map((r) => r.body);
      return { ...mock, editorResults: () => codexEditorResults(turns().at(-1)), bodies: turns };
    },
    // The editor's tools carry no annotations, so Codex asks approval for every call; codex-acp
    // 2.6.0 cannot send that approval on ACP v2 (its permission request has no title: "'session/
    // request_permission' request has no title to send on ACP v2") and cancels the call. Full
    // access (approval policy never) runs MCP calls unasked; the script calls nothing else.
    env: { INITIAL_AGENT_MODE: "agent-full-access" },
  },
  async launch(_version, ws, mock) {
    const codexHome = join(ws.home, ".codex");
    await mkdir(codexHome, { recursive: true });
    // The provider is written both ways: config.toml (read by the app server at start) and
    // CODEX_CONFIG (merged by the adapter into each session's config).
    const provider = {
      name: PROVIDER,
      base_url: mock.url,
      wire_api: "responses",
      env_key: "CODEX_API_KEY",
      request_max_retries: 0,
      stream_max_retries: 0,
    };
    await writeFile(
      join(codexHome, "config.toml"),
      [
        `model = "${MODEL}"`,
        `model_provider = "${PROVIDER}"`,
        `check_for_update_on_startup = false`,
        ``,
        // update_plan (the todo list) is off unless enabled here.
        `[tools]`,
        `update_plan = { enabled = true }`,
        ``,
        `[model_providers.${PROVIDER}]`,
        ...Object.entries(provider).map(([k, v]) => `${k} = ${JSON.stringify(v)}`),
        ``,
        `[projects.${JSON.stringify(ws.cwd)}]`,
        `trust_level = "trusted"`,
        ``,
      ].join("\n"),
    );
    return {
      command: join(ws.cache, "node_modules", ".bin", "codex-acp"),
      args: [],
      env: {
        CODEX_HOME: codexHome,
        CODEX_API_KEY: "interop-dummy-key",
        CODEX_CONFIG: JSON.stringify({
          model: MODEL,
          tools: { update_plan: { enabled: true } },
          model_provider: PROVIDER,
          model_providers: { [PROVIDER]: provider },
        }),
        MODEL_PROVIDER: PROVIDER,
        // read-only: a command asking for escalated permissions goes to the client for approval
        // (the default mode hands approvals to an automatic reviewer instead).
        INITIAL_AGENT_MODE: "read-only",
        NO_BROWSER: "1",
      },
    };
  },
};
