// Same version on both sides: a transparent pipe. Only request ids are remapped (H §0); every
// notification goes through byte for byte. One exception, on by default: the `additionalDirectories`
// rules (H §4.10, seed 000) hold here too, since agents built on the SDK's parsers coerce `null` to
// `[]` and so would drop roots silently.
import { rootsMethods } from "../../mappings/session.js";
import { validateAdditionalDirectories, type Platform } from "../convert/directories.js";
import type { Link } from "./link.js";
import { RequestRoute } from "./relay.js";
import type { Admit, Incoming, Translator } from "./translator.js";
import type { ScannedCall } from "../wire/call-scan.js";
import { ProvenRests } from "../wire/proven-rests.js";
import { MAX_FAST_LINE_BYTES } from "./fast-lines.js";

/** Long update rests pass-through keeps, and the longest: four command lists of up to 64 KiB. */
const PROVEN_RESTS = 4;
const PROVEN_REST_MAX_BYTES = 64 * 1024;

/** How pass-through checks roots; `undefined` turns the check off (`--roots-check off`). */
export interface RootsCheck {
  readonly version: 1 | 2;
  /** The agent advertised `additionalDirectories`. */
  readonly agentSupports: boolean;
  readonly platform: Platform;
}

export class PassThrough implements Translator {
  readonly mode = "pass" as const;
  private readonly up: RequestRoute;
  private readonly down: RequestRoute;
  private readonly rootsMethods: ReadonlySet<string>;
  readonly provenUpdates = new ProvenRests(PROVEN_RESTS, MAX_FAST_LINE_BYTES + 1, PROVEN_REST_MAX_BYTES);

  constructor(
    private readonly client: Link,
    private readonly agent: Link,
    private readonly roots?: RootsCheck,
  ) {
    this.rootsMethods = new Set(roots ? rootsMethods[roots.version] : []);
    this.down = new RequestRoute(client, agent);
    this.up = new RequestRoute(agent, client);
  }

  fromClient(m: Incoming): void {
    if (m.kind === "request" && this.roots && this.rootsMethods.has(m.msg.method)) {
      const checked = validateAdditionalDirectories(m.msg.params, this.roots);
      if (!checked.ok) {
        const { code, message, data } = checked.error;
        this.client.fail(m.msg.id, { code, message, data });
        return;
      }
      // `[]` without the capability is stripped; anything else goes as the client sent it.
      if (checked.value !== m.msg.params) {
        this.down.forward(m.msg, m.msg.method, checked.value);
        return;
      }
    }
    this.relay(m, this.down, this.agent);
  }

  fromAgent(m: Incoming): void {
    this.relay(m, this.up, this.client);
    // A long update forwarded as its bytes (valid UTF-8, no key order to restore: `remember` checks
    // the one, the fast path's `forwardVerbatim` the other) proves its rest for the next time.
    if (m.kind === "notification" && m.line !== undefined && m.msg.method === "session/update")
      this.provenUpdates.remember(m.line);
  }

  private relay(m: Incoming, route: RequestRoute, to: Link): void {
    switch (m.kind) {
      case "request":
        route.forward(m.msg, m.msg.method, m.msg.params);
        return;
      case "notification": {
        if (m.msg.method === "$/cancel_request") {
          const p = m.msg.params as { requestId?: unknown; _meta?: unknown } | undefined;
          route.cancel(p?.requestId, p?._meta);
          return;
        }
        if (m.line) to.sendRaw(m.line, m.msg);
        else to.send(m.msg);
        return;
      }
      case "response":
        route.from.deliver(m.msg);
        return;
    }
  }

  fastCall(from: Link, call: ScannedCall, line: Buffer, admit: Admit): boolean {
    if (call.kind === "result") return from.deliverLine(call.id, line, call.idEnd);
    // Roots are checked on the parsed params (fromClient).
    if (from === this.client && this.rootsMethods.has(call.method)) return false;
    return (from === this.client ? this.down : this.up).forwardLine(call, line, admit);
  }

  agentGone(): void {
    // Nothing to translate: the core answers whatever is still pending.
  }

  pendingFromClient(): RequestRoute {
    return this.down;
  }

  pendingFromAgent(): RequestRoute {
    return this.up;
  }
}
