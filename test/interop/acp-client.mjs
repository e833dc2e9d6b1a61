// The official TypeScript ACP client SDK against `yagent acp`, for
// acp_test.go. Usage:
//   node acp-client.mjs new CWD COMMAND [ARGS...]
//     out of order messages first (session/new before initialize, a prompt
//     for an unknown session), then initialize, session/new and one prompt;
//     permission requests are answered "allow", fs/write_text_file writes
//     the file; then a second prompt, cancelled at its first chunk.
//   node acp-client.mjs load SESSION CWD COMMAND [ARGS...]
//     initialize, session/load (the replayed updates recorded), one prompt.
//   node acp-client.mjs empty CWD COMMAND [ARGS...]
//     initialize and session/new, and nothing more.
//   node acp-client.mjs mcp CWD COMMAND [ARGS...]
//     initialize, session/new with the MCP servers of $ACP_MCP_SERVERS
//     (JSON, as session/new takes them), one prompt.
// It prints one JSON report on stdout.
import { spawn } from "node:child_process";
import { writeFileSync, readFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream, methods, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";

const [mode, ...rest] = process.argv.slice(2);
let session = null;
if (mode === "load") session = rest.shift();
const [cwd, command, ...args] = rest;
if (!["new", "load", "empty", "mcp"].includes(mode) || !command) {
  console.error("usage: node acp-client.mjs new|empty|mcp CWD CMD [ARGS...] | load SESSION CWD CMD [ARGS...]");
  process.exit(2);
}

const report = { errors: {}, updates: [], replayed: [], cancelledUpdates: [], permissions: [], writes: [], reads: [], stopReasons: [] };
let sink = report.updates;
// onChunk, when set, runs at the next agent_message_chunk (the cancel).
let onChunk = null;

const proc = spawn(command, args, { cwd, env: process.env, stdio: ["pipe", "pipe", "inherit"] });
const stream = ndJsonStream(Writable.toWeb(proc.stdin), Readable.toWeb(proc.stdout));

const app = client({ name: "yagent-interop" })
  .onNotification(methods.client.session.update, ({ params }) => {
    sink.push(params.update);
    if (onChunk && params.update.sessionUpdate === "agent_message_chunk") {
      const f = onChunk;
      onChunk = null;
      f();
    }
  })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    report.permissions.push(params);
    const allow = params.options.find((o) => o.kind === "allow_once");
    return { outcome: { outcome: "selected", optionId: allow.optionId } };
  })
  .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
    report.writes.push({ path: params.path, content: params.content });
    writeFileSync(params.path, params.content);
    return {};
  })
  .onRequest(methods.client.fs.readTextFile, ({ params }) => {
    report.reads.push(params.path);
    return { content: readFileSync(params.path, "utf8") };
  });

// attempt records the JSON-RPC error of a request that must fail.
async function attempt(key, cx, method, params) {
  try {
    await cx.request(method, params);
    report.errors[key] = null;
  } catch (e) {
    report.errors[key] = { code: e?.code ?? null, message: String(e?.message ?? e) };
  }
}

await app.connectWith(stream, async (cx) => {
  if (mode === "new") {
    await attempt("new_before_initialize", cx, methods.agent.session.new, { cwd, mcpServers: [] });
  }
  const init = await cx.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
    clientInfo: { name: "yagent-interop", version: "1.0.0" },
  });
  report.initialize = init;
  if (mode === "empty") {
    const s = await cx.request(methods.agent.session.new, { cwd, mcpServers: [] });
    report.sessionId = s.sessionId;
  } else if (mode === "mcp") {
    const s = await cx.request(methods.agent.session.new, { cwd, mcpServers: JSON.parse(process.env.ACP_MCP_SERVERS) });
    report.sessionId = s.sessionId;
    const r = await cx.request(methods.agent.session.prompt, {
      sessionId: s.sessionId,
      prompt: [{ type: "text", text: "Echo through the editor's server." }],
    });
    report.stopReasons.push(r.stopReason);
  } else if (mode === "new") {
    await attempt("prompt_unknown_session", cx, methods.agent.session.prompt, {
      sessionId: "no-such-session",
      prompt: [{ type: "text", text: "hello" }],
    });
    const s = await cx.request(methods.agent.session.new, { cwd, mcpServers: [] });
    report.sessionId = s.sessionId;
    const r = await cx.request(methods.agent.session.prompt, {
      sessionId: s.sessionId,
      prompt: [{ type: "text", text: "Please write the greeting to a file." }],
    });
    report.stopReasons.push(r.stopReason);
    // The session is intact after the bad messages: load of one already
    // open is refused, and it still answers.
    await attempt("load_open_session", cx, methods.agent.session.load, { sessionId: s.sessionId, cwd, mcpServers: [] });
    // session/cancel ends a running turn: stopReason cancelled.
    sink = report.cancelledUpdates;
    onChunk = () => cx.notify(methods.agent.session.cancel, { sessionId: s.sessionId });
    const c = await cx.request(methods.agent.session.prompt, {
      sessionId: s.sessionId,
      prompt: [{ type: "text", text: "Now count slowly to twelve." }],
    });
    report.stopReasons.push(c.stopReason);
    sink = report.updates;
  } else {
    sink = report.replayed;
    await cx.request(methods.agent.session.load, { sessionId: session, cwd, mcpServers: [] });
    sink = report.updates;
    report.sessionId = session;
    const r = await cx.request(methods.agent.session.prompt, {
      sessionId: session,
      prompt: [{ type: "text", text: "So what did you write before?" }],
    });
    report.stopReasons.push(r.stopReason);
  }
});
proc.stdin.end();
await new Promise((resolve) => proc.on("close", resolve));
console.log(JSON.stringify(report));
