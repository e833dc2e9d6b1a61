package batch

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// Errors of an in-process batch's lease (the state database's
// batch_leases); a distributed batch's coordinator has the queue's own.
var (
	// ErrRunBusy: another yagent batch holds the lease of the same plan
	// and board (exit 2).
	ErrRunBusy = errors.New("plan run is coordinated by another process")
	// ErrLeaseLost: the batch could not renew its lease in time; it
	// stopped (exit 1).
	ErrLeaseLost = errors.New("lost the plan run's lease")
)

// BusyError is a refused batch: it names the holder and when to try
// again. It wraps ErrRunBusy.
type BusyError struct {
	Board, Plan string
	Host        string
	PID         int
	Since       time.Time
	Expires     time.Time
	Left        time.Duration
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("%v: %s on board %s is held by %s pid %d since %s (lease renewed until %s); if that process is gone, try again after %s (in %s)",
		ErrRunBusy, e.Plan, e.Board, e.Host, e.PID, e.Since.UTC().Format(time.RFC3339), e.Expires.UTC().Format(time.RFC3339),
		e.Expires.UTC().Format(time.RFC3339), e.Left.Round(time.Second))
}

func (e *BusyError) Unwrap() error { return ErrRunBusy }

// DefaultLease is the lease of LeaseOptions.Duration 0 (queue.lease's
// default).
const DefaultLease = 30 * time.Second

// LeaseOptions say which plan run an in-process batch owns.
type LeaseOptions struct {
	Board, Plan, Digest string
	// Duration is how long the lease lasts without a renewal; it is
	// renewed every sixth of it.
	Duration time.Duration
	// OnLost is called once when the lease is lost: stop the batch.
	OnLost func(error)
}

// Lease is an in-process batch's ownership of its plan run, a row of the
// state database's batch_leases (a time, not a connection: a process
// that dies leaves it to expire).
type Lease struct {
	db    *sql.DB
	opts  LeaseOptions
	token int64

	mu       sync.Mutex
	until    time.Time
	err      error
	released bool

	stop context.CancelFunc
	done chan struct{}
}

// AcquireLease takes the lease of opts' board and plan digest in db (the
// state database), refusing with a *BusyError while another holder's has
// not expired.
func AcquireLease(ctx context.Context, db *sql.DB, opts LeaseOptions) (_ *Lease, err error) {
	if opts.Duration <= 0 {
		opts.Duration = DefaultLease
	}
	host, _ := os.Hostname()
	now := time.Now()
	tx, err := db.BeginTx(ctx, nil) // immediate: the write lock first
	if err != nil {
		return nil, fmt.Errorf("take the lease of %s on board %s: %w", opts.Plan, opts.Board, err)
	}
	defer tx.Rollback()
	var (
		b              = &BusyError{Board: opts.Board, Plan: opts.Plan}
		token          int64
		since, expires int64
	)
	err = tx.QueryRowContext(ctx, `SELECT holder_host, holder_pid, token, since, expires FROM batch_leases WHERE board = ? AND digest = ?`,
		opts.Board, opts.Digest).Scan(&b.Host, &b.PID, &token, &since, &expires)
	switch {
	case err == nil && expires > now.UnixMilli():
		b.Since, b.Expires = time.UnixMilli(since), time.UnixMilli(expires)
		b.Left = b.Expires.Sub(now)
		return nil, b
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return nil, fmt.Errorf("take the lease of %s on board %s: %w", opts.Plan, opts.Board, err)
	}
	token++
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO batch_leases (board, digest, holder_host, holder_pid, token, since, expires)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, opts.Board, opts.Digest, host, os.Getpid(), token, now.UnixMilli(), now.Add(opts.Duration).UnixMilli()); err != nil {
		return nil, fmt.Errorf("take the lease of %s on board %s: %w", opts.Plan, opts.Board, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("take the lease of %s on board %s: %w", opts.Plan, opts.Board, err)
	}
	l := &Lease{db: db, opts: opts, token: token, until: now.Add(opts.Duration)}
	kctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	l.stop, l.done = stop, make(chan struct{})
	go l.keep(kctx)
	return l, nil
}

// keep renews the lease until stopped or lost.
func (l *Lease) keep(ctx context.Context) {
	defer close(l.done)
	t := time.NewTicker(max(l.opts.Duration/6, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := time.Now()
		rctx, cancel := context.WithTimeout(ctx, max(l.opts.Duration/3, time.Millisecond))
		res, err := l.db.ExecContext(rctx, `UPDATE batch_leases SET expires = ? WHERE board = ? AND digest = ? AND token = ? AND expires > ?`,
			now.Add(l.opts.Duration).UnixMilli(), l.opts.Board, l.opts.Digest, l.token, now.UnixMilli())
		cancel()
		var n int64
		if err == nil {
			n, err = res.RowsAffected()
		}
		switch {
		case ctx.Err() != nil:
			return
		case err == nil && n == 1:
			l.mu.Lock()
			l.until = now.Add(l.opts.Duration)
			l.mu.Unlock()
		case err == nil:
			l.lose(fmt.Errorf("%w: it expired and another yagent batch took the run over; this one stopped", ErrLeaseLost))
			return
		default:
			if l.LeaseErr() != nil {
				return
			}
		}
	}
}

func (l *Lease) lose(err error) {
	l.mu.Lock()
	first := l.err == nil && !l.released
	if first {
		l.err = err
	}
	l.mu.Unlock()
	if first && l.opts.OnLost != nil {
		l.opts.OnLost(err)
	}
}

// LeaseErr is ErrLeaseLost once the lease is lost (taken, or not renewed in
// time), else nil.
func (l *Lease) LeaseErr() error {
	l.mu.Lock()
	err, until, released := l.err, l.until, l.released
	l.mu.Unlock()
	if err != nil || released {
		return err
	}
	if time.Now().After(until) {
		l.lose(fmt.Errorf("%w: the state database could not be written for longer than the lease (%s); this one stopped, run the batch again with --resume", ErrLeaseLost, l.opts.Duration))
		return l.LeaseErr()
	}
	return nil
}

// Release ends the lease at once (when still held) so the next batch of
// the plan need not wait; the row and its token stay.
func (l *Lease) Release() {
	l.stop()
	<-l.done
	if l.LeaseErr() != nil {
		return
	}
	l.mu.Lock()
	l.released = true
	l.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = l.db.ExecContext(ctx, `UPDATE batch_leases SET expires = ? WHERE board = ? AND digest = ? AND token = ?`,
		time.Now().UnixMilli(), l.opts.Board, l.opts.Digest, l.token)
}
