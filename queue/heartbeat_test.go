package queue

import (
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
	if len(lines) != 2 || !strings.Contains(strings.Join(lines, "\n"), "worker silent:1 missed its heartbeats") {
		t.Errorf("rescue said %q; want two lines naming worker silent:1", lines)
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
