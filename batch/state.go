package batch

import (
	"fmt"
	"time"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/event"
	"github.com/yagent/yagent/memory"
)

// LandedNote is a note an earlier run of a plan left on the board for one
// of its delegations.
type LandedNote struct {
	blackboard.NoteMeta
	// Reason is the handoff's reason (why partial).
	Reason string
}

// Landed finds what earlier runs of a plan left on board, by delegation
// id: the newest note whose key names the delegation (KeyID) and whose
// status succeeded; when p is known, only the plan's own ids written by the
// plan's agent count. Notes created at or after before (when it is not
// zero) are left out: they are the running session's own. --resume reuses
// these notes instead of running their delegations again; the web view
// shows them as resumed. An unreadable note counts as absent; a board that
// does not exist has none.
func Landed(store *blackboard.Store, board string, p *Plan, before time.Time) (map[string]LandedNote, error) {
	out := map[string]LandedNote{}
	if !store.BoardExists(board) {
		return out, nil
	}
	var agent map[string]string
	if p != nil {
		agent = map[string]string{}
		for _, d := range p.Delegations {
			agent[d.ID] = blackboard.NormalizeAgent(d.Agent)
		}
	}
	list, err := store.ListNotes(board, blackboard.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list board %s: %w", board, err)
	}
	for _, m := range list.Notes { // newest first
		if !m.Status.Succeeded() || !before.IsZero() && !m.Created.Before(before) {
			continue
		}
		_, h, err := store.ReadHandoff(board, m.Ref)
		if err != nil {
			continue
		}
		id := KeyID(h.Key)
		if _, seen := out[id]; id == "" || seen {
			continue
		}
		if a, ok := agent[id]; agent != nil && (!ok || a != m.Agent) {
			continue
		}
		out[id] = LandedNote{NoteMeta: m, Reason: h.Reason}
	}
	return out, nil
}

// Node is one delegation of a batch and its state, as the web view shows
// it.
type Node struct {
	ID    string
	Agent string
	Task  string
	Deps  []string
	// Status is pending, running, a note's status, or one of skipped,
	// not_started, abandoned.
	Status string
	Ref    string
	// Resumed: the note came from an earlier run of the plan (--resume).
	Resumed bool
}

// State is a batch's delegations, in plan order (then the rollout's), and
// whether the run is over.
type State struct {
	Nodes []Node
	Done  bool
}

const (
	statePending = "pending"
	stateRunning = "running"
)

// StateFromRollout is a batch's state now, from what its session's rollout
// recorded: a delegation start makes one running, a finish gives it its
// note's status; landed (Landed, before the session began) are the notes
// an earlier run left, shown as resumed; the plan's rule that a delegation
// whose dependency did not succeed is skipped applies as Run applies it.
// The run is done when every delegation has ended or, when alive is false
// (the process that ran it is gone), at once: what never started is
// not_started, what was running is abandoned. p may be nil (the plan file
// cannot be read now): the rollout's delegations are shown, without
// dependencies.
func StateFromRollout(p *Plan, items []memory.Item, landed map[string]LandedNote, alive bool) State {
	var st State
	index := map[string]int{}
	add := func(id, agent, task string, deps []string) *Node {
		if i, ok := index[id]; ok {
			return &st.Nodes[i]
		}
		index[id] = len(st.Nodes)
		st.Nodes = append(st.Nodes, Node{ID: id, Agent: agent, Task: task, Deps: deps, Status: statePending})
		return &st.Nodes[len(st.Nodes)-1]
	}
	if p != nil {
		for _, d := range p.Delegations {
			add(d.ID, d.Agent, d.Task, d.DependsOn)
		}
	}
	for _, it := range items {
		dl := it.Delegation
		if dl == nil {
			continue
		}
		n := add(dl.CallID, dl.Agent, dl.Task, nil)
		switch it.Type {
		case event.DelegationStarted:
			n.Status = stateRunning
		case event.DelegationFinished:
			n.Status, n.Ref = dl.Status, dl.Ref
		}
	}
	for i := range st.Nodes {
		n := &st.Nodes[i]
		if l, ok := landed[n.ID]; ok && n.Status == statePending {
			n.Status, n.Ref, n.Resumed = string(l.Status), l.Ref, true
		}
	}
	// Skipped: a dependency ended without success; a skip skips its own
	// dependants, so repeat until nothing changes.
	ended := func(s string) bool { return s != statePending && s != stateRunning }
	for changed := true; changed; {
		changed = false
		for i := range st.Nodes {
			n := &st.Nodes[i]
			if n.Status != statePending {
				continue
			}
			for _, dep := range n.Deps {
				if j, ok := index[dep]; ok && ended(st.Nodes[j].Status) && !blackboard.Status(st.Nodes[j].Status).Succeeded() {
					n.Status, changed = StatusSkipped, true
					break
				}
			}
		}
	}
	st.Done = true
	for _, n := range st.Nodes {
		if !ended(n.Status) {
			st.Done = false
		}
	}
	if !st.Done && !alive {
		st.Done = true
		for i := range st.Nodes {
			switch st.Nodes[i].Status {
			case statePending:
				st.Nodes[i].Status = StatusNotStarted
			case stateRunning:
				st.Nodes[i].Status = StatusAbandoned
			}
		}
	}
	return st
}
