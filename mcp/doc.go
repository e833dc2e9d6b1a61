// Package mcp connects yagent to the Model Context Protocol both ways
// (SPEC.md §9), with github.com/modelcontextprotocol/go-sdk.
//
// # Gateway (server)
//
// Gateway exposes the knowledge base's 21 intent tools, with input and
// output schemas generated from kb.ToolInfo and truthful annotations, plus
// read-only tools over yagent's boards (board_list_boards,
// board_list_notes, board_read_note) so other agents can read handoffs. The
// tool list depends on the token: a read token gets a server holding read
// tools only. RunStdio serves one token over stdin/stdout; HTTPHandler
// serves streamable HTTP, stateless, with kb tokens as bearer tokens, and
// picks the server of each request's token class. Tool names and
// descriptions are static files (tooldesc/*.md and kb's); note content
// never appears in them. Errors the model can fix (kb.ErrorCode) are tool
// results marked IsError; anything else is a protocol error.
//
// # In-process KB tools
//
// KBTools turns the same intent tools into agents.Tools (family kb) that
// call the store directly, under a caller the session builds; no MCP
// round-trip.
//
// # Client
//
// Servers holds the external MCP servers of config mcp_servers. Each is
// started at most once per process, when a session first asks for its
// tools; their tools become agents.Tools of family mcp_<server> named
// mcp_<server>__<tool>. Calls have a timeout; a server that dies is
// reported and restarted once.
package mcp
