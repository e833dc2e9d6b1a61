package app

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yagent/yagent/config"
)

// TestMCPServersWith pins the servers an editor passes over ACP: they
// join the configured ones, a configured name wins (with a warning), the
// same servers give the same *mcp.Servers (sessions share them), and
// none is MCPServers.
func TestMCPServersWith(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("kb:\n  enabled: false\nmcp_servers:\n  files:\n    command: mine\n    enabled: false\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	p := &Process{Getenv: func(k string) string {
		if k == "YAGENT_HOME" {
			return home
		}
		return ""
	}, Dir: t.TempDir(), Stderr: &stderr}
	t.Cleanup(func() { p.Close(func(string, error) {}) })
	extra := map[string]config.MCPServer{
		"files": {Command: "editors", Enabled: true, Source: "the editor"},
		"web":   {URL: "https://mcp.example.com/mcp", Enabled: true, Source: "the editor"},
	}
	s1, err := p.MCPServersWith(extra)
	if err != nil {
		t.Fatal(err)
	}
	if s1.Has("files") || !s1.Has("web") {
		t.Errorf("has files %v (want false: the configured one, disabled, wins), web %v (want true)", s1.Has("files"), s1.Has("web"))
	}
	if !strings.Contains(stderr.String(), "the editor's MCP server files is also configured: yours applies") {
		t.Errorf("stderr %q; want the collision named", stderr.String())
	}
	if s2, _ := p.MCPServersWith(map[string]config.MCPServer{"web": extra["web"], "files": extra["files"]}); s2 != s1 {
		t.Error("the same editor servers gave another *mcp.Servers")
	}
	plain, _ := p.MCPServers()
	if s3, _ := p.MCPServersWith(nil); s3 != plain || s3.Has("web") {
		t.Error("no editor servers: want the process's MCPServers")
	}
}
