// Same version on both sides: a transparent pipe. Only request ids are remapped (H §0); every
// notification goes through byte for byte.
import type { Link } from "./link.js";
import { RequestRoute } from "./relay.js";
import type { Incoming, Translator } from "./translator.js";

export class PassThrough implements Translator {
  readonly mode = "pass" as const;
  private readonly up: RequestRoute;
  private readonly down: RequestRoute;

  constructor(
    private readonly client: Link,
    private readonly agent: Link,
  ) {
    this.down = new RequestRoute(client, agent);
    this.up = new RequestRoute(agent, client);
  }

  fromClient(m: Incoming): void {
    this.relay(m, this.down, this.agent);
  }

  fromAgent(m: Incoming): void {
    this.relay(m, this.up, this.client);
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
