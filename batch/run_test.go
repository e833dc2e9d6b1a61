package batch

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/llm/llmtest"
)

var examplePlan = filepath.Join("..", "testdata", "batch", "release-audit.yaml")

// TestBatchExamplePlan runs README's example plan: both explorers before
// the reviewer, one note per delegation carrying its key, the reviewer's
// partial counts as success.
func TestBatchExamplePlan(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newBatchFixture(t, be, "batch-release-audit")
		rep, err := f.run(t.Context(), t, loadPlan(t, examplePlan), f.options(""))
		if err != nil {
			t.Fatal(err)
		}
		f.srv.AssertDone(t)
		if rep.Board != "release-audit" || rep.Parallel != 2 || !rep.OK() {
			t.Errorf("report: board %q parallel %d ok %v; want release-audit, 2, true", rep.Board, rep.Parallel, rep.OK())
		}
		got := byID(rep)
		for id, want := range map[string]string{"packages": "ok", "deps": "ok", "review": "partial"} {
			if got[id].Status != want || got[id].Ref == "" || got[id].Usage.Requests == 0 {
				t.Errorf("%s: %+v; want status %s with a ref and usage", id, got[id], want)
			}
		}
		notes := f.notes(t, "release-audit")
		if len(notes) != 3 {
			t.Fatalf("%d notes on the board; want 3", len(notes))
		}
		for _, n := range notes {
			id := KeyID(n.Handoff.Key)
			if got[id].Ref != n.Meta.Ref {
				t.Errorf("note %s has key %q; the report gives %s that ref", n.Meta.Ref, n.Handoff.Key, got[id].Ref)
			}
		}
		// The reviewer started only after both explorers had finished.
		var order []string
		for _, e := range f.rec.Events() {
			if e.Delegation != nil && (e.Type == agents.EventDelegationStarted || e.Type == agents.EventDelegationFinished) {
				order = append(order, string(e.Type)+" "+e.Delegation.ID)
			}
		}
		start := slices.Index(order, "delegation_started review")
		if start < slices.Index(order, "delegation_finished packages") || start < slices.Index(order, "delegation_finished deps") {
			t.Errorf("the reviewer started before its dependencies finished: %q", order)
		}
		evs := f.rec.Events()
		if evs[0].Type != agents.EventBatchStarted || evs[len(evs)-1].Type != agents.EventBatchFinished || len(evs[len(evs)-1].Batch.Rows) != 3 {
			t.Errorf("events do not start with batch_started and end with batch_finished and its 3 rows: first %s, last %s", evs[0].Type, evs[len(evs)-1].Type)
		}
	})
}

// TestBatchContextRefsByID pins that a context_refs id becomes the
// earlier delegation's note ref: the dependant's first request carries
// that note's full body in its context pack.
func TestBatchContextRefsByID(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newBatchFixture(t, be, "batch-release-audit")
		if _, err := f.run(t.Context(), t, loadPlan(t, examplePlan), f.options("")); err != nil {
			t.Fatal(err)
		}
		var first *llmtest.Recorded
		for _, r := range f.srv.Requests() {
			if r.Agent == "reviewer" {
				first = &r
				break
			}
		}
		if first == nil {
			t.Fatal("the reviewer made no request")
		}
		var user string
		for _, m := range first.Messages {
			if m.Role == "user" && strings.Contains(m.Content, "Task:\n") {
				user = m.Content
			}
		}
		for _, n := range f.notes(t, "release-audit") {
			if n.Meta.Agent != "explorer" {
				continue
			}
			if !strings.Contains(user, "=== "+n.Meta.Ref+"\n") || !strings.Contains(user, n.Body) {
				t.Errorf("the reviewer's first request lacks the full note %s:\n%s", n.Meta.Ref, user)
			}
		}
	})
}

const failuresPlan = `board: rel
delegations:
  - {id: build, agent: worker, task: Build the project.}
  - {id: test, agent: worker, task: Run the tests., depends_on: [build]}
  - {id: report, agent: reviewer, task: Write the release report., depends_on: [test], context_refs: [build]}
  - {id: publish, agent: worker, task: Publish., depends_on: [report]}
  - {id: docs, agent: explorer, task: Read the docs.}
`

// TestBatchSkipsDependants pins dependency skipping: a failed delegation
// leaves an error note, everything that depends on it (transitively) is
// skipped without a note, an independent delegation still runs.
func TestBatchSkipsDependants(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newBatchFixture(t, be, "batch-failures")
		rep, err := f.run(t.Context(), t, parsePlan(t, failuresPlan), f.options(""))
		if err != nil {
			t.Fatal(err)
		}
		got := byID(rep)
		want := map[string][2]string{
			"build":   {"error", ""},
			"test":    {StatusSkipped, "dependency build ended in error"},
			"report":  {StatusSkipped, "dependency build ended in error"}, // also via test: the nearest says it
			"publish": {StatusSkipped, "dependency report was skipped: build ended in error"},
			"docs":    {"ok", ""},
		}
		for id, w := range want {
			if got[id].Status != w[0] || w[1] != "" && got[id].Reason != w[1] {
				t.Errorf("%s: status %q reason %q; want %q %q", id, got[id].Status, got[id].Reason, w[0], w[1])
			}
		}
		if rep.OK() {
			t.Error("report OK with a failed delegation")
		}
		notes := f.notes(t, "rel")
		var keys []string
		for _, n := range notes {
			keys = append(keys, KeyID(n.Handoff.Key))
		}
		slices.Sort(keys)
		if !slices.Equal(keys, []string{"build", "docs"}) {
			t.Errorf("notes on the board have keys %q; want the build's error note and the docs' only", keys)
		}
		skipped := 0
		for _, e := range f.rec.Events() {
			if e.Type == agents.EventDelegationSkipped {
				skipped++
			}
			if e.Type == agents.EventDelegationStarted && e.Delegation.ID != "build" && e.Delegation.ID != "docs" {
				t.Errorf("skipped delegation %s was started", e.Delegation.ID)
			}
		}
		if skipped != 3 {
			t.Errorf("%d delegation_skipped events; want 3", skipped)
		}
	})
}

// TestBatchResumeStartsNothingDone pins --resume: a second run of a plan
// that finished starts no delegation and makes no model call, reuses the
// refs, and writes nothing.
func TestBatchResumeStartsNothingDone(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newBatchFixture(t, be, "batch-release-audit")
		plan := loadPlan(t, examplePlan)
		first, err := f.run(t.Context(), t, plan, f.options(""))
		if err != nil {
			t.Fatal(err)
		}
		calls := len(f.srv.Requests())
		again := f.again(t)
		opts := again.options("")
		opts.Resume = true
		rep, err := again.run(t.Context(), t, plan, opts)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(f.srv.Requests()); n != calls {
			t.Errorf("the resumed run made %d model calls; want none", n-calls)
		}
		for i, d := range rep.Delegations {
			if !d.Resumed || d.Ref != first.Delegations[i].Ref || d.Status != first.Delegations[i].Status {
				t.Errorf("%s: %+v; want it resumed from %s", d.ID, d, first.Delegations[i].Ref)
			}
		}
		for _, e := range again.rec.Events() {
			if e.Type == agents.EventDelegationStarted {
				t.Errorf("the resumed run started %s", e.Delegation.ID)
			}
		}
		if n := len(f.notes(t, "release-audit")); n != 3 {
			t.Errorf("%d notes after the resumed run; want still 3", n)
		}
		if !rep.OK() {
			t.Error("a fully resumed run is not OK")
		}
	})
}

// TestBatchResumeRetriesWhatFailed: --resume reruns the failed and the
// skipped delegations and reuses the one that succeeded.
func TestBatchResumeRetriesWhatFailed(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newBatchFixture(t, be, "batch-failures")
		plan := parsePlan(t, failuresPlan)
		if _, err := f.run(t.Context(), t, plan, f.options("")); err != nil {
			t.Fatal(err)
		}
		again := f.again(t)
		opts := again.options("")
		opts.Resume = true
		rep, err := again.run(t.Context(), t, plan, opts)
		if err != nil {
			t.Fatal(err)
		}
		f.srv.AssertDone(t)
		var started []string
		for _, e := range again.rec.Events() {
			if e.Type == agents.EventDelegationStarted {
				started = append(started, e.Delegation.ID)
			}
		}
		if !slices.Equal(started, []string{"build", "test", "report", "publish"}) {
			t.Errorf("resumed run started %q; want build, test, report, publish (docs was done)", started)
		}
		if !rep.OK() || !byID(rep)["docs"].Resumed {
			t.Errorf("resumed report: ok %v, docs %+v", rep.OK(), byID(rep)["docs"])
		}
	})
}

// TestBatchInterrupt pins Ctrl-C: nothing new starts, the running
// delegations are abandoned and write nothing, what finished keeps its
// note, and the report and the error say the run was cancelled.
func TestBatchInterrupt(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newBatchFixture(t, be, "batch-slow")
		plan := parsePlan(t, `board: b
parallel: 2
delegations:
  - {id: quick, agent: explorer, task: Look quickly.}
  - {id: slow1, agent: worker, task: Work slowly.}
  - {id: slow2, agent: worker, task: Work slowly too.}
  - {id: later, agent: explorer, task: Look later.}
  - {id: after, agent: explorer, task: Use slow1., depends_on: [slow1]}
`)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		cancelled := make(chan time.Time, 1)
		go func() {
			// Cancel once both workers wait on the model and quick is done.
			for ctx.Err() == nil {
				workers, quickDone := 0, false
				for _, r := range f.srv.Requests() {
					if r.Agent == "worker" {
						workers++
					}
				}
				for _, e := range f.rec.Events() {
					quickDone = quickDone || e.Type == agents.EventDelegationFinished && e.Delegation.ID == "quick"
				}
				if workers == 2 && quickDone {
					cancelled <- time.Now()
					cancel()
					return
				}
				time.Sleep(5 * time.Millisecond)
			}
		}()
		rep, err := f.run(ctx, t, plan, f.options(""))
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Run error = %v; want context.Canceled", err)
		}
		// The slow model answers 10 s after its request: half of that
		// after the cancel is far more than a loaded machine needs, and far
		// less than waiting for it.
		select {
		case at := <-cancelled:
			if d := time.Since(at); d > 5*time.Second {
				t.Errorf("the run ended %s after the cancel: it waited for the slow model", d)
			}
		default:
			t.Errorf("the run ended before it was cancelled")
		}
		if rep == nil || !rep.Cancelled || rep.OK() {
			t.Fatalf("report = %+v; want one marked cancelled", rep)
		}
		got := byID(rep)
		for id, want := range map[string]string{"quick": "ok", "slow1": StatusAbandoned, "slow2": StatusAbandoned, "later": StatusNotStarted, "after": StatusNotStarted} {
			if got[id].Status != want {
				t.Errorf("%s: status %q; want %q", id, got[id].Status, want)
			}
		}
		notes := f.notes(t, "b")
		if len(notes) != 1 || KeyID(notes[0].Handoff.Key) != "quick" {
			t.Errorf("board holds %d notes; want only quick's", len(notes))
		}
		last := f.rec.Events()[len(f.rec.Events())-1]
		if last.Type != agents.EventBatchFinished || !last.Batch.Cancelled {
			t.Errorf("last event %s (batch %+v); want batch_finished marked cancelled", last.Type, last.Batch)
		}
	})
}

// TestBatchInvalidPlanStartsNothing: Run checks the plan against the
// runner's catalog and the board first; an invalid plan makes no model
// call and writes nothing.
func TestBatchInvalidPlanStartsNothing(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newBatchFixture(t, be, "batch-slow")
		plan := parsePlan(t, "delegations:\n  - {id: a, agent: explorer, task: t}\n  - {id: b, agent: ghost, task: t}\n")
		rep, err := f.run(t.Context(), t, plan, f.options("b"))
		var pe *PlanError
		if !errors.As(err, &pe) || rep != nil {
			t.Fatalf("Run = %v, %v; want a *PlanError and no report", rep, err)
		}
		if n := len(f.srv.Requests()); n != 0 || f.store.BoardExists("b") || len(f.rec.Events()) != 0 {
			t.Errorf("an invalid plan made %d model calls, board exists %v, %d events", n, f.store.BoardExists("b"), len(f.rec.Events()))
		}
	})
}

// TestBatchScale runs 200 delegations at parallel 16 against a model that
// takes 100 ms per answer: 200 notes, none lost, overwritten or mixed up,
// never more than 16 at once, in a wall time close to the ideal
// ceil(200/16) × 100 ms × 1 model call per delegation.
func TestBatchScale(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		if testing.Short() {
			t.Skip("scale test")
		}
		const n, par, latency, callsPerDelegation = 200, 16, 100 * time.Millisecond, 1
		f := newBatchFixture(t, be, "batch-scale")
		var b strings.Builder
		fmt.Fprintf(&b, "board: scale\nparallel: %d\ndelegations:\n", par)
		for i := range n {
			fmt.Fprintf(&b, "  - {id: item-%03d, agent: worker, task: 'item-%03d: hand it over.'}\n", i, i)
		}
		plan := parsePlan(t, b.String())
		start := time.Now()
		rep, err := f.run(t.Context(), t, plan, f.options(""))
		wall := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		ideal := time.Duration((n+par-1)/par) * latency * callsPerDelegation
		ratio := float64(wall) / float64(ideal)
		t.Logf("200 delegations, parallel %d, %s per answer: wall %s, ideal %s, ratio %.2f", par, latency, wall.Round(time.Millisecond), ideal, ratio)
		if !rep.OK() {
			t.Errorf("report not OK: %v", rep.Counts())
		}
		notes := f.notes(t, "scale")
		if len(notes) != n {
			t.Fatalf("%d notes on the board; want %d", len(notes), n)
		}
		refs, keys := map[string]bool{}, map[string]bool{}
		for _, note := range notes {
			id := KeyID(note.Handoff.Key)
			if refs[note.Meta.Ref] || keys[id] {
				t.Errorf("note %s (key %s) twice", note.Meta.Ref, note.Handoff.Key)
			}
			refs[note.Meta.Ref], keys[id] = true, true
			if note.Body != "Result of "+id+": done.\n" || note.Handoff.Conclusion != id+" done" {
				t.Errorf("note with key %s carries another item's handoff: %q", note.Handoff.Key, note.Body)
			}
		}
		running, peak := 0, 0
		var busy time.Duration // delegations running × time, summed
		var first, last time.Time
		for _, e := range f.rec.Events() {
			if e.Type != agents.EventDelegationStarted && e.Type != agents.EventDelegationFinished {
				continue
			}
			if e.Time.IsZero() {
				t.Fatalf("%s event without a time", e.Type)
			}
			if !last.IsZero() {
				busy += time.Duration(running) * e.Time.Sub(last)
			} else {
				first = e.Time
			}
			last = e.Time
			if e.Type == agents.EventDelegationStarted {
				running++
				peak = max(peak, running)
			} else {
				running--
			}
		}
		if peak != par {
			t.Errorf("at most %d delegations ran at once; want exactly %d", peak, par)
		}
		// How many ran at once on average, from the first start to the last
		// finish: a scheduler that keeps 16 in flight stays near 16 however
		// loaded the machine is (each delegation's time stretches, the
		// overlap does not), one that ran them one by one is at 1 and one
		// that refilled its slots only when all were free 12.8 (measured). The wall time against
		// the ideal is logged, not judged: on two cores beside other test
		// runs it measures the machine (23–30× seen at load 16 with -race,
		// 4.2× without load), not the scheduler.
		mean := float64(busy) / float64(last.Sub(first))
		t.Logf("on average %.1f delegations at once (parallel %d)", mean, par)
		if mean < float64(par)*7/8 {
			t.Errorf("on average %.1f delegations ran at once; want at least %d of %d (the slots are not kept full)", mean, par*7/8, par)
		}
	})
}

// TestBatchBoardFromOptions: the board given in the options wins over
// the plan's, and a plan with neither is refused.
func TestBatchBoardFromOptions(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newBatchFixture(t, be, "batch-failures")
		plan := parsePlan(t, "delegations:\n  - {id: docs, agent: explorer, task: Read the docs.}\n")
		if _, err := f.run(t.Context(), t, plan, f.options("")); err == nil || !strings.Contains(err.Error(), "no board") {
			t.Errorf("Run without a board = %v; want an error", err)
		}
		rep, err := f.run(t.Context(), t, plan, f.options("given"))
		if err != nil {
			t.Fatal(err)
		}
		if rep.Board != "given" || len(f.notes(t, "given")) != 1 {
			t.Errorf("report board %q; want the notes on board given", rep.Board)
		}
	})
}

// TestBatchResumeWaitsForContextRefs: a context_refs id counts as a
// dependency of its own, so a note reused by --resume in between cannot
// start the dependant before the note it needs exists — here that note's
// delegation fails, so the dependant is skipped.
func TestBatchResumeWaitsForContextRefs(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		f := newBatchFixture(t, be, "batch-failures")
		if _, err := f.store.WriteNote("rel", blackboard.NewNote{Handoff: blackboard.Handoff{Status: blackboard.StatusOK, Agent: "worker", Key: "batch:test"}, Body: "tests pass"}); err != nil {
			t.Fatal(err)
		}
		plan := parsePlan(t, `board: rel
delegations:
  - {id: build, agent: worker, task: Build the project.}
  - {id: test, agent: worker, task: Run the tests., depends_on: [build]}
  - {id: report, agent: reviewer, task: Write the release report., depends_on: [test], context_refs: [build]}
`)
		opts := f.options("")
		opts.Resume = true
		rep, err := f.run(t.Context(), t, plan, opts)
		if err != nil {
			t.Fatal(err)
		}
		got := byID(rep)
		if !got["test"].Resumed || got["build"].Status != "error" || got["report"].Status != StatusSkipped {
			t.Errorf("test resumed %v, build %q, report %q (%s); want resumed, error, skipped", got["test"].Resumed, got["build"].Status, got["report"].Status, got["report"].Reason)
		}
	})
}
