package agents_test

import (
	"strings"
	"testing"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/mcp"
)

// TestMCPToolNameAgreesWithClient pins that the name a definition's
// mcp__server__tool becomes is the name the MCP client registers the tool
// under, so Claude's spelling works at run time.
func TestMCPToolNameAgreesWithClient(t *testing.T) {
	long := strings.Repeat("x", 80)
	for _, tc := range []struct{ server, tool string }{
		{"github", "get_issue"}, {"my-server", "dotted.name/with spaces"}, {"srv", long}, {long, "t"}, {"ünï", "çødé"},
	} {
		if got, want := agents.MCPToolName(tc.server, tc.tool), mcp.ToolName(tc.server, tc.tool); got != want {
			t.Errorf("MCPToolName(%q, %q) = %q; mcp.ToolName = %q", tc.server, tc.tool, got, want)
		}
	}
}
