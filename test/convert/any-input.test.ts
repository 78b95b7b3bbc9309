// Any input (issue 19): a converter given whatever a peer may send returns its result (a success,
// or its typed error: README "Result, not exceptions") or throws only `ConvertFailure`, the one
// documented way to unwind inside a converter (result.ts). Never a TypeError, URIError,
// RangeError...: the engine would turn one into a refused message (the crash barrier), but each is
// a bug. Every exported converter of src/convert is listed below, and a new one fails the first
// test until it is: a converter is an exported function that returns `Conv`/`Converted` or takes
// `unknown` (raw peer data) first.
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import fc from "fast-check";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import * as auth from "../../src/convert/auth.js";
import * as capabilities from "../../src/convert/capabilities.js";
import * as command from "../../src/convert/command.js";
import * as configOption from "../../src/convert/config-option.js";
import * as content from "../../src/convert/content.js";
import * as diff from "../../src/convert/diff.js";
import * as directories from "../../src/convert/directories.js";
import * as elicitation from "../../src/convert/elicitation.js";
import * as error from "../../src/convert/error.js";
import * as initialize from "../../src/convert/initialize.js";
import * as mcp from "../../src/convert/mcp.js";
import * as message from "../../src/convert/message.js";
import * as mode from "../../src/convert/mode.js";
import * as models from "../../src/convert/models.js";
import * as notice from "../../src/convert/notice.js";
import * as permission from "../../src/convert/permission.js";
import * as plan from "../../src/convert/plan.js";
import * as prompt from "../../src/convert/prompt.js";
import { ConvertFailure } from "../../src/convert/result.js";
import * as sessionInfo from "../../src/convert/session-info.js";
import * as sessionResult from "../../src/convert/session-result.js";
import * as session from "../../src/convert/session.js";
import * as stash from "../../src/convert/stash.js";
import * as terminal from "../../src/convert/terminal.js";
import * as toolCall from "../../src/convert/tool-call.js";
import * as usage from "../../src/convert/usage.js";
import { anyJson, arb } from "../support/arbitrary.js";
import { defaultOptions as opts } from "../support/conv.js";
import { numRuns } from "../support/properties.js";
import type { SchemaVersion } from "../support/schema.js";

/** A raw value where a converter takes the SDK type it has not checked yet. */
const raw = (x: unknown): never => x as never;
const full: stash.ConvertOptions = { ...opts, stash: "full" };
const mcpAll = { stdio: true, http: true, sse: true, acp: true };
const modelsList = {
  currentModelId: "m",
  availableModels: [
    { modelId: "m", name: "M" },
    { modelId: "n", name: "N" },
  ],
};
const agentConfig: mode.AgentConfig = {
  configOptions: [
    { id: "mode", name: "Mode", type: "select", currentValue: "a", options: [{ value: "a", name: "A" }] },
  ],
  modes: { currentModeId: "a", availableModes: [{ id: "a", name: "A" }] },
  models: modelsList,
};
const sent: message.SentMessage = {
  v1Id: "m",
  blocks: [{ type: "text", text: "he" }],
  started: true,
  rev: 0,
};
const plans: plan.PlansMap = new Map([["p", { type: "items", planId: "p", entries: [] }]]);
const sessionCtx = {
  ...opts,
  agentMcp: mcpAll,
  onUnsupported: "drop" as const,
  platform: "posix" as const,
  agentSupportsDirectories: true,
};
const acc = (): configOption.Acc => ({ opts, lost: [] });

/**
 * How each converter is called: `x` (and `y`, where it takes two) where a peer's data goes, the
 * engine's own values (options, contexts, state) valid. `shape`: a schema `$defs` entry its input
 * follows, so shaped inputs (with one node replaced by any JSON) reach past the first checks.
 */
interface Spec {
  readonly call: (x: unknown, y: unknown) => unknown;
  readonly shape?: readonly [SchemaVersion, string];
}

const specs: Record<string, Spec> = {
  "auth.authMethodToV2": { call: (x) => auth.authMethodToV2(raw(x), opts), shape: ["v1", "AuthMethod"] },
  "auth.authMethodToV1": { call: (x) => auth.authMethodToV1(raw(x), full), shape: ["v2", "AuthMethod"] },
  // The engine hands these an array (initialize.ts checks).
  "auth.authMethodsToV1": { call: (x) => auth.authMethodsToV1(Array.isArray(x) ? x : [x], full) },
  "auth.authMethodsToV2": { call: (x) => auth.authMethodsToV2(Array.isArray(x) ? x : [x], opts) },
  "auth.restoreOmitted": { call: (x, y) => auth.restoreOmitted(Array.isArray(x) ? x : [x], y) },
  "auth.v1Visible": { call: (x) => auth.v1Visible(x, opts), shape: ["v2", "AuthMethod"] },

  "capabilities.clientCapabilitiesToV2": {
    call: (x) => capabilities.clientCapabilitiesToV2(x, opts, { terminalAuth: true }),
    shape: ["v1", "ClientCapabilities"],
  },
  "capabilities.clientCapabilitiesToV1": {
    call: (x) => capabilities.clientCapabilitiesToV1(x, full, { terminalAuth: true, terminalOutput: true }),
    shape: ["v2", "ClientCapabilities"],
  },
  "capabilities.agentCapabilitiesToV1": {
    call: (x) => capabilities.agentCapabilitiesToV1(x, full, { authMethodsNonEmpty: true }),
    shape: ["v2", "AgentCapabilities"],
  },
  "capabilities.agentCapabilitiesToV2": {
    call: (x) => capabilities.agentCapabilitiesToV2(x, opts, { reverseAuthMethodsNonEmpty: false }),
    shape: ["v1", "AgentCapabilities"],
  },
  "capabilities.clientFlagsFromV1": { call: (x) => capabilities.clientFlagsFromV1(x) },
  "capabilities.agentFlagsFromV1": { call: (x) => capabilities.agentFlagsFromV1(x) },
  "capabilities.agentFlagsFromV2": { call: (x, y) => capabilities.agentFlagsFromV2(x, y) },

  "command.availableCommandsToV1": {
    call: (x) => command.availableCommandsToV1(raw(x), full),
    shape: ["v2", "AvailableCommandsUpdate"],
  },
  "command.availableCommandsToV2": {
    call: (x) => command.availableCommandsToV2(raw(x), opts),
    shape: ["v1", "AvailableCommandsUpdate"],
  },

  "configOption.expectObject": { call: (x) => configOption.expectObject(x, ["x"]) },
  "configOption.expectString": { call: (x) => configOption.expectString(x, ["x"]) },
  "configOption.expectArray": { call: (x) => configOption.expectArray(x, ["x"]) },
  "configOption.isBridgeModeOption": { call: (x) => configOption.isBridgeModeOption(x) },
  "configOption.listToV1": {
    call: (x) => configOption.listToV1(x, ["configOptions"], { booleanOptions: false }, acc()),
  },
  "configOption.listToV2": { call: (x, y) => configOption.listToV2(x, ["configOptions"], y, acc()) },
  "configOption.agentModeOptionIndex": { call: (x) => configOption.agentModeOptionIndex(x) },
  "configOption.syntheticModeOptionId": { call: (x) => configOption.syntheticModeOptionId(x) },
  "configOption.isBridgeModes": { call: (x) => configOption.isBridgeModes(x) },
  "configOption.modesRole": { call: (x, y) => configOption.modesRole(x, y) },
  "configOption.syntheticModeOption": { call: (x, y) => configOption.syntheticModeOption(x, y, opts) },
  "configOption.mergedListToV2": {
    call: (x, y) => configOption.mergedListToV2(x, ["configOptions"], undefined, y, acc(), modelsList),
  },
  "configOption.setConfigOptionResponseToV1": {
    call: (x) => configOption.setConfigOptionResponseToV1(x, { booleanOptions: true }, full),
    shape: ["v2", "SetSessionConfigOptionResponse"],
  },
  "configOption.setConfigOptionResponseToV2": {
    call: (x, y) => configOption.setConfigOptionResponseToV2(x, { modes: y, models: modelsList }, opts),
    shape: ["v1", "SetSessionConfigOptionResponse"],
  },
  "configOption.configOptionUpdateToV1": {
    call: (x) => configOption.configOptionUpdateToV1(x, { booleanOptions: false }, full),
    shape: ["v2", "ConfigOptionUpdate"],
  },
  "configOption.configOptionUpdateToV2": {
    call: (x, y) => configOption.configOptionUpdateToV2(x, { modes: y }, opts),
    shape: ["v1", "ConfigOptionUpdate"],
  },
  "configOption.setConfigOptionRequestToV2": {
    call: (x, y) => configOption.setConfigOptionRequestToV2(x, { options: y }, opts),
    shape: ["v1", "SetSessionConfigOptionRequest"],
  },
  "configOption.setConfigOptionRequestToV1": {
    call: (x) => configOption.setConfigOptionRequestToV1(x),
    shape: ["v2", "SetSessionConfigOptionRequest"],
  },

  "content.contentBlockToV1": { call: (x) => content.contentBlockToV1(raw(x), full), shape: ["v2", "ContentBlock"] },
  "content.promptBlockToV1": { call: (x) => content.promptBlockToV1(raw(x), opts), shape: ["v2", "ContentBlock"] },
  "content.contentBlockToV2": { call: (x) => content.contentBlockToV2(raw(x), full), shape: ["v1", "ContentBlock"] },
  "content.expectObject": { call: (x) => content.expectObject(x, ["x"]) },
  "content.expectString": { call: (x) => content.expectString(x, ["x"]) },

  "diff.diffToV2": {
    call: (x, y) =>
      diff.diffToV2(raw(x), { opts: full, cwd: "/w", toolKind: typeof y === "string" ? y : "edit", stage: "applied" }),
    shape: ["v1", "Diff"],
  },
  "diff.diffToV1": {
    call: (x) => diff.diffToV1(raw(x), { opts: full, rendering: "full", group: 1, files: new Map([["/w/a", "a\n"]]) }),
    shape: ["v2", "Diff"],
  },
  "diff.diffFilePaths": { call: (x) => [diff.diffFilePaths(x, 1, "/w"), diff.diffFilePaths(x, 2, "C:\\w")] },
  "diff.diffStashOf": { call: (x) => diff.diffStashOf(x) },

  "directories.checkPathField": {
    call: (x) => [directories.checkPathField(x, "cwd", "posix"), directories.checkPathField(x, "cwd", "windows")],
  },
  "directories.validateAdditionalDirectories": {
    call: (x) => directories.validateAdditionalDirectories(x, { agentSupports: false, platform: "windows" }),
    shape: ["v2", "NewSessionRequest"],
  },
  "directories.takeListDirectoriesFilter": {
    call: (x) => directories.takeListDirectoriesFilter(x, { agentSupports: false, platform: "posix" }),
    shape: ["v2", "ListSessionsRequest"],
  },

  "elicitation.elicitationRequestToV1": {
    call: (x) => elicitation.elicitationRequestToV1(raw(x), { opts: full, requestIdToV1: () => 1 }),
    shape: ["v2", "CreateElicitationRequest"],
  },
  "elicitation.elicitationRequestToV2": {
    call: (x) => elicitation.elicitationRequestToV2(raw(x), { opts, requestIdToV2: () => undefined }),
    shape: ["v1u", "CreateElicitationRequest"],
  },
  "elicitation.elicitationResponseToV1": {
    call: (x) => elicitation.elicitationResponseToV1(raw(x), full),
    shape: ["v2", "CreateElicitationResponse"],
  },
  "elicitation.elicitationResponseToV2": {
    call: (x) => elicitation.elicitationResponseToV2(raw(x)),
    shape: ["v1u", "CreateElicitationResponse"],
  },

  "error.errorToV2": { call: (x) => error.errorToV2(raw(x), { sessionId: "s" }, full), shape: ["v1", "Error"] },

  "initialize.clientFacingVersion": { call: (x) => initialize.clientFacingVersion(x) },
  "initialize.retryVersionFrom": { call: (x) => initialize.retryVersionFrom(x) },
  "initialize.answeredVersion": { call: (x) => initialize.answeredVersion(x) },
  "initialize.bridgeMarkerOf": { call: (x) => initialize.bridgeMarkerOf(x) },
  "initialize.initializeRequestToV2": {
    call: (x) => initialize.initializeRequestToV2(x, full, { terminalAuth: true }),
    shape: ["v1", "InitializeRequest"],
  },
  "initialize.initializeRequestToV1": {
    call: (x) => initialize.initializeRequestToV1(x, opts, { lenient: true, terminalOutput: true }),
    shape: ["v2", "InitializeRequest"],
  },
  "initialize.initializeResponseToV1": {
    call: (x) => initialize.initializeResponseToV1(x, full),
    shape: ["v2", "InitializeResponse"],
  },
  "initialize.initializeResponseToV2": {
    call: (x) => initialize.initializeResponseToV2(x, opts),
    shape: ["v1", "InitializeResponse"],
  },

  "mcp.mcpServerToV2": {
    call: (x) => mcp.mcpServerToV2(x, { ...opts, agentMcp: { stdio: true, http: false }, onUnsupported: "reject" }),
    shape: ["v1", "McpServer"],
  },
  "mcp.mcpServerToV1": { call: (x) => mcp.mcpServerToV1(x, { ...full, agentMcp: mcpAll }), shape: ["v2", "McpServer"] },
  "mcp.mcpServersToV2": {
    call: (x) => mcp.mcpServersToV2(raw(x), { ...opts, agentMcp: mcpAll, onUnsupported: "drop" }),
  },
  "mcp.mcpServersToV1": { call: (x) => mcp.mcpServersToV1(raw(x), { ...opts, agentMcp: mcpAll }) },

  "message.chunkToV1": {
    call: (x) => message.chunkToV1(raw(x), sent, { kind: "agent", firstKind: "agent", shownMaxChars: 8 }, full),
    shape: ["v2", "ContentChunk"],
  },
  "message.upsertToV1Chunks": {
    call: (x) =>
      message.upsertToV1Chunks(
        raw(x),
        sent,
        { kind: "thought", firstKind: "agent", shownMaxChars: 8, redactionNotice: true },
        full,
      ),
    shape: ["v2", "AgentMessage"],
  },
  "message.v1ChunkToV2Updates": {
    call: (x) =>
      message.v1ChunkToV2Updates(
        raw(x),
        // As the engine makes it: an upsert under reconstruction always has its content list.
        {
          kind: "agent",
          v1Id: "m",
          remaining: 1,
          update: { sessionUpdate: "agent_message", messageId: "m", content: [] },
        },
        { kind: "agent", messageId: "m", synthetic: false },
        opts,
      ),
    shape: ["v1", "ContentChunk"],
  },

  "mode.modeBinding": { call: (x) => mode.modeBinding(x) },
  "mode.synthesizeModes": { call: (x) => mode.synthesizeModes(x, ["modes"], full) },
  "mode.modesFromOptions": { call: (x) => mode.modesFromOptions(x, full) },
  "mode.setModeToSetConfigOption": {
    call: (x) => mode.setModeToSetConfigOption(x, { configId: "mode", values: new Map([["a", "a"]]) } as never),
    shape: ["v1", "SetSessionModeRequest"],
  },
  "mode.setConfigOptionResponseToSetModeResponse": { call: (x) => mode.setConfigOptionResponseToSetModeResponse(x) },
  "mode.currentModeUpdateFor": { call: (x, y) => mode.currentModeUpdateFor(x, y, full) },
  "mode.optionsChangedBeyondMode": { call: (x, y) => mode.optionsChangedBeyondMode(x, y) },
  "mode.configOptionUpdateToV1Updates": {
    call: (x, y) => mode.configOptionUpdateToV1Updates(x, y, { booleanOptions: false, sessionHasModes: true }, full),
    shape: ["v2", "ConfigOptionUpdate"],
  },
  "mode.agentConfigFromResult": { call: (x) => mode.agentConfigFromResult(x) },
  "mode.setConfigOptionOnSyntheticToSetMode": {
    call: (x) => mode.setConfigOptionOnSyntheticToSetMode(x, agentConfig),
    shape: ["v2", "SetSessionConfigOptionRequest"],
  },
  "mode.setModeResponseToSetConfigOptionResponse": {
    call: (x) => mode.setModeResponseToSetConfigOptionResponse(x, agentConfig, opts),
  },
  "mode.currentModeUpdateToConfigOptionUpdate": {
    call: (x) => mode.currentModeUpdateToConfigOptionUpdate(x, agentConfig, opts),
    shape: ["v1", "CurrentModeUpdate"],
  },

  "models.legacyModels": { call: (x) => models.legacyModels(x) },
  "models.hasModelOption": { call: (x) => models.hasModelOption(x) },
  "models.modelOptionId": { call: (x) => models.modelOptionId(x, ["model"]) },
  "models.isBridgeModelOption": { call: (x) => models.isBridgeModelOption(x) },
  "models.setModelToSetConfigOption": { call: (x, y) => models.setModelToSetConfigOption(x, y) },
  "models.setConfigOptionToSetModel": {
    call: (x) => models.setConfigOptionToSetModel(x, modelsList),
    shape: ["v2", "SetSessionConfigOptionRequest"],
  },

  "notice.noticeToV2": { call: (x) => notice.noticeToV2(raw(x)) },
  "notice.compactionUpdateToV2": { call: (x) => notice.compactionUpdateToV2(raw(x), full) },
  "notice.compactionSummaryChunkToV2": { call: (x) => notice.compactionSummaryChunkToV2(raw(x), full) },
  "notice.gatedUpdateToV1": {
    call: (x) =>
      notice.gatedUpdateToV1(
        raw(x),
        { notices: false, compaction: false, noticeFallback: "agent_message", fallbackMessageId: "n" },
        full,
      ),
    shape: ["v2", "SessionUpdate"],
  },

  "permission.permissionRequestToV1": {
    call: (x) =>
      permission.permissionRequestToV1(raw(x), {
        opts: full,
        v2RequestId: 7,
        isAnnounced: (id) => id.length % 2 === 0,
        unknownSubjectPolicy: "synthesize",
        diffRendering: "full",
      }),
    shape: ["v2", "RequestPermissionRequest"],
  },
  "permission.permissionRequestToV2": {
    call: (x) =>
      permission.permissionRequestToV2(raw(x), {
        opts,
        seen: (id) => id.length % 2 === 0,
        lastTitle: () => "t",
        lastKind: () => "edit",
        cwd: "/w",
        extensionTerminals: new Set(["term"]),
      }),
    shape: ["v1", "RequestPermissionRequest"],
  },
  "permission.permissionResponseToV1": {
    call: (x) => permission.permissionResponseToV1(raw(x), full),
    shape: ["v2", "RequestPermissionResponse"],
  },
  "permission.permissionResponseToV2": {
    call: (x) => permission.permissionResponseToV2(raw(x)),
    shape: ["v1", "RequestPermissionResponse"],
  },

  "plan.applyPlanUpdate": { call: (x) => plan.applyPlanUpdate(plans, raw(x)), shape: ["v2", "PlanUpdate"] },
  "plan.plansToV1": { call: (x) => plan.plansToV1(plans, raw(x), full), shape: ["v2", "PlanUpdate"] },
  "plan.planToV2Updates": { call: (x) => plan.planToV2Updates(raw(x), plans, opts), shape: ["v1", "Plan"] },
  "plan.planUpdateToV2Native": { call: (x) => plan.planUpdateToV2Native(raw(x)), shape: ["v1u", "PlanUpdate"] },
  "plan.planUpdateToV1Native": { call: (x) => plan.planUpdateToV1Native(raw(x), full), shape: ["v2", "PlanUpdate"] },

  "prompt.promptRequestToV2": { call: (x) => prompt.promptRequestToV2(raw(x), full), shape: ["v1", "PromptRequest"] },
  "prompt.promptRequestToV1": { call: (x) => prompt.promptRequestToV1(raw(x), opts), shape: ["v2", "PromptRequest"] },
  "prompt.idleToPromptResponse": {
    call: (x) => prompt.idleToPromptResponse(raw(x), { cancelRequested: true }, full),
    shape: ["v2", "IdleStateUpdate"],
  },
  "prompt.promptResponseToIdle": { call: (x) => prompt.promptResponseToIdle(raw(x)), shape: ["v1", "PromptResponse"] },
  "prompt.promptErrorToIdle": {
    call: (x) => prompt.promptErrorToIdle(raw(x), { cancelRequested: false }, opts),
    shape: ["v1", "Error"],
  },

  "sessionInfo.sessionInfoToV1": {
    call: (x) => sessionInfo.sessionInfoToV1(raw(x)),
    shape: ["v2", "SessionInfoUpdate"],
  },
  "sessionInfo.sessionInfoToV2": {
    call: (x) => sessionInfo.sessionInfoToV2(raw(x), opts),
    shape: ["v1", "SessionInfoUpdate"],
  },

  "sessionResult.newSessionResponseToV1": {
    call: (x) => sessionResult.newSessionResponseToV1(x, { booleanOptions: false }, full),
    shape: ["v2", "NewSessionResponse"],
  },
  "sessionResult.resumeResultToLoadResponse": {
    call: (x) => sessionResult.resumeResultToLoadResponse(x, { booleanOptions: true }, full),
    shape: ["v2", "ResumeSessionResponse"],
  },
  "sessionResult.resumeSessionResponseToV1": {
    call: (x) => sessionResult.resumeSessionResponseToV1(x, { booleanOptions: false }, full),
    shape: ["v2", "ResumeSessionResponse"],
  },
  "sessionResult.forkSessionResponseToV1": {
    call: (x) => sessionResult.forkSessionResponseToV1(x, { booleanOptions: false }, full),
    shape: ["v2u", "ForkSessionResponse"],
  },
  "sessionResult.newSessionResponseToV2": {
    call: (x, y) => sessionResult.newSessionResponseToV2(x, { availableCommands: Array.isArray(y) ? y : [y] }, opts),
    shape: ["v1", "NewSessionResponse"],
  },
  "sessionResult.loadResponseToResumeResult": {
    call: (x) => sessionResult.loadResponseToResumeResult(x, {}, opts),
    shape: ["v1", "LoadSessionResponse"],
  },
  "sessionResult.resumeSessionResponseToV2": {
    call: (x) => sessionResult.resumeSessionResponseToV2(x, {}, opts),
    shape: ["v1", "ResumeSessionResponse"],
  },
  "sessionResult.forkSessionResponseToV2": {
    call: (x) => sessionResult.forkSessionResponseToV2(x, {}, opts),
    shape: ["v1u", "ForkSessionResponse"],
  },

  "session.newSessionRequestToV2": {
    call: (x) => session.newSessionRequestToV2(raw(x), sessionCtx),
    shape: ["v1", "NewSessionRequest"],
  },
  "session.newSessionRequestToV1": {
    call: (x) => session.newSessionRequestToV1(raw(x), { ...sessionCtx, ...full, platform: "windows" }),
    shape: ["v2", "NewSessionRequest"],
  },
  "session.loadSessionRequestToV2": {
    call: (x) => session.loadSessionRequestToV2(raw(x), sessionCtx),
    shape: ["v1", "LoadSessionRequest"],
  },
  "session.resumeSessionRequestToV2": {
    call: (x) => session.resumeSessionRequestToV2(raw(x), sessionCtx),
    shape: ["v1", "ResumeSessionRequest"],
  },
  "session.resumeSessionRequestToV1": {
    call: (x) => session.resumeSessionRequestToV1(raw(x), { ...sessionCtx, viaLoad: true }),
    shape: ["v2", "ResumeSessionRequest"],
  },
  "session.forkSessionRequestToV2": {
    call: (x) => session.forkSessionRequestToV2(raw(x), sessionCtx),
    shape: ["v1u", "ForkSessionRequest"],
  },
  "session.forkSessionRequestToV1": {
    call: (x) => session.forkSessionRequestToV1(raw(x), sessionCtx),
    shape: ["v2u", "ForkSessionRequest"],
  },
  "session.listSessionsRequestToV2": {
    call: (x) => session.listSessionsRequestToV2(raw(x), sessionCtx),
    shape: ["v1", "ListSessionsRequest"],
  },
  "session.listSessionsRequestToV1": {
    call: (x) => session.listSessionsRequestToV1(raw(x), { ...sessionCtx, agentSupportsDirectories: false }),
    shape: ["v2", "ListSessionsRequest"],
  },
  "session.listSessionsResponseToV1": {
    call: (x) => session.listSessionsResponseToV1(x, full),
    shape: ["v2", "ListSessionsResponse"],
  },
  "session.listSessionsResponseToV2": {
    call: (x) => session.listSessionsResponseToV2(x, opts),
    shape: ["v1", "ListSessionsResponse"],
  },

  "stash.unstash": { call: (x) => [stash.unstash(x, 1), stash.unstash({ "acp-bridge": x }, 2)] },

  "terminal.decodeBase64": { call: (x) => terminal.decodeBase64(x) },
  "terminal.conventionOf": { call: (x) => terminal.conventionOf(x) },
  "terminal.commandOf": { call: (x) => terminal.commandOf(x) },

  "toolCall.isPermissionPreAnnouncement": { call: (x) => toolCall.isPermissionPreAnnouncement(x) },
  "toolCall.toolCallToV1": {
    call: (x) => toolCall.toolCallToV1(raw(x), { opts: full, titleHint: "t", diffRendering: "safe" }),
    shape: ["v2", "ToolCallUpdate"],
  },
  "toolCall.toolCallUpdateToV1": {
    call: (x) =>
      toolCall.toolCallUpdateToV1(raw(x), {
        opts: full,
        renderTerminal: (id) => ({ type: "content", content: { type: "text", text: id } }),
        diffRendering: "full",
      }),
    shape: ["v2", "ToolCallUpdate"],
  },
  "toolCall.restoresV1ToolCall": { call: (x) => toolCall.restoresV1ToolCall(x) },
  "toolCall.restoresV1Update": { call: (x) => toolCall.restoresV1Update(x) },
  "toolCall.toolCallUpdateToV2": {
    call: (x) => toolCall.toolCallUpdateToV2(raw(x), { opts, seen: false, cwd: "/w", toolKind: "edit" }),
    shape: ["v1", "ToolCallUpdate"],
  },
  "toolCall.toolCallMessageToV2": {
    call: (x) =>
      toolCall.toolCallMessageToV2(raw(x), {
        opts: full,
        seen: true,
        cwd: "C:\\w",
        extensionTerminals: new Set(["term"]),
        lastContent: [{ type: "content", content: { type: "text", text: "a" } }],
        emitContentChunks: true,
      }),
    shape: ["v1", "SessionUpdate"],
  },
  "toolCall.toolContentToV2": {
    // An item near v1's shape, or any value, as a list of one; a list as it is.
    call: (x) =>
      toolCall.toolContentToV2(Array.isArray(x) ? x : [x], {
        opts: full,
        seen: false,
        cwd: "/w",
        toolKind: "delete",
        files: new Map([["/w/a.ts", "a\nb\n"]]),
        diffStage: "pending",
      }),
    shape: ["v1", "ToolCallContent"],
  },

  "usage.usageToV1": {
    call: (x) => usage.usageToV1(raw(x), { amount: 1, currency: "USD" }, full),
    shape: ["v2", "UsageUpdate"],
  },
  "usage.usageToV2": { call: (x) => usage.usageToV2(raw(x), true, opts), shape: ["v1", "UsageUpdate"] },
  "usage.isCost": { call: (x) => usage.isCost(x), shape: ["v2", "Cost"] },
  "plan.isPlanEntry": { call: (x) => plan.isPlanEntry(x), shape: ["v1", "PlanEntry"] },
  "plan.isV1PlanEntry": { call: (x) => plan.isV1PlanEntry(x), shape: ["v2", "PlanEntry"] },
};

/** Exported functions of src/convert that fit the rule but take no peer data, and why. */
const notConverters: Record<string, string> = {
  "check.unwrap": "unwraps a result inside a converter (throws ConvertFailure by contract)",
  "result.ok": "builds a result",
  "result.attempt": "runs a converter body",
};

const modules: Record<string, Record<string, unknown>> = {
  auth,
  capabilities,
  command,
  configOption,
  content,
  diff,
  directories,
  elicitation,
  error,
  initialize,
  mcp,
  message,
  mode,
  models,
  notice,
  permission,
  plan,
  prompt,
  sessionInfo,
  sessionResult,
  session,
  stash,
  terminal,
  toolCall,
  usage,
};

/** `config-option.ts` → `configOption`. */
const moduleKey = (file: string) => basename(file, ".ts").replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** The exported functions of src/convert that return a result or take raw peer data first. */
function convertersInSource(): string[] {
  const dir = join(import.meta.dirname, "../../src/convert");
  const out: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
    const sf = ts.createSourceFile(file, readFileSync(join(dir, file), "utf8"), ts.ScriptTarget.Latest, true);
    for (const st of sf.statements) {
      if (!ts.isFunctionDeclaration(st) || st.name === undefined) continue;
      if (!st.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
      const returns = st.type?.getText(sf) ?? "";
      const first = st.parameters[0]?.type?.getText(sf) ?? "";
      if (/^(Conv|Converted)</.test(returns) || first === "unknown" || first === "readonly unknown[]")
        out.push(`${moduleKey(file)}.${st.name.text}`);
    }
  }
  return out.sort();
}

/** `v` with its `n`-th node (depth first, modulo their count) replaced by `junk`. */
function replaceNode(v: unknown, n: number, junk: unknown): unknown {
  const copy: unknown = JSON.parse(JSON.stringify(v));
  const nodes: { parent: Record<string, unknown> | unknown[]; key: string | number }[] = [];
  const walk = (x: unknown) => {
    if (Array.isArray(x))
      x.forEach((item, i) => {
        nodes.push({ parent: x, key: i });
        walk(item);
      });
    else if (typeof x === "object" && x !== null)
      for (const [k, item] of Object.entries(x)) {
        nodes.push({ parent: x as Record<string, unknown>, key: k });
        walk(item);
      }
  };
  walk(copy);
  if (nodes.length === 0) return junk;
  const at = nodes[n % nodes.length]!;
  (at.parent as Record<string | number, unknown>)[at.key] = junk;
  return copy;
}

/** Any JSON, and (for a converter with a shape) values of that shape with one node replaced by any JSON. */
function inputs(spec: Spec): fc.Arbitrary<unknown> {
  if (!spec.shape) return anyJson;
  const shaped = arb(spec.shape[0], spec.shape[1]);
  return fc.oneof(
    { weight: 1, arbitrary: anyJson },
    { weight: 1, arbitrary: shaped },
    {
      weight: 3,
      arbitrary: fc.tuple(shaped, fc.nat(), anyJson).map(([v, n, junk]) => replaceNode(v, n, junk)),
    },
  );
}

/** What the converter did: returned, or threw `ConvertFailure`; anything else is the bug this test looks for. */
function outcome(spec: Spec, x: unknown, y: unknown): string | undefined {
  try {
    const r = spec.call(x, y);
    if (typeof r === "object" && r !== null && "ok" in r && r.ok === false) {
      const e = (r as { error?: { code?: unknown; data?: { reason?: unknown } } }).error;
      if (typeof e?.code !== "number" || typeof e.data?.reason !== "string")
        return `an untyped error ${JSON.stringify(e)}`;
    }
    return undefined;
  } catch (e) {
    if (e instanceof ConvertFailure) return undefined;
    return e instanceof Error ? `${e.name}: ${e.message}\n${e.stack ?? ""}` : "threw a non-Error";
  }
}

describe("every converter, given any JSON value, returns or throws only its conversion error", () => {
  it("covers every exported converter of src/convert", () => {
    const listed = [...Object.keys(specs), ...Object.keys(notConverters)].sort();
    expect(listed).toEqual(convertersInSource());
    for (const name of Object.keys(specs)) {
      const [mod, fn] = name.split(".") as [string, string];
      expect(typeof modules[mod]?.[fn], name).toBe("function");
    }
  });

  for (const [name, spec] of Object.entries(specs))
    it(name, () => {
      fc.assert(
        fc.property(inputs(spec), anyJson, (x, y) => {
          expect(outcome(spec, x, y)).toBeUndefined();
        }),
        { numRuns: numRuns() },
      );
    });
});

describe("keys a peer chose", () => {
  // JSON.parse makes `__proto__` an own key; an assignment copying it would set the prototype instead.
  const parsed = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>;

  it("keeps an own __proto__ key of a _meta the stash envelope is taken from", () => {
    const meta = parsed('{"__proto__":{"x":1},"acp-bridge":{"v":1,"from":2,"hadMeta":true}}');
    const { meta: rest } = stash.unstash(meta, 2);
    expect(Object.keys(rest as object)).toEqual(["__proto__"]);
    expect(JSON.stringify(rest)).toBe('{"__proto__":{"x":1}}');
  });

  it("keeps an own __proto__ key of an idle update in its v1 answer", () => {
    const idle = parsed('{"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn","__proto__":{"x":1}}');
    const r = prompt.idleToPromptResponse(raw(idle), { cancelRequested: false }, full);
    expect(r.ok && JSON.stringify(r.value)).toContain('"__proto__":{"x":1}');
  });
});
