package queue

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
	"github.com/yagent/yagent/llm/llmtest"
)

// TestRiverCannotEndAnotherAttempt: River's write of an attempt's end (a
// failure here, as its completer sends it after Work returns) does not
// touch the job once another worker's attempt runs it (River's attempt
// count moved on); at the attempt this process worked it applies, and a
// job this process never worked passes unchanged.
func TestRiverCannotEndAnotherAttempt(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{})
	ctx := t.Context()
	db := e.q.pool
	if _, err := db.Exec(ctx, `INSERT INTO river_job (id, args, kind, max_attempts, queue, state, attempt, attempted_at, attempted_by) VALUES
		(1, '{"delegation":"item-001"}', 'yagent_delegation', 3, 'yagent_delegations', 'running', 2, now(), '{frozen,other}'),
		(2, '{"delegation":"item-002"}', 'yagent_delegation', 3, 'yagent_delegations', 'running', 1, now(), '{other}')`); err != nil {
		t.Fatal(err)
	}
	pilot := e.q.driver.pilot
	fail := func(id int64) {
		t.Helper()
		at := time.Now()
		params := &riverdriver.JobSetStateIfRunningManyParams{
			ID: []int64{id}, Attempt: []*int{nil}, ErrData: [][]byte{[]byte(`{"at":"2026-12-02T00:00:00Z","attempt":1,"error":"model said 500","trace":""}`)},
			FinalizedAt: []*time.Time{nil}, MetadataDoMerge: []bool{false}, MetadataUpdates: [][]byte{nil},
			ScheduledAt: []*time.Time{&at}, State: []rivertype.JobState{rivertype.JobStateRetryable},
		}
		if _, err := pilot.JobSetStateIfRunningMany(ctx, e.q.driver.GetExecutor(), params); err != nil {
			t.Fatal(err)
		}
	}
	state := func(id int64) (string, int) {
		t.Helper()
		var (
			s    string
			errs int
		)
		if err := db.QueryRow(ctx, `SELECT state, coalesce(array_length(errors, 1), 0) FROM river_job WHERE id = $1`, id).Scan(&s, &errs); err != nil {
			t.Fatal(err)
		}
		return s, errs
	}

	pilot.working(1, 1) // this process worked attempt 1; another worker runs attempt 2
	fail(1)
	if s, errs := state(1); s != "running" || errs != 0 {
		t.Errorf("a stale attempt's failure left job 1 %s with %d errors; want it running, untouched", s, errs)
	}
	pilot.working(1, 2)
	fail(1)
	if s, errs := state(1); s != "retryable" || errs != 1 {
		t.Errorf("the current attempt's failure left job 1 %s with %d errors; want retryable with 1", s, errs)
	}
	fail(2) // never worked here: River's write as is
	if s, errs := state(2); s != "retryable" || errs != 1 {
		t.Errorf("job 2, not worked here, is %s with %d errors; want retryable with 1", s, errs)
	}
	if len(pilot.worked) != 0 {
		t.Errorf("attempts still remembered after their end was written: %v", pilot.worked)
	}
}

// TestWithoutJobsKeepsColumnsAligned: dropping a job's state change drops
// it from every per-job column of River's parameters, whatever columns a
// River upgrade adds (a column left unfiltered would shift every job
// after the dropped one onto its neighbour's values).
func TestWithoutJobsKeepsColumnsAligned(t *testing.T) {
	in := &riverdriver.JobSetStateIfRunningManyParams{}
	v := reflect.ValueOf(in).Elem()
	ids := []int64{10, 20, 30}
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Kind() != reflect.Slice {
			continue
		}
		s := reflect.MakeSlice(f.Type(), len(ids), len(ids))
		for j := range ids {
			s.Index(j).Set(distinct(t, f.Type().Elem(), j))
		}
		f.Set(s)
	}
	in.ID = ids
	out := withoutJobs(in, map[int64]bool{20: true})
	o := reflect.ValueOf(out).Elem()
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		if v.Field(i).Kind() != reflect.Slice {
			if !reflect.DeepEqual(o.Field(i).Interface(), v.Field(i).Interface()) {
				t.Errorf("%s not carried over", name)
			}
			continue
		}
		got := o.Field(i)
		if got.Len() != 2 {
			t.Errorf("%s has %d values after dropping one of three jobs; want 2 (is it filtered in withoutJobs?)", name, got.Len())
			continue
		}
		for k, j := range []int{0, 2} {
			if !reflect.DeepEqual(got.Index(k).Interface(), v.Field(i).Index(j).Interface()) {
				t.Errorf("%s[%d] is not job %d's value", name, k, ids[j])
			}
		}
	}
}

// distinct returns a value of type typ that differs for each j.
func distinct(t *testing.T, typ reflect.Type, j int) reflect.Value {
	t.Helper()
	switch {
	case typ == reflect.TypeFor[int64]():
		return reflect.ValueOf(int64(j))
	case typ == reflect.TypeFor[*int]():
		n := j
		return reflect.ValueOf(&n)
	case typ == reflect.TypeFor[[]byte]():
		return reflect.ValueOf([]byte{byte(j)})
	case typ == reflect.TypeFor[*time.Time]():
		at := time.Unix(int64(j), 0)
		return reflect.ValueOf(&at)
	case typ == reflect.TypeFor[bool]():
		return reflect.ValueOf(j%2 == 1)
	case typ == reflect.TypeFor[rivertype.JobState]():
		return reflect.ValueOf([]rivertype.JobState{rivertype.JobStateRetryable, rivertype.JobStateCompleted, rivertype.JobStateDiscarded}[j])
	}
	t.Fatalf("no distinct values for %s: teach distinct the new column's type", typ)
	return reflect.Value{}
}

// TestWorkFencesEveryEnd: Work puts the job's attempt under the fence
// before its first return (a job fetched while the worker holds off is
// snoozed at once), so no end of a Work is written unfenced.
func TestWorkFencesEveryEnd(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{})
	w := &delegationWorker{q: e.q}
	w.hold.hold(time.Now(), time.Minute, "m refused")
	job := &river.Job[JobArgs]{JobRow: &rivertype.JobRow{ID: 7, Attempt: 3}}
	if err := w.Work(t.Context(), job); err == nil {
		t.Fatal("a job fetched while holding off was worked; want it snoozed")
	}
	if n, ok := e.q.driver.pilot.worked[7]; !ok || n != 3 {
		t.Errorf("Work returned with job 7 fenced at attempt %d (%v); want attempt 3", n, ok)
	}
}

// TestStartAttemptAfterHandOver: a worker that reaches its attempt's start
// after the job went to another worker (seen at load 26: Work started, its
// first database call and its heartbeats late) takes no token — the other
// worker's stays — and its attempt is stale; nor does it take a job handed
// over and not fetched again. At the job's current attempt it starts.
func TestStartAttemptAfterHandOver(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{})
	ctx := t.Context()
	db := e.q.pool
	if _, err := db.Exec(ctx, `INSERT INTO river_job (id, args, kind, max_attempts, queue, state, attempt, attempted_at, attempted_by) VALUES
		(1, '{"delegation":"item-001"}', 'yagent_delegation', 3, 'yagent_delegations', 'running', 2, now(), '{slow,other}'),
		(2, '{"delegation":"item-002"}', 'yagent_delegation', 3, 'yagent_delegations', 'available', 1, now(), '{slow}')`); err != nil {
		t.Fatal(err)
	}
	other, err := e.q.startAttempt(ctx, 1, "other", 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		job int64
		n   int
	}{{1, 1}, {2, 1}} {
		if a, err := e.q.startAttempt(ctx, c.job, "slow", c.n); !errors.Is(err, errStale) {
			t.Errorf("job %d: the slow worker's attempt %d started (%+v, %v); want it stale", c.job, c.n, a, err)
		}
	}
	if err := other.check(ctx); err != nil {
		t.Errorf("the current attempt lost its token to a slow worker: %v", err)
	}
}

// TestHeldOutput: a stale attempt records, as its own output, the output
// its job's row holds now — the later attempt's, which River would
// otherwise overwrite when this process worked that attempt too (its
// fence then lets the stale end's merge through) — and JSON null when
// the row holds none.
func TestHeldOutput(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{})
	if _, err := e.q.pool.Exec(t.Context(), `INSERT INTO river_job (id, args, kind, max_attempts, queue, state, attempt, finalized_at, metadata) VALUES
		(1, '{}', 'yagent_delegation', 3, 'yagent_delegations', 'completed', 2, now(), '{"output": {"worker": "w2", "body": "the later attempt''s"}}'),
		(2, '{}', 'yagent_delegation', 3, 'yagent_delegations', 'running', 1, NULL, '{}')`); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		job  int64
		want string
	}{
		{1, `{"body": "the later attempt's", "worker": "w2"}`},
		{2, `null`},
		{3, `null`}, // no such job
	} {
		if got := string(e.q.heldOutput(t.Context(), tc.job)); got != tc.want {
			t.Errorf("heldOutput(job %d) = %s; want %s", tc.job, got, tc.want)
		}
	}
}

// TestCompleteSaysStale: the completion of an attempt that lost its job's
// token (the job went to another worker between the run's last check and
// the completion) is errStale, so Work drops its outcome instead of
// completing the job the other worker runs. (Outside a River worker the
// completion itself cannot run: the state of the job shows nothing here.)
func TestCompleteSaysStale(t *testing.T) {
	e := newEnv(t, llmtest.HandOver("1ms"), Options{})
	ctx := t.Context()
	for _, s := range []string{
		`INSERT INTO river_job (id, args, kind, max_attempts, queue, state, attempt, attempted_at) VALUES
			(1, '{}', 'yagent_delegation', 3, 'yagent_delegations', 'running', 2, now())`,
		`INSERT INTO yagent_job_attempt (job_id, token, worker, attempt, started) VALUES (1, 6, 'w:2', 2, now())`,
	} {
		if _, err := e.q.pool.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	w := &delegationWorker{q: e.q}
	job := &river.Job[JobArgs]{JobRow: &rivertype.JobRow{ID: 1, Attempt: 1, State: rivertype.JobStateRunning}}
	if err := w.complete(ctx, job, &attempt{q: e.q, job: 1, token: 5}); !errors.Is(err, errStale) {
		t.Errorf("complete of a stale attempt = %v; want errStale", err)
	}
}
