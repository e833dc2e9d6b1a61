// The official TypeScript SDK client against `yagent mcp serve`, for
// interop_test.go. Usage:
//   node client.mjs stdio COMMAND [ARGS...]   (the token in YAGENT_KB_TOKEN)
//   node client.mjs http URL TOKEN
// It lists the tools, calls a few, and prints one JSON report on stdout.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, target, ...rest] = process.argv.slice(2);
let transport;
if (mode === "stdio") {
  transport = new StdioClientTransport({ command: target, args: rest, env: process.env, stderr: "inherit" });
} else if (mode === "http") {
  transport = new StreamableHTTPClientTransport(new URL(target), {
    requestInit: { headers: { Authorization: `Bearer ${rest[0]}` } },
  });
} else {
  console.error("usage: node client.mjs stdio CMD [ARGS...] | http URL TOKEN");
  process.exit(2);
}

const client = new Client({ name: "ts-interop", version: "1.0.0" });
await client.connect(transport);
const report = { server: client.getServerVersion(), tools: [], annotations: {}, outputSchemas: [], calls: {} };
const { tools } = await client.listTools();
for (const t of tools) {
  report.tools.push(t.name);
  report.annotations[t.name] = t.annotations;
  if (t.outputSchema) report.outputSchemas.push(t.name);
}

// call records a call: a result (the SDK has validated structuredContent
// against the tool's outputSchema) or the error it threw.
async function call(key, name, args) {
  try {
    const r = await client.callTool({ name, arguments: args });
    report.calls[key] = {
      isError: !!r.isError,
      text: (r.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join(""),
      structured: r.structuredContent ?? null,
    };
  } catch (e) {
    report.calls[key] = { thrown: String(e?.message ?? e) };
  }
}

await call("whoami", "whoami", {});
await call("search", "search", { query: "how do I deploy?" });
await call("get_note", "get_note", { ref: "[[Deploy guide]]" });
await call("create_note", "create_note", { project: "acme/web", body: "# From TypeScript\n\nWritten by the official SDK." });
await call("bad_project", "list_notes", { project: "no/such" });
await call("boards", "board_list_boards", {});
await client.close();
console.log(JSON.stringify(report));
