package acp

import (
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/mcp"
)

// EditorSource is the Source of an MCP server the editor passed (what
// `mcp ls --json` and warnings name it by).
const EditorSource = "the editor (ACP session/new)"

// editorServers are the MCP servers a client passed with session/new or
// session/load as mcp_servers entries: stdio ones (which every ACP agent
// must support) and http ones (the capability yagent declares). What
// cannot be taken — an SSE or ACP-channel server, one without a name or
// a command/url, a name given twice — is a line each for the person.
func editorServers(list []sdk.McpServer) (map[string]config.MCPServer, []string) {
	servers := map[string]config.MCPServer{}
	var skipped []string
	add := func(name string, s config.MCPServer) {
		name = strings.TrimSpace(name)
		switch {
		case name == "":
			skipped = append(skipped, "an MCP server without a name")
		case servers[name].Enabled:
			skipped = append(skipped, fmt.Sprintf("MCP server %q given twice: the first one applies", name))
		case s.Check(name) != nil:
			skipped = append(skipped, s.Check(name).Error())
		default:
			s.Enabled, s.Source, s.Timeout = true, EditorSource, config.Duration(mcp.DefaultCallTimeout)
			servers[name] = s
		}
	}
	for _, m := range list {
		switch {
		case m.Stdio != nil:
			env := map[string]string{}
			for _, e := range m.Stdio.Env {
				env[e.Name] = e.Value
			}
			add(m.Stdio.Name, config.MCPServer{Command: m.Stdio.Command, Args: m.Stdio.Args, Env: env})
		case m.Http != nil:
			headers := map[string]string{}
			for _, h := range m.Http.Headers {
				headers[h.Name] = h.Value
			}
			add(m.Http.Name, config.MCPServer{URL: m.Http.Url, Headers: headers})
		case m.Sse != nil:
			skipped = append(skipped, fmt.Sprintf("MCP server %q speaks SSE, which yagent does not: give its streamable HTTP endpoint", m.Sse.Name))
		default:
			skipped = append(skipped, "an MCP server of a transport yagent does not speak (only stdio and http)")
		}
	}
	return servers, skipped
}
