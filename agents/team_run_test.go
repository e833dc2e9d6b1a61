package agents

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/yagent/yagent/blackboard"
)

// TestTeamRemoteRounds: a member whose rounds run elsewhere
// (Delegation.Rounds) claims here and hands each task over as a
// delegation of its own — its round input, the claim's stem, key
// task:{stem}, no team, the member's unread messages first in its index
// (once: a landed round marks them read) — and lands nothing for a
// round itself. A round refused before it ran lands the task's error
// note here and stops the member; one abandoned there gives the task
// back; a degraded one counts as failed and stops the member. The
// member's own note always lands here.
func TestTeamRemoteRounds(t *testing.T) {
	for _, tc := range []struct {
		name   string
		round  func(store *blackboard.Store, d Delegation) (DelegationResult, error)
		calls  int
		states map[blackboard.TaskState]int
		status blackboard.Status // the member's note
	}{
		{"landed", landRound(blackboard.StatusOK), 3, map[blackboard.TaskState]int{blackboard.TaskDone: 3}, blackboard.StatusOK},
		{"refused", func(*blackboard.Store, Delegation) (DelegationResult, error) {
			return DelegationResult{}, errors.New("the queue is unreachable")
		}, 1, map[blackboard.TaskState]int{blackboard.TaskFailed: 1, blackboard.TaskOpen: 2}, blackboard.StatusError},
		{"abandoned", func(*blackboard.Store, Delegation) (DelegationResult, error) {
			return DelegationResult{Abandoned: true, Reason: "its job was cancelled in the queue"}, nil
		}, 1, map[blackboard.TaskState]int{blackboard.TaskOpen: 3}, blackboard.StatusError},
		{"degraded", landRound(blackboard.StatusDegraded), 1, map[blackboard.TaskState]int{blackboard.TaskFailed: 1, blackboard.TaskOpen: 2}, blackboard.StatusError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, store := newRunner(t, "basic-text")
			for _, title := range []string{"T1", "T2", "T3"} {
				if _, err := store.PostTask("b", blackboard.Task{Title: title, Body: "do " + title, Team: "t", Author: blackboard.Director}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := store.SendMessage("b", blackboard.Message{From: blackboard.Director, To: "worker", Text: "MAIL-ONCE"}); err != nil {
				t.Fatal(err)
			}
			var got []Delegation
			rounds := func(_ context.Context, d Delegation) (DelegationResult, error) {
				got = append(got, d)
				return tc.round(store, d)
			}
			res, err := r.Run(t.Context(), Delegation{CallID: "call_1", Agent: "worker", Task: "TEAMWORK", BoardID: "b", Depth: 1, Team: "t", Rounds: rounds})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != tc.status || len(got) != tc.calls {
				t.Errorf("member %s (%s), %d rounds; want %s, %d", res.Status, res.Reason, len(got), tc.status, tc.calls)
			}
			list, err := store.Tasks("b")
			if err != nil {
				t.Fatal(err)
			}
			counts := list.Counts()
			for state, n := range tc.states {
				if counts[state] != n {
					t.Errorf("tasks %v; want %v\n%s", counts, tc.states, list.Table())
					break
				}
			}
			for i, d := range got {
				task := list.Tasks[i] // claimed in posting order
				if d.Team != "" || d.Rounds != nil || !strings.Contains(d.Task, "is claimed for you") || d.Prepared == nil ||
					d.Key != "task:"+strings.TrimPrefix(task.Ref, blackboard.TaskRefPrefix) {
					t.Errorf("round %d: %+v; want the round's input, its task's key, no team", i, d)
				}
				if task.Claim != nil && blackboard.NormalizeAgent(d.Agent)+"/"+d.Stem != task.Claim.Ref {
					t.Errorf("round %d lands at %s/%s; want the claim's %s", i, d.Agent, d.Stem, task.Claim.Ref)
				}
				if mail := strings.HasPrefix(d.Prepared.Index, "[mailbox · 1 unread]") && strings.Contains(d.Prepared.Index, "MAIL-ONCE"); mail != (i == 0) {
					t.Errorf("round %d's index shows the message: %v; want it in the first round only:\n%s", i, mail, d.Prepared.Index)
				}
			}
			notes, err := store.ListNotes("b", blackboard.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want := counts[blackboard.TaskDone] + counts[blackboard.TaskFailed] + 1
			if len(notes.Notes) != want {
				t.Errorf("%d notes; want %d: one per task handed over and the member's", len(notes.Notes), want)
			}
		})
	}
}

// landRound is a Rounds that lands the round's note at its stem with
// status, as queue.Background's coordinator does.
func landRound(status blackboard.Status) func(*blackboard.Store, Delegation) (DelegationResult, error) {
	return func(store *blackboard.Store, d Delegation) (DelegationResult, error) {
		meta, err := store.WriteNote(d.BoardID, blackboard.NewNote{Stem: d.Stem,
			Handoff: blackboard.Handoff{Agent: d.Agent, Task: "round", Status: status, Conclusion: "round " + string(status), Key: d.Key}})
		if err != nil {
			return DelegationResult{}, err
		}
		return DelegationResult{Status: meta.Status, Ref: meta.Ref, Conclusion: meta.Conclusion}, nil
	}
}
