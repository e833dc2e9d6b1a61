package queue

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/internal/lease"
	"github.com/yagent/yagent/internal/redact"
)

// QueueName is the River queue delegations travel on.
const QueueName = "yagent_delegations"

// idleTxTimeout is the least time the server lets a queue connection sit
// idle inside a transaction (PostgreSQL's
// idle_in_transaction_session_timeout; the worker timeout when that is
// longer): no transaction of this package waits on anything but the
// database, but a loaded machine can starve a client between statements
// for seconds. Tests lower it.
var idleTxTimeout = 30 * time.Second

// Errors a caller branches on (the CLI: exit code 2).
var (
	// ErrUnreachable: the DSN does not parse or no server answers there.
	ErrUnreachable = errors.New("queue database unreachable")
	// ErrSchemaNewer: the database was migrated by a newer yagent.
	ErrSchemaNewer = errors.New("queue schema is newer than this yagent")
	// ErrRunBusy: another coordinator holds the plan run (the one
	// sentinel of in-process batches too).
	ErrRunBusy = lease.ErrBusy
	// ErrNoQueue: a command that needs a queue was given none.
	ErrNoQueue = errors.New("no queue: pass --queue postgres://user@host:5432/db or set queue.dsn")
)

// Options are the resolved queue settings (config's queue: section).
type Options struct {
	DSN string
	// Source names where DSN came from, for errors: "queue.dsn" or
	// "--queue".
	Source string
	// RescueAfter is how long a job may run: a worker stops a delegation
	// still running then, and River takes a job still marked running then
	// for a dead worker's and retries it (River's JobTimeout and
	// RescueStuckJobsAfter). Set it above the longest delegation.
	RescueAfter time.Duration
	// MaxAttempts is how often a delegation is tried before its failure
	// lands as a degraded note.
	MaxAttempts int
	// PollInterval is how often the coordinator looks for finished jobs.
	PollInterval time.Duration
	// Lease is how long a coordinator owns its plan run without renewing
	// it (queue.lease; 0: DefaultLease); it renews every sixth of it. A
	// second coordinator of the same plan and board is refused until it
	// expires.
	Lease time.Duration
	// WorkerTimeout is how long a worker may miss its heartbeats before
	// its running jobs are handed to another worker (queue.worker_timeout;
	// 0: DefaultWorkerTimeout); it must be below RescueAfter.
	WorkerTimeout time.Duration
	// Concurrency is how many jobs a worker runs at once unless told
	// (queue.concurrency).
	Concurrency int
	// Log receives River's own warnings (nil: discarded).
	Log io.Writer
}

// OptionsFromConfig are the options of the queue the configuration names:
// flag (--queue) when given, else queue.dsn; Source says which. DSN is ""
// when neither names one.
func OptionsFromConfig(c config.Queue, flag string, log io.Writer) Options {
	o := Options{DSN: c.DSN, Source: "queue.dsn", RescueAfter: c.RescueAfter.D(), MaxAttempts: c.MaxAttempts,
		PollInterval: 50 * time.Millisecond, Lease: c.Lease.D(), WorkerTimeout: c.WorkerTimeout.D(), Concurrency: c.Concurrency, Log: log}
	if flag != "" {
		o.DSN, o.Source = flag, "--queue"
	}
	return o
}

// OpenConfigured opens the queue OptionsFromConfig names; with required,
// none is ErrNoQueue, else a nil Queue (Close is safe on it).
func OpenConfigured(ctx context.Context, c config.Queue, flag string, log io.Writer, required bool) (*Queue, error) {
	o := OptionsFromConfig(c, flag, log)
	switch {
	case o.DSN != "":
		return Open(ctx, o)
	case required:
		return nil, ErrNoQueue
	}
	return nil, nil
}

// resolved is opts with its zeros given their defaults (Source, poll
// interval, lease, worker timeout), or the error that names the option out
// of range.
func (opts Options) resolved() (Options, error) {
	if opts.Source == "" {
		opts.Source = "queue.dsn"
	}
	if opts.MaxAttempts < 1 {
		return opts, fmt.Errorf("%s: max_attempts %d: want 1 or more", opts.Source, opts.MaxAttempts)
	}
	if opts.RescueAfter <= 0 {
		return opts, fmt.Errorf("%s: rescue_after %s: want a positive duration", opts.Source, opts.RescueAfter)
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 100 * time.Millisecond
	}
	if opts.Lease <= 0 {
		opts.Lease = DefaultLease
	}
	if opts.WorkerTimeout <= 0 {
		opts.WorkerTimeout = min(DefaultWorkerTimeout, opts.RescueAfter/2)
	}
	if opts.WorkerTimeout >= opts.RescueAfter {
		return opts, fmt.Errorf("%s: worker_timeout %s is not below rescue_after %s: worker_timeout is how long a worker may miss its heartbeats before its jobs go to another worker, rescue_after the longest a delegation may run; lower worker_timeout or raise rescue_after",
			opts.Source, opts.WorkerTimeout, opts.RescueAfter)
	}
	return opts, nil
}

// Queue is an open connection to the queue database.
type Queue struct {
	opts Options
	pool *pgxpool.Pool
	// live renews the coordinator's lease and the worker's heartbeat on
	// connections of their own: in the shared pool they waited behind a
	// thousand enqueues and landings, and a coordinator lost its lease to
	// a busy pool (1000 delegations on a loaded machine: no renewal in
	// 30 s, the run stopped).
	live   *pgxpool.Pool
	driver *fencedDriver // River's, with the pilot that fences an attempt's end (fence.go)
	addr   string        // the DSN with its password masked
	logger *slog.Logger
}

// Open connects to opts.DSN, refuses a schema from a newer yagent and
// migrates an older one (River's tables and yagent's). An address that
// does not parse or answer is ErrUnreachable, named with the password
// masked.
func Open(ctx context.Context, opts Options) (*Queue, error) {
	opts, err := opts.resolved()
	if err != nil {
		return nil, err
	}
	addr := MaskDSN(opts.DSN)
	cfg, err := pgxpool.ParseConfig(opts.DSN)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w: not a PostgreSQL address (want postgres://user@host:5432/db)", opts.Source, addr, ErrUnreachable)
	}
	// A worker frozen inside a transaction (a pause, SIGSTOP, a VM
	// stalled) would hold its job's row lock for as long as it sleeps, and
	// the hand-over of its jobs skips locked rows: the server ends such a
	// transaction after idleTxTimeout, so a silent worker's jobs go to
	// another worker in bounded time. Seen at load 13: a worker stopped
	// between "attempt 1 of 3" and its attempt's start held the job for
	// minutes.
	cfg.ConnConfig.RuntimeParams["idle_in_transaction_session_timeout"] = strconv.FormatInt(max(opts.WorkerTimeout, idleTxTimeout).Milliseconds(), 10)
	liveCfg := cfg.Copy()
	cfg.MaxConns, liveCfg.MaxConns = 8, 2
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w: %v", opts.Source, addr, ErrUnreachable, scrub(err, opts.DSN))
	}
	live, err := pgxpool.NewWithConfig(ctx, liveCfg)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("%s %s: %w: %v", opts.Source, addr, ErrUnreachable, scrub(err, opts.DSN))
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		live.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%s %s: %w: %v; start PostgreSQL there or fix %s", opts.Source, addr, ErrUnreachable, scrub(err, opts.DSN), opts.Source)
	}
	var out io.Writer = io.Discard
	if opts.Log != nil {
		out = opts.Log
	}
	q := &Queue{opts: opts, pool: pool, live: live, driver: newFencedDriver(riverpgxv5.New(pool)), addr: addr,
		logger: slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	if err := q.migrate(ctx); err != nil {
		q.Close()
		return nil, err
	}
	return q, nil
}

// Concurrency is flag when set (--concurrency), else queue.concurrency.
func (q *Queue) Concurrency(flag int) int {
	if flag > 0 {
		return flag
	}
	return q.opts.Concurrency
}

// Close releases the connections.
func (q *Queue) Close() {
	if q == nil {
		return
	}
	q.pool.Close()
	q.live.Close()
}

// Addr is the DSN with its password masked, for messages.
func (q *Queue) Addr() string { return q.addr }

// schemaVersion is the version of yagent's own tables this build writes.
const schemaVersion = 7

// migrations are yagent's own tables, one entry per version.
var migrations = []string{
	1: `CREATE TABLE yagent_batch_run (
		id text PRIMARY KEY,
		board text NOT NULL,
		plan text NOT NULL,
		digest text NOT NULL,
		created_at timestamptz NOT NULL DEFAULT now(),
		finished_at timestamptz
	);
	CREATE INDEX yagent_batch_run_board ON yagent_batch_run (board, digest, created_at);
	CREATE TABLE yagent_batch_job (
		run_id text NOT NULL REFERENCES yagent_batch_run (id) ON DELETE CASCADE,
		delegation text NOT NULL,
		job_id bigint NOT NULL,
		landed_ref text,
		landed_status text,
		landed_at timestamptz,
		PRIMARY KEY (run_id, delegation)
	);`,
	// A worker's patch too large for the job's output (maxOutputPatch),
	// until the coordinator lands the job.
	2: `CREATE TABLE yagent_job_patch (
		job_id bigint PRIMARY KEY,
		patch bytea NOT NULL,
		created_at timestamptz NOT NULL DEFAULT now()
	);`,
	// A plan run's owner: one row per board and plan digest, held by the
	// coordinator whose lease (expires, by the database's clock) it
	// renews; token fences its landings and grows with each new holder.
	3: `CREATE TABLE yagent_run_lease (
		board text NOT NULL,
		digest text NOT NULL,
		holder_host text NOT NULL,
		holder_pid int NOT NULL,
		token bigint NOT NULL,
		since timestamptz NOT NULL,
		expires timestamptz NOT NULL,
		PRIMARY KEY (board, digest)
	);`,
	// Workers' heartbeats (one row per River client: its id is what
	// river_job.attempted_by names) and each running job's attempt with
	// its fencing token, which grows with each attempt and with each
	// hand-over: only the attempt holding the current token completes,
	// fails or returns anything.
	4: `CREATE TABLE yagent_worker (
		id text PRIMARY KEY,
		name text NOT NULL,
		host text NOT NULL,
		pid int NOT NULL,
		started timestamptz NOT NULL,
		last_beat timestamptz NOT NULL,
		timeout_ms bigint NOT NULL,
		jobs bigint[] NOT NULL DEFAULT '{}'
	);
	CREATE TABLE yagent_job_attempt (
		job_id bigint PRIMARY KEY,
		token bigint NOT NULL,
		worker text NOT NULL,
		attempt int NOT NULL,
		started timestamptz NOT NULL
	);`,
	// What each budget scope spent, summed by the coordinator and every
	// worker (spend.go).
	5: spendSchema,
	// Team task claims (issue 30 item 4, claim.go): one row per task of
	// a board, created once.
	6: claimSchema,
	// Each attempt's progress (steps, last tool), written by the worker
	// holding its token (progress.go).
	7: progressSchema,
}

// migrate brings River's and yagent's schemas up to this build's versions,
// serialised by an advisory lock so that workers starting together
// migrate once; a newer schema is refused. River's migrations run one
// transaction each (some cannot share one); yagent's run in one.
func (q *Queue) migrate(ctx context.Context) (err error) {
	defer func() {
		if err != nil && !errors.Is(err, ErrSchemaNewer) {
			err = fmt.Errorf("migrate the queue database %s: %w", q.addr, err)
		}
	}()
	conn, err := q.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	const lock = `hashtextextended('yagent_queue_migrate', 0)`
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(`+lock+`)`); err != nil {
		return err
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(`+lock+`)`)
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS yagent_queue_schema (version int NOT NULL)`); err != nil {
		return err
	}
	var have int
	switch err := conn.QueryRow(ctx, `SELECT version FROM yagent_queue_schema`).Scan(&have); {
	case errors.Is(err, pgx.ErrNoRows):
		if _, err := conn.Exec(ctx, `INSERT INTO yagent_queue_schema (version) VALUES (0)`); err != nil {
			return err
		}
	case err != nil:
		return err
	}
	if have > schemaVersion {
		return fmt.Errorf("%w: %s has yagent queue schema version %d, this yagent knows up to %d: upgrade yagent on this host", ErrSchemaNewer, q.addr, have, schemaVersion)
	}
	m, err := rivermigrate.New(q.driver, &rivermigrate.Config{Logger: q.logger})
	if err != nil {
		return err
	}
	// rivermigrate fails on a version it does not know; read the newest
	// one first to say what is wrong.
	var river *int
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass('river_migration') IS NOT NULL`).Scan(&exists); err != nil {
		return err
	}
	if exists {
		if err := conn.QueryRow(ctx, `SELECT max(version) FROM river_migration WHERE line = 'main'`).Scan(&river); err != nil {
			return err
		}
	}
	all := m.AllVersions()
	if known := all[len(all)-1].Version; river != nil && *river > known {
		return fmt.Errorf("%w: %s has River schema version %d, this yagent's River knows up to %d: upgrade yagent on this host", ErrSchemaNewer, q.addr, *river, known)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return err
	}
	if have == schemaVersion {
		return nil
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	for v := have + 1; v <= schemaVersion; v++ {
		if _, err := tx.Exec(ctx, migrations[v]); err != nil {
			return fmt.Errorf("yagent schema version %d: %w", v, err)
		}
	}
	if _, err := tx.Exec(ctx, `UPDATE yagent_queue_schema SET version = $1`, schemaVersion); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// client returns a River client over the pool; cfg's Queues and Workers
// make it a worker, without them it only inserts and cancels.
func (q *Queue) client(cfg *river.Config) (*river.Client[pgx.Tx], error) {
	cfg.Logger = q.logger
	cfg.MaxAttempts = q.opts.MaxAttempts
	// River rescues a job only past its timeout: rescue_after is both how
	// long a delegation may run and when a dead worker's job is retried.
	cfg.JobTimeout = q.opts.RescueAfter
	cfg.RescueStuckJobsAfter = q.opts.RescueAfter
	cfg.RetryPolicy = retryPolicy{}
	cfg.CompletedJobRetentionPeriod = 7 * 24 * time.Hour // --resume collects outputs days later
	return river.NewClient(q.driver, cfg)
}

// MaskDSN returns dsn with its password replaced by xxxxx.
func MaskDSN(dsn string) string { return config.MaskDSN(dsn) }

// scrub removes dsn's passwords from a driver's error, should it quote
// the address.
func scrub(err error, dsn string) error {
	return redact.Exact(config.DSNPasswords(dsn)...).Error(err)
}
