// The agents `npm run interop` drives. Each recipe lives in its own module (claude.ts, codex.ts,
// gemini.ts); add it here to include it in the run.
import { claude } from "./claude.js";
import { codex } from "./codex.js";
import { gemini } from "./gemini.js";
import type { AgentRecipe } from "./recipe.js";

export const RECIPES: readonly AgentRecipe[] = [claude, codex, gemini];
