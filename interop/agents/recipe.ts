// What the interop harness needs from each real agent: how to start its loopback model mock and
// how to launch the agent (from the interop cache) speaking a given ACP version.
import type { EditorResults } from "../editor-scenario.js";

export type AcpVersion = 1 | 2;

export interface Workspace {
  /** The session's cwd, prepared with SCENARIO.files. */
  readonly cwd: string;
  /** A scratch HOME for this run (agents keep state there). */
  readonly home: string;
  /** The interop cache: `<cache>/node_modules/.bin/<agent>` etc. */
  readonly cache: string;
}

export interface ModelMock {
  /** Base URL of the loopback server (http://127.0.0.1:PORT...). */
  readonly url: string;
  /** Model API requests served so far (the harness reports it; 0 means the agent never called it). */
  requests(): number;
  close(): Promise<void>;
}

export interface Launch {
  readonly command: string;
  readonly args: readonly string[];
  /** Added to a minimal environment (PATH, HOME=ws.home); never the developer's own keys. */
  readonly env: Readonly<Record<string, string>>;
}

export interface AgentRecipe {
  readonly name: "claude" | "codex" | "gemini";
  /** The ACP versions the agent's own builds speak (Gemini CLI: v1 only). */
  readonly versions: readonly AcpVersion[];
  /**
   * Whether the launch environment forces the version (Claude: CLAUDE_AGENT_ACP_PROTOCOL; Gemini
   * CLI: v1 only). An agent that answers whichever version `initialize` asks for (Codex) would
   * let the bridge's probe settle on the client's version and pass through: the bridged run
   * then pins the version with `--agent-protocol`.
   */
  readonly versionForcedByLaunch: boolean;
  /** Start the model mock that plays SCENARIO in this agent's tool names. */
  startMock(ws: Workspace): Promise<ModelMock>;
  /** Prepare HOME/config files if the agent needs them, and say how to launch it. */
  launch(version: AcpVersion, ws: Workspace, mock: ModelMock): Promise<Launch>;
  /** How the agent plays the editor scenario (its v2 build behind the bridge); absent: not played. */
  readonly editor?: EditorRecipe;
}

export interface EditorMock extends ModelMock {
  /** What the model got back for each scripted editor call, from the last turn request. */
  editorResults(): EditorResults;
  /** The turn requests' bodies, for diagnostics (INTEROP_DUMP_DIR). */
  bodies(): readonly unknown[];
}

export interface EditorRecipe {
  /** Start the model mock that plays EDITOR_SCENARIO in this agent's names for the editor's tools. */
  startMock(ws: Workspace): Promise<EditorMock>;
  /** Added to the launch environment for this scenario. */
  readonly env: Readonly<Record<string, string>>;
}
