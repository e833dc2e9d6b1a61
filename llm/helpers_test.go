package llm_test

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

func scenarioPath(name string) string {
	return filepath.Join("..", "testdata", "scenarios", name)
}

// newClient returns a client for url with the configuration's default of
// three retries, without the pauses between them; mod adjusts it.
func newClient(t testing.TB, url string, mod func(*llm.EndpointConfig)) *llm.OpenAIClient {
	t.Helper()
	cfg := llm.EndpointConfig{
		BaseURL:    url,
		APIKey:     "test-key",
		Model:      "test-model",
		Timeout:    5 * time.Second,
		MaxRetries: 3,
	}
	if mod != nil {
		mod(&cfg)
	}
	c, err := llm.NewOpenAI(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// inlineServer serves a scenario written in the test.
func inlineServer(t testing.TB, yaml string, opts ...llmtest.Option) *llmtest.Server {
	t.Helper()
	sc, err := llmtest.Parse([]byte(yaml), t.Name())
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(sc, append([]llmtest.Option{llmtest.WithLogf(t.Logf)}, opts...)...)
	t.Cleanup(srv.Close)
	return srv
}

// events collects what a request reports through OnEvent.
type events struct {
	mu  sync.Mutex
	all []llm.Event
}

func (e *events) add(ev llm.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.all = append(e.all, ev)
}

func (e *events) list() []llm.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]llm.Event(nil), e.all...)
}

func (e *events) of(kind llm.EventKind) []llm.Event {
	var out []llm.Event
	for _, ev := range e.list() {
		if ev.Kind == kind {
			out = append(out, ev)
		}
	}
	return out
}

func director(msgs ...llm.Message) []llm.Message {
	return append([]llm.Message{{Role: llm.RoleSystem, Content: "[agent:director] You lead."}}, msgs...)
}

func user(s string) llm.Message { return llm.Message{Role: llm.RoleUser, Content: s} }

// stepRequests returns the recorded requests answered by step id.
func stepRequests(srv *llmtest.Server, id string) []llmtest.Recorded {
	var out []llmtest.Recorded
	for _, r := range srv.Requests() {
		if r.StepID == id {
			out = append(out, r)
		}
	}
	return out
}
