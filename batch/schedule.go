package batch

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
)

// batchRun is the state of one Run: the topological scheduler. Only
// the goroutine in run touches it; sub-agents report on a channel.
type batchRun struct {
	plan   *Plan
	opts   Options
	board  string
	now    func() time.Time
	report *Report

	index      map[string]int
	deps       [][]int // i depends on deps[i]
	dependants [][]int
	waiting    []int  // dependencies of i not yet succeeded
	terminal   []bool // i has its final status
	ready      []int  // may start now, kept in plan order

	// merge: auto only: level[i] is i's dependency level (0: no
	// dependency, else one more than its deepest dependency's); only
	// delegations of level cur start, and the level's changes are
	// applied once it is done.
	auto  bool
	level []int
	cur   int
}

type batchResult struct {
	i   int
	res agents.DelegationResult
	err error
}

func newBatchRun(p *Plan, opts Options, board string) *batchRun {
	n := len(p.Delegations)
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	par := opts.Parallel
	if par <= 0 {
		par = p.Parallel
	}
	b := &batchRun{
		plan: p, opts: opts, board: board, now: now,
		report: &Report{Plan: p.Name, Board: board, Parallel: par, Resume: opts.Resume, Delegations: make([]DelegationReport, n)},
		index:  make(map[string]int, n), deps: make([][]int, n), dependants: make([][]int, n), waiting: make([]int, n), terminal: make([]bool, n),
	}
	for i, d := range p.Delegations {
		b.index[d.ID] = i
		b.report.Delegations[i] = DelegationReport{ID: d.ID, Agent: d.Agent}
	}
	for i, d := range p.Delegations {
		// A context_refs id is among the dependencies already (Validate);
		// counting it directly matters only when --resume reused a note
		// in between: the ref still needs its own note to exist.
		needs := slices.Clone(d.DependsOn)
		for _, ref := range d.ContextRefs {
			if id := strings.TrimSpace(ref); !strings.Contains(id, "/") {
				needs = append(needs, id)
			}
		}
		for _, id := range needs {
			if j := b.index[id]; !slices.Contains(b.deps[i], j) {
				b.deps[i] = append(b.deps[i], j)
				b.dependants[j] = append(b.dependants[j], i)
			}
		}
		b.waiting[i] = len(b.deps[i])
	}
	if p.Merge == MergeAuto {
		b.auto = true
		b.level = levels(b.deps)
	}
	return b
}

// levels are the dependency levels of a plan's delegations (deps has no
// cycle: Validate).
func levels(deps [][]int) []int {
	level := make([]int, len(deps))
	done := make([]bool, len(deps))
	var of func(i int) int
	of = func(i int) int {
		if done[i] {
			return level[i]
		}
		done[i] = true
		for _, j := range deps[i] {
			level[i] = max(level[i], of(j)+1)
		}
		return level[i]
	}
	for i := range deps {
		of(i)
	}
	return level
}

// next takes the first ready delegation that may start: in plan order,
// and with merge: auto, of the current level only.
func (b *batchRun) next() (int, bool) {
	for k, i := range b.ready {
		if !b.auto || b.level[i] <= b.cur {
			b.ready = slices.Delete(b.ready, k, k+1)
			return i, true
		}
	}
	return 0, false
}

// findDone marks the delegations whose notes an earlier run left on the
// board: the newest note with the delegation's key, written by its
// agent, with status ok or partial. An error note does not count, so a
// resumed run retries what failed.
func (b *batchRun) findDone() error {
	landed, err := Landed(b.opts.Runner.Board, b.board, b.plan, time.Time{})
	if err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	for i, d := range b.plan.Delegations {
		l, ok := landed[d.ID]
		if !ok || b.terminal[i] {
			continue
		}
		r := &b.report.Delegations[i]
		r.Status, r.Ref, r.Conclusion, r.Reason, r.Resumed = string(l.Status), l.Ref, l.Conclusion, l.Reason, true
		b.terminal[i] = true
	}
	return nil
}

func (b *batchRun) emit(t agents.EventType, d *agents.DelegationEvent, be *agents.BatchEvent) {
	if b.opts.Events == nil {
		return
	}
	b.opts.Events.Emit(agents.Event{Type: t, Time: b.now(), Agent: "batch", Delegation: d, Batch: be})
}

func (b *batchRun) run(ctx context.Context) {
	start := b.now()
	r := b.report
	b.emit(agents.EventBatchStarted, nil, &agents.BatchEvent{Plan: r.Plan, Board: r.Board, Delegations: len(r.Delegations), Parallel: r.Parallel, Resume: r.Resume})
	for i := range b.plan.Delegations {
		if b.terminal[i] {
			ev := r.Delegations[i].Event()
			b.emit(agents.EventDelegationFinished, &ev, nil)
			b.succeeded(i)
		}
	}
	for i := range b.plan.Delegations {
		if !b.terminal[i] && len(b.deps[i]) == 0 {
			b.ready = append(b.ready, i) // the others are released by succeeded
		}
	}
	slices.Sort(b.ready)
	results := make(chan batchResult)
	running := 0
	for {
		for (r.Parallel == 0 || running < r.Parallel) && ctx.Err() == nil {
			i, ok := b.next()
			if !ok {
				break
			}
			b.start(ctx, i, results)
			running++
		}
		if running == 0 {
			if b.auto && ctx.Err() == nil && b.mergeLevel(ctx) {
				continue
			}
			break
		}
		res := <-results
		running--
		b.finish(ctx, res)
	}
	for i := range b.plan.Delegations {
		if !b.terminal[i] {
			r.Cancelled = true
			b.skip(i, StatusNotStarted, "the run was cancelled before it started")
		}
	}
	if ctx.Err() != nil {
		r.Cancelled = true
	}
	r.Elapsed = b.now().Sub(start)
	rows := make([]agents.DelegationEvent, len(r.Delegations))
	for i := range r.Delegations {
		rows[i] = r.Delegations[i].Event()
	}
	u := r.Usage()
	b.emit(agents.EventBatchFinished, nil, &agents.BatchEvent{Plan: r.Plan, Board: r.Board, Delegations: len(rows), Parallel: r.Parallel,
		Resume: r.Resume, Rows: rows, Counts: r.Counts(), Usage: &u, ElapsedMS: r.Elapsed.Milliseconds(), Cancelled: r.Cancelled})
}

// start launches delegation i; its result comes back on results.
func (b *batchRun) start(ctx context.Context, i int, results chan<- batchResult) {
	d := b.plan.Delegations[i]
	refs := make([]string, 0, len(d.ContextRefs))
	for _, ref := range d.ContextRefs {
		ref = strings.TrimSpace(ref)
		if !strings.Contains(ref, "/") {
			// A delegation id among the dependencies (Validate), which
			// succeeded, so it has a note.
			ref = b.report.Delegations[b.index[ref]].Ref
		}
		refs = append(refs, ref)
	}
	ev := agents.DelegationEvent{ID: d.ID, CallID: d.ID, Agent: d.Agent, Task: d.Task}
	b.emit(agents.EventDelegationStarted, &ev, nil)
	del := agents.Delegation{
		CallID: d.ID, Agent: d.Agent, Task: d.Task, ContextRefs: refs, BoardID: b.board, Depth: 1,
		Key: KeyPrefix + d.ID, Model: d.Model, MaxSteps: d.MaxSteps, Isolation: d.Isolation,
	}
	exec := b.opts.Executor
	if exec == nil {
		exec = b.opts.Runner
	}
	go func() {
		ectx := entryBudget(ctx, d)
		res, err := exec.Run(ectx, del)
		if err == nil && b.plan.goal(d).Check != "" {
			res = b.until(ectx, exec, d, del, res)
		}
		results <- batchResult{i: i, res: res, err: err}
	}()
}

// finish records a delegation's end and releases or skips its dependants.
func (b *batchRun) finish(ctx context.Context, res batchResult) {
	r := &b.report.Delegations[res.i]
	r.Usage, r.Elapsed, r.Unresolved = res.res.Usage, res.res.Elapsed, res.res.Unresolved
	switch {
	case res.err != nil:
		r.Status, r.Reason = string(blackboard.StatusError), res.err.Error()
		r.Conclusion = "The delegation could not run: " + res.err.Error()
	case res.res.Abandoned:
		r.Status, r.Reason = StatusAbandoned, res.res.Reason
		r.Conclusion = "Abandoned (" + res.res.Reason + "); nothing was written."
	default:
		r.Status, r.Ref, r.Conclusion, r.Reason = string(res.res.Status), res.res.Ref, res.res.Conclusion, res.res.Reason
	}
	b.terminal[res.i] = true
	ev := r.Event()
	b.emit(agents.EventDelegationFinished, &ev, nil)
	switch {
	case r.Succeeded():
		b.succeeded(res.i)
	case r.Status == StatusAbandoned && ctx.Err() != nil:
		// Cancelled: the dependants are reported as not started, not as
		// victims of a failure.
	case runBudgetSpent(ctx):
		// The run's budget is spent: the dependants start, are refused
		// their first model call and land a degraded note naming the
		// budget, as every delegation that did not run does.
		b.succeeded(res.i)
	default:
		b.skipDependants(res.i)
	}
}

// succeeded releases the dependants of i whose dependencies all succeeded.
func (b *batchRun) succeeded(i int) {
	for _, j := range b.dependants[i] {
		b.waiting[j]--
		if b.waiting[j] == 0 && !b.terminal[j] {
			k, _ := slices.BinarySearch(b.ready, j)
			b.ready = slices.Insert(b.ready, k, j)
		}
	}
}

// skipDependants skips every delegation that depends on i, transitively,
// nearest first, so each reason names the closest dependency and the root
// cause.
func (b *batchRun) skipDependants(i int) {
	root := b.report.Delegations[i]
	cause := root.ID + " ended in " + root.Status
	switch root.Status {
	case StatusAbandoned:
		cause = root.ID + " was abandoned (" + root.Reason + ")"
	}
	queue := []int{i}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, j := range b.dependants[v] {
			if b.terminal[j] {
				continue
			}
			reason := "dependency " + cause
			if v != i {
				reason = fmt.Sprintf("dependency %s was skipped: %s", b.report.Delegations[v].ID, cause)
			}
			b.skip(j, StatusSkipped, reason)
			queue = append(queue, j)
		}
	}
}

func (b *batchRun) skip(i int, status, reason string) {
	r := &b.report.Delegations[i]
	r.Status, r.Reason = status, reason
	b.terminal[i] = true
	ev := r.Event()
	b.emit(agents.EventDelegationSkipped, &ev, nil)
}
