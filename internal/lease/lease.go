// Package lease keeps a lease: a row its holder renews on a timer, which
// counts as held only until the last successful renewal's send time plus
// the lease's duration (a time, not a connection: a process that dies
// leaves it to expire). The callers own the row and its SQL (the queue's
// coordinator lease and worker heartbeat on PostgreSQL, an in-process
// batch's lease in the state database); this package owns the loop, the
// clock and the one loss.
package lease

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Options say how a lease is renewed and what its loss is called.
type Options struct {
	// Duration is how long one renewal keeps the lease.
	Duration time.Duration
	// Every is how often it is renewed (0: a sixth of Duration).
	Every time.Duration
	// Renew renews it once: held is false when another holder has it now.
	Renew func(ctx context.Context) (held bool, err error)
	// Taken is the error of a renewal that found another holder.
	Taken func() error
	// Expired is the error of no successful renewal for Duration (last is
	// the last renewal's error, nil when none failed); nil: the lease is
	// never lost by time (a heartbeat keeps beating).
	Expired func(last error) error
	// OnLost is called once, when the lease is lost.
	OnLost func(error)
	// End, when set, ends the lease at Stop when it is still held (the
	// next holder need not wait for it to expire).
	End func(ctx context.Context)
}

// Keeper renews one lease until it is stopped or lost.
type Keeper struct {
	opts Options

	mu       sync.Mutex
	until    time.Time // the last renewal's send time plus Duration
	last     error     // the last renewal's error
	err      error     // set once lost
	released bool      // Stop ran: the lease is no longer checked

	stop context.CancelFunc
	done chan struct{}
}

// Keep starts renewing a lease taken at sent (the send time of the
// statement that took it). The renewals run apart from ctx's cancel.
func Keep(ctx context.Context, sent time.Time, opts Options) *Keeper {
	k := &Keeper{opts: opts, until: sent.Add(opts.Duration), done: make(chan struct{})}
	kctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	k.stop = stop
	go k.keep(kctx)
	return k
}

func (k *Keeper) keep(ctx context.Context) {
	defer close(k.done)
	every := k.opts.Every
	if every <= 0 {
		every = k.opts.Duration / 6
	}
	t := time.NewTicker(max(every, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		sent := time.Now()
		rctx, cancel := context.WithTimeout(ctx, max(k.opts.Duration/3, time.Millisecond))
		held, err := k.opts.Renew(rctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return
		case err == nil && held:
			k.mu.Lock()
			k.until, k.last = sent.Add(k.opts.Duration), nil
			k.mu.Unlock()
		case err == nil:
			k.Lose(k.opts.Taken())
			return
		default:
			k.mu.Lock()
			k.last = err
			k.mu.Unlock()
			if k.Err() != nil {
				return
			}
		}
	}
}

// Lose marks the lease lost with err, once, and tells OnLost.
func (k *Keeper) Lose(err error) {
	k.mu.Lock()
	first := k.err == nil
	if first {
		k.err = err
	}
	k.mu.Unlock()
	if first && k.opts.OnLost != nil {
		k.opts.OnLost(err)
	}
}

// Err is the error of a lost lease, else nil; a lease whose time ran out
// without a renewal is lost now.
func (k *Keeper) Err() error {
	k.mu.Lock()
	err, until, last, released := k.err, k.until, k.last, k.released
	k.mu.Unlock()
	if err != nil || released || k.opts.Expired == nil {
		return err
	}
	if time.Now().After(until) {
		k.Lose(k.opts.Expired(last))
		k.mu.Lock()
		defer k.mu.Unlock()
		return k.err
	}
	return nil
}

// Until is when the lease ends at the earliest unless renewed.
func (k *Keeper) Until() time.Time {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.until
}

// Stop stops renewing and ends the lease (Options.End) when it is still
// held; a lost one is left as it is.
func (k *Keeper) Stop() {
	k.stop()
	<-k.done
	if k.Err() != nil {
		return
	}
	k.mu.Lock()
	k.released = true
	k.mu.Unlock()
	if k.opts.End != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		k.opts.End(ctx)
	}
}

// ErrBusy: another process holds the lease of the same plan run (exit 2).
var ErrBusy = errors.New("plan run is coordinated by another process")

// BusyError is a refused holder: another process holds the lease of the
// same plan and board. It wraps ErrBusy.
type BusyError struct {
	Board, Plan string
	Host        string
	PID         int
	Since       time.Time
	Expires     time.Time
	// Left is how long the lease still runs, by the lease's clock.
	Left time.Duration
	// Hint ends the message: what else to do once the lease expired.
	Hint string
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("%v: %s on board %s is held by %s pid %d since %s (lease renewed until %s); if that process is gone, try again after %s (in %s)%s",
		ErrBusy, e.Plan, e.Board, e.Host, e.PID, e.Since.UTC().Format(time.RFC3339), e.Expires.UTC().Format(time.RFC3339),
		e.Expires.UTC().Format(time.RFC3339), e.Left.Round(time.Second), e.Hint)
}

func (e *BusyError) Unwrap() error { return ErrBusy }

// Halt stops renewing and leaves the lease to expire, as a killed holder
// would (tests).
func (k *Keeper) Halt() {
	k.stop()
	<-k.done
}

// SetUntil sets when the lease ends by the local clock (tests: a holder
// whose clock says its lease still runs).
func (k *Keeper) SetUntil(t time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.until = t
}
