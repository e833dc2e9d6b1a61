package llm_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/yagent/yagent/llm"
)

func TestNewOpenAIEndpointErrors(t *testing.T) {
	if _, err := llm.NewOpenAI(llm.EndpointConfig{}); !errors.Is(err, llm.ErrNoEndpoint) {
		t.Errorf("NewOpenAI without base URL: err = %v; want ErrNoEndpoint", err)
	}
	if _, err := llm.NewOpenAI(llm.EndpointConfig{BaseURL: "localhost:8080"}); err == nil || !strings.Contains(err.Error(), "OPENAI_BASE_URL") {
		t.Errorf("NewOpenAI with a schemeless URL: err = %v; want advice on OPENAI_BASE_URL", err)
	}
	c, err := llm.NewOpenAI(llm.EndpointConfig{BaseURL: "http://127.0.0.1:1/v1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Stream(t.Context(), llm.Request{Messages: director(user("x"))}); err == nil || !strings.Contains(err.Error(), "YAGENT_MODEL") {
		t.Errorf("Stream without any model: err = %v; want advice on YAGENT_MODEL", err)
	}
}

// TestNewOpenAIIgnoresProcessEnv pins that the client takes everything from
// its EndpointConfig: openai.NewClient would read OPENAI_BASE_URL and friends
// from the process environment behind the caller's back.
func TestNewOpenAIIgnoresProcessEnv(t *testing.T) {
	srv := inlineServer(t, "steps: [{reply: {text: ok}}]")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("OPENAI_API_KEY", "env-key")
	t.Setenv("OPENAI_ORG_ID", "org-leak")
	t.Setenv("OPENAI_CUSTOM_HEADERS", "X-Leak: yes")
	c := newClient(t, srv.URL(), func(cfg *llm.EndpointConfig) { cfg.APIKey = "" })
	if _, err := c.Stream(t.Context(), llm.Request{Messages: director(user("x"))}); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	h := srv.Requests()[0].Header
	for _, name := range []string{"X-Leak", "Openai-Organization"} {
		if v := h.Get(name); v != "" {
			t.Errorf("header %s = %q leaked from the process environment", name, v)
		}
	}
	if v := h.Get("Authorization"); strings.Contains(v, "env-key") {
		t.Errorf("Authorization = %q; OPENAI_API_KEY leaked from the process environment", v)
	}
}

func TestEstimateTokens(t *testing.T) {
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: strings.Repeat("a", 400)},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c", Name: "grep", Arguments: strings.Repeat("b", 100)}}},
	}
	tools := []llm.ToolDef{{Name: "grep", Description: "d", Parameters: []byte(`{"type":"object"}`)}}
	got := llm.EstimateTokens(msgs, tools)
	// 4+400 + 9+1+4+100 + 4+1+17 = 540 bytes → 135, plus 2 messages × 4.
	if got != 143 {
		t.Errorf("EstimateTokens = %d; want 143", got)
	}
	if again := llm.EstimateTokens(msgs, tools); again != got {
		t.Errorf("EstimateTokens not deterministic: %d then %d", got, again)
	}
	if llm.EstimateTokens(nil, nil) != 0 {
		t.Error("EstimateTokens(nil, nil) != 0")
	}
}
