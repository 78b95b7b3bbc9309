// Config options and modes (H §5.1-5.4, H §7.6 rows SessionConfigOption.type and set_config_option
// value type, T §2.7): key renames, the boolean-as-select presentation for v1 clients without
// `session.configOptions.boolean`, the synthetic mode option, and the stash names these converters use.

import { z } from "zod";
import { defineTable } from "./table.js";

const Rename = z.object({ v1: z.string().min(1), v2: z.string().min(1) });
const Choice = z.object({ value: z.string(), name: z.string() });

export const configOptionTable = defineTable(
  "config-option",
  z
    .object({
      /** Keys renamed between versions: the option id and the select group id (H §5.1). */
      renames: z.object({ option: Rename, group: Rename }),
      /** Option `type`s both versions know; v2's other types are omitted toward v1 (H §5.4, §7.6). */
      optionTypes: z.object({ select: z.string(), boolean: z.string() }),
      /** v2 `set_config_option` value tags; any other is refused toward v1 with -32602 (H §7.6). */
      valueTypes: z.object({ id: z.string(), boolean: z.string() }),
      /** A v2 boolean option shown to a v1 client without boolean support (H §5.4). */
      booleanAsSelect: z.object({ on: Choice, off: Choice }),
      /** The category that makes a select option the session's mode selector (H §5.2). */
      modeCategory: z.string(),
      /** B: the option synthesized from v1 `modes`, id = first of `ids` not taken (H §5.3). */
      syntheticModeOption: z.object({ ids: z.array(z.string().min(1)).min(1), name: z.string(), category: z.string() }),
      /**
       * B: the option synthesized from a v1 agent's legacy `models` (`{availableModels, currentModelId}`
       * of earlier unstable SDKs, set with `session/set_model`); id = first of `ids` not taken.
       */
      syntheticModelOption: z.object({
        ids: z.array(z.string().min(1)).min(1),
        name: z.string(),
        category: z.string(),
      }),
      /** Keys of `_meta["acp-bridge"].residual` (T §7.2 plus the ones this area adds). */
      residual: z.object({
        omittedConfigOptions: z.string(),
        type: z.string(),
        options: z.string(),
        shadowed: z.string(),
        group: z.string(),
        modesMeta: z.string(),
        modesExtra: z.string(),
        modes: z.string(),
        configOptions: z.string(),
        availableCommands: z.string(),
        currentModeUpdate: z.string(),
        models: z.string(),
      }),
      /** Names in `_meta["acp-bridge"].synthetic`. */
      synthetic: z.object({
        modes: z.string(),
        modeOption: z.string(),
        currentMode: z.string(),
        configOptions: z.string(),
        currentModeUpdate: z.string(),
        availableCommands: z.string(),
        /** A's `available_commands_update` after a session result (H §4.1): a chained B already gave the list in its result. */
        commandsFollowUp: z.string(),
        modelOption: z.string(),
      }),
    })
    .refine((t) => t.booleanAsSelect.on.value !== t.booleanAsSelect.off.value, "boolean select values must differ")
    .refine(
      (t) => new Set(t.syntheticModeOption.ids).size === t.syntheticModeOption.ids.length,
      "duplicate synthetic ids",
    )
    .refine(
      (t) => t.syntheticModeOption.category === t.modeCategory,
      "the synthetic option must carry the mode category",
    ),
  {
    renames: { option: { v1: "id", v2: "configId" }, group: { v1: "group", v2: "groupId" } },
    optionTypes: { select: "select", boolean: "boolean" },
    valueTypes: { id: "id", boolean: "boolean" },
    booleanAsSelect: { on: { value: "true", name: "On" }, off: { value: "false", name: "Off" } },
    modeCategory: "mode",
    syntheticModeOption: { ids: ["mode", "acp-bridge.mode"], name: "Mode", category: "mode" },
    syntheticModelOption: { ids: ["model", "acp-bridge.model"], name: "Model", category: "model" },
    residual: {
      // carrier `_meta` (v1): v2 options of unknown type, `[{index, raw}]` (H §5.4)
      omittedConfigOptions: "omittedConfigOptions",
      // option `_meta` (v1): the v2 type of a boolean shown as a select; request `_meta` (v2): v1 `type`
      type: "type",
      // option `_meta`: the source's `options` when the target cannot carry them as they are
      options: "options",
      // any renamed object: the source's own keys a rename overwrote, `{key: value}`
      shadowed: "shadowed",
      // synthesized v1 SessionMode `_meta`: the v2 group it came from (H §5.2)
      group: "group",
      // synthetic mode option `_meta` (v2): SessionModeState `_meta` / unknown keys (H §5.3)
      modesMeta: "modesMeta",
      modesExtra: "modesExtra",
      // session result `_meta`: top-level keys the target version cannot carry, restored verbatim
      modes: "modes",
      configOptions: "configOptions",
      availableCommands: "availableCommands",
      // v2 config_option_update `_meta`: the v1 current_mode_update it stands for (T §2.7)
      currentModeUpdate: "currentModeUpdate",
      // session result `_meta` (v2): a v1 agent's legacy `models`, shown as the model option
      models: "models",
    },
    synthetic: {
      modes: "modes",
      modeOption: "modeOption",
      currentMode: "currentMode",
      configOptions: "configOptions",
      currentModeUpdate: "currentModeUpdate",
      availableCommands: "availableCommands",
      commandsFollowUp: "commandsFollowUp",
      modelOption: "modelOption",
    },
  },
);

/** Residual key names (`_meta["acp-bridge"].residual`). */
export const residualKeys = configOptionTable.residual;
/** Synthetic names (`_meta["acp-bridge"].synthetic`). */
export const syntheticNames = configOptionTable.synthetic;
