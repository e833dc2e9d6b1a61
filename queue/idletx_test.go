package queue

import (
	"context"
	"testing"
	"time"

	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/llm/llmtest"
)

// TestFrozenTransactionEnds: a worker frozen inside a transaction that
// locks its job's row (seen at load 13: stopped between "attempt 1 of 3"
// and its attempt's start) does not keep the row from the hand-over: the
// server ends the transaction after the idle limit, the row can be taken,
// and the frozen worker's transaction fails when it wakes.
func TestFrozenTransactionEnds(t *testing.T) {
	defer func(d time.Duration) { idleTxTimeout = d }(idleTxTimeout)
	idleTxTimeout = time.Second
	e := newEnv(t, llmtest.HandOver("1ms"), Options{WorkerTimeout: 500 * time.Millisecond})
	ctx := t.Context()
	if _, err := e.q.pool.Exec(ctx, `INSERT INTO river_job (id, args, kind, max_attempts, queue, state, attempt, attempted_at, attempted_by) VALUES
		(1, '{"delegation":"item-001"}', 'yagent_delegation', 3, 'yagent_delegations', 'running', 1, now(), '{frozen}')`); err != nil {
		t.Fatal(err)
	}
	frozen, err := e.q.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer frozen.Rollback(context.WithoutCancel(ctx))
	if _, err := frozen.Exec(ctx, `SELECT 1 FROM river_job WHERE id = 1 FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	// The frozen worker sends nothing more; another takes the row.
	took := time.Now()
	for {
		var id int64
		err := e.q.pool.QueryRow(ctx, `SELECT id FROM river_job WHERE id = 1 FOR UPDATE SKIP LOCKED`).Scan(&id)
		if err == nil {
			break
		}
		if time.Since(took) > 20*time.Second {
			t.Fatalf("the row is still locked by the idle transaction after %s", time.Since(took).Round(time.Millisecond))
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("the row was free again after %s", time.Since(took).Round(time.Millisecond))
	if _, err := frozen.Exec(ctx, `SELECT 1`); err == nil {
		t.Error("the frozen transaction still works after the server ended it")
	}
}

// TestStartRetriedOnce: a job whose attempt could not be recorded the
// first time (the frozen worker's transaction ended by the server, or any
// error of the database) is recorded once more before the attempt is
// spent: the job runs and lands at its first attempt.
func TestStartRetriedOnce(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{MaxAttempts: 2})
	ctx := t.Context()
	// The first record of an attempt fails; a sequence is not rolled back
	// with the failed transaction, so the second succeeds.
	if _, err := e.q.pool.Exec(ctx, `CREATE SEQUENCE start_tries;
		CREATE FUNCTION fail_first_start() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF nextval('start_tries') = 1 THEN RAISE EXCEPTION 'the first record of an attempt fails'; END IF;
			RETURN NEW;
		END $$;
		CREATE TRIGGER fail_first_start BEFORE INSERT ON yagent_job_attempt FOR EACH ROW EXECUTE FUNCTION fail_first_start()`); err != nil {
		t.Fatal(err)
	}
	e.serve(t, e.runner, "w1")
	bg := NewBackground(ctx, Options{DSN: e.dsn, RescueAfter: time.Hour, MaxAttempts: 2, PollInterval: 20 * time.Millisecond},
		"sess-s", CoordinatorOptions{Runner: e.runner, Board: "b", Events: e.events})
	defer bg.Close()
	d := item(1)
	d.Background, d.Stem = true, e.store.NewStem()
	rctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	res, err := bg.Run(rctx, d)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != blackboard.StatusOK {
		t.Fatalf("result %s (%s); want ok", res.Status, res.Reason)
	}
	var tries, attempt int
	if err := e.q.pool.QueryRow(ctx, `SELECT (SELECT last_value FROM start_tries), (SELECT attempt FROM river_job)`).Scan(&tries, &attempt); err != nil {
		t.Fatal(err)
	}
	if tries != 2 || attempt != 1 {
		t.Errorf("the attempt was recorded in %d tries and the job ran %d attempts; want 2 tries, 1 attempt", tries, attempt)
	}
}

// TestIdleTxTimeoutFloor: a queue connection's idle-in-transaction limit
// is 30 s, or the worker timeout when that is longer — never a short
// worker timeout's few seconds, which would end a slow client's
// transaction on a loaded machine.
func TestIdleTxTimeoutFloor(t *testing.T) {
	for _, tc := range []struct {
		worker time.Duration
		want   string
	}{
		{2 * time.Second, "30s"},
		{time.Minute, "1min"},
	} {
		e := newEnv(t, llmtest.HandOver("1ms"), Options{WorkerTimeout: tc.worker})
		var got string
		if err := e.q.pool.QueryRow(t.Context(), `SHOW idle_in_transaction_session_timeout`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("worker timeout %s: idle_in_transaction_session_timeout %s; want %s", tc.worker, got, tc.want)
		}
	}
}
