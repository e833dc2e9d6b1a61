package pgtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

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

// TestKilledBinaryLeavesNoServer pins the watchdog: a test binary killed
// with SIGKILL (go test -timeout, a CI runner's kill) leaves neither a
// running server nor its directory behind.
func TestKilledBinaryLeavesNoServer(t *testing.T) {
	if os.Getenv("YAGENT_PGTEST_CHILD") == "1" {
		srv := server(t)
		fmt.Println("DIR", srv.dir)
		select {} // killed by the parent
	}
	server(t) // skips or fails here like every other test without PostgreSQL
	cmd := exec.Command(os.Args[0], "-test.run", "^TestKilledBinaryLeavesNoServer$")
	cmd.Env = append(os.Environ(), "YAGENT_PGTEST_CHILD=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var dir string
	sc := bufio.NewScanner(out)
	for dir == "" && sc.Scan() {
		dir, _ = strings.CutPrefix(sc.Text(), "DIR ")
	}
	if dir == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("the child started no server")
	}
	pidFile, _ := os.ReadFile(filepath.Join(dir, "data", "postmaster.pid"))
	pid, _ := strconv.Atoi(strings.SplitN(string(pidFile), "\n", 2)[0])
	if pid <= 0 {
		t.Fatalf("no postmaster.pid in %s", dir)
	}
	cmd.Process.Kill()
	cmd.Wait()
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, dirErr := os.Stat(dir)
		alive := syscall.Kill(pid, 0) == nil
		if !alive && errors.Is(dirErr, fs.ErrNotExist) {
			return
		}
		if time.Now().After(deadline) {
			if alive {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			os.RemoveAll(dir)
			t.Fatalf("30 s after its test binary was killed: server %d alive=%v, %s still there=%v", pid, alive, dir, dirErr == nil)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestRestart pins that Restart drops every session and keeps the data,
// on the same address.
func TestRestart(t *testing.T) {
	dsn := New(t)
	ctx := t.Context()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(ctx, "CREATE TABLE kept (v int); INSERT INTO kept VALUES (7)"); err != nil {
		t.Fatal(err)
	}
	Restart(t)
	if _, err := c.Exec(ctx, "SELECT 1"); err == nil {
		t.Error("a session from before the restart still answers; want it dropped")
	}
	c2, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect after the restart: %v", err)
	}
	defer c2.Close(context.Background())
	var v int
	if err := c2.QueryRow(ctx, "SELECT v FROM kept").Scan(&v); err != nil || v != 7 {
		t.Errorf("after the restart: kept.v = %d, %v; want 7", v, err)
	}
}
