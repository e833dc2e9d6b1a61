package sandbox

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPTokensHidden: the OAuth tokens of MCP servers (app.MCPTokenDir,
// $YAGENT_HOME/mcp-oauth) are out of a confined command's sight in a
// view: $YAGENT_HOME is hidden, the token file cannot be read.
func TestMCPTokensHidden(t *testing.T) {
	eachMechanism(t, func(t *testing.T, mech Mechanism) {
		if mech != View {
			t.Skip("Landlock alone keeps $YAGENT_HOME read-only, not hidden (see AGENTS.md)")
		}
		ws := visibleDir(t)
		home := visibleDir(t)
		mustMkdir(t, filepath.Join(home, "mcp-oauth"))
		mustWrite(t, filepath.Join(home, "mcp-oauth", "remote-0123456789ab.json"), `{"token":{"access_token":"sekrit-access"}}`)
		p, err := New(WorkspaceWrite, ws, nil)
		if err != nil {
			t.Fatal(err)
		}
		p.Home = home
		force(p, mech)
		defer p.Close()
		out, _ := run(t, p, ws, `cat "$H"/mcp-oauth/*.json || echo refused-read`, "H="+home)
		if strings.Contains(out, "sekrit-access") || !strings.Contains(out, "refused-read") {
			t.Errorf("a confined command read an MCP token file:\n%s", out)
		}
	})
}
