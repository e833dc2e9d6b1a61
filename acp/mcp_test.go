package acp

import (
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/mcp"
)

// TestEditorMCPServers pins session/new's mcpServers: stdio and http
// servers reach the session as mcp_servers entries (enabled, the
// editor's source, the default timeout; env and headers kept), and one
// yagent cannot use — SSE, a name given twice, no command — is a
// warning in the session, not a silent skip. initialize declares http.
func TestEditorMCPServers(t *testing.T) {
	h := serve(t, newFake("s1"))
	init, err := h.client.Initialize(t.Context(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil {
		t.Fatal(err)
	}
	if !init.AgentCapabilities.McpCapabilities.Http {
		t.Error("initialize does not declare http MCP servers")
	}
	s, err := h.client.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "files", Command: "mcp-files", Args: []string{"--root", "."}, Env: []sdk.EnvVariable{{Name: "FILES_TOKEN", Value: "t0k"}}}},
		{Http: &sdk.McpServerHttpInline{Type: "http", Name: "web", Url: "https://mcp.example.com/mcp", Headers: []sdk.HttpHeader{{Name: "Authorization", Value: "Bearer x"}}}},
		{Sse: &sdk.McpServerSseInline{Type: "sse", Name: "old", Url: "https://old.example.com/sse"}},
		{Stdio: &sdk.McpServerStdio{Name: "files", Command: "other"}},
		{Stdio: &sdk.McpServerStdio{Name: "empty"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	timeout := config.Duration(mcp.DefaultCallTimeout)
	want := map[string]config.MCPServer{
		"files": {Command: "mcp-files", Args: []string{"--root", "."}, Env: map[string]string{"FILES_TOKEN": "t0k"}, Enabled: true, Source: EditorSource, Timeout: timeout},
		"web":   {URL: "https://mcp.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer x"}, Enabled: true, Source: EditorSource, Timeout: timeout},
	}
	h.mu.Lock()
	got := h.sessions[0].req.MCPServers
	h.mu.Unlock()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the session's MCP servers (-want +got):\n%s", diff)
	}
	if _, err := h.client.Prompt(t.Context(), sdk.PromptRequest{SessionId: s.SessionId, Prompt: prompt("hi")}); err != nil {
		t.Fatal(err)
	}
	var warned strings.Builder
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		warned.Reset()
		for _, u := range h.ed.seen() {
			if u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text != nil {
				warned.WriteString(u.AgentThoughtChunk.Content.Text.Text)
			}
		}
		if strings.Count(warned.String(), "warning: not using") == 3 {
			break
		}
	}
	for _, w := range []string{`"old" speaks SSE`, `"files" given twice`, "mcp_servers.empty: set command"} {
		if !strings.Contains(warned.String(), w) {
			t.Errorf("the session's warnings %q; want one saying %s", warned.String(), w)
		}
	}
}
