package llm_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/yagent/yagent/llm"
)

const (
	testKey   = "sk-proj-Secret0123456789abcdefXYZ"
	testToken = "gw-tok-0123456789abcdef"
)

// echoed is what a careless gateway says back: every credential header
// and the query of the request, verbatim.
func echoed(r *http.Request) string {
	var parts []string
	for _, h := range []string{"Authorization", "Api-Key", "X-Api-Key", "X-Gateway-Token"} {
		if v := r.Header.Get(h); v != "" {
			parts = append(parts, h+": "+v)
		}
	}
	return strings.Join(parts, "; ") + " url=" + r.URL.String()
}

// TestErrorsNeverEchoCredentials pins that the credentials a request
// carried — the API key (as a bearer token or an api-key header) and
// the secret extra headers — are scrubbed from every error a server's
// answer becomes: an HTTP error body (JSON, plain text, a key cut at the
// body's cap or past the one-line cap), a retried failure reported through
// EventRetry, an error event inside a stream, a failed Responses answer
// and an embeddings error. Every error of the chain is clean, not only the
// outer text.
func TestErrorsNeverEchoCredentials(t *testing.T) {
	for _, tc := range []struct {
		name    string
		mod     func(*llm.EndpointConfig)
		handler func(w http.ResponseWriter, r *http.Request)
		embed   bool
		query   string // after the base URL
		// outer: only the reported text is clean; the wrapped transport
		// error keeps its words (see redact.Secrets.Error).
		outer bool
	}{
		{name: "401 json", handler: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error":{"message":"invalid credentials: %s","code":"invalid_api_key"}}`, jsonString(echoed(r)))
		}},
		{name: "401 plain text past the one-line cap", handler: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, "%s\n%s", strings.Repeat("x", 262), echoed(r))
		}},
		{name: "403 with the key cut at the body cap", handler: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprintf(w, "%s%s", strings.Repeat(" ", 64<<10-20), r.Header.Get("Authorization"))
		}},
		{name: "azure api-key header", mod: func(c *llm.EndpointConfig) { c.Provider = "azure" }, handler: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":"bad request from %s"}`, jsonString(echoed(r)))
		}},
		{name: "secret extra header", mod: func(c *llm.EndpointConfig) {
			c.ExtraHeaders = map[string]string{"X-Gateway-Token": testToken}
			c.Secrets = []string{testToken}
		}, handler: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"message":%q}`, echoed(r))
		}},
		{name: "url-encoded in a 500, retried", handler: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprintf(w, "upstream refused %s", url.QueryEscape(echoed(r)))
		}},
		{name: "error event in the stream", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {\"error\":{\"message\":\"upstream 401: %s\",\"code\":401}}\n\n", jsonString(echoed(r)))
		}},
		{name: "failed responses answer", mod: func(c *llm.EndpointConfig) { c.API = llm.APIResponses }, handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			fail := map[string]any{"type": "response.failed", "response": map[string]any{"id": "r", "status": "failed",
				"error": map[string]any{"code": "server_error", "message": "upstream said: " + echoed(r)}}}
			b, _ := json.Marshal(fail)
			fmt.Fprintf(w, "event: response.failed\ndata: %s\n\n", b)
		}},
		{name: "connection error naming a url that holds the key", query: "?key=" + testKey, handler: func(w http.ResponseWriter, r *http.Request) {
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		}},
		{name: "transport error echoing the header", mod: func(c *llm.EndpointConfig) {
			c.HTTPClient = &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
				return nil, fmt.Errorf("proxy refused a request with %s", echoed(r))
			})}
		}, outer: true, handler: func(w http.ResponseWriter, r *http.Request) {}},
		{name: "embeddings", embed: true, handler: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error":{"message":%q}}`, echoed(r))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seen atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				seen.Add(1)
				tc.handler(w, r)
			}))
			defer srv.Close()
			c := newClient(t, srv.URL+"/v1"+tc.query, func(cfg *llm.EndpointConfig) {
				cfg.APIKey, cfg.MaxRetries = testKey, 1
				if tc.mod != nil {
					tc.mod(cfg)
				}
			})
			var err error
			var ev events
			if tc.embed {
				_, err = c.Embed(t.Context(), "emb", []string{"x"})
			} else {
				_, err = c.Stream(t.Context(), llm.Request{Messages: director(user("hi")), OnEvent: ev.add})
			}
			if err == nil {
				t.Fatal("no error")
			}
			if seen.Load() == 0 && tc.mod == nil {
				t.Fatal("the server was never asked")
			}
			texts := chainTexts(err, tc.outer)
			for _, e := range ev.of(llm.EventRetry) {
				texts = append(texts, chainTexts(e.Err, tc.outer)...)
			}
			for _, s := range texts {
				for _, secret := range []string{testKey, testKey[:16], testToken} {
					if strings.Contains(s, secret) {
						t.Errorf("an error shows %q:\n%s", secret, s)
					}
				}
			}
			if !strings.Contains(err.Error(), "[redacted]") {
				t.Errorf("err = %v; want the echoed credential replaced by [redacted]", err)
			}
			t.Logf("err = %v", err)
		})
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// chainTexts is the text of err and, unless outer, of every error it
// wraps.
func chainTexts(err error, outer bool) []string {
	var out []string
	for err != nil {
		out = append(out, err.Error(), fmt.Sprintf("%+v", err))
		if outer {
			break
		}
		err = errors.Unwrap(err)
	}
	return out
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
