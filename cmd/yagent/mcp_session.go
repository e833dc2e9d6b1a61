package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/yagent/yagent/agents"
)

// sessionTools are the tools a session adds to the built-in ones: the
// knowledge base's (in-process) and the external MCP servers'. A part that
// cannot be had is left out with a warning; only a configuration mistake
// fails the session.
func sessionTools(ctx context.Context, f *Factory, sessionID string, sink agents.Sink) ([]*agents.Tool, error) {
	warn := func(err error) {
		sink.Emit(agents.Event{Type: agents.EventNotice, Time: f.Now(), Agent: "yagent", Text: "warning: " + err.Error()})
	}
	tools, err := sessionKBTools(ctx, f, sessionID)
	if _, bad := errors.AsType[*usageError](err); bad {
		return nil, err
	}
	if err != nil {
		warn(fmt.Errorf("%w; the knowledge-base tools are off for this session", err))
	}
	servers, err := f.MCPServers()
	if err != nil {
		return nil, err
	}
	ext, errs := servers.Tools(ctx)
	for _, err := range errs {
		warn(err)
	}
	return append(tools, ext...), nil
}
