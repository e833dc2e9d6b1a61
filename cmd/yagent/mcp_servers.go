package main

import (
	"fmt"

	"github.com/yagent/yagent/internal/buildinfo"
	"github.com/yagent/yagent/mcp"
)

// MCPServers returns the process's external MCP servers (config
// mcp_servers), none started yet; the first session that asks for tools
// starts them, once per process.
func (f *Factory) MCPServers() (*mcp.Servers, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	f.mcpOnce.Do(func() {
		f.mcp = mcp.NewServers(cfg.MCPServers, mcp.ServersOptions{
			Getenv: f.Getenv, Version: buildinfo.Version(),
			Notify: func(msg string) { fmt.Fprintf(f.IO.ErrOut, "yagent: %s\n", msg) },
		})
	})
	return f.mcp, nil
}
