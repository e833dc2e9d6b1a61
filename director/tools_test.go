package director

import (
	"bytes"
	"testing"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/app"
	"github.com/yagent/yagent/toolspec"
)

// TestEveryBuiltinToolDeclared pins that every tool of schemas.json is
// declared in code through agents.NewTool, which checks its arguments
// struct against the schema (toolspec.CheckInput) when it builds the tool:
// a session's director registers all of them but agent_exit and
// claim_task (every sub-agent's) and sleep_finish (the curation call's own, checked by
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
		case "skill":
			tool = app.SkillTool(nil) // registered only when there is a skill
		case "claim_task":
			tool = agents.ClaimTaskTool(f.d.app.Board) // every sub-agent's, never the director's
		default:
			var ok bool
			if tool, ok = f.d.app.Registry.Get(name); !ok {
				t.Errorf("built-in tool %s is in schemas.json but the director does not register it", name)
				continue
			}
		}
		if spec := toolspec.MustLookup(name); !bytes.Equal(tool.Schema, spec.Parameters) || tool.Description != spec.Description {
			t.Errorf("tool %s is not declared from its schemas.json entry", name)
		}
	}
}

// TestDelegatorGuardsHaveNoDefaults pins that the delegator takes config's
// guards as they are (issue 13 item 4): max_parallel_delegations 0 means
// no bound (not "4"), and a sub-agent at depth d gets delegate only while
// d < max_depth (0 and 1 alike keep sub-agents from delegating; no "0 means
// 1" in the code).
func TestDelegatorGuardsHaveNoDefaults(t *testing.T) {
	tests := []struct {
		guards   Guards
		bound    int // cap of the semaphore; -1: none
		subTools int // tools a depth-1 sub-agent gets on top
	}{
		{Guards{}, -1, 0},
		{Guards{MaxParallel: 2, MaxDepth: 1}, 2, 0},
		{Guards{MaxDepth: 2}, -1, 1},
	}
	for _, tt := range tests {
		r := &agents.SubRunner{}
		d := NewDelegator(r, tt.guards, nil)
		bound := -1
		if d.sem != nil {
			bound = cap(d.sem)
		}
		if bound != tt.bound || len(r.ExtraTools(1)) != tt.subTools {
			t.Errorf("NewDelegator(%+v): bound %d, depth-1 extra tools %d; want %d, %d", tt.guards, bound, len(r.ExtraTools(1)), tt.bound, tt.subTools)
		}
	}
}
