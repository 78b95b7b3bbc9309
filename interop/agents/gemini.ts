// Gemini CLI (`@google/gemini-cli`, `gemini --acp`): v1 only (it answers a v2 `initialize` with 1),
// against the loopback Gemini API mock.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startGeminiMock } from "../mocks/gemini.js";
import type { AgentRecipe } from "./recipe.js";

/** A concrete model: "auto" would add a routing classifier request before every turn. */
const MODEL = "gemini-2.5-flash";

export const gemini: AgentRecipe = {
  name: "gemini",
  versions: [1],
  versionForcedByLaunch: true,
  startMock: (ws) => startGeminiMock(ws.cwd),
  async launch(_version, ws, mock) {
    const dir = join(ws.home, ".gemini");
    await mkdir(dir, { recursive: true });
    const settings = {
      security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
      model: { name: MODEL },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
    };
    await writeFile(join(dir, "settings.json"), `${JSON.stringify(settings, null, 2)}\n`);
    return {
      command: join(ws.cache, "node_modules", ".bin", "gemini"),
      args: ["--acp"],
      env: {
        GOOGLE_GEMINI_BASE_URL: mock.url,
        GEMINI_API_KEY: "interop-dummy-key",
        // Without it "allow always" fails in an untrusted folder.
        GEMINI_CLI_TRUST_WORKSPACE: "true",
        // Without it the CLI re-spawns itself (with more heap) and the ACP pipes go through a child.
        GEMINI_CLI_NO_RELAUNCH: "true",
      },
    };
  },
};
