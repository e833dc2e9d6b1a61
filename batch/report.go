package batch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/yagent/yagent/agents"
)

// CountsText renders the counts by status in a fixed order:
// "2 ok, 1 error, 1 skipped" (statuses outside the known ones last, by
// name).
func (r *Report) CountsText() string {
	counts := r.Counts()
	var parts []string
	for _, s := range []string{"ok", "partial", "error", StatusSkipped, StatusAbandoned, StatusNotStarted} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
			delete(counts, s)
		}
	}
	rest := make([]string, 0, len(counts))
	for s, n := range counts {
		rest = append(rest, fmt.Sprintf("%d %s", n, s))
	}
	slices.Sort(rest)
	return strings.Join(append(parts, rest...), ", ")
}

// Failed counts the delegations that did not succeed (not ok or partial).
func (r *Report) Failed() int {
	n := 0
	for i := range r.Delegations {
		if !r.Delegations[i].Succeeded() {
			n++
		}
	}
	return n
}

// Result is how a batch ended, for a --json stream's result event: ok
// when err is nil, cancelled or error otherwise; the counts by status as
// its answer and the tokens of every delegation.
func (r *Report) Result(session string, err error) agents.ResultEvent {
	u := r.Usage()
	res := agents.ResultEvent{Session: session, Status: agents.ResultOK, Answer: r.CountsText(), Usage: &u, ElapsedMS: r.Elapsed.Milliseconds()}
	switch {
	case r.Cancelled || errors.Is(err, context.Canceled):
		res.Status = agents.ResultCancelled
	case err != nil:
		res.Status = agents.ResultError
	}
	if err != nil {
		res.Error = err.Error()
	}
	return res
}

// Err is the error a batch run ends with, given the one Run returned:
// cancelled (saying what --resume continues; queued: the jobs were on a
// queue), Run's own error, or the delegations that did not succeed (not
// ok or partial), pointing at board; nil when every one succeeded.
func (r *Report) Err(board string, queued bool, err error) error {
	if errors.Is(err, context.Canceled) {
		if queued {
			return fmt.Errorf("batch cancelled (%s): its queued and running jobs were cancelled and wrote nothing; --resume continues: %w", r.CountsText(), err)
		}
		return fmt.Errorf("batch cancelled (%s): running delegations were abandoned and wrote nothing; --resume continues: %w", r.CountsText(), err)
	}
	if err != nil {
		return err
	}
	if r.MergeStopped != "" {
		return errors.New(r.MergeStopped)
	}
	if !r.OK() {
		return fmt.Errorf("%d of %d delegations did not succeed (%s): see the table, then yagent board show REF --board %s", r.Failed(), len(r.Delegations), r.CountsText(), board)
	}
	return nil
}
