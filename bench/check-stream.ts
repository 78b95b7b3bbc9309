// `npm run bench:check [-- --mb N]`: `acp-bridge check` on a large trace (1 GB by default), generated
// on the fly into a temp file (a v1 client and a v1 agent: a session, then turns of prompts, message
// chunks, tool calls, their answers). `npm run bench:convert [-- --mb N]`: `acp-bridge convert --to 2`
// of that trace's client connection (through the two in-process bridges). Reports throughput and the
// command's peak RSS, measured in a child process of its own so that generating the file does not
// count. Never run by `npm test`: a benchmark, not a timed test.
import { spawnSync } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = fileURLToPath(import.meta.url);

const convertMode = process.argv.includes("--convert");

if (process.argv[2] === "--child") {
  // The measured side: the command on the file, its output discarded.
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  const io = { stdin: process.stdin, stdout: sink, stderr: sink, env: { NO_COLOR: "1" } };
  const file = process.argv[3] ?? "";
  const started = performance.now();
  const status = convertMode
    ? await (
        (await import(
          pathToFileURL(join(here, "../../src/replay/command.js")).href
        )) as typeof import("../src/replay/command.js")
      ).runConvert(["--to", "2", file], io)
    : await (
        (await import(
          pathToFileURL(join(here, "../../src/check/command.js")).href
        )) as typeof import("../src/check/command.js")
      ).runCheck([file], io);
  process.stdout.write(
    JSON.stringify({
      status,
      ms: performance.now() - started,
      maxRssMiB: process.resourceUsage().maxRSS / 1024,
    }),
  );
} else {
  const mbArg = process.argv.indexOf("--mb");
  const mb = mbArg === -1 ? 1024 : Number(process.argv[mbArg + 1]);
  const dir = mkdtempSync(join(tmpdir(), "acp-bridge-bench-check-"));
  const file = join(dir, "big.jsons");
  try {
    const t0 = performance.now();
    await generate(file, mb * 1024 * 1024);
    const bytes = statSync(file).size;
    const genMs = performance.now() - t0;
    const r = spawnSync(process.execPath, [here, "--child", file, ...(convertMode ? ["--convert"] : [])], {
      encoding: "utf8",
    });
    if (r.status !== 0) throw new Error(`the ${convertMode ? "converter" : "checker"} failed: ${r.stderr}`);
    const got = JSON.parse(r.stdout) as { status: number; ms: number; maxRssMiB: number };
    const mib = bytes / 1024 / 1024;
    process.stdout.write(
      [
        `trace: ${mib.toFixed(0)} MiB generated in ${(genMs / 1000).toFixed(1)} s`,
        `${convertMode ? "convert --to 2" : "check"}: ${(got.ms / 1000).toFixed(1)} s, ${(mib / (got.ms / 1000)).toFixed(1)} MiB/s, status ${String(got.status)}`,
        `peak RSS of the ${convertMode ? "converter" : "checker"}: ${got.maxRssMiB.toFixed(0)} MiB`,
        "",
      ].join("\n"),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A clean trace of at least `target` bytes, written with backpressure. */
async function generate(path: string, target: number): Promise<void> {
  const out = createWriteStream(path);
  let written = 0;
  let ts = 0;
  const ev = (e: Record<string, unknown>) => JSON.stringify({ ts: (ts += 0.001), protocol: "acp", ...e }) + "\n";
  const both = (from: "client" | "agent", e: Record<string, unknown>) => {
    const to = from === "client" ? "agent" : "client";
    return ev({ ...e, from, to: "acp-bridge" }) + ev({ ...e, from: "acp-bridge", to });
  };
  let batch =
    both("client", {
      type: "request",
      id: 0,
      method: "initialize",
      params: { protocolVersion: 1, clientCapabilities: {} },
    }) +
    both("agent", {
      type: "response",
      id: 0,
      is_error: false,
      payload: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] },
    });
  const session = "s-1";
  batch +=
    both("client", { type: "request", id: 1, method: "session/new", params: { cwd: "/w", mcpServers: [] } }) +
    both("agent", { type: "response", id: 1, is_error: false, payload: { sessionId: session } });
  const words = "the quick brown fox jumps over the lazy dog and keeps on running through the field ";
  let id = 2;
  while (written + batch.length < target) {
    if (batch.length > 1 << 20) {
      written += batch.length;
      if (!out.write(batch))
        await new Promise<void>((r) => {
          out.once("drain", () => r());
        });
      batch = "";
    }
    const turn = id++;
    batch += both("client", {
      type: "request",
      id: turn,
      method: "session/prompt",
      session,
      params: { sessionId: session, prompt: [{ type: "text", text: `turn ${String(turn)}` }] },
    });
    for (let c = 0; c < 20; c++)
      batch += both("agent", {
        type: "notification",
        method: "session/update",
        session,
        params: {
          sessionId: session,
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: words.repeat(1 + (c % 5)) } },
        },
      });
    const toolCallId = `call-${String(turn)}`;
    batch += both("agent", {
      type: "notification",
      method: "session/update",
      session,
      params: {
        sessionId: session,
        update: { sessionUpdate: "tool_call", toolCallId, title: "Read file", kind: "read", status: "pending" },
      },
    });
    batch += both("agent", {
      type: "notification",
      method: "session/update",
      session,
      params: {
        sessionId: session,
        update: {
          sessionUpdate: "tool_call_update",
          toolCallId,
          status: "completed",
          content: [{ type: "content", content: { type: "text", text: words.repeat(8) } }],
        },
      },
    });
    batch += both("agent", { type: "response", id: turn, is_error: false, payload: { stopReason: "end_turn" } });
  }
  out.write(batch);
  await new Promise<void>((resolve, reject) => {
    out.end(() => {
      resolve();
    });
    out.on("error", reject);
  });
}
