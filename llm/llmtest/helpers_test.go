package llmtest_test

import (
	"fmt"
	"testing"

	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

func serve(t testing.TB, yaml string, opts ...llmtest.Option) *llmtest.Server {
	t.Helper()
	sc, err := llmtest.Parse([]byte(yaml), t.Name())
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(sc, append([]llmtest.Option{llmtest.WithLogf(t.Logf)}, opts...)...)
	t.Cleanup(srv.Close)
	return srv
}

func client(t testing.TB, srv *llmtest.Server) *llm.OpenAIClient {
	t.Helper()
	c, err := llm.NewOpenAI(llm.EndpointConfig{BaseURL: srv.URL(), Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func msgs(agent string, rest ...llm.Message) []llm.Message {
	return append([]llm.Message{{Role: llm.RoleSystem, Content: "[agent:" + agent + "] system prompt"}}, rest...)
}

func user(s string) llm.Message { return llm.Message{Role: llm.RoleUser, Content: s} }

// fakeTB records failures so AssertDone itself can be tested.
type fakeTB struct {
	testing.TB
	errs []string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Errorf(format string, args ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}
