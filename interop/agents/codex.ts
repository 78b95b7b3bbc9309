// Codex's ACP adapter (`@agentclientprotocol/codex-acp`, which runs the `@openai/codex` app
// server): v1 and v2 from one binary (the SDK's router answers the version the client's
// `initialize` asks for), against the loopback Responses API mock.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startOpenAiResponsesMock } from "../mocks/openai-responses.js";
import type { AgentRecipe } from "./recipe.js";

const PROVIDER = "interop-mock";
const MODEL = "gpt-5.5";

export const codex: AgentRecipe = {
  name: "codex",
  versions: [1, 2],
  versionForcedByLaunch: false,
  startMock: () => startOpenAiResponsesMock(),
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
