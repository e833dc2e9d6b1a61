package llm_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

func TestRetry429ThenSuccess(t *testing.T) {
	srv := llmtest.NewTestServer(t, scenarioPath("faults.yaml"))
	c := newClient(t, srv.URL(), nil)
	var ev events
	resp, err := c.Stream(t.Context(), llm.Request{Messages: director(user("case:429")), OnEvent: ev.add})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Attempts != 2 || resp.Message.Content != "Answered after the rate limit." {
		t.Errorf("response = %+v; want the answer on attempt 2", resp)
	}
	retries := ev.of(llm.EventRetry)
	if len(retries) != 1 {
		t.Fatalf("retry events = %+v; want 1", retries)
	}
	r := retries[0]
	var api *llm.APIError
	if !errors.As(r.Err, &api) || api.StatusCode != http.StatusTooManyRequests {
		t.Errorf("retry event error = %v; want an *APIError with status 429", r.Err)
	}
	if r.Attempt != 2 || r.MaxAttempts != 4 {
		t.Errorf("retry event attempt %d/%d; want 2/4", r.Attempt, r.MaxAttempts)
	}
	if r.Wait < 150*time.Millisecond {
		t.Errorf("retry waited %v; want at least the server's Retry-After of 150ms", r.Wait)
	}
	got := stepRequests(srv, "rate-limited")
	if len(got) != 2 || got[0].Status != 429 || got[0].Fault != llmtest.FaultStatus || got[1].Status != 200 {
		t.Errorf("server saw %+v; want a 429 then a 200", got)
	}
}

func TestRetry500Exhausted(t *testing.T) {
	srv := llmtest.NewTestServer(t, scenarioPath("faults.yaml"))
	c := newClient(t, srv.URL(), func(cfg *llm.EndpointConfig) { cfg.MaxRetries = 2 })
	var ev events
	_, err := c.Stream(t.Context(), llm.Request{Messages: director(user("case:500")), OnEvent: ev.add})
	var api *llm.APIError
	if !errors.As(err, &api) || api.StatusCode != 500 {
		t.Fatalf("err = %v; want an *APIError with status 500", err)
	}
	if !strings.Contains(err.Error(), "gave up after 3 attempts") || !strings.Contains(err.Error(), "server error at "+srv.URL()) {
		t.Errorf("err = %q; want it to say how many attempts and which server", err)
	}
	if n := len(ev.of(llm.EventRetry)); n != 2 {
		t.Errorf("%d retry events; want 2", n)
	}
	if n := len(stepRequests(srv, "server-down")); n != 3 {
		t.Errorf("server saw %d requests; want 3 (1 + MaxRetries)", n)
	}
	// A queue worker tries elsewhere what the client gave up on.
	if !llm.IsTransient(err) {
		t.Errorf("IsTransient(%v) = false; want true after the client's own retries", err)
	}
}

func TestSlowFirstByteRetried(t *testing.T) {
	srv := llmtest.NewTestServer(t, scenarioPath("faults.yaml"))
	c := newClient(t, srv.URL(), func(cfg *llm.EndpointConfig) { cfg.Timeout = 200 * time.Millisecond })
	var ev events
	start := time.Now()
	resp, err := c.Stream(t.Context(), llm.Request{Messages: director(user("case:slow")), OnEvent: ev.add})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 1500*time.Millisecond {
		t.Errorf("took %v; the 2s slow start should have been abandoned after 200ms", took)
	}
	if resp.Attempts != 2 || resp.Message.Content != "Answered after a slow start." {
		t.Errorf("response = %+v; want the answer on attempt 2", resp)
	}
	retries := ev.of(llm.EventRetry)
	if len(retries) != 1 || !strings.Contains(retries[0].Err.Error(), "no answer from") {
		t.Errorf("retry events = %+v; want one saying there was no answer", retries)
	}
}

func TestSlowFirstByteTimeoutExhausted(t *testing.T) {
	srv := inlineServer(t, `
steps:
  - fault: {kind: slow_first_byte, delay: 5s, times: 0}
    reply: {text: never}
`)
	c := newClient(t, srv.URL(), func(cfg *llm.EndpointConfig) {
		cfg.Timeout = 100 * time.Millisecond
		cfg.MaxRetries = 1
	})
	start := time.Now()
	_, err := c.Stream(t.Context(), llm.Request{Messages: director(user("x"))})
	if err == nil || !strings.Contains(err.Error(), "no answer from "+srv.URL()+" for 100ms") {
		t.Fatalf("err = %v; want a timeout naming the server and the timeout", err)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v; a per-request timeout must not look like the caller's cancellation", err)
	}
	// Below the 5s slow start (what waiting for it would take), far above
	// what a loaded machine needs for 2 × 100ms.
	if took := time.Since(start); took > 4*time.Second {
		t.Errorf("took %v; want about 2 × 100ms", took)
	}
}

func TestCutStreamRetried(t *testing.T) {
	srv := inlineServer(t, `
steps:
  - id: cut
    fault: {kind: cut_stream, after_bytes: 600}
    reply: {text: "This answer is cut the first time and complete the second time."}
`)
	c := newClient(t, srv.URL(), nil)
	var ev events
	resp, err := c.Stream(t.Context(), llm.Request{Messages: director(user("x")), OnEvent: ev.add})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Attempts != 2 || resp.Message.Content != "This answer is cut the first time and complete the second time." {
		t.Errorf("response = %+v; want the whole answer on attempt 2", resp)
	}
	var before, after string
	retried := false
	for _, e := range ev.list() {
		switch {
		case e.Kind == llm.EventRetry:
			retried = true
			if !errors.Is(e.Err, io.ErrUnexpectedEOF) || !strings.Contains(e.Err.Error(), "connection to") {
				t.Errorf("retry error = %v; want the connection dropped mid-answer (unexpected EOF)", e.Err)
			}
		case retried:
			after += e.Text
		default:
			before += e.Text
		}
	}
	if !retried || before == "" {
		t.Fatalf("events %+v; want some text, then a retry", ev.list())
	}
	if after != resp.Message.Content {
		t.Errorf("text after the retry = %q; want the whole answer again", after)
	}
	srv.AssertDone(t)
}

func TestCutStreamInFaultsScenario(t *testing.T) {
	srv := llmtest.NewTestServer(t, scenarioPath("faults.yaml"))
	c := newClient(t, srv.URL(), nil)
	resp, err := c.Stream(t.Context(), llm.Request{Messages: director(user("case:cut"))})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Attempts != 2 {
		t.Errorf("Attempts = %d; want 2", resp.Attempts)
	}
	if got := stepRequests(srv, "cut"); len(got) != 2 || got[0].Fault != llmtest.FaultCutStream {
		t.Errorf("server saw %+v; want a cut stream then an answer", got)
	}
}

func TestModelNotFoundNotRetried(t *testing.T) {
	srv := inlineServer(t, "steps: [{repeat: true, reply: {text: ok}}]", llmtest.WithModels("real-model"))
	c := newClient(t, srv.URL(), nil)
	var ev events
	_, err := c.Stream(t.Context(), llm.Request{Model: "typo-model", Messages: director(user("x")), OnEvent: ev.add})
	var api *llm.APIError
	if !errors.As(err, &api) {
		t.Fatalf("err = %v; want *APIError", err)
	}
	if api.StatusCode != 404 || api.Code != "model_not_found" || api.Model != "typo-model" || api.BaseURL != srv.URL() {
		t.Errorf("APIError = %+v", api)
	}
	want := fmt.Sprintf("model %q not found at %s: check models.<name>.model or YAGENT_MODEL (server said: The model `typo-model` does not exist or you do not have access to it.)", "typo-model", srv.URL())
	if err.Error() != want {
		t.Errorf("err = %q\nwant  %q", err, want)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("server saw %d requests; want exactly 1", n)
	}
	if len(ev.list()) != 0 {
		t.Errorf("events = %+v; want none", ev.list())
	}
	if llm.IsTransient(err) {
		t.Errorf("IsTransient(%v) = true; a missing model is no passing failure", err)
	}
}

func TestStatusRetryPolicy(t *testing.T) {
	for _, tc := range []struct {
		status   int
		code     string
		requests int
		say      string
	}{
		{400, "", 1, "rejected the request"},
		{401, "", 1, "check OPENAI_API_KEY"},
		{403, "", 1, "permissions"},
		{404, "", 1, "not found"},
		{422, "", 1, "rejected the request"},
		{429, "insufficient_quota", 1, "quota exhausted"},
		{400, "context_length_exceeded", 1, "models.<name>.context_window"},
		{500, "exceed_context_size_error", 1, "models.<name>.context_window"}, // llama.cpp: never retried as is
		{408, "", 3, "failed (408"},
		{429, "", 3, "rate limited"},
		{500, "", 3, "server error"},
		{503, "", 3, "server error"},
	} {
		t.Run(fmt.Sprintf("%d%s", tc.status, tc.code), func(t *testing.T) {
			code := ""
			if tc.code != "" {
				code = ", code: " + tc.code
			}
			srv := inlineServer(t, fmt.Sprintf("steps: [{optional: true, fault: {kind: status, status: %d, times: 0%s}, reply: {text: x}}]", tc.status, code))
			c := newClient(t, srv.URL(), func(cfg *llm.EndpointConfig) { cfg.MaxRetries = 2 })
			_, err := c.Stream(t.Context(), llm.Request{Messages: director(user("x"))})
			var api *llm.APIError
			if !errors.As(err, &api) || api.StatusCode != tc.status {
				t.Fatalf("err = %v; want *APIError %d", err, tc.status)
			}
			if !strings.Contains(err.Error(), tc.say) || strings.Contains(err.Error(), "\n") {
				t.Errorf("err = %q; want one line mentioning %q", err, tc.say)
			}
			if n := len(srv.Requests()); n != tc.requests {
				t.Errorf("server saw %d requests; want %d", n, tc.requests)
			}
		})
	}
}

func TestConnectionRefusedRetried(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/v1"
	ln.Close() // nothing listens there now
	c := newClient(t, url, func(cfg *llm.EndpointConfig) { cfg.MaxRetries = 2 })
	var ev events
	_, err = c.Stream(t.Context(), llm.Request{Messages: director(user("x")), OnEvent: ev.add})
	var op *net.OpError
	if !errors.As(err, &op) || !strings.Contains(err.Error(), "connection to "+url+" failed") {
		t.Fatalf("err = %v; want a connection error naming %s", err, url)
	}
	if n := len(ev.of(llm.EventRetry)); n != 2 {
		t.Errorf("%d retries; want 2", n)
	}
	if !llm.IsTransient(err) {
		t.Errorf("IsTransient(%v) = false; want true for a refused connection", err)
	}
}

func TestCancelDuringBackoff(t *testing.T) {
	srv := inlineServer(t, "steps: [{optional: true, fault: {kind: status, status: 429, retry_after: 60s}, reply: {text: x}}]")
	c := newClient(t, srv.URL(), nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	start := time.Now()
	_, err := c.Stream(ctx, llm.Request{Messages: director(user("x")), OnEvent: func(e llm.Event) {
		if e.Kind == llm.EventRetry {
			if e.Wait != llm.MaxRetryWait {
				t.Errorf("Wait = %v; want Retry-After 60s capped at %v", e.Wait, llm.MaxRetryWait)
			}
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want context.Canceled", err)
	}
	// The backoff is 30s: a third of it is far more than a loaded machine
	// needs to notice the cancel.
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %v; want the backoff cut short by cancellation", took)
	}
}

// TestStreamEndedEarlyRetried pins that a stream ending cleanly without a
// finish reason or [DONE] (a proxy giving up) counts as cut, not as an
// answer: the transport reports no error at all.
func TestStreamEndedEarlyRetried(t *testing.T) {
	srv := inlineServer(t, `
steps:
  - fault: {kind: cut_stream, after_bytes: 500, graceful: true}
    reply: {text: "A complete answer arrives only on the second attempt."}
`)
	c := newClient(t, srv.URL(), nil)
	var ev events
	resp, err := c.Stream(t.Context(), llm.Request{Messages: director(user("x")), OnEvent: ev.add})
	if err != nil {
		t.Fatal(err)
	}
	retries := ev.of(llm.EventRetry)
	if len(retries) != 1 || !strings.Contains(retries[0].Err.Error(), "stream ended before the answer finished") {
		t.Fatalf("retry events = %+v; want one for a stream that ended early", retries)
	}
	if resp.Attempts != 2 || resp.Message.Content != "A complete answer arrives only on the second attempt." {
		t.Errorf("response = %+v", resp)
	}
}

// TestSteadyStreamOutlivesTimeout pins that the timeout bounds silence, not
// the whole answer: a stream slower in total than the timeout but never
// silent that long is not cut.
func TestSteadyStreamOutlivesTimeout(t *testing.T) {
	srv := inlineServer(t, `
steps:
  - chunk_delay: 60ms
    reply: {text: "one two three four five six seven eight nine ten"}
`)
	c := newClient(t, srv.URL(), func(cfg *llm.EndpointConfig) { cfg.Timeout = 250 * time.Millisecond })
	start := time.Now()
	resp, err := c.Stream(t.Context(), llm.Request{Messages: director(user("x"))})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 500*time.Millisecond {
		t.Fatalf("answer took %v; the test needs it to outlast the 250ms timeout", took)
	}
	if resp.Attempts != 1 {
		t.Errorf("Attempts = %d; want 1 (a flowing stream is never abandoned)", resp.Attempts)
	}
}

// TestZeroMeansNone pins that the client takes its configuration as it is
// (config/defaults.yaml resolves every default): MaxRetries 0 is one
// attempt and no retry, a nil Backoff retries without a pause, Timeout 0
// waits for a slow server instead of abandoning the attempt, and a negative
// value is an error rather than a hidden default.
func TestZeroMeansNone(t *testing.T) {
	srv := llmtest.NewTestServer(t, scenarioPath("faults.yaml"))
	c := newClient(t, srv.URL(), func(cfg *llm.EndpointConfig) { cfg.MaxRetries = 0 })
	var ev events
	if _, err := c.Stream(t.Context(), llm.Request{Messages: director(user("case:500")), OnEvent: ev.add}); err == nil {
		t.Fatal("a 500 with no retries: want an error")
	}
	if n := len(stepRequests(srv, "server-down")); n != 1 || len(ev.of(llm.EventRetry)) != 0 {
		t.Errorf("MaxRetries 0: the server saw %d requests and %d retries were announced; want 1 and none", n, len(ev.of(llm.EventRetry)))
	}

	c = newClient(t, srv.URL(), func(cfg *llm.EndpointConfig) { cfg.MaxRetries, cfg.Backoff = 2, nil })
	ev = events{}
	if _, err := c.Stream(t.Context(), llm.Request{Messages: director(user("case:500")), OnEvent: ev.add}); err == nil {
		t.Fatal("a 500 every time: want an error")
	}
	for _, r := range ev.of(llm.EventRetry) {
		if r.Wait != 0 {
			t.Errorf("nil Backoff: retry %d waited %v; want no pause", r.Attempt, r.Wait)
		}
	}
	if n := len(ev.of(llm.EventRetry)); n != 2 {
		t.Errorf("MaxRetries 2: %d retries; want 2", n)
	}

	slow := inlineServer(t, `
steps:
  - fault: {kind: slow_first_byte, delay: 300ms, times: 1}
    reply: {text: "Worth the wait."}
`)
	c = newClient(t, slow.URL(), func(cfg *llm.EndpointConfig) { cfg.Timeout = 0 })
	resp, err := c.Stream(t.Context(), llm.Request{Messages: director(user("x"))})
	if err != nil || resp.Attempts != 1 || resp.Message.Content != "Worth the wait." {
		t.Errorf("Timeout 0 against a slow first byte: %+v, %v; want the answer on the first attempt", resp, err)
	}

	for _, cfg := range []llm.EndpointConfig{{BaseURL: srv.URL(), MaxRetries: -1}, {BaseURL: srv.URL(), Timeout: -time.Second}} {
		if _, err := llm.NewOpenAI(cfg); err == nil || !strings.Contains(err.Error(), "want 0 or more") {
			t.Errorf("NewOpenAI(%+v) = %v; want an error", cfg, err)
		}
	}
}
