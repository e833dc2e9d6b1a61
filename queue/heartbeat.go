package queue

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/yagent/yagent/internal/lease"
)

// DefaultWorkerTimeout is how long a worker may miss its heartbeats before
// its running jobs go to another worker (queue.worker_timeout).
const DefaultWorkerTimeout = 30 * time.Second

// errStale: this attempt is no longer the job's current one (its worker
// missed its heartbeats and the job went to another worker); nothing it
// did counts.
var errStale = errors.New("this attempt was handed to another worker")

// heartbeat is a worker's row in yagent_worker, beaten every sixth of
// its timeout. Each beat also hands the running jobs of workers silent
// for longer than their own timeout to the others (rescue).
type heartbeat struct {
	q       *Queue
	id      string // the River client's id (river_job.attempted_by)
	timeout time.Duration
	keeper  *lease.Keeper
	notice  func(string)

	mu      sync.Mutex
	jobs    map[int64]bool
	failing bool // the last beat failed (said once)
}

// startHeartbeat writes the worker's row and keeps beating it until stop.
func (q *Queue) startHeartbeat(ctx context.Context, id, name string, notice func(string)) (*heartbeat, error) {
	host, _ := os.Hostname()
	h := &heartbeat{q: q, id: id, timeout: q.opts.WorkerTimeout, notice: notice, jobs: map[int64]bool{}}
	sent := time.Now()
	if _, err := q.pool.Exec(ctx, `INSERT INTO yagent_worker (id, name, host, pid, started, last_beat, timeout_ms)
		VALUES ($1, $2, $3, $4, now(), now(), $5)`, id, name, host, os.Getpid(), h.timeout.Milliseconds()); err != nil {
		return nil, fmt.Errorf("queue %s: write the heartbeat of worker %s: %w", q.addr, name, scrub(err, q.opts.DSN))
	}
	h.keeper = lease.Keep(ctx, sent, lease.Options{
		Duration: h.timeout,
		Renew:    h.beat,
		End: func(ctx context.Context) {
			_, _ = q.pool.Exec(ctx, `DELETE FROM yagent_worker WHERE id = $1`, id)
		},
	})
	return h, nil
}

// beat writes the worker's heartbeat and its running jobs, then rescues
// the jobs of silent workers.
func (h *heartbeat) beat(ctx context.Context) (bool, error) {
	err := h.beatOnce(ctx)
	h.mu.Lock()
	say := err != nil && !h.failing
	h.failing = err != nil
	h.mu.Unlock()
	if say {
		h.notice(fmt.Sprintf("worker heartbeat on %s failed: %v (retried every %s; past queue.worker_timeout %s another worker takes this one's jobs)",
			h.q.addr, scrub(err, h.q.opts.DSN), h.timeout/6, h.timeout))
	}
	return true, err
}

func (h *heartbeat) beatOnce(ctx context.Context) error {
	h.mu.Lock()
	jobs := make([]int64, 0, len(h.jobs))
	for id := range h.jobs {
		jobs = append(jobs, id)
	}
	h.mu.Unlock()
	slices.Sort(jobs)
	if _, err := h.q.live.Exec(ctx, `UPDATE yagent_worker SET last_beat = now(), jobs = $2 WHERE id = $1`, h.id, jobs); err != nil {
		return err
	}
	rescued, err := h.q.rescueSilent(ctx)
	for _, r := range rescued {
		h.notice(r)
	}
	return err
}

func (h *heartbeat) running(job int64, on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if on {
		h.jobs[job] = true
	} else {
		delete(h.jobs, job)
	}
}

// stop ends the heartbeat and deletes the worker's row.
func (h *heartbeat) stop() { h.keeper.Stop() }

// rescueSilent hands each running job of a worker whose last heartbeat is
// older than its timeout to another worker at once: the job is available
// again with an attempt error naming the worker (discarded when it was
// the last attempt, River's rule), and its fencing token grows, so the
// silent worker's attempt, should it wake, can complete, fail or return
// nothing. Rows of workers silent for a day are removed. It returns a
// line per job handed over.
func (q *Queue) rescueSilent(ctx context.Context) ([]string, error) {
	rows, err := q.pool.Query(ctx, `WITH silent AS (
			SELECT j.id, w.name, w.timeout_ms FROM river_job j
			JOIN yagent_worker w ON w.id = j.attempted_by[array_length(j.attempted_by, 1)]
			WHERE j.state = 'running' AND j.queue = $1
				AND w.last_beat < now() - w.timeout_ms * interval '1 millisecond'
			FOR UPDATE OF j SKIP LOCKED
		), rescued AS (
			UPDATE river_job j SET
				state = CASE WHEN j.attempt >= j.max_attempts THEN 'discarded'::river_job_state ELSE 'available'::river_job_state END,
				finalized_at = CASE WHEN j.attempt >= j.max_attempts THEN now() END,
				scheduled_at = now(),
				errors = array_append(j.errors, jsonb_build_object('at', now(), 'attempt', j.attempt, 'trace', '',
					'error', format('worker %s missed its heartbeats for %ss (queue.worker_timeout); the job was handed to another worker',
						s.name, round(s.timeout_ms / 1000.0, 1))))
			FROM silent s WHERE j.id = s.id
			RETURNING j.id, j.attempt, j.max_attempts, s.name, j.args->>'delegation' AS delegation
		), fenced AS (
			UPDATE yagent_job_attempt a SET token = a.token + 1 FROM rescued r WHERE a.job_id = r.id
		)
		SELECT id, attempt, max_attempts, name, coalesce(delegation, '') FROM rescued`, QueueName)
	if err != nil {
		return nil, err
	}
	var lines []string
	for rows.Next() {
		var (
			id                 int64
			attempt, maxTries  int
			worker, delegation string
		)
		if err := rows.Scan(&id, &attempt, &maxTries, &worker, &delegation); err != nil {
			return nil, err
		}
		what := "handed to another worker"
		if attempt >= maxTries {
			what = "discarded (its last attempt)"
		}
		lines = append(lines, fmt.Sprintf("job %d: %s: worker %s missed its heartbeats; attempt %d of %d %s", id, delegation, worker, attempt, maxTries, what))
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	_, err = q.pool.Exec(ctx, `DELETE FROM yagent_worker WHERE last_beat < now() - interval '1 day'`)
	return lines, err
}

// attempt is one attempt of a job on this worker, fenced by its token.
type attempt struct {
	q     *Queue
	job   int64
	token int64
}

// startAttempt records the job's new attempt on this worker and returns
// it with its token (one more than any earlier attempt's), only while the
// job is still running at River's attempt n: a worker slow to get here
// (seen at load 26: its heartbeats late too) may find the job handed to
// another worker, whose token it must not take (errStale). The job's
// row is locked first, as the rescue and fence do.
func (q *Queue) startAttempt(ctx context.Context, job int64, worker string, n int) (*attempt, error) {
	a := &attempt{q: q, job: job}
	wrap := func(err error) error {
		return fmt.Errorf("record attempt %d of job %d: %w", n, job, scrub(err, q.opts.DSN))
	}
	tx, err := q.pool.Begin(ctx)
	if err != nil {
		return nil, wrap(err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var one int
	err = tx.QueryRow(ctx, `SELECT 1 FROM river_job WHERE id = $1 AND state = 'running' AND attempt = $2 FOR UPDATE`, job, n).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("job %d attempt %d: %w", job, n, errStale)
	}
	if err != nil {
		return nil, wrap(err)
	}
	err = tx.QueryRow(ctx, `INSERT INTO yagent_job_attempt AS a (job_id, token, worker, attempt, started) VALUES ($1, 1, $2, $3, now())
		ON CONFLICT (job_id) DO UPDATE SET token = a.token + 1, worker = excluded.worker, attempt = excluded.attempt, started = excluded.started,
			steps = 0, last_tool = ''
		RETURNING token`, job, worker, n).Scan(&a.token)
	if err != nil {
		return nil, wrap(err)
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, wrap(err)
	}
	return a, nil
}

// check returns errStale when another attempt holds the job's token now.
// A database that does not answer is not a stale attempt: the check
// before landing (complete) decides then.
func (a *attempt) check(ctx context.Context) error {
	var token int64
	err := a.q.pool.QueryRow(ctx, `SELECT token FROM yagent_job_attempt WHERE job_id = $1`, a.job).Scan(&token)
	switch {
	case errors.Is(err, pgx.ErrNoRows) || err == nil && token != a.token:
		return fmt.Errorf("job %d: %w", a.job, errStale)
	case err != nil:
		return nil
	}
	return nil
}

// fence locks the job's River row, then its attempt row, inside tx (the
// rescue's order), and fails with errStale unless this attempt holds the
// token.
func (a *attempt) fence(ctx context.Context, tx pgx.Tx) error {
	var one int
	if err := tx.QueryRow(ctx, `SELECT 1 FROM river_job WHERE id = $1 AND state = 'running' FOR UPDATE`, a.job).Scan(&one); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("job %d: %w", a.job, errStale)
		}
		return err
	}
	var token int64
	err := tx.QueryRow(ctx, `SELECT token FROM yagent_job_attempt WHERE job_id = $1 FOR UPDATE`, a.job).Scan(&token)
	if errors.Is(err, pgx.ErrNoRows) || err == nil && token != a.token {
		return fmt.Errorf("job %d: %w", a.job, errStale)
	}
	return err
}

// park holds a stale attempt until its job is finalized (by the attempt
// that holds it now) or the worker stops: River writes the outcome of a
// job that returns where the job is 'running' whatever its attempt, so
// a stale attempt must not return while another runs the job. quit
// closes when the worker is gone.
func (q *Queue) park(job int64, quit <-chan struct{}) {
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		var final bool
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := q.pool.QueryRow(ctx, `SELECT finalized_at IS NOT NULL FROM river_job WHERE id = $1`, job).Scan(&final)
		cancel()
		if errors.Is(err, pgx.ErrNoRows) || err == nil && final {
			return
		}
		select {
		case <-quit:
			<-make(chan struct{}) // the process exits; nothing is written
		case <-t.C:
		}
	}
}
