package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/batch"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/internal/pgtest"
	"github.com/yagent/yagent/internal/testio"
	"github.com/yagent/yagent/llm/llmtest"
)

// Sizes of TestBatchAcrossHosts: 100 delegations (200 took five of the
// package's 30 minutes with two other suites beside it), one model call each,
// answered after a scripted latency; each worker runs workerConcurrency at
// once.
// The workers are race-built test binaries on a 2-core machine: each
// delegation costs them real CPU. The ratio measures the queue only while
// the model's latency, not that CPU, bounds a worker: at 200 ms per answer
// three workers measured 1.8× (under other test load), at 400 ms the CPU
// share halves.
// YAGENT_SCALE=N:LATENCY:CONCURRENCY:W1,W2,… measures instead of
// testing (README "Scaling out"): the plan of N delegations at LATENCY per
// answer on W1, then W2, … workers running CONCURRENCY at once each,
// logging each run's time and its speed-up over the first.
var (
	hostsDelegations  = 100
	hostsLatency      = 400 * time.Millisecond
	workerConcurrency = 2
)

// scaleMode reads YAGENT_SCALE; nil when it is not set.
func scaleMode(t *testing.T) []int {
	spec := os.Getenv("YAGENT_SCALE")
	if spec == "" {
		return nil
	}
	parts := strings.Split(spec, ":")
	if len(parts) != 4 {
		t.Fatalf("YAGENT_SCALE=%q: want N:LATENCY:CONCURRENCY:W1,W2,…", spec)
	}
	var err error
	var counts []int
	if hostsDelegations, err = strconv.Atoi(parts[0]); err == nil {
		if hostsLatency, err = time.ParseDuration(parts[1]); err == nil {
			workerConcurrency, err = strconv.Atoi(parts[2])
		}
	}
	for w := range strings.SplitSeq(parts[3], ",") {
		n, cerr := strconv.Atoi(w)
		err = cmp.Or(err, cerr)
		counts = append(counts, n)
	}
	if err != nil {
		t.Fatalf("YAGENT_SCALE=%q: %v", spec, err)
	}
	return counts
}

// TestBatchAcrossHosts is the distributed batch end to end, with real
// processes of the yagent binary on one throwaway PostgreSQL: a coordinator
// (yagent batch --queue) and yagent worker processes, each with a home and
// a workspace of its own, against a scripted model that takes
// hostsLatency per answer. It runs the same 100-delegation plan three
// times on three boards:
//  1. one worker — the baseline wall time;
//  2. three workers — at least 2.5× faster than one, measured in this run;
//  3. three workers, one SIGKILLed mid-run: its heartbeat goes silent and
//     after queue.worker_timeout another worker takes its jobs over.
//
// Every run lands all 100 notes exactly once (one note per delegation key).
func TestBatchAcrossHosts(t *testing.T) {
	bin, err := exec.LookPath("yagent") // testscript.Main put it on PATH
	if err != nil {
		t.Fatalf("yagent test binary not on PATH: %v", err)
	}
	scale := scaleMode(t)
	dsn := pgtest.New(t)
	srv := llmtest.NewHandOverServer(t, hostsLatency)

	root := t.TempDir()
	var plan strings.Builder
	plan.WriteString("delegations:\n")
	for i := range hostsDelegations {
		fmt.Fprintf(&plan, "  - {id: item-%03d, agent: worker, task: 'item-%03d: hand it over.'}\n", i, i)
	}
	planFile := filepath.Join(root, "plan.yaml")
	mkfile(t, planFile, plan.String())
	notesRoot := filepath.Join(root, "notes")
	config := fmt.Sprintf("queue:\n  worker_timeout: 3s\n  max_attempts: 3\n  concurrency: %d\n", workerConcurrency)
	// host returns the environment and workspace of one "host".
	host := func(name string) ([]string, string) {
		dir := filepath.Join(root, name)
		mkfile(t, filepath.Join(dir, "home", ".yagent", "config.yaml"), config)
		ws := filepath.Join(dir, "ws")
		if err := os.MkdirAll(ws, 0o755); err != nil {
			t.Fatal(err)
		}
		return append(os.Environ(), "HOME="+filepath.Join(dir, "home"), "YAGENT_HOME="+filepath.Join(dir, "home", ".yagent"),
			"YAGENT_NOTES_ROOT="+notesRoot, "OPENAI_BASE_URL="+srv.URL(), "OPENAI_API_KEY=", "YAGENT_MODEL=scripted", "TERM=dumb"), ws
	}
	ctx, cancel := context.WithTimeout(t.Context(), cmp.Or(time.Duration(len(scale))*10*time.Minute, 4*time.Minute))
	defer cancel()
	seq := 0
	startWorkers := func(n int) []*worker {
		var ws []*worker
		for range n {
			seq++
			env, dir := host(fmt.Sprintf("worker%d", seq))
			w := &worker{name: fmt.Sprintf("worker%d", seq), cmd: exec.CommandContext(ctx, bin, "worker", "--queue", dsn, "--cd", dir)}
			w.cmd.Env, w.cmd.Stderr = env, &w.log
			if err := w.cmd.Start(); err != nil {
				t.Fatal(err)
			}
			ws = append(ws, w)
		}
		for _, w := range ws {
			w.waitFor(t, " at once, workspace ", 30*time.Second)
		}
		return ws
	}
	stopWorkers := func(ws []*worker) {
		for _, w := range ws {
			if w.killed {
				continue
			}
			_ = w.cmd.Process.Signal(os.Interrupt)
		}
		for _, w := range ws {
			_ = w.cmd.Wait()
		}
	}
	coordEnv, coordDir := host("coordinator")
	batch := func(board string) (*exec.Cmd, *bytes.Buffer) {
		var stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, bin, "batch", planFile, "--queue", dsn, "--board", board, "--cd", coordDir, "--json")
		cmd.Env, cmd.Stderr = coordEnv, &stderr
		return cmd, &stderr
	}
	// run runs the plan and returns the batch's own elapsed time (from
	// batch_started to batch_finished: the process's start-up, the same
	// for every run, is left out).
	run := func(board string) time.Duration {
		cmd, stderr := batch(board)
		start := time.Now()
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("yagent batch on board %s: %v\n%s\n%s", board, err, tail(string(out), 2000), tail(stderr.String(), 3000))
		}
		wall := time.Since(start)
		fin := batchFinished(t, out)
		elapsed := time.Duration(fin.ElapsedMS) * time.Millisecond
		t.Logf("board %s: batch %s, process %s", board, elapsed, wall.Round(time.Millisecond))
		if fin.Counts["ok"] != hostsDelegations || fin.Usage == nil || fin.Usage.Requests != hostsDelegations {
			t.Errorf("board %s: batch_finished counts %v, usage %+v; want %d ok and %d model calls booked", board, fin.Counts, fin.Usage, hostsDelegations, hostsDelegations)
		}
		assertLandedOnce(t, notesRoot, board)
		return elapsed
	}

	if scale != nil {
		var first time.Duration
		for _, n := range scale {
			ws := startWorkers(n)
			took := run(fmt.Sprintf("scale-%d", n))
			stopWorkers(ws)
			first = cmp.Or(first, took)
			t.Logf("scale: %d delegations, %s per answer, %d at once per worker: %d workers %s, %.2f× the first",
				hostsDelegations, hostsLatency, workerConcurrency, n, took.Round(time.Millisecond), float64(first)/float64(took))
		}
		return
	}

	one := startWorkers(1)
	t1 := run("one")
	stopWorkers(one)

	three := startWorkers(3)
	t3 := run("three")
	stopWorkers(three)

	ratio := float64(t1) / float64(t3)
	t.Logf("%d delegations, %s per answer, %d at once per worker: 1 worker %s, 3 workers %s: %.2f× faster",
		hostsDelegations, hostsLatency, workerConcurrency, t1.Round(time.Millisecond), t3.Round(time.Millisecond), ratio)
	// The spread, not the wall time (which a loaded machine decides: 1.13×
	// was seen with three suites on two cores): every worker took jobs, and
	// more ran at once than one worker can run.
	if workers, peak := spread(t, dsn, "three"); workers != 3 || peak <= workerConcurrency {
		t.Errorf("3 workers: jobs ran on %d of them, at most %d at once; want all 3, more than %d at once", workers, peak, workerConcurrency)
	}

	// A worker dies mid-run: its running jobs stay "running" until another
	// worker's heartbeat finds it silent and hands them over.
	killed := startWorkers(3)
	cmd, stderr := batch("killed")
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	victim := pickVictim(t, dsn, killed)
	time.Sleep(10 * hostsLatency) // well into its jobs
	if err := victim.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	victim.killed = true
	_ = victim.cmd.Wait()
	killedAt := time.Since(start)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("yagent batch with a killed worker: %v\n%s", err, tail(stderr.String(), 3000))
	}
	wall := time.Since(start)
	stopWorkers(killed)
	assertLandedOnce(t, notesRoot, "killed")
	rescued := countRescued(t, dsn)
	t.Logf("killed %s after %s; the run ended after %s; %d jobs ran more than once", victim.name, killedAt.Round(time.Millisecond), wall.Round(time.Millisecond), rescued)
	if rescued == 0 {
		t.Errorf("no job was retried after the worker was killed; want its running jobs rescued\n%s", tail(victim.log.String(), 2000))
	}
}

// batchFinished returns the batch_finished event of a --json stream.
func batchFinished(t *testing.T, out []byte) *agents.BatchEvent {
	t.Helper()
	for line := range strings.Lines(string(out)) {
		var e agents.Event
		if json.Unmarshal([]byte(line), &e) == nil && e.Type == agents.EventBatchFinished && e.Batch != nil {
			return e.Batch
		}
	}
	t.Fatalf("no batch_finished event in:\n%s", tail(string(out), 2000))
	return nil
}

type worker struct {
	name   string
	cmd    *exec.Cmd
	log    testio.Buffer
	killed bool
}

// waitFor waits until the worker's stderr matches re.
func (w *worker) waitFor(t *testing.T, re string, timeout time.Duration) {
	t.Helper()
	if !w.seen(re, timeout) {
		t.Fatalf("%s: no %q on stderr after %s:\n%s", w.name, re, timeout, tail(w.log.String(), 2000))
	}
}

// seen says whether the worker's stderr matches re within timeout.
func (w *worker) seen(re string, timeout time.Duration) bool {
	rx := regexp.MustCompile(re)
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if rx.MatchString(w.log.String()) {
			return true
		}
	}
	return false
}

// pickVictim returns a worker that does not lead River's maintenance (its
// rescuer would then wait for a new leader to be elected first).
//
// It waits for one of them to have started a job (a worker starved at
// load 17 started none in a minute, while the others drained the queue):
// the first that has, among those that do not lead, within three minutes.
func pickVictim(t *testing.T, dsn string, ws []*worker) *worker {
	t.Helper()
	started := regexp.MustCompile(regexp.QuoteMeta("attempt 1 of 3"))
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		leader := riverLeader(t, dsn)
		for _, w := range ws {
			if !strings.Contains(leader, fmt.Sprintf(":%d-", w.cmd.Process.Pid)) && started.MatchString(w.log.String()) {
				return w
			}
		}
		if time.Now().After(deadline) {
			var logs strings.Builder
			for _, w := range ws {
				fmt.Fprintf(&logs, "%s:\n%s\n", w.name, tail(w.log.String(), 1000))
			}
			t.Fatalf("no worker but River's leader (%s) started a job in 3m0s:\n%s", leader, logs.String())
		}
	}
}

// riverLeader is River's leader id ("" while none is elected).
func riverLeader(t *testing.T, dsn string) string {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var leader string
	_ = conn.QueryRow(t.Context(), `SELECT leader_id FROM river_leader LIMIT 1`).Scan(&leader)
	return leader
}

// countRescued is how many jobs needed more than one attempt.
// spread reads River's jobs of board: how many workers ran them, and the
// most that ran at once (from their attempts' start and end).
func spread(t *testing.T, dsn, board string) (workers, peak int) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(t.Context(), `SELECT attempted_at, finalized_at, attempted_by[array_length(attempted_by, 1)] FROM river_job WHERE args->>'board' = $1 AND state = 'completed'`, board)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type edge struct {
		at    time.Time
		delta int
	}
	var edges []edge
	by := map[string]bool{}
	for rows.Next() {
		var start, end time.Time
		var worker string
		if err := rows.Scan(&start, &end, &worker); err != nil {
			t.Fatal(err)
		}
		by[worker] = true
		edges = append(edges, edge{start, 1}, edge{end, -1})
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.delta - b.delta // an end before a start at the same instant
	})
	running := 0
	for _, e := range edges {
		running += e.delta
		peak = max(peak, running)
	}
	return len(by), peak
}

func countRescued(t *testing.T, dsn string) int {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(t.Context(), `SELECT count(*) FROM river_job WHERE attempt > 1`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// assertLandedOnce checks that board holds exactly one note per
// delegation, each carrying its own item's handoff.
func assertLandedOnce(t *testing.T, root, board string) {
	t.Helper()
	store := blackboard.Open(root)
	list, err := store.ListNotes(board, blackboard.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, m := range list.Notes {
		n, err := store.ReadNote(board, m.Ref)
		if err != nil {
			t.Fatal(err)
		}
		id := batch.KeyID(n.Handoff.Key)
		seen[id]++
		if n.Body != "Result of "+id+": done.\n" {
			t.Errorf("board %s: note %s (key %s) carries %q", board, m.Ref, n.Handoff.Key, n.Body)
		}
	}
	if len(list.Notes) != hostsDelegations || len(seen) != hostsDelegations || list.Skipped > 0 {
		t.Errorf("board %s: %d notes for %d delegations (%d unreadable); want %d, one each", board, len(list.Notes), len(seen), list.Skipped, hostsDelegations)
	}
	for id, n := range seen {
		if n > 1 {
			t.Errorf("board %s: %d notes for %s; want exactly one", board, n, id)
		}
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
