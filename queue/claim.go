package queue

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/yagent/yagent/blackboard"
)

// Team task claims in PostgreSQL (issue 30 item 4): with queue.dsn the
// claims of every host are rows of one table, and the database decides
// who wins in one statement — INSERT … ON CONFLICT DO NOTHING: of any
// number of claimants, on any hosts, exactly one row is inserted. Tasks
// and notes stay on the board.
const claimSchema = `CREATE TABLE yagent_task_claim (
	board text NOT NULL,
	task text NOT NULL,
	agent text NOT NULL,
	session text NOT NULL,
	ref text NOT NULL,
	claimed_at timestamptz NOT NULL,
	PRIMARY KEY (board, task)
);`

// Claims returns the queue's claims for blackboard.Store.WithClaims,
// working under ctx (the run's).
func (q *Queue) Claims(ctx context.Context) blackboard.Claims { return pgClaims{ctx: ctx, q: q} }

// ClaimsOf returns what keeps a run's team claims in the queue o names
// (app.RunOptions.Claims), or nil when o names none (claims stay files).
// The function it returns gives the claims of a run under ctx and what
// closes them; the queue is opened at the first claim, not before, so a
// run that claims nothing never connects. A queue that cannot be opened
// fails that claim and every later one, naming o's source.
func ClaimsOf(o Options) func(ctx context.Context) (blackboard.Claims, func()) {
	if o.DSN == "" {
		return nil
	}
	return func(ctx context.Context) (blackboard.Claims, func()) {
		l := &lazyClaims{ctx: ctx, opts: o}
		return l, l.close
	}
}

// UseClaims makes store keep its team claims where a run's processes keep
// them — rows of the queue database when o names one (queue.dsn), else
// files — for the commands that only read them (`yagent board tasks`,
// `yagent ui`); done closes the connection, if one was opened.
func UseClaims(ctx context.Context, o Options, store *blackboard.Store) (done func()) {
	open := ClaimsOf(o)
	if open == nil {
		return func() {}
	}
	claims, done := open(ctx)
	store.WithClaims(claims)
	return done
}

// lazyClaims are pgClaims over a queue opened at first use.
type lazyClaims struct {
	ctx  context.Context
	opts Options

	once sync.Once
	q    *Queue
	err  error
}

var _ blackboard.Claims = (*lazyClaims)(nil)

func (l *lazyClaims) claims() (pgClaims, error) {
	l.once.Do(func() {
		if l.q, l.err = Open(l.ctx, l.opts); l.err != nil {
			l.err = fmt.Errorf("team claims are rows of the queue database (%s): %w", cmp.Or(l.opts.Source, "queue.dsn"), l.err)
		}
	})
	return pgClaims{ctx: l.ctx, q: l.q}, l.err
}

// close closes the queue if a claim opened it; no claim opens it after.
func (l *lazyClaims) close() {
	l.once.Do(func() { l.err = errors.New("team claims: the run is closed") })
	if l.q != nil {
		l.q.Close()
	}
}

func (l *lazyClaims) Create(board string, c blackboard.Claim) (*blackboard.Claim, bool, error) {
	p, err := l.claims()
	if err != nil {
		return nil, false, err
	}
	return p.Create(board, c)
}

func (l *lazyClaims) Get(board, task string) (*blackboard.Claim, error) {
	p, err := l.claims()
	if err != nil {
		return nil, err
	}
	return p.Get(board, task)
}

func (l *lazyClaims) Release(board string, c blackboard.Claim) error {
	p, err := l.claims()
	if err != nil {
		return err
	}
	return p.Release(board, c)
}

type pgClaims struct {
	ctx context.Context
	q   *Queue
}

// op is the context of one statement: the run's values, not its cancel
// (a member stopped by Ctrl-C still releases its claim), bounded by
// queryTimeout.
func (p pgClaims) op() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(p.ctx), queryTimeout)
}

var _ blackboard.Claims = pgClaims{}

func (p pgClaims) Create(board string, c blackboard.Claim) (*blackboard.Claim, bool, error) {
	ctx, cancel := p.op()
	defer cancel()
	tag, err := p.q.pool.Exec(ctx, `INSERT INTO yagent_task_claim (board, task, agent, session, ref, claimed_at)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (board, task) DO NOTHING`, board, c.Task, c.Agent, c.Session, c.Ref, c.Time)
	if err != nil {
		return nil, false, fmt.Errorf("claim %s on %s: %w", c.Task, p.q.addr, err)
	}
	if tag.RowsAffected() == 1 {
		return &c, true, nil
	}
	holder, err := p.Get(board, c.Task)
	if err != nil {
		return nil, false, err
	}
	if holder == nil {
		// Released between the insert and the read: the task is open
		// again, and this claimant did not win it; it may try again.
		return nil, false, fmt.Errorf("claim %s: its claim was released meanwhile: claim it again", c.Task)
	}
	return holder, false, nil
}

func (p pgClaims) Get(board, task string) (*blackboard.Claim, error) {
	c := blackboard.Claim{Version: blackboard.ClaimVersion, Task: task}
	var at time.Time
	ctx, cancel := p.op()
	defer cancel()
	err := p.q.pool.QueryRow(ctx, `SELECT agent, session, ref, claimed_at FROM yagent_task_claim WHERE board = $1 AND task = $2`,
		board, task).Scan(&c.Agent, &c.Session, &c.Ref, &at)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("read the claim of %s on %s: %w", task, p.q.addr, err)
	}
	c.Time = at.UTC()
	return &c, nil
}

func (p pgClaims) Release(board string, c blackboard.Claim) error {
	ctx, cancel := p.op()
	defer cancel()
	if _, err := p.q.pool.Exec(ctx, `DELETE FROM yagent_task_claim WHERE board = $1 AND task = $2 AND ref = $3`, board, c.Task, c.Ref); err != nil {
		return fmt.Errorf("release the claim of %s on %s: %w", c.Task, p.q.addr, err)
	}
	return nil
}
