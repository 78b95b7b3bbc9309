// The recorded wires in interop/fixtures (test data for the fidelity fold): each turn wire is a
// complete SCENARIO turn, each `.load` wire a second connection loading that session back, and
// every message on them, the real agents' own and the bridge's, is valid against the official
// schema of the client's version.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SCENARIO } from "../../interop/scenario.js";
import { wireProblems } from "../support/wire-schema.js";

interface Line {
  from: "client" | "agent";
  message: any;
}

const DIR = new URL("../../interop/fixtures/", import.meta.url);

/** Each recorded run and the version its client speaks. */
const RUNS: [name: string, version: "v1" | "v2"][] = [
  ["codex-v1", "v1"],
  ["codex-v2", "v2"],
  ["gemini-v1", "v1"],
  ["codex-v1-bridge-v2", "v1"],
  ["codex-v2-bridge-v1", "v2"],
  ["gemini-v2-bridge-v1", "v2"],
];

function load(file: string): Line[] {
  return readFileSync(new URL(file, DIR), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}

function schemaProblems(lines: Line[], version: "v1" | "v2"): string[] {
  const methods = new Map<string, string>();
  for (const { from, message } of lines) {
    if (typeof message.method === "string" && message.id !== undefined) {
      methods.set(`${from}:${JSON.stringify(message.id)}`, message.method);
    }
  }
  return lines.flatMap(({ from, message }) => {
    const asker = from === "agent" ? "client" : "agent";
    const p = wireProblems(version, message, (id) => methods.get(`${asker}:${JSON.stringify(id)}`));
    return p === undefined ? [] : [`${from}: ${p}`];
  });
}

/** The agent's answer to the client's first request of `method`. */
function answerTo(lines: Line[], method: string): any {
  const asked = lines.find((l) => l.from === "client" && l.message.method === method)?.message;
  expect(asked, `the client sent ${method}`).toBeDefined();
  return lines.find((l) => l.from === "agent" && l.message.id === asked.id && l.message.method === undefined)?.message;
}

describe.each(RUNS)("%s", (name, version) => {
  const turn = load(`${name}.ndjson`);
  const reload = load(`${name}.load.ndjson`);

  it("is valid against the client's schema, every message of the turn and of the reload", () => {
    expect(schemaProblems(turn, version)).toEqual([]);
    expect(schemaProblems(reload, version)).toEqual([]);
  });

  it("holds one whole turn: initialize, session/new, the prompt, and its end", () => {
    expect(answerTo(turn, "initialize").result.protocolVersion).toBe(Number(version.slice(1)));
    expect(answerTo(turn, "session/new").result.sessionId).toEqual(expect.any(String));
    const prompt = answerTo(turn, "session/prompt");
    if (version === "v1") {
      expect(prompt.result.stopReason).toBe("end_turn");
    } else {
      expect(prompt.result.messageId).toEqual(expect.any(String));
      const idle = turn.filter(
        (l) => l.message.params?.update?.sessionUpdate === "state_update" && l.message.params.update.state === "idle",
      );
      expect(idle.at(-1)?.message.params.update.stopReason).toBe("end_turn");
    }
  });

  it("reloads the session on a second connection (Gemini CLI 0.61 finds no saved session)", () => {
    const method = version === "v1" ? "session/load" : "session/resume";
    const answer = answerTo(reload, method);
    if (name.startsWith("gemini")) {
      expect(answer.error.data.details).toBe("No previous sessions found for this project.");
    } else {
      expect(answer.result).toBeDefined();
      const texts = reload.map((l) => l.message.params?.update?.content?.text);
      expect(texts).toContain(SCENARIO.steps.answer);
    }
  });
});
