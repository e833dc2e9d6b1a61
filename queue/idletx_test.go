package queue

import (
	"context"
	"testing"
	"time"

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
