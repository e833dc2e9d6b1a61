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
// background delegation goes to the workers; a follow-up reads this
// host's sessions, so it runs here, as does everything without a Remote.
// A background team member runs here too (it reads the board's tasks and
// mailbox), its rounds on the workers (remoteRounds); one waited for runs
// wholly here.
func TestRemoteDispatch(t *testing.T) {
	for _, tc := range []struct {
		name         string
		remote       Executor
		dl           agents.Delegation
		want, rounds bool
	}{
		{"background", nopExecutor{}, agents.Delegation{Background: true}, true, false},
		{"waited for", nopExecutor{}, agents.Delegation{}, false, false},
		{"background team member", nopExecutor{}, agents.Delegation{Background: true, Team: "build"}, false, true},
		{"team member waited for", nopExecutor{}, agents.Delegation{Team: "build"}, false, false},
		{"background follow-up", nopExecutor{}, agents.Delegation{Background: true, FollowUp: &agents.FollowUp{Ref: "worker/x"}}, false, false},
		{"no queue", nil, agents.Delegation{Background: true}, false, false},
		{"no queue, team member", nil, agents.Delegation{Background: true, Team: "build"}, false, false},
	} {
		d := &Delegator{Remote: tc.remote}
		if got, rounds := d.remote(tc.dl), d.remoteRounds(tc.dl); got != tc.want || rounds != tc.rounds {
			t.Errorf("%s: remote = %v, remoteRounds = %v; want %v, %v", tc.name, got, rounds, tc.want, tc.rounds)
		}
	}
}
