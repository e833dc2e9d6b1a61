package main

import (
	"context"

	"github.com/yagent/yagent/agents"
)

// sessionTools are the tools a session adds to the built-in ones: the
// knowledge base's (in-process) and the external MCP servers', the latter
// behind the session's policy (asked about like commands, unless
// mcp_servers.NAME.allow lists them). A part that cannot be had is left
// out with a warning; only a configuration mistake fails the session.
func sessionTools(ctx context.Context, f *Factory, policy agents.ShellPolicy, sessionID func() string, sink agents.Sink) ([]*agents.Tool, error) {
	warn := func(err error) {
		sink.Emit(agents.Event{Type: agents.EventNotice, Time: f.Now(), Agent: "yagent", Text: "warning: " + err.Error()})
	}
	tools, err := sessionKBTools(f, sessionID, warn)
	if err != nil {
		return nil, err
	}
	servers, err := f.MCPServers()
	if err != nil {
		return nil, err
	}
	ext, errs := servers.Tools(ctx, policy)
	for _, err := range errs {
		warn(err)
	}
	return append(tools, ext...), nil
}
