package batch

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/yagent/yagent/internal/lease"
)

// Errors of an in-process batch's lease (the state database's
// batch_leases); a distributed batch's coordinator has the queue's own.
var (
	// ErrRunBusy: another yagent batch holds the lease of the same plan
	// and board (exit 2); the queue's ErrRunBusy is the same error.
	ErrRunBusy = lease.ErrBusy
	// ErrLeaseLost: the batch could not renew its lease in time; it
	// stopped (exit 1).
	ErrLeaseLost = errors.New("lost the plan run's lease")
)

// BusyError is a refused batch: it names the holder and when to try
// again. It wraps ErrRunBusy.
type BusyError = lease.BusyError

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
// that dies leaves it to expire), renewed by internal/lease.
type Lease struct {
	token  int64 // grows with each holder
	keeper *lease.Keeper
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
	l := &Lease{token: token}
	l.keeper = lease.Keep(ctx, now, lease.Options{
		Duration: opts.Duration,
		Renew: func(ctx context.Context) (bool, error) {
			now := time.Now()
			res, err := db.ExecContext(ctx, `UPDATE batch_leases SET expires = ? WHERE board = ? AND digest = ? AND token = ? AND expires > ?`,
				now.Add(opts.Duration).UnixMilli(), opts.Board, opts.Digest, token, now.UnixMilli())
			var n int64
			if err == nil {
				n, err = res.RowsAffected()
			}
			return n == 1, err
		},
		Taken: func() error {
			return fmt.Errorf("%w: it expired and another yagent batch took the run over; this one stopped", ErrLeaseLost)
		},
		Expired: func(error) error {
			return fmt.Errorf("%w: the state database could not be written for longer than the lease (%s); this one stopped, run the batch again with --resume", ErrLeaseLost, opts.Duration)
		},
		OnLost: opts.OnLost,
		// Ended at once so the next batch of the plan need not wait; the
		// row and its token stay.
		End: func(ctx context.Context) {
			_, _ = db.ExecContext(ctx, `UPDATE batch_leases SET expires = ? WHERE board = ? AND digest = ? AND token = ?`,
				time.Now().UnixMilli(), opts.Board, opts.Digest, token)
		},
	})
	return l, nil
}

// LeaseErr is ErrLeaseLost once the lease is lost (taken, or not renewed in
// time), else nil.
func (l *Lease) LeaseErr() error { return l.keeper.Err() }

// Release ends the lease at once (when still held) so the next batch of
// the plan need not wait; the row and its token stay.
func (l *Lease) Release() { l.keeper.Stop() }
