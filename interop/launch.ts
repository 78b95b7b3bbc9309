// How a bridged interop run starts the built bridge in front of the agent, and the check that the
// run really crossed a translation: an agent that answers either version (Codex) would otherwise
// let the bridge's probe settle on the client's version and the "bridged" run would pass through.
import type { AcpVersion, AgentRecipe, Launch } from "./agents/recipe.js";

/** A forced agent keeps `--agent-protocol auto` (the bridge probes, as a user runs it); any other is told. */
function pinned(recipe: Pick<AgentRecipe, "versionForcedByLaunch">, agentVersion: AcpVersion): string[] {
  return recipe.versionForcedByLaunch ? [] : ["--agent-protocol", String(agentVersion)];
}

/**
 * The bridge command line for a run of `agent` speaking `agentVersion`, tracing into `trace`, and
 * writing its `--report` into `report` when given (a report turns the fast paths off: the runs
 * without one keep them).
 */
export function bridgeLaunch(
  bin: string,
  recipe: Pick<AgentRecipe, "versionForcedByLaunch">,
  agentVersion: AcpVersion,
  agent: Launch,
  trace: string,
  report?: string,
): Launch {
  const reporting = report === undefined ? [] : ["--report", report];
  return {
    command: process.execPath,
    args: [bin, ...pinned(recipe, agentVersion), "--trace", trace, ...reporting, "--", agent.command, ...agent.args],
    env: agent.env,
  };
}

/** A failure when the agent side of a bridged run did not speak `expected` (empty when it did). */
export function versionFailures(spoken: number | undefined, expected: AcpVersion): string[] {
  if (spoken === expected) return [];
  return [
    `the agent answered protocol version ${String(spoken ?? "none")} behind the bridge, not ${expected}: ` +
      "the run exercised no translation",
  ];
}

/** `acp-bridge serve` on a loopback port in front of `agent`, the bridge of each connection tracing into `trace`. */
export function serveLaunch(
  bin: string,
  recipe: Pick<AgentRecipe, "versionForcedByLaunch">,
  agentVersion: AcpVersion,
  agent: Launch,
  trace: string,
): Launch {
  const pin = pinned(recipe, agentVersion);
  return {
    command: process.execPath,
    args: [
      bin,
      "serve",
      "--listen",
      "127.0.0.1:0",
      "--token-env",
      "INTEROP_SERVE_TOKEN",
      ...pin,
      "--trace",
      trace,
      "--",
      agent.command,
      ...agent.args,
    ],
    env: agent.env,
  };
}
