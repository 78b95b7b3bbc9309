// Translated garbage (issue 10, item 3): a field a converter copies as it is must already have the
// type both versions give it; otherwise the conversion fails with -32602 naming the field, and the
// engine refuses the request or drops the notification. One case per violation class the fuzz
// suite found (test/fuzz, schema violations by method and path).
import { describe, expect, it } from "vitest";
import { availableCommandsToV1, availableCommandsToV2 } from "../../src/convert/command.js";
import { configOptionUpdateToV1, configOptionUpdateToV2 } from "../../src/convert/config-option.js";
import { contentBlockToV1, contentBlockToV2, promptBlockToV1 } from "../../src/convert/content.js";
import { elicitationRequestToV1, elicitationRequestToV2 } from "../../src/convert/elicitation.js";
import { mcpServerToV1, mcpServerToV2 } from "../../src/convert/mcp.js";
import { plansToV1, planToV2Updates } from "../../src/convert/plan.js";
import type { Conv } from "../../src/convert/result.js";
import { sessionInfoToV1, sessionInfoToV2 } from "../../src/convert/session-info.js";
import { defaultOptions as opts } from "../support/conv.js";
import { toolCallUpdateToV1, toolCallUpdateToV2 } from "../../src/convert/tool-call.js";
import { noticeToV2 } from "../../src/convert/notice.js";
import { newSessionResponseToV2 } from "../../src/convert/session-result.js";
import { usageToV1, usageToV2 } from "../../src/convert/usage.js";

/** A hostile raw value, passed where a converter takes the SDK type it has not checked yet. */
const raw = (x: unknown): never => x as never;
const mcp = { stdio: true, http: true, sse: true };

const cases: [string, () => Conv<unknown>, string][] = [
  ["content _meta (v1→v2)", () => contentBlockToV2(raw({ type: "text", text: "a", _meta: 1 }), opts), "_meta"],
  [
    "content mimeType (v2→v1)",
    () => contentBlockToV1(raw({ type: "resource_link", name: "n", uri: "file:///a", mimeType: 5 }), opts),
    "mimeType",
  ],
  [
    "content annotations.lastModified",
    () => contentBlockToV2(raw({ type: "text", text: "a", annotations: { lastModified: 1 } }), opts),
    "annotations.lastModified",
  ],
  [
    "content annotations._meta",
    () => contentBlockToV1(raw({ type: "text", text: "a", annotations: { _meta: "m" } }), opts),
    "annotations._meta",
  ],
  ["image uri", () => contentBlockToV1(raw({ type: "image", data: "d", mimeType: "image/png", uri: 3 }), opts), "uri"],
  [
    "resource mimeType",
    () => contentBlockToV2(raw({ type: "resource", resource: { uri: "file:///a", text: "t", mimeType: [] } }), opts),
    "resource.mimeType",
  ],
  [
    "resource_link size",
    () => contentBlockToV1(raw({ type: "resource_link", name: "n", uri: "file:///a", size: "1" }), opts),
    "size",
  ],
  [
    "MCP server name (v2→v1)",
    () => mcpServerToV1(raw({ type: "stdio", name: 1, command: "c", args: [] }), { ...opts, agentMcp: mcp }),
    "mcpServers[0].name",
  ],
  [
    "MCP server args",
    () => mcpServerToV1(raw({ type: "stdio", name: "n", command: "c", args: [1] }), { ...opts, agentMcp: mcp }),
    "mcpServers[0].args[0]",
  ],
  [
    "MCP server headers",
    () => mcpServerToV1(raw({ type: "http", name: "n", url: "http://x", headers: [1] }), { ...opts, agentMcp: mcp }),
    "mcpServers[0].headers[0]",
  ],
  [
    "MCP server command (v1→v2)",
    () =>
      mcpServerToV2(raw({ name: "n", command: 5, args: [], env: [] }), {
        ...opts,
        agentMcp: mcp,
        onUnsupported: "reject",
      }),
    "mcpServers[0].command",
  ],
  ["usage size (v1→v2)", () => usageToV2(raw({ used: 1, size: {} }), false, opts), "size"],
  ["usage negative size (v1→v2)", () => usageToV2(raw({ used: 1, size: -1 }), false, opts), "size"],
  [
    "location _meta (v1→v2)",
    () => toolCallUpdateToV2(raw({ toolCallId: "c", locations: [{ path: "/a", _meta: 1 }] }), { opts, seen: true }),
    "_meta",
  ],
  [
    "location _meta (v2→v1)",
    () => toolCallUpdateToV1(raw({ toolCallId: "c", locations: [{ path: "/a", _meta: "m" }] }), { opts }),
    "_meta",
  ],
  ["usage used (v2→v1)", () => usageToV1(raw({ used: 1.5, size: 2 }), undefined, opts), "used"],
  [
    "usage cost currency",
    () => usageToV1(raw({ used: 1, size: 2, cost: { amount: 1, currency: 3 } }), undefined, opts),
    "cost.currency",
  ],
  ["session title (v1→v2)", () => sessionInfoToV2(raw({ title: 5 }), opts), "title"],
  ["session info _meta (v2→v1)", () => sessionInfoToV1(raw({ title: "t", _meta: 1 })), "_meta"],
  [
    "plan entry content (v1→v2)",
    () => planToV2Updates(raw({ entries: [{ content: 5, priority: "high", status: "pending" }] }), new Map(), opts),
    "content",
  ],
  [
    "plan entry _meta (v2→v1)",
    () =>
      plansToV1(
        new Map([
          [
            "p",
            raw({
              type: "items",
              planId: "p",
              entries: [{ content: "c", priority: "high", status: "pending", _meta: 1 }],
            }),
          ],
        ]),
        undefined,
        opts,
      ),
    "_meta",
  ],
  [
    "command _meta (v1→v2)",
    () => availableCommandsToV2(raw({ availableCommands: [{ name: "n", description: "d", _meta: 2 }] }), opts),
    "_meta",
  ],
  [
    "command _meta (v2→v1)",
    () =>
      availableCommandsToV1(
        raw({ availableCommands: [{ type: "command", name: "n", description: "d", _meta: [] }] }),
        opts,
      ),
    "_meta",
  ],
  [
    "config option name (v1→v2)",
    () =>
      configOptionUpdateToV2(
        {
          configOptions: [
            { id: "c", name: 5, type: "select", currentValue: "a", options: [{ value: "a", name: "A" }] },
          ],
        },
        {},
        opts,
      ),
    "name",
  ],
  ...(
    [
      [{ value: 1, name: "A" }, "options[0].value"],
      [{ value: "a", name: "A", _meta: 2 }, "options[0]._meta"],
      [{ group: "g", name: "G", options: [{ value: "a", name: 3 }] }, "options[0].options[0].name"],
    ] as const
  ).map(([item, field]): [string, () => Conv<unknown>, string] => [
    `config option ${field} (v1→v2)`,
    () =>
      configOptionUpdateToV2(
        { configOptions: [{ id: "c", name: "C", type: "select", currentValue: "a", options: [item] }] },
        {},
        opts,
      ),
    field,
  ]),
  ...(
    [
      [{ title: 5 }, "requestedSchema.title"],
      [{ required: "a" }, "requestedSchema.required"],
      [{ required: [1] }, "requestedSchema.required[0]"],
      [{ _meta: 1 }, "requestedSchema._meta"],
      [{ properties: { a: { type: "string", description: {} } } }, "requestedSchema.properties.a.description"],
    ] as const
  ).map(([schema, field]): [string, () => Conv<unknown>, string] => [
    `elicitation ${field} (v2→v1)`,
    () =>
      elicitationRequestToV1(
        raw({ sessionId: "s", mode: "form", message: "m", requestedSchema: { type: "object", ...schema } }),
        { opts, requestIdToV1: () => undefined },
      ),
    field,
  ]),
  ...(
    [
      [{ type: "string", default: 1 }, "default"],
      [{ type: "string", pattern: 2 }, "pattern"],
      [{ type: "string", minLength: -1 }, "minLength"],
      [{ type: "string", oneOf: [{ const: "a", title: 1 }] }, "oneOf"],
      [{ type: "string", format: 5 }, "format"],
      [{ type: "number", minimum: "1" }, "minimum"],
      [{ type: "integer", default: 1.5 }, "default"],
      [{ type: "boolean", default: "yes" }, "default"],
      [{ type: "array", items: { type: "string", enum: ["a"] }, minItems: 1.5 }, "minItems"],
      [{ type: "array", items: { type: "string", enum: ["a"] }, maxItems: "2" }, "maxItems"],
      [{ type: "array", items: { type: "string", enum: ["a"] }, default: [1] }, "default"],
      [{ type: "array", items: { anyOf: [{ const: 1, title: "a" }] } }, "items"],
      [{ type: "array", items: 7 }, "items"],
    ] as const
  )
    .flatMap(([property, key]): [string, () => Conv<unknown>, string][] => {
      const form = { mode: "form", message: "m", requestedSchema: { type: "object", properties: { p: property } } };
      const field = `requestedSchema.properties.p.${key}`;
      return [
        [
          `elicitation ${property.type} ${key} (v2→v1)`,
          () => elicitationRequestToV1(raw({ sessionId: "s", ...form }), { opts, requestIdToV1: () => undefined }),
          field,
        ],
        [
          `elicitation ${property.type} ${key} (v1→v2)`,
          () => elicitationRequestToV2(raw({ sessionId: "s", ...form }), { opts, requestIdToV2: () => undefined }),
          field,
        ],
      ];
    })
    .filter(([what]) => what !== "elicitation string format (v1→v2)"),
  [
    "elicitation url (v2→v1)",
    () =>
      elicitationRequestToV1(raw({ sessionId: "s", mode: "url", message: "m", elicitationId: "e", url: "not a uri" }), {
        opts,
        requestIdToV1: () => undefined,
      }),
    "url",
  ],
  [
    "elicitation url (v1→v2)",
    () =>
      elicitationRequestToV2(raw({ sessionId: "s", mode: "url", message: "m", elicitationId: "e", url: 5 }), {
        opts,
        requestIdToV2: () => undefined,
      }),
    "url",
  ],
  // Fuzz classes of session/update, session/prompt and session/request_permission (seed 20261125).
  ["session updatedAt (v2→v1)", () => sessionInfoToV1(raw({ title: "t", updatedAt: {} })), "updatedAt"],
  ["usage used beyond 2^53 (v2→v1)", () => usageToV1(raw({ used: 2 ** 60, size: 2 }), undefined, opts), "used"],
  [
    "resource_link size beyond 2^53 (v1→v2)",
    () => contentBlockToV2(raw({ type: "resource_link", name: "n", uri: "file:///a", size: 2 ** 60 }), opts),
    "size",
  ],
  ...(
    [
      [{ type: "image", data: "d", mimeType: "image/png", uri: "not a uri" }, "uri"],
      [{ type: "resource", resource: { uri: "../etc", text: "t" } }, "resource.uri"],
      [{ type: "resource_link", name: "n", uri: "file:///a", size: -1 }, "size"],
      [{ type: "text", text: "a", annotations: { priority: 1.5 } }, "annotations.priority"],
      [{ type: "text", text: "a", annotations: { priority: -0.5 } }, "annotations.priority"],
    ] as const
  ).map(([block, field]): [string, () => Conv<unknown>, string] => [
    `v2 prompt block ${field} (echoed to the v2 client)`,
    () => promptBlockToV1(raw(block), opts),
    field,
  ]),
  [
    "location line 1.5 (v1→v2)",
    () => toolCallUpdateToV2(raw({ toolCallId: "c", locations: [{ path: "/a", line: 1.5 }] }), { opts, seen: true }),
    "locations[0].line",
  ],
  [
    "location line beyond uint32 (v2→v1)",
    () => toolCallUpdateToV1(raw({ toolCallId: "c", locations: [{ path: "/a", line: 2 ** 33 }] }), { opts }),
    "locations[0].line",
  ],
  [
    "tool call content item _meta (v2→v1)",
    () =>
      toolCallUpdateToV1(
        raw({ toolCallId: "c", content: [{ type: "content", content: { type: "text", text: "a" }, _meta: true }] }),
        { opts },
      ),
    "content[0]._meta",
  ],
  [
    "tool call content item _meta (v1→v2)",
    () =>
      toolCallUpdateToV2(
        raw({ toolCallId: "c", content: [{ type: "content", content: { type: "text", text: "a" }, _meta: [1] }] }),
        { opts, seen: true },
      ),
    "content[0]._meta",
  ],
  ...(
    [
      [{ description: {} }, "description"],
      [{ category: 1.5 }, "category"],
      [{ _meta: [] }, "_meta"],
    ] as const
  ).map(([extra, field]): [string, () => Conv<unknown>, string] => [
    `config option ${field} (v1→v2)`,
    () =>
      configOptionUpdateToV2(
        { configOptions: [{ id: "c", name: "C", type: "boolean", currentValue: true, ...extra }] },
        {},
        opts,
      ),
    field,
  ]),
  [
    "config option group without options (v2→v1)",
    () =>
      configOptionUpdateToV1(
        {
          configOptions: [
            {
              configId: "c",
              name: "C",
              type: "select",
              currentValue: "a",
              options: [{ groupId: "g", name: "G", options: null }],
            },
          ],
        },
        { booleanOptions: true },
        opts,
      ),
    "options[0].options",
  ],
  [
    "command input _meta (v1→v2)",
    () =>
      availableCommandsToV2(
        raw({ availableCommands: [{ name: "n", description: "d", input: { hint: "h", _meta: "x" } }] }),
        opts,
      ),
    "input._meta",
  ],
  [
    "command input _meta (v2→v1)",
    () =>
      availableCommandsToV1(
        raw({
          availableCommands: [
            { type: "command", name: "n", description: "d", input: { type: "text", hint: "h", _meta: false } },
          ],
        }),
        opts,
      ),
    "input._meta",
  ],
  ["notice empty title", () => noticeToV2(raw({ severity: "info", title: "" })), "title"],
  [
    "session/new result without sessionId (v1→v2)",
    () => newSessionResponseToV2({ modes: null }, {}, opts),
    "sessionId",
  ],
];

describe("converters refuse a copied field of the wrong type (-32602 with its field)", () => {
  for (const [what, run, field] of cases)
    it(what, () => {
      const r = run();
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe(-32602);
        expect(String(r.error.data.field)).toMatch(new RegExp(`(^|\\.)${field.replace(/[[\]]/g, "\\$&")}$`));
      }
    });
});
