package agents

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yagent/yagent/llm"
	"github.com/yagent/yagent/llm/llmtest"
)

// reasoningTurn runs loop-reasoning.yaml against a client speaking the
// given provider profile, with a transient tail, and returns the server,
// the events and the messages the loop recorded.
func reasoningTurn(t *testing.T, provider string) (*llmtest.Server, []Event, []llm.Message) {
	t.Helper()
	srv := llmtest.NewTestServer(t, filepath.Join("..", "testdata", "scenarios", "loop-reasoning.yaml"))
	client, err := llm.NewOpenAI(llm.EndpointConfig{BaseURL: srv.URL(), Model: "scripted", Provider: provider,
		Timeout: 10 * time.Second, MaxRetries: 3})
	if err != nil {
		t.Fatal(err)
	}
	rec := &Recorder{}
	var recorded []llm.Message
	loop := &Loop{Client: client, Events: rec, TailRole: llm.RoleUser,
		Tail:   func(context.Context) (string, error) { return ComposeTail("[window] plenty left"), nil },
		Append: func(m llm.Message) error { recorded = append(recorded, m); return nil }}
	w := demoWorkspace(t)
	if _, err := loop.Run(t.Context(), leadAgent(FSTools(w, ShellPolicy{})), nil, userMsg("what module is this?")); err != nil {
		t.Fatal(err)
	}
	srv.AssertDone(t)
	return srv, rec.Events(), recorded
}

// TestLoopReasoningIsNotTheAnswer pins reasoning as reasoning in a turn:
// reasoning_delta events (never text_delta), kept on the recorded
// assistant messages, counted in the usage, and sent back to a provider
// that demands it (deepseek: reasoning_content on the assistant message).
func TestLoopReasoningIsNotTheAnswer(t *testing.T) {
	srv, evs, recorded := reasoningTurn(t, llm.ProviderDeepSeek)
	var text, reasoning strings.Builder
	var usage UsageEvent
	for _, e := range evs {
		switch e.Type {
		case EventTextDelta:
			text.WriteString(e.Text)
		case EventReasoningDelta:
			reasoning.WriteString(e.Text)
		case EventUsage:
			usage.Add(*e.Usage)
		}
	}
	if text.String() != "The module is example.com/demo." {
		t.Errorf("text deltas = %q; want the answer only", text.String())
	}
	if want := "The user wants the module name; go.mod has it.go.mod says example.com/demo."; reasoning.String() != want {
		t.Errorf("reasoning deltas = %q; want %q", reasoning.String(), want)
	}
	if usage.ReasoningTokens == 0 {
		t.Errorf("usage = %+v; want reasoning tokens counted", usage)
	}
	if recorded[1].Reasoning != "The user wants the module name; go.mod has it." || recorded[3].Reasoning == "" {
		t.Errorf("recorded assistant messages lost their reasoning: %+v", recorded)
	}
	var body struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(srv.Requests()[1].Body, &body); err != nil {
		t.Fatal(err)
	}
	if got := body.Messages[2]["reasoning_content"]; got != "The user wants the module name; go.mod has it." {
		t.Errorf("second request's assistant message reasoning_content = %v", got)
	}
}

// TestLoopTailPlacedByProfile pins that the loop never branches on a
// provider: it marks the tail, and the mistral profile merges it into the
// tool result (no user message after a tool message) while the recorded
// history never holds it.
func TestLoopTailPlacedByProfile(t *testing.T) {
	srv, _, recorded := reasoningTurn(t, llm.ProviderMistral)
	reqs := srv.Requests()
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Role != llm.RoleTool || !strings.HasSuffix(last.Content, ComposeTail("[window] plenty left")) {
		t.Errorf("last message of the second request = %+v; want the tool result carrying the tail", last)
	}
	for _, r := range reqs {
		for i := 1; i < len(r.Messages); i++ {
			if r.Messages[i-1].Role == llm.RoleTool && r.Messages[i].Role == llm.RoleUser {
				t.Errorf("request %d has a user message right after a tool message", r.N)
			}
		}
	}
	for _, m := range recorded {
		if strings.Contains(m.Content, TailHeader) {
			t.Errorf("the recorded history holds the tail: %+v", m)
		}
	}
}
