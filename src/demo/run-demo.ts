// `npm run demo`: a v1 SDK client talks to the bundled v2-only SDK agent through the built bridge,
// then the bridge's trace is printed as a transcript of both wires (v1 left, v2 right), ending with
// the turn's stop reason. No network, no configuration.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { client, methods, ndJsonStream, type RequestPermissionResponse } from "@agentclientprotocol/sdk";
import type { TraceEvent } from "../transport/trace.js";

const color = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code: number, s: string) => (color ? `\x1b[${code}m${s}\x1b[0m` : s);
const dim = (s: string) => paint(2, s);
const bold = (s: string) => paint(1, s);

const here = (rel: string) => fileURLToPath(new URL(rel, import.meta.url));
const BRIDGE = here("../../../bin/acp-bridge.js");
const AGENT = here("./agent-v2.js");

function summary(e: TraceEvent): string {
  const p = (e.params ?? e.payload) as Record<string, unknown> | undefined;
  if (e.method === "session/update") {
    const u = (p?.update ?? {}) as Record<string, unknown>;
    const content = u.content as { text?: unknown } | undefined;
    const extra =
      typeof content?.text === "string"
        ? ` "${content.text.slice(0, 60)}"`
        : typeof u.state === "string"
          ? ` ${u.state}${typeof u.stopReason === "string" ? ` (${u.stopReason})` : ""}`
          : typeof u.title === "string"
            ? ` "${u.title}"`
            : "";
    return `session/update ${bold(String(u.sessionUpdate))}${extra}`;
  }
  if (e.type === "response") {
    const body = JSON.stringify(e.payload) ?? "null";
    return `${e.is_error ? paint(31, "error") : "result"} #${JSON.stringify(e.id)} ${body.length > 90 ? body.slice(0, 87) + "..." : body}`;
  }
  const body = JSON.stringify(e.params) ?? "";
  return `${bold(String(e.method))}${e.id !== undefined ? ` #${JSON.stringify(e.id)}` : ""} ${dim(body.length > 70 ? body.slice(0, 67) + "..." : body)}`;
}

function printTranscript(events: TraceEvent[]): void {
  const arrow: Record<string, string> = {
    "client>acp-bridge": paint(36, "v1 client  → bridge    "),
    "acp-bridge>client": paint(36, "v1 client  ← bridge    "),
    "acp-bridge>agent": paint(35, "   bridge  → v2 agent  "),
    "agent>acp-bridge": paint(35, "   bridge  ← v2 agent  "),
  };
  for (const e of events)
    process.stdout.write(`${dim(e.ts.toFixed(3).padStart(7))} ${arrow[`${e.from}>${e.to}`] ?? ""} ${summary(e)}\n`);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "acp-bridge-demo-"));
  const trace = join(dir, "trace.jsons");
  const child = spawn(process.execPath, [BRIDGE, "--trace", trace, "--", process.execPath, AGENT], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let stopReason = "(none)";
  const updates: string[] = [];
  const app = client({ name: "acp-bridge demo client" })
    .onRequest(methods.client.session.requestPermission, ({ params }): RequestPermissionResponse => {
      const allow = params.options.find((o) => o.kind === "allow_once") ?? params.options[0];
      return allow
        ? { outcome: { outcome: "selected", optionId: allow.optionId } }
        : { outcome: { outcome: "cancelled" } };
    })
    .onNotification(methods.client.session.update, ({ params }) => {
      updates.push(params.update.sessionUpdate);
    });
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  );
  try {
    await app.connectWith(stream, async (ctx) => {
      await ctx.request(methods.agent.initialize, {
        protocolVersion: 1,
        clientInfo: { name: "demo-v1-editor", version: "1.0.0" },
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
      });
      const session = await ctx.request(methods.agent.session.new, { cwd: process.cwd(), mcpServers: [] });
      const answer = await ctx.request(methods.agent.session.prompt, {
        sessionId: session.sessionId,
        prompt: [{ type: "text", text: "Show me what the bridge does" }],
      });
      stopReason = answer.stopReason;
    });
  } finally {
    child.stdin.end();
  }
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  const events = readFileSync(trace, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as TraceEvent);
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write(`${bold("acp-bridge demo")}: a v1 editor and a v2-only agent, translated both ways\n\n`);
  printTranscript(events);
  process.stdout.write(
    `\n${updates.length} v1 updates reached the client; the bridge exited with ${String(code)}.\n` +
      `${bold("Turn ended:")} stopReason ${paint(32, stopReason)}\n`,
  );
}

await main();
