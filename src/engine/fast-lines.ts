// Fast paths of the bridge core: lines whose handling a cheap scan proves, forwarded without
// parsing (performance budget, issue 9). Each is proven byte-for-byte equal to the full path by a
// property test (test/engine/fast-lines.test.ts); whatever a scan cannot prove takes the full path.
import { kindInfo } from "../../mappings/message.js";
import { notificationMethod } from "../wire/scan.js";
import {
  Literal,
  SLOT,
  scanUpdate,
  scanUpdateAfresh,
  scanUpdateByTemplate,
  type ScannedUpdate,
} from "../wire/update-scan.js";
import type { Link } from "./link.js";
import type { Admit, Translator } from "./translator.js";
import { scanCall } from "../wire/call-scan.js";
import { scanMembers, scanMembersByTemplate } from "../wire/member-scan.js";
import { ROUTE_COMMANDS, ROUTE_MEMBERS, ROUTE_UNKNOWN, ROUTE_UPDATE, TagRoutes } from "../wire/update-tag.js";

/** The tags and content type the translating fast paths (v1-client/updates/, v2-client/updates/) compare as bytes. */
export const TOOL_CALL_UPDATE = new Literal("tool_call_update");
export const TEXT = new Literal("text");
/** A user's chunk: direction A takes it when its prompt lifecycle decides at once (`fastUserChunks`). */
export const USER_CHUNK = new Literal(kindInfo("user").chunk);
/** The chunks both take: an agent's message and thought (a user chunk waits on a prompt's ack or echo). */
const FAST_CHUNKS = (["agent", "thought"] as const).map((kind) => ({ kind, tag: new Literal(kindInfo(kind).chunk) }));

/** The tags both translating engines' `fastUpdate` take from the update scan. */
const UPDATE_SCAN_TAGS = [TOOL_CALL_UPDATE, ...FAST_CHUNKS.map((c) => c.tag)];
const COMMANDS_TAG = new Literal("available_commands_update");

/** The kind of chunk a scanned update is, if it is one the fast paths take. */
export function fastChunkKind(u: ScannedUpdate): "agent" | "thought" | undefined {
  for (const c of FAST_CHUNKS) if (u.is(SLOT.sessionUpdate, c.tag)) return c.kind;
  return undefined;
}

/** Handles a line from `from` and returns true, or returns false having done nothing. */
export type FastPath = (from: Link, line: Buffer) => boolean;

/**
 * Longest line the pass-through scan and the call scan take: their byte loops cost more per byte
 * than JSON.parse, and win by building nothing, which pays only on short lines (the bulk of a
 * stream: chunks, tool updates; requests and results of extensions and pings).
 */
export const MAX_FAST_LINE_BYTES = 1024;
/**
 * Longest line a translating mode scans: there the full path costs a parse, the engine's rendering
 * and a serialization, so the scan pays on longer lines too (a chunk of a few kilobytes).
 */
const MAX_FAST_UPDATE_BYTES = 16 * 1024;

/**
 * The fast path of a negotiated mode, if it has one. Pass-through forwards every notification as
 * its bytes but `$/cancel_request`, whose request id it maps (passthrough.ts): here, a notification
 * proven so by the scan goes to the other side untouched, parsed by nobody. A translating mode
 * takes the agent's `session/update` lines of the shape update-scan.ts proves, when its engine can
 * render them from the scan (`Translator.fastUpdate`). Every mode takes the calls whose translation
 * only maps their id (`Translator.fastCall`, call-scan.ts).
 */
export function fastPathFor(
  translator: Translator,
  client: Link,
  agent: Link,
  maxDepth: number,
  admit: Admit,
): FastPath | undefined {
  const fastUpdate = translator.fastUpdate?.bind(translator);
  const fastCommands = translator.fastCommands?.bind(translator);
  const commandsScan = translator.commandsScan;
  const fastCall = translator.fastCall?.bind(translator);
  const fastMembers = translator.fastMembers?.bind(translator);
  const memberTags = translator.memberTags ?? [];
  const memberTagsAnywhere = translator.memberTagsAnywhere ?? [];
  const memberDeclines = translator.memberDeclines ?? [];
  /** A request or result whose translation only maps its id (an SDK writes it as the scan wants). */
  const call = (from: Link, line: Buffer): boolean | undefined => {
    if (fastCall === undefined) return undefined;
    const c = scanCall(line, maxDepth);
    return c === undefined ? undefined : fastCall(from, c, line, admit);
  };
  // Which scans may take an update of each tag: the others do not run for it (a tag no fast path
  // takes goes to the full path unscanned).
  const routes = new TagRoutes();
  // Both engines' `fastToolCallUpdate` read a tool call's update only with its tag first (their
  // v1 and v2 lines have it there): the update scan does not run for one whose tag comes later.
  for (const t of UPDATE_SCAN_TAGS) routes.add(t.bytes, ROUTE_UPDATE, t === TOOL_CALL_UPDATE ? 0 : ROUTE_UPDATE);
  if (translator.fastUserChunks === true) routes.add(USER_CHUNK.bytes, ROUTE_UPDATE, ROUTE_UPDATE);
  // The command-list scan reads a list only after the tag first.
  if (fastCommands !== undefined && commandsScan !== undefined) routes.add(COMMANDS_TAG.bytes, ROUTE_COMMANDS, 0);
  if (fastMembers !== undefined) for (const t of memberTags) routes.add(t, ROUTE_MEMBERS);
  if (fastUpdate !== undefined)
    return (from, line) => {
      if (line.length > MAX_FAST_UPDATE_BYTES) return false;
      if (from === agent) {
        // A line a template fits (a streamed message's next chunk) needs no route.
        const templated = scanUpdateByTemplate(line, maxDepth);
        if (templated !== undefined && fastUpdate(templated)) return true;
        // Nor does one a member template fits (usage, a state, session info again): only lines of
        // the member route alone are kept as templates (below), so no other scan would take it.
        if (templated === undefined && fastMembers !== undefined) {
          const m = scanMembersByTemplate(line, maxDepth, memberTags, memberTagsAnywhere, memberDeclines);
          if (m !== undefined) return fastMembers(m);
        }
        const route = routes.of(line);
        let proven = templated !== undefined;
        if (!proven && (route & ROUTE_UPDATE) !== 0) {
          const u = scanUpdateAfresh(line, maxDepth);
          if (u !== undefined) {
            if (fastUpdate(u)) return true;
            proven = true;
          }
        }
        // A command list of the agent's version.
        if (!proven && (route & ROUTE_COMMANDS) !== 0) {
          const c = fastCommands === undefined || commandsScan === undefined ? undefined : commandsScan(line, maxDepth);
          if (c !== undefined) return fastCommands?.(c) === true;
        }
        // An update of members: also one of strings the engine's `fastUpdate` declined (it changed nothing).
        if ((route & ROUTE_MEMBERS) !== 0) {
          const m =
            fastMembers === undefined
              ? undefined
              : scanMembers(line, maxDepth, memberTags, memberTagsAnywhere, memberDeclines, route === ROUTE_MEMBERS);
          if (m !== undefined) return fastMembers?.(m) === true;
        }
        // A session/update read so is no request or result.
        if (route !== ROUTE_UNKNOWN) return false;
      }
      return line.length <= MAX_FAST_LINE_BYTES && call(from, line) === true;
    };
  if (translator.mode !== "pass") return undefined;
  const proven = translator.provenUpdates;
  return (from, line) => {
    // A long update the agent sent before (another session's command list): its rest was proven.
    if (line.length > MAX_FAST_LINE_BYTES)
      return from === agent && proven !== undefined && proven.proves(line) && client.forwardVerbatim(line);
    // The dominant line (an SDK's plain chunk or tool update) is proven fastest by the update scan:
    // what it takes is a `session/update` notification the general scan would take too.
    if (scanUpdate(line, maxDepth) === undefined) {
      const taken = call(from, line);
      if (taken !== undefined) return taken;
      const method = notificationMethod(line, maxDepth);
      if (method === undefined || method === "$/cancel_request") return false;
    }
    return (from === client ? agent : client).forwardVerbatim(line);
  };
}
