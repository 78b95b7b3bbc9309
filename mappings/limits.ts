// Every bound on what the bridge remembers per connection (issue 8 item 4, issue 10 item 5): the one
// table the engine reads its defaults from, and that README.md and SECURITY.md are checked against
// (test/docs/limits.test.ts). Defaults are generous: a real editor session never reaches them; they
// exist so that a peer that never closes, never answers or invents ids cannot grow the bridge.

interface LimitRow {
  /** `data.reason` of the JSON-RPC error when a request is refused at this limit. */
  readonly reason: string;
  readonly default: number;
  /** The command-line option that sets it; `undefined`: internal, a user never needs to change it. */
  readonly option: string | undefined;
  /** What is counted (SECURITY.md's table). */
  readonly what: string;
  /** What happens past it (SECURITY.md's table). */
  readonly past: string;
}

export const limits = {
  sessions: {
    reason: "max_sessions",
    default: 1024,
    option: "--max-sessions",
    what: "sessions tracked per connection (translating modes)",
    past:
      "the least recently used idle session is forgotten (a closed one first; its later updates are translated as in a fresh session); " +
      "when every session has a turn or a load in flight, a request that would open another is answered -32603 `max_sessions`, " +
      "and an agent notification for an unknown session is dropped with a warning (an agent update does not make a session recent)",
  },
  pendingRequests: {
    reason: "max_pending_requests",
    default: 1024,
    option: "--max-pending-requests",
    what: "unanswered requests from one peer (each side counted apart), in every mode",
    past: "a further request is answered -32603 `max_pending_requests` at once, never forwarded",
  },
  bridgeRequests: {
    reason: "max_bridge_requests",
    default: 4096,
    option: undefined,
    what: "requests the bridge itself awaits from one peer (forwarded and emulation calls)",
    past: "the call is not sent; its requester gets -32603 `max_bridge_requests` instead of an answer",
  },
  messages: {
    reason: "messages",
    default: 256,
    option: undefined,
    what: "messages per session whose shown content is remembered for upserts (v1 client, v2 agent)",
    past: "the least recently written is forgotten: a later upsert of it is shown as a new message",
  },
  messageIds: {
    reason: "message_ids",
    default: 4096,
    option: undefined,
    what: "message ids per session whose kind is remembered (collision renames)",
    past: "the least recently written is forgotten: a reuse of its id for another kind is no longer renamed",
  },
  aliases: {
    reason: "aliases",
    default: 1024,
    option: undefined,
    what: "v1 message ids per session given another id toward a v2 client (v2 client, v1 agent)",
    past: "the least recently written is forgotten: a later chunk under it keeps the agent's own id",
  },
  shownTextChars: {
    reason: "shown_text_chars",
    default: 0,
    option: undefined,
    what: "characters of one message kept verbatim to compute upserts (v1 client, v2 agent)",
    // 0: a stream's text is never retained (memory budget, issue 9); hashes give the same answers.
    past:
      "beyond it (by default at once) only the shown length and two 32-bit hashes are kept: an upsert that extends the shown text still becomes its suffix, " +
      "anything else becomes a replacement, exactly as with the text kept (barring a hash collision, about 1 in 2^64 by chance)",
  },
  gatheredBlocks: {
    reason: "gathered_blocks",
    default: 256,
    option: undefined,
    what: "blocks of one fanned-out upsert gathered back into one upsert (v2 client, v1 agent that is another bridge)",
    past: "what was gathered goes out as the upsert; the message's remaining chunks follow as chunks that extend it",
  },
  heldUserMessages: {
    reason: "held_user_messages",
    default: 256,
    option: undefined,
    what: "user-message updates held while a prompt awaits the agent's acknowledgement (v1 client, v2 agent)",
    past: "further ones are forwarded at once (the v1 client may then see the echo of its own prompt)",
  },
  toolCalls: {
    reason: "tool_calls",
    default: 1024,
    option: undefined,
    what: "tool calls remembered per session",
    past:
      "the least recently written is forgotten, finished ones before any running one (v1 client, v2 agent); " +
      "a late update of a forgotten call is its first sighting again: a v1 `tool_call` with a fallback title (v1 client), " +
      "a v2 `tool_call_update` converted as new (v2 client)",
  },
  toolCallContent: {
    reason: "tool_call_content",
    default: 512,
    option: undefined,
    what: "content items kept per tool call streamed in chunks to a v1 client (v1 replaces a tool call's whole content on each update)",
    past: "the oldest items give way to one text item saying how many earlier items the bridge omitted; later chunks still show",
  },
  shownContents: {
    reason: "shown_contents",
    default: 4,
    option: undefined,
    what: "tool-call content lists with a diff whose v1 rendering is remembered per connection, to repeat it on a completion (v1 client, v2 agent)",
    past: "the oldest is forgotten: a completion that repeats that content renders it again, its diffs' files read anew",
  },
  shownContentChars: {
    reason: "shown_content_chars",
    default: 65536,
    option: undefined,
    what: "characters of text in one remembered content rendering (v1 client, v2 agent)",
    past: "a larger rendering is not remembered: a completion that repeats it renders it again, its diffs' files read anew",
  },
  terminals: {
    reason: "terminals",
    default: 64,
    option: undefined,
    what: "terminals whose output is retained per session (v1 client, v2 agent)",
    past: "the least recently written is forgotten (with its retained output)",
  },
  conventionTerminals: {
    reason: "convention_terminals",
    default: 256,
    option: undefined,
    what: "terminals of the `_meta` convention remembered per session, and the tool call of each (v2 client, v1 agent)",
    past: "the least recently written is forgotten: its content items are no longer kept as terminal references",
  },
  editorToolBytes: {
    reason: "editor_tool_bytes",
    default: 8 * 1024 * 1024,
    option: "--editor-tools-max-bytes",
    what: "bytes of one editor tool call's text: a file read or written, a terminal's output (the editor's MCP server for a v2 agent)",
    past:
      "a larger write is refused as a tool error before the editor is asked; a larger read is answered as a tool error; " +
      "terminal output is asked of the editor with this `outputByteLimit` at most; an HTTP request body past it (plus 64 KiB of envelope) is answered 413",
  },
  editorToolCalls: {
    reason: "editor_tool_calls",
    default: 16,
    option: "--editor-tools-max-concurrent",
    what: "editor tool calls in flight per session (the editor's MCP server for a v2 agent)",
    past: "a further call is answered as a tool error at once; the editor is not asked",
  },
  editorConnections: {
    reason: "editor_connections",
    default: 16,
    option: undefined,
    what: "open connections to one session's editor MCP endpoint (loopback HTTP, or the stdio sub-command's socket)",
    past: "further connections are refused (closed) until one ends",
  },
  plans: {
    reason: "plans",
    default: 64,
    option: undefined,
    what: "plans per session (v1 client, v2 agent: a v1 plan shows the entries of every plan)",
    past: "the oldest plan is dropped from what v1 is shown",
  },
} as const satisfies Record<string, LimitRow>;
