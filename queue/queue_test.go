package queue

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/internal/pgtest"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

// TestOpenRefusesBadInput: an address that does not answer or parse is
// ErrUnreachable naming where it came from, with the password masked; a
// database migrated by a newer yagent (its own tables or River's) is
// refused with both versions, and nothing is changed.
func TestOpenRefusesBadInput(t *testing.T) {
	dsn := pgtest.New(t)
	if q, err := Open(t.Context(), Options{DSN: dsn, RescueAfter: time.Hour, MaxAttempts: 1}); err != nil {
		t.Fatal(err)
	} else {
		q.Close()
	}
	exec := func(sql string) {
		conn, err := pgx.Connect(t.Context(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(t.Context(), sql); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, dsn, source, setup, undo string
		want                           error
		msg                            []string
	}{
		{name: "nothing listens", dsn: "postgres://yagent:s3cret@127.0.0.1:9/db", source: "--queue", want: ErrUnreachable,
			msg: []string{"--queue postgres://yagent:xxxxx@127.0.0.1:9/db", "start PostgreSQL there or fix --queue"}},
		{name: "key=value form", dsn: "host=127.0.0.1 port=9 user=yagent password=s3cret dbname=db", source: "queue.dsn", want: ErrUnreachable,
			msg: []string{"queue.dsn host=127.0.0.1 port=9 user=yagent password=xxxxx dbname=db"}},
		{name: "not an address", dsn: "postgres://yagent:s3cret@[::1", source: "queue.dsn", want: ErrUnreachable,
			msg: []string{"not a PostgreSQL address"}},
		{name: "newer yagent schema", dsn: dsn, setup: "UPDATE yagent_queue_schema SET version = 99", undo: "UPDATE yagent_queue_schema SET version = 1",
			want: ErrSchemaNewer, msg: []string{"yagent queue schema version 99, this yagent knows up to " + strconv.Itoa(schemaVersion)}},
		{name: "newer River schema", dsn: dsn, setup: "INSERT INTO river_migration (line, version) VALUES ('main', 999)",
			undo: "DELETE FROM river_migration WHERE version = 999", want: ErrSchemaNewer, msg: []string{"River schema version 999"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.setup != "" {
				exec(tc.setup)
				defer exec(tc.undo)
			}
			q, err := Open(t.Context(), Options{DSN: tc.dsn, Source: tc.source, RescueAfter: time.Hour, MaxAttempts: 1})
			if !errors.Is(err, tc.want) {
				if q != nil {
					q.Close()
				}
				t.Fatalf("Open = %v; want %v", err, tc.want)
			}
			for _, m := range tc.msg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not say %q", err, m)
				}
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("error %q shows the password", err)
			}
		})
	}
}

// TestLandsOncePerDelegation pins idempotent landing: whatever point a
// coordinator dies at, the resumed run leaves exactly one note per
// delegation and enqueues nothing twice. Three deaths are staged (a
// killed coordinator leaves exactly these states behind):
//   - a: its note was written, but the coordinator died before recording
//     that it landed;
//   - b: its job was enqueued, and finished while no coordinator ran;
//   - c: its job was enqueued and is still queued when the run resumes.
func TestLandsOncePerDelegation(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("10ms"), Options{})
	stopWorker := e.serve(t, e.runner, "w1")
	c1 := e.coordinate(t, false)
	res, err := c1.Run(t.Context(), item(1))
	if err != nil || res.Status != blackboard.StatusOK {
		t.Fatalf("Run(a) = %+v, %v", res, err)
	}
	// The worker's own time comes back with the note (the model took 10 ms).
	if res.Elapsed < 10*time.Millisecond || res.Elapsed > time.Minute {
		t.Errorf("Run(a) elapsed %v; want the worker's time, at least the model's 10ms", res.Elapsed)
	}
	if _, err := e.q.pool.Exec(t.Context(), `UPDATE yagent_batch_job SET landed_ref = NULL, landed_status = NULL WHERE delegation = 'item-001'`); err != nil {
		t.Fatal(err)
	}
	if _, err := c1.enqueue(t.Context(), item(2)); err != nil {
		t.Fatal(err)
	}
	waitJobs(t, e, "completed", 2)
	stopWorker()
	if _, err := c1.enqueue(t.Context(), item(3)); err != nil {
		t.Fatal(err)
	}
	run := c1.RunID()
	c1.Close(false) // the coordinator is gone; its lock goes with it

	e.serve(t, e.runner, "w2")
	c2 := e.coordinate(t, true)
	defer c2.Close(true)
	if c2.RunID() != run {
		t.Fatalf("resumed run %s; want to reattach to %s", c2.RunID(), run)
	}
	for i := 1; i <= 3; i++ {
		res, err := c2.Run(t.Context(), item(i))
		if err != nil || res.Status != blackboard.StatusOK || res.Ref == "" {
			t.Errorf("resumed Run(%s) = %+v, %v; want its ok note", item(i).CallID, res, err)
		}
	}
	notes := e.notesByID(t)
	for i := 1; i <= 3; i++ {
		id := item(i).CallID
		if len(notes[id]) != 1 {
			t.Errorf("%s has %d notes; want exactly 1", id, len(notes[id]))
		}
	}
	if jobs := e.jobs(t); jobs["completed"] != 3 || len(jobs) != 1 {
		t.Errorf("jobs by state %v; want the 3 enqueued once, completed", jobs)
	}
	// A landed job leaves the waiters: nothing is watched for ever.
	c2.mu.Lock()
	left := len(c2.waiting)
	c2.mu.Unlock()
	if left != 0 {
		t.Errorf("%d jobs still waited for after every delegation landed; want none", left)
	}
	// A finished run is marked so, silently.
	c2.Close(true)
	var finished bool
	if err := e.q.pool.QueryRow(t.Context(), `SELECT finished_at IS NOT NULL FROM yagent_batch_run WHERE id = $1`, run).Scan(&finished); err != nil || !finished {
		t.Errorf("run %s finished = %v (%v); want marked finished", run, finished, err)
	}
	for _, ev := range e.events.Events() {
		if ev.Type == agents.EventNotice && strings.Contains(ev.Text, "mark plan run") {
			t.Errorf("notice %q; marking the run finished succeeded", ev.Text)
		}
	}
	var unlanded int
	if err := e.q.pool.QueryRow(t.Context(), `SELECT count(*) FROM yagent_batch_job WHERE landed_ref IS NULL`).Scan(&unlanded); err != nil || unlanded != 0 {
		t.Errorf("%d delegations not recorded as landed (%v); want none", unlanded, err)
	}
}

func waitJobs(t *testing.T, e *env, state string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if e.jobs(t)[state] >= n {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("jobs by state %v; want %d %s", e.jobs(t), n, state)
}

// TestFailedAttemptsLandOneDegradedNote: a worker that cannot run a job
// (here: no model endpoint) fails it with the reason, the coordinator
// shows each failed attempt, River retries it up to max_attempts, and the
// last failure lands as one degraded note listing every attempt. The
// worker itself keeps serving.
func TestFailedAttemptsLandOneDegradedNote(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{MaxAttempts: 2})
	broken := newRunner(t, e.store, func(string) (llm.Client, string, error) {
		return nil, "", llm.ErrNoEndpoint
	})
	// It holds off after each failure (its model is unusable), briefly.
	e.serveWith(t, WorkerOptions{Runner: broken, Name: "nomodel", HoldOff: 100 * time.Millisecond})
	c := e.coordinate(t, false)
	defer c.Close(true)
	res, err := c.Run(t.Context(), item(7))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != blackboard.StatusDegraded || !strings.Contains(res.Reason, "no model endpoint") {
		t.Errorf("result %+v; want degraded with the worker's reason", res)
	}
	notes := e.notesByID(t)["item-007"]
	if len(notes) != 1 {
		t.Fatalf("%d notes; want 1", len(notes))
	}
	n := notes[0]
	for _, want := range []string{"- attempt 1 (", "- attempt 2 (", "worker nomodel:", "no model endpoint"} {
		if !strings.Contains(n.Body, want) {
			t.Errorf("degraded note body lacks %q:\n%s", want, n.Body)
		}
	}
	if n.Handoff.Agent != "worker" || !strings.HasPrefix(n.Handoff.Conclusion, "The delegation failed on all 2 attempts") {
		t.Errorf("handoff %+v", n.Handoff)
	}
	var shown bool
	for _, ev := range e.events.Events() {
		shown = shown || ev.Type == agents.EventNotice && strings.Contains(ev.Text, "item-007 attempt 1 of 2 failed") && strings.Contains(ev.Text, "no model endpoint")
	}
	if !shown {
		t.Errorf("the coordinator did not show the failed first attempt: %v", e.events.Events())
	}
	if jobs := e.jobs(t); jobs["discarded"] != 1 {
		t.Errorf("jobs %v; want the one discarded", jobs)
	}
}

// TestWorkerLacksTool: an agent whose tool the worker does not have is
// refused by that worker with the tool's name, never run without it.
func TestWorkerLacksTool(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{MaxAttempts: 1})
	bare := *e.runner
	bare.Registry = agents.NewRegistry()
	e.serve(t, &bare, "bare")
	c := e.coordinate(t, false)
	defer c.Close(true)
	res, err := c.Run(t.Context(), item(1))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != blackboard.StatusDegraded || !strings.Contains(res.Reason, "this worker has no tool") || !strings.Contains(res.Reason, "read_file") {
		t.Errorf("result %+v; want degraded naming the missing tool", res)
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Errorf("%d model calls; the job should not have run", n)
	}
}

// TestCancelCancelsJobs pins Ctrl-C on the coordinator: the queued and the
// running jobs are cancelled in River, the delegations are abandoned, and
// nothing is written.
func TestCancelCancelsJobs(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("30s"), Options{})
	e.serve(t, e.runner, "slow") // 4 at once: 4 running, 2 queued
	c := e.coordinate(t, false)
	defer c.Close(false)
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	results := make([]agents.DelegationResult, 6)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], _ = c.Run(ctx, item(i))
		}()
	}
	// All six enqueued and four waiting on the model: the other two stay
	// queued (the worker runs 4 at once). "2 available" alone is no sign
	// of it: it holds for a moment before the worker takes the first jobs.
	for deadline := time.Now().Add(30 * time.Second); totalJobs(e.jobs(t)) < 6 || len(e.srv.Requests()) < 4; {
		if time.Now().After(deadline) {
			t.Fatalf("jobs by state %v, %d model requests; want 6 jobs, 4 running", e.jobs(t), len(e.srv.Requests()))
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	wg.Wait()
	for i, r := range results {
		if !r.Abandoned || r.Ref != "" {
			t.Errorf("%s: %+v; want abandoned without a note", item(i).CallID, r)
		}
	}
	waitJobs(t, e, "cancelled", 6)
	if n := len(e.notesByID(t)); n != 0 {
		t.Errorf("%d notes written; want none", n)
	}
	// Cancelling worked: no notice says it could not.
	for _, ev := range e.events.Events() {
		if ev.Type == agents.EventNotice && strings.Contains(ev.Text, "cancel the job") {
			t.Errorf("notice %q; every cancel succeeded", ev.Text)
		}
	}
}

func totalJobs(byState map[string]int) int {
	n := 0
	for _, c := range byState {
		n += c
	}
	return n
}

// TestCancelWhileEnqueueing: Ctrl-C while delegations are being enqueued
// leaves no job behind to run: every job that made it into the queue is
// cancelled, whether its insert committed before or as the context ended.
// (A job whose insert was reported failed because ctx ended, though it
// committed, was left available, and a worker ran it to completion.)
func TestCancelWhileEnqueueing(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("30s"), Options{})
	c := e.coordinate(t, false)
	defer c.Close(false)
	const rounds, per = 20, 8
	for round := range rounds {
		before := totalJobs(e.jobs(t))
		ctx, cancel := context.WithCancel(t.Context())
		var wg sync.WaitGroup
		results := make([]agents.DelegationResult, per)
		errs := make([]error, per)
		for i := range per {
			wg.Go(func() { results[i], errs[i] = c.Run(ctx, item(round*per+i)) })
		}
		// Cancel as the inserts go on: once the first jobs are in, before
		// the last one is (no worker takes them).
		for deadline := time.Now().Add(30 * time.Second); totalJobs(e.jobs(t)) < before+round%4+1 && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		cancel()
		wg.Wait()
		for i, r := range results {
			if !r.Abandoned || r.Ref != "" || errs[i] != nil {
				t.Errorf("round %d: %s: %+v, %v; want abandoned without a note", round, item(round*per+i).CallID, r, errs[i])
			}
		}
		if byState := e.jobs(t); byState["cancelled"] != totalJobs(byState) {
			t.Fatalf("round %d: jobs by state %v; want every job cancelled", round, byState)
		}
	}
	// Once cancelled, nothing new is enqueued.
	before := e.jobs(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if r, err := c.Run(ctx, item(999)); !r.Abandoned || err != nil {
		t.Errorf("Run after the cancel: %+v, %v; want abandoned", r, err)
	}
	if after := e.jobs(t); totalJobs(after) != totalJobs(before) {
		t.Errorf("Run after the cancel enqueued a job: %v, then %v", before, after)
	}
}

// TestOneCoordinatorPerRun: a second coordinator of a live plan run is
// refused (one writer per board); once the first is gone, --resume
// reattaches to the same run.
func TestOneCoordinatorPerRun(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{})
	c1 := e.coordinate(t, false)
	for _, resume := range []bool{true, false} {
		_, err := e.q.Coordinate(t.Context(), CoordinatorOptions{Runner: e.runner, Board: "b", Plan: "plan.yaml", Digest: "d1", Resume: resume})
		busy(t, fmt.Sprintf("second coordinator (resume %v)", resume), err)
	}
	c1.Close(false)
	c2 := e.coordinate(t, true)
	defer c2.Close(true)
	if c2.RunID() != c1.RunID() {
		t.Errorf("resumed run %s; want %s", c2.RunID(), c1.RunID())
	}
	other, err := e.q.Coordinate(t.Context(), CoordinatorOptions{Runner: e.runner, Board: "b", Plan: "plan.yaml", Digest: "another", Resume: true})
	if err != nil {
		t.Fatalf("a changed plan: %v; want a new run", err)
	}
	defer other.Close(true)
	if other.RunID() == c1.RunID() {
		t.Error("a plan with other delegations reattached to the old run")
	}
	c2.Close(true) // finished: a later --resume starts a new run
	if c3 := e.coordinate(t, true); c3.RunID() == c1.RunID() {
		t.Error("--resume reattached to a finished run")
	}
}

// TestConcurrentOpen: hosts opening a fresh database at once all get it
// migrated, once (migrations are serialised by an advisory lock).
func TestConcurrentOpen(t *testing.T) {
	dsn := pgtest.New(t)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			q, err := Open(t.Context(), Options{DSN: dsn, RescueAfter: time.Hour, MaxAttempts: 1})
			if err != nil {
				t.Errorf("a concurrent Open: %v", err)
				return
			}
			q.Close()
		})
	}
	wg.Wait()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var rows, version int
	if err := conn.QueryRow(t.Context(), `SELECT count(*), max(version) FROM yagent_queue_schema`).Scan(&rows, &version); err != nil || rows != 1 || version != schemaVersion {
		t.Errorf("yagent_queue_schema: %d rows, version %d (%v); want one row at %d", rows, version, err, schemaVersion)
	}
}

// TestStoppingWorkerHandsJobsBack: a worker stopped (Ctrl-C) mid-job hands
// the job back without spending an attempt; another worker runs it and it
// lands once.
func TestStoppingWorkerHandsJobsBack(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("500ms"), Options{MaxAttempts: 1})
	stop := e.serve(t, e.runner, "leaving")
	c := e.coordinate(t, false)
	defer c.Close(true)
	done := make(chan agents.DelegationResult, 1)
	go func() {
		r, _ := c.Run(t.Context(), item(1))
		done <- r
	}()
	for deadline := time.Now().Add(30 * time.Second); len(e.srv.Requests()) < 1 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	e.serve(t, e.runner, "staying")
	r := <-done
	if r.Status != blackboard.StatusOK {
		t.Errorf("result %+v; want ok from the second worker (max_attempts 1: the hand-back spent none)", r)
	}
	if n := len(e.notesByID(t)["item-001"]); n != 1 {
		t.Errorf("%d notes; want 1", n)
	}
}

// TestOpenSettings: rescue_after and max_attempts are checked before any
// connection; the poll interval defaults to 100 ms; every River client
// gets rescue_after as both its job timeout and its rescue delay (River
// rescues only jobs past their timeout), max_attempts, the retry policy
// and a week of completed jobs (--resume collects outputs days later).
func TestOpenSettings(t *testing.T) {
	for _, o := range []Options{{RescueAfter: 0, MaxAttempts: 1}, {RescueAfter: -time.Second, MaxAttempts: 1}, {RescueAfter: time.Hour, MaxAttempts: 0}} {
		o.DSN = "postgres://nobody@127.0.0.1:9/db"
		if q, err := Open(t.Context(), o); err == nil || errors.Is(err, ErrUnreachable) {
			if q != nil {
				q.Close()
			}
			t.Errorf("Open(%+v) = %v; want the setting refused before connecting", o, err)
		}
	}
	q, err := Open(t.Context(), Options{DSN: pgtest.New(t), RescueAfter: 90 * time.Minute, MaxAttempts: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if q.opts.PollInterval != 100*time.Millisecond {
		t.Errorf("poll interval %s; want 100ms by default", q.opts.PollInterval)
	}
	cfg := &river.Config{}
	if _, err := q.client(cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.JobTimeout != 90*time.Minute || cfg.RescueStuckJobsAfter != 90*time.Minute || cfg.MaxAttempts != 4 ||
		cfg.CompletedJobRetentionPeriod != 7*24*time.Hour || cfg.RetryPolicy != (retryPolicy{}) || cfg.Logger == nil {
		t.Errorf("client config: timeout %s, rescue %s, attempts %d, retention %s, retry %T; want 1h30m, 1h30m, 4, 168h, retryPolicy",
			cfg.JobTimeout, cfg.RescueStuckJobsAfter, cfg.MaxAttempts, cfg.CompletedJobRetentionPeriod, cfg.RetryPolicy)
	}
}

// TestDrainingWorker: with Drain, a worker (one job at a time) runs what
// is queued and returns once two looks half a second apart find nothing
// left; the coordinator then lands the finished job. A finished landing
// is recorded without a warning, the worker says how each job ended (and
// completed each at once), and a closed coordinator stops watching the
// queue.
func TestDrainingWorker(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("300ms"), Options{})
	c := e.coordinate(t, false)
	for i := 1; i <= 2; i++ {
		if _, err := c.enqueue(t.Context(), item(i)); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	if err := e.q.Serve(ctx, WorkerOptions{Runner: e.runner, Concurrency: 1, Name: "drain", Drain: true, Events: e.workerEvents}); err != nil {
		t.Fatalf("a draining worker: %v; want nil once the queue is empty", err)
	}
	if jobs := e.jobs(t); jobs["completed"] != 2 || len(jobs) != 1 {
		t.Fatalf("jobs %v after draining; want both completed", jobs)
	}
	for i := 1; i <= 2; i++ {
		if res, err := c.Run(t.Context(), item(i)); err != nil || res.Status != blackboard.StatusOK {
			t.Errorf("Run(%s) = %+v, %v", item(i).CallID, res, err)
		}
	}
	for _, n := range notices(e.events) {
		if strings.Contains(n, "warning") {
			t.Errorf("coordinator notice %q; want no warning", n)
		}
	}
	var ended int
	for _, n := range notices(e.workerEvents) {
		if strings.HasSuffix(n, ": item-001 ok") || strings.HasSuffix(n, ": item-002 ok") {
			ended++
		}
		// Each job is completed at once, by its worker: nothing is left
		// to River's completer.
		if strings.Contains(n, "could not complete it at once") {
			t.Errorf("worker notice %q; want each job completed at once", n)
		}
	}
	if ended != 2 {
		t.Errorf("worker notices %q; want each job's end with its status", notices(e.workerEvents))
	}
	c.Close(true)
	select {
	case <-c.done:
	default:
		t.Error("a closed coordinator still watches the queue")
	}
}

// TestLandedNeverTwice: a delegation recorded as landed whose note is gone
// from the board by the time the run resumes is not run or landed again.
func TestLandedNeverTwice(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{})
	e.serve(t, e.runner, "w1")
	c1 := e.coordinate(t, false)
	res, err := c1.Run(t.Context(), item(1))
	if err != nil || res.Status != blackboard.StatusOK {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	c1.Close(false)
	if err := os.RemoveAll(e.store.BoardDir("b")); err != nil {
		t.Fatal(err)
	}
	c2 := e.coordinate(t, true)
	defer c2.Close(true)
	again, err := c2.Run(t.Context(), item(1))
	if err != nil || again.Ref != res.Ref || again.Status != blackboard.StatusOK || again.Conclusion != "landed earlier in this plan run" {
		t.Errorf("resumed Run = %+v, %v; want the note landed before (%s), not another", again, err, res.Ref)
	}
	if n := len(e.notesByIDIfAny(t)); n != 0 {
		t.Errorf("%d notes on the board; want none written again", n)
	}
	if jobs := e.jobs(t); jobs["completed"] != 1 || len(jobs) != 1 {
		t.Errorf("jobs %v; want the one job, run once", jobs)
	}
}

// TestRunRefusals: a delegation the coordinator cannot prepare (no such
// agent) is an error, not an abandon; a cancelled one is abandoned before
// anything is enqueued.
func TestRunRefusals(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{})
	c := e.coordinate(t, false)
	defer c.Close(true)
	d := item(1)
	d.Agent = "nobody"
	if res, err := c.Run(t.Context(), d); err == nil || res.Abandoned || !strings.Contains(err.Error(), `there is no sub-agent "nobody"`) {
		t.Errorf("Run of an unknown agent = %+v, %v; want the error", res, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if res, err := c.Run(ctx, item(2)); err != nil || !res.Abandoned || res.Reason != "cancelled" {
		t.Errorf("Run with a cancelled context = %+v, %v; want abandoned", res, err)
	}
	if jobs := e.jobs(t); len(jobs) != 0 {
		t.Errorf("jobs %v; want none enqueued", jobs)
	}
}

// TestAbandonedOnWorkerLandsNothing: a delegation a worker abandons (its
// token budget ran out) completes its job with the reason; the coordinator
// abandons it too and writes nothing.
func TestAbandonedOnWorkerLandsNothing(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{})
	tight := *e.runner
	tight.TokenBudget = 1
	e.serve(t, &tight, "tight")
	c := e.coordinate(t, false)
	defer c.Close(true)
	res, err := c.Run(t.Context(), item(1))
	if err != nil || !res.Abandoned || !strings.Contains(res.Reason, "token budget exceeded") || res.Ref != "" {
		t.Errorf("Run = %+v, %v; want abandoned for the token budget, no note", res, err)
	}
	if n := len(e.notesByIDIfAny(t)); n != 0 {
		t.Errorf("%d notes; want none", n)
	}
}

// TestLandingBooksSpend: the coordinator's Recorder books each landed
// delegation: every model response the worker saw, then the result.
func TestLandingBooksSpend(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{})
	e.serve(t, e.runner, "w1")
	var mu sync.Mutex
	var responses int
	var finished []agents.DelegationResult
	booked := *e.runner
	booked.Recorder = func(context.Context, agents.Delegation) (agents.DelegationHooks, error) {
		return agents.DelegationHooks{
			OnResponse: func(r llm.Response) {
				mu.Lock()
				defer mu.Unlock()
				if r.Usage.PromptTokens > 0 {
					responses++
				}
			},
			Finish: func(r agents.DelegationResult) {
				mu.Lock()
				defer mu.Unlock()
				finished = append(finished, r)
			},
		}, nil
	}
	c, err := e.q.Coordinate(t.Context(), CoordinatorOptions{Runner: &booked, Board: "b", Plan: "plan.yaml", Digest: "d1"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(true)
	res, err := c.Run(t.Context(), item(1))
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if responses != len(e.srv.Requests()) || responses == 0 || len(finished) != 1 || finished[0].Ref != res.Ref {
		t.Errorf("booked %d responses (the model answered %d) and %v; want each response, then the result %s once", responses, len(e.srv.Requests()), finished, res.Ref)
	}
}
