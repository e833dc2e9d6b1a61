package app

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yagent/yagent/config"
	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

// TestModelNames pins how a model name finds its endpoint: "" and inherit
// are the default, a name under models: is that entry, an alias maps
// through models.aliases (to an entry or a raw id), --model names an entry
// or a raw id, and anything else is a visible warning (once per name),
// never a silent fallback.
func TestModelNames(t *testing.T) {
	cfg := &config.Config{
		Models: map[string]config.Model{
			"default": {BaseURL: "http://127.0.0.1:1/v1", Model: "base-model"},
			"big":     {BaseURL: "http://127.0.0.1:2/v1", Model: "big-model", Provider: llm.ProviderDeepSeek},
		},
		ModelAliases: map[string]string{"sonnet": "big", "haiku": "small-id"},
	}
	for _, tc := range []struct {
		override, name, wantID, wantBase, warning, label string
	}{
		{"", "", "base-model", "http://127.0.0.1:1/v1", "", "base-model"},
		{"", "inherit", "base-model", "http://127.0.0.1:1/v1", "", "base-model"},
		{"", "big", "big-model", "http://127.0.0.1:2/v1", "", "big → big-model"},
		{"", "sonnet", "big-model", "http://127.0.0.1:2/v1", "", "sonnet → big-model"},
		{"", "haiku", "small-id", "http://127.0.0.1:1/v1", "", "haiku → small-id"},
		{"", "opus", "base-model", "http://127.0.0.1:1/v1", `model "opus" is not under models: nor models.aliases; the default model serves it (map it with models.aliases.opus: <model>)`, "opus → base-model"},
		{"big", "", "big-model", "http://127.0.0.1:2/v1", "", "big → big-model"},
		{"gpt-5", "", "gpt-5", "http://127.0.0.1:1/v1", "", "gpt-5"},
		{"gpt-5", "inherit", "gpt-5", "http://127.0.0.1:1/v1", "", "gpt-5"},
		// --model (and /model) take aliases like an agent file's model:.
		{"sonnet", "", "big-model", "http://127.0.0.1:2/v1", "", "sonnet → big-model"},
		{"haiku", "", "small-id", "http://127.0.0.1:1/v1", "", "haiku → small-id"},
	} {
		var warnings []string
		c := NewClients(cfg, ClientOptions{Getenv: func(string) string { return "" }, Model: tc.override, Warn: func(s string) { warnings = append(warnings, s) }})
		cl, id, err := c.Resolve(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		_, _, _ = c.Resolve(tc.name) // a second use warns no more
		if got := c.Label(tc.name); got != tc.label {
			t.Errorf("--model %q, Label(%q) = %q; want %q", tc.override, tc.name, got, tc.label)
		}
		if id != tc.wantID {
			t.Errorf("--model %q, resolve(%q) id = %q; want %q", tc.override, tc.name, id, tc.wantID)
		}
		key, _ := c.modelFor(tc.name)
		if got := cfg.Models[key].BaseURL; got != tc.wantBase {
			t.Errorf("--model %q, resolve(%q) endpoint = %s; want %s", tc.override, tc.name, got, tc.wantBase)
		}
		wantProvider := llm.ProviderGeneric
		if strings.Contains(tc.wantBase, ":2/") {
			wantProvider = llm.ProviderDeepSeek // models.big.provider
		}
		if oc, ok := cl.(interface{ Profile() llm.Profile }); !ok || oc.Profile().Name != wantProvider {
			t.Errorf("resolve(%q) client %T speaks %v; want %s", tc.name, cl, cl, wantProvider)
		}
		switch {
		case tc.warning == "" && len(warnings) > 0:
			t.Errorf("resolve(%q) warned %q", tc.name, warnings)
		case tc.warning != "" && (len(warnings) != 1 || warnings[0] != tc.warning):
			t.Errorf("resolve(%q) warnings = %q; want once %q", tc.name, warnings, tc.warning)
		}
	}
}

// TestModelRetriesAsConfigured pins that models.<name>.max_retries reaches
// the client as it is: 0 is one request and no retry (no adapter turns it
// into a default), 2 is three requests.
func TestModelRetriesAsConfigured(t *testing.T) {
	sc, err := llmtest.Parse([]byte(`
steps:
  - repeat: true
    fault: {kind: status, status: 503, times: 0}
    reply: {text: never}
`), "always-503")
	if err != nil {
		t.Fatal(err)
	}
	for _, retries := range []int{0, 2} {
		srv := llmtest.New(sc)
		t.Cleanup(srv.Close)
		cfg := &config.Config{Models: map[string]config.Model{"default": {BaseURL: srv.URL(), Model: "m", Timeout: config.Duration(5 * time.Second), MaxRetries: retries}}}
		c := NewClients(cfg, ClientOptions{Getenv: func(string) string { return "" }})
		cl, _, err := c.Resolve("")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cl.Stream(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}}); err == nil {
			t.Fatal("a 503 every time: want an error")
		}
		if n := len(srv.Requests()); n != retries+1 {
			t.Errorf("max_retries: %d: the server saw %d requests; want %d", retries, n, retries+1)
		}
	}
}

// TestAdaptationsKeptAcrossRuns (issue 32 item 5): what an endpoint no
// provider is named for taught one run — here, that it refuses
// stream_options — the next run's first request already knows, through
// $YAGENT_HOME/endpoints.json; a replay learns nothing into it.
func TestAdaptationsKeptAcrossRuns(t *testing.T) {
	sc, err := llmtest.Parse([]byte("steps: [{repeat: true, reply: {text: ok}}]"), t.Name())
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(sc)
	t.Cleanup(srv.Close)
	target, err := url.Parse(strings.TrimSuffix(srv.URL(), "/v1"))
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	var mu sync.Mutex
	var bodies []string
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(body))
		mu.Unlock()
		if strings.Contains(string(body), `"stream_options"`) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"message":"Extra inputs are not permitted: stream_options","type":"invalid_request_error"}}`)
			return
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		r.ContentLength = int64(len(body))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	home := t.TempDir()
	cfg := &config.Config{Home: home, Models: map[string]config.Model{"default": {BaseURL: front.URL + "/v1", Model: "m"}}}
	ask := func() int {
		t.Helper()
		mu.Lock()
		bodies = nil
		mu.Unlock()
		cl, _, err := NewClients(cfg, ClientOptions{Getenv: func(string) string { return "" }}).Resolve("")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cl.Stream(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		return len(bodies)
	}
	if n := ask(); n != 2 {
		t.Fatalf("the first run sent %d requests; want 2 (refused, then without stream_options)", n)
	}
	if _, err := os.Stat(AdaptationsFile(cfg)); err != nil {
		t.Fatalf("nothing remembered: %v", err)
	}
	if n := ask(); n != 1 {
		t.Errorf("the second run sent %d requests; want 1: it should start adapted", n)
	}
}
