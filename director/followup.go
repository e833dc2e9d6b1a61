package director

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
)

// ErrNoSubSession reports a note that no follow-up can continue: it names
// no sub-agent session (`session:`), so it was not landed by a delegation
// that kept its history (written by hand, on a queue worker, before
// follow-ups existed).
var ErrNoSubSession = errors.New("names no sub-agent session")

// followUpIn are follow_up's arguments (schemas.json has their
// descriptions).
type followUpIn struct {
	Ref     string `json:"ref"`
	Message string `json:"message"`
}

// FollowUpTool returns follow_up (issue 30): the lead's way to continue a
// finished delegation — the same agent with the same tools, from its kept
// history plus the message — landing a new note that supersedes the one
// named.
func (d *Delegator) FollowUpTool() *agents.Tool {
	return agents.NewTool("follow_up", "director", agents.LeadOnly, func(ctx context.Context, c *agents.Call, in followUpIn) (agents.Result, error) {
		board, ok := blackboard.BoardIDFrom(ctx)
		if !ok {
			return agents.ErrorResult("this session has no board, so there is nothing to follow up"), nil
		}
		dl, err := FollowUpOf(d.Runner.Board, board, in.Ref, in.Message)
		if err != nil {
			return agents.ErrorResult("%v", err), nil
		}
		dl.CallID = c.ID
		return d.launch(ctx, c, dl)
	})
}

// FollowUpOf is the delegation that follows up the note ref of board with
// message: the note's agent, continuing the sub-agent session the note
// names. A note that is not there, or names no session, is an error
// saying what to do instead; whether the session's rollout is still there
// is found when it is reopened (the Recorder).
func FollowUpOf(store *blackboard.Store, board, ref, message string) (agents.Delegation, error) {
	if strings.TrimSpace(message) == "" {
		return agents.Delegation{}, errors.New("the message is empty: write what the sub-agent should do next")
	}
	meta, h, err := store.ReadHandoff(board, ref)
	if err != nil {
		return agents.Delegation{}, fmt.Errorf("follow up %s: %w", ref, err)
	}
	if h.Session == "" {
		return agents.Delegation{}, fmt.Errorf("follow up %s: the note %w (it was not landed by a delegation that kept its history): delegate the task anew", meta.Ref, ErrNoSubSession)
	}
	agent := h.Agent
	if agent == "" {
		agent = meta.Agent
	}
	return agents.Delegation{Agent: agent, Task: message, BoardID: board, Depth: 1,
		FollowUp: &agents.FollowUp{Ref: meta.Ref, Session: h.Session}}, nil
}

// FollowUp continues the delegation that landed ref with message outside
// a turn (`yagent board follow-up`): under the run's budget, recorded in
// this session like a delegation of its own. It returns what the lead
// would be told; a refusal or an error note is an error.
func (d *Director) FollowUp(ctx context.Context, ref, message string) (string, error) {
	dl, err := FollowUpOf(d.app.Board, d.opts.BoardID, ref, message)
	if err != nil {
		return "", err
	}
	return d.launchOutside(ctx, "follow_up", dl)
}

// launchOutside runs dl outside a turn as if the lead's tool name had
// called it: under the run's budget, on the session's board.
func (d *Director) launchOutside(ctx context.Context, name string, dl agents.Delegation) (string, error) {
	dl.CallID = strings.ReplaceAll(name, "_", "-") + "-" + d.delegator.Now().UTC().Format("20060102T150405.000Z")
	ctx = blackboard.WithBoardID(d.withBudget(ctx), d.opts.BoardID)
	res, err := d.delegator.launch(ctx, &agents.Call{ID: dl.CallID, Name: name}, dl)
	if err == nil && res.IsError {
		err = errors.New(res.Content)
	}
	return res.Content, err
}

// RerunOf is the delegation that runs the note ref of board again: a new
// delegation (a new sub-agent session, a new note) with the note's agent
// and task — what a resume offers for a delegation a dead process left.
// A note that is not there, or names no task, is an error saying so.
func RerunOf(store *blackboard.Store, board, ref string) (agents.Delegation, error) {
	meta, h, err := store.ReadHandoff(board, ref)
	if err != nil {
		return agents.Delegation{}, fmt.Errorf("re-run %s: %w", ref, err)
	}
	if strings.TrimSpace(h.Task) == "" {
		return agents.Delegation{}, fmt.Errorf("re-run %s: the note names no task: delegate it anew with the task written out", meta.Ref)
	}
	agent := h.Agent
	if agent == "" {
		agent = meta.Agent
	}
	return agents.Delegation{Agent: agent, Task: h.Task, BoardID: board, Depth: 1}, nil
}

// Rerun runs the delegation that landed ref again outside a turn (yagent
// board rerun, /rerun): the same agent and task as a new delegation,
// under the run's budget, recorded in this session like a delegation of
// its own. It returns what the lead would be told; a refusal or an error
// note is an error.
func (d *Director) Rerun(ctx context.Context, ref string) (string, error) {
	dl, err := RerunOf(d.app.Board, d.opts.BoardID, ref)
	if err != nil {
		return "", err
	}
	return d.launchOutside(ctx, "rerun", dl)
}
