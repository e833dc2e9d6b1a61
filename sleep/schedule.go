package sleep

import (
	"context"
	"sync"
	"time"
)

// Scheduler runs nudged sleeps in the background: at most MaxParallel at
// once, never blocking the turn that nudged.
type Scheduler struct {
	curator *Curator
	ch      chan string
	sem     chan struct{} // nil: no bound
	wg      sync.WaitGroup
	// OnRun, when set, sees every finished run.
	OnRun func(Run, error)
	// OnDue, when set, gets a session's due time (nil: never scheduled)
	// after every nudge the scheduler served — set, captured, curated or
	// found not due — so a long-lived caller keeps a current copy in
	// memory and its hot path never asks the database. ok is false when
	// the due time could not be read; the caller keeps its copy.
	OnDue func(chatID string, due *time.Time, ok bool)
}

// NewScheduler returns a scheduler with a bounded nudge channel, running at
// most chat_sleep.max_parallel sleeps at once (0: no bound).
func NewScheduler(c *Curator) *Scheduler {
	s := &Scheduler{curator: c, ch: make(chan string, 16)}
	if c.Config.MaxParallel > 0 {
		s.sem = make(chan struct{}, c.Config.MaxParallel)
	}
	return s
}

// Nudge asks for a sleep of a session; it never blocks (a full channel
// drops the nudge — the next message nudges again) and makes no database
// query. It reports whether the nudge was queued.
func (s *Scheduler) Nudge(chatID string) bool {
	select {
	case s.ch <- chatID:
		return true
	default:
		return false
	}
}

// Start serves nudges until ctx is done. A session never scheduled only
// gets its first due time; a due one is captured and curated.
func (s *Scheduler) Start(ctx context.Context) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case id := <-s.ch:
				if set, err := s.curator.SetDueIfUnset(ctx, id); err != nil || set {
					s.served(ctx, id)
					continue
				}
				if s.sem != nil {
					select {
					case s.sem <- struct{}{}:
					case <-ctx.Done():
						return
					}
				}
				s.wg.Add(1)
				go func() {
					defer s.wg.Done()
					if s.sem != nil {
						defer func() { <-s.sem }()
					}
					run, err := s.curator.Run(ctx, id, Options{})
					if s.OnRun != nil && (err != nil || run.Status != "skipped" || run.Reason != "not due") {
						s.OnRun(run, err)
					}
					s.served(ctx, id)
				}()
			}
		}
	}()
}

// served reports the session's due time after a nudge was served; nothing
// once ctx is done (the caller is closing).
func (s *Scheduler) served(ctx context.Context, id string) {
	if s.OnDue == nil || ctx.Err() != nil {
		return
	}
	due, err := s.curator.Due(ctx, id)
	s.OnDue(id, due, err == nil)
}

// Wait waits for running sleeps (after ctx is cancelled, for the loop).
func (s *Scheduler) Wait() { s.wg.Wait() }
