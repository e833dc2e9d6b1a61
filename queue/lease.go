package queue

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultLease is how long a coordinator owns a plan run without renewing
// (queue.lease); it renews every sixth of it.
const DefaultLease = 30 * time.Second

// ErrLeaseLost: the coordinator could not keep its plan run's lease (it
// expired and another coordinator took it, or the database did not answer
// for longer than the lease). It stops landing at once; the batch exits 1.
var ErrLeaseLost = errors.New("lost the plan run's lease")

// BusyError is a refused coordinator: another process holds the lease of
// the same plan and board. It wraps ErrRunBusy.
type BusyError struct {
	Board, Plan string
	Host        string
	PID         int
	Since       time.Time
	Expires     time.Time
	// Left is how long the lease still runs, by the database's clock.
	Left time.Duration
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("%v: %s on board %s is held by %s pid %d since %s (lease renewed until %s); if that process is gone, try again after %s (in %s), with --resume to continue its run",
		ErrRunBusy, e.Plan, e.Board, e.Host, e.PID, e.Since.UTC().Format(time.RFC3339), e.Expires.UTC().Format(time.RFC3339),
		e.Expires.UTC().Format(time.RFC3339), e.Left.Round(time.Second))
}

func (e *BusyError) Unwrap() error { return ErrRunBusy }

// runLease is a coordinator's ownership of a plan run: the row of
// yagent_run_lease for its board and plan digest, with a fencing token
// that grows with each new holder. The lease is time-based (the
// database's clock), not a session's: a restart of PostgreSQL keeps it.
type runLease struct {
	q             *Queue
	board, digest string
	token         int64
	dur           time.Duration
	onLost        func(error)

	mu sync.Mutex
	// until is when the lease ends at the earliest by the local clock:
	// the last renewal's send time plus the lease (the database's expiry
	// is later).
	until time.Time
	err   error // set once lost
	// released: the run is over; the lease is no longer checked.
	released bool

	stop context.CancelFunc
	done chan struct{}
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
		b := &BusyError{Board: board, Plan: plan}
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
	l := &runLease{q: q, board: board, digest: digest, token: token, dur: dur, onLost: onLost, until: sent.Add(dur)}
	kctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	l.stop, l.done = stop, make(chan struct{})
	go l.keep(kctx)
	return l, nil
}

// keep renews the lease every sixth of its duration until stopped or
// lost. A renewal that finds another holder loses it at once; one that
// fails (the database is down) is retried until the lease would have
// ended by the local clock.
func (l *runLease) keep(ctx context.Context) {
	defer close(l.done)
	t := time.NewTicker(max(l.dur/6, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		sent := time.Now()
		rctx, cancel := context.WithTimeout(ctx, max(l.dur/3, time.Millisecond))
		tag, err := l.q.pool.Exec(rctx, `UPDATE yagent_run_lease SET expires = now() + $4 * interval '1 millisecond'
			WHERE board = $1 AND digest = $2 AND token = $3 AND expires > now()`, l.board, l.digest, l.token, l.dur.Milliseconds())
		cancel()
		switch {
		case ctx.Err() != nil:
			return
		case err == nil && tag.RowsAffected() == 1:
			l.mu.Lock()
			l.until = sent.Add(l.dur)
			l.mu.Unlock()
		case err == nil:
			l.lose(fmt.Errorf("%w: it expired and another coordinator took the run over; this one stops landing", ErrLeaseLost))
			return
		default:
			if err := l.check(); err != nil {
				return
			}
			if time.Now().After(l.untilTime()) {
				l.lose(fmt.Errorf("%w: the queue database %s did not answer for longer than the lease (%s): %v; this one stops landing, run the batch again with --resume",
					ErrLeaseLost, l.q.addr, l.dur, scrub(err, l.q.opts.DSN)))
				return
			}
		}
	}
}

func (l *runLease) untilTime() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.until
}

// lose marks the lease lost, once, and tells onLost.
func (l *runLease) lose(err error) {
	l.mu.Lock()
	first := l.err == nil
	if first {
		l.err = err
	}
	l.mu.Unlock()
	if first && l.onLost != nil {
		l.onLost(err)
	}
}

// check returns the error of a lost lease, marking it lost when its time
// ran out without a renewal.
func (l *runLease) check() error {
	l.mu.Lock()
	err, until, released := l.err, l.until, l.released
	l.mu.Unlock()
	if err != nil || released {
		return err
	}
	if time.Now().After(until) {
		l.lose(fmt.Errorf("%w: not renewed for longer than the lease (%s); this one stops landing, run the batch again with --resume", ErrLeaseLost, l.dur))
		return l.check()
	}
	return nil
}

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
		l.lose(fmt.Errorf("%w: another coordinator holds it now; this one stops landing", ErrLeaseLost))
		return l.check()
	}
	return err
}

// release stops renewing and ends the lease at once (when still held), so
// the next coordinator need not wait for it to expire; the row stays, and
// with it the token the next holder increments.
func (l *runLease) release() {
	l.stop()
	<-l.done
	if l.check() != nil {
		return
	}
	l.mu.Lock()
	l.released = true
	l.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = l.q.pool.Exec(ctx, `UPDATE yagent_run_lease SET expires = now() WHERE board = $1 AND digest = $2 AND token = $3`, l.board, l.digest, l.token)
}
