package llm

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestNewAPIErrorBodyShapes(t *testing.T) {
	for _, tc := range []struct {
		body string
		want APIError
	}{
		{`{"error":{"message":"No such model","type":"invalid_request_error","code":"model_not_found"}}`,
			APIError{Message: "No such model", Type: "invalid_request_error", Code: "model_not_found"}},
		{`{"error":{"message":"busy","code":503}}`, APIError{Message: "busy", Code: "503"}},
		{`{"error":"model 'x' not found, try pulling it first"}`, APIError{Message: "model 'x' not found, try pulling it first"}},
		{`{"message":"plain\n  message"}`, APIError{Message: "plain message"}},
		{"<html>\n<b>Bad Gateway</b></html>", APIError{Message: "<html> <b>Bad Gateway</b></html>"}},
		{`{"error":null}`, APIError{}},
		{``, APIError{}},
	} {
		got := newAPIError(0, []byte(tc.body), "", "")
		if diff := cmp.Diff(&tc.want, got); diff != "" {
			t.Errorf("newAPIError(%q) (-want +got):\n%s", tc.body, diff)
		}
	}
}

func TestAPIErrorMessages(t *testing.T) {
	const url = "http://127.0.0.1:1/v1"
	for _, tc := range []struct {
		err  APIError
		want string
	}{
		{APIError{StatusCode: 404, Code: "model_not_found", Message: "gone"},
			`model "m" not found at ` + url + `: check models.<name>.model or YAGENT_MODEL (server said: gone)`},
		{APIError{StatusCode: 404, Message: "404 page not found"},
			url + ` answered 404 (404 page not found): check OPENAI_BASE_URL, it usually ends in /v1`},
		{APIError{StatusCode: 401, Message: "bad key"}, url + ` rejected the API key (401: bad key): check OPENAI_API_KEY`},
		{APIError{StatusCode: 429, Message: "slow down"}, `rate limited by ` + url + ` (429: slow down): wait a little, lower parallelism or raise the rate limit`},
		{APIError{StatusCode: 502}, `server error at ` + url + ` (502: Bad Gateway): the provider is failing, try again later`},
	} {
		tc.err.Model, tc.err.BaseURL = "m", url
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%d error:\n got %q\nwant %q", tc.err.StatusCode, got, tc.want)
		}
	}
	long := APIError{StatusCode: 500, Message: oneLine(strings.Repeat("é", 400))}
	if msg := long.Error(); len(msg) > 500 || strings.Contains(msg, "\n") {
		t.Errorf("long message not capped to one line: %d bytes", len(msg))
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		header http.Header
		want   time.Duration
		ok     bool
	}{
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"1"}}, 250 * time.Millisecond, true},
		{http.Header{"Retry-After": {"2"}}, 2 * time.Second, true},
		{http.Header{"Retry-After": {now.Add(3 * time.Second).Format(http.TimeFormat)}}, 3 * time.Second, true},
		{http.Header{"Retry-After": {"soon"}}, 0, false},
		{http.Header{}, 0, false},
	} {
		got, ok := retryAfter(tc.header, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("retryAfter(%v) = %v, %v; want %v, %v", tc.header, got, ok, tc.want, tc.ok)
		}
	}
}

func TestExponentialBackoff(t *testing.T) {
	for retry, max := range map[int]time.Duration{1: 500 * time.Millisecond, 2: time.Second, 3: 2 * time.Second, 10: 8 * time.Second} {
		for range 50 {
			if d := ExponentialBackoff(retry); d < max/2 || d > max {
				t.Fatalf("ExponentialBackoff(%d) = %v; want within [%v, %v]", retry, d, max/2, max)
			}
		}
	}
}

func TestStreamErrorClassified(t *testing.T) {
	for _, tc := range []struct {
		data      string
		retryable bool
	}{
		{`{"error":{"message":"Provider disconnected","code":"server_error"}}`, true},
		{`{"error":{"message":"overloaded","code":529}}`, true},
		{`{"error":{"message":"slow down","code":429}}`, true},
		{`{"error":{"message":"prompt too long","code":"context_length_exceeded"}}`, false},
		{`{"error":{"message":"bad","code":400}}`, false},
	} {
		if got := newStreamError([]byte(tc.data)).retryable; got != tc.retryable {
			t.Errorf("newStreamError(%s).retryable = %v; want %v", tc.data, got, tc.retryable)
		}
	}
}
