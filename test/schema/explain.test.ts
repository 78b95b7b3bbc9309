// The schema validator's problems are readable (issue 23, item 3): a tagged union is judged by the
// branch its tag names, not by every branch it failed; constants and types at one path are merged.
import { describe, expect, it } from "vitest";
import { check } from "../../src/schema/validate.js";

const update = (u: unknown) => ({ sessionId: "s", update: u });

describe("schema problems", () => {
  it("judge a tagged union by the branch its tag names", () => {
    const p = check("v1u", "SessionNotification", update({ sessionUpdate: "tool_call", title: "t", kind: "bogus" }));
    expect(p).toEqual([
      { path: "/update", message: "must have required property 'toolCallId'" },
      { path: "/update/kind", message: expect.stringMatching(/^must be one of "read", "edit", .*"other"$/) },
    ]);
  });

  it("name the tag itself when it matches no branch, with every tag allowed", () => {
    const p = check("v1u", "SessionNotification", update({ sessionUpdate: "nope" }));
    expect(p).toEqual([
      {
        path: "/update/sessionUpdate",
        message: expect.stringMatching(/^must be one of "user_message_chunk", .*"tool_call"/),
      },
    ]);
  });

  it("name a missing tag once, not each branch's missing fields", () => {
    const p = check("v1u", "SessionNotification", update({}));
    expect(p).toEqual([
      { path: "/update", message: expect.stringMatching(/^must have required property 'sessionUpdate' \(one of /) },
    ]);
  });

  it("take an untagged value to the one branch without a tag (v1's stdio MCP server)", () => {
    const p = check("v1u", "NewSessionRequest", {
      cwd: "/w",
      mcpServers: [{ name: "a", command: 5, args: [], env: [] }],
    });
    expect(p).toEqual([{ path: "/mcpServers/0/command", message: "must be string" }]);
  });

  it("follow nested tagged unions down to the wrong field", () => {
    const p = check(
      "v2u",
      "UpdateSessionNotification",
      update({
        sessionUpdate: "agent_message_chunk",
        messageId: "m",
        content: { type: "image", data: 3, mimeType: "image/png" },
      }),
    );
    expect(p).toEqual([{ path: "/update/content/data", message: "must be string" }]);
  });

  it("keep sibling problems of one value (not only the deepest)", () => {
    expect(check("v2u", "PromptRequest", { prompt: [] })).toEqual([
      { path: "/", message: "must have required property 'sessionId'" },
      { path: "/prompt", message: "must NOT have fewer than 1 items" },
    ]);
  });

  it("merge alternative types into one problem", () => {
    expect(check("v2u", "RequestId", null)).toEqual([{ path: "/", message: "must be integer or string" }]);
  });
});
