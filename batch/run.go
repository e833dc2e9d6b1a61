package batch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/app"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/telemetry"
)

// Statuses of a delegation in a batch report besides a note's own (ok,
// partial, error). None of these leaves a note on the board.
const (
	StatusSkipped    = "skipped"     // a dependency did not succeed
	StatusAbandoned  = "abandoned"   // stopped while running (cancel, token budget)
	StatusNotStarted = "not_started" // the run was cancelled before its turn
)

// KeyPrefix starts the key a batch delegation's note carries
// ("batch:<id>", or "batch:<id>@<run>" when a queue landed it), by which
// --resume finds it.
const KeyPrefix = "batch:"

// KeyID returns the delegation id a batch note's key names ("" when key is
// not a batch key).
func KeyID(key string) string {
	id, ok := strings.CutPrefix(key, KeyPrefix)
	if !ok {
		return ""
	}
	id, _, _ = strings.Cut(id, "@")
	return id
}

// Executor runs one delegation of a plan to its end, as agents.SubRunner
// does in this process (the default): it writes at most one note and
// reports it; an abandoned delegation writes nothing. The queue package's
// coordinator is the other one: River workers on other hosts run the
// delegation and the coordinator lands the handoff on the board.
type Executor interface {
	Run(ctx context.Context, d agents.Delegation) (agents.DelegationResult, error)
}

var _ Executor = (*agents.SubRunner)(nil)

// Digest identifies the plan's delegations (ids, agents, tasks,
// dependencies, refs, overrides): a distributed batch's --resume reattaches
// to the unfinished run of the same board and digest.
func (p *Plan) Digest() string {
	data, _ := json.Marshal(p.Delegations)
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:16])
}

// Options are what Run needs besides the plan.
type Options struct {
	// Runner's Catalog and Board are the ones the plan is checked against;
	// it runs each delegation unless Executor is set.
	Runner *agents.SubRunner
	// Executor, when set, runs the delegations instead of Runner (a
	// distributed batch: queue.Coordinator).
	Executor Executor
	// Board overrides the plan's board; one of them must be set.
	Board string
	// Parallel overrides the plan's parallel when positive; when neither
	// sets one there is no bound (the command line passes
	// agents.max_parallel_delegations then).
	Parallel int
	// Resume skips delegations whose notes (by key) already exist on the
	// board with status ok or partial, and reuses their refs.
	Resume bool
	// Events receives batch_started, delegation_started,
	// delegation_finished, delegation_skipped and batch_finished.
	Events agents.Sink
	Now    func() time.Time
	// Changes applies the changes of a plan with merge: auto; nil: the
	// runner's board, workspace and worktrees.
	Changes *app.Changes
	// Check runs an until check (app.Run.CheckGoal); nil: an entry with
	// until fails saying no check ran.
	Check CheckFunc
}

// Report is what a batch run did, one row per delegation in plan
// order.
type Report struct {
	Plan        string
	Board       string
	Parallel    int // 0: no bound
	Resume      bool
	Delegations []DelegationReport
	Elapsed     time.Duration
	// Cancelled is set when the run was interrupted: delegations that were
	// running are abandoned, the rest not started.
	Cancelled bool
	// MergeStopped, under merge: auto, says which change did not apply
	// (its files and hunks): the later levels did not run.
	MergeStopped string
}

// DelegationReport is one row of a batch report.
type DelegationReport struct {
	ID    string
	Agent string
	// Status is ok, partial or error (a note was written — except for an
	// error before the sub-agent ran, which has no ref), or skipped,
	// abandoned, not_started (nothing was written).
	Status     string
	Ref        string
	Conclusion string
	// Reason says why: the note's reason, the failed dependency, the
	// cancel.
	Reason string
	// Resumed is set when the note came from an earlier run (--resume).
	Resumed bool
	Usage   agents.UsageEvent
	Elapsed time.Duration
	// Unresolved are context refs that named nothing when it started.
	Unresolved []string
}

// Succeeded reports whether the delegation counts as done: ok or partial.
func (d *DelegationReport) Succeeded() bool {
	return blackboard.Status(d.Status).Succeeded()
}

// OK reports whether every delegation succeeded (the exit code 0 rule).
func (r *Report) OK() bool {
	for i := range r.Delegations {
		if !r.Delegations[i].Succeeded() {
			return false
		}
	}
	return !r.Cancelled && r.MergeStopped == ""
}

// Counts returns how many delegations ended in each status.
func (r *Report) Counts() map[string]int {
	m := map[string]int{}
	for _, d := range r.Delegations {
		m[d.Status]++
	}
	return m
}

// Usage totals the delegations' requests and tokens.
func (r *Report) Usage() agents.UsageEvent {
	var u agents.UsageEvent
	for _, d := range r.Delegations {
		u.Add(d.Usage)
	}
	return u
}

// Event returns the row as the delegation payload of an event; usage is
// left out when the delegation made no model call.
func (d *DelegationReport) Event() agents.DelegationEvent {
	ev := agents.DelegationEvent{
		ID: d.ID, CallID: d.ID, Agent: d.Agent, Status: d.Status, Ref: d.Ref, Conclusion: d.Conclusion,
		Reason: d.Reason, Resumed: d.Resumed, ElapsedMS: d.Elapsed.Milliseconds(),
	}
	if d.Usage.Requests > 0 {
		u := d.Usage
		ev.Usage = &u
	}
	return ev
}

// Run validates the plan against the runner's catalog and the board,
// then runs it: delegations start in plan order as soon as their
// dependencies succeeded, at most Parallel at once; one whose dependency
// did not succeed is skipped and writes nothing. When ctx is cancelled
// nothing new starts, running delegations are abandoned (they write
// nothing) and the report says what ran; the error is then ctx's. An
// invalid plan returns a *PlanError and starts nothing.
func Run(ctx context.Context, p *Plan, opts Options) (*Report, error) {
	if opts.Runner == nil {
		return nil, errors.New("run plan: no sub-agent runner")
	}
	board := opts.Board
	if board == "" {
		board = p.Board
	}
	if board == "" {
		return nil, fmt.Errorf("run plan %s: no board: set board in the plan or pass one", p.Name)
	}
	if err := p.Validate(PlanEnv{Catalog: opts.Runner.Catalog, Board: opts.Runner.Board, BoardID: board}); err != nil {
		return nil, err
	}
	b := newBatchRun(p, opts, board)
	if opts.Resume {
		if err := b.findDone(); err != nil {
			return nil, err
		}
	}
	ctx, sp := telemetry.StartBatch(ctx, p.Name, board, len(p.Delegations))
	b.run(ctx)
	endBatchSpan(sp, b.report)
	if b.report.Cancelled {
		return b.report, ctx.Err()
	}
	return b.report, nil
}
