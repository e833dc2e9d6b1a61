package batch

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/app"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/change"
)

// A plan's merge: what becomes of the changes its writing delegations
// hand back (issue 28).
const (
	MergeManual = "manual" // the default: they stay pending on the board
	MergeAuto   = "auto"   // applied after each dependency level
)

// changes is what applies a plan's changes under merge: auto: Options'
// Changes, else the runner's board, workspace and worktrees.
func (b *batchRun) changes() *app.Changes {
	if b.opts.Changes != nil {
		return b.opts.Changes
	}
	r := b.opts.Runner
	x := &app.Changes{Board: r.Board, Root: r.Isolation.Root}
	if r.Workspace != nil {
		x.Workspace = r.Workspace.Dir()
	}
	return x
}

// mergeLevel applies the pending changes of the current level, which has
// ended, in plan order, through app.Changes (as `yagent changes apply`),
// then moves to the next level. It stops at the first change that does
// not apply (a conflict changes nothing in the workspace): the report
// names it, its files and hunks, and every delegation not run yet is
// skipped. It reports whether a later level remains to run.
func (b *batchRun) mergeLevel(ctx context.Context) bool {
	lvl := b.cur
	b.cur++
	x := b.changes()
	for i, d := range b.plan.Delegations {
		r := &b.report.Delegations[i]
		if b.level[i] != lvl || !r.Succeeded() || r.Ref == "" {
			continue
		}
		n, err := b.opts.Runner.Board.ReadNote(b.board, r.Ref)
		if err != nil {
			b.stopMerge(lvl, fmt.Sprintf("merge: auto stopped at %s (%s): read its note: %v", d.ID, r.Ref, err))
			return false
		}
		c := n.Handoff.Change
		if c == nil || c.State != blackboard.ChangePending {
			continue
		}
		applied, err := x.Apply(ctx, b.board, r.Ref, nil)
		if err != nil {
			b.stopMerge(lvl, mergeStopped(d.ID, r.Ref, err))
			return false
		}
		b.notice(fmt.Sprintf("merge: applied the change of %s (%s): %s", d.ID, r.Ref, strings.Join(applied.Written, ", ")))
	}
	for i := range b.plan.Delegations {
		if !b.terminal[i] {
			return true
		}
	}
	return false
}

// mergeStopped says which change did not apply and why: a conflict's
// files and hunks.
func mergeStopped(id, ref string, err error) string {
	var b strings.Builder
	fmt.Fprintf(&b, "merge: auto stopped at the change of %s (%s): ", id, ref)
	var ce *change.ConflictError
	if !errors.As(err, &ce) {
		b.WriteString(err.Error())
		return b.String()
	}
	fmt.Fprintf(&b, "it conflicts with the workspace in %s; nothing of it was written. Resolve it (yagent changes show %s) or discard it (yagent changes discard %s), then --resume", strings.Join(ce.Files, ", "), ref, ref)
	for _, f := range ce.Files {
		for _, h := range ce.Hunks[f] {
			fmt.Fprintf(&b, "\n%s:\n%s", f, strings.TrimRight(h, "\n"))
		}
	}
	return b.String()
}

// stopMerge ends the run after a change of level lvl did not apply: the
// delegations not run yet are skipped, naming it.
func (b *batchRun) stopMerge(lvl int, why string) {
	b.report.MergeStopped = why
	b.notice(why)
	first, _, _ := strings.Cut(why, "\n")
	for i := range b.plan.Delegations {
		if !b.terminal[i] {
			b.skip(i, StatusSkipped, fmt.Sprintf("level %d's changes did not merge: %s", lvl, first))
		}
	}
	b.ready = nil
}

func (b *batchRun) notice(text string) {
	if b.opts.Events != nil {
		b.opts.Events.Emit(agents.Event{Type: agents.EventNotice, Time: b.now(), Agent: "batch", Text: text})
	}
}
