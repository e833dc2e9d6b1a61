package queue

import (
	"context"
	"errors"
	"fmt"
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

type pgClaims struct {
	ctx context.Context
	q   *Queue
}

var _ blackboard.Claims = pgClaims{}

func (p pgClaims) Create(board string, c blackboard.Claim) (*blackboard.Claim, bool, error) {
	tag, err := p.q.pool.Exec(p.ctx, `INSERT INTO yagent_task_claim (board, task, agent, session, ref, claimed_at)
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
	err := p.q.pool.QueryRow(p.ctx, `SELECT agent, session, ref, claimed_at FROM yagent_task_claim WHERE board = $1 AND task = $2`,
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
	if _, err := p.q.pool.Exec(p.ctx, `DELETE FROM yagent_task_claim WHERE board = $1 AND task = $2 AND ref = $3`, board, c.Task, c.Ref); err != nil {
		return fmt.Errorf("release the claim of %s on %s: %w", c.Task, p.q.addr, err)
	}
	return nil
}
