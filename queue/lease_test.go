package queue

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/internal/pgtest"
	"github.com/yagent/yagent/llm/llmtest"
)

// busy asserts err is a refusal naming this process as the holder and
// how long its lease has left.
func busy(t *testing.T, what string, err error) {
	t.Helper()
	var b *BusyError
	host, _ := os.Hostname()
	if !errors.As(err, &b) || !errors.Is(err, ErrRunBusy) {
		t.Fatalf("%s: %v; want a *BusyError (ErrRunBusy)", what, err)
	}
	if b.Left <= 0 || b.Left > b.Expires.Sub(b.Since)+time.Second {
		t.Errorf("%s: the lease is left for %s of its %s; want the time until it expires", what, b.Left, b.Expires.Sub(b.Since))
	}
	for _, want := range []string{host, fmt.Sprintf("pid %d", os.Getpid()), "since ", "try again after "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %q does not say %q", what, err, want)
		}
	}
}

// runEach runs items 1..n on c at once and returns their results.
func runEach(t *testing.T, c *Coordinator, n int) ([]agents.DelegationResult, []error) {
	res, errs := make([]agents.DelegationResult, n), make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { res[i], errs[i] = c.Run(t.Context(), item(i+1)) })
	}
	wg.Wait()
	return res, errs
}

func landedOnce(t *testing.T, e *env, n int) {
	t.Helper()
	notes := e.notesByID(t)
	for i := 1; i <= n; i++ {
		if id := item(i).CallID; len(notes[id]) != 1 {
			t.Errorf("%s has %d notes; want exactly 1", id, len(notes[id]))
		}
	}
	if len(notes) != n {
		t.Errorf("%d delegations have notes; want %d", len(notes), n)
	}
}

// TestLeaseSurvivesRestart: PostgreSQL restarted mid-run keeps the
// coordinator's lease (a row, not a session): a second coordinator with
// --resume is refused naming the holder, and every delegation lands once.
// (A session-level advisory lock let the second one in: issue 29.)
func TestLeaseSurvivesRestart(t *testing.T) {
	const n = 24
	e := newEnv(t, llmtest.HandOver("150ms"), Options{Lease: 5 * time.Second})
	e.serve(t, e.runner, "w1")
	c1 := e.coordinate(t, false)
	type out struct {
		res  []agents.DelegationResult
		errs []error
	}
	done := make(chan out, 1)
	go func() {
		r, errs := runEach(t, c1, n)
		done <- out{r, errs}
	}()
	// Every job is enqueued (an enqueue the restart cuts short fails its
	// delegation, as any database error does) and some have landed.
	waitJobs(t, e, "completed", 2)
	for deadline := time.Now().Add(30 * time.Second); totalJobs(e.jobs(t)) < n && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	pgtest.Restart(t)
	_, err := e.q.Coordinate(t.Context(), CoordinatorOptions{Runner: e.runner, Board: "b", Plan: "plan.yaml", Digest: "d1", Resume: true})
	busy(t, "a second coordinator after the restart", err)
	o := <-done
	for i, err := range o.errs {
		if err != nil || o.res[i].Status != blackboard.StatusOK {
			t.Errorf("Run(%s) = %+v, %v; want ok", item(i+1).CallID, o.res[i], err)
		}
	}
	if err := c1.LeaseErr(); err != nil {
		t.Errorf("the first coordinator lost its lease over the restart: %v", err)
	}
	c1.Close(true)
	landedOnce(t, e, n)
}

// TestTwoCoordinatorsAtOnce: two coordinators of one plan and board
// started together, with or without --resume: exactly one gets the run.
func TestTwoCoordinatorsAtOnce(t *testing.T) {
	for _, resume := range []bool{false, true} {
		t.Run(fmt.Sprintf("resume=%v", resume), func(t *testing.T) {
			e := newEnv(t, llmtest.HandOver("1ms"), Options{})
			var wg sync.WaitGroup
			cs, errs := make([]*Coordinator, 4), make([]error, 4)
			for i := range cs {
				wg.Go(func() {
					cs[i], errs[i] = e.q.Coordinate(t.Context(), CoordinatorOptions{Runner: e.runner, Board: "b", Plan: "plan.yaml", Digest: "d1", Resume: resume})
				})
			}
			wg.Wait()
			won := 0
			for i, c := range cs {
				if c != nil {
					won++
					defer c.Close(true)
					continue
				}
				busy(t, fmt.Sprintf("coordinator %d", i), errs[i])
			}
			if won != 1 {
				t.Fatalf("%d coordinators got the run; want exactly 1 (%v)", won, errs)
			}
			var runs int
			if err := e.q.pool.QueryRow(t.Context(), `SELECT count(*) FROM yagent_batch_run`).Scan(&runs); err != nil || runs != 1 {
				t.Errorf("%d plan runs recorded (%v); want 1: a refused coordinator records none", runs, err)
			}
		})
	}
}

// TestExpiredLeaseTakenOver: a coordinator that stops renewing (killed)
// keeps the run until its lease expires; then a --resume coordinator
// takes it over and finishes the run, and the old holder, should it come
// back, lands nothing (fenced by the token) and says it lost the lease.
func TestExpiredLeaseTakenOver(t *testing.T) {
	const lease = 1500 * time.Millisecond
	e := newEnv(t, llmtest.HandOver("1ms"), Options{Lease: lease})
	e.serve(t, e.runner, "w1")
	c1 := e.coordinate(t, false)
	if _, errs := runEach(t, c1, 2); errors.Join(errs...) != nil {
		t.Fatal(errs)
	}
	// Killed: no more renewals, nothing released.
	c1.lease.keeper.Halt()
	_, err := e.q.Coordinate(t.Context(), CoordinatorOptions{Runner: e.runner, Board: "b", Plan: "plan.yaml", Digest: "d1", Resume: true})
	busy(t, "a coordinator before the lease expired", err)
	time.Sleep(lease + 200*time.Millisecond)
	c2 := e.coordinate(t, true)
	if c2.RunID() != c1.RunID() {
		t.Fatalf("took over run %s; want %s", c2.RunID(), c1.RunID())
	}
	// The old holder, back, may land nothing.
	c1.lease.keeper.SetUntil(time.Now().Add(time.Hour)) // as if its clock said the lease still runs
	if _, err := c1.Run(t.Context(), item(3)); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("the old holder's Run: %v; want ErrLeaseLost", err)
	}
	if res, errs := runEach(t, c2, 4); errors.Join(errs...) != nil {
		t.Fatal(errs)
	} else {
		for i, r := range res {
			if r.Status != blackboard.StatusOK {
				t.Errorf("Run(%s) on the new holder = %+v; want ok", item(i+1).CallID, r)
			}
		}
	}
	c2.Close(true)
	landedOnce(t, e, 4)
}

// TestLeaseReleasedAtTheEnd: a run that ends releases its lease at once:
// the next coordinator of the same plan need not wait for it to expire.
func TestLeaseReleasedAtTheEnd(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{Lease: time.Hour})
	c1 := e.coordinate(t, false)
	c1.Close(true)
	c2, err := e.q.Coordinate(t.Context(), CoordinatorOptions{Runner: e.runner, Board: "b", Plan: "plan.yaml", Digest: "d1"})
	if err != nil {
		t.Fatalf("after a clean end: %v; want the lease free", err)
	}
	c2.Close(true)
}
