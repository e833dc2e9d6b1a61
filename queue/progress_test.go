package queue

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yagent/yagent/agents"
	"github.com/yagent/yagent/blackboard"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

// slowTools is a sub-agent that lists the workspace, globs it and hands
// over, each answer 400 ms after its request.
const slowTools = `name: slow-tools
steps:
  - id: list
    match: {agent: worker, last_role: user}
    latency: 400ms
    reply:
      tool_calls: [{name: list_dir, arguments: {path: "."}}]
  - id: glob
    match: {agent: worker, last_role: tool, after: list}
    latency: 400ms
    reply:
      tool_calls: [{name: glob, arguments: {pattern: "*"}}]
  - id: exit
    match: {agent: worker, last_role: tool, after: glob}
    latency: 400ms
    reply:
      text: "Looked around."
      tool_calls: [{name: agent_exit, arguments: {status: ok, conclusion: "looked around"}}]
`

// TestBackgroundProgress: a background delegation on a worker whose
// sub-agent calls tools slowly. While its job runs, the director's hooks
// are told its steps and last tool, read from the worker's record in
// the queue (never from local hooks: the sub-agent runs on the worker);
// once its note has landed nothing more is told.
func TestBackgroundProgress(t *testing.T) {
	defer func(p time.Duration) { progressPoll = p }(progressPoll)
	progressPoll = 50 * time.Millisecond
	e := newEnv(t, slowTools, Options{})
	e.serve(t, e.runner, "w1")
	type report struct {
		steps int
		tool  string
	}
	var mu sync.Mutex
	var reports []report
	var finished, late bool
	lead := *e.runner
	lead.Recorder = func(context.Context, agents.Delegation) (agents.DelegationHooks, error) {
		return agents.DelegationHooks{
			Progress: func(steps int, tool string) {
				mu.Lock()
				defer mu.Unlock()
				reports = append(reports, report{steps, tool})
				late = late || finished
			},
			Finish: func(agents.DelegationResult) {
				mu.Lock()
				defer mu.Unlock()
				finished = true
			},
		}, nil
	}
	bg := NewBackground(t.Context(), Options{DSN: e.dsn, RescueAfter: time.Hour, MaxAttempts: 2, PollInterval: 20 * time.Millisecond},
		"sess-p", CoordinatorOptions{Runner: &lead, Board: "b", Events: e.events})
	defer bg.Close()
	d := item(1)
	d.Background, d.Stem = true, e.store.NewStem()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	res, err := bg.Run(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != blackboard.StatusOK {
		t.Fatalf("result %s (%s); want ok", res.Status, res.Reason)
	}
	// Nothing more once it landed: give a poller left running time to
	// tell something.
	time.Sleep(10 * progressPoll)
	mu.Lock()
	defer mu.Unlock()
	if !finished || late {
		t.Errorf("finished %t, told of progress after it landed %t; want finished and nothing after (reports %v)", finished, late, reports)
	}
	t.Logf("progress told: %v", reports)
	// Its one attempt was recorded once: token 1 (a second start of the
	// same attempt would have taken token 2).
	var token int64
	var attempt int
	if err := e.q.pool.QueryRow(t.Context(), `SELECT token, attempt FROM yagent_job_attempt`).Scan(&token, &attempt); err != nil || token != 1 || attempt != 1 {
		t.Errorf("the job's attempt row: token %d, attempt %d (%v); want token 1 of attempt 1", token, attempt, err)
	}
	seen := false
	for i, r := range reports {
		if r.steps > 0 && (r.tool == "list_dir" || r.tool == "glob" || r.tool == "agent_exit") {
			seen = true
		}
		if i > 0 && r.steps < reports[i-1].steps {
			t.Errorf("the steps went back: %v", reports)
		}
	}
	if !seen {
		t.Errorf("progress told while it ran: %v; want a step above 0 with its last tool (list_dir, glob or agent_exit)", reports)
	}
}

// TestStaleProgressNotWritten: only the attempt holding the job's token
// records its progress; a stale attempt's write changes nothing and its
// writer stops; a new attempt starts at step 0.
func TestStaleProgressNotWritten(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{})
	ctx := t.Context()
	db := e.q.pool
	runningJob(t, e)
	row := func() string {
		t.Helper()
		var steps int
		var tool string
		if err := db.QueryRow(ctx, `SELECT steps, last_tool FROM yagent_job_attempt WHERE job_id = 1`).Scan(&steps, &tool); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%d %s", steps, tool)
	}
	current := &attempt{q: e.q, job: 1, token: 5}
	if ok, err := current.writeProgress(ctx, 2, "read_file"); !ok || err != nil {
		t.Fatalf("the current attempt's write: %t, %v; want written", ok, err)
	}
	if got := row(); got != "2 read_file" {
		t.Fatalf("progress %q; want \"2 read_file\"", got)
	}
	// Handed over, as the rescue does: the token grows.
	if _, err := db.Exec(ctx, `UPDATE yagent_job_attempt SET token = token + 1 WHERE job_id = 1`); err != nil {
		t.Fatal(err)
	}
	if ok, err := current.writeProgress(ctx, 7, "shell"); ok || err != nil {
		t.Errorf("the stale attempt's write: %t, %v; want not written, no error", ok, err)
	}
	// Its writer too: it stops at its first write.
	p := startProgress(ctx, current, func(s string) { t.Errorf("notice %q; want none", s) })
	p.response()
	p.message(llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{Name: "write_file"}}})
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		t.Error("the stale attempt's writer still runs 10 s after its write")
	}
	p.stop()
	if got := row(); got != "2 read_file" {
		t.Errorf("after the stale attempt's writes the progress is %q; want \"2 read_file\" (the current attempt's)", got)
	}
	if _, err := db.Exec(ctx, `UPDATE river_job SET attempt = 2 WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	if _, err := e.q.startAttempt(ctx, 1, "w:2", 2); err != nil {
		t.Fatal(err)
	}
	if got := row(); got != "0 " {
		t.Errorf("a new attempt's progress is %q; want step 0, no tool", got)
	}
}

// TestWorkersShowProgress: `yagent workers` (Workers, WriteWorkers) and
// the web view's reader (ReadRunning) show each running job's step and
// last tool — its current attempt's, not an earlier one's — and a
// database at schema version 6 gets the progress columns when opened.
func TestWorkersShowProgress(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{})
	ctx := t.Context()
	db := e.q.pool
	// Back to version 6, as an older yagent left it: Open migrates.
	for _, s := range []string{
		`ALTER TABLE yagent_job_attempt DROP COLUMN steps, DROP COLUMN last_tool`,
		`UPDATE yagent_queue_schema SET version = 6`,
	} {
		if _, err := db.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	// The web view reads a database an older yagent migrated.
	if _, err := ReadRunning(ctx, e.dsn, "b"); err != nil {
		t.Errorf("ReadRunning on schema version 6: %v", err)
	}
	q, err := Open(ctx, Options{DSN: e.dsn, RescueAfter: time.Hour, MaxAttempts: 2})
	if err != nil {
		t.Fatal(err)
	}
	q.Close()
	for _, s := range []string{
		`INSERT INTO yagent_worker (id, name, host, pid, started, last_beat, timeout_ms) VALUES
			('w-1', 'host:4242', 'host', 4242, now(), now(), 30000)`,
		`INSERT INTO river_job (id, args, kind, max_attempts, queue, state, attempt, attempted_at, attempted_by) VALUES
			(1, '{"delegation":"item-001","board":"b","run":"r1","agent":{"name":"worker"}}', 'yagent_delegation', 3, 'yagent_delegations', 'running', 1, now(), '{w-1}'),
			(2, '{"delegation":"item-002","board":"b","run":"r1","agent":{"name":"worker"}}', 'yagent_delegation', 3, 'yagent_delegations', 'running', 2, now(), '{w-1}')`,
		// Job 2's row is still its first attempt's: its second has not
		// started its record yet.
		`INSERT INTO yagent_job_attempt (job_id, token, worker, attempt, started, steps, last_tool) VALUES
			(1, 1, 'host:4242', 1, now(), 3, 'read_file'), (2, 1, 'host:4242', 1, now(), 9, 'shell')`,
	} {
		if _, err := db.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	running, err := ReadRunning(ctx, e.dsn, "b")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"item-001": "host:4242 · step 3 · last tool read_file", "item-002": "host:4242 · step 0 · last tool none yet"}
	if fmt.Sprint(running) != fmt.Sprint(want) {
		t.Errorf("ReadRunning = %v; want %v", running, want)
	}
	workers, err := e.q.Workers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := WriteWorkers(&out, workers, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		`(?m)^  job 1: item-001 \(worker\) on board b · attempt 1 of 3 · running \d+s · step 3 · last tool read_file$`,
		`(?m)^  job 2: item-002 \(worker\) on board b · attempt 2 of 3 · running \d+s · step 0 · last tool none yet$`,
	} {
		if !regexp.MustCompile(line).MatchString(out.String()) {
			t.Errorf("yagent workers does not show %s:\n%s", line, out.String())
		}
	}
	// The coordinator's reader of one delegation agrees.
	if _, err := db.Exec(ctx, `INSERT INTO yagent_batch_run (id, board, plan, digest) VALUES ('r1', 'b', 'p', 'd');
		INSERT INTO yagent_batch_job (run_id, delegation, job_id) VALUES ('r1', 'item-001', 1), ('r1', 'item-002', 2)`); err != nil {
		t.Fatal(err)
	}
	c := &Coordinator{q: e.q, run: "r1"}
	for id, want := range map[string]string{"item-001": "3 read_file true", "item-002": "0  false", "item-009": "0  false"} {
		steps, tool, on, err := c.progress(ctx, id)
		if got := fmt.Sprintf("%d %s %t", steps, tool, on); got != want || err != nil {
			t.Errorf("progress of %s = %s (%v); want %s", id, got, err, want)
		}
	}
}

// TestRunningReader: the web view's reader of running jobs exists only
// with a queue, and reads it (an empty board: no jobs, no error).
func TestRunningReader(t *testing.T) {
	if RunningReader("") != nil {
		t.Error("RunningReader without a DSN is not nil: the web view would query no queue")
	}
	e := newEnv(t, llmtest.HandOver("1ms"), Options{})
	r := RunningReader(e.dsn)
	if r == nil {
		t.Fatal("RunningReader with a DSN is nil: the web view would show no worker")
	}
	if got, err := r(t.Context(), "b"); err != nil || len(got) != 0 {
		t.Errorf("read = %v, %v; want no running job", got, err)
	}
}

// TestWorkersSilent: a worker whose last beat is older than its timeout
// is listed silent, the timeout read in milliseconds (`yagent workers`
// says how long it had).
func TestWorkersSilent(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{})
	if _, err := e.q.pool.Exec(t.Context(), `INSERT INTO yagent_worker (id, name, host, pid, started, last_beat, timeout_ms)
		VALUES ('w-old', 'old:1', 'old', 1, now() - interval '1 hour', now() - interval '10 minutes', 2500)`); err != nil {
		t.Fatal(err)
	}
	list, err := e.q.Workers(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || !list[0].Silent || list[0].Timeout != 2500*time.Millisecond {
		t.Fatalf("workers %+v; want old:1 silent with a 2.5s timeout", list)
	}
	var out strings.Builder
	if err := WriteWorkers(&out, list, time.Now()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "silent (over 2.5s: its jobs go to another worker)") {
		t.Errorf("yagent workers printed:\n%s\nwant old:1 silent over 2.5s", out.String())
	}
	var printed strings.Builder
	if err := e.q.PrintWorkers(t.Context(), &printed, time.Now()); err != nil || !strings.Contains(printed.String(), "old:1") {
		t.Errorf("PrintWorkers = %v, printed:\n%s\nwant old:1 listed", err, printed.String())
	}
}

// TestProgressKeepsLastTool: the last tool is the last one an assistant
// message calls; an answer without tool calls (text the loop nudges on)
// and other roles' messages keep it, and each assistant message asks for
// one write.
func TestProgressKeepsLastTool(t *testing.T) {
	p := &progress{wake: make(chan struct{}, 1)}
	steps := []struct {
		m    llm.Message
		tool string
	}{
		{llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{Name: "read_file"}, {Name: "glob"}}}, "glob"},
		{llm.Message{Role: llm.RoleTool, ToolCalls: []llm.ToolCall{{Name: "shell"}}}, "glob"},
		{llm.Message{Role: llm.RoleAssistant, Content: "I will write the note now."}, "glob"},
		{llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{Name: "agent_exit"}}}, "agent_exit"},
	}
	for i, s := range steps {
		p.message(s.m)
		if p.tool != s.tool {
			t.Errorf("after message %d (%s) the last tool is %q; want %q", i, s.m.Role, p.tool, s.tool)
		}
		woken := len(p.wake) == 1
		if want := s.m.Role == llm.RoleAssistant; woken != want {
			t.Errorf("after message %d (%s) a write is asked: %t; want %t", i, s.m.Role, woken, want)
		}
		select {
		case <-p.wake:
		default:
		}
	}
}

// TestProgressWrittenPerStep: the writer records each step, also a step
// that calls the same tool as the last one, and a new last tool without a
// new step.
func TestProgressWrittenPerStep(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{})
	ctx := t.Context()
	runningJob(t, e)
	p := startProgress(ctx, &attempt{q: e.q, job: 1, token: 5}, func(s string) { t.Errorf("notice %q; want none", s) })
	defer p.stop()
	for step, want := range []string{"1 read_file", "2 read_file", "3 glob", "3 shell"} {
		if step < 3 { // the last: an assistant message without a response of its own
			p.response()
		}
		p.message(llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{Name: strings.Fields(want)[1]}}})
		if got := waitProgress(t, e, want); got != want {
			t.Fatalf("after step %d the progress is %q; want %q", step+1, got, want)
		}
	}
}

// TestProgressFailures: a write that fails is told once while writes keep
// failing, again after one succeeded in between, and the job runs on; a
// write cut short by the writer's end is no failure to tell.
func TestProgressFailures(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{})
	ctx := t.Context()
	db := e.q.pool
	exec := func(s string) {
		t.Helper()
		if _, err := db.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	runningJob(t, e)
	att := &attempt{q: e.q, job: 1, token: 5}
	notices := make(chan string, 10)
	p := startProgress(ctx, att, func(s string) { notices <- s })
	defer p.stop()
	step := func(tool string) {
		p.response()
		p.message(llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{Name: tool}}})
	}
	told := func(what string) {
		t.Helper()
		select {
		case s := <-notices:
			if !strings.Contains(s, "could not record its progress ("+what+")") || !strings.Contains(s, "the job runs on") {
				t.Errorf("notice %q; want it to say the progress of %s was not recorded and the job runs on", s, what)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("no notice 30 s after the write of %s failed", what)
		}
	}
	quiet := func(what string) {
		t.Helper()
		select {
		case s := <-notices:
			t.Errorf("%s: notice %q; want none", what, s)
		case <-time.After(300 * time.Millisecond):
		}
	}
	written := func(want string) {
		t.Helper()
		if got := waitProgress(t, e, want); got != want {
			t.Fatalf("the progress is %q; want %q", got, want)
		}
	}
	exec(`ALTER TABLE yagent_job_attempt RENAME COLUMN last_tool TO gone`) // every write fails
	step("read_file")
	told("step 1")
	step("glob")
	quiet("a second failing write")
	exec(`ALTER TABLE yagent_job_attempt RENAME COLUMN gone TO last_tool`)
	step("shell")
	written("3 shell")
	exec(`ALTER TABLE yagent_job_attempt RENAME COLUMN last_tool TO gone`)
	step("write_file")
	told("step 4")
	exec(`ALTER TABLE yagent_job_attempt RENAME COLUMN gone TO last_tool`)

	// A write under way when the writer ends fails with its context: the
	// writer returns without a word. (Its select picks the wake or the end
	// at random: twenty tries.)
	for i := range 20 {
		q := &progress{att: att, notice: func(s string) { t.Errorf("try %d: notice %q; want none", i, s) }, wake: make(chan struct{}, 1), done: make(chan struct{})}
		wctx, cancel := context.WithCancel(ctx)
		q.cancel = cancel
		q.steps, q.tool = 9, "late"
		q.wake <- struct{}{}
		cancel()
		q.write(wctx)
	}
}

// TestProgressReads: the director's reader tells each change of a running
// job's step or last tool once, nothing of a job that ended; a read that
// fails is told once per run of failures; a read cut short by stop is no
// failure to tell.
func TestProgressReads(t *testing.T) {
	defer func(p time.Duration) { progressPoll = p }(progressPoll)
	progressPoll = 5 * time.Millisecond
	e := newEnv(t, llmtest.HandOver("1ms"), Options{})
	ctx := t.Context()
	exec := func(s string, args ...any) {
		t.Helper()
		if _, err := e.q.pool.Exec(ctx, s, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`INSERT INTO yagent_batch_run (id, board, plan, digest) VALUES ('r', 'b', 'session s', 'session:s')`)
	exec(`INSERT INTO yagent_batch_job (run_id, delegation, job_id) VALUES ('r', 's1', 1)`)
	runningJob(t, e)
	var mu sync.Mutex
	var reports []string
	b := &Background{ctx: ctx, hooks: map[string]agents.DelegationHooks{"s1": {Progress: func(steps int, tool string) {
		mu.Lock()
		defer mu.Unlock()
		reports = append(reports, fmt.Sprintf("%d %s", steps, tool))
	}}}}
	events := &agents.Recorder{}
	c := &Coordinator{q: e.q, run: "r", opts: CoordinatorOptions{Events: events}}
	notices := func(events *agents.Recorder) (n int) {
		for _, ev := range events.Events() {
			if ev.Type == agents.EventNotice {
				n++
			}
		}
		return n
	}
	told := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(reports)
	}
	set := func(steps int, tool string) {
		t.Helper()
		exec(`UPDATE yagent_job_attempt SET steps = $1, last_tool = $2 WHERE job_id = 1`, steps, tool)
	}
	// waitFor waits until ok holds (30 s at most), then for 20 more
	// reads, and says what it found.
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); !ok() && time.Now().Before(deadline); time.Sleep(progressPoll) {
		}
		time.Sleep(20 * progressPoll)
		if !ok() {
			r := told()
			t.Fatalf("%s: %d reports, the last %q; %d notices", what, len(r), r[max(0, len(r)-5):], notices(events))
		}
	}
	stop := b.watchProgress(c, "s1")
	set(1, "read_file")
	waitFor("a first step", func() bool { return slices.Equal(told(), []string{"1 read_file"}) })
	set(1, "glob")
	waitFor("a new tool", func() bool { return slices.Equal(told(), []string{"1 read_file", "1 glob"}) })
	set(2, "glob")
	waitFor("a new step", func() bool { return slices.Equal(told(), []string{"1 read_file", "1 glob", "2 glob"}) })
	exec(`UPDATE river_job SET state = 'completed', finalized_at = now() WHERE id = 1`)
	set(3, "shell")
	waitFor("a job that ended", func() bool { return len(told()) == 3 })
	exec(`UPDATE river_job SET state = 'running', finalized_at = NULL WHERE id = 1`)

	exec(`ALTER TABLE yagent_job_attempt RENAME COLUMN steps TO gone`) // every read fails
	waitFor("reads failing", func() bool { return notices(events) == 1 })
	exec(`ALTER TABLE yagent_job_attempt RENAME COLUMN gone TO steps`) // read, changed
	waitFor("read again", func() bool { return len(told()) == 4 && told()[3] == "3 shell" })
	exec(`ALTER TABLE yagent_job_attempt RENAME COLUMN steps TO gone`)
	waitFor("reads failing after one read", func() bool { return notices(events) == 2 })
	exec(`ALTER TABLE yagent_job_attempt RENAME COLUMN gone TO steps`) // read, unchanged
	waitFor("read again, nothing new", func() bool { return len(told()) == 4 })
	exec(`ALTER TABLE yagent_job_attempt RENAME COLUMN steps TO gone`)
	waitFor("reads failing after a read of nothing new", func() bool { return notices(events) == 3 })
	exec(`ALTER TABLE yagent_job_attempt RENAME COLUMN gone TO steps`)
	stop()
	if s := told(); len(s) != 4 {
		t.Errorf("reports %q; want 4", s)
	}
	if n := notices(events); n != 3 {
		t.Errorf("%d notices; want 3: %v", n, events.Events())
	}

	// Stopped while it reads (a read every 5 ms): nothing to tell.
	for i := range 20 {
		quiet := &agents.Recorder{}
		stop := b.watchProgress(&Coordinator{q: e.q, run: "r", opts: CoordinatorOptions{Events: quiet}}, "s1")
		time.Sleep(time.Duration(i) * time.Millisecond)
		stop()
		if n := notices(quiet); n != 0 {
			t.Fatalf("try %d: %d notices after stop; want none: %v", i, n, quiet.Events())
		}
	}
}

// TestWriteWorkers: what `yagent workers` prints, to the tenth of a second
// since a worker's last beat and the second a job has run; control bytes
// of names a worker wrote are not printed.
func TestWriteWorkers(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	started := now.Add(-time.Hour)
	workers := []WorkerInfo{
		{Name: "box:12", Started: started, LastBeat: now.Add(-1234567891 * time.Nanosecond), Timeout: 30 * time.Second, Jobs: []RunningJob{
			{ID: 7, Delegation: "call_1", Agent: "explorer\x1b[2J", Board: "b", Attempt: 1, MaxAttempts: 3, Attempted: now.Add(-61600 * time.Millisecond), Steps: 4, LastTool: "read_file"},
		}},
		{Name: "old:1", Started: started, LastBeat: now.Add(-10 * time.Minute), Timeout: 2500 * time.Millisecond, Silent: true},
	}
	var out strings.Builder
	if err := WriteWorkers(&out, workers, now); err != nil {
		t.Fatal(err)
	}
	at := started.Local().Format("2006-01-02 15:04:05")
	want := "WORKER  STARTED              LAST BEAT  STATE                                              JOBS\n" +
		"box:12  " + at + "  1.2s ago   live                                               1\n" +
		"  job 7: call_1 (explorer␛[2J) on board b · attempt 1 of 3 · running 1m2s · step 4 · last tool read_file\n" +
		"old:1   " + at + "  10m0s ago  silent (over 2.5s: its jobs go to another worker)  0\n"
	if got := out.String(); got != want {
		t.Errorf("yagent workers printed:\n%s\nwant:\n%s", got, want)
	}
}

// runningJob makes job 1 running at its first attempt, recorded with
// token 5 by worker w:1 (no worker runs it).
func runningJob(t *testing.T, e *env) {
	t.Helper()
	for _, s := range []string{
		`INSERT INTO river_job (id, args, kind, max_attempts, queue, state, attempt, attempted_at) VALUES
			(1, '{}', 'yagent_delegation', 3, 'yagent_delegations', 'running', 1, now())`,
		`INSERT INTO yagent_job_attempt (job_id, token, worker, attempt, started) VALUES (1, 5, 'w:1', 1, now())`,
	} {
		if _, err := e.q.pool.Exec(t.Context(), s); err != nil {
			t.Fatal(err)
		}
	}
}

// waitProgress waits (30 s at most) until job 1's recorded progress reads
// want ("steps tool") and returns the last it read.
func waitProgress(t *testing.T, e *env, want string) string {
	t.Helper()
	var got string
	for deadline := time.Now().Add(30 * time.Second); got != want && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var steps int
		var tool string
		if err := e.q.pool.QueryRow(t.Context(), `SELECT steps, last_tool FROM yagent_job_attempt WHERE job_id = 1`).Scan(&steps, &tool); err != nil {
			t.Fatal(err)
		}
		got = fmt.Sprintf("%d %s", steps, tool)
	}
	return got
}
