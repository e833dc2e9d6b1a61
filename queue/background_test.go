package queue

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/llm/llmtest"
)

// TestBackgroundLandsAtReservedStems: a director session's background
// delegations on the workers. Nothing is opened before the first one;
// each lands one note, at the stem the director reserved, even when two
// carry the same call id (a model's ids repeat across turns); Close ends
// the session's plan run, and nothing more runs after it.
func TestBackgroundLandsAtReservedStems(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{})
	e.serve(t, e.runner, "w1")
	// The director's Recorder: told once per delegation, as it starts
	// (its call id), and of its end once, when it lands.
	var mu sync.Mutex
	var recorded, finished []string
	lead := *e.runner
	lead.Recorder = func(_ context.Context, d agents.Delegation) (agents.DelegationHooks, error) {
		mu.Lock()
		defer mu.Unlock()
		recorded = append(recorded, d.CallID)
		return agents.DelegationHooks{Finish: func(res agents.DelegationResult) {
			mu.Lock()
			defer mu.Unlock()
			finished = append(finished, res.Ref)
		}}, nil
	}
	bg := NewBackground(t.Context(), Options{DSN: e.dsn, RescueAfter: time.Hour, MaxAttempts: 2, PollInterval: 20 * time.Millisecond},
		"sess-1", CoordinatorOptions{Runner: &lead, Board: "b", Events: e.events})
	if bg.q != nil || bg.c != nil {
		t.Fatal("the queue was opened before the first background delegation")
	}
	var stems []string
	for i := range 2 {
		d := item(i)
		d.CallID, d.Background, d.Stem = "call_1", true, e.store.NewStem()
		res, err := bg.Run(t.Context(), d)
		if err != nil {
			t.Fatal(err)
		}
		want := blackboard.Ref{Agent: "worker", Stem: d.Stem}.String()
		if res.Ref != want || res.Status != blackboard.StatusOK {
			t.Errorf("delegation %d: %s %s (%s); want ok at its reserved ref %s", i, res.Status, res.Ref, res.Reason, want)
		}
		stems = append(stems, d.Stem)
		mu.Lock()
		if len(recorded) != i+1 || recorded[i] != "call_1" || len(finished) != i+1 || finished[i] != want {
			t.Errorf("after delegation %d: recorded %v, finished %v; want call_1 recorded once and %s finished once", i, recorded, finished, want)
		}
		mu.Unlock()
	}
	list, err := e.store.ListNotes("b", blackboard.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Notes) != 2 {
		t.Errorf("%d notes; want 2, one per delegation", len(list.Notes))
	}
	for _, m := range list.Notes {
		if m.Stem != stems[0] && m.Stem != stems[1] {
			t.Errorf("a note at %s, not at a reserved stem %v", m.Ref, stems)
		}
	}
	bg.Close()
	if _, err := bg.Run(t.Context(), agents.Delegation{CallID: "call_2", Agent: "worker", Task: "late", BoardID: "b", Depth: 1}); err == nil {
		t.Error("a background delegation after Close ran; want an error")
	}
	// Close ends the session's plan run: finished, its lease released.
	var finishedRun, leases int
	if err := e.q.pool.QueryRow(t.Context(), `SELECT (SELECT count(*) FROM yagent_batch_run WHERE plan = 'session sess-1' AND finished_at IS NOT NULL),
		(SELECT count(*) FROM yagent_run_lease WHERE expires > now())`).Scan(&finishedRun, &leases); err != nil {
		t.Fatal(err)
	}
	if finishedRun != 1 || leases != 0 {
		t.Errorf("after Close: %d finished runs of the session, %d leases held; want 1 and 0", finishedRun, leases)
	}
}

// TestBackgroundDegradedAtReservedStem: a background delegation whose
// every attempt fails (the only worker lacks the agent's tools) lands its
// one degraded note at the stem the director reserved, not a new one:
// the ref it announced gets the note.
func TestBackgroundDegradedAtReservedStem(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{MaxAttempts: 1})
	bare := *e.runner
	bare.Registry = agents.NewRegistry()
	e.serve(t, &bare, "bare")
	bg := NewBackground(t.Context(), Options{DSN: e.dsn, RescueAfter: time.Hour, MaxAttempts: 1, PollInterval: 20 * time.Millisecond},
		"sess-2", CoordinatorOptions{Runner: e.runner, Board: "b", Events: e.events})
	defer bg.Close()
	d := item(1)
	d.Background, d.Stem = true, e.store.NewStem()
	res, err := bg.Run(t.Context(), d)
	if err != nil {
		t.Fatal(err)
	}
	want := blackboard.Ref{Agent: "worker", Stem: d.Stem}.String()
	if res.Status != blackboard.StatusDegraded || res.Ref != want {
		t.Errorf("result %s at %s; want degraded at the reserved ref %s", res.Status, res.Ref, want)
	}
}

// TestWorkerOffersNoTeamTools: a sub-agent on a worker is not offered
// post_task, send_message or claim_task — they would act on the worker
// host's own board, which no one reads — though its host's registry has
// them; its other tools stay.
func TestWorkerOffersNoTeamTools(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{})
	runner := *e.runner
	runner.Registry = agents.NewRegistry()
	for _, tl := range append(agents.TeamTools(e.store, func() *agents.Catalog { return e.runner.Catalog }), e.runner.Registry.Reachable(agents.Gates{SubAgent: true, Master: true})...) {
		runner.Registry.MustAdd(tl)
	}
	e.serve(t, &runner, "w1")
	bg := NewBackground(t.Context(), Options{DSN: e.dsn, RescueAfter: time.Hour, MaxAttempts: 2, PollInterval: 20 * time.Millisecond},
		"sess-1", CoordinatorOptions{Runner: &runner, Board: "b", Events: e.events})
	t.Cleanup(bg.Close)
	d := item(0)
	d.CallID, d.Background, d.Stem = "call_1", true, e.store.NewStem()
	if res, err := bg.Run(t.Context(), d); err != nil || res.Status != blackboard.StatusOK {
		t.Fatalf("run = %+v, %v", res, err)
	}
	reqs := e.srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("the worker's sub-agent sent no request")
	}
	for _, r := range reqs {
		for _, name := range []string{"post_task", "send_message", "claim_task"} {
			if slices.Contains(r.Tools, name) {
				t.Errorf("request %d offers %s on a worker; tools %v", r.N, name, r.Tools)
			}
		}
		if !slices.Contains(r.Tools, "read_file") {
			t.Errorf("request %d lacks read_file: %v", r.N, r.Tools)
		}
	}
}

// TestBackgroundNotLandedFinishes: a background delegation that cannot
// land (here the queue does not open) ends its record in the session as
// abandoned, once, with the reason — the director sees it end instead of
// waiting on a job that never ran.
func TestBackgroundNotLandedFinishes(t *testing.T) {
	store := blackboard.Open(t.TempDir())
	lead := newRunner(t, store, nil)
	var mu sync.Mutex
	var ends []agents.DelegationResult
	lead.Recorder = func(context.Context, agents.Delegation) (agents.DelegationHooks, error) {
		return agents.DelegationHooks{Finish: func(res agents.DelegationResult) {
			mu.Lock()
			defer mu.Unlock()
			ends = append(ends, res)
		}}, nil
	}
	bg := NewBackground(t.Context(), Options{DSN: "postgres://yagent@127.0.0.1:9/db", Source: "queue.dsn", RescueAfter: time.Hour, MaxAttempts: 1},
		"sess-3", CoordinatorOptions{Runner: lead, Board: "b"})
	defer bg.Close()
	d := item(0)
	d.Background, d.Stem = true, store.NewStem()
	if _, err := bg.Run(t.Context(), d); err == nil {
		t.Fatal("a delegation on a queue that does not open ran; want its error")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(ends) != 1 || !ends[0].Abandoned || !strings.Contains(ends[0].Reason, "background delegations run on the queue's workers (queue.dsn)") {
		t.Errorf("the record ended %d times: %+v; want once, abandoned, with the queue's error", len(ends), ends)
	}
}
