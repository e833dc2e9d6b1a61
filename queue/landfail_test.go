package queue

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/llm/llmtest"
)

// TestBoardWriteFailureEndsLanding: a landing the board refuses (here its
// directory is a file: ENOTDIR even for root) fails with the board's
// error at once. Only a database that does not answer is waited for:
// retrying a board write would loop for as long as the lease holds.
func TestBoardWriteFailureEndsLanding(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{})
	e.serve(t, e.runner, "w1")
	dir := e.store.BoardDir("b")
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, []byte("not a board\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := e.coordinate(t, false)
	defer c.Close(true)
	type ran struct {
		res agents.DelegationResult
		err error
	}
	done := make(chan ran, 1)
	go func() {
		res, err := c.Run(t.Context(), item(1))
		done <- ran{res, err}
	}()
	select {
	case r := <-done:
		t.Logf("Run = %+v, %v", r.res, r.err)
		if r.err == nil || !strings.Contains(r.err.Error(), "land the handoff of item-001") || r.res.Ref != "" {
			t.Errorf("Run = %+v, %v; want the landing's board error", r.res, r.err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the landing was still retrying a board write after 2 minutes; want its error at once")
	}
}

// TestRetryingWaitsOutTheDatabase: while the lease holds, a step that
// fails for want of the database (a PostgreSQL restart ends every session:
// 57P01) is tried again until it goes through; any other error is
// returned at once.
func TestRetryingWaitsOutTheDatabase(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{})
	c := e.coordinate(t, false)
	defer c.Close(true)
	calls := 0
	err := c.retrying(func() error {
		if calls++; calls < 3 {
			return &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Errorf("retrying over two dropped sessions = %v after %d calls; want nil after 3", err, calls)
	}
	calls = 0
	boom := errors.New("boom")
	if err := c.retrying(func() error { calls++; return boom }); !errors.Is(err, boom) || calls != 1 {
		t.Errorf("retrying of another error = %v after %d calls; want it at once", err, calls)
	}
}
