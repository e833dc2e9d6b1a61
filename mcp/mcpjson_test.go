package mcp

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/config"
)

// TestParseMCPJSON: .mcp.json read as Claude Code reads it — stdio and
// http servers, ${VAR} and ${VAR:-default} expanded — and what yagent
// cannot run left out naming the server and why: sse, an unset variable,
// a url or header naming a variable a workspace may not send (only
// *_API_KEY and *_TOKEN), neither or both of command and url. A file that
// is not such JSON is an error naming its line.
func TestParseMCPJSON(t *testing.T) {
	env := map[string]string{"GH_TOKEN": "ghp_secret", "DATA_DIR": "/srv/data", "HOME": "/home/p"}
	getenv := func(k string) string { return env[k] }
	doc := `{
  "mcpServers": {
    "files": {"command": "npx", "args": ["-y", "server-fs", "${DATA_DIR}", "${CACHE:-/tmp/c}"], "env": {"LOG": "${LOG_LEVEL:-info}", "WHERE": "${HOME}"}},
    "github": {"type": "http", "url": "https://api.example/mcp", "headers": {"Authorization": "Bearer ${GH_TOKEN}"}},
    "legacy": {"type": "sse", "url": "https://old.example/sse"},
    "unset": {"command": "srv", "args": ["${NOT_SET}"]},
    "leaky": {"type": "http", "url": "https://evil.example/${HOME}"},
    "both": {"command": "x", "url": "https://a.example"},
    "none": {},
    "odd": {"type": "websocket", "url": "wss://a.example"}
  }
}`
	got, problems, err := ParseMCPJSON("ws/.mcp.json", []byte(doc), getenv)
	if err != nil {
		t.Fatal(err)
	}
	files := got["files"]
	if files.Command != "npx" || strings.Join(files.Args, " ") != "-y server-fs /srv/data /tmp/c" ||
		files.Env["LOG"] != "info" || files.Env["WHERE"] != "/home/p" || !files.Enabled || files.Timeout.D() != 60*time.Second || files.Source != "ws/.mcp.json" {
		t.Errorf("files = %+v", files)
	}
	if gh := got["github"]; gh.URL != "https://api.example/mcp" || gh.Headers["Authorization"] != "Bearer ghp_secret" || gh.Command != "" {
		t.Errorf("github = %+v", gh)
	}
	if len(got) != 2 {
		t.Errorf("servers %v; want files and github only", got)
	}
	want := []string{
		"ws/.mcp.json: mcpServers.both left out: a stdio server names a command and no url",
		"ws/.mcp.json: mcpServers.leaky left out: its url or headers name HOME: a workspace file may send only variables ending in _API_KEY or _TOKEN",
		"ws/.mcp.json: mcpServers.legacy left out: type sse",
		"ws/.mcp.json: mcpServers.none left out: neither command nor url",
		`ws/.mcp.json: mcpServers.odd left out: type "websocket": want stdio or http`,
		"ws/.mcp.json: mcpServers.unset left out: NOT_SET not set",
	}
	if len(problems) != len(want) {
		t.Fatalf("problems %q; want %d", problems, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(problems[i], w) {
			t.Errorf("problem %d = %q; want it to start %q", i, problems[i], w)
		}
	}

	for _, tc := range []struct{ doc, want string }{
		{"{\n  \"mcpServers\": {\n    \"a\": {\"command\": 5}\n  }\n}", "ws/.mcp.json:3"},
		{"{\n  \"mcpServers\": {,\n}", "ws/.mcp.json:2"},
		{`{"mcpServers": {}} {}`, "more than one JSON value"},
	} {
		if _, _, err := ParseMCPJSON("ws/.mcp.json", []byte(tc.doc), getenv); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseMCPJSON(%q) = %v; want an error with %q", tc.doc, err, tc.want)
		}
	}
}

// TestMCPJSONDefaultsAsConfigured: a .mcp.json server has no way to set a
// timeout; it gets the one defaults.yaml gives every configured server.
func TestMCPJSONDefaultsAsConfigured(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("mcp_servers:\n  x:\n    command: srv\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.Options{Getenv: func(k string) string {
		if k == "YAGENT_HOME" {
			return home
		}
		return ""
	}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	found, _, err := ParseMCPJSON(".mcp.json", []byte(`{"mcpServers": {"y": {"command": "srv"}}}`), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if x, y := cfg.MCPServers["x"], found["y"]; x.Timeout != y.Timeout || x.Enabled != y.Enabled {
		t.Errorf("a configured server: timeout %s, enabled %t; a .mcp.json one: %s, %t; want the same", x.Timeout.D(), x.Enabled, y.Timeout.D(), y.Enabled)
	}
}

// TestMCPJSONHeadersReachTheServer: a .mcp.json http server's headers
// (its bearer token from ${VAR}) go with every request: yagent's own
// gateway, which refuses a request without its token, lists its tools.
func TestMCPJSONHeadersReachTheServer(t *testing.T) {
	f := newFixture(t)
	srv := httptest.NewServer(f.gw.HTTPHandler())
	defer srv.Close()
	doc := `{"mcpServers": {"kb": {"type": "http", "url": "` + srv.URL + `", "headers": {"Authorization": "Bearer ${KB_TOKEN}"}}}}`
	found, problems, err := ParseMCPJSON(".mcp.json", []byte(doc), func(k string) string {
		if k == "KB_TOKEN" {
			return f.read
		}
		return ""
	})
	if err != nil || len(problems) > 0 {
		t.Fatal(err, problems)
	}
	s := NewServers(found, ServersOptions{})
	defer s.Close()
	tools, errs := s.Tools(t.Context(), headless)
	if len(errs) > 0 || toolByName(tools, "mcp_kb__whoami") == nil {
		t.Fatalf("tools %v, errors %v; want the gateway's read tools", agents.Names(tools), errs)
	}
}

// FuzzParseMCPJSON: any input is a parse error or servers that each name
// exactly one of command and url; it never panics.
func FuzzParseMCPJSON(f *testing.F) {
	f.Add([]byte(`{"mcpServers": {"a": {"command": "x", "args": ["${A:-b}"]}, "b": {"type": "http", "url": "https://h/${X_TOKEN}"}}}`))
	f.Add([]byte(`{"mcpServers": {"a": {"type": "sse"}}}`))
	f.Add([]byte(`{"mcpServers": {"": {"command": "${}"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		servers, _, err := ParseMCPJSON(".mcp.json", data, func(k string) string { return strings.ToLower(k) })
		if err != nil {
			return
		}
		for name, s := range servers {
			if (s.Command == "") == (s.URL == "") || name == "" {
				t.Errorf("server %q = %+v: want exactly one of command and url, and a name", name, s)
			}
		}
	})
}
