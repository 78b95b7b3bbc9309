// `acp-bridge serve --tls-cert --tls-key` (issue 22): HTTPS and WSS with the committed test-only
// certificate (test/fixtures/tls/README.md), which the clients here trust explicitly (`ca`).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { request } from "node:https";
import * as v1 from "@agentclientprotocol/sdk";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";
import WebSocket from "ws";
import { afterEach, describe, expect, it } from "vitest";
import { checkWire, type WireEntry } from "../support/peers.js";
import { startServe, type Served } from "../support/remote.js";

const CERT = "test/fixtures/tls/cert.pem";
const KEY = "test/fixtures/tls/key.pem";
const ca = readFileSync(CERT);
const AGENT_V2 = [process.execPath, "dist/src/demo/agent-v2.js"];
const TIMEOUT = 60_000;

const serving: Served[] = [];
afterEach(async () => {
  for (const s of serving.splice(0)) {
    if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill("SIGKILL");
    await s.exit;
  }
});

/** `ws` trusting the test certificate, for the SDK's WebSocket client. */
class TrustingWebSocket extends WebSocket {
  constructor(url: string, protocols?: string | string[], options?: { headers?: Record<string, string> }) {
    super(url, protocols, { ...options, ca });
  }
}

describe("serve over TLS", () => {
  it(
    "serves https:// and wss:// with --tls-cert and --tls-key: a v1 client's handshake and session over wss, an initialize over https",
    async () => {
      const s = await startServe([
        "--listen",
        "127.0.0.1:0",
        "--log-level",
        "error",
        "--tls-cert",
        CERT,
        "--tls-key",
        KEY,
        "--",
        ...AGENT_V2,
      ]);
      serving.push(s);
      expect(s.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/acp$/);
      expect(s.wsUrl).toMatch(/^wss:\/\//);
      const headers = { authorization: `Bearer ${s.token!}` };

      const wire: WireEntry[] = [];
      const stream = createWebSocketStream(s.wsUrl, { WebSocket: TrustingWebSocket, headers });
      const readable = stream.readable.pipeThrough(
        new TransformStream({
          transform(msg, c) {
            wire.push({ dir: "in", msg });
            c.enqueue(msg);
          },
        }),
      );
      const out = new TransformStream({
        transform(msg, c) {
          wire.push({ dir: "out", msg });
          c.enqueue(msg);
        },
      });
      const piped = out.readable.pipeTo(stream.writable);
      const ctx = v1.client({ name: "tls" }).connect({ readable, writable: out.writable }).agent;
      const init = await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      expect(init.protocolVersion).toBe(1);
      await ctx.request("session/new", { cwd: process.cwd(), mcpServers: [] });
      checkWire(1, wire);
      await out.writable.close();
      await piped;

      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          s.url,
          {
            method: "POST",
            ca,
            headers: { ...headers, "content-type": "application/json", accept: "application/json, text/event-stream" },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.once("error", reject);
        req.end(
          JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion: 1, clientCapabilities: {} },
          }),
        );
      });
      expect(status).toBe(200);
    },
    TIMEOUT,
  );

  it("refuses --tls-cert without --tls-key (status 2)", () => {
    const r = spawnSync(
      process.execPath,
      ["bin/acp-bridge.js", "serve", "--listen", "127.0.0.1:0", "--tls-cert", CERT, "--", ...AGENT_V2],
      { encoding: "utf8", timeout: 20_000 },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("--tls-cert and --tls-key go together");
  });
});
