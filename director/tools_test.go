package director

import (
	"bytes"
	"testing"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/toolspec"
)

// TestEveryBuiltinToolDeclared pins that every tool of schemas.json is
// declared in code through agents.NewTool, which checks its arguments
// struct against the schema (toolspec.CheckInput) when it builds the tool:
// a session's director registers all of them but agent_exit (every
// sub-agent's) and sleep_finish (the curation call's own, checked by
// sleep's TestFinishInMatchesSchema).
func TestEveryBuiltinToolDeclared(t *testing.T) {
	f := newFixture(t, "basic-text", nil)
	for _, name := range toolspec.Names() {
		var tool *agents.Tool
		switch name {
		case "sleep_finish":
			continue
		case "agent_exit":
			tool = agents.ExitTool()
		default:
			var ok bool
			if tool, ok = f.d.Registry().Get(name); !ok {
				t.Errorf("built-in tool %s is in schemas.json but the director does not register it", name)
				continue
			}
		}
		if spec := toolspec.MustLookup(name); !bytes.Equal(tool.Schema, spec.Parameters) || tool.Description != spec.Description {
			t.Errorf("tool %s is not declared from its schemas.json entry", name)
		}
	}
}
