package batch

import (
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/event"
	"github.com/yagent/yagent/memory"
)

// TestStateFromRollout pins the web view's reading of a batch: a start is
// running, a finish is its note's status, an earlier run's note is
// resumed, a failed dependency skips its dependants transitively (as Run
// does), and a dead runner ends the run (pending: not_started, running:
// abandoned); without the plan the rollout's delegations still show.
func TestStateFromRollout(t *testing.T) {
	plan := &Plan{Delegations: []PlanDelegation{
		{ID: "a", Agent: "explorer", Task: "ta"},
		{ID: "b", Agent: "explorer", Task: "tb"},
		{ID: "d", Agent: "worker", Task: "td", DependsOn: []string{"c"}}, // before its dependency
		{ID: "c", Agent: "worker", Task: "tc", DependsOn: []string{"b"}},
		{ID: "e", Agent: "worker", Task: "te", DependsOn: []string{"a"}},
		{ID: "f", Agent: "worker", Task: "tf"},
	}}
	started := func(id string) memory.Item {
		return memory.Item{Event: event.Event{Type: event.DelegationStarted, Delegation: &event.DelegationEvent{CallID: id}}}
	}
	finished := func(id, status, ref string) memory.Item {
		return memory.Item{Event: event.Event{Type: event.DelegationFinished, Delegation: &event.DelegationEvent{CallID: id, Status: status, Ref: ref}}}
	}
	items := []memory.Item{started("b"), finished("b", "error", "explorer/x-b"), started("e")}
	landed := map[string]LandedNote{"a": {NoteMeta: blackboard.NoteMeta{Ref: "explorer/x-a", Status: blackboard.StatusPartial}}}
	for _, tc := range []struct {
		name  string
		plan  *Plan
		alive bool
		want  map[string]string
		done  bool
	}{
		{"running", plan, true, map[string]string{"a": "partial", "b": "error", "c": StatusSkipped, "d": StatusSkipped, "e": "running", "f": "pending"}, false},
		{"runner gone", plan, false, map[string]string{"a": "partial", "b": "error", "c": StatusSkipped, "d": StatusSkipped, "e": StatusAbandoned, "f": StatusNotStarted}, true},
		{"no plan", nil, true, map[string]string{"a": "partial", "b": "error", "e": "running"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lnd := landed
			if tc.plan == nil {
				lnd = map[string]LandedNote{} // without the plan, a node exists only in the rollout
				tc.want = map[string]string{"b": "error", "e": "running"}
			}
			st := StateFromRollout(tc.plan, items, lnd, tc.alive)
			got := map[string]string{}
			for _, n := range st.Nodes {
				got[n.ID] = n.Status
				if n.ID == "a" && !n.Resumed {
					t.Errorf("a: not marked resumed")
				}
			}
			if !maps.Equal(got, tc.want) || st.Done != tc.done {
				t.Errorf("state = %v, done %v; want %v, done %v", got, st.Done, tc.want, tc.done)
			}
			if tc.plan != nil {
				var ids []string
				for _, n := range st.Nodes {
					ids = append(ids, n.ID)
				}
				if !slices.Equal(ids, []string{"a", "b", "d", "c", "e", "f"}) {
					t.Errorf("nodes in order %v; want the plan's", ids)
				}
			}
		})
	}
}

// TestLanded pins resume-by-key, which Run's --resume and the web view
// share: the newest succeeded note whose key names a delegation of the
// plan, written by the plan's agent, and (for the web view) before the
// session began.
func TestLanded(t *testing.T) {
	store := blackboard.Open(filepath.Join(t.TempDir(), "notes"))
	write := func(agent, key string, status blackboard.Status) string {
		t.Helper()
		m, err := store.WriteNote("b", blackboard.NewNote{Handoff: blackboard.Handoff{Agent: agent, Status: status, Key: key, Conclusion: "c"}})
		if err != nil {
			t.Fatal(err)
		}
		return m.Ref
	}
	plan := &Plan{Delegations: []PlanDelegation{{ID: "a", Agent: "explorer"}, {ID: "b", Agent: "explorer"}, {ID: "c", Agent: "worker"}}}
	oldA := write("explorer", KeyPrefix+"a", blackboard.StatusOK)
	newA := write("explorer", KeyPrefix+"a@run1", blackboard.StatusPartial)
	write("explorer", KeyPrefix+"b", blackboard.StatusError) // failed: run again
	write("explorer", KeyPrefix+"c", blackboard.StatusOK)    // another agent's
	write("explorer", KeyPrefix+"zzz", blackboard.StatusOK)  // not in the plan
	write("explorer", "", blackboard.StatusOK)               // no key
	got, err := Landed(store, "b", plan, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got["a"].Ref != newA {
		t.Errorf("Landed = %v; want only a, its newest note %s (not %s)", got, newA, oldA)
	}
	if none, err := Landed(store, "nosuch", plan, time.Time{}); err != nil || len(none) != 0 {
		t.Errorf("Landed on a missing board = %v, %v; want none", none, err)
	}
	// Without the plan every succeeded batch key counts.
	all, _ := Landed(store, "b", nil, time.Time{})
	if len(all) != 3 {
		t.Errorf("Landed without a plan = %v; want a, c and zzz", slices.Sorted(maps.Keys(all)))
	}
	// Written at or after before: the running session's own.
	if later, _ := Landed(store, "b", plan, time.Now().Add(-time.Hour)); len(later) != 0 {
		t.Errorf("Landed before an hour ago = %v; want none", later)
	}
}
