package queue

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/yagent/yagent/internal/lease"
)

// DefaultLease is how long a coordinator owns a plan run without renewing
// (queue.lease); it renews every sixth of it.
const DefaultLease = 30 * time.Second

// ErrLeaseLost: the coordinator could not keep its plan run's lease (it
// expired and another coordinator took it, or the database did not answer
// for longer than the lease). It stops landing at once; the batch exits 1.
var ErrLeaseLost = errors.New("lost the plan run's lease")

// BusyError is a refused coordinator: another process holds the lease of
// the same plan and board (internal/lease's, shared with in-process
// batches). It wraps ErrRunBusy.
type BusyError = lease.BusyError

// runLease is a coordinator's ownership of a plan run: the row of
// yagent_run_lease for its board and plan digest, with a fencing token
// that grows with each new holder. The lease is time-based (the
// database's clock), not a session's: a restart of PostgreSQL keeps it.
// internal/lease renews it.
type runLease struct {
	q             *Queue
	board, digest string
	token         int64
	keeper        *lease.Keeper
}

// acquireLease takes the lease of board and digest, refusing with a
// *BusyError while another holder's lease has not expired.
func (q *Queue) acquireLease(ctx context.Context, board, plan, digest string, onLost func(error)) (*runLease, error) {
	dur := q.opts.Lease
	host, _ := os.Hostname()
	sent := time.Now()
	var token int64
	err := q.pool.QueryRow(ctx, `INSERT INTO yagent_run_lease AS l (board, digest, holder_host, holder_pid, token, since, expires)
		VALUES ($1, $2, $3, $4, 1, now(), now() + $5 * interval '1 millisecond')
		ON CONFLICT (board, digest) DO UPDATE SET holder_host = excluded.holder_host, holder_pid = excluded.holder_pid,
			token = l.token + 1, since = excluded.since, expires = excluded.expires
		WHERE l.expires <= now()
		RETURNING token`, board, digest, host, os.Getpid(), dur.Milliseconds()).Scan(&token)
	if errors.Is(err, pgx.ErrNoRows) {
		b := &BusyError{Board: board, Plan: plan, Hint: ", with --resume to continue its run"}
		var left float64
		if err := q.pool.QueryRow(ctx, `SELECT holder_host, holder_pid, since, expires, extract(epoch FROM expires - now())
			FROM yagent_run_lease WHERE board = $1 AND digest = $2`, board, digest).Scan(&b.Host, &b.PID, &b.Since, &b.Expires, &left); err != nil {
			return nil, fmt.Errorf("%w: %s on board %s (its holder could not be read: %v)", ErrRunBusy, plan, board, err)
		}
		b.Left = time.Duration(left * float64(time.Second))
		return nil, b
	}
	if err != nil {
		return nil, fmt.Errorf("queue %s: take the lease of %s on board %s: %w", q.addr, plan, board, err)
	}
	l := &runLease{q: q, board: board, digest: digest, token: token}
	l.keeper = lease.Keep(ctx, sent, lease.Options{
		Duration: dur,
		// A renewal that finds another holder loses the lease at once; one
		// that fails (the database is down) is retried until the lease
		// would have ended by the local clock.
		Renew: func(ctx context.Context) (bool, error) {
			tag, err := q.live.Exec(ctx, `UPDATE yagent_run_lease SET expires = now() + $4 * interval '1 millisecond'
				WHERE board = $1 AND digest = $2 AND token = $3 AND expires > now()`, board, digest, token, dur.Milliseconds())
			return err == nil && tag.RowsAffected() == 1, err
		},
		Taken: func() error {
			return fmt.Errorf("%w: it expired and another coordinator took the run over; this one stops landing", ErrLeaseLost)
		},
		Expired: func(last error) error { return q.leaseExpired(dur, last) },
		OnLost:  onLost,
		// Released: the next coordinator need not wait for it to expire;
		// the row stays, and with it the token the next holder increments.
		End: func(ctx context.Context) {
			_, _ = q.pool.Exec(ctx, `UPDATE yagent_run_lease SET expires = now() WHERE board = $1 AND digest = $2 AND token = $3`, board, digest, token)
		},
	})
	return l, nil
}

// leaseExpired is the error of a lease of dur that ran out without a
// renewal; last is the renewals' last error (nil: they ran, late).
func (q *Queue) leaseExpired(dur time.Duration, last error) error {
	if last != nil {
		return fmt.Errorf("%w: the queue database %s did not answer for longer than the lease (%s): %v; this one stops landing, run the batch again with --resume",
			ErrLeaseLost, q.addr, dur, scrub(last, q.opts.DSN))
	}
	return fmt.Errorf("%w: not renewed for longer than the lease (%s); this one stops landing, run the batch again with --resume", ErrLeaseLost, dur)
}

// check returns the error of a lost lease, marking it lost when its time
// ran out without a renewal.
func (l *runLease) check() error { return l.keeper.Err() }

// release stops renewing and ends the lease at once when still held.
func (l *runLease) release() { l.keeper.Stop() }

// fence locks the lease row for share inside tx, so no other coordinator
// takes it until tx ends, and fails with ErrLeaseLost when this
// coordinator no longer holds it.
func (l *runLease) fence(ctx context.Context, tx pgx.Tx) error {
	if err := l.check(); err != nil {
		return err
	}
	var one int
	err := tx.QueryRow(ctx, `SELECT 1 FROM yagent_run_lease WHERE board = $1 AND digest = $2 AND token = $3 AND expires > now() FOR SHARE`,
		l.board, l.digest, l.token).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		l.keeper.Lose(fmt.Errorf("%w: another coordinator holds it now; this one stops landing", ErrLeaseLost))
		return l.check()
	}
	return err
}
