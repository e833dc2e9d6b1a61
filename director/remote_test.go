package director

import (
	"context"
	"testing"

	"github.com/yagent/yagent/agents"
)

type nopExecutor struct{}

func (nopExecutor) Run(context.Context, agents.Delegation) (agents.DelegationResult, error) {
	return agents.DelegationResult{}, nil
}

// TestRemoteDispatch: with queue.dsn (Delegator.Remote) only a plain
// background delegation goes to the workers; a team member and a
// follow-up read this host's board and sessions, so they run here, as
// does everything without a Remote.
func TestRemoteDispatch(t *testing.T) {
	for _, tc := range []struct {
		name   string
		remote Executor
		dl     agents.Delegation
		want   bool
	}{
		{"background", nopExecutor{}, agents.Delegation{Background: true}, true},
		{"waited for", nopExecutor{}, agents.Delegation{}, false},
		{"background team member", nopExecutor{}, agents.Delegation{Background: true, Team: "build"}, false},
		{"background follow-up", nopExecutor{}, agents.Delegation{Background: true, FollowUp: &agents.FollowUp{Ref: "worker/x"}}, false},
		{"no queue", nil, agents.Delegation{Background: true}, false},
	} {
		d := &Delegator{Remote: tc.remote}
		if got := d.remote(tc.dl); got != tc.want {
			t.Errorf("%s: remote = %v; want %v", tc.name, got, tc.want)
		}
	}
}
