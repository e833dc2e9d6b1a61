package pgtest

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(Run(m)) }

// TestNewGivesFreshDatabases pins that every New is an empty database of
// its own on one running server, reachable over loopback TCP, with the
// full-text configurations the KB needs.
func TestNewGivesFreshDatabases(t *testing.T) {
	a, b := New(t), New(t)
	if a == b {
		t.Fatalf("New returned the same database twice: %s", a)
	}
	ctx := context.Background()
	ca, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer ca.Close(ctx)
	if _, err := ca.Exec(ctx, "CREATE TABLE x (v int)"); err != nil {
		t.Fatal(err)
	}
	cb, err := pgx.Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close(ctx)
	var n int
	if err := cb.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE tablename = 'x'").Scan(&n); err != nil || n != 0 {
		t.Errorf("second database sees the first one's table (n=%d, err=%v)", n, err)
	}
	var cfg string
	if err := cb.QueryRow(ctx, "SELECT cfgname FROM pg_ts_config WHERE cfgname = 'russian'").Scan(&cfg); err != nil {
		t.Errorf("no russian text search configuration: %v", err)
	}
}
