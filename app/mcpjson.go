package app

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"

	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/mcp"
)

// MCPServersOf are the MCP servers of a process in workspace: the
// configuration's (mcp_servers:), plus the servers of the workspace's
// .mcp.json (Claude Code's project servers, read as it reads them:
// mcp.ParseMCPJSON) once the workspace is trusted. A server the
// configuration also names is the configuration's. Warnings say what was
// left out and why — an untrusted workspace's file, a file that does not
// parse (with its line), a server yagent cannot run — never a silent skip.
func MCPServersOf(cfg *config.Config, workspace string, getenv func(string) string) (map[string]config.MCPServer, []string) {
	servers := maps.Clone(cfg.MCPServers)
	if servers == nil {
		servers = map[string]config.MCPServer{}
	}
	path := filepath.Join(workspace, mcp.MCPJSONFile)
	if _, err := os.Lstat(path); err != nil || workspace == "" {
		return servers, nil
	}
	if !trustedWorkspace(cfg, workspace) {
		return servers, []string{fmt.Sprintf("warning: not starting the MCP servers of %s: this directory is not trusted; if you trust it, run `yagent trust %s`", path, workspace)}
	}
	found, problems, err := mcp.ReadMCPJSON(workspace, getenv)
	var warnings []string
	if err != nil {
		return servers, []string{fmt.Sprintf("warning: not starting the MCP servers of %v", err)}
	}
	for _, p := range problems {
		warnings = append(warnings, "warning: "+p)
	}
	for name, s := range found {
		if _, ok := servers[name]; ok {
			warnings = append(warnings, fmt.Sprintf("warning: %s: mcpServers.%s is also mcp_servers.%s of your configuration, which applies", path, name, name))
			continue
		}
		servers[name] = s
	}
	return servers, warnings
}

// trustedWorkspace reports whether workspace is on the person's trust
// list (an unreadable list trusts nothing).
func trustedWorkspace(cfg *config.Config, workspace string) bool {
	dir, err := config.TrustDir(workspace)
	if err != nil {
		return false
	}
	list, err := config.ReadTrust(cfg.Home)
	return err == nil && list.Has(dir)
}
