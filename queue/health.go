package queue

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/yagent/yagent/llm"
)

// failure is what kind of failure ended an attempt, which decides who
// tries it next.
type failure int

const (
	// notModel: the model answered and the task failed (or the request
	// itself is wrong, which every worker would send alike): the note
	// lands as it is, not retried.
	notModel failure = iota
	// transient: a 5xx, a rate limit, a timeout or a refused connection
	// the model client gave up on after its own retries.
	transient
	// refused: the endpoint refused this worker (401, 403, an exhausted
	// quota), has no such model (404), or this worker has no endpoint.
	refused
)

func (f failure) String() string {
	switch f {
	case transient:
		return "failing"
	case refused:
		return "unusable here"
	}
	return "ok"
}

// classify says whether err, the error a model call ended a delegation
// with, is the model's failure (another worker may do better) and which.
func classify(err error) failure {
	var api *llm.APIError
	switch {
	case err == nil:
		return notModel
	case errors.As(err, &api):
		switch {
		case api.StatusCode == http.StatusUnauthorized, api.StatusCode == http.StatusForbidden,
			api.StatusCode == http.StatusNotFound, api.Code == "insufficient_quota":
			return refused
		case api.Retryable():
			return transient
		}
		return notModel
	case errors.Is(err, llm.ErrNoEndpoint):
		return refused
	case llm.IsTransient(err):
		return transient
	}
	return notModel
}

// modelError is an attempt that failed because of this worker's model:
// the job fails (River retries it, on another worker while this one
// holds off) and no note travels back.
type modelError struct {
	model string // ModelSettings.String, or the name
	kind  failure
	err   error
}

func (e *modelError) Error() string {
	return fmt.Sprintf("model %s %s: %v", e.model, e.kind, e.err)
}

func (e *modelError) Unwrap() error { return e.err }

// holdOff is a worker's pause after its model failed: it takes no job
// for a while, so the other workers take this one's retries. Its zero
// value is ready; start sets what pausing needs.
type holdOff struct {
	mu      sync.Mutex
	until   time.Time
	pausing bool
	closed  bool // the worker stops: no new pause
	said    map[string]bool
	wg      sync.WaitGroup
}

// close starts no pause any more; wg then counts the ones running.
func (h *holdOff) close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
}

// paused reports whether the worker is holding off now.
func (h *holdOff) paused(now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return now.Before(h.until)
}

// hold extends the pause to now+d and returns whether the pause must be
// started (none runs) and whether key is new (to say it once).
func (h *holdOff) hold(now time.Time, d time.Duration, key string) (start, first bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.said == nil {
		h.said = map[string]bool{}
	}
	first = !h.said[key]
	h.said[key] = true
	if until := now.Add(d); until.After(h.until) {
		h.until = until
	}
	start = !h.pausing && !h.closed
	if start {
		h.pausing = true
		h.wg.Add(1)
	}
	return start, first
}

// run stops fetching (stop), waits until the pause ends, resumes fetching
// (resume), and does it again while a new failure extended the pause.
// ctx ends it (the worker stops).
func (h *holdOff) run(ctx context.Context, stop func(context.Context) error, resume func() error) {
	defer h.wg.Done()
	for {
		if err := stop(ctx); err != nil {
			h.mu.Lock()
			h.pausing = false
			h.mu.Unlock()
			return
		}
		for {
			h.mu.Lock()
			wait := time.Until(h.until)
			h.mu.Unlock()
			if wait <= 0 {
				break
			}
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				h.mu.Lock()
				h.pausing = false
				h.mu.Unlock()
				return
			case <-t.C:
			}
		}
		_ = resume()
		h.mu.Lock()
		again := time.Now().Before(h.until)
		if !again {
			h.pausing = false
		}
		h.mu.Unlock()
		if !again {
			return
		}
	}
}
