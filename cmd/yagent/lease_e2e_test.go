package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/yagent/yagent/batch"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/internal/pgtest"
	"github.com/yagent/yagent/internal/testio"
	"github.com/yagent/yagent/llm/llmtest"
)

// leaseDelegations is the plan of TestBatchLease: each answer takes
// leaseLatency, two at once per worker, so a run lasts seconds.
const (
	leaseDelegations = 30
	leaseLatency     = 300 * time.Millisecond
)

// proc is a yagent process of TestBatchLease.
type proc struct {
	cmd *exec.Cmd
	log testio.Buffer
}

func (p *proc) exit() int {
	err := p.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// TestBatchLease pins one coordinator per plan run (issue 29 item 2) with
// real processes of the yagent binary, a real worker and a throwaway
// PostgreSQL:
//   - restart: PostgreSQL restarted mid-run; a second batch with --resume
//     is refused (exit 2) naming the holder's pid; the first finishes and
//     every delegation's note is on the board once;
//   - together: two batches of one plan and board started at once, with
//     --queue and in-process: one is refused (exit 2), notes once;
//   - killed: the holder SIGKILLed; a --resume batch is refused until its
//     lease (queue.lease 5s) expires, then takes the run over and
//     finishes it, notes once.
func TestBatchLease(t *testing.T) {
	bin, err := exec.LookPath("yagent") // testscript.Main put it on PATH
	if err != nil {
		t.Fatalf("yagent test binary not on PATH: %v", err)
	}
	dsn := pgtest.New(t)
	srv := llmtest.NewHandOverServer(t, leaseLatency)
	root := t.TempDir()
	var plan strings.Builder
	plan.WriteString("parallel: 4\ndelegations:\n")
	for i := range leaseDelegations {
		fmt.Fprintf(&plan, "  - {id: item-%03d, agent: worker, task: 'item-%03d: hand it over.'}\n", i, i)
	}
	planFile := filepath.Join(root, "plan.yaml")
	mkfile(t, planFile, plan.String())
	notesRoot := filepath.Join(root, "notes")
	home := filepath.Join(root, "home")
	mkfile(t, filepath.Join(home, ".yagent", "config.yaml"), "queue:\n  rescue_after: 1m\n  max_attempts: 3\n  concurrency: 2\n  lease: 5s\n")
	ws := filepath.Join(root, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "HOME="+home, "YAGENT_HOME="+filepath.Join(home, ".yagent"), "YAGENT_NOTES_ROOT="+notesRoot,
		"OPENAI_BASE_URL="+srv.URL(), "OPENAI_API_KEY=", "YAGENT_MODEL=scripted", "TERM=dumb")
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	start := func(args ...string) *proc {
		p := &proc{cmd: exec.CommandContext(ctx, bin, append(args, "--cd", ws)...)}
		p.cmd.Env, p.cmd.Stderr = env, &p.log
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return p
	}
	worker := start("worker", "--queue", dsn)
	defer func() { _ = worker.cmd.Process.Signal(os.Interrupt); _ = worker.cmd.Wait() }()
	waitLog(t, &worker.log, " at once, workspace ", 30*time.Second)
	queued := func(board string, extra ...string) *proc {
		return start(append([]string{"batch", planFile, "--queue", dsn, "--board", board}, extra...)...)
	}
	refused := func(t *testing.T, what string, p *proc, holder *proc) {
		t.Helper()
		if code := p.exit(); code != 2 {
			t.Errorf("%s: exit %d; want 2 (refused)\n%s", what, code, tail(p.log.String(), 2000))
		}
		want := "pid " + strconv.Itoa(holder.cmd.Process.Pid) + " since "
		if s := p.log.String(); !strings.Contains(s, want) || !strings.Contains(s, "try again after") {
			t.Errorf("%s: stderr does not name the holder (%q) and when to try again:\n%s", what, want, tail(s, 2000))
		}
	}
	ok := func(t *testing.T, what string, p *proc) {
		t.Helper()
		if code := p.exit(); code != 0 {
			t.Errorf("%s: exit %d; want 0\n%s", what, code, tail(p.log.String(), 3000))
		}
	}

	t.Run("restart", func(t *testing.T) {
		a := queued("restart")
		waitLanded(t, dsn, "restart", 2)
		pgtest.Restart(t)
		b := queued("restart", "--resume")
		refused(t, "a --resume batch after the restart", b, a)
		ok(t, "the holder over the restart", a)
		landedOnce(t, notesRoot, "restart")
	})

	t.Run("together", func(t *testing.T) {
		for _, mode := range []string{"queue", "inprocess"} {
			board := "together-" + mode
			var a, b *proc
			if mode == "queue" {
				a, b = queued(board), queued(board)
			} else {
				a = start("batch", planFile, "--board", board)
				b = start("batch", planFile, "--board", board)
			}
			ca, cb := a.exit(), b.exit()
			if (ca == 0) == (cb == 0) || ca+cb != 2 {
				t.Errorf("%s: exits %d and %d; want one 0 and one 2 (refused)\nA:\n%s\nB:\n%s", mode, ca, cb, tail(a.log.String(), 1500), tail(b.log.String(), 1500))
			}
			for _, p := range []*proc{a, b} {
				if s := p.log.String(); p.cmd.ProcessState.ExitCode() == 2 && !strings.Contains(s, "is held by ") {
					t.Errorf("%s: the refused batch does not name the holder:\n%s", mode, tail(s, 1500))
				}
			}
			landedOnce(t, notesRoot, board)
		}
	})

	t.Run("killed", func(t *testing.T) {
		a := queued("killed")
		waitLanded(t, dsn, "killed", 2)
		if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = a.cmd.Wait()
		b := queued("killed", "--resume")
		refused(t, "a --resume batch before the lease expired", b, a)
		time.Sleep(5 * time.Second)
		c := queued("killed", "--resume")
		ok(t, "the --resume batch after the lease expired", c)
		if s := c.log.String(); !regexp.MustCompile(`reattached to plan run`).MatchString(s) {
			t.Errorf("the taking-over batch did not reattach to the killed one's run:\n%s", tail(s, 2000))
		}
		landedOnce(t, notesRoot, "killed")
	})
}

// waitLog waits until buf matches re.
func waitLog(t *testing.T, buf *testio.Buffer, re string, timeout time.Duration) {
	t.Helper()
	rx := regexp.MustCompile(re)
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if rx.MatchString(buf.String()) {
			return
		}
	}
	t.Fatalf("no %q after %s:\n%s", re, timeout, tail(buf.String(), 2000))
}

// waitLanded waits until n delegations of board's run have landed.
func waitLanded(t *testing.T, dsn, board string, n int) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var landed int
		_ = conn.QueryRow(t.Context(), `SELECT count(*) FROM yagent_batch_job j JOIN yagent_batch_run r ON r.id = j.run_id
			WHERE r.board = $1 AND j.landed_ref IS NOT NULL`, board).Scan(&landed)
		if landed >= n {
			return
		}
	}
	t.Fatalf("board %s: fewer than %d delegations landed after 60s", board, n)
}

// landedOnce checks that board holds exactly one note per delegation of
// TestBatchLease's plan.
func landedOnce(t *testing.T, root, board string) {
	t.Helper()
	store := blackboard.Open(root)
	list, err := store.ListNotes(board, blackboard.ListOptions{})
	if err != nil {
		t.Fatalf("board %s: %v", board, err)
	}
	seen := map[string]int{}
	for _, m := range list.Notes {
		n, err := store.ReadNote(board, m.Ref)
		if err != nil {
			t.Fatal(err)
		}
		seen[batch.KeyID(n.Handoff.Key)]++
	}
	if len(list.Notes) != leaseDelegations || len(seen) != leaseDelegations {
		t.Errorf("board %s: %d notes for %d delegations; want %d, one each", board, len(list.Notes), len(seen), leaseDelegations)
	}
}
