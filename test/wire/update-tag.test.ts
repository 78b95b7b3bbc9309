// TagRoutes (src/wire/update-tag.ts): the routes the translating fast path takes by a line's tag.
// A route is only a choice of which scans run (each proves its line itself), so what must hold is
// that a line of a listed tag, as an SDK writes it, gets that tag's routes (else its fast path is
// lost), a tag not listed none, and a line written otherwise every route (its scans decide).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ROUTE_COMMANDS, ROUTE_MEMBERS, ROUTE_UNKNOWN, ROUTE_UPDATE, TagRoutes } from "../../src/wire/update-tag.js";
import { anyString } from "../support/arbitrary.js";
import { numRuns } from "../support/properties.js";

const LISTED: Record<string, number> = {
  agent_message_chunk: ROUTE_UPDATE,
  tool_call_update: ROUTE_UPDATE | ROUTE_MEMBERS,
  available_commands_update: ROUTE_COMMANDS,
  usage_update: ROUTE_MEMBERS,
};
/**
 * The routes of a listed tag after other members: `tool_call_update` was added without the update
 * scan there, `available_commands_update` without the command-list scan (as fast-lines.ts adds
 * them); the others with the routes they have first.
 */
const LISTED_ELSEWHERE: Record<string, number> = {
  ...LISTED,
  tool_call_update: ROUTE_MEMBERS,
  available_commands_update: 0,
};

function routes(): TagRoutes {
  const r = new TagRoutes();
  r.add(Buffer.from("agent_message_chunk"), ROUTE_UPDATE);
  r.add(Buffer.from("tool_call_update"), ROUTE_UPDATE, 0);
  r.add(Buffer.from("available_commands_update"), ROUTE_COMMANDS, 0);
  r.add(Buffer.from("usage_update"), ROUTE_MEMBERS);
  return r.add(Buffer.from("tool_call_update"), ROUTE_MEMBERS);
}

const tag = fc.oneof(
  fc.constantFrom(...Object.keys(LISTED)),
  fc.constantFrom("tool_call", "tool_call_updates", "usage", "plan_update", "state_update", ""),
  anyString,
);
const update = fc.tuple(tag, fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }));

function line(sessionId: string, t: string, rest: Record<string, unknown>): Buffer {
  // The tag first, as the SDKs write it (an object would put integer-like keys before it).
  const members = Object.entries(rest).map(([k, v]) => `,${JSON.stringify(k)}:${JSON.stringify(v)}`);
  const u = `{"sessionUpdate":${JSON.stringify(t)}${members.join("")}}`;
  return Buffer.from(
    `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":${JSON.stringify(sessionId)},"update":${u}}}`,
  );
}

describe("TagRoutes", () => {
  it("routes a tag-first line by its tag: a listed tag's routes, else none", () => {
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom("s1", "é"), fc.string({ maxLength: 5 })), update, (id, [t, rest]) => {
        const l = line(id, t, rest);
        fc.pre(!JSON.stringify(id).slice(1, -1).includes('\\"'));
        // A tag JSON.stringify escapes is not one of the plain listed names.
        expect(routes().of(l)).toBe(Object.hasOwn(LISTED, t) ? LISTED[t] : 0);
      }),
      { numRuns: numRuns() * 4 },
    );
  });

  it("leaves a line written otherwise to every scan", () => {
    const r = routes();
    const u = { sessionUpdate: "usage_update", used: 1, size: 2 };
    const others = [
      // Params reordered, whitespace, a request.
      { jsonrpc: "2.0", method: "session/update", params: { update: u, sessionId: "s1" } },
      { jsonrpc: "2.0", id: 3, method: "session/update", params: { sessionId: "s1", update: u } },
      { jsonrpc: "2.0", method: "session/updates", params: { sessionId: "s1", update: u } },
      // An id with an escaped quote: read up to it, the literal after fails.
      { jsonrpc: "2.0", method: "session/update", params: { sessionId: 'a","update":{"sessionUpdate":"', update: u } },
    ].map((m) => Buffer.from(JSON.stringify(m)));
    others.push(
      Buffer.from(
        JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s1", update: u } }, null, 1),
      ),
    );
    // Cut off inside the id, and inside the tag.
    others.push(Buffer.from('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1'));
    others.push(
      Buffer.from(
        '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"usage_upd',
      ),
    );
    for (const l of others) expect(r.of(l), String(l)).toBe(ROUTE_UNKNOWN);
  });

  it("routes a line whose tag comes after other members by that tag's routes there", () => {
    fc.assert(
      fc.property(
        update,
        fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { minKeys: 1, maxKeys: 3 }),
        ([t, rest], before) => {
          fc.pre(!Object.hasOwn(before, "sessionUpdate") && !Object.hasOwn(rest, "sessionUpdate"));
          const u = { ...before, sessionUpdate: t, ...rest };
          // Integer-like keys go first whatever the order: the tag may still be first.
          fc.pre(Object.keys(u)[0] !== "sessionUpdate");
          const l = Buffer.from(
            JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s1", update: u } }),
          );
          // A member before the tag may hold a nested tag: the first one read routes (time, not bytes).
          fc.pre(!JSON.stringify(before).includes('"sessionUpdate":"'));
          const listed = Object.hasOwn(LISTED_ELSEWHERE, t) ? (LISTED_ELSEWHERE[t] ?? 0) : 0;
          expect(routes().of(l)).toBe(listed);
        },
      ),
      { numRuns: numRuns() * 4 },
    );
  });

  it("reads the head and the literal after the id by a sample of their bytes: a change there is another line", () => {
    const r = routes();
    const l = line("s1", "usage_update", { used: 1 });
    const head = l.indexOf('"s1"') + 1;
    const after = l.indexOf('","update"');
    // The sampled bytes: every eighth of the head and its last, every sixth of the literal and its last.
    const sampled = [
      ...Array.from({ length: Math.ceil((head - 1) / 8) }, (_, k) => k * 8),
      head - 1,
      ...Array.from({ length: 5 }, (_, k) => after + k * 6),
      after + 28,
    ];
    expect(r.of(l)).toBe(ROUTE_MEMBERS);
    for (const at of sampled) {
      const changed = Buffer.from(l);
      changed[at] = 0x5f;
      expect(r.of(changed), `byte ${at}`).toBe(ROUTE_UNKNOWN);
    }
  });
});
