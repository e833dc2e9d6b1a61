package batch

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/internal/pgtest"
	"github.com/yagent/yagent/queue"
)

// TestMain stops the throwaway PostgreSQL server of the River backend.
func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// backend is where a batch's delegations run: the scheduler's conformance
// suite (every TestBatch* that runs a plan) runs against each.
type backend string

const (
	backendInProcess backend = "inprocess" // agents.SubRunner in this process
	backendRiver     backend = "river"     // queue.Coordinator + a River worker on PostgreSQL
)

var backends = []backend{backendInProcess, backendRiver}

// eachBackend runs fn as a subtest per backend.
func eachBackend(t *testing.T, fn func(t *testing.T, be backend)) {
	for _, be := range backends {
		t.Run(string(be), func(t *testing.T) { fn(t, be) })
	}
}

// queueBackend is a fresh PostgreSQL database with River's schema and one
// worker serving it in this process.
type queueBackend struct {
	q *queue.Queue
}

func newQueueBackend(t *testing.T, runner *agents.SubRunner) *queueBackend {
	t.Helper()
	dsn := pgtest.New(t)
	q, err := queue.Open(t.Context(), queue.Options{DSN: dsn, RescueAfter: time.Hour, MaxAttempts: 2, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// The worker has the same models and tools, and no recorder: spend is
	// booked by the coordinator when it lands a handoff.
	w := *runner
	w.Recorder = nil
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = q.Serve(ctx, queue.WorkerOptions{Runner: &w, Concurrency: 16, Name: "test-worker", FetchCooldown: 5 * time.Millisecond})
	}()
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		q.Close()
	})
	return &queueBackend{q: q}
}

// run coordinates one plan run as `yagent batch --queue` does.
func (qb *queueBackend) run(ctx context.Context, t *testing.T, p *Plan, opts Options) (*Report, error) {
	t.Helper()
	board := opts.Board
	if board == "" {
		board = p.Board
	}
	if board == "" {
		return Run(ctx, p, opts) // refused: no board
	}
	c, err := qb.q.Coordinate(t.Context(), queue.CoordinatorOptions{Runner: opts.Runner, Board: board, Plan: p.Name, Digest: p.Digest(), Resume: opts.Resume})
	if err != nil {
		t.Fatal(err)
	}
	opts.Executor = c
	rep, err := Run(ctx, p, opts)
	c.Close(err == nil)
	return rep, err
}
