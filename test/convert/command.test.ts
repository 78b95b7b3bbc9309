import { describe, expect, it } from "vitest";
import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { availableCommandsToV1, availableCommandsToV2 } from "../../src/convert/command.js";
import type { Conv } from "../../src/convert/result.js";
import type { ConvertOptions } from "../../src/convert/stash.js";
import { convertsLosslessly, options } from "../support/properties.js";
import { expectValid } from "../support/schema.js";
import { value, within } from "../support/conv.js";

// One command, through the update converters the engine calls.
const AT = ["availableCommands", 0] as const;
function availableCommandToV1(c: unknown, o: ConvertOptions): Conv<v1.AvailableCommand> {
  return within(availableCommandsToV1({ availableCommands: [c] } as never, o), AT);
}
function availableCommandToV2(c: unknown, o: ConvertOptions): Conv<v2.AvailableCommand> {
  return within(availableCommandsToV2({ availableCommands: [c] } as never, o), AT);
}

const opts = options("compact");

describe("available_commands_update (T §2.8, T §6 AvailableCommand(Input).type)", () => {
  it("drops the command and input type tags toward v1", () => {
    const v2u = {
      availableCommands: [
        { type: "command", name: "web", description: "Search the web", input: { type: "text", hint: "query" } },
        { type: "command", name: "test", description: "Run tests" },
      ],
    };
    expectValid("v2", "AvailableCommandsUpdate", v2u);
    const r = availableCommandsToV1(v2u as never, opts);
    const out = value(r);
    expect(out).toEqual({
      availableCommands: [
        { name: "web", description: "Search the web", input: { hint: "query" } },
        { name: "test", description: "Run tests" },
      ],
    });
    expect(r.ok && r.lost).toEqual([]);
    expectValid("v1", "AvailableCommandsUpdate", out);
  });

  it("adds the type tags toward v2", () => {
    const v1u = {
      availableCommands: [
        { name: "web", description: "Search", input: { hint: "query", _meta: { a: 1 } } },
        { name: "plan", description: "Plan", input: null, _meta: { k: true } },
      ],
    };
    const out = value(availableCommandsToV2(v1u, opts));
    expect(out).toEqual({
      availableCommands: [
        {
          type: "command",
          name: "web",
          description: "Search",
          input: { type: "text", hint: "query", _meta: { a: 1 } },
        },
        { type: "command", name: "plan", description: "Plan", input: null, _meta: { k: true } },
      ],
    });
    expectValid("v2", "AvailableCommandsUpdate", out);
  });

  it("keeps the name and description of a command of unknown type and stashes the rest as raw", () => {
    const item = { type: "_workflow", name: "deploy", description: "Deploy it", steps: [1, 2] };
    const r = availableCommandToV1(item, opts);
    const out = value(r);
    expect(out).toEqual({
      name: "deploy",
      description: "Deploy it",
      _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { raw: item } } },
    });
    expect(r.ok && r.lost.map((l) => l.path)).toEqual([[]]);
    expectValid("v1", "AvailableCommand", out);
    expect(value(availableCommandToV2(out, opts))).toEqual(item);
  });

  it("turns an unknown input type into a hint-only input when it has a string hint, and restores it", () => {
    const item = {
      type: "command",
      name: "pick",
      description: "Pick",
      input: { type: "_choice", hint: "one of", options: ["a"] },
    };
    const out = value(availableCommandToV1(item as never, opts));
    expect(out).toEqual({
      name: "pick",
      description: "Pick",
      input: { hint: "one of" },
      _meta: { "acp-bridge": { v: 1, from: 2, hadMeta: false, residual: { rawInput: item.input } } },
    });
    expectValid("v1", "AvailableCommand", out);
    expect(value(availableCommandToV2(out, opts))).toEqual(item);
  });

  it("drops an unknown input type without a string hint", () => {
    const item = {
      type: "command",
      name: "pick",
      description: "Pick",
      input: { type: "_form", fields: [] },
      _meta: { x: 1 },
    };
    const out = value(availableCommandToV1(item as never, options("off")));
    expect(out).toEqual({ name: "pick", description: "Pick", _meta: { x: 1 } });
    expectValid("v1", "AvailableCommand", out);
  });

  it("forwards names v2 forbids (whitespace, duplicates) unchanged toward v2", () => {
    const v1u = {
      availableCommands: [
        { name: "two words", description: "a" },
        { name: "two words", description: "b" },
      ],
    };
    const out = value(availableCommandsToV2(v1u, opts));
    expect(out.availableCommands.map((c) => c.name)).toEqual(["two words", "two words"]);
  });

  it("answers a non-array command list with the typed error", () => {
    const r = availableCommandsToV1({ availableCommands: "x" } as never, opts);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.data).toMatchObject({ field: "availableCommands", reason: "expected_array" });
  });
});

convertsLosslessly({
  name: "AvailableCommand",
  v1: { schema: "v1", def: "AvailableCommand" },
  v2: { schema: "v2", def: "AvailableCommand" },
  toV2: (x, o) => availableCommandToV2(x as never, o),
  toV1: (x, o) => availableCommandToV1(x as never, o),
  interpreted: {
    v1: [["name"], ["description"], ["input", "hint"]],
    v2: [["type"], ["name"], ["description"], ["input", "type"]],
  },
});

convertsLosslessly({
  name: "AvailableCommandsUpdate",
  v1: { schema: "v1", def: "AvailableCommandsUpdate" },
  v2: { schema: "v2", def: "AvailableCommandsUpdate" },
  toV2: (x, o) => availableCommandsToV2(x as never, o),
  toV1: (x, o) => availableCommandsToV1(x as never, o),
  interpreted: {
    v1: [["availableCommands"], ["availableCommands", "*", "name"]],
    v2: [["availableCommands"], ["availableCommands", "*", "type"]],
  },
});
