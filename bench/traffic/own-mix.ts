// The bench's own mix (its traffic until issue 21, kept as one row, "bench's own mix"): 70% message
// chunks repeating one plain ASCII sentence, 20% status-only tool-call updates, 10% thoughts.

/** Lines per tool call id: two of every ten lines update the current one (10: a tool call per 10 lines). */
export function ownUpdateLine(i: number, sessionId: string, version: number, toolSpan: number): string {
  const kind = i % 10;
  let update: unknown;
  if (kind < 7) {
    update = {
      sessionUpdate: "agent_message_chunk",
      ...(version === 2 || i % 2 === 0 ? { messageId: `m-${Math.floor(i / 50)}` } : {}),
      content: {
        type: "text",
        text: `chunk ${i}: the quick brown fox jumps over the lazy dog, streaming tokens to the editor. `,
      },
    };
  } else if (kind < 9) {
    update = {
      sessionUpdate: "tool_call_update",
      toolCallId: `t-${Math.floor(i / toolSpan)}`,
      status: "in_progress",
      title: `Read file src/module-${i % 97}.ts`,
    };
  } else {
    update = {
      sessionUpdate: "agent_thought_chunk",
      messageId: `th-${Math.floor(i / 50)}`,
      content: { type: "text", text: "considering the next step of the plan" },
    };
  }
  return JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId, update } }) + "\n";
}
