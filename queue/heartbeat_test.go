package queue

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/llm/llmtest"
)

// TestRescueSilentWorker: a running job whose worker's last heartbeat is
// older than that worker's timeout is available again at once (its
// attempt error names the worker) and its fencing token grows; a job of a
// worker that beats stays running; the last attempt is discarded.
func TestRescueSilentWorker(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{WorkerTimeout: 3 * time.Second})
	ctx := t.Context()
	db := e.q.pool
	for _, s := range []string{
		`INSERT INTO yagent_worker (id, name, host, pid, started, last_beat, timeout_ms) VALUES
			('silent-1', 'silent:1', 'h', 1, now(), now() - interval '4 seconds', 3000),
			('alive-2', 'alive:2', 'h', 2, now(), now() - interval '2 seconds', 3000)`,
		`INSERT INTO river_job (id, args, kind, max_attempts, queue, state, attempt, attempted_at, attempted_by) VALUES
			(1, '{"delegation":"item-001"}', 'yagent_delegation', 3, 'yagent_delegations', 'running', 1, now(), '{silent-1}'),
			(2, '{"delegation":"item-002"}', 'yagent_delegation', 3, 'yagent_delegations', 'running', 1, now(), '{alive-2}'),
			(3, '{"delegation":"item-003"}', 'yagent_delegation', 2, 'yagent_delegations', 'running', 2, now(), '{alive-2,silent-1}')`,
		`INSERT INTO yagent_job_attempt (job_id, token, worker, attempt, started) VALUES (1, 5, 'silent:1', 1, now())`,
	} {
		if _, err := db.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	lines, err := e.q.rescueSilent(ctx)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(lines)
	want := []string{
		"job 1: item-001: worker silent:1 missed its heartbeats; attempt 1 of 3 handed to another worker",
		"job 3: item-003: worker silent:1 missed its heartbeats; attempt 2 of 2 discarded (its last attempt)",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("rescue said %q; want %q", lines, want)
	}
	for id, want := range map[int]string{1: "available", 2: "running", 3: "discarded"} {
		var state, errs string
		if err := db.QueryRow(ctx, `SELECT state, coalesce(errors::text, '') FROM river_job WHERE id = $1`, id).Scan(&state, &errs); err != nil {
			t.Fatal(err)
		}
		if state != want || (want != "running") != strings.Contains(errs, "silent:1 missed its heartbeats for 3.0s") {
			t.Errorf("job %d: %s, errors %s; want %s, an error naming the silent worker unless running", id, state, errs, want)
		}
	}
	var token int64
	if err := db.QueryRow(ctx, `SELECT token FROM yagent_job_attempt WHERE job_id = 1`).Scan(&token); err != nil || token != 6 {
		t.Errorf("job 1's token is %d (%v); want 6: the silent attempt is stale", token, err)
	}
}

// TestTimeLimitSaysRescueAfter: a delegation still running after
// rescue_after is stopped, and its degraded note says so with the
// configured value, not "abandoned: cancelled".
func TestTimeLimitSaysRescueAfter(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("30s"), Options{RescueAfter: 2 * time.Second, MaxAttempts: 1})
	e.serve(t, e.runner, "slow")
	c := e.coordinate(t, false)
	defer c.Close(true)
	res, err := c.Run(t.Context(), item(1))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != blackboard.StatusDegraded || !strings.Contains(res.Reason, "stopped after rescue_after (2s)") {
		t.Errorf("result %+v; want degraded, stopped after rescue_after (2s)", res)
	}
	if d := shortDuration(time.Hour); d != "1h" {
		t.Errorf("shortDuration(1h) = %q", d)
	}
}

// TestHeartbeatBeat: a beat writes the worker's last beat and running
// jobs, then rescues a silent worker's job (and says so); a failing beat
// is said once per run of failures — the first failure, not the second,
// and again after a beat that worked — naming the retry interval, a sixth
// of the worker's timeout.
func TestHeartbeatBeat(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{WorkerTimeout: 30 * time.Second})
	ctx := t.Context()
	db := e.q.pool
	for _, s := range []string{
		`INSERT INTO yagent_worker (id, name, host, pid, started, last_beat, timeout_ms) VALUES
			('silent-1', 'silent:1', 'h', 1, now(), now() - interval '40 seconds', 30000),
			('me-2', 'me:2', 'h', 2, now(), now() - interval '20 seconds', 30000)`,
		`INSERT INTO river_job (id, args, kind, max_attempts, queue, state, attempt, attempted_at, attempted_by) VALUES
			(1, '{"delegation":"item-001"}', 'yagent_delegation', 3, 'yagent_delegations', 'running', 1, now(), '{silent-1}')`,
	} {
		if _, err := db.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	var said []string
	h := &heartbeat{q: e.q, id: "me-2", timeout: 30 * time.Second, notice: func(s string) { said = append(said, s) }, jobs: map[int64]bool{9: true, 7: true}}
	if _, err := h.beat(ctx); err != nil {
		t.Fatal(err)
	}
	var age time.Duration
	var jobs []int64
	if err := db.QueryRow(ctx, `SELECT now() - last_beat, jobs FROM yagent_worker WHERE id = 'me-2'`).Scan(&age, &jobs); err != nil {
		t.Fatal(err)
	}
	if age > 5*time.Second || len(jobs) != 2 || jobs[0] != 7 || jobs[1] != 9 {
		t.Errorf("after a beat: last beat %s ago, jobs %v; want just now, [7 9]", age, jobs)
	}
	var state string
	if err := db.QueryRow(ctx, `SELECT state FROM river_job WHERE id = 1`).Scan(&state); err != nil || state != "available" {
		t.Errorf("the silent worker's job is %s (%v); want available: a beat rescues", state, err)
	}
	if len(said) != 1 || !strings.Contains(said[0], "silent:1 missed its heartbeats") {
		t.Errorf("the beat said %q; want the rescue of silent:1", said)
	}

	dead, cancel := context.WithCancel(ctx)
	cancel()
	said = nil
	for i, works := range []bool{false, false, true, false} {
		c := dead
		if works {
			c = ctx
		}
		if _, err := h.beat(c); (err == nil) != works {
			t.Fatalf("beat %d: %v; want it to work: %t", i, err, works)
		}
	}
	if len(said) != 2 {
		t.Fatalf("failing beats said %q; want two notices: the first failure and the first after a beat that worked", said)
	}
	for _, s := range said {
		if !strings.Contains(s, "worker heartbeat on") || !strings.Contains(s, "retried every 5s; past queue.worker_timeout 30s") {
			t.Errorf("notice %q; want the retry interval (5s, a sixth of 30s) and the timeout", s)
		}
	}
}

// TestAttemptFence: inside a transaction an attempt passes its fence only
// while the job is running and the attempt holds the job's token; a
// token another attempt took since, a job no longer running, and a job
// without an attempt row are stale.
func TestAttemptFence(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{})
	ctx := t.Context()
	db := e.q.pool
	for _, s := range []string{
		`INSERT INTO river_job (id, args, kind, max_attempts, queue, state, attempt, attempted_at, finalized_at) VALUES
			(1, '{}', 'yagent_delegation', 3, 'yagent_delegations', 'running', 2, now(), NULL),
			(2, '{}', 'yagent_delegation', 3, 'yagent_delegations', 'completed', 2, now(), now()),
			(3, '{}', 'yagent_delegation', 3, 'yagent_delegations', 'running', 1, now(), NULL)`,
		`INSERT INTO yagent_job_attempt (job_id, token, worker, attempt, started) VALUES (1, 6, 'w:1', 2, now()), (2, 6, 'w:1', 2, now())`,
	} {
		if _, err := db.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name       string
		job, token int64
		stale      bool
	}{
		{"holds the token", 1, 6, false},
		{"another attempt took it", 1, 5, true},
		{"the job is no longer running", 2, 6, true},
		{"no attempt row", 3, 1, true},
	} {
		tx, err := db.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		err = (&attempt{q: e.q, job: tc.job, token: tc.token}).fence(ctx, tx)
		_ = tx.Rollback(ctx)
		if errors.Is(err, errStale) != tc.stale || (!tc.stale && err != nil) {
			t.Errorf("%s: fence = %v; want stale: %t", tc.name, err, tc.stale)
		}
	}
}

// TestParkWaitsForTheJob: a stale attempt is held while its job runs on
// (another attempt's) and let go within a poll once the job is finalized.
func TestParkWaitsForTheJob(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{})
	ctx := t.Context()
	if _, err := e.q.pool.Exec(ctx, `INSERT INTO river_job (id, args, kind, max_attempts, queue, state, attempt, attempted_at) VALUES
		(1, '{}', 'yagent_delegation', 3, 'yagent_delegations', 'running', 2, now())`); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		e.q.park(1, make(chan struct{}))
		close(done)
	}()
	select {
	case <-done:
		t.Fatal("park returned while the job still runs")
	case <-time.After(1500 * time.Millisecond):
	}
	if _, err := e.q.pool.Exec(ctx, `UPDATE river_job SET state = 'completed', finalized_at = now() WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("park still holds the attempt 30 s after its job was finalized")
	}
}
