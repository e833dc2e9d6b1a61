package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestMCPServerDefaults pins that every configured server takes the keys it
// lacks from the "*" entry, that a present key wins even when false or
// zero, that a user file may change the "*" defaults, and that "*" is never
// taken for a server.
func TestMCPServerDefaults(t *testing.T) {
	cfg, err := load(t,
		"mcp_servers:\n  \"*\":\n    timeout: 2m\n  fs:\n    command: npx\n    args: [-y, server]\n    enabled: false\n",
		"mcp_servers:\n  web:\n    url: http://127.0.0.1:9/mcp\n    token_env: WEB_TOKEN\n    timeout: 5s\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cfg.MCPServers[MCPServerDefaults]; ok {
		t.Errorf("mcp_servers still holds the %q defaults entry", MCPServerDefaults)
	}
	if len(cfg.MCPServers) != 2 {
		t.Fatalf("mcp_servers = %v; want fs and web", cfg.MCPServers)
	}
	fs := cfg.MCPServers["fs"]
	if fs.Enabled || fs.Timeout.D() != 2*time.Minute || fs.Command != "npx" || !slices.Equal(fs.Args, []string{"-y", "server"}) {
		t.Errorf("fs = %+v; want enabled false kept, timeout 2m from the user's \"*\"", fs)
	}
	web := cfg.MCPServers["web"]
	if !web.Enabled || web.Timeout.D() != 5*time.Second || web.TokenEnv != "WEB_TOKEN" {
		t.Errorf("web = %+v; want enabled by default, its own timeout", web)
	}
	def, err := load(t, "mcp_servers:\n  one:\n    command: x\n", "")
	if err != nil {
		t.Fatal(err)
	}
	if one := def.MCPServers["one"]; !one.Enabled || one.Timeout.D() != 60*time.Second {
		t.Errorf("one = %+v; want the built-in defaults (enabled, 60s)", one)
	}
}

func TestMCPServerUnknownKey(t *testing.T) {
	_, err := load(t, "mcp_servers:\n  fs:\n    comand: npx\n", "")
	if err == nil || !strings.Contains(err.Error(), "config.yaml:3: mcp_servers.fs.comand: unknown key") {
		t.Errorf("err = %v; want the file, line and key of the typo", err)
	}
}

func TestMCPServerCheck(t *testing.T) {
	tests := []struct {
		s    MCPServer
		want string
	}{
		{MCPServer{Command: "x"}, ""},
		{MCPServer{URL: "http://x", TokenEnv: "T"}, ""},
		{MCPServer{}, "set command"},
		{MCPServer{Command: "x", URL: "http://x"}, "not both"},
		{MCPServer{Command: "x", TokenEnv: "T"}, "token_env is for url servers"},
		{MCPServer{URL: "http://x", OAuthClientID: "c", OAuthClientSecretEnv: "C_TOKEN"}, ""},
		{MCPServer{Command: "x", OAuthClientID: "c"}, "oauth_client_id and oauth_client_secret_env are for url servers"},
		{MCPServer{URL: "http://x", OAuthClientSecretEnv: "C_TOKEN"}, "oauth_client_secret_env needs oauth_client_id"},
		{MCPServer{URL: "http://x", OAuthClientID: "c", TokenEnv: "T"}, "token_env (a fixed token) or oauth_client_id (OAuth), not both"},
	}
	for _, tt := range tests {
		err := tt.s.Check("s")
		if (tt.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Check(%+v) = %v; want %q", tt.s, err, tt.want)
		}
	}
}

// TestKBDefaults pins the documented defaults of kb: enabled, the two
// tools of the director, no project (so no silent default), the database
// under YAGENT_HOME, embeddings off.
func TestKBDefaults(t *testing.T) {
	cfg, err := load(t, "", "")
	if err != nil {
		t.Fatal(err)
	}
	k := cfg.KB
	if !k.Enabled || k.Project != "" || k.Embeddings.Model != "" || k.Embeddings.Endpoint != "default" || k.UserMemory != "isolated" {
		t.Errorf("kb = %+v", k)
	}
	if !slices.Equal(k.AgentTools, []string{"recall", "remember_about_project"}) {
		t.Errorf("kb.agent_tools = %v; want [recall remember_about_project]", k.AgentTools)
	}
	if got, want := k.DBPath(cfg.Home), filepath.Join(cfg.Home, "kb.db"); got != want {
		t.Errorf("DBPath = %q; want %q", got, want)
	}
	cfg, err = load(t, "kb:\n  enabled: false\n  path: /srv/kb.db\n  agent_tools: []\n", "")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.KB.Enabled || cfg.KB.DBPath(cfg.Home) != "/srv/kb.db" || len(cfg.KB.AgentTools) != 0 {
		t.Errorf("kb = %+v; want the file's values, the empty list kept", cfg.KB)
	}
}

// TestMCPAndKBValuesChecked pins that mcp_servers and kb values which
// decode but cannot work are errors naming file, line and key.
func TestMCPAndKBValuesChecked(t *testing.T) {
	_, err := load(t, `mcp_servers:
  none:
    args: [x]
  both:
    command: x
    url: http://x
  my.fs:
    command: x
  slow:
    command: x
    timeout: "0"
kb:
  embeddings:
    model: embed
    endpoint: nowhere
  user_memory: everyone
  dsn: mysql://root:hunter2@db/kb
`, "")
	for _, want := range []string{
		"config.yaml:5: mcp_servers.both: set command or url, not both",
		`config.yaml:2: mcp_servers: server name "my.fs": use letters, digits`,
		"config.yaml:3: mcp_servers.none: set command (a stdio server) or url",
		"config.yaml:11: mcp_servers.slow.timeout: want a duration above 0",
		`config.yaml:15: kb.embeddings.endpoint: "nowhere" is not a model under models:`,
		`config.yaml:16: kb.user_memory: want isolated or shared, got "everyone"`,
		`config.yaml:17: kb.dsn: want a postgres:// URL such as postgres://user@host:5432/db, got "mysql://root:***@db/kb"`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v\nwant it to contain %q", err, want)
		}
	}
	if _, err := load(t, "mcp_servers:\n  ok_server-1:\n    url: http://x\n", ""); err != nil {
		t.Errorf("a valid server: %v", err)
	}
}
