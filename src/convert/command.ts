// Slash commands, `available_commands_update` (T §2.8; T §6 rows AvailableCommand.type and
// AvailableCommandInput.type): v2 tags every command `type:"command"` and its input `type:"text"`.

import type * as v1 from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { expectObject, expectOptional, expectString, invalid, prefixLosses } from "./content.js";
import { isObject, isString, type Obj, setOwn, withMembers } from "../base/json.js";
import { attempt, type Conv, type Converted, type Loss, ok, type Path } from "./result.js";
import { type ConvertOptions, hasResidual, residualOf, setMeta, Stash, unstash } from "./stash.js";

const COMMAND = "command";
const TEXT_INPUT = "text";

function without(o: Obj, key: string): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(o)) if (k !== key) setOwn(out, k, v);
  return out;
}

function commandToV1Inner(c: unknown, opts: ConvertOptions, at: Path): Converted<v1.AvailableCommand> {
  const src = expectObject(c, at);
  const type = expectString(src.type, [...at, "type"]);
  const name = expectString(src.name, [...at, "name"]);
  const description = expectString(src.description, [...at, "description"]);
  expectOptional(src, "_meta", "object", at);
  const stash = new Stash(2, opts);
  if (type !== COMMAND) {
    // An unknown item: its name and description, the rest in the stash (T §2.8 A↓).
    const out: Obj = { name, description };
    setMeta(out, stash.keep("raw", src).into(undefined));
    return ok(out as v1.AvailableCommand, [{ path: [], reason: `v1 has no command type "${type}"` }]);
  }
  const { meta } = unstash(src._meta, 1);
  const out = without(src, "type");
  const lost: Loss[] = [];
  const input = src.input;
  if (input !== undefined && input !== null) {
    const inp = expectObject(input, [...at, "input"]);
    expectOptional(inp, "_meta", "object", [...at, "input"]);
    const inputType = expectString(inp.type, [...at, "input", "type"]);
    if (inputType === TEXT_INPUT) {
      expectString(inp.hint, [...at, "input", "hint"]);
      out.input = without(inp, "type");
    } else {
      // An unknown input type keeps a string `hint` if it has one (T §2.8 A↓).
      if (isString(inp.hint)) out.input = { hint: inp.hint };
      else Reflect.deleteProperty(out, "input");
      stash.keep("rawInput", inp);
      lost.push({ path: ["input"], reason: `v1 has no command input type "${inputType}"` });
    }
  }
  setMeta(out, stash.into(meta));
  return ok(out as v1.AvailableCommand, lost);
}

// v1 commands fit v2 once tagged: nothing to stash, `opts` unused.
function commandToV2Inner(c: unknown, opts: ConvertOptions, at: Path): Converted<v2.AvailableCommand> {
  const src = expectObject(c, at);
  expectString(src.name, [...at, "name"]);
  expectString(src.description, [...at, "description"]);
  expectOptional(src, "_meta", "object", at);
  const { meta, env } = unstash(src._meta, 2);
  const raw = residualOf(env, "raw");
  if (isObject(raw) && isString(raw.type)) return ok(raw as v2.AvailableCommand);
  const out: Obj = { type: COMMAND, ...src };
  if (hasResidual(env, "rawInput")) out.input = residualOf(env, "rawInput");
  else if (src.input !== undefined && src.input !== null) {
    const inp = expectObject(src.input, [...at, "input"]);
    expectString(inp.hint, [...at, "input", "hint"]);
    expectOptional(inp, "_meta", "object", [...at, "input"]);
    out.input = { type: TEXT_INPUT, ...inp };
  }
  setMeta(out, meta);
  return ok(out as v2.AvailableCommand);
}

function listOf<T>(
  update: unknown,
  opts: ConvertOptions,
  item: (c: unknown, o: ConvertOptions, at: Path) => Converted<T>,
): Converted<Obj> {
  const src = expectObject(update, []);
  if (!Array.isArray(src.availableCommands)) invalid(["availableCommands"], "expected_array");
  const lost: Loss[] = [];
  const availableCommands = src.availableCommands.map((c: unknown, i) => {
    const r = item(c, opts, ["availableCommands", i]);
    lost.push(...prefixLosses(["availableCommands", i], r.lost));
    return r.value;
  });
  // The list replaces the previous one in both versions: no state (T §2.8).
  return ok(withMembers(src, { availableCommands }), lost);
}

/** A↓ `available_commands_update` (the body, or the whole update: `sessionUpdate` is kept). */
export function availableCommandsToV1(
  u: v2.AvailableCommandsUpdate,
  opts: ConvertOptions,
): Conv<v1.AvailableCommandsUpdate> {
  return attempt(() => listOf(u, opts, commandToV1Inner) as Converted<v1.AvailableCommandsUpdate>);
}

/**
 * B↓ `available_commands_update`. Names with whitespace or duplicates, which v2 forbids, are
 * forwarded as they are (T §2.8): the bridge never invents names.
 */
export function availableCommandsToV2(
  u: v1.AvailableCommandsUpdate,
  opts: ConvertOptions,
): Conv<v2.AvailableCommandsUpdate> {
  return attempt(() => listOf(u, opts, commandToV2Inner) as Converted<v2.AvailableCommandsUpdate>);
}
