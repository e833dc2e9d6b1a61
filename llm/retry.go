package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// MaxRetryWait caps any pause between attempts, including one a server asks
// for with Retry-After: a CLI waiting minutes in silence looks hung.
const MaxRetryWait = 30 * time.Second

// ExponentialBackoff is the pause before retry number retry: exponential
// from 500ms, capped at 8s, with "equal jitter" (half fixed, half random) so
// parallel sub-agents hitting the same rate limit do not retry in lockstep.
func ExponentialBackoff(retry int) time.Duration {
	d := 500 * time.Millisecond
	for i := 1; i < retry && d < 8*time.Second; i++ {
		d *= 2
	}
	d = min(d, 8*time.Second)
	return d/2 + rand.N(d/2+1)
}

// retryAfter reads the pause a server asked for: retry-after-ms (OpenAI),
// then Retry-After in seconds or as an HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// attemptFunc runs attempt n (from 1). It returns a retryable error (see
// retryable) when a new attempt may succeed, and the pause the server asked
// for, if any.
type attemptFunc func(ctx context.Context, n int) (serverWait time.Duration, err error)

// retry runs attempt until it succeeds, fails for good, ctx is done or
// MaxRetries is spent, and returns how many attempts ran. Before each retry
// it reports an EventRetry through emit.
func (c *OpenAIClient) retry(ctx context.Context, emit func(Event), attempt attemptFunc) (int, error) {
	maxAttempts := c.maxRetries + 1
	for n := 1; ; n++ {
		serverWait, err := attempt(ctx, n)
		if err == nil {
			return n, nil
		}
		if ctx.Err() != nil {
			return n, fmt.Errorf("model request to %s: %w", c.baseURL, ctx.Err())
		}
		var r *retryableError
		if !errors.As(err, &r) {
			return n, err
		}
		cause := r.err
		if n >= maxAttempts {
			// r keeps the mark (IsTransient): a caller with other hosts
			// may try elsewhere. Its text is the cause's.
			if n == 1 {
				return n, r
			}
			return n, fmt.Errorf("gave up after %d attempts: %w", n, r)
		}
		var wait time.Duration
		if c.backoff != nil {
			wait = c.backoff(n)
		}
		if serverWait > wait {
			wait = serverWait
		}
		wait = min(wait, MaxRetryWait)
		emit(Event{Kind: EventRetry, Attempt: n + 1, MaxAttempts: maxAttempts, Err: cause, Wait: wait})
		if err := sleep(ctx, wait); err != nil {
			return n, fmt.Errorf("model request to %s: %w", c.baseURL, err)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
