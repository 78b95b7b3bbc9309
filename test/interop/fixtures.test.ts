// The recorded wires in interop/fixtures (test data for the fidelity fold): each is a complete
// SCENARIO turn, and every message on it, the real agents' own and the bridge's, is valid against
// the official schema of its side's version.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { wireProblems } from "../support/wire-schema.js";

interface Line {
  from: "client" | "agent" | "bridge";
  message: any;
}

const DIR = new URL("../../interop/fixtures/", import.meta.url);

/** Each fixture, the version its lines speak, and the version the turn's client speaks. */
const FIXTURES: [file: string, version: "v1" | "v2", clientSide: boolean][] = [
  ["codex-v1.ndjson", "v1", true],
  ["codex-v2.ndjson", "v2", true],
  ["gemini-v1.ndjson", "v1", true],
  ["codex-v1-bridge-v2.ndjson", "v1", true],
  ["codex-v2-bridge-v1.ndjson", "v2", true],
  ["gemini-v2-bridge-v1.ndjson", "v2", true],
  ["codex-v1-bridge-v2.agent-side.ndjson", "v2", false],
  ["codex-v2-bridge-v1.agent-side.ndjson", "v1", false],
  ["gemini-v2-bridge-v1.agent-side.ndjson", "v1", false],
];

function load(file: string): Line[] {
  return readFileSync(new URL(file, DIR), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}

describe.each(FIXTURES)("%s", (file, version, clientSide) => {
  const lines = load(file);
  const requester = clientSide ? "client" : "bridge";

  it("is valid against the schema of its version, every message", () => {
    const methods = new Map<string, string>();
    for (const { from, message } of lines) {
      if (typeof message.method === "string" && message.id !== undefined) {
        methods.set(`${from}:${JSON.stringify(message.id)}`, message.method);
      }
    }
    const problems = lines.flatMap(({ from, message }) => {
      const asker = from === "agent" ? requester : "agent";
      const p = wireProblems(version, message, (id) => methods.get(`${asker}:${JSON.stringify(id)}`));
      return p === undefined ? [] : [`${from}: ${p}`];
    });
    expect(problems).toEqual([]);
  });

  it("holds one whole turn: initialize, session/new, the prompt, and its end", () => {
    const asked = lines.filter((l) => l.from === requester && typeof l.message.method === "string");
    expect(asked.map((l) => l.message.method)).toEqual(
      expect.arrayContaining(["initialize", "session/new", "session/prompt"]),
    );
    const prompt = asked.find((l) => l.message.method === "session/prompt")?.message;
    const answered = lines.find(
      (l) => l.from === "agent" && l.message.id === prompt.id && l.message.method === undefined,
    );
    if (version === "v1") {
      expect(answered?.message.result.stopReason).toBe("end_turn");
    } else {
      const idle = lines.filter(
        (l) => l.message.params?.update?.sessionUpdate === "state_update" && l.message.params.update.state === "idle",
      );
      expect(answered?.message.result.messageId).toEqual(expect.any(String));
      expect(idle.at(-1)?.message.params.update.stopReason).toBe("end_turn");
    }
  });
});
