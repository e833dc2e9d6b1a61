package director

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/event"
)

// Guards holds the limits against runaway fan-out, as config resolved
// them (agents.*; no defaults here).
type Guards struct {
	// MaxParallel bounds delegations running at once
	// (agents.max_parallel_delegations); 0 means no bound.
	MaxParallel int
	// MaxPerTurn bounds delegations started in one director turn
	// (agents.max_delegations_per_turn); 0 means no limit.
	MaxPerTurn int
	// MaxDepth is how deep delegation may nest (agents.max_depth): a
	// sub-agent at depth d gets the delegate tool while d < MaxDepth, so 1
	// (or 0) means sub-agents cannot delegate.
	MaxDepth int
}

// Delegator provides the delegate tool.
type Delegator struct {
	Runner *agents.SubRunner
	Guards Guards
	Events agents.Sink
	Now    func() time.Time
	// Around, when set, is called before a delegation runs and returns
	// what to call with its note's ref when it ends ("" = no note; nil =
	// nothing): the director's checkpoints of a delegation that writes in
	// the workspace itself.
	Around func(context.Context, agents.Delegation) func(ref string)
	// Background, when set, starts a delegation in the background
	// (delegate's background: true; the director's, background.go).
	Background func(context.Context, *agents.Call, agents.Delegation) (agents.Result, error)
	// Remote, when set, runs the background delegations (not follow-ups:
	// remote) instead of Runner: with queue.dsn, on the queue's workers
	// (queue.Background), which lands each note through its coordinator.
	// A background team member runs here and sends each round there
	// (remoteRounds).
	Remote Executor

	sem     chan struct{} // nil: no bound
	perTurn atomic.Int64
}

// Executor runs one delegation to its note (agents.SubRunner's Run; a
// queue's, on workers).
type Executor interface {
	Run(ctx context.Context, d agents.Delegation) (agents.DelegationResult, error)
}

// NewDelegator returns a delegator with its parallelism bound set up.
func NewDelegator(r *agents.SubRunner, g Guards, events agents.Sink) *Delegator {
	d := &Delegator{Runner: r, Guards: g, Events: events, Now: time.Now}
	if g.MaxParallel > 0 {
		d.sem = make(chan struct{}, g.MaxParallel)
	}
	r.ExtraTools = func(depth int) []*agents.Tool {
		if depth < d.Guards.MaxDepth {
			return []*agents.Tool{d.Tool(depth + 1)}
		}
		return nil
	}
	return d
}

// StartTurn resets the per-turn delegation count.
func (d *Delegator) StartTurn() { d.perTurn.Store(0) }

// delegateIn are the delegate tool's arguments (schemas.json has their
// descriptions).
type delegateIn struct {
	Agent       string   `json:"agent"`
	Task        string   `json:"task"`
	ContextRefs []string `json:"context_refs,omitempty"`
	Isolation   string   `json:"isolation,omitempty"`
	Background  bool     `json:"background,omitempty"`
	Team        string   `json:"team,omitempty"`
}

// Tool returns the delegate tool for delegations at depth (1 from the
// director).
func (d *Delegator) Tool(depth int) *agents.Tool {
	return agents.NewTool("delegate", "director", agents.LeadOnly|agents.Core, func(ctx context.Context, c *agents.Call, in delegateIn) (agents.Result, error) {
		return d.run(ctx, c, in, depth)
	})
}

func (d *Delegator) run(ctx context.Context, c *agents.Call, a delegateIn, depth int) (agents.Result, error) {
	board, ok := blackboard.BoardIDFrom(ctx)
	if !ok {
		return agents.ErrorResult("this session has no board, so nothing can be delegated"), nil
	}
	if strings.TrimSpace(a.Task) == "" {
		return agents.ErrorResult("the task is empty: write what the sub-agent should do and hand back"), nil
	}
	dl := agents.Delegation{CallID: c.ID, Agent: a.Agent, Task: a.Task, ContextRefs: a.ContextRefs, BoardID: board, Depth: depth, Isolation: a.Isolation, Team: a.Team}
	if a.Background {
		if d.Background == nil {
			return agents.ErrorResult("background delegations need a session's director: leave background out and wait for the note"), nil
		}
		return d.Background(ctx, c, dl)
	}
	return d.launch(ctx, c, dl)
}

// launch runs dl under the guards (per turn, in parallel) and gives the
// delegator its result: status, ref and conclusion.
func (d *Delegator) launch(ctx context.Context, c *agents.Call, dl agents.Delegation) (agents.Result, error) {
	if res, ok := d.admit(); !ok {
		return res, nil
	}
	res, started, err := d.execute(ctx, c, dl, nil)
	switch {
	case !started:
		return agents.Result{}, ctx.Err()
	case err != nil:
		return agents.ErrorResult("%v", err), nil
	case res.Abandoned:
		if ctx.Err() != nil {
			return agents.Result{}, ctx.Err()
		}
		return agents.ErrorResult("the delegation to %s was abandoned (%s); nothing was written to the board", dl.Agent, res.Reason), nil
	}
	return delegationResult(dl, res), nil
}

// admit counts a delegation against agents.max_delegations_per_turn; the
// result refuses one over it.
func (d *Delegator) admit() (agents.Result, bool) {
	if n := d.perTurn.Add(1); d.Guards.MaxPerTurn > 0 && n > int64(d.Guards.MaxPerTurn) {
		return agents.ErrorResult("this turn already started %d delegations, the limit (agents.max_delegations_per_turn): work with the notes you have", d.Guards.MaxPerTurn), false
	}
	return agents.Result{}, true
}

// execute runs dl under the parallel bound, between its started and
// finished events (and the Around hook); land, when set, may replace the
// result before the finished event (a background delegation's note when
// it was stopped). started is false when ctx ended before a slot freed.
func (d *Delegator) execute(ctx context.Context, c *agents.Call, dl agents.Delegation, land func(*agents.DelegationResult, error)) (res agents.DelegationResult, started bool, err error) {
	depth := dl.Depth
	if d.sem != nil {
		select {
		case d.sem <- struct{}{}:
		case <-ctx.Done():
			return res, false, nil
		}
		defer func() { <-d.sem }()
	}
	d.emit(agents.Event{Type: agents.EventDelegationStarted, Depth: depth - 1,
		Delegation: &agents.DelegationEvent{CallID: c.ID, Agent: dl.Agent, Task: dl.Task, Ref: refOf(dl), Background: dl.Background}})
	var after func(ref string)
	if d.Around != nil {
		after = d.Around(ctx, dl)
	}
	var run Executor = d.Runner
	switch {
	case d.remote(dl):
		run = d.Remote
	case d.remoteRounds(dl):
		// The member claims here, where the board is; each task it
		// claims runs on the workers as one job (agents.Delegation.Rounds).
		dl.Rounds = d.Remote.Run
	}
	res, err = run.Run(ctx, dl)
	if land != nil {
		land(&res, err)
	}
	if after != nil {
		if err != nil || res.Abandoned {
			after("")
		} else {
			after(res.Ref)
		}
	}
	fin := &agents.DelegationEvent{CallID: c.ID, Agent: dl.Agent, Status: string(res.Status), Ref: res.Ref,
		Conclusion: res.Conclusion, Usage: &res.Usage, ElapsedMS: res.Elapsed.Milliseconds(), Background: dl.Background}
	if c := res.Change; c != nil {
		fin.Change = &event.ChangeStat{Files: len(c.Files), Insertions: c.Insertions, Deletions: c.Deletions}
	}
	switch {
	case err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled):
		// Stopped (cancel_delegation, the process ending) before the
		// sub-agent ran: not a refusal of the delegation.
		fin.Status = "abandoned"
		fin.Conclusion = "stopped before it ran: " + context.Cause(ctx).Error()
	case err != nil:
		fin.Status = "refused"
		fin.Conclusion = err.Error()
	case res.Abandoned:
		fin.Status = "abandoned"
		fin.Conclusion = res.Reason
	}
	d.emit(agents.Event{Type: agents.EventDelegationFinished, Depth: depth - 1, Delegation: fin})
	return res, true, err
}

// remote says whether dl runs on Remote: a background delegation, unless
// it is a team member or a follow-up — those read this host's board and
// sessions (the team's tasks and mailbox, the kept rollout), which a
// worker does not have; they run here.
func (d *Delegator) remote(dl agents.Delegation) bool {
	return d.Remote != nil && dl.Background && dl.Team == "" && dl.FollowUp == nil
}

// remoteRounds says whether dl is a background team member whose rounds
// run on Remote: its claim loop stays here (it reads the team's tasks and
// mailbox, and lands its own note), each claimed task's round goes to
// the workers.
func (d *Delegator) remoteRounds(dl agents.Delegation) bool {
	return d.Remote != nil && dl.Background && dl.Team != "" && dl.FollowUp == nil
}

// refOf is the ref a delegation's note lands at when its stem was
// reserved (a background one's), else "".
func refOf(dl agents.Delegation) string {
	if dl.Stem == "" {
		return ""
	}
	return blackboard.Ref{Agent: blackboard.NormalizeAgent(dl.Agent), Stem: dl.Stem}.String()
}

// delegationResult is what the lead is told of a delegation that landed
// its note: status, ref and conclusion, not the body.
func delegationResult(dl agents.Delegation, res agents.DelegationResult) agents.Result {
	var b strings.Builder
	fmt.Fprintf(&b, "status: %s\nref: %s\nconclusion: %s", res.Status, res.Ref, res.Conclusion)
	if dl.FollowUp != nil {
		fmt.Fprintf(&b, "\nsupersedes: %s", dl.FollowUp.Ref)
	}
	if res.Reason != "" {
		fmt.Fprintf(&b, "\nreason: %s", res.Reason)
	}
	if res.Change != nil {
		fmt.Fprintf(&b, "\nchange: %s, %d files (+%d -%d): %s — pending: apply_change or discard_change with the note's ref",
			res.Change.Branch, len(res.Change.Files), res.Change.Insertions, res.Change.Deletions, strings.Join(res.Change.Files, ", "))
	} else if res.Isolated != "" {
		b.WriteString("\nchange: none (it worked in a worktree of its own and changed nothing)")
	}
	if len(res.Unresolved) > 0 {
		fmt.Fprintf(&b, "\nunresolved context_refs: %s", strings.Join(res.Unresolved, ", "))
	}
	b.WriteString("\n(read_note gives the full text)")
	return agents.Result{Content: b.String(), IsError: res.Status == blackboard.StatusError,
		Summary: fmt.Sprintf("%s %s", res.Status, res.Ref)}
}

func (d *Delegator) emit(e agents.Event) {
	if d.Events == nil {
		return
	}
	e.Time = d.Now()
	e.Agent = "director"
	d.Events.Emit(e)
}
