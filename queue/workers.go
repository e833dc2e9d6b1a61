package queue

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/yagent/yagent/internal/termsafe"
)

// WorkerName names this process as a worker: host:pid.
func WorkerName() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s:%d", host, os.Getpid())
}

// WorkerInfo is a worker's heartbeat row and the jobs it runs.
type WorkerInfo struct {
	Name, Host string
	PID        int
	Started    time.Time
	LastBeat   time.Time
	Timeout    time.Duration
	// Silent: its last beat is older than its timeout (its jobs are
	// handed over at the next beat of another worker).
	Silent bool
	Jobs   []RunningJob
}

// RunningJob is a job of the queue running now, and on which worker.
type RunningJob struct {
	ID                   int64
	Run, Delegation      string
	Board, Agent         string
	Attempt, MaxAttempts int
	// Worker is the worker's name (host:pid), "" when it has no heartbeat.
	Worker    string
	Attempted time.Time
	// Steps and LastTool are the attempt's progress as its worker
	// recorded it (model responses so far; "" before its first tool).
	Steps    int
	LastTool string
}

// Progress says how far j's attempt is: "step 3 · last tool read_file".
func (j RunningJob) Progress() string {
	tool := "none yet"
	if j.LastTool != "" {
		tool = termsafe.Line(j.LastTool)
	}
	return fmt.Sprintf("step %d · last tool %s", j.Steps, tool)
}

// RunningJobs returns the queue's running jobs, of board only unless it
// is "", oldest first, each with the worker that runs it.
func (q *Queue) RunningJobs(ctx context.Context, board string) ([]RunningJob, error) {
	jobs, err := runningJobs(ctx, q.pool, board)
	if err != nil {
		return nil, fmt.Errorf("queue %s: list the running jobs: %w", q.addr, scrub(err, q.opts.DSN))
	}
	return jobs, nil
}

// RunningReader returns ReadRunning over dsn, nil when dsn is "" (no
// queue: batches run in-process).
func RunningReader(dsn string) func(ctx context.Context, board string) (map[string]string, error) {
	if dsn == "" {
		return nil
	}
	return func(ctx context.Context, board string) (map[string]string, error) {
		return ReadRunning(ctx, dsn, board)
	}
}

// ReadRunning returns the workers running board's delegations now, by
// delegation id, each with its attempt's progress ("host:4242 · step 3 ·
// last tool read_file"), reading the queue at dsn without migrating
// anything (the web view writes nothing).
func ReadRunning(ctx context.Context, dsn, board string) (map[string]string, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, scrub(err, dsn)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	jobs, err := runningJobs(ctx, conn, board)
	if err != nil {
		return nil, scrub(err, dsn)
	}
	m := make(map[string]string, len(jobs))
	for _, j := range jobs {
		m[j.Delegation] = j.Worker
		if j.Worker != "" {
			m[j.Delegation] += " · " + j.Progress()
		}
	}
	return m, nil
}

// runningJobs reads the running jobs with their attempt's progress; the
// progress is read through to_jsonb, so a database an older yagent
// migrated (no progress columns: ReadRunning migrates nothing) shows
// step 0.
func runningJobs(ctx context.Context, db interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}, board string) ([]RunningJob, error) {
	rows, err := db.Query(ctx, `SELECT j.id, coalesce(j.args->>'run', ''), coalesce(j.args->>'delegation', ''),
			coalesce(j.args->>'board', ''), coalesce(j.args#>>'{agent,name}', ''), j.attempt, j.max_attempts,
			coalesce(w.name, ''), coalesce(j.attempted_at, j.created_at),
			coalesce((to_jsonb(a)->>'steps')::int, 0), coalesce(to_jsonb(a)->>'last_tool', '')
		FROM river_job j LEFT JOIN yagent_worker w ON w.id = j.attempted_by[array_length(j.attempted_by, 1)]
			LEFT JOIN yagent_job_attempt a ON a.job_id = j.id AND a.attempt = j.attempt
		WHERE j.state = 'running' AND j.queue = $1 AND ($2 = '' OR j.args->>'board' = $2)
		ORDER BY j.attempted_at, j.id`, QueueName, board)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var jobs []RunningJob
	for rows.Next() {
		var j RunningJob
		if err := rows.Scan(&j.ID, &j.Run, &j.Delegation, &j.Board, &j.Agent, &j.Attempt, &j.MaxAttempts, &j.Worker, &j.Attempted, &j.Steps, &j.LastTool); err != nil {
			return nil, err
		}
		jobs = append(jobs, j)
	}
	return jobs, rows.Err()
}

// Workers returns the workers with a heartbeat row, longest running
// first, each with its running jobs.
func (q *Queue) Workers(ctx context.Context) ([]WorkerInfo, error) {
	rows, err := q.pool.Query(ctx, `SELECT name, host, pid, started, last_beat, timeout_ms,
			last_beat < now() - timeout_ms * interval '1 millisecond'
		FROM yagent_worker ORDER BY started, name`)
	if err != nil {
		return nil, fmt.Errorf("queue %s: list the workers: %w", q.addr, scrub(err, q.opts.DSN))
	}
	defer rows.Close()
	var list []WorkerInfo
	index := map[string]int{}
	for rows.Next() {
		var w WorkerInfo
		var ms int64
		if err := rows.Scan(&w.Name, &w.Host, &w.PID, &w.Started, &w.LastBeat, &ms, &w.Silent); err != nil {
			return nil, err
		}
		w.Timeout = time.Duration(ms) * time.Millisecond
		index[w.Name] = len(list)
		list = append(list, w)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	jobs, err := q.RunningJobs(ctx, "")
	if err != nil {
		return nil, err
	}
	for _, j := range jobs {
		if i, ok := index[j.Worker]; ok {
			list[i].Jobs = append(list[i].Jobs, j)
		}
	}
	return list, nil
}

// PrintWorkers writes the workers and their jobs (Workers, WriteWorkers).
func (q *Queue) PrintWorkers(ctx context.Context, out io.Writer, now time.Time) error {
	list, err := q.Workers(ctx)
	if err != nil {
		return err
	}
	return WriteWorkers(out, list, now)
}

// WriteWorkers prints workers as `yagent workers` does: a table of the
// workers (name, started, last beat, state, jobs), each row followed by a
// line per job it runs (delegation, agent, board, attempt, for how long,
// its step and last tool), which do not widen the table's columns.
func WriteWorkers(out io.Writer, workers []WorkerInfo, now time.Time) error {
	if len(workers) == 0 {
		_, err := fmt.Fprintln(out, "no worker has a heartbeat on this queue (start one with yagent worker --queue …)")
		return err
	}
	var table strings.Builder
	tw := tabwriter.NewWriter(&table, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKER\tSTARTED\tLAST BEAT\tSTATE\tJOBS")
	for _, w := range workers {
		state := "live"
		if w.Silent {
			state = fmt.Sprintf("silent (over %s: its jobs go to another worker)", shortDuration(w.Timeout))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s ago\t%s\t%d\n", termsafe.Line(w.Name), w.Started.Local().Format("2006-01-02 15:04:05"),
			now.Sub(w.LastBeat).Round(100*time.Millisecond), state, len(w.Jobs))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	rows := strings.SplitAfter(table.String(), "\n") // a row per line: names are termsafe
	var b strings.Builder
	b.WriteString(rows[0])
	for i, w := range workers {
		b.WriteString(rows[i+1])
		for _, j := range w.Jobs {
			fmt.Fprintf(&b, "  job %d: %s (%s) on board %s · attempt %d of %d · running %s · %s\n", j.ID, termsafe.Line(j.Delegation),
				termsafe.Line(j.Agent), termsafe.Line(j.Board), j.Attempt, j.MaxAttempts, now.Sub(j.Attempted).Round(time.Second), j.Progress())
		}
	}
	_, err := io.WriteString(out, b.String())
	return err
}
